"""Exports: a self-contained HTML report and a Python script that prints the Report's table.

Pure functions (no Streamlit calls) so they can be tested directly. Every user-controlled string (file and
column names, the data note, the link) is HTML-escaped; the releases come from ``Release.published()``.
"""
from __future__ import annotations

import datetime as _dt
import html
import json

import pandas as pd

from dppca_core import experiments

from . import scenario


def scenario_table(vals: dict) -> pd.DataFrame:
    return pd.DataFrame([{"setting": k, "value": str(v)} for k, v in vals.items()])


def results_table(results: dict) -> pd.DataFrame:
    """One row per mechanism: guarantee, noise scale and mean [95% band] of each diagnostic."""
    return experiments.results_table(results)


RELEASED_NUMBERS = ("components", "eigenvalues", "outputs")


def budget_table(results: dict) -> pd.DataFrame | None:
    """One row per (mechanism, part) of a split budget: its share and calibration (None without a split)."""
    rows = []
    for mech, res in results.items():
        for part, share in res.published["facts"].get("budget", {}).items():
            rows.append({"mechanism": mech, "part": part, "share": f"{share['share']:.0%}",
                         "epsilon": f"{share['epsilon']:.4g}", "delta": f"{share['delta']:.3g}",
                         "GDP mu": f"{share['mu']:.4g}" if "mu" in share else ""})
    return pd.DataFrame(rows) if rows else None


def published_json(releases: dict, numbers: bool = True) -> str:
    """Published releases as JSON. ``releases`` maps a mechanism to a ``published()`` dict (or a result holding
    one); ``numbers=False`` keeps the guarantee and parameters but leaves out the released numbers."""
    out = {}
    for mech, pub in releases.items():
        pub = getattr(pub, "published", pub)
        out[mech] = pub if numbers else {k: v for k, v in pub.items() if k not in RELEASED_NUMBERS}
    return json.dumps(out, indent=1, allow_nan=False)


def build_html(vals: dict, link: str, results: dict, figures: list, tables: dict, data_note: str,
               risk_sentences: dict | None = None) -> str:
    """Self-contained HTML: plotly.js is embedded once, so the file opens offline.

    The runs behind it use the scenario's noise seed, which the link records: anyone with the seed can redraw
    the noise. So the released numbers are included only when the data are public (synthetic, a paper preset or
    a shipped sample); for an uploaded table the report keeps each release's guarantee and parameters, and
    releases to publish are drawn on the Report page with fresh randomness.
    """
    parts = []
    for i, fig in enumerate(figures):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=True if i == 0 else False,
                                 config={"displaylogo": False, "toImageButtonOptions": {"format": "png"}}))
    guarantees = "".join(
        f"<li><b>{html.escape(m)}</b>: {html.escape(r.guarantee_text)}"
        + (" <span class='bad'>RETRACTED — not private</span>" if r.guarantee == "retracted" else "") + "</li>"
        for m, r in results.items())
    table_html = "".join(f"<h2>{html.escape(name)}</h2>{df.to_html(index=False, border=0, classes='t', escape=True)}"
                         for name, df in tables.items())
    public_data = vals["src"] != "upload"
    what = ("first repetition of each mechanism, JSON" if public_data else
            "guarantees and parameters only: these runs use the noise seed in the link, so their numbers are not "
            "releases of the uploaded data")
    released = (f"<details><summary>Published releases ({what})</summary>"
                f"<pre>{html.escape(published_json(results, numbers=public_data))}</pre></details>") if results else ""
    risk_html = "".join(
        f"<li><b>{html.escape(m)}</b><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in sentences) + "</ul></li>"
        for m, sentences in (risk_sentences or {}).items())
    risk_block = f"<h2>What the guarantee means for one person</h2><ul>{risk_html}</ul>" if risk_html else ""
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    safe_link = html.escape(link, quote=True)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>DP-PCA Explorer report</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}}
table.t{{border-collapse:collapse;margin:.5rem 0}} table.t td,table.t th{{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left}}
.bad{{background:#c62828;color:#fff;padding:0 .4rem;border-radius:4px}} .note{{color:#555;font-size:.9rem}}
.link{{overflow-wrap:anywhere;word-break:break-all}} pre{{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}}</style></head>
<body><h1>DP-PCA Explorer report</h1>
<p class="note">Generated {stamp}. The scenario (every setting, seeds included):
<a class="link" href="{safe_link}">{html.escape(link)}</a></p>
<p><b>Data:</b> {html.escape(data_note)}</p>
<h2>Guarantees</h2><ul>{guarantees}</ul>
{risk_block}
{released}
<p class="note">The metrics below are diagnostics computed with the raw data as reference (the non-private PCA of the
clipped data): <b>not private, for exploration</b>. What a mechanism may publish is its release above.</p>
{table_html}
<h2>Figures</h2>{''.join(parts)}
</body></html>"""


def _load_lines(vals: dict) -> list[str]:
    src = vals["src"]
    if src == "synthetic":
        sparse = vals["sparse"] or None
        return [f"syn = dc.datasets.spiked_covariance(n={vals['n']}, d={vals['d']}, k={vals['rank']}, "
                f"spike={vals['spike']!r}, sparsity={sparse!r}, seed={vals['dseed']})",
                "X = syn.X",
                "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse"]
    if src.startswith("preset:"):
        name = src.split(":", 1)[1]
        return [f"preset = dc.datasets.PRESETS[{name!r}]",
                f"syn = preset.make(**preset.defaults, seed={vals['dseed']})",
                "X = syn.X",
                "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse"]
    if src.startswith("sample:"):
        return [f"X = dc.datasets.load_sample({src.split(':', 1)[1]!r}).X", "support = None"]
    if src.startswith("server:"):
        return ["# the file read on the server, streamed into sufficient statistics (pass its path)",
                f"X = dc.sufficient_stats(sys.argv[1] if len(sys.argv) > 1 else {src.split(':', 1)[1]!r}, "
                f"data_norm={vals['R']!r}, on_bad='drop_rows')",
                "support = None"]
    return ["# the uploaded table is not part of the link: pass its path as the first argument",
            "X = dc.datasets.load_table(sys.argv[1]).X",
            "support = None"]


def build_script(vals: dict) -> str:
    """A Python script that prints the Report's results table for this scenario (same seeds, same numbers).

    It needs only the installed ``dppca_core`` package and runs from any folder.
    """
    mechs = scenario.mechanisms(vals)
    params = {m: scenario.mech_params(m, vals) for m in mechs}
    center = ("X = X - X.mean(axis=0)  # centring with the data's own mean: NOT private\n"
              if vals["center"] == "empirical" else "")
    load = "\n".join(_load_lines(vals))
    return f'''"""Reproduces a DP-PCA Explorer scenario: prints the Report's table (generated by the app).

Needs the dppca_core package (pip install the DP-PCA Explorer project); runs from any folder.
Scenario: ?{scenario.query_string(vals)}
"""
import sys

import dppca_core as dc
from dppca_core import experiments

{load}
{center}data = dc.prepare(X, data_norm={vals['R']!r})  # clip rows to the public radius R
params = {params!r}
table, _ = experiments.compare(data, {mechs!r}, k={vals['k']}, epsilon={vals['eps']!r}, delta={vals['delta']!r},
                               neighbors={vals['nb']!r}, reps={vals['reps']}, seed={vals['seed']}, params=params,
                               support=support, s={vals['s']})
print(table.to_string(index=False))
'''

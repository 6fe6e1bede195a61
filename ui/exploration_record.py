"""The Report's exploration record: its self-contained HTML and its slides, built when their buttons are pressed.

An exploration record (:mod:`ui.report`) holds what the pages show: seeded runs, non-private diagnostics, the exact
(non-private) PCA, the scenario's link with its seeds; its first line says so (:func:`ui.report.record_line`). For
data the app did not synthesise it leaves out the released numbers of its seeded runs (whoever holds the seed
regenerates their noise). Every user-controlled string (file and column names, the data note, the link) is
HTML-escaped.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from dataclasses import dataclass

import pandas as pd

import dppca_core as dc
from dppca_core.pipeline import experiments
from dppca_core.registry import display_name

from .report import record_line, shows_seeded_numbers, synthesised
from .report_words import data_words, guarantee_words


RELEASED_NUMBERS = ("components", "eigenvalues", "outputs")


def published_json(releases: dict, numbers: bool = True) -> str:
    """Seeded runs' ``published()`` dicts as JSON, for an exploration record. ``releases`` maps a mechanism to a
    ``published()`` dict (or a result holding one); ``numbers=False`` keeps the guarantee and parameters but
    leaves out the released numbers (for data that are not the app's own: the seed regenerates the noise)."""
    out = {}
    for mech, pub in releases.items():
        pub = getattr(pub, "published", pub)
        out[mech] = pub if numbers else {k: v for k, v in pub.items() if k not in RELEASED_NUMBERS}
    return json.dumps(out, indent=1, allow_nan=False)


def _runs_block(vals: dict, results: dict) -> str:
    if not results:
        return ""
    public = synthesised(vals)
    what = (
        "first repetition of each mechanism, seeded: nothing here is private, the data are the app's own"
        if public
        else "guarantees and parameters only: these runs use the noise seed in the link, so their "
        "numbers are left out (anyone with the seed could regenerate the noise)"
    )
    return (
        f"<details><summary>The runs shown ({what}). Not releases: a release to publish is drawn with "
        f"fresh randomness on the Report page.</summary>"
        f"<pre>{html.escape(published_json(results, numbers=public))}</pre></details>"
    )


def build_html(
    vals: dict,
    link: str,
    results: dict,
    figures: list,
    tables: dict,
    data_note: str,
    risk_sentences: dict | None = None,
    summary: list | None = None,
    budget_words: list | None = None,
) -> str:
    """The Report as a self-contained exploration record (plotly.js embedded once, so the file opens offline).

    Its ``<title>`` and first visible line say which kind of export it is (:func:`record_line`). The runs
    behind it use the scenario's noise seed, which the link records: their released numbers are included only
    for data the app synthesised.
    """
    parts = []
    for i, fig in enumerate(figures):
        parts.append(
            fig.to_html(
                full_html=False,
                include_plotlyjs=True if i == 0 else False,
                config={"displaylogo": False, "toImageButtonOptions": {"format": "png"}},
            )
        )
    guarantees = "".join(
        f"<li><b>{html.escape(display_name(m))}</b>: {html.escape(r.guarantee_text)}"
        + (" <span class='bad'>RETRACTED — not private</span>" if r.guarantee == "retracted" else "")
        + "</li>"
        for m, r in results.items()
    )
    said = {"How the budget is split": "".join(f"<p class='note'>{html.escape(x)}</p>" for x in budget_words or [])}
    table_html = "".join(
        f"<h2>{html.escape(name)}</h2>{df.to_html(index=False, border=0, classes='t', escape=True)}"
        + said.get(name, "")
        for name, df in tables.items()
    )
    risk_html = "".join(
        f"<li><b>{html.escape(display_name(m))}</b><ul>"
        + "".join(f"<li>{html.escape(x)}</li>" for x in sentences)
        + "</ul></li>"
        for m, sentences in (risk_sentences or {}).items()
    )
    risk_block = f"<h2>What the guarantee means for one person</h2><ul>{risk_html}</ul>" if risk_html else ""
    summary_block = (
        "<h2>Summary</h2><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in summary) + "</ul>" if summary else ""
    )
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    safe_link = html.escape(link, quote=True)
    first = html.escape(record_line(vals))
    kind = "exploration record of synthetic data" if synthesised(vals) else "exploration record (not a release)"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>DP-PCA Explorer: {kind}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}}
table.t{{border-collapse:collapse;margin:.5rem 0}} table.t td,table.t th{{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left}}
.bad{{background:#c62828;color:#fff;padding:0 .4rem;border-radius:4px}} .note{{color:#555;font-size:.9rem}}
.record{{border:2px solid #8a6d00;background:#fff8e1;padding:.6rem .8rem;font-weight:600}}
.link{{overflow-wrap:anywhere;word-break:break-all}} pre{{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}}</style></head>
<body><p class="record">{first}</p>
<h1>DP-PCA Explorer: exploration record</h1>
<p class="note">Generated {stamp} by DP-PCA Explorer {dc.__version__}. Data: {html.escape(data_note)}</p>
{summary_block}
<h2>Guarantees of the mechanisms compared</h2><ul>{guarantees}</ul>
{risk_block}
{_runs_block(vals, results)}
<p class="note">The metrics and figures below are diagnostics computed with the raw data as reference (the exact,
non-private PCA of the clipped data): <b>not private, for exploration</b>.</p>
{table_html}
<h2>Figures</h2>{''.join(parts)}
<p class="note">The scenario's link (every setting that differs from the defaults, seeds included; an uploaded
file is not part of it): <a class="link" href="{safe_link}">{html.escape(link)}</a></p>
</body></html>"""


@dataclass(frozen=True)
class Record:
    """What the Report page computed for its exploration record: the record's HTML and slides are built from it
    when their buttons are pressed (:func:`record_html`, :func:`record_deck`), never on a rerun."""

    vals: dict
    ds: object
    prep: object
    results: dict
    k: int
    main: object  # the quantile dotplot the page shows
    loadings: object  # the page's loadings figure (seeded runs beside the exact PCA)
    budget_fig: object  # the budget bar, or None
    curves: dict  # {mechanism: privacy curve}
    last_sweep: dict | None
    link: str
    summary: list
    settings: pd.DataFrame
    table: pd.DataFrame
    shares: pd.DataFrame | None
    tables: dict
    risk_sentences: dict
    budget_words: list
    audit: object = None  # the last audit run on the Audit page in this session (synthetic neighbours), or None


def record_figures(record: Record) -> tuple[list, list, object, list]:
    """(every figure of the HTML record, the further figures of the slides, the posterior figure, extra summary
    lines). For data the app did not make the loadings show the exact PCA alone and the private score plot is left
    out: a seeded run's released numbers stay out of the record (:func:`shows_seeded_numbers`)."""
    from dppca_core import figures
    from dppca_core.figures import risk as risk_figures

    from . import compute, score_view

    vals, prep, k = record.vals, record.prep, record.k
    seeded = shows_seeded_numbers(vals)
    loadings = record.loadings
    if not seeded:
        loadings = figures.loadings_compare(prep.reference[:, :k], {}, record.ds.columns)
        loadings.update_layout(title=EXACT_LOADINGS)
    more = [loadings, figures.scree(prep.eigenvalues, k)] + ([record.budget_fig] if record.budget_fig else [])
    curves = record.curves
    risk_figs = [risk_figures.tradeoff_figure(curves), risk_figures.posterior_figure(curves)] if curves else []
    extra = []
    plot = score_view.score_plot(record.ds, prep, record.results) if seeded else None
    if plot is not None:  # the private score plot (by group when asked), beside the exact one
        more.append(plot[0])
        extra.append(plot[1])
    audited = audit_record(record.audit)
    if audited is not None:  # the audit runs on the app's own neighbouring datasets: its numbers are no one's data
        more.append(audited[0])
        extra.append(audited[1])
    last = record.last_sweep
    if last is not None:
        more.append(
            figures.sweep(
                last["frame"],
                last["axis"],
                last["metric"],
                compute.METRICS[last["metric"]],
                y_title=experiments.METRICS[last["metric"]].symbol,
            )
        )
    return [record.main, *more[:2], *risk_figs, *more[2:]], more, (risk_figs[1] if risk_figs else None), extra


def audit_record(result) -> tuple | None:
    """(the curve of the last audit, its reading with the mechanism named) for a record, or None."""
    from . import audit_curve

    drawn = (
        None
        if result is None
        else audit_curve.figure(
            result, title=f"Audit of {display_name(result.mechanism)}: the attack's whole trade-off against the claim"
        )
    )
    if drawn is None:
        return None
    return drawn[0], f"Audit of {display_name(result.mechanism)}: {drawn[1]}"


#: the title of a record's loadings figure when the seeded runs' components are left out
EXACT_LOADINGS = "Loadings of component 1: exact PCA only (seeded runs left out)"


def record_html(record: Record) -> str:
    """The Report's HTML record (:func:`build_html`) of ``record``."""
    figs, _, _, extra = record_figures(record)
    return build_html(
        record.vals,
        record.link,
        record.results,
        figs,
        record.tables,
        record.ds.note,
        record.risk_sentences,
        record.summary + extra,
        record.budget_words,
    )


def record_deck(record: Record) -> str:
    """The Report's slides (:func:`dppca_core.handout.slides.report_slides`) of ``record``: an exploration record like the HTML."""
    from dppca_core.handout import slides

    _, more, posterior, extra = record_figures(record)
    results = record.results
    return slides.build_deck(
        "DP-PCA Explorer: " + ", ".join(display_name(m) for m in results),
        record_line(record.vals),
        slides.report_slides(
            results,
            record.summary + extra,
            record.settings,
            record.main,
            record.table,
            record.shares,
            record.risk_sentences,
            posterior,
            more,
            guarantee_words(results, record.vals),
            record.budget_words,
        ),
        record.link,
        data_words(record.vals, record.ds),
    )

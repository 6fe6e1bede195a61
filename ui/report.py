"""Exports of two kinds, never mixed: exploration records and publishable releases.

* An **exploration record** (the Report's HTML and slides, :mod:`ui.exploration_record`; its Python script,
  :mod:`ui.script_export`; the Trade-offs and Reproduce CSVs, :func:`csv_record`) holds what the pages show: seeded
  runs, non-private diagnostics, the exact (non-private) PCA, the scenario's link with its seeds. Its first line says
  so (:func:`record_line`). For data the app did not synthesise (an upload, a server file, a shipped sample) the
  record describes the raw data and must stay with the data owner; it is never called a release, and it leaves out
  the released numbers of its seeded runs (whoever holds the seed regenerates their noise): the components,
  score-plot counts, R, scales and k of any one run.
* A **publishable file** (:mod:`ui.release_file`) holds only :func:`dppca_core.publish` of releases drawn with fresh
  randomness, from the configuration the page shows, with the public schema and settings.

This module holds what every record shares: its kind and first line, its links, its CSV form, and the Report's tables
(the settings in words are in :mod:`ui.report_words`). Pure functions (no Streamlit calls) so they can be tested
directly.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import pandas as pd

import dppca_core as dc
from dppca_core import publishable
from dppca_core.pipeline import experiments
from dppca_core.registry import display_name

from . import scenario
from dppca_core.reading import number

#: first line of every exploration record of data the app did not synthesise (fixed text: no user input in it)
PRIVATE_RECORD = (
    "Exploration record, not a release: it describes the raw data (non-private diagnostics, the exact "
    "PCA, seeded runs and their seeds). Keep it with the data owner; do not publish it."
)
#: first line of every exploration record of data the app synthesised
PUBLIC_RECORD = (
    "Exploration record of data the app synthesised: nothing in it is private (the data describe no "
    "person). It is not a release."
)
#: first line of the publishable file (dppca_core.publishable.PUBLISHABLE)
PUBLISHABLE = publishable.PUBLISHABLE
#: environment variable: the app's public address (e.g. https://dppca.example.org), used in a record's links; without
#: it a record links relatively (never to the address the browser used, such as localhost)
PUBLIC_URL_ENV = "DPPCA_PUBLIC_URL"


def synthesised(vals: dict) -> bool:
    """True when the app made the data itself (synthetic or a paper's setting): nothing about them is private.
    Uploads, server files and the shipped samples are treated as private data."""
    s = scenario.Settings(vals)
    return s.source == "synthetic" or s.source.startswith("preset:")


def record_line(vals: dict) -> str:
    """The first line of an exploration record of this scenario's data."""
    return PUBLIC_RECORD if synthesised(vals) else PRIVATE_RECORD


def public_base() -> str:
    """The start of every link a record or a deck holds: the operator's public address (:data:`PUBLIC_URL_ENV`,
    without a trailing slash) when set, else "" (the links are relative): never the address the browser used."""
    return os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")


def record_link(page_path: str, vals: dict | None = None) -> str:
    """The scenario's link as a record shows it: the operator's public address (:data:`PUBLIC_URL_ENV`) when set,
    else a relative link ("/report?..."), so that a record never names the address the browser used (localhost)."""
    query = scenario.query_string(vals)
    return f"{public_base()}/{page_path}" + (f"?{query}" if query else "")


def shows_seeded_numbers(vals: dict) -> bool:
    """Whether a record may show the released numbers of its seeded runs: only for data the app synthesised (for
    other data whoever holds the seed, which the link records, regenerates the noise)."""
    return synthesised(vals)


def csv_record(frame: pd.DataFrame, first_line: str) -> bytes:
    """A CSV whose first line is a comment naming the record's kind (read it back with ``comment="#"``)."""
    return (f"# {first_line}\n# Made with DP-PCA Explorer {dc.__version__}.\n" + frame.to_csv(index=False)).encode()


def results_table(results: dict) -> pd.DataFrame:
    """One row per mechanism (display names): guarantee, noise scale and mean [95% band] of each diagnostic."""
    return experiments.results_table(results)


def budget_table(results: dict) -> pd.DataFrame | None:
    """One row per (mechanism, part) of a split budget, in the unit in which the parts add up
    (:func:`dppca_core.publishable.budget_parts`: Gaussian parts' shares of μ², pure parts' ε), each mechanism's
    shares adding up to exactly 100% with a total row; None without a split."""
    rows = []
    for mech, res in results.items():
        parts = budget_parts(res.published)
        if parts is None:
            continue
        unit = "μ²" if parts["unit"] == "mu^2" else "ε"
        for part in parts["parts"]:
            rows.append(
                {
                    "mechanism": display_name(mech),
                    "part": part["part"],
                    "share": f"{part['percent']}%",
                    "adds up in": unit,
                    "amount": number(part["amount"]),
                }
            )
        rows.append(
            {
                "mechanism": display_name(mech),
                "part": "total",
                "share": "100%",
                "adds up in": unit,
                "amount": number(parts["total"]),
            }
        )
    return pd.DataFrame(rows) if rows else None


def budget_parts(published: dict) -> dict | None:
    """A published release's budget parts in units that add up (:func:`dppca_core.publishable.budget_parts`), or
    None when its whole budget went to the subspace."""
    parts = published.get("facts", {}).get("budget")
    if not parts:
        return None
    return publishable.budget_parts(parts, published["privacy"], published["epsilon"], published["delta"])


def budget_sentences(results: dict) -> list[str]:
    """The sentence saying in which unit each mechanism's parts add up and that the total is not their sum (one per
    distinct sentence)."""
    out = []
    for res in results.values():
        parts = budget_parts(res.published)
        if parts is not None and parts["sentence"] not in out:
            out.append(parts["sentence"])
    return out


def k_table(results: dict, vals: dict) -> pd.DataFrame | None:
    """The k each mechanism's releases chose privately (a published output of each release) and the rule; None when
    k was public."""
    rows = [
        {
            "mechanism": display_name(mech),
            "k of the first release": int(res.k[0]),
            "k chosen over repetitions": experiments.describe_k(res.k),
            "rule": scenario.k_rule_words(vals),
        }
        for mech, res in results.items()
        if res.k is not None
    ]
    return pd.DataFrame(rows) if rows else None


def scales_table(results: dict, columns: list) -> pd.DataFrame | None:
    """The column scales each mechanism's releases chose privately (a published output of each release): per column,
    the first release's and the mean and 95% range over the repetitions. None when no release scaled privately."""
    frame = {"column": [str(c) for c in columns]}
    for mech, res in results.items():
        if res.scales is None:
            continue
        name = display_name(mech)
        frame[f"{name}: first release"] = [number(v) for v in res.scales[0]]
        frame[f"{name}: mean [95% of repetitions]"] = [
            "{:.4g} [{:.4g}, {:.4g}]".format(*experiments.summary(column)) for column in res.scales.T
        ]
    return pd.DataFrame(frame) if len(frame) > 1 else None


def radius_table(results: dict) -> pd.DataFrame | None:
    """The clipping radius each mechanism's releases chose privately (a published output of each release): the first
    repetition's and the mean and 95% range over the repetitions. None when R was public."""
    rows = []
    for mech, res in results.items():
        if res.radius is None:
            continue
        mean, lo, hi = experiments.summary(res.radius)
        rows.append(
            {
                "mechanism": display_name(mech),
                "R of the first release": number(res.radius[0]),
                "mean R over repetitions": number(mean),
                "95% of repetitions": f"{number(lo)} to {number(hi)}",
            }
        )
    return pd.DataFrame(rows) if rows else None


class Chosen(NamedTuple):
    """One thing the releases chose privately and publish (:func:`chosen_privately`): its heading on the Report, what
    it is, and its table."""

    title: str
    caption: str
    table: pd.DataFrame

    @property
    def record_title(self) -> str:
        """The table's name in the exploration record."""
        return f"{self.title} (published by each release)"


def chosen_privately(results: dict, vals: dict, columns: list) -> list[Chosen]:
    """What the releases chose privately, in this order: their clipping radius (:func:`radius_table`), their column
    scales (:func:`scales_table`) and their k (:func:`k_table`); only those they chose."""
    chosen = (
        Chosen(
            "Clipping radius chosen privately",
            "Each release chose its R from its radius share; R is part of what it publishes.",
            radius_table(results),
        ),
        Chosen(
            "Column scales chosen privately",
            "Each release divided each column by a private root-mean-square from its scale share; the scales are "
            "part of what it publishes.",
            scales_table(results, columns),
        ),
        Chosen(
            "k chosen privately",
            "Each release kept the smallest k whose private explained-variance ratios sum above the target "
            "(post-processing of its eigenvalue share); k and every ratio it read are part of what it publishes. "
            "Each is scored against the exact top-k of its own k.",
            k_table(results, vals),
        ),
    )
    return [c for c in chosen if c.table is not None]


def without_single_runs(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (:func:`radius_table`, :func:`scales_table`, :func:`k_table`) without the columns holding one seeded
    run's released value: for a record of data the app did not make, which keeps the summaries over repetitions."""
    return table[[c for c in table.columns if "first release" not in c]]

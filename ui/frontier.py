"""The frontier on Trade-offs (issue 39): which chosen mechanism has the lowest error at each ε on the user's data,
from the points of a sweep of ε (each cached by :func:`ui.compute.run_reps`), and the verdict of each mechanism's own
audit, read from the audit table shipped in docs/audit-table.md (an audit of the implementation on worst-case
neighbouring datasets, not of the user's data)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from dppca_core.pipeline import experiments
from dppca_core.reading import number
from dppca_core.registry import display_name, get_mechanism

from . import limits

#: the audit table `python benchmarks/audit_table.py` writes: one row per mechanism, relation and case
AUDIT_TABLE = Path(__file__).resolve().parents[1] / "docs" / "audit-table.md"
#: the case of the rows that audit a mechanism as it runs in the app (the others are second readings and power checks)
AS_IMPLEMENTED = "as implemented"


@dataclass(frozen=True)
class AuditVerdict:
    """What a mechanism's own audit found under one neighbouring relation: ``status`` ("not refuted", "refuted" or
    "not audited", the keys of :data:`dppca_core.figures.frontier.VERDICT_MARKERS`) and the same in a sentence."""

    status: str
    words: str


def parse_audit_table(markdown: str) -> dict[tuple[str, str], AuditVerdict]:
    """The verdict of each "as implemented" row of the audit table (its Markdown text), by (mechanism, relation).

    Reads the columns by their headings (mechanism, relation, case, claim, share of target, verdict), so a new
    column does not shift them; rows whose verdict cell reads neither "REFUTED" nor "not refuted" are left out."""
    lines = [line.strip() for line in markdown.splitlines() if line.strip().startswith("|")]
    if len(lines) < 3:
        return {}
    heads = [cell.strip() for cell in lines[0].strip("|").split("|")]
    column = {
        key: next((i for i, h in enumerate(heads) if h.startswith(key)), None)
        for key in ("mechanism", "relation", "case", "claim", "share of target", "verdict")
    }
    if None in column.values():
        return {}
    out = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != len(heads) or cells[column["case"]] != AS_IMPLEMENTED:
            continue
        verdict, claim, share = (cells[column[key]] for key in ("verdict", "claim", "share of target"))
        seeds = verdict[verdict.find("(") + 1 : verdict.find(")")].split("/")
        refuted = verdict.startswith("REFUTED")
        if not refuted and not verdict.startswith("not refuted"):
            continue
        of = f"{seeds[0]} of {seeds[1]} seeds" if len(seeds) == 2 else "every seed"
        words = (
            f"its claim {claim} refuted by its audit ({of}; the attack reached {share.split(' ')[0]} of the "
            "target ε)"
            if refuted
            else f"its claim {claim} not refuted by its audit ({of}; the attack reached {share.split(' ')[0]} of the "
            "target ε, the median over seeds)"
        )
        out[(cells[column["mechanism"]], cells[column["relation"]])] = AuditVerdict(
            "refuted" if refuted else "not refuted", words
        )
    return out


@st.cache_resource(max_entries=1, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def audit_verdicts() -> dict[tuple[str, str], AuditVerdict]:
    """The shipped audit table's verdicts (:func:`parse_audit_table`), read once per server; empty without it."""
    try:
        return parse_audit_table(AUDIT_TABLE.read_text(encoding="utf-8"))
    except OSError:
        return {}


def verdict(verdicts: dict, mechanism: str, relation: str) -> AuditVerdict:
    """The verdict of ``mechanism``'s audit under ``relation``, or "not audited" when the table has no such row."""
    found = verdicts.get((mechanism, relation))
    if found is not None:
        return found
    words = "add/remove" if relation == "add_remove" else "replace-one"
    return AuditVerdict("not audited", f"no row of the audit table audits it under {words}")


def private(mechanism: str) -> bool:
    """Whether a mechanism claims a privacy guarantee (not the non-private baseline, not a retracted claim)."""
    return get_mechanism(mechanism).guarantee not in ("none", "retracted")


def frontier_frame(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """From a sweep of ε (rows of :func:`ui.compute.sweep_rows`: mechanism, eps, lo, hi and the per-repetition
    ``values``), one row per mechanism and ε with the ``median`` over repetitions and ``best``: True for the best
    median at that ε (the lowest, or the highest for a metric where higher is better; ties all marked) among the
    mechanisms with a privacy guarantee (:func:`private`; among all of them when none has one): the exact answer
    of the non-private baseline would win everywhere."""
    out = frame[["mechanism", "eps", "lo", "hi", "reps"]].copy()
    out["median"] = [float(np.median(v)) for v in frame["values"]]
    guaranteed = out["mechanism"].map(private)
    contenders = out["median"].where(guaranteed) if guaranteed.any() else out["median"]
    pick = "min" if experiments.METRICS[metric].lower_is_better else "max"
    out["best"] = (out["median"] == contenders.groupby(out["eps"]).transform(pick)) & contenders.notna()
    return out.reset_index(drop=True)


def frontier_table(points: pd.DataFrame, verdicts: dict) -> pd.DataFrame:
    """The frontier's numbers as shown under the chart: ε, mechanism, median and band, whether it is the best at
    that ε, and its audit's verdict (``verdicts``: mechanism -> :class:`AuditVerdict`)."""
    rows = points.sort_values(["eps", "median"])
    return pd.DataFrame(
        {
            "ε": rows["eps"],
            "mechanism": rows["mechanism"].map(display_name),
            "median": rows["median"],
            "2.5%": rows["lo"],
            "97.5%": rows["hi"],
            "repetitions": rows["reps"],
            "best at this ε": np.where(rows["best"], "best", ""),
            "its audit (docs/audit-table.md)": [verdicts[m].words for m in rows["mechanism"]],
        }
    ).reset_index(drop=True)


def frontier_summary(points: pd.DataFrame, metric: str) -> str:
    """The frontier in one sentence: which mechanism has the best median over which range of ε."""
    best = points[points["best"]].sort_values("eps")
    runs = []  # (mechanism names, first ε, last ε): consecutive ε with the same best
    for eps, group in best.groupby("eps", sort=True):
        names = " and ".join(display_name(m) for m in group["mechanism"])
        if runs and runs[-1][0] == names:
            runs[-1][2] = eps
        else:
            runs.append([names, eps, eps])
    said = "; ".join(
        f"{names} at ε = {number(lo)}" + (f" to {number(hi)}" if hi != lo else "") for names, lo, hi in runs
    )
    return f"Best median of a private mechanism on your data ({experiments.METRICS[metric].label}): {said}."


def audit_setting(markdown: str) -> str:
    """How the shipped audits were run, from the audit table's first sentence ("at (ε, δ) = (1, 1e-05) with 10,000
    trials per dataset and seeds 0–2"), or "" when the table does not say."""
    for line in markdown.splitlines():
        if line.startswith("Claims audited "):
            return line[len("Claims audited ") :].split(":")[0].strip()
    return ""


@st.cache_resource(max_entries=1, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def shipped_audit_setting() -> str:
    try:
        return audit_setting(AUDIT_TABLE.read_text(encoding="utf-8"))
    except OSError:
        return ""


def audit_source(relation: str, setting: str) -> str:
    """Where the verdicts come from and what they are not (Markdown); ``setting`` is :func:`audit_setting`."""
    words = "add/remove" if relation == "add_remove" else "replace one row"
    how = f", run {setting}" if setting else ""
    return (
        "Markers: each mechanism's **own audit** (docs/audit-table.md, the row that audits it as implemented under "
        f"your neighbouring relation, {words}{how}, on worst-case neighbouring datasets). Filled: the audit found "
        "no violation; a cross: the audit refuted the claim; open: no audit row. A verdict is about the "
        "mechanism's implementation, **not a test on your data**. The errors are measured on your rows against "
        "the non-private answer (not private: an exploration)."
    )

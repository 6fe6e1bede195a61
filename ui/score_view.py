"""The private score plot: the Explore page's view (:func:`view`), with the exact panels beside each released one, the
groups of a plot by group, and what each release's plot spends and shows; the figure a record embeds
(:func:`score_plot`)."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from dppca_core import figures
from dppca_core.pipeline import scores as scores_core
from dppca_core.reading import number
from dppca_core.registry import display_name, get_mechanism

from . import scenario, show
from .text import md_escape

#: what a view that needs the individual rows says for a file streamed into sufficient statistics
ROWS_NEEDED = "This view needs the individual rows; a file streamed into sufficient statistics keeps none."


def view(ds, prep, results, k, random_level):
    if not prep.data.has_rows:
        st.info(ROWS_NEEDED)
        return
    vals = scenario.values()
    if scenario.Settings(vals).scores_by_group:
        _score_groups(ds, vals)
    plot = score_figures(ds, prep, results)
    if plot is None:
        st.info("The score plot needs its own share of the budget: raise 'scores' in the sidebar (Budget split).")
        return
    for fig in plot["figures"]:
        show.chart(fig)
    if plot["reading"]:
        st.caption(md_escape(plot["reading"]))
    for line in plot["notes"]:
        st.info(md_escape(line), icon=":material/info:")
    st.caption(
        "Each private panel is a noisy histogram of the rows projected on that mechanism's released "
        "components (first repetition), from its own share of the budget; negative noisy counts show as 0. "
        "The exact panels use the exact components and counts, each on its own frame (the exact 2%–98% "
        "quantiles of its projections, widened as the private frame is) with the private panel's number of "
        "cells: for exploration only."
    )


def _score_groups(ds, vals: dict) -> None:
    """The groups of the plot by group: the one click that declares the label column's values public (the
    analyst's schema), or what is shown instead; one line each."""
    if ds.labels is None:
        st.info(
            "The score plot by group needs a label column: choose one on the Data page (an upload's label "
            "column, or a shipped sample with classes). Drawn without groups.",
            icon=":material/label_off:",
        )
        return
    declared = scenario.declared_groups(vals)
    values = sorted({str(v) for v in np.asarray(ds.labels).astype(str)})
    if declared:
        missing = sorted(set(values) - set(declared))
        st.caption(
            md_escape(
                f"Groups declared public (your schema, stated in each release's public settings): "
                f"{', '.join(declared)}."
                + (
                    f" Rows labelled {', '.join(missing[:5])}" f"{' …' if len(missing) > 5 else ''} are left out."
                    if missing
                    else ""
                )
            )
        )
        return
    if len(values) > scenario.MAX_GROUPS:
        st.caption(
            f"The label column holds {len(values)} values, more than the {scenario.MAX_GROUPS} groups a plot "
            "can declare: its groups are found privately (sidebar: 5% of the budget)."
        )
        return
    st.caption(
        md_escape(
            f"Groups found privately: each release first releases which groups exist, from 5% of its "
            f"budget, and shows only groups with enough rows. If the label column's values are part of "
            f"your schema (known before the data, e.g. from the data's documentation), declare them "
            f"public: every group is then shown, and that 5% goes to the components. The column holds "
            f"{len(values)} values: {', '.join(values)} (read from the data to suggest them)."
        )
    )
    if st.button(
        f"Declare these {len(values)} groups public",
        key="score_declare_groups",
        icon=":material/label:",
        help="You state that these are the groups of the label column, as part of your schema: each release "
        "names them in its public settings.",
    ):
        scenario.set_value("slabels", json.dumps(values))
        st.rerun(scope="app")  # the view is a fragment: the releases (and the link) are computed by the whole page


def score_plot(ds, prep, results) -> tuple | None:
    """(figure, one-line reading) of the private score plot for a record: the panels over two components when any
    release kept two, else over one (:func:`score_figures`); None when no release has a score plot or the data have
    no rows. The Report's record embeds it."""
    plot = score_figures(ds, prep, results)
    if plot is None:
        return None
    return plot["figures"][0], " ".join([plot["reading"], *plot["notes"]]).strip()


def score_figures(ds, prep, results) -> dict | None:
    """The private score plots the first repetitions released, as ``{"figures", "reading", "notes"}``: one figure
    for the releases that kept two components and one for those that kept one (never mixed), each with the exact
    panels first (non-private); the one-line reading; one line per release whose plot differs from what was asked or
    cannot be drawn (no group passed the threshold, an option a pure ε-DP release cannot hold) or reads poorly
    (which share or ε would make it readable). None when no release has a score plot or the data have no rows."""
    if not prep.data.has_rows:
        return None
    vals = scenario.values()
    panels, edges, first, notes = {1: {}, 2: {}}, {}, {}, []
    for mech, res in results.items():
        notes += [
            f"{display_name(mech)}: {note}" for note in scenario.score_plan(vals, ds.labels is not None, mech)["notes"]
        ]
        scores_out = res.published["outputs"].get("scores")
        if not scores_out:
            continue
        groups = scores_out.get("groups")
        if groups is not None and not groups:
            notes.append(_no_group_note(mech, res.published))
            continue
        dims = int(scores_out.get("dims", 2))
        first.setdefault(dims, (mech, res.published))
        counts = np.asarray(scores_out["counts"])
        tables = [(None, counts)] if groups is None else sorted(zip(groups, counts), key=lambda g: str(g[0]))
        for group, table in tables:
            label = f"{display_name(mech)}{_released_as(mech)}" if group is None else f"{display_name(mech)}: {group}"
            label += "" if dims == 2 or not panels[2] else " (k = 1)"
            panels[dims][label], edges[label] = table, scores_out["edges"]
        advice = _readability_note(mech, res.published)
        if advice:
            notes.append(advice)
    if not first:
        return {"figures": [], "reading": "", "notes": notes} if notes else None
    figs = []
    for dims in (2, 1):
        if dims not in first:
            continue
        exact, exact_edges = _exact_score_panels(ds, prep, first[dims][1])
        groups = first[dims][1]["outputs"]["scores"].get("groups")
        figs.append(
            figures.score_heatmaps(
                {**exact, **panels[dims]}, {**exact_edges, **edges}, cols=len(groups) if groups else None
            )
        )
    released = {
        mech: res.published["outputs"]["scores"]
        for mech, res in results.items()
        if res.published["outputs"].get("scores", {}).get("groups") != [] and res.published["outputs"].get("scores")
    }
    return {"figures": figs, "reading": _score_reading(results, released), "notes": notes}


def _released_as(mech: str) -> str:
    """What a private panel's title adds to the mechanism's name: " (private)", except for a mechanism without a
    guarantee, whose name already says so (a retracted one read "⚠ retracted: not private (private)")."""
    return "" if get_mechanism(mech).guarantee in ("retracted", "none") else " (private)"


def _exact_rows(prep) -> np.ndarray:
    """The rows as a release projects them, without noise: centred with their exact mean when each release centres
    with a private one (and clipped to norm 1 again, as the release does), else as prepared."""
    rows = prep.data.rows
    if prep.center != "private":
        return rows
    centred = rows - rows.mean(axis=0)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    return centred / np.maximum(norms, 1.0)


def _exact_score_panels(ds, prep, published: dict) -> tuple[dict, dict]:
    """The exact (non-private) histograms beside a released score plot, one per released group: the exact
    components (signs matched to the released ones, so the clouds face the same way), on their own frame
    (:func:`dppca_core.pipeline.scores.exact_frame` of the exact projections) with the released number of cells; rows
    beyond the frame in the nearest edge cell, as a release counts them. Returns (panels, edges)."""
    released = published["outputs"]["scores"]
    dims = int(released.get("dims", 2))
    V = np.asarray(published["components"], dtype=float)[:, :dims]
    ref = prep.reference[:, :dims]
    ref = ref * np.where(np.sum(ref * V, axis=0) < 0, -1.0, 1.0)
    proj = scores_core.project(_exact_rows(prep), ref)
    frame = scores_core.exact_frame(proj)
    bins = len(figures.axis_edges(released["edges"])[0]) - 1
    axes = [np.linspace(frame["low"][a], frame["high"][a], bins + 1) for a in range(dims)]
    cells = [np.clip(np.searchsorted(axes[a], proj[:, a], side="right") - 1, 0, bins - 1) for a in range(dims)]
    edge = axes if dims == 2 else axes[0]

    def histogram(mask) -> np.ndarray:
        out = np.zeros((bins,) * dims)
        np.add.at(out, tuple(c[mask] for c in cells), 1.0)
        return out

    groups = released.get("groups")
    if groups is None or ds.labels is None:
        return {"exact (not private)": histogram(np.ones(proj.shape[0], dtype=bool))}, {"exact (not private)": edge}
    labels = np.asarray(ds.labels).astype(str)
    panels = {f"exact: {group}": histogram(labels == str(group)) for group in sorted(groups, key=str)}
    return panels, {label: edge for label in panels}


def _no_group_note(mech: str, published: dict) -> str:
    """One line: a release whose groups, found privately, all fell below the threshold."""
    threshold = published["facts"].get("groups_threshold")
    need = f" (a group needs about {threshold} rows at this budget)" if threshold else ""
    return (
        f"{display_name(mech)}: no group passed the privacy threshold of the groups found privately{need}, so "
        "there is no panel to draw. Declare the groups public (above), or raise ε."
    )


def _readability_note(mech: str, published: dict) -> str | None:
    """One line when a release's plot reads poorly (its noise swamps the smallest group's cloud), naming the scores
    share or the ε that would make it readable (:func:`dppca_core.pipeline.scores.readable_budget`); None when it reads."""
    out = published["outputs"]["scores"]
    scale = published["facts"].get("scores_noise_scale")
    part = published["facts"].get("budget", {}).get("scores")
    if not scale or not part:
        return None
    ratio = scores_core.noise_to_signal(out["counts"], int(out.get("dims", 2)), scale)
    if ratio <= scores_core.READABLE_NOISE:
        return None
    gaussian = published["privacy"]["kind"] != "pure" and part.get("mu") is not None
    advice = scores_core.readable_budget(
        ratio, part["share"], published["epsilon"], part["delta"], part["mu"] if gaussian else None
    )
    share = (
        f"a scores share of {advice['share']:.0%} (sidebar, Budget split)"
        if advice["share"] is not None
        else "no scores share up to 30%"
    )
    eps = f"ε ≈ {number(advice['epsilon'], 2)}" if np.isfinite(advice["epsilon"]) else "a far larger ε"
    frame = "" if out.get("frame") else " Fitting the frame to the data (sidebar: score plot frame) helps too."
    return (
        f"{display_name(mech)}: the noise ({number(scale, 2)} rows per cell) swamps the smallest group's cloud; "
        f"{share} would make the plot readable, or {eps} at this share.{frame}"
    )


def _score_reading(results: dict, released: dict) -> str:
    """One line: what the score plot spends and shows (shares, frame, noise, groups), from the first release."""
    mech, scores = next(iter(released.items()))
    published = results[mech].published
    budget = published["facts"].get("budget", {})
    spent = [f"{part} {budget[part]['share']:.0%}" for part in ("scores", "frame", "groups") if part in budget]
    frame = "fitted to private quantiles of the scores" if scores.get("frame") else "fixed to [−1, 1]²"
    sparse = published["parameters"].get("score_kind") == "sparse"
    noise = "noise on occupied cells only, above a threshold" if sparse else "noise on every cell"
    groups = scores.get("groups")
    how = "declared public" if published["parameters"].get("score_group_labels") else "released privately"
    found = f"; groups {how}: {', '.join(sorted(map(str, groups)))}" if groups else ""
    scale = published["facts"].get("scores_noise_scale")
    per_cell = f" (s.d. {number(scale, 2)} rows per cell)" if scale else ""
    return (
        f"Score plot from {' + '.join(spent)} of each release's budget; frame {frame}; {noise}{per_cell}{found}. "
        "Read it as: do the groups' clouds sit apart in the private panels as they do in the exact ones?"
    )

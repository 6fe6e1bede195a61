"""Figures of what one release publishes: how its budget is split, its private spectrum and its score plot."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..publishable import PART_COLOURS, PART_WORDS, percents
from ..registry import display_name
from .base import bar_marker, color_or_grey, layout, name, nonempty


#: each part of a budget: its words and its colour (dppca_core.publishable.PART_WORDS and PART_COLOURS)
BUDGET_PARTS = {part: (words, PART_COLOURS[part]) for part, words in PART_WORDS.items()}
#: the smallest font of a segment's label (px); a narrower segment shows none (the legend names every part)
BUDGET_LABEL_PX = 14


def budget_bar(shares: dict, title: str = "How one release's (ε, δ) is split", unit: str | None = None) -> go.Figure:
    """One release's budget split as one bar of its parts, in the unit in which they add up.

    ``shares``: part -> fraction of the total (``BudgetSplit.as_dict()``, or ``{part: v["share"]}`` of a release's
    ``facts["budget"]``); parts with no share are left out. Each share is a share of μ² for a Gaussian release (its
    parts add up in μ², equivalently in zCDP's ρ) and of ε for a pure one (:func:`dppca_core.publishable.budget_parts`);
    ``unit`` ("μ²" or "ε") says which, or None for a split shown before a mechanism is known. The percentages are
    whole numbers adding up to exactly 100 (:func:`dppca_core.publishable.percents`), each segment's label drawn at
    a readable size or not at all (its hover text and the legend's colour still name it)."""
    parts = [(part, float(share)) for part, share in shares.items() if float(share) > 0]
    if not parts:
        raise ValueError("no budget share to draw: give at least one part a positive share.")
    unknown = [part for part, _ in parts if part not in BUDGET_PARTS]
    if unknown:
        raise ValueError(f"unknown budget part(s) {unknown}: use {list(BUDGET_PARTS)}.")
    fig = go.Figure()
    for (part, share), pct in zip(parts, percents([s for _, s in parts])):
        label, colour = BUDGET_PARTS[part]
        fig.add_trace(
            go.Bar(
                x=[float(pct)],
                y=["budget"],
                orientation="h",
                name=label,
                marker_color=colour,
                text=[f"{pct}%"],
                textposition="inside",
                insidetextanchor="middle",
                textfont=dict(color="white", size=16),
                hovertemplate=f"{label}: {pct}%<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack", showlegend=True, uniformtext=dict(minsize=BUDGET_LABEL_PX, mode="hide"))
    fig.update_yaxes(showticklabels=False)
    fig.update_xaxes(range=[0, 100])
    of = {"μ²": "% of μ² (Gaussian parts add up in μ²)", "ε": "% of ε (pure parts add up in ε)"}.get(
        unit, "% of the budget: of μ² for Gaussian mechanisms, of ε for pure ones"
    )
    return layout(fig, title, of, height=260)


def private_scree(reference_ratio, private: dict, top: int | None = None) -> go.Figure:
    """Explained-variance ratios: the non-private ones (grey) beside each mechanism's private ones with intervals.

    ``private`` maps a name to (ratios, half_widths) of its top-k components, or to (shares, low, high) (the
    post-processed shares of :func:`dppca_core.reading.shares`, each in [0, 1], with their 95% interval's ends);
    ``reference_ratio`` are the exact ratios (eigenvalue / total) of the reference.
    """
    ref = nonempty(reference_ratio, "reference_ratio")
    k = max(len(r[0]) for r in private.values()) if private else len(ref)
    top = top or k
    x = [f"PC{i + 1}" for i in range(top)]
    fig = go.Figure(go.Bar(x=x, y=100 * ref[:top], name="non-private (exact)", marker_color="#bbb"))
    for label, bars in private.items():
        ratio = np.asarray(bars[0], dtype=float)[:top]
        if len(bars) == 3:  # the interval's ends
            up, down = np.asarray(bars[2], dtype=float)[:top] - ratio, ratio - np.asarray(bars[1], dtype=float)[:top]
        else:
            up = down = np.asarray(bars[1], dtype=float)[:top]
        fig.add_trace(
            go.Bar(
                x=x[: len(ratio)],
                y=100 * ratio,
                name=f"{name(label)} (private)",
                marker=bar_marker(label),
                error_y=dict(type="data", array=100 * up, arrayminus=100 * down, visible=True),
            )
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="% of the total variance", rangemode="tozero")
    return layout(fig, "Scree: share of variance per component (private, with 95% intervals)", height=380)


def axis_edges(edges) -> tuple[np.ndarray, np.ndarray]:
    """(x edges, y edges) from one array (both axes) or a pair of arrays (a release's per-axis edges)."""
    if isinstance(edges, (list, tuple)) and len(edges) == 2 and np.ndim(edges[0]) == 1:
        return np.asarray(edges[0], dtype=float), np.asarray(edges[1], dtype=float)
    edges = np.asarray(edges, dtype=float)
    return edges, edges


#: the titles of the score plot's figures: rows projected on two components, or on the first one alone
SCORE_TITLES = {
    2: "Score plot: rows projected on the first two components (counts)",
    1: "Score plot: rows projected on the first component (counts; releases that kept one component)",
}


#: the height of one line of a panel's title (px, at the presenter's larger type too)
TITLE_LINE_PX = 24
#: characters of a panel's title per line when the panels share this many pixels of width (a 1280-px screen's main
#: column, beside the sidebar): one title per panel, never over its neighbour's
PANELS_WIDTH_CHARS = 84


def panel_title(label, cols: int) -> str:
    """A panel's title (a mechanism's display name, a group) broken over lines at spaces so that ``cols`` titles side
    by side never run into one another ("MOD-SuLQ (private)" was drawn over "Wishart symmetric noise ⚠ retracted:
    not private (private)"); escaped for plotly."""
    import textwrap

    width = max(PANELS_WIDTH_CHARS // max(int(cols), 1), 10)
    return "<br>".join(name(line) for line in textwrap.wrap(display_name(str(label)), width, break_on_hyphens=False))


def score_heatmaps(panels: dict, edges, cols: int | None = None) -> go.Figure:
    """Histograms of the rows projected on the released components, one panel per name (e.g. exact vs private, or
    one per group), ``cols`` panels per row (default: all in one row): all two-dimensional (heatmaps, axes
    "component 1" and "component 2") or all one-dimensional (bars over component 1, "rows" up), never mixed in one
    figure, whose title says which (:data:`SCORE_TITLES`).

    Counts below 0 (noise) are shown as 0. ``edges``: one array for both axes, (x edges, y edges), or a dict giving
    each panel's own (a private frame differs from release to release); each panel's axes span its edges.
    """
    from plotly.subplots import make_subplots

    if not panels:
        raise ValueError("no score histograms to draw.")
    dims = {np.ndim(counts) for counts in panels.values()}
    if len(dims) != 1 or not dims <= {1, 2}:
        raise ValueError("a score plot figure shows panels of one kind: all over two components, or all over one.")
    two_d = dims == {2}
    names = list(panels)
    cols = min(int(cols or len(names)), len(names))
    rows = -(-len(names) // cols)
    titles = [panel_title(n, cols) for n in names]
    lines = max(t.count("<br>") + 1 for t in titles)
    height = 150 + 300 * rows + TITLE_LINE_PX * (lines - 1) * rows
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        vertical_spacing=min((60 + TITLE_LINE_PX * lines) / height, 0.9 / max(rows, 1)),
    )
    for i, label in enumerate(names):
        row, col = divmod(i, cols)
        ex, ey = axis_edges(edges[label] if isinstance(edges, dict) else edges)
        ex = nonempty(ex, "edges")
        centres, centres_y = (ex[:-1] + ex[1:]) / 2, (ey[:-1] + ey[1:]) / 2
        counts = np.maximum(np.asarray(panels[label], dtype=float), 0.0)
        if not two_d:
            fig.add_trace(
                go.Bar(
                    x=centres,
                    y=counts,
                    marker_color=color_or_grey(label),
                    showlegend=False,
                    hovertemplate="PC1 %{x:.2f}: %{y:.0f}<extra></extra>",
                ),
                row + 1,
                col + 1,
            )
        else:
            fig.add_trace(
                go.Heatmap(
                    z=counts.T,
                    x=centres,
                    y=centres_y,
                    colorscale="Blues",
                    showscale=False,
                    hovertemplate="PC1 %{x:.2f}, PC2 %{y:.2f}: %{z:.0f}<extra></extra>",
                ),
                row + 1,
                col + 1,
            )
            fig.update_yaxes(range=[float(ey[0]), float(ey[-1])], row=row + 1, col=col + 1)
        fig.update_xaxes(
            title_text="component 1" if row == rows - 1 else None,
            range=[float(ex[0]), float(ex[-1])],
            row=row + 1,
            col=col + 1,
        )
        if col == 0:
            fig.update_yaxes(title_text="component 2" if two_d else "rows", row=row + 1, col=1)
    fig = layout(fig, SCORE_TITLES[2 if two_d else 1], height=height)
    # the panels' titles sit above the plots, on as many lines as the longest needs: the figure's title above them
    fig.update_layout(margin=dict(t=65 + TITLE_LINE_PX * lines))
    return fig

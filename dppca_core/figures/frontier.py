"""The frontier (issue 39): each chosen mechanism's error against ε on the user's data, the best one marked at each ε,
every line tagged with the verdict of the mechanism's own audit. A pure function of a table of medians; drawn the way
DPComp draws its algorithms against epsilon (one line per algorithm, the best one marked)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .base import band, color_or_grey, layout, line_of, name, swept_axis, text

#: the marker of a mechanism's points by its audit's verdict: filled where its audit found no violation, a cross
#: where its audit refuted the claim, open where it has no audit row for the relation
VERDICT_MARKERS = {"not refuted": "circle", "refuted": "x", "not audited": "circle-open"}
#: the ring around the best median of a private mechanism at each ε
BEST_MARKER = dict(symbol="star-open", size=20, color="#000000", line=dict(width=2))


def frontier(
    frame: pd.DataFrame,
    verdicts: dict,
    metric_label: str,
    y_title: str | None = None,
    log_x: bool = True,
    log_y: bool = False,
) -> go.Figure:
    """One line per mechanism: the median over repetitions at each ε with its 2.5%–97.5% band; the marker says its
    audit's verdict (:data:`VERDICT_MARKERS`, named in the legend), and a black star rings the best median of a
    private mechanism at each ε.

    ``frame``: columns ``mechanism``, ``eps``, ``median``, ``lo``, ``hi`` and ``best`` (True where that mechanism
    has the best median at that ε among the private ones). ``verdicts`` maps a mechanism to (status, words): status
    a key of :data:`VERDICT_MARKERS`, words the verdict in a sentence (shown on hover). ``metric_label`` is the
    metric's description ("label, lower is better")."""
    if frame.empty:
        raise ValueError("the frontier needs at least one point (a mechanism at one ε).")
    fig = go.Figure()
    for mech, rows in frame.groupby("mechanism", sort=False):
        rows = rows.sort_values("eps")
        colour = color_or_grey(mech)
        status, words = verdicts.get(mech, ("not audited", "no audit row"))
        fig.add_trace(band(rows["eps"], rows["lo"], rows["hi"], colour, 0.15))
        fig.add_trace(
            go.Scatter(
                x=rows["eps"],
                y=rows["median"],
                mode="lines+markers",
                name=f"{name(mech)} · audit: {text(status)}",
                line=line_of(mech),
                marker=dict(symbol=VERDICT_MARKERS[status], size=10, color=colour, line=dict(color=colour, width=2)),
                customdata=np.c_[rows["lo"], rows["hi"]],
                hovertemplate="ε = %{x:g}<br>median %{y:.3g} [%{customdata[0]:.3g}, %{customdata[1]:.3g}]<br>audit: "
                + text(words)
                + "<extra>"
                + name(mech)
                + "</extra>",
            )
        )
    best = frame[frame["best"]].sort_values("eps")
    fig.add_trace(
        go.Scatter(
            x=best["eps"],
            y=best["median"],
            mode="markers",
            name="best private median at this ε",
            marker=BEST_MARKER,
            text=[name(m) for m in best["mechanism"]],
            hovertemplate="best private median at ε = %{x:g}: %{text}<extra></extra>",
        )
    )
    swept_axis(fig, frame["eps"], "ε", log_x)
    label, _, direction = metric_label.partition(", ")
    fig.update_yaxes(title=y_title or label, type="log" if log_y else "linear", nticks=6)
    note = f"{direction}; " if direction else ""  # the metric itself names the vertical axis
    return layout(fig, f"Which mechanism wins at each ε ({note}median and 95% band over repetitions)", height=440)


__all__ = ["BEST_MARKER", "VERDICT_MARKERS", "frontier"]

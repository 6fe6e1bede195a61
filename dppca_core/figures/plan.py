"""The planner's frontier (issue 37): each mechanism's chance of meeting the targets against epsilon, the winner at
each epsilon marked, the confidence as a line, the plan as a star. A pure function of :attr:`dppca_core.Plan.frontier`,
drawn the way DPComp draws its algorithms against epsilon (one line per algorithm, the best one marked)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .base import color_or_grey, layout, marker_of, name


def plan_frontier(
    frontier: pd.DataFrame,
    confidence: float,
    epsilon: float | None = None,
    mechanism: str | None = None,
    title: str = "Chance of meeting every target",
) -> go.Figure:
    """ε (log axis) against the share of simulated releases meeting every target, one line per mechanism (its own
    best split) with its 95% interval as error bars; filled markers where that mechanism wins at that ε; a dashed
    line at ``confidence``; a star at the plan (``epsilon``, ``mechanism``) when there is one."""
    fig = go.Figure()
    for mech, rows in frontier.groupby("mechanism", sort=False):
        rows = rows.sort_values("epsilon")
        colour = color_or_grey(mech)
        fig.add_trace(
            go.Scatter(
                x=rows["epsilon"],
                y=rows["share"],
                mode="lines+markers",
                name=name(mech),
                line=dict(color=colour),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=rows["high"] - rows["share"],
                    arrayminus=rows["share"] - rows["low"],
                    thickness=1,
                    width=3,
                ),
                marker=dict(
                    color=[colour if w else "white" for w in rows["winner"]],
                    symbol=marker_of(mech)["symbol"],
                    size=9,
                    line=dict(color=colour, width=2),
                ),
                customdata=rows[["reps", "winner"]].to_numpy(),
                hovertemplate="ε = %{x:g}<br>share %{y:.0%} over %{customdata[0]} releases<br>"
                "winner here: %{customdata[1]}<extra>" + name(mech) + "</extra>",
            )
        )
    fig.add_hline(
        y=confidence,
        line=dict(color="#888", dash="dash"),
        annotation_text=f"confidence {100 * confidence:.4g}%",
        annotation_position="bottom right",
    )
    if epsilon is not None and mechanism is not None:
        fig.add_trace(
            go.Scatter(
                x=[epsilon],
                y=[float(frontier.loc[(frontier["mechanism"] == mechanism) & frontier["planned"], "share"].max())],
                mode="markers",
                name=f"plan: {name(mechanism)}, ε = {epsilon:g}",
                marker=dict(symbol="star", size=16, color=color_or_grey(mechanism), line=dict(color="black", width=1)),
            )
        )
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[-0.02, 1.02], tickformat=".0%")
    return layout(fig, title, x="total ε", y="share of releases meeting every target", height=380)

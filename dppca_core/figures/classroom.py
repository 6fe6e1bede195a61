"""Figures of the class game (issue 61), for the teacher's screen: the room's rates against the bound, each student as
a dot, and the room's advantage round by round. Pure functions of the scored answers (:mod:`dppca_core.classroom`);
every axis range is fixed, so that rounds at different ε compare honestly."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .. import risk
from ..classroom.score import RoomResult, bound_line
from ..privacy import PrivacyCurve
from .base import layout

#: the trace that draws the bound (the mechanism's exact curve), by name: the tests read it back
BOUND_TRACE = "most the noise allows (exact curve)"
PROMISE_TRACE = "what (ε, δ) alone promises"
ROOM_TRACE = "the room"
RIGHT, WRONG, BOUND, PROMISE, ROOM = "#009e73", "#d55e00", "#0072b2", "#56b4e9", "#111111"
RATE_RANGE = (-0.03, 1.03)


def room_figure(result: RoomResult, promise: PrivacyCurve | None = None, font_size: int = 14) -> go.Figure:
    """The room's true-positive rate against its false-positive rate, with their Clopper-Pearson bands, under the
    highest rate the mechanism's exact curve allows at each false-positive rate (the region above it shaded: out of
    reach), what (ε, δ) alone promises, and the coin toss."""
    fig = go.Figure()
    alpha, top = bound_line(result.curve)
    fig.add_trace(
        go.Scatter(
            x=[*alpha, 0.0], y=[*top, 1.0], fill="toself", fillcolor="rgba(0,114,178,0.10)", line=dict(width=0),
            name="out of reach", hoverinfo="skip", showlegend=False,
        )
    )  # fmt: skip
    fig.add_trace(go.Scatter(x=alpha, y=top, mode="lines", line=dict(color=BOUND, width=3), name=BOUND_TRACE))
    if promise is not None:
        p_alpha, p_top = bound_line(promise)
        fig.add_trace(
            go.Scatter(
                x=p_alpha, y=p_top, mode="lines", line=dict(color=PROMISE, width=2, dash="dash"), name=PROMISE_TRACE
            )
        )
    fig.add_trace(
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(color="#999", dash="dot", width=2), name="coin toss")
    )
    if result.with_alice and result.without_alice:
        (t_lo, t_hi), (f_lo, f_hi) = result.tpr_band, result.fpr_band
        fig.add_trace(
            go.Scatter(
                x=[result.fpr], y=[result.tpr], mode="markers", name=ROOM_TRACE,
                marker=dict(size=14, color=WRONG if result.finding else ROOM, symbol="diamond"),
                error_x=dict(type="data", symmetric=False, array=[f_hi - result.fpr], arrayminus=[result.fpr - f_lo]),
                error_y=dict(type="data", symmetric=False, array=[t_hi - result.tpr], arrayminus=[result.tpr - t_lo]),
                hovertemplate="said in when out: %{x:.0%}<br>said in when in: %{y:.0%}<extra>the room</extra>",
            )
        )  # fmt: skip
    layout(fig, "The room against the bound", x="“in” when Alice was out", y="“in” when she was in", height=340)
    at = 0.25
    fig.add_annotation(
        x=at, y=float(1 - result.curve.false_negative_floor(at)), text="bound", showarrow=False, xanchor="left",
        yanchor="top", xshift=6, font=dict(color=BOUND),
    )  # fmt: skip
    fig.add_annotation(x=0.7, y=0.7, text="coin toss", showarrow=False, xanchor="left", yanchor="top", xshift=6)
    fig.update_xaxes(range=RATE_RANGE, tickvals=[0, 0.5, 1], tickformat=".0%", constrain="domain")
    fig.update_yaxes(range=RATE_RANGE, tickvals=[0, 0.5, 1], tickformat=".0%", scaleanchor="x", scaleratio=1)
    fig.update_layout(font=dict(size=font_size), margin=dict(l=10, r=10, t=60, b=10), showlegend=False)
    return fig


def dots_figure(answers, font_size: int = 14) -> go.Figure:
    """Each student who answered as one dot, in the cell of what was true and what they said (right: green; wrong:
    orange, and a cross), numbered as they joined; laid out in rows inside each cell (no jitter, no randomness)."""
    cells: dict[tuple[bool, bool], list[int]] = {(i, s): [] for i in (False, True) for s in (False, True)}
    for a in answers:
        if a.said_in is not None:
            cells[(a.inside, a.said_in)].append(a.student)
    fig = go.Figure()
    per_row = 8
    for right in (True, False):
        xs, ys, labels = [], [], []
        for (inside, said), students in cells.items():
            if (inside == said) != right:
                continue
            for k, student in enumerate(students):
                row, col = divmod(k, per_row)
                xs.append((1 if inside else 0) + 0.1 + 0.8 * col / (per_row - 1))
                ys.append((1 if said else 0) + 0.86 - 0.15 * min(row, 4))
                labels.append(f"student {student}")
        fig.add_trace(
            go.Scatter(
                x=xs, y=ys, mode="markers", name="right" if right else "wrong", text=labels,
                marker=dict(size=9, color=RIGHT if right else WRONG, symbol="circle" if right else "x"),
                hovertemplate="%{text}<extra></extra>",
            )
        )  # fmt: skip
    counts = {key: len(value) for key, value in cells.items()}
    for (inside, said), count in counts.items():
        fig.add_annotation(
            x=(1 if inside else 0) + 0.5, y=(1 if said else 0) + 0.02, text=f"{count}", showarrow=False,
            font=dict(size=font_size + 2, color="#333"), yanchor="bottom",
        )  # fmt: skip
    layout(fig, "Each student", x="Alice was", height=250)
    fig.update_xaxes(range=[0, 2], tickvals=[0.5, 1.5], ticktext=["out", "in"], showgrid=False, zeroline=False)
    fig.update_yaxes(
        range=[0, 2], tickvals=[0.5, 1.5], ticktext=["said out", "said in"], showgrid=False, zeroline=False
    )
    fig.add_shape(type="line", x0=1, x1=1, y0=0, y1=2, line=dict(color="#bbb"))
    fig.add_shape(type="line", x0=0, x1=2, y0=1, y1=1, line=dict(color="#bbb"))
    fig.update_layout(font=dict(size=font_size), margin=dict(l=10, r=10, t=60, b=10), showlegend=False)
    return fig


def advantage_figure(rounds, font_size: int = 14) -> go.Figure:
    """The room's advantage (said "in" when in, minus when out) round by round with its band, beside the most the
    round's exact curve allows (:func:`dppca_core.risk.attacker_advantage`); 0 is the coin toss. ``rounds``: pairs
    (label, RoomResult)."""
    labels = [label for label, _ in rounds]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=labels, y=[risk.attacker_advantage(r.curve) for _, r in rounds], name="most the noise allows",
            marker=dict(color="rgba(0,114,178,0.25)", line=dict(color=BOUND, width=2)),
        )
    )  # fmt: skip
    scored = [(label, r) for label, r in rounds if r.with_alice and r.without_alice]
    fig.add_trace(
        go.Scatter(
            x=[label for label, _ in scored], y=[r.advantage for _, r in scored], mode="markers", name="the room",
            marker=dict(size=13, color=ROOM, symbol="diamond"),
            error_y=dict(
                type="data", symmetric=False, array=[r.advantage_band[1] - r.advantage for _, r in scored],
                arrayminus=[r.advantage - r.advantage_band[0] for _, r in scored],
            ),
        )
    )  # fmt: skip
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=0, y1=0, line=dict(color="#999", dash="dot"))
    layout(fig, "Advantage by round", y="“in” when in − when out", height=340)
    fig.update_yaxes(range=[-0.6, 1.02], tickvals=[-0.5, 0, 0.5, 1], tickformat=".0%")
    fig.update_layout(font=dict(size=font_size), margin=dict(l=10, r=10, t=60, b=10), bargap=0.45, showlegend=False)
    return fig


def round_label(number: int, epsilon: float) -> str:
    """A round's label on the advantage figure's axis."""
    return f"{number}: ε={epsilon:g}" if not math.isnan(epsilon) else str(number)

"""Pure plotly figure builders shared by the pages (arrays in, figures out; no Streamlit).

``mechanism_color`` gives every mechanism one colour, the same in every figure.
"""
from __future__ import annotations

import numpy as np
import plotly.express as px
import plotly.graph_objects as go

from .registry import mechanism_names

_PALETTE = px.colors.qualitative.Safe + px.colors.qualitative.Vivid


def mechanism_color(name: str) -> str:
    """The one colour of a mechanism: its position in the registry picks a palette entry."""
    names = mechanism_names()
    if name not in names:
        raise ValueError(f"unknown mechanism {name!r}; no colour assigned.")
    return _PALETTE[names.index(name) % len(_PALETTE)]


def _layout(fig, title, x, y, height=340):
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, height=height, margin=dict(l=50, r=20, t=50, b=45),
                      legend=dict(orientation="h", y=-0.25))
    return fig


def _nonempty(values, name):
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a non-empty array of finite numbers.")
    return arr


def audit_histograms(scores_d, scores_d_prime, threshold: float | None = None) -> go.Figure:
    """The test statistic on D (with the row) and on its neighbour D'; larger values point to D'."""
    a, b = _nonempty(scores_d, "scores_d"), _nonempty(scores_d_prime, "scores_d_prime")
    fig = go.Figure()
    fig.add_histogram(x=a, name="D (row present)", opacity=0.6, marker_color="#1f77b4", nbinsx=40)
    fig.add_histogram(x=b, name="D' (neighbour)", opacity=0.6, marker_color="#d62728", nbinsx=40)
    fig.update_layout(barmode="overlay")
    if threshold is not None and np.isfinite(threshold):
        fig.add_vline(x=threshold, line_dash="dash", annotation_text="threshold")
    return _layout(fig, "Test statistic on neighbouring datasets", "statistic (larger → D')", "trials")


def audit_tradeoff(fpr, fnr, claim, point=None, measured_mu: float | None = None) -> go.Figure:
    """The attack's trade-off (false-positive rate against false-negative rate) against what the claim allows.

    ``claim`` is a :class:`dppca_core.privacy.PrivacyCurve`: its trade-off function f(alpha) is the smallest
    false-negative rate any test may have at false-positive rate alpha, so the shaded region below it is
    forbidden by the claim; an attack whose curve dips into it refutes the claim. ``point`` is the (upper
    confidence) corner (alpha+, beta+) of the chosen threshold; ``measured_mu`` draws the mu-GDP curve the
    audit's reading implies. The diagonal is random guessing.
    """
    x, y = _nonempty(fpr, "fpr"), _nonempty(fnr, "fnr")
    if x.shape != y.shape:
        raise ValueError("fpr and fnr must have the same length.")
    grid = np.linspace(0, 1, 401)
    floor = np.asarray(claim.false_negative_floor(grid), dtype=float)
    fig = go.Figure()
    fig.add_scatter(x=grid, y=floor, name=f"claim: {claim.describe()} (below = forbidden)", mode="lines",
                    line=dict(color="#444", width=2), fill="tozeroy", fillcolor="rgba(214,39,40,0.12)")
    fig.add_scatter(x=grid, y=1 - grid, name="random guessing", mode="lines", line=dict(color="#aaa", dash="dot"))
    if measured_mu is not None and measured_mu > 0:
        from .privacy import PrivacyCurve

        fig.add_scatter(x=grid, y=PrivacyCurve.gdp(measured_mu).false_negative_floor(grid), mode="lines",
                        name=f"audit's reading: {measured_mu:.3g}-GDP", line=dict(color="#2a6f97", dash="dash"))
    fig.add_scatter(x=x, y=y, name="the attack (all thresholds)", mode="lines", line=dict(color="#d62728", width=3))
    if point is not None:
        fig.add_scatter(x=[point[0]], y=[point[1]], mode="markers", name="chosen threshold (upper 95% bounds)",
                        marker=dict(size=12, color="#d62728", symbol="x"))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return _layout(fig, "Attack vs claim: error rates of telling D from D'", "false-positive rate α",
                   "false-negative rate β", height=400)


def convergence_traces(traces: dict, random_level: float | None = None) -> go.Figure:
    """Error per iteration, one line per label (e.g. per epsilon)."""
    if not traces:
        raise ValueError("no traces to draw.")
    fig = go.Figure()
    for label, errors in traces.items():
        errs = _nonempty(errors, f"trace {label}")
        fig.add_scatter(x=np.arange(errs.size), y=errs, mode="lines+markers", name=str(label))
    if random_level is not None:
        fig.add_hline(y=random_level, line_dash="dot", annotation_text="random subspace")
    return _layout(fig, "Convergence: subspace error per iteration", "iteration", "‖sin Θ‖_F to the truth")


def support_heatmap(selected: dict, truth, d: int) -> go.Figure:
    """Rows selected by each mechanism (1) against the true support (first row)."""
    if d < 1 or not selected:
        raise ValueError("need d >= 1 and at least one mechanism's selection.")
    labels = ["truth"] + list(selected)
    grid = np.zeros((len(labels), d))
    grid[0, np.asarray(truth, dtype=int)] = 1
    for i, rows in enumerate(selected.values(), start=1):
        grid[i, np.asarray(rows, dtype=int)] = 1
    fig = go.Figure(go.Heatmap(z=grid, y=labels, x=np.arange(d), colorscale=[[0, "#f4f4f4"], [1, "#2a6f97"]],
                               showscale=False, hovertemplate="row %{x}: %{z}<extra>%{y}</extra>"))
    return _layout(fig, "Selected rows (dark) against the true support", "feature (row of V)", "",
                   height=120 + 35 * len(labels))


def communication_bar(costs: dict) -> go.Figure:
    """Numbers sent per mechanism (communication cost)."""
    if not costs:
        raise ValueError("no communication costs to draw.")
    names = list(costs)
    fig = go.Figure(go.Bar(x=names, y=[costs[n] for n in names],
                           marker_color=[mechanism_color(n) if n in mechanism_names() else "#888" for n in names]))
    return _layout(fig, "Communication: numbers sent", "mechanism", "numbers")

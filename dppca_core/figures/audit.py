"""Figures of the privacy audit: the test statistic on neighbouring datasets and the attack's trade-off."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .base import layout, nonempty


def audit_histograms(scores_d, scores_d_prime, threshold: float | None = None) -> go.Figure:
    """The test statistic on D (with the row) and on its neighbour D'; larger values point to D'."""
    a, b = nonempty(scores_d, "scores_d"), nonempty(scores_d_prime, "scores_d_prime")
    fig = go.Figure()
    fig.add_histogram(x=a, name="D (row present)", opacity=0.6, marker_color="#1f77b4", nbinsx=40)
    fig.add_histogram(x=b, name="D' (neighbour)", opacity=0.6, marker_color="#d62728", nbinsx=40)
    fig.update_layout(barmode="overlay")
    if threshold is not None and np.isfinite(threshold):
        fig.add_vline(x=threshold, line_dash="dash", annotation_text="threshold")
    return layout(fig, "Test statistic on neighbouring datasets", "statistic (larger → D')", "trials")


def audit_tradeoff(fpr, fnr, claim, point=None, measured_mu: float | None = None) -> go.Figure:
    """The attack's trade-off (false-positive rate against false-negative rate) against what the claim allows.

    ``claim`` is a :class:`dppca_core.privacy.PrivacyCurve`: its trade-off function f(alpha) is the smallest
    false-negative rate any test may have at false-positive rate alpha, so the shaded region below it is
    forbidden by the claim; an attack whose curve dips into it refutes the claim. ``point`` is the (upper
    confidence) corner (alpha+, beta+) of the chosen threshold; ``measured_mu`` draws the mu-GDP curve the
    audit's reading implies. The diagonal is random guessing.
    """
    x, y = nonempty(fpr, "fpr"), nonempty(fnr, "fnr")
    if x.shape != y.shape:
        raise ValueError("fpr and fnr must have the same length.")
    grid = np.linspace(0, 1, 401)
    floor = np.asarray(claim.false_negative_floor(grid), dtype=float)
    fig = go.Figure()
    fig.add_scatter(x=grid, y=floor, name=f"claim: {claim.describe()} (below = forbidden)", mode="lines",
                    line=dict(color="#444", width=2), fill="tozeroy", fillcolor="rgba(214,39,40,0.12)")
    fig.add_scatter(x=grid, y=1 - grid, name="random guessing", mode="lines", line=dict(color="#aaa", dash="dot"))
    if measured_mu is not None and measured_mu > 0:
        from ..privacy import PrivacyCurve

        fig.add_scatter(x=grid, y=PrivacyCurve.gdp(measured_mu).false_negative_floor(grid), mode="lines",
                        name=f"audit's reading: {measured_mu:.3g}-GDP", line=dict(color="#2a6f97", dash="dash"))
    fig.add_scatter(x=x, y=y, name="the attack (all thresholds)", mode="lines", line=dict(color="#d62728", width=3))
    if point is not None:
        fig.add_scatter(x=[point[0]], y=[point[1]], mode="markers", name="chosen threshold (upper 95% bounds)",
                        marker=dict(size=12, color="#d62728", symbol="x"))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return layout(fig, "Attack vs claim: error rates of telling D from D'", "false-positive rate α",
                   "false-negative rate β", height=400)

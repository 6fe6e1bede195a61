"""Figure of the privacy audit's test statistic on neighbouring datasets (the attack's whole trade-off curve is
:mod:`.tradeoff_curve`)."""

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

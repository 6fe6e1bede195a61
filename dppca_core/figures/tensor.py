"""Figures of the tensor view: q_comp against epsilon or sample size, recovered against true components.

Pure functions: data in, plotly figures out. Mechanism colours come from the registry
(:func:`~dppca_core.figures.base.color_or_grey`); every label goes through :func:`~dppca_core.figures.base.text`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .base import band, bar_marker, color_or_grey, layout, marker_of, swept_axis, text

RANDOM = "random vectors"


def qcomp_sweep(
    summary,
    axis: str,
    axis_title: str,
    labels: dict | None = None,
    log_x: bool = True,
    marker: float | None = None,
    metric_label: str = "q_comp (mean distance to the nearest true component)",
    log_y: bool = False,
) -> go.Figure:
    """Mean and 95% band over repetitions per mechanism; the random-vectors baseline dashed and grey.

    ``summary`` has columns mechanism, ``axis``, mean, lo, hi (:func:`dppca_core.tensor.experiments.summarize`).
    ``marker`` draws a vertical line at the value the other panels use.
    """
    if summary is None or len(summary) == 0:
        raise ValueError("no results to draw.")
    labels = labels or {}
    fig = go.Figure()
    for mech, g in summary.groupby("mechanism", sort=False):
        g = g.sort_values(axis)
        c = color_or_grey(mech)
        name = text(labels.get(mech, mech))
        fig.add_trace(band(g[axis], g["lo"], g["hi"], c, 0.18))
        fig.add_trace(
            go.Scatter(
                x=g[axis],
                y=g["mean"],
                mode="lines+markers",
                name=name,
                line=dict(color=c, dash="dash" if mech == RANDOM else "solid"),
                marker=marker_of(mech),
                hovertemplate="%{x:g}: %{y:.3g}<extra>" + name + "</extra>",
            )
        )
    if marker is not None:
        fig.add_vline(x=marker, line_dash="dot", line_color="#999")
    swept_axis(fig, summary[axis], axis_title, log_x)
    # the axis holds the metric's name only (a long title is cut at the plot's height); the title line explains it
    short, _, explained = metric_label.partition(" (")
    fig.update_yaxes(title=text(short), type="log" if log_y else "linear")
    # two lines: what is drawn against what, then what the metric is (one line ran past a projector-sized figure)
    detail = f"{explained.rstrip(')')}; " if explained else ""
    fig = layout(
        fig,
        f"{text(short)} against {text(axis_title)}<br><sub>{text(detail)}mean and 95% band over " "repetitions</sub>",
        height=440,
    )
    fig.update_layout(margin=dict(t=75))
    return fig


def components_compare(
    truth: np.ndarray, recovered: dict, labels: dict | None = None, feature: str = "coordinate"
) -> go.Figure:
    """Heatmaps side by side: the true components, then each mechanism's (columns matched to the truth)."""
    truth = np.asarray(truth, dtype=float)
    if truth.ndim != 2 or not recovered:
        raise ValueError("need a d x K array of true components and at least one recovered set.")
    labels = labels or {}
    panels = [("true components", truth)] + [
        (labels.get(m, m), np.asarray(V, dtype=float)) for m, V in recovered.items()
    ]
    for name, V in panels:
        if V.shape != truth.shape:
            raise ValueError(f"{name}: components of shape {V.shape}, expected {truth.shape}.")
    lim = float(max(np.max(np.abs(V)) for _, V in panels)) or 1.0
    signed = bool(np.any(truth < 0) or any(np.any(V < 0) for _, V in panels))
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        subplot_titles=[text(n) for n, _ in panels],
        shared_yaxes=True,
        horizontal_spacing=0.03,
    )
    for i, (name, V) in enumerate(panels, start=1):
        fig.add_trace(
            go.Heatmap(
                z=V.T,
                x=np.arange(V.shape[0]),
                y=[f"a{k + 1}" for k in range(V.shape[1])],
                colorscale="RdBu" if signed else "Blues",
                zmid=0 if signed else None,
                zmin=-lim if signed else 0,
                zmax=lim,
                showscale=i == len(panels),
                hovertemplate=(f"{text(feature)} %{{x}}, %{{y}}: %{{z:.3f}}" f"<extra>{text(name)}</extra>"),
            ),
            row=1,
            col=i,
        )
        fig.update_xaxes(title=text(feature), row=1, col=i)
    fig.update_yaxes(autorange="reversed")
    fig = layout(fig, "Recovered against true components (rows matched one-to-one)", height=180 + 28 * truth.shape[1])
    fig.update_layout(margin=dict(t=80))  # the panels' titles sit above the plots: the figure's title above them
    return fig


def weights_compare(true_weights, recovered: dict, labels: dict | None = None) -> go.Figure:
    """True mixing weights against each mechanism's (matched to the same components)."""
    labels = labels or {}
    w = np.asarray(true_weights, dtype=float)
    x = [f"a{k + 1}" for k in range(w.size)]
    fig = go.Figure(go.Bar(x=x, y=w, name="true", marker_color="#444"))
    for mech, values in recovered.items():
        fig.add_trace(
            go.Bar(
                x=x,
                y=np.asarray(values, dtype=float),
                name=text(labels.get(mech, mech)),
                marker=bar_marker(mech),
            )
        )
    fig.update_layout(barmode="group")
    return layout(fig, "Weights: true against recovered", "component", "weight w_k")

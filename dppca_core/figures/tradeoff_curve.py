"""Figure of an audit as a curve: the attack's trade-off with its simultaneous confidence band, over the claimed curve
(:mod:`dppca_core.audit.curve`)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .base import layout

#: points of the attack's empirical curve drawn at most (evenly over its thresholds; 15,000 would weigh on a record)
MAX_POINTS = 1500
_CLAIM, _ATTACK, _BAND, _BREACH = "#444444", "#0072b2", "rgba(0,114,178,0.18)", "#d55e00"


def tradeoff_curve_figure(
    curve,
    point=None,
    title: str = "The attack's whole trade-off against the claim",
    height: int = 420,
    measured_mu: float | None = None,
) -> go.Figure:
    """The attack's empirical trade-off curve (false-positive rate α against false-negative rate β over every
    threshold), its simultaneous confidence band on the grid of thresholds, and the claimed curve with the region
    it forbids shaded. Points of the band's inner edge beyond the claimed curve (violations) are marked.

    ``curve`` is a :class:`dppca_core.audit.curve.TradeoffCurve`; ``point`` = (α+, β+) of the threshold the audit
    chose on its selection trials (its summary number), or None; ``measured_mu``: the mu-GDP curve the audit's GDP
    reading implies (drawn dashed when given and positive). Axes fixed to [0, 1].
    """
    grid = np.linspace(0.0, 1.0, 401)
    fig = go.Figure()
    _add_claim(fig, curve, grid, measured_mu)
    _add_attack(fig, curve)
    if point is not None:
        fig.add_scatter(
            x=[float(point[0])],
            y=[float(point[1])],
            mode="markers",
            name="the audit's chosen threshold (its summary number)",
            marker=dict(symbol="diamond", size=11, color="#000000"),
            hovertemplate="chosen threshold: α ≤ %{x:.4f}, β ≤ %{y:.4f}<extra></extra>",
        )
    # no "0%" under the origin: in presenter mode's large type it met the vertical axis's "0%"; the axis titles
    # stay short enough that the vertical one does not run up into the title (what α and β mean is in the hover
    # texts and the page's caption: α says D' on D, β says D on D')
    fig.update_xaxes(range=[0, 1], tickformat=".0%", tickvals=[0.2, 0.4, 0.6, 0.8, 1.0])
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return layout(fig, title, "false-positive rate α", "false-negative rate β", height=height)


__all__ = ["tradeoff_curve_figure"]


def _add_claim(fig: go.Figure, curve, grid: np.ndarray, measured_mu: float | None) -> None:
    """The claimed curve with the region it forbids shaded, random guessing, and (when given and positive) the
    mu-GDP curve of the audit's reading."""
    fig.add_scatter(
        x=grid,
        y=np.asarray(curve.claim.false_negative_floor(grid), dtype=float),
        mode="lines",
        name=f"claim: {curve.claim.describe()} (below = forbidden)",
        line=dict(color=_CLAIM, width=2),
        fill="tozeroy",
        fillcolor="rgba(213,94,0,0.10)",
        hovertemplate="claim: at α = %{x:.3f}, β ≥ %{y:.3f}<extra></extra>",
    )
    fig.add_scatter(
        x=[0.0, 1.0],
        y=[1.0, 0.0],
        mode="lines",
        name="random guessing",
        line=dict(color="#aaaaaa", dash="dot"),
        hoverinfo="skip",
    )
    if measured_mu is not None and measured_mu > 0:
        from ..privacy import PrivacyCurve

        fig.add_scatter(
            x=grid,
            y=PrivacyCurve.gdp(measured_mu).false_negative_floor(grid),
            mode="lines",
            name=f"the audit's reading: {measured_mu:.3g}-GDP (assumes a Gaussian curve)",
            line=dict(color=_CLAIM, width=1, dash="dash"),
            hovertemplate="reading: at α = %{x:.3f}, β = %{y:.3f}<extra></extra>",
        )


def _add_attack(fig: go.Figure, curve) -> None:
    """The attack's empirical curve (at most :data:`MAX_POINTS` points), its simultaneous band with the inner edge
    that decides a violation, and the violations marked."""
    inner = np.argsort(curve.fpr_upper)
    outer = np.argsort(curve.fpr_lower)[::-1]
    fig.add_scatter(
        x=np.r_[curve.fpr_upper[inner], curve.fpr_lower[outer]],
        y=np.r_[curve.fnr_upper[inner], curve.fnr_lower[outer]],
        mode="lines",
        fill="toself",
        fillcolor=_BAND,
        line=dict(width=0),
        name=f"{curve.confidence:.0%} band, all {curve.grid_size} thresholds at once",
        hoverinfo="skip",
    )
    fig.add_scatter(
        x=curve.fpr_upper[inner],
        y=curve.fnr_upper[inner],
        mode="lines+markers",
        name="band's inner edge (decides a violation)",
        line=dict(color=_ATTACK, width=1, dash="dash"),
        marker=dict(size=4, color=_ATTACK),
        hovertemplate="inner edge: α ≤ %{x:.4f}, β ≤ %{y:.4f}<extra></extra>",
    )
    keep = np.unique(np.linspace(0, curve.fpr.size - 1, min(curve.fpr.size, MAX_POINTS)).astype(int))
    fig.add_scatter(
        x=curve.fpr[keep],
        y=curve.fnr[keep],
        mode="lines",
        name="the attack (every threshold)",
        line=dict(color=_ATTACK, width=3),
        hovertemplate="attack: α = %{x:.4f} (says D' on D), β = %{y:.4f} (says D on D')<extra></extra>",
    )
    bad = np.flatnonzero(curve.violations)
    if bad.size:
        fig.add_scatter(
            x=curve.fpr_upper[bad],
            y=curve.fnr_upper[bad],
            mode="markers",
            name=f"beyond the claim ({bad.size} thresholds)",
            marker=dict(symbol="x", size=12, color=_BREACH, line=dict(width=2)),
            hovertemplate="violation: α ≤ %{x:.4f}, β ≤ %{y:.4f}<extra></extra>",
        )

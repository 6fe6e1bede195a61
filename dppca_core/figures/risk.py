"""Figures of the disclosure-risk view: the attacker's best test, posterior belief, and epsilon in context.

Pure functions from privacy curves (or releases) to plotly figures. Every axis range is fixed, so that
figures drawn before and after the epsilon control moves can be compared honestly; ``font_size`` scales the
text for presenter mode. Labels given by the caller are escaped (:func:`.base.text`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from .. import risk
from ..privacy import PrivacyCurve
from .base import LEGEND_BELOW, PALETTE, color_or_grey, layout, name, text, white_template

_GUESS = dict(color="#999", dash="dot", width=2)
#: the trade-off figure's axes (both): the error rates' [0, 1] and a little room before 0
TRADEOFF_RANGE = (-0.04, 1.0)


def _entries(curves) -> list[tuple[str, PrivacyCurve, str]]:
    """(label, curve, colour) from a curve, a release, a mapping label -> curve-like, or (label, curve-like)
    pairs. A curve-like value may itself be a list of releases (composed)."""
    if isinstance(curves, PrivacyCurve) or hasattr(curves, "privacy"):
        curves = [curves]
    if isinstance(curves, Mapping):
        items = list(curves.items())
    else:
        items = []
        for c in curves:
            if isinstance(c, tuple) and len(c) in (2, 3) and isinstance(c[0], str):
                items.append(c)
            elif hasattr(c, "privacy"):
                items.append((c.mechanism, c))
            elif isinstance(c, PrivacyCurve):
                items.append((c.describe(), c))
            else:
                raise ValueError(
                    "curves must be PrivacyCurves, releases, (label, curve) pairs or a mapping "
                    f"label -> curve; got {type(c).__name__}."
                )
    if not items:
        raise ValueError("give at least one privacy curve or release to draw.")
    out = []
    for i, item in enumerate(items):
        label, obj = item[0], item[1]
        color = item[2] if len(item) == 3 else color_or_grey(str(label))
        if color == "#888":
            color = PALETTE[i % len(PALETTE)]
        out.append((str(label), risk.curve_of(obj), color))
    return out


def short_description(curve: PrivacyCurve) -> str:
    """A legend-sized name of a guarantee: "μ = 0.24 Gaussian DP", "ε = 1 (pure DP)", "(ε, δ) = (2, 10⁻⁵)"."""
    return curve.describe(short=True)


def _fonts(fig: go.Figure, font_size: float) -> go.Figure:
    if not (isinstance(font_size, (int, float)) and 6 <= font_size <= 60):
        raise ValueError(f"font_size must be a number between 6 and 60 (got {font_size!r}).")
    fig.update_layout(
        font=dict(size=font_size), title_font=dict(size=round(font_size * 1.2)), hoverlabel=dict(font_size=font_size)
    )
    return fig


def tradeoff_figure(curves, audit_point=None, font_size: float = 14, height: int | None = None) -> go.Figure:
    """The attacker's best membership test: false-positive rate alpha against the smallest false-negative rate.

    One line per curve (a release, a PrivacyCurve, a list of releases composed, or a mapping label -> any of
    these); the area below the first curve is what no test can reach. The dotted diagonal is random guessing.
    ``audit_point`` = (alpha, beta) or (alpha, beta, label): an empirical audit's error rates. Axes fixed to
    [0, 1] x [0, 1].
    """
    entries = _entries(curves)
    fig = go.Figure()
    for i, (label, curve, color) in enumerate(entries):
        alpha, beta = risk.tradeoff_curve(curve)
        acc = 0.5 + risk.attacker_advantage(curve) / 2
        desc = short_description(curve)
        head = desc if label == desc else f"{name(label)}: {desc}"
        legend = f"{head}, best guess right {risk.at_most(acc)}"
        fig.add_scatter(
            x=alpha,
            y=beta,
            mode="lines",
            name=legend,
            line=dict(color=color, width=3),
            fill="tozeroy" if i == 0 else None,
            fillcolor="rgba(120,120,120,0.12)" if i == 0 else None,
            hovertemplate="false positives %{x:.3f}<br>false negatives ≥ %{y:.3f}<extra>" + name(label) + "</extra>",
        )
    grid = np.array([0.0, 1.0])
    fig.add_scatter(
        x=grid, y=1 - grid, mode="lines", name="random guessing (no information)", line=_GUESS, hoverinfo="skip"
    )
    if audit_point is not None:
        a, b = float(audit_point[0]), float(audit_point[1])
        if not (0 <= a <= 1 and 0 <= b <= 1):
            raise ValueError("audit_point must hold error rates in [0, 1]: (alpha, beta[, label]).")
        label = text(audit_point[2]) if len(audit_point) > 2 else "audit (empirical attack)"
        fig.add_scatter(
            x=[a],
            y=[b],
            mode="markers",
            name=label,
            marker=dict(symbol="x", size=round(font_size), color="#d62728", line=dict(width=2)),
            hovertemplate="audit: false positives %{x:.3f}, false negatives %{y:.3f}<extra></extra>",
        )
    # the axes start a little before 0, so the two 0% labels at the corner stand apart
    fig.update_xaxes(range=list(TRADEOFF_RANGE), constrain="domain", tickformat=".0%")
    fig.update_yaxes(range=list(TRADEOFF_RANGE), scaleanchor="x", scaleratio=1, constrain="domain", tickformat=".0%")
    layout(
        fig,
        "The best attacker's test: is this person's row in?",
        "false-positive rate α (says “in” wrongly)",
        "false-negative rate β (misses)",
        height=height or int(320 + 14 * font_size),
    )
    return _fonts(fig, font_size)


def posterior_figure(
    curves, priors=risk.DEFAULT_PRIORS, tail: float | None = None, font_size: float = 14, height: int | None = None
) -> go.Figure:
    """Posterior against prior: the most an attacker can come to believe that one person's row is in.

    x: the attacker's prior p (log scale, fixed 0.1% to 100%); y: the bound q(p) (fixed 0 to 100%); the dotted
    diagonal is "learns nothing". Markers at ``priors`` (1%, 10%, 50%) with the numbers. For Gaussian and
    (epsilon, delta) guarantees the bound holds except with probability ``tail`` (default
    :func:`dppca_core.risk.default_tail`), stated in the legend.
    """
    entries = _entries(curves)
    p = np.unique(np.concatenate([np.logspace(-3, 0, 301), np.asarray(priors, dtype=float)]))
    fig = go.Figure()
    fig.add_scatter(x=p, y=p, mode="lines", name="learns nothing (posterior = prior)", line=_GUESS, hoverinfo="skip")
    for i, (label, curve, color) in enumerate(entries):
        b = risk.posterior_bound(curve, 0.5, tail)
        q = risk.posterior_curve(curve, p, tail)
        when = "for every output" if b.always else f"except with prob. ≤ {b.tail:.2g}"
        if b.kind == "none":
            when = "no protection"
        fig.add_scatter(
            x=p,
            y=q,
            mode="lines",
            name=f"{name(label)} ({when})",
            line=dict(color=color, width=3),
            hovertemplate="prior %{x:.2%} → at most %{y:.2%}<extra>" + name(label) + "</extra>",
        )
        marks = [risk.posterior_bound(curve, float(pr), tail) for pr in priors]
        fig.add_scatter(
            x=[m.prior for m in marks],
            y=[m.posterior for m in marks],
            mode="markers+text",
            marker=dict(size=round(0.8 * font_size), color=color),
            showlegend=False,
            text=[f"{100 * m.prior:g}% → {risk.format_percent(m.posterior)}" for m in marks],
            # every other curve's numbers below it; the last (the largest prior) to the left, not
            # past the plot's right edge
            textposition=("top left" if i % 2 == 0 else ["bottom right"] * (len(marks) - 1) + ["bottom left"]),
            textfont=dict(size=font_size, color=color),
            cliponaxis=False,
            hovertemplate="prior %{x:.0%} → at most %{y:.1%}<extra></extra>",
        )
    ticks = [0.001, 0.01, 0.1, 1.0]  # a decade apart (50% beside 100% tilted both on a projector)
    # both axes start a little before their first tick, so the corner's labels (0% and 0.1%) stand apart
    fig.update_xaxes(type="log", range=[-3.12, 0.02], tickvals=ticks, ticktext=["0.1%", "1%", "10%", "100%"])
    fig.update_yaxes(range=[-0.05, 1.02], tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0], tickformat=".0%")
    # a short vertical title: a long one runs past a projector-sized plot (370 px) into the figure's title
    layout(
        fig,
        "How sure can an attacker become?",
        "attacker's belief before the release (prior)",
        "after (posterior)",
        height=height or int(320 + 14 * font_size),
    )
    fig.update_layout(margin=dict(r=45))
    return _fonts(fig, font_size)


def _label_levels(values, labels, font_size: float, width_px: float = 900.0) -> list[int]:
    """Label heights (1, -1, 2, -2, ...: above / below the ruler) so that labels on one level do not overlap;
    label widths are estimated from their length at ``font_size`` on a ruler ``width_px`` wide."""
    per_px = (RULER_RANGE[1] - RULER_RANGE[0]) / width_px
    ends: dict[int, float] = {}
    order = sorted(range(len(values)), key=lambda i: values[i])
    levels = [0] * len(values)
    for i in order:
        x = math.log10(min(max(values[i], 10 ** RULER_RANGE[0]), 10 ** RULER_RANGE[1]))
        half = 0.5 * len(str(labels[i])) * 0.55 * 0.85 * font_size * per_px + 4 * per_px
        for level in (1, -1, 2, -2, 3, -3, 4, -4):
            if ends.get(level, -math.inf) < x - half:
                break
        ends[level] = x + half
        levels[i] = level
    return levels


_SCOPE_SYMBOL = {"guidance": "circle", "per_donation": "diamond", "per_day": "square", "total": "star"}
_SCOPE_NAME = {
    "guidance": "suggested value",
    "per_donation": "per donation (one report)",
    "per_day": "per day",
    "total": "total for a whole product",
}
_MODEL_COLOR = {"central": "#1f77b4", "local": "#ff7f0e", "n/a": "#666"}
#: fixed log10 range of the ruler: 0.0063 to 63
RULER_RANGE = (-2.2, 1.8)


def epsilon_ruler(
    current: float | None = None,
    references=None,
    font_size: float = 14,
    composed: float | None = None,
    height: int | None = None,
) -> go.Figure:
    """An epsilon ruler (log scale, fixed 0.006 to 63) with the reference points and the chosen epsilon.

    ``references``: :class:`dppca_core.risk.EpsilonReference` items (default: the confirmed ones of
    :data:`dppca_core.risk.EPS_REFERENCES`). Marker shape = scope (suggested / per donation / per day / total),
    colour = model (blue central, orange local, grey suggestion); open markers are not confirmed against their
    source. Hover shows the source. ``current`` (red) is the chosen epsilon, ``composed`` (dark red, optional)
    the composed total of several releases. Values outside the range are drawn at its edge with an arrow.
    """
    refs = sorted(
        risk.reference_points(confirmed_only=True) if references is None else list(references), key=lambda r: r.value
    )
    lo, hi = 10 ** RULER_RANGE[0], 10 ** RULER_RANGE[1]
    fig = go.Figure()
    fig.add_shape(type="line", x0=lo, x1=hi, y0=0, y1=0, line=dict(color="#bbb", width=2))
    _add_references(fig, refs, font_size, lo, hi)
    for value, who, color in ((current, "your ε", "#d62728"), (composed, "all releases together", "#7f0000")):
        if value is not None:
            _add_chosen(fig, float(value), who, color, font_size, lo, hi)
    fig.update_xaxes(
        type="log",
        range=list(RULER_RANGE),
        showgrid=False,
        title="ε (log scale)",
        tickvals=[0.01, 0.1, 1, 10],
        ticktext=["0.01", "0.1", "1", "10"],
    )
    fig.update_yaxes(visible=False, range=[-1, 1], fixedrange=True)
    fig.update_layout(
        height=height or int(170 + 12 * font_size), margin=dict(l=20, r=20, t=10, b=40), legend=LEGEND_BELOW
    )
    return _fonts(white_template(fig), font_size)


def _add_references(fig: go.Figure, refs: list, font_size: float, lo: float, hi: float) -> None:
    """The reference points of :func:`epsilon_ruler`: a label above each (staggered so labels do not overlap) and
    one legend entry per scope (marker shape), coloured by model, open when not confirmed."""
    for r, level in zip(refs, _label_levels([r.value for r in refs], [r.label for r in refs], font_size)):
        fig.add_annotation(
            x=math.log10(min(max(r.value, lo), hi)),
            y=0,
            text=text(r.label),
            showarrow=True,
            arrowhead=0,
            arrowwidth=1,
            arrowcolor="#999",
            ax=0,
            ay=-level * 1.5 * font_size,
            font=dict(size=round(0.85 * font_size), color=_MODEL_COLOR[r.model]),
        )
    for scope in risk.SCOPES:
        group = [r for r in refs if r.scope == scope]
        if not group:
            continue
        fig.add_scatter(
            x=[min(max(r.value, lo), hi) for r in group],
            y=[0.0] * len(group),
            mode="markers",
            name=_SCOPE_NAME[scope],
            marker=dict(
                symbol=[_SCOPE_SYMBOL[scope] + ("" if r.confirmed else "-open") for r in group],
                size=round(0.95 * font_size),
                color=[_MODEL_COLOR[r.model] for r in group],
                line=dict(width=1.5, color=[_MODEL_COLOR[r.model] for r in group]),
            ),
            hovertext=[
                text(
                    f"ε = {r.value:.4g} ({_SCOPE_NAME[r.scope]}, {r.model} model): {r.what}. Source: "
                    f"{r.source}." + ("" if r.confirmed else " NOT CONFIRMED.")
                )
                for r in group
            ],
            hoverinfo="text",
        )


def _add_chosen(fig: go.Figure, value: float, who: str, color: str, font_size: float, lo: float, hi: float) -> None:
    """A chosen ε of :func:`epsilon_ruler` as a bar on the ruler, at its edge with "(off the scale)" outside it."""
    if not value > 0:
        raise ValueError(f"{who} must be > 0 (got {value!r}); use inf for no guarantee.")
    shown = min(max(value, lo), hi)
    label = f"{who} = {value:.3g}" if math.isfinite(value) else f"{who}: no guarantee"
    if value > hi or value < lo:
        label += " (off the scale)"
    fig.add_scatter(
        x=[shown],
        y=[0.0],
        mode="markers",
        name=label,
        marker=dict(size=round(1.4 * font_size), color=color, symbol="line-ns", line=dict(width=4, color=color)),
        hovertext=label,
        hoverinfo="text",
    )

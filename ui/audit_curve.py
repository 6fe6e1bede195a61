"""The audit as a curve, on the Audit page (our mechanisms and an external library), in the Report's record and in the
risk view's teaching example: the attack's whole trade-off with its simultaneous band over the claimed curve, and one
line in words (:mod:`dppca_core.audit.curve`, :mod:`dppca_core.figures.tradeoff_curve`)."""

from __future__ import annotations

import streamlit as st

from dppca_core import risk
from dppca_core.figures.tradeoff_curve import tradeoff_curve_figure

from . import limits, show
from .text import md_escape

#: how the band is made, in words (the Audit page's caption and docs/audit-table.md say the same)
#: what the axes mean (their titles stay short so that they fit in presenter mode)
AXES_WORDS = (
    "α, the false-positive rate: the share of releases made from D that the attack calls D'; β, the "
    "false-negative rate: the share made from D' that it calls D. "
)
BAND_WORDS = (
    AXES_WORDS
    + "The band holds for every threshold of its grid at once: each error rate gets a Clopper-Pearson bound, "
    "and the grid's thresholds share the 5% error (Bonferroni), so the whole inner edge holds with 95% "
    "confidence. A claim is refuted when any point of that inner edge falls in the shaded region the claim "
    "forbids. The diamond is the threshold the audit chose beforehand on separate trials: its bound is the "
    "summary number above."
)


def figure(result, title: str | None = None):
    """(the curve's figure, its one-line reading) of an audit result, or None when it has no curve."""
    curve = getattr(result, "curve", None)
    if curve is None:
        return None
    point = (result.false_positive_upper, result.false_negative_upper)
    mu = result.mu_lower if getattr(result, "conversion", None) == "gdp" else None
    fig = tradeoff_curve_figure(curve, point=point, measured_mu=mu, **({"title": title} if title else {}))
    return fig, curve.reading(result.epsilon_claimed)


def section(result, key: str, name: str | None = None) -> None:
    """The curve of ``result`` under a heading, with its reading as the figure's one-line text alternative."""
    drawn = figure(result)
    if drawn is None:
        return
    fig, reading = drawn
    st.markdown("**The attack's whole trade-off curve**" + (f" · {md_escape(name)}" if name else ""))
    st.markdown(md_escape(reading))
    show.chart(fig, key=key, summary=reading)
    st.caption(BAND_WORDS)


#: the teaching example in words (the risk view's caption; docs/risk.md says the same)
TEACHING_WORDS = (
    AXES_WORDS + "A simulated audit of this guarantee at its worst case: {trials:,} draws on each side from the pair "
    "of output laws whose best test meets the claimed curve exactly (two Gaussians μ apart for a "
    "Gaussian mechanism, randomized response for a pure ε). Even this tightest attack stays on the "
    "allowed side, and its 95% band straddles the claimed line: the audit's lower bound on ε is below "
    "the claim. The Audit page runs the same audit on the mechanism itself."
)


@st.cache_data(max_entries=64, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _teaching(curve, delta: float):
    """(figure, reading) of the teaching audit of ``curve`` (a PrivacyCurve), cached: the figure changes with ε."""
    attack, reading = risk.teaching_audit(curve, delta)
    return tradeoff_curve_figure(attack, title="A simulated audit of this guarantee"), reading


def teaching_section(curve, delta: float, name: str, key: str) -> None:
    """The risk view's teaching example: the curve of a simulated audit of ``curve``'s worst case, under a heading,
    with its reading as the figure's one-line text alternative."""
    fig, reading = _teaching(curve, float(delta))
    st.markdown(f"**What an audit of this guarantee would see** · {md_escape(name)}")
    st.markdown(md_escape(reading))
    show.chart(fig, key=key, summary=reading)
    st.caption(TEACHING_WORDS.format(trials=risk.TEACHING_TRIALS))

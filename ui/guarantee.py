"""The guarantee card shown by Explore, Report and Audit: claimed, exact and audited epsilon side by side.

* claimed: the (epsilon, delta) the release states;
* exact: the epsilon of the noise actually added, at the same delta (``release.privacy.epsilon_at(delta)``);
  below the claim where a calibration adds more noise than its claim needs;
* audited: the lower bound of the last audit run for the same setting in this session (the Audit page keeps
  one per mechanism, epsilon, delta and relation), or "not run".
"""

from __future__ import annotations

import math

import streamlit as st

from dppca_core.audit.core import exact_epsilon

from .session import AUDITS_KEY  # the audits run on the Audit page as implemented (factor 1), one per setting
from .text import md_escape
from dppca_core.reading import number

#: Exact epsilon below this share of the claim: the calibration adds noticeably more noise than the claim needs.
LOOSE_SHARE = 0.8


def setting_key(mechanism: str, epsilon: float, delta: float, neighbors: str) -> tuple:
    """The setting an audit result is kept under (floats rounded so 1.0 from a link matches 1 from a widget)."""
    return mechanism, round(float(epsilon), 12), round(float(delta), 15), neighbors


def remember_audit(result) -> None:
    """Keep an audit of a mechanism as implemented (run at its claim) for the cards of that setting."""
    if result.run_epsilon != result.epsilon_claimed:
        return
    store = st.session_state.setdefault(AUDITS_KEY, {})
    store[setting_key(result.mechanism, result.epsilon_claimed, result.delta_claimed, result.neighbors)] = result


def audited(mechanism: str, epsilon: float, delta: float, neighbors: str):
    """The audit kept for this setting, or None."""
    return st.session_state.get(AUDITS_KEY, {}).get(setting_key(mechanism, epsilon, delta, neighbors))


def _fmt(value: float | None) -> str:
    if value is None:
        return "none"
    return "∞" if math.isinf(value) else number(value, 3)


def explanation(claimed: float | None, exact: float, delta: float, audit_result) -> str:
    """One sentence on why the three numbers differ, and advice where the calibration is loose."""
    at = f"δ = {number(delta)}" if delta > 0 else "δ = 0"
    if claimed is None or math.isinf(exact):
        text = "No guarantee: an attacker can tell neighbouring datasets apart, so there is no exact ε either."
    elif exact < LOOSE_SHARE * claimed:
        text = (
            f"The noise actually added is {_fmt(exact)}-DP at {at}, well below the claimed ε = {number(claimed)}: "
            "this calibration spends less privacy than it claims; you could ask for less noise."
        )
    elif exact < claimed * (1 - 1e-6):
        text = (
            f"The noise actually added gives ε = {_fmt(exact)} at {at}, a little below the claim: the claim "
            "rounds the calibration up."
        )
    else:
        text = f"The noise is calibrated exactly to the claim at {at}."
    if audit_result is None:
        return text + " No audit of this setting has been run (Audit page); an audit gives a lower bound."
    return (
        text + f" An attack on this setting proved ε ≥ {_fmt(audit_result.epsilon_lower)}: a lower bound, "
        "which can refute a claim but never confirm it"
        + (" — and here it refutes it." if audit_result.violated else ".")
    )


def card(
    mechanism: str,
    *,
    epsilon: float | None,
    delta: float,
    neighbors: str,
    privacy=None,
    exact: float | None = None,
    text: str | None = None,
    audit_result=None,
    title: str | None = None,
    key: str | None = None,
) -> None:
    """Claimed, exact and audited epsilon of one release setting, with one sentence on their difference.

    ``epsilon`` / ``delta``: what the release claims (``epsilon`` None: no guarantee). ``exact``: the exact
    epsilon at ``delta``, or read from ``privacy`` (the release's PrivacyCurve). ``audit_result``: an audit of
    this setting; default the one kept by :func:`remember_audit`. ``text``: the release's guarantee sentence,
    shown above the numbers (after ``title`` when given: user-facing names are escaped).
    """
    if exact is None:
        exact = exact_epsilon(privacy, delta) if privacy is not None else math.inf
    if audit_result is None and epsilon is not None:
        audit_result = audited(mechanism, epsilon, delta, neighbors)
    with st.container(border=True, key=key or f"guarantee_{mechanism}"):
        label = f"**{md_escape(title)}**" if title else "**Guarantee**"
        if text:
            st.markdown(f"{label}: {text}")
        elif title:
            st.markdown(label)
        cols = st.columns(3)
        cols[0].metric("claimed ε", _fmt(epsilon), help=f"What the release states, at δ = {number(delta)}.")
        cols[1].metric(
            "exact ε of the noise added",
            _fmt(exact),
            help="From the release's privacy curve at the same δ: what the noise actually added guarantees.",
        )
        cols[2].metric(
            "audited lower bound on ε",
            "not run" if audit_result is None else _fmt(audit_result.epsilon_lower),
            help="From the last audit of this mechanism at this ε, δ and relation (Audit page), with 95% "
            "confidence.",
        )
        st.caption(explanation(epsilon, exact, delta, audit_result))


def release_card(mechanism: str, published: dict, privacy, title: str | None = None, key: str | None = None) -> None:
    """:func:`card` for a release's ``published()`` dict and its privacy curve (Explore, Report)."""
    card(
        mechanism,
        epsilon=published["epsilon"],
        delta=float(published["delta"]),
        neighbors=published["neighbors"],
        privacy=privacy,
        text=published["guarantee_text"],
        title=title,
        key=key,
    )


#: a privately chosen R whose 95% range across repetitions spans more than this factor gets a sentence saying why
RADIUS_SPREAD = 1.5


def radius_spread_words(low: float, high: float, published: dict, n: int, quantile: float) -> str | None:
    """Why the clipping radius each release chose privately varies so much across repetitions (None when its 95%
    range, ``low`` to ``high``, spans less than :data:`RADIUS_SPREAD`): each release finds R by a noisy binary search, reading counts of
    the rows longer than each candidate with noise of the published s.d.; against few rows that noise moves the count
    the search aims at by many rows, so R lands far from the quantile in some repetitions."""
    if low <= 0 or high / low < RADIUS_SPREAD:
        return None
    sd = published.get("facts", {}).get("radius_noise_scale")
    above = max(round((1.0 - quantile) * n), 0)
    noise = f", read with noise of s.d. {number(sd, 2)} rows" if sd else ""
    return (
        f"Why R varies from {number(low, 3)} to {number(high, 3)} across repetitions: each release finds it by a noisy "
        f"binary search over the rows' lengths, counting the rows longer than each candidate{noise}; it aims at "
        f"the {number(quantile)} quantile, about {above:,} of the {n:,} rows above R. When the noise is a large "
        "part of that count, the search stops far from the quantile in some releases. A larger radius share or a "
        "larger ε narrows the spread; a public R (Data page) removes it."
    )

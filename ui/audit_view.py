"""An audit on the Audit page, for our mechanisms and for an installed library alike: the attack run under a progress
bar, its verdict and its numbers in the same words, the figures (:mod:`dppca_core.audit`, :mod:`ui.audit_curve`)."""

from __future__ import annotations

import math

import streamlit as st

import dppca_core as dc
from dppca_core import figures
from dppca_core.audit import audit, describe_statistic
from dppca_core.reading import number

from . import audit_curve, guarantee, show
from .session import AUDIT_RESULT_KEY


def run_attack(attack, *args, **kwargs):
    """``attack(*args, progress=..., **kwargs)`` under a progress bar (cleared when the attack ends)."""
    bar = st.progress(0.0, text="running the attack…")
    result = attack(*args, progress=lambda f: bar.progress(min(f, 1.0), text=f"running the attack… {f:.0%}"), **kwargs)
    bar.empty()
    return result


def run_ours(s) -> None:
    """Audit the mechanism the Audit page's settings (``s``, a :class:`dppca_core.scenario.Settings`) name, and keep
    the result: the last one of this session, and by setting for the guarantee cards."""
    mech, eps, delta, nb = s.audit_mechanism, s.audit_epsilon, s.audit_delta, s.audit_neighbors
    spec = dc.get_mechanism(mech)
    if nb not in spec.relations:
        raise ValueError(
            f"{spec.title} has a guarantee only for {' / '.join(spec.relations)}; pick that neighbouring relation."
        )
    result = run_attack(
        audit, mech, eps, delta, neighbors=nb, trials=int(s.audit_trials), seed=0, run_epsilon=eps * s.audit_factor
    )
    st.session_state[AUDIT_RESULT_KEY] = result  # the last audit of this session
    guarantee.remember_audit(result)


def verdict(name: str, result) -> None:
    """The verdict under ``name`` (Markdown, escaped by the caller): claim contradicted, or no violation found."""
    if result.violated:
        st.warning(f"**{name}: claim contradicted.** {result.verdict()}", icon=":material/gpp_bad:")
    else:
        st.success(f"**{name}: no violation found.** {result.verdict()}", icon=":material/verified_user:")


def audited_card(result, key: str, epsilon: float | None, exact: float) -> None:
    """The guarantee card (claimed ``epsilon``, ``exact``) beside the audit ``result`` that tested it."""
    guarantee.card(
        result.mechanism,
        epsilon=epsilon,
        delta=result.delta_claimed,
        neighbors=result.neighbors,
        exact=exact,
        audit_result=result,
        key=key,
    )


def trials_metric(col, result) -> None:
    """How many trials the attack ran on each dataset, and how long it took."""
    col.metric(
        "trials per dataset",
        f"{result.trials:,}",
        delta=f"{result.seconds:.1f} s",
        delta_color="off",
        delta_arrow="off",
    )


def claim_reached(ratio: float) -> tuple[str, str | None]:
    """The "claim reached" metric in words: a percentage up to the claim; past it (the claim refuted) no percentage
    such as 999%, but how many times the claimed ε the lower bound is."""
    if ratio <= 1:
        return f"{ratio:.0%}", None
    times = "∞" if ratio == float("inf") else number(ratio, 3)
    return "over 100%", f"refuted: the bound is {times}× the claim"


#: how the bound reads the attack, by the result's conversion (else: distribution-free)
READINGS = {
    "gdp": "read through the Gaussian-DP trade-off curve, which assumes the mechanism's trade-off curve is Gaussian "
    "(exact for Gaussian noise)",
    "range": "two tests, one in each tail, read through the exponential mechanism's bounded privacy-loss range (its "
    "proof keeps the loss within a range of width ε; the distribution-free bound from the same tests is {point})",
}


def show_ours(result) -> None:
    """An audit of one of our mechanisms: the verdict, the guarantee card, the numbers, where and how the bound was
    read, the trade-off curve and the statistic's histograms."""
    spec = dc.get_mechanism(result.mechanism)
    verdict(spec.title, result)
    audited_card(result, "audit_guarantee", result.epsilon_claimed, result.epsilon_exact)
    m = st.columns(5)
    m[0].metric("claim", f"({number(result.epsilon_claimed)}, {number(result.delta_claimed)})")
    m[1].metric(
        "lower bound on ε",
        "∞" if result.epsilon_lower == math.inf else number(result.epsilon_lower, 3),
        help="At the claimed δ, with 95% confidence.",
    )
    reached, beyond = claim_reached(result.ratio)
    m[2].metric(
        "claim reached",
        reached,
        delta=beyond,
        delta_color="off",
        delta_arrow="off",
        help="lower bound / claimed ε: near 100% means the audit is tight; above 100% refutes the claim.",
    )
    m[3].metric("lower bound on δ", number(result.delta_lower, 3), help="At the claimed ε, with 95% confidence.")
    trials_metric(m[4], result)
    how = (
        f"the published field '{result.leaked_field}', which carries no noise"
        if result.statistic == "published field"
        else describe_statistic(spec, result.statistic)
    )
    reading = READINGS.get(result.conversion, "distribution-free (no assumption on the mechanism)").format(
        point=number(result.epsilon_lower_point, 3)
    )
    ran_at = (
        f" The mechanism was run at ε = {number(result.run_epsilon)}."
        if result.run_epsilon != result.epsilon_claimed
        else ""
    )
    st.caption(
        f"Where: {result.note}. Statistic: {how}. Bound: {reading}. Relation: {result.neighbors}; error rates on the "
        f"evaluation trials: false positives {result.false_positive_rate:.3f}, false negatives "
        f"{result.false_negative_rate:.3f}.{ran_at}"
    )
    # the attack's whole trade-off curve (its band, the claimed curve, the chosen threshold, the GDP reading), then
    # the statistic the curve is read from
    audit_curve.section(result, key="audit_curve")
    cols = st.columns(2)
    show.chart(figures.audit_histograms(result.scores_d, result.scores_d_prime, result.threshold), container=cols[0])

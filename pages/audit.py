"""Audit: check a privacy claim empirically — a lower bound on epsilon from an attack on what is published."""

import streamlit as st

import dppca_core as dc
from dppca_core import figures
from dppca_core.audit import audit, describe_statistic

from ui import audit_curve, guarantee, scenario, session, show
from ui.errors import boundary
from ui.text import NUMBER_FORMAT
from ui.shell import ensure_navigation
from dppca_core.reading import number

ensure_navigation()


st.title("Audit a privacy claim")
st.markdown(
    "An audit runs a mechanism many times on two **neighbouring datasets** that differ in one row, the *canary*, "
    "and attacks what the mechanism's privacy proof is about, trying to tell which dataset produced each run. "
    "Each mechanism is attacked where its proof lives: a local mechanism at the canary user's own message, a "
    "streaming method at the canary's own step (the public order and start vector are replayed), an exponential "
    "mechanism through the exact ratio of its two output densities, a distributed one at a site's message. With "
    "(ε, δ)-DP no test can have both error rates small: *α + e^ε β ≥ 1 − δ*. 95% confidence bounds on the "
    "error rates turn the attack into a lower bound on ε. For Gaussian mechanisms the bound reads the attack "
    "through the whole Gaussian-DP trade-off curve (exact for Gaussian noise), which gets close to the claim with "
    "far fewer trials. An audit can refute a claim, never prove one."
)

names = dc.mechanism_names()
scenario.audit_follows_scenario()  # open on the scenario's mechanism, epsilon and delta until changed here
vals = scenario.values()
s = scenario.Settings(vals)
c = st.columns([2.6, 1, 1, 1.4])  # the mechanism's name (and a retraction mark) in full
c[0].selectbox(
    "Mechanism",
    names,
    format_func=lambda m: dc.get_mechanism(m).display_name
    + ("" if dc.get_mechanism(m).guarantee == "retracted" else f" [{dc.get_mechanism(m).guarantee}]"),
    **scenario.bind("amech"),
)
c[1].number_input("claimed ε", min_value=0.01, max_value=50.0, step=0.1, format=NUMBER_FORMAT, **scenario.bind("aeps"))
c[2].number_input("claimed δ", min_value=1e-12, max_value=0.5, format="%.1e", **scenario.bind("adelta"))
c[3].select_slider("trials per dataset", options=list(scenario.AUDIT_TRIALS), **scenario.bind("atrials"))
c = st.columns([2, 2])
c[0].radio("Neighbouring relation", ["replace", "add_remove"], horizontal=True, **scenario.bind("anb"))
c[1].select_slider(
    "the implementation actually runs at ε ×",
    options=[1, 2, 3, 5],
    **scenario.bind("afactor"),
    help="1: audit the mechanism as it is. Above 1: simulate an implementation that adds too little noise "
    "for its claim; a good audit must catch it.",
)
buttons = st.columns([1, 1, 4])
run_clicked = buttons[0].button("Run the audit", type="primary", key="run_audit")
buttons[1].button(
    "Cancel",
    key="audit_cancel",
    icon=":material/stop_circle:",
    help="Stops an audit in progress (the click interrupts it); the last finished audit stays.",
)
if run_clicked:
    with boundary("the audit"):
        mech, eps, delta, nb = s.audit_mechanism, s.audit_epsilon, s.audit_delta, s.audit_neighbors
        spec = dc.get_mechanism(mech)
        if nb not in spec.relations:
            raise ValueError(
                f"{spec.title} has a guarantee only for {' / '.join(spec.relations)}; pick that "
                "neighbouring relation."
            )
        bar = st.progress(0.0, text="running the attack…")
        result = audit(
            mech,
            eps,
            delta,
            neighbors=nb,
            trials=int(s.audit_trials),
            seed=0,
            run_epsilon=eps * s.audit_factor,
            progress=lambda f: bar.progress(min(f, 1.0), text=f"running the attack… {f:.0%}"),
        )
        bar.empty()
        st.session_state[session.AUDIT_RESULT_KEY] = result  # the last audit of this session
        guarantee.remember_audit(result)


def claim_reached(ratio: float) -> tuple[str, str | None]:
    """The "claim reached" metric in words: a percentage up to the claim; past it (the claim refuted) no percentage
    such as 999%, but how many times the claimed ε the lower bound is."""
    if ratio <= 1:
        return f"{ratio:.0%}", None
    times = "∞" if ratio == float("inf") else number(ratio, 3)
    return "over 100%", f"refuted: the bound is {times}× the claim"


result = st.session_state.get(session.AUDIT_RESULT_KEY)
if result is not None:
    with boundary("the audit result"):
        spec = dc.get_mechanism(result.mechanism)
        if result.violated:
            st.warning(f"**{spec.title}: claim contradicted.** {result.verdict()}", icon=":material/gpp_bad:")
        else:
            st.success(f"**{spec.title}: no violation found.** {result.verdict()}", icon=":material/verified_user:")
        guarantee.card(
            result.mechanism,
            epsilon=result.epsilon_claimed,
            delta=result.delta_claimed,
            neighbors=result.neighbors,
            exact=result.epsilon_exact,
            audit_result=result,
            key="audit_guarantee",
        )
        m = st.columns(5)
        m[0].metric("claim", f"({number(result.epsilon_claimed)}, {number(result.delta_claimed)})")
        m[1].metric(
            "lower bound on ε",
            "∞" if result.epsilon_lower == float("inf") else number(result.epsilon_lower, 3),
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
        m[4].metric(
            "trials per dataset",
            f"{result.trials:,}",
            delta=f"{result.seconds:.1f} s",
            delta_color="off",
            delta_arrow="off",
        )
        how = (
            f"the published field '{result.leaked_field}', which carries no noise"
            if result.statistic == "published field"
            else describe_statistic(spec, result.statistic)
        )
        reading = {
            "gdp": "read through the Gaussian-DP trade-off curve, which assumes the mechanism's trade-off curve "
            "is Gaussian (exact for Gaussian noise)",
            "range": "two tests, one in each tail, read through the exponential mechanism's bounded "
            "privacy-loss range (its proof keeps the loss within a range of width ε; the "
            f"distribution-free bound from the same tests is {number(result.epsilon_lower_point, 3)})",
        }.get(result.conversion, "distribution-free (no assumption on the mechanism)")
        st.caption(
            f"Where: {result.note}. Statistic: {how}. Bound: {reading}. "
            "Relation: "
            f"{result.neighbors}; error rates on the evaluation trials: false positives "
            f"{result.false_positive_rate:.3f}, false negatives {result.false_negative_rate:.3f}."
            + (
                f" The mechanism was run at ε = {number(result.run_epsilon)}."
                if result.run_epsilon != result.epsilon_claimed
                else ""
            )
        )
        # the attack's whole trade-off curve (its band, the claimed curve, the chosen threshold, the GDP reading),
        # then the statistic the curve is read from (ui/audit_curve.py)
        audit_curve.section(result, key="audit_curve")
        cols = st.columns(2)
        show.chart(
            figures.audit_histograms(result.scores_d, result.scores_d_prime, result.threshold), container=cols[0]
        )
else:
    st.info(
        "Pick a mechanism and run the audit. Try Analyze Gauss, then the same with “runs at ε × 3”, then the "
        "retracted Wishart mechanism."
    )

# -- other libraries: an external audit and a comparison on the user's data (ui/libraries.py) -----------------
from ui import libraries  # noqa: E402

st.divider()
libraries.external_audit()
st.divider()
libraries.compare_libraries(vals)

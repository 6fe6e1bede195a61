"""Audit: check a privacy claim empirically — a lower bound on epsilon from an attack on what is published."""

import streamlit as st

import dppca_core as dc

from ui import audit_view, scenario, session
from ui.errors import boundary
from ui.text import NUMBER_FORMAT
from ui.shell import ensure_navigation

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
        audit_view.run_ours(s)

result = st.session_state.get(session.AUDIT_RESULT_KEY)
if result is not None:
    with boundary("the audit result"):
        audit_view.show_ours(result)
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

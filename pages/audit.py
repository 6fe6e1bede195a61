"""Audit: check a privacy claim empirically — a lower bound on epsilon from a distinguishing attack."""
import streamlit as st

import dppca_core as dc
from dppca_core import figures
from dppca_core.audit import audit

from ui import charts, state
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

RESULT_KEY = "audit_result"  # canonical result of the last audit in this session (no widget owns it)

st.title("Audit a privacy claim")
st.markdown(
    "An audit runs a mechanism many times on two **neighbouring datasets** (one has the row *u = e₁*, the other "
    "replaces it or removes it) and tries to tell which one produced each output. If the attack is too good, the "
    "claimed ε cannot be true: with (ε, δ)-DP, *true positive rate ≤ e^ε · false positive rate + δ*. "
    "Clopper–Pearson bounds turn the observed rates into a lower bound on ε at 95% confidence; the threshold is "
    "chosen on half of the trials and evaluated on the other half. An audit can refute a claim, never prove one."
)

names = [m for m in dc.mechanism_names()]
with st.form("audit_form"):
    c = st.columns(4)
    mech = c[0].selectbox("Mechanism", names, index=names.index("wishart_sn"),
                          format_func=lambda m: f"{dc.get_mechanism(m).title} [{dc.get_mechanism(m).guarantee}]")
    eps = c[1].number_input("claimed ε", min_value=0.01, max_value=50.0, value=1.0, step=0.1)
    delta = c[2].number_input("claimed δ", min_value=1e-12, max_value=0.5, value=1e-5, format="%.1e")
    trials = c[3].select_slider("trials per dataset", options=[100, 200, 500, 1000, 2000, 5000], value=1000)
    nb = st.radio("Neighbouring relation", ["replace", "add_remove"], horizontal=True)
    submitted = st.form_submit_button("Run the audit", type="primary")

if submitted:
    with boundary("the audit"):
        spec = dc.get_mechanism(mech)
        params = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
        bar = st.progress(0.0, text="running the attack…")
        result = audit(mech, eps, delta, neighbors=nb, trials=int(trials), seed=0, n=40,
                       progress=lambda f: bar.progress(min(f, 1.0), text=f"running the attack… {f:.0%}"), **params)
        bar.empty()
        st.session_state[RESULT_KEY] = result

result = st.session_state.get(RESULT_KEY)
if result is not None:
    with boundary("the audit result"):
        spec = dc.get_mechanism(result.mechanism)
        if result.violated:
            st.warning(f"**{spec.title}: claim contradicted.** {result.verdict()}", icon=":material/gpp_bad:")
        else:
            st.success(f"**{spec.title}: no violation found.** {result.verdict()}", icon=":material/verified_user:")
        m = st.columns(4)
        m[0].metric("claimed ε", f"{result.epsilon_claimed:g}")
        m[1].metric("empirical lower bound on ε", "∞" if result.epsilon_lower == float("inf")
                    else f"{result.epsilon_lower:.3g}")
        m[2].metric("lower bound on δ at claimed ε", f"{result.delta_lower:.3g}")
        m[3].metric("trials per dataset", f"{result.trials}", delta=f"{result.seconds:.1f} s", delta_color="off")
        st.caption(f"Statistic: **{result.statistic}** — "
                   + ("energy of the released subspace along the differing row" if result.statistic == "subspace_energy"
                      else "whether Y − XᵀX of D has a negative eigenvalue (possible only if D' produced Y, because "
                           "Wishart noise is positive semi-definite; ALGORITHMS.md §6.3)")
                   + f"; relation: {result.neighbors}; false positive rate {result.false_positive_rate:.3f}, "
                     f"false negative rate {result.false_negative_rate:.3f} on the evaluation half.")
        cols = st.columns(2)
        cols[0].plotly_chart(figures.audit_histograms(result.scores_d, result.scores_d_prime, result.threshold),
                             config=charts.PLOTLY_CONFIG, width="stretch")
        fpr, tpr = result.roc
        cols[1].plotly_chart(figures.roc_curve(fpr, tpr, result.epsilon_claimed, result.delta_claimed),
                             config=charts.PLOTLY_CONFIG, width="stretch")
else:
    st.info("Pick a mechanism and run the audit. Try the retracted Wishart mechanism first, then Analyze Gauss.")

state.sync_url()

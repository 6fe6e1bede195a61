"""Audit page, other libraries: audit an installed library's PCA, and compare libraries with our mechanisms on the
user's data (:mod:`dppca_core.peers`, :func:`dppca_core.audit.audit_external`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import dppca_core as dc
from dppca_core import figures, peers
from dppca_core.pipeline.experiments import summary
from dppca_core.scenario import Settings

from . import audit_curve, audit_view, compute, data, show
from .errors import boundary
from .session import EXTERNAL_AUDIT_KEY, LIBRARY_COMPARISON_KEY
from .text import NUMBER_FORMAT, md_escape

#: Trials per dataset offered for an external audit (2,000 is the issue's measured setting, docs/peers.md).
TRIALS = (200, 500, 1000, 2000)


def _choices() -> list[str]:
    """Installed libraries first, then our mechanisms through the same interface."""
    ours = [
        f"ours:{m}"
        for m in dc.mechanism_names("pca")
        if dc.get_mechanism(m).guarantee in ("pure", "approximate") and dc.get_mechanism(m).model == "central"
    ]
    return peers.available() + ours


def _unavailable_note() -> None:
    missing = [peers.status(name) for name in peers.LIBRARIES if peers.status(name)]
    if missing:
        st.caption("Not available here: " + " ".join(md_escape(m) for m in missing))


def external_audit() -> None:
    """Audit one library's PCA at the claim its adapter passes, on a small domain it declares."""
    st.subheader("Audit another library's PCA")
    st.markdown(
        "The same attack, on a library treated as a black box: it gets worst-case neighbouring datasets "
        "inside the input domain it declares (rows at its edge, every other row at its centre), the "
        "statistics that fit what it releases are tried on half of the trials, and the bound is read on "
        "the other half. The claim and domain are the library's own (its privacy map or documentation)."
    )
    _unavailable_note()
    c = st.columns([2.4, 1, 1, 1.4])
    c[0].selectbox("Library", _choices(), format_func=peers.title, key="xa_lib")
    c[1].number_input("ε", min_value=0.01, max_value=50.0, value=1.0, step=0.1, format=NUMBER_FORMAT, key="xa_eps")
    c[2].number_input("δ (if it uses one)", min_value=1e-12, max_value=0.5, value=1e-5, format="%.1e", key="xa_delta")
    c[3].select_slider("trials per dataset", options=list(TRIALS), value=500, key="xa_trials")
    c = st.columns(4)
    c[0].number_input("rows n", min_value=4, max_value=1000, value=10, step=1, key="xa_n")
    c[1].number_input("columns d", min_value=2, max_value=20, value=2, step=1, key="xa_d")
    c[2].number_input("components k", min_value=1, max_value=20, value=2, step=1, key="xa_k")
    c[3].number_input("row norm bound", min_value=0.01, max_value=100.0, value=1.0, format=NUMBER_FORMAT, key="xa_norm")
    if st.button("Audit this library", key="xa_run"):
        with boundary("the library audit"):
            state = st.session_state
            result, peer = audit_view.run_attack(
                peers.audit_peer,
                state["xa_lib"],
                epsilon=float(state["xa_eps"]),
                delta=float(state["xa_delta"]),
                data_norm=float(state["xa_norm"]),
                n=int(state["xa_n"]),
                d=int(state["xa_d"]),
                k=min(int(state["xa_k"]), int(state["xa_d"])),
                trials=int(state["xa_trials"]),
                seed=0,
            )
            state[EXTERNAL_AUDIT_KEY] = (result, peer)
    if st.session_state.get(EXTERNAL_AUDIT_KEY) is not None:
        with boundary("the library audit result"):
            show_external(*st.session_state[EXTERNAL_AUDIT_KEY])


def show_external(result, peer) -> None:
    """The verdict in the same words, card and figures as for our mechanisms, with the claim and domain used."""
    name = md_escape(peers.title(peer.name))
    st.markdown(
        f"**{name}** · claim: {md_escape(peer.claim)} · domain: {md_escape(peer.domain)} · "
        f"source: {md_escape(peer.source)}"
    )
    audit_view.verdict(name, result)
    audit_view.audited_card(
        result,
        "external_guarantee",
        peer.epsilon if peer.private else None,
        result.epsilon_exact if peer.private else math.inf,
    )
    m = st.columns(4)
    m[0].metric(
        "lower bound on ε",
        "∞" if math.isinf(result.epsilon_lower) else f"{result.epsilon_lower:.3g}",
        help="At the claimed δ, with 95% confidence.",
    )
    m[1].metric("claim reached", f"{result.ratio:.0%}")
    m[2].metric("statistic chosen", result.statistic)
    audit_view.trials_metric(m[3], result)
    st.caption(
        f"Where: {result.note}. Bound: "
        + (
            "read through the Gaussian-DP trade-off curve (Gaussian noise declared)"
            if result.conversion == "gdp"
            else "distribution-free (no assumption on the library)"
        )
        + f". Error rates on the evaluation trials: false positives {result.false_positive_rate:.3f}, "
        f"false negatives {result.false_negative_rate:.3f}."
    )
    audit_curve.section(result, key="external_audit_curve", name=peers.title(peer.name))
    cols = st.columns(2)
    show.chart(figures.audit_histograms(result.scores_d, result.scores_d_prime, result.threshold), container=cols[0])


# -- compare libraries on the user's data ----------------------------------------------------------------------


def compare_libraries(vals: dict) -> None:
    """Each library's accuracy, fit time and audit verdict on the current data and ε grid, within a time budget."""
    st.subheader("Compare libraries")
    st.markdown(
        "On your current data (Data page: the same rows, centring and clipping radius) and the Trade-offs "
        "ε grid: each library's distance to the non-private subspace and its captured energy (mean and "
        "2.5–97.5% band over repetitions), its fit time, and the verdict of a short audit at your ε."
    )
    if Settings(vals).scaling == "private":
        st.info(data.NO_PRIVATE_SCALING, icon=":material/info:")
    options = _choices()
    default = [o for o in options if o in peers.LIBRARIES or o == peers.OURS_DEFAULT]
    st.multiselect("Libraries and mechanisms", options, default=default, format_func=peers.title, key="cmp_libs")
    c = st.columns(3)
    c[0].number_input("repetitions", min_value=1, max_value=50, value=5, step=1, key="cmp_reps")
    c[1].number_input("time budget per library (s)", min_value=1, max_value=600, value=60, step=5, key="cmp_budget")
    c[2].select_slider("audit trials per dataset (0: no audit)", options=[0, 200, 500], value=200, key="cmp_trials")
    if st.button("Compare", key="cmp_run"):
        with boundary("the comparison"):
            st.session_state[LIBRARY_COMPARISON_KEY] = _run_comparison(vals)
    if st.session_state.get(LIBRARY_COMPARISON_KEY) is not None:
        with boundary("the comparison result"):
            _show_comparison(*st.session_state[LIBRARY_COMPARISON_KEY])


def _run_comparison(vals: dict):
    s = Settings(vals)
    state = st.session_state
    names = list(state["cmp_libs"])
    if not names:
        raise ValueError("pick at least one library or mechanism to compare.")
    prep = data.prepare(data.load_dataset(vals), vals)
    rows, gram = np.asarray(prep.data.rows, dtype=float), np.asarray(prep.data.gram, dtype=float)
    k = min(int(s.k), rows.shape[1])
    grid = compute.sweep_values("eps", vals)
    budget = float(state["cmp_budget"])
    table, curves = [], []
    bar = st.progress(0.0, text="comparing…")
    for i, name in enumerate(names):
        bar.progress(i / len(names), text=f"{peers.title(name)}…")
        done, problem = peers.with_time_budget(
            peers.compare_one,
            budget,
            name,
            rows,
            gram,
            k=k,
            epsilons=grid,
            epsilon=float(s.epsilon),
            delta=float(s.delta),
            reps=int(state["cmp_reps"]),
            seed=int(s.seed),
            audit_trials=int(state["cmp_trials"]),
        )
        if problem:
            table.append({"library": peers.title(name), "ε": None, "status": problem})
            continue
        runs, verdict = done
        for r in runs:
            dist, energy = summary(r.distance), summary(r.energy)
            table.append(
                {
                    "library": peers.title(name),
                    "ε": r.epsilon,
                    "subspace distance": f"{dist[0]:.3f} [{dist[1]:.3f}, {dist[2]:.3f}]",
                    "captured energy %": f"{energy[0]:.1f} [{energy[1]:.1f}, {energy[2]:.1f}]",
                    "fit time (ms)": f"{1000 * float(np.median(r.fit_seconds)):.1f}",
                    "audit at your ε": verdict if r.epsilon == float(s.epsilon) else "",
                    "status": "ok",
                }
            )
            curves.append((peers.title(name), r.epsilon, dist[0], dist[1], dist[2]))
    bar.empty()
    return pd.DataFrame(table), curves, float(s.epsilon), budget


def _show_comparison(table: pd.DataFrame, curves: list, eps: float, budget: float) -> None:
    with st.container(key="compare_table"):
        st.dataframe(table, hide_index=True, width="stretch")
    if curves:
        fig = go.Figure()
        for label in dict.fromkeys(c[0] for c in curves):
            points = sorted((c for c in curves if c[0] == label), key=lambda c: c[1])
            x = [p[1] for p in points]
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=[p[2] for p in points],
                    name=label,
                    mode="lines+markers",
                    error_y=dict(
                        type="data",
                        symmetric=False,
                        array=[p[4] - p[2] for p in points],
                        arrayminus=[p[2] - p[3] for p in points],
                    ),
                )
            )
        fig.update_layout(
            xaxis_type="log",
            xaxis_title="ε",
            yaxis_title="subspace distance (lower is better)",
            height=380,
            margin=dict(t=30),
        )
        show.chart(fig)
    st.caption(
        f"Audit verdicts: worst-case neighbours in a 10-row, 2-column domain at ε = {eps:g}, each library "
        f"at the claim its adapter states (docs/peers.md); a library that takes longer "
        f"than {budget:g} s is stopped and shown as not finished."
    )

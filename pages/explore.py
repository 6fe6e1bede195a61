"""Explore: one configuration, live: metric cards, guarantees, loadings, projections, angles, spread."""
import hashlib

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics

from ui import compute, controls, data, state, widgets
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

st.title("Explore")
scn = state.scenario()

with st.sidebar:
    with boundary("the controls"):
        mechs = controls.mechanism_picker()
        controls.privacy_controls()
        controls.shape_controls()
        params = controls.parameter_controls(mechs)

st.plotly_chart(figures.eps_ruler(scn["eps"], widgets.EPS_REFERENCES), config=figures.PLOTLY_CONFIG, width="stretch",
                key="ruler")
with st.expander("Where do these ε come from?"):
    st.markdown(widgets.reference_table_md())
st.caption(
    "All numbers below are **diagnostics computed with the raw data as reference** (the non-private PCA of the "
    "clipped data, and the planted support when known). They show what privacy costs; they are not private releases."
)


@st.cache_data(max_entries=16, show_spinner=False)
def downstream_accuracy(key, _rows, _labels, _bases):
    """Cross-validated accuracy of a classifier on the projection onto each basis (cached per data and bases)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    out = []
    for name, V in _bases.items():
        scores = cross_val_score(LogisticRegression(max_iter=500), _rows @ V, _labels, cv=5)
        out.append({"components": name, "accuracy": round(float(scores.mean()), 3),
                    "± s.d.": round(float(scores.std()), 3)})
    return out


def _card(col, label, values, fmt, help_text):
    stats = compute.summary(values)
    if stats is None:
        col.metric(label, "n/a", help=help_text + " Not available: no planted support and s = 0.")
        return
    mean, lo, hi = stats
    col.metric(label, fmt.format(mean), delta=f"95%: {fmt.format(lo)} – {fmt.format(hi)}", delta_color="off",
               delta_arrow="off", help=help_text)


def _mechanism_block(ds, prep, mech, params):
    spec = dc.get_mechanism(mech)
    with st.container(border=True):
        head = st.columns([3, 2])
        head[0].markdown(f"#### {spec.title}")
        with head[1]:
            widgets.guarantee_badges(spec)
        res = compute.run_reps(prep, mech, k=int(scn["k"]), epsilon=scn["eps"], delta=scn["delta"], neighbors=scn["nb"],
                               reps=int(scn["reps"]), seed=int(scn["seed"]), params=params, s=int(scn["s"]),
                               planted_support=ds.support)
        c = st.columns(5)
        _card(c[0], "subspace distance", res.distance, "{:.3f}",
              "‖sin Θ‖_F to the non-private top-k subspace; 0 = identical, "
              f"{metrics.random_subspace_distance(ds.d, int(scn['k'])):.2f} = a random subspace.")
        _card(c[1], "captured energy", res.energy, "{:.1f}%", "tr(VᵀCV) as % of the best rank-k value.")
        _card(c[2], "support precision", res.precision, "{:.2f}", "Share of the selected rows that are in the true support.")
        _card(c[3], "support recall", res.recall, "{:.2f}", "Share of the true support that is selected.")
        _card(c[4], "support F1", res.f1, "{:.2f}", "Harmonic mean of precision and recall.")
        noise = "no additive noise" if res.noise_scale is None else f"noise scale σ = {res.noise_scale:.4g}"
        st.markdown(f"**Guarantee:** {res.guarantee_text}  \n*{noise} (per entry of the perturbed statistic, rows "
                    f"scaled to norm ≤ 1) · {spec.model} model · {spec.paper}*")
        if spec.guarantee == "retracted":
            st.error("This mechanism's privacy claim is false: its releases are **not** differentially private. "
                     "Good utility here says nothing about privacy.", icon=":material/gpp_bad:")
        for w in res.warnings:
            st.caption(f"⚠ {w}")
    return res


with boundary("the dataset"):
    ds = data.load_dataset(scn)
    prep = data.prepare(ds, scn)
    k = int(scn["k"])
    if not 1 <= k <= ds.d:
        raise ValueError(f"k = {k} components do not fit in d = {ds.d} features; choose k between 1 and {ds.d}.")
    results = {}
    if not mechs:
        st.info("Pick at least one mechanism in the sidebar.")
    for mech in mechs:
        with boundary(spec_title := dc.get_mechanism(mech).title):
            results[mech] = _mechanism_block(ds, prep, mech, params.get(mech, {}))

    if results:
        ref = prep.reference[:, :k]
        first = {m: metrics.align_components(r.components[0], ref) for m, r in results.items()}
        metric = st.segmented_control("Spread of", list(compute.METRICS), default="subspace_distance",
                                      format_func=lambda m: compute.METRICS[m].split(" (")[0], key="spread_metric")
        tabs = st.tabs(["Spread", "Loadings", "Projection", "Principal angles", "Animation", "Support",
                        "Downstream use", "Convergence"])
        with tabs[0]:
            vals = {m: r.metric(metric or "subspace_distance") for m, r in results.items()}
            vals = {m: v for m, v in vals.items() if v is not None}
            if vals:
                st.plotly_chart(figures.quantile_dotplot(vals, compute.METRICS[metric or "subspace_distance"]),
                                config=figures.PLOTLY_CONFIG, width="stretch")
            else:
                st.info("Support recovery needs a planted support or s > 0.")
        with tabs[1]:
            comp = st.number_input("component", 1, k, 1, key="loading_component") - 1
            st.plotly_chart(figures.loadings_compare(ref, first, ds.columns, comp), config=figures.PLOTLY_CONFIG,
                            width="stretch")
            st.caption("Private components are rotated within their span to best match the non-private ones "
                       "(Procrustes), so the bars are comparable; the span is unchanged. First repetition shown.")
        with tabs[2]:
            labels = ds.labels
            st.plotly_chart(figures.projection(prep.data.rows, ref, first, labels), config=figures.PLOTLY_CONFIG,
                            width="stretch")
        with tabs[3]:
            angles = {m: metrics.principal_angles(r.components[0], ref) for m, r in results.items()}
            st.plotly_chart(figures.principal_angles(angles), config=figures.PLOTLY_CONFIG, width="stretch")
        with tabs[4]:
            st.caption("Press ▶ to cycle through the repetitions (fresh noise draws); ■ stops.")
            st.plotly_chart(figures.animation(ref, {m: r.components for m, r in results.items()}, ds.columns),
                            config=figures.PLOTLY_CONFIG, width="stretch")

        with tabs[5]:
            support = compute.true_support(prep, ds.support, int(scn["s"]), k)
            if support is None or len(support) >= ds.d:
                st.info("Support recovery needs a sparse truth: pick a sparse preset on the Data page (e.g. a "
                        "p >> n setting) or set s > 0.")
            else:
                s_eff = int(scn["s"]) or len(support)
                chosen = {m: metrics.row_support(r.components[0], s_eff) for m, r in results.items()}
                st.plotly_chart(figures.support_heatmap(chosen, support, ds.d), config=figures.PLOTLY_CONFIG,
                                width="stretch")
                st.caption(f"Rows each mechanism selects (its {s_eff} rows of largest norm, first repetition) "
                           "against the true support (top line).")
        with tabs[6]:
            if ds.labels is None:
                st.info("Load a labelled dataset (e.g. the breast cancer sample on the Data page) to see how well a "
                        "classifier does on the private projection.")
            else:
                bases = {"non-private": ref, **{m: r.components[0] for m, r in results.items()}}
                digest = hashlib.sha256(b"".join(n.encode() + np.ascontiguousarray(V).tobytes()
                                                 for n, V in bases.items())).hexdigest()
                acc = downstream_accuracy(f"{prep.key}|{digest}", prep.data.rows, ds.labels, bases)
                st.dataframe(acc, hide_index=True)
                st.caption("5-fold cross-validated accuracy of a logistic regression on the data projected onto k "
                           "components (as in Imtiaz & Sarwate's Table 1). A diagnostic: the classifier itself is "
                           "not private; only the components are.")
        with tabs[7]:
            traces = {m: r.trace for m, r in results.items() if r.trace}
            if traces:
                st.plotly_chart(figures.convergence_traces(traces, metrics.random_subspace_distance(ds.d, k)),
                                config=figures.PLOTLY_CONFIG, width="stretch")
                st.caption("Subspace distance to the reference after each iteration (first repetition) of the "
                           "iterative mechanisms selected (e.g. dps_pca, private_oja, dp_pca). The Distributed page "
                           "shows DPS-PCA with one line per ε.")
            else:
                st.info("None of the selected mechanisms is iterative; add dps_pca, private_oja or dp_pca.")

state.sync_url()  # in the page: query-param writes from the entry script do not reach the browser URL

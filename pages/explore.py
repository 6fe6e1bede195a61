"""Explore: one configuration, live: metric cards, guarantees, and one detailed view at a time."""
import streamlit as st

import dppca_core as dc
from dppca_core import experiments, metrics, risk

from ui import compute, controls, data, guarantee, scenario, show, views
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

vals = scenario.values()
presenting = show.presenting()
if not presenting:  # in presenter mode the bar names the page, and the main figure comes first
    st.title("Explore")
    st.caption(risk.context_sentence(vals["eps"]).replace("epsilon", "ε", 1))
    with st.expander("Where do these ε come from?"):
        st.markdown(controls.reference_table_md())
        st.caption("The Privacy risk view below draws them on a ruler beside your ε.")
    st.caption(
        "The numbers below are **diagnostics computed with the raw data as reference** (the non-private PCA of the "
        "clipped data, and the planted support when known): they show what privacy costs and are not private "
        "releases. What each mechanism may publish is its released subspace with the guarantee shown."
    )


def _card(col, label, values, fmt, help_text):
    stats = compute.summary(values)
    if stats is None:
        col.metric(label, "n/a", help=help_text + " Not available: no planted support and s = 0.")
        return
    mean, lo, hi = stats
    col.metric(label, fmt.format(mean), delta=f"95%: {fmt.format(lo)} – {fmt.format(hi)}", delta_color="off",
               delta_arrow="off", help=help_text)


def _mechanism_block(res, random_level: float) -> None:
    spec = dc.get_mechanism(res.mechanism)
    with st.container(border=True):
        head = st.columns([3, 2])
        head[0].markdown(f"#### {md_escape(spec.display_name)}")
        with head[1]:
            controls.guarantee_badges(spec)
        support = res.precision is not None
        c = st.columns([1.4, 1, 1, 1, 1] if support else [3, 2, 2])
        _card(c[0], f"subspace distance (random: {random_level:.2f})", res.distance, "{:.3f}",
              f"‖sin Θ‖_F to the non-private top-k subspace: 0 = identical, {random_level:.2f} = a random subspace "
              "(no information).")
        _card(c[1], "captured energy", res.energy, "{:.1f}%", "tr(VᵀCV) as % of the best rank-k value.")
        if support:
            _card(c[2], "support precision", res.precision, "{:.2f}", "Share of the selected rows in the true support.")
            _card(c[3], "support recall", res.recall, "{:.2f}", "Share of the true support that is selected.")
            _card(c[4], "support F1", res.f1, "{:.2f}", "Harmonic mean of precision and recall.")
        else:
            c[2].caption("Support recovery: no planted support here (choose a sparse setting, or set s > 0 to score "
                         "against the top-s rows of the exact components).")
        noise = "no additive noise" if res.noise_scale is None else f"noise scale σ = {res.noise_scale:.4g}"
        guarantee.release_card(res.mechanism, res.published, res.privacy)
        st.markdown(f"*{noise} (per entry of the perturbed statistic, rows scaled to norm ≤ 1) · {spec.model} model · "
                    f"{spec.paper}*")
        if res.radius is not None:
            mean, lo, hi = experiments.summary(res.radius)
            st.markdown(f"Clipping radius chosen privately by each release (published): R = {res.radius[0]:.4g} in "
                        f"the first, {mean:.4g} on average, 95% of repetitions between {lo:.4g} and {hi:.4g}.")
        if spec.guarantee == "retracted":
            st.error("This mechanism's privacy claim is false: its releases are **not** differentially private. "
                     "Good utility here says nothing about privacy.", icon=":material/gpp_bad:")
        for w in res.warnings:
            st.caption(f"⚠ Not private, for exploration: {md_escape(w)}")


with boundary("the dataset"):
    ds = data.load_dataset(vals)
    prep = data.prepare(ds, vals)
    k = int(vals["k"])
    if not 1 <= k < ds.d:
        raise ValueError(f"k = {k} components for d = {ds.d} features: choose k between 1 and {ds.d - 1}. With "
                         "k = d every subspace is the whole space, so every method would look perfect.")
    random_level = metrics.random_subspace_distance(ds.d, k)
    results, problems = compute.run_selected(ds, prep, vals)
    if not scenario.mechanisms(vals):
        st.info("Pick at least one mechanism in the sidebar.")
    if results and presenting:  # the main figure right under the dial: one screen at 1280x720
        views.fragment(vals["view"], ds, prep, results, k, random_level)
    views.dominant_feature_warning(ds, prep, data_page=st.session_state["_pages"]["data"])
    for mech in scenario.mechanisms(vals):
        if mech in problems:
            st.error(f"**Cannot compute {md_escape(dc.get_mechanism(mech).display_name)} with these settings.** "
                     f"{md_escape(problems[mech])}", icon=":material/tune:")
        else:
            _mechanism_block(results[mech], random_level)

    if results:
        st.segmented_control("Detail", list(views.VIEWS), format_func=views.VIEWS.get, required=True,
                             **scenario.bind("view"))
        if not presenting:
            views.fragment(vals["view"], ds, prep, results, k, random_level)

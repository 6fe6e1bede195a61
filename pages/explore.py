"""Explore: one configuration, live: metric cards, guarantees, and one detailed view at a time."""

import streamlit as st

import dppca_core as dc
from dppca_core import metrics, risk
from dppca_core.pipeline import experiments

from ui import compute, controls, data, data_warnings, guarantee, report, scenario, session, show, views
from ui.errors import boundary, fix_it
from ui.shell import ensure_navigation
from ui.text import md_escape
from dppca_core.reading import number

ensure_navigation()

vals = scenario.values()
s = scenario.Settings(vals)
presenting = show.heading("Explore")  # in presenter mode the main figure comes first
if not presenting:
    st.caption(risk.context_sentence(s.epsilon).replace("epsilon", "ε", 1))
    with st.expander("Where do these ε come from?"):
        st.markdown(controls.reference_table_md())
        st.caption("The Privacy risk view below draws them on a ruler beside your ε.")
    st.caption(
        "The numbers below are **diagnostics computed with the raw data as reference** (the non-private PCA of the "
        "clipped data, and the planted support when known): they show what privacy costs and are not private "
        "releases. What each mechanism may publish is its released subspace with the guarantee shown."
    )


def _k_controls() -> None:
    """k: a number chosen in the sidebar (public), or chosen privately inside each release with a public target."""
    c = st.columns([3, 2])
    c[0].radio(
        "k comes from",
        list(scenario.K_SOURCES),
        format_func=scenario.K_SOURCES.get,
        horizontal=True,
        **scenario.bind("kfrom"),
        help="Privately: each release keeps the smallest k whose private explained-variance ratios (from its "
        "eigenvalue share) sum above the target: post-processing of a private output, so it costs no "
        "extra budget. Reading k off the exact scree would look at the data without noise.",
    )
    if scenario.private_k(vals):
        c[1].slider(
            "variance target",
            0.5,
            0.99,
            step=0.01,
            **scenario.bind("kvar"),
            help="Public: each release keeps the fewest components whose private shares of the variance "
            "sum above it.",
        )
        st.caption(
            md_escape(
                f"Each release keeps {scenario.k_rule_words(vals)}; the share is set in the sidebar's "
                "Budget split. The sidebar's 'components k' is not used (greyed out)."
            )
        )


def _k_problem() -> None:
    """With k chosen privately and no eigenvalue share: say so, offer the fix, and compute nothing."""
    problem = scenario.k_rule_problem(vals)
    if problem:
        controls.eigenvalue_share_fix(st.error, problem, ":material/tune:", "k_give_eig")
        st.stop()


def _card(col, label, values, fmt, help_text):
    stats = compute.summary(values)
    if stats is None:
        col.metric(label, "n/a", help=help_text + " Not available: no planted support and s = 0.")
        return
    mean, lo, hi = stats
    col.metric(
        label,
        fmt.format(mean),
        delta=f"95%: {fmt.format(lo)} – {fmt.format(hi)}",
        delta_color="off",
        delta_arrow="off",
        help=help_text,
    )


def _mechanism_block(res, random_level: float, k: int) -> None:
    spec = dc.get_mechanism(res.mechanism)
    with st.container(border=True):
        head = st.columns([3, 2])
        head[0].markdown(f"#### {md_escape(spec.display_name)}")
        with head[1]:
            controls.guarantee_badges(spec)
        _cards(res, random_level, k)
        noise = "no additive noise" if res.noise_scale is None else f"noise scale σ = {number(res.noise_scale)}"
        guarantee.release_card(res.mechanism, res.published, res.privacy)
        st.markdown(
            f"*{noise} (per entry of the perturbed statistic, rows scaled to norm ≤ 1) · {spec.model} model · "
            f"{spec.paper}*"
        )
        controls.provenance_note(spec)
        _chosen_privately(res)
        if spec.guarantee == "retracted":
            st.error(
                "This mechanism's privacy claim is false: its releases are **not** differentially private. "
                "Good utility here says nothing about privacy.",
                icon=":material/gpp_bad:",
            )
        for w in res.warnings:
            st.caption(f"⚠ Not private, for exploration: {md_escape(w)}")


def _cards(res, random_level: float, k: int) -> None:
    """The metric cards of one mechanism: subspace distance, captured energy, and support recovery when scored."""
    support = res.precision is not None
    c = st.columns([1.4, 1, 1, 1, 1] if support else [3, 2, 2])
    at = f" at k = {k}" if res.k is not None else ""  # k chosen privately: the random level at the usual choice
    _card(
        c[0],
        f"subspace distance (random{at}: {random_level:.2f})",
        res.distance,
        "{:.3f}",
        f"‖sin Θ‖_F to the non-private top-k subspace: 0 = identical, {random_level:.2f} = a random subspace "
        f"(no information){at}.",
    )
    _card(c[1], "captured energy", res.energy, "{:.1f}%", "tr(VᵀCV) as % of the best rank-k value.")
    if support:
        _card(c[2], "support precision", res.precision, "{:.2f}", "Share of the selected rows in the true support.")
        _card(c[3], "support recall", res.recall, "{:.2f}", "Share of the true support that is selected.")
        chance = views.random_f1(ds, prep, k)  # a random choice of as many features, on average
        f1_label = "support F1" + ("" if chance is None else f" (random: {chance:.2f})")
        _card(c[4], f1_label, res.f1, "{:.2f}", "Harmonic mean of precision and recall.")
    else:
        c[2].caption(
            "Support recovery: no planted support here (choose a sparse setting, or set s > 0 to score "
            "against the top-s rows of the exact components)."
        )
    _registered_cards(res)


#: the metrics the cards above draw with their own reference levels; any other registered metric gets a plain card
CARDED = ("subspace_distance", "energy", "f1")


def _registered_cards(res) -> None:
    """A card for every other metric of the registry (dppca_core.metrics) that scored these releases, as declared."""
    extra = [m for name, m in metrics.METRICS.items() if name not in CARDED and res.scores.get(name) is not None]
    for col, m in zip(st.columns(len(extra)) if extra else (), extra):
        _card(col, m.label, res.scores[m.name], m.fmt, m.describe() + ".")


def _chosen_privately(res) -> None:
    """What each release chose privately and published: its clipping radius, its k, its column scales."""
    if res.radius is not None:
        mean, lo, hi = experiments.summary(res.radius)
        st.markdown(
            f"Clipping radius chosen privately by each release (published): R = {number(res.radius[0])} in "
            f"the first, {number(mean)} on average, 95% of repetitions between {number(lo)} and {number(hi)}."
        )
        why = guarantee.radius_spread_words(lo, hi, res.published, ds.n, float(s.radius_quantile))
        if why:
            st.caption(why)
    if res.k is not None:
        whole = (
            f" A release that kept all {res.components[0].shape[0]} components spans the whole space: its "
            "diagnostics are perfect by construction."
            if int(res.k.max()) >= ds.d
            else ""
        )
        st.markdown(
            f"k chosen privately by each release (published): {experiments.describe_k(res.k)}. Each is "
            f"scored against the exact top-k of its own k.{whole}"
        )
    if res.scales is not None:
        with st.expander("Column scales chosen privately by each release (published)"):
            st.dataframe(report.scales_table({res.mechanism: res}, ds.columns), hide_index=True, width="stretch")
            st.caption(
                "Each release divided column j by its private root-mean-square (from its scale share and "
                "the public bounds); the Data page's scree and the reference use the exact ones (not "
                "private)."
            )


if not presenting:
    _k_controls()
with boundary("the dataset"):
    _k_problem()
    ds = data.load_dataset(vals)
    prep = compute.prepare(ds, vals)
    k = int(s.k)
    if not scenario.private_k(vals) and not 1 <= k < ds.d:
        raise ValueError(
            f"k = {k} components for d = {ds.d} features: choose k between 1 and {ds.d - 1}. With "
            "k = d every subspace is the whole space, so every method would look perfect."
        )
    results, problems = compute.run_selected(ds, prep, vals)
    k = views.shown_k(results, k)  # with k chosen privately: the most frequent choice
    random_level = metrics.random_subspace_distance(ds.d, k)
    if not scenario.mechanisms(vals):
        st.info("Pick at least one mechanism in the sidebar.")
    if results and presenting:  # the main figure right under the dial: one screen at 1280x720
        views.fragment(s.view, ds, prep, results, k, random_level)
    data_warnings.clipping_warning(prep)  # the headline numbers below compare with the clipped rows' PCA
    data_warnings.dominant_feature_warning(ds, prep, data_page=session.page("data"))
    for mech in scenario.mechanisms(vals):
        if mech in problems:
            st.error(fix_it(md_escape(dc.get_mechanism(mech).display_name), problems[mech]), icon=":material/tune:")
        else:
            _mechanism_block(results[mech], random_level, k)

    if results:
        st.segmented_control(
            "Detail", list(views.VIEWS), format_func=views.VIEWS.get, required=True, **scenario.bind("view")
        )
        if not presenting:
            views.fragment(s.view, ds, prep, results, k, random_level)

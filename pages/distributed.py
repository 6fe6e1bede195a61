"""Distributed: sites pooling data with capePCA vs conventional vs one site alone vs pooled; DPS-PCA convergence."""

import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics
from dppca_core.reading import number

from ui import data, scenario, show, views
from ui.text import md_escape
from ui import distributed as dist
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

scn = scenario.values()
s = scenario.Settings(scn)
show.heading(  # the bar names the page, and the main figure shares the first screen with it
    "Distributed data: hospitals pooling without pooling",
    "Each **site** (e.g. a hospital) holds its own rows. *Conventional*: every site adds its own full noise and "
    "an aggregator averages (noise ≈ √S × pooled). *Local*: one site works alone. **capePCA**: a trusted noise "
    "generator hands the sites correlated noise that cancels in the average, so the result reaches the pooled "
    "(centralised) Analyze Gauss accuracy while every message stays private.",
)

EPS_OPTIONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
with st.sidebar:
    st.slider("number of sites S", 2, 20, **scenario.bind("dsites"))
    st.toggle("unequal site sizes", **scenario.bind("duneven"))
    st.toggle(
        "sites = the label column",
        **scenario.bind("dbylabel"),
        help="For a dataset with a label column (e.g. an uploaded file with a hospital column): each label "
        "value is one site. Overrides the two controls above.",
    )
    st.select_slider("ε", options=scenario.with_current(EPS_OPTIONS, s.distributed_epsilon), **scenario.bind("deps"))
    st.slider("repetitions", 2, 30, **scenario.bind("dreps"))

with boundary("the distributed comparison"):
    ds = data.load_dataset(scn)
    prep = data.prepare(ds, scn)
    if prep.radius is not None:
        st.info(
            f"R is chosen privately for the central releases (Data page). The distributed mechanisms here have "
            f"no private radius step: each site clips its rows to the public largest R, {number(prep.data.data_norm)}.",
            icon=":material/info:",
        )
    if s.scaling == "private":
        st.info(data.NO_PRIVATE_SCALING, icon=":material/info:")
    k = int(s.k)
    truth = dist.truth(ds, prep, k)
    split = dist.sites(ds, prep.data.n, scn)
    frame = dist.comparison(prep, truth, split, scn)
    summary = dist.summary(frame)
    cols = st.columns(4)
    labels = {
        "analyze_gauss": "pooled (central)",
        "cape_pca": "capePCA",
        "dist_conventional": "conventional",
        "dist_local": "one site alone",
    }
    for col, mech in zip(cols, dist.COMPARED):
        col.metric(
            labels[mech],
            f"{summary.loc[mech, 'mean']:.3f}",
            delta=f"± {summary.loc[mech, 'sd']:.3f} s.d.",
            delta_arrow="off",
            delta_color="off",
            help="mean ‖sin Θ‖_F to the reference over repetitions (a diagnostic: not private)",
        )
    sizes = split.sizes
    st.caption(
        f"{prep.data.n} rows in {split.count} sites "
        f"({'sizes ' + ', '.join(map(str, sizes)) if not isinstance(sizes, int) else 'equal sizes'}); "
        f"k = {k}, ε = {number(s.distributed_epsilon)}, δ = {number(s.delta)}. Diagnostics computed with the raw data as "
        "reference."
    )
    spread = {m: frame.loc[frame.mechanism == m, "subspace distance"].to_numpy() for m in dist.COMPARED}
    c1, c2 = st.columns(2)
    show.cached_chart(figures.quantile_dotplot, (spread, "subspace distance"), container=c1, main=True)
    show.cached_chart(
        figures.communication_bar, ({m: int(summary.loc[m, "numbers"]) for m in dist.DIST},), container=c2, main=True
    )
    with st.expander("Trust assumptions and communication, in words", expanded=True):
        for mech in dist.DIST:
            spec = dc.get_mechanism(mech)
            st.markdown(
                f"**{spec.title}** — {int(summary.loc[mech, 'messages'])} messages, "
                f"{int(summary.loc[mech, 'numbers']):,} numbers. {spec.notes}"
            )

    st.subheader("DPS-PCA: convergence of the distributed noisy power method")
    dps, level = dist.dps_traces(prep, truth, split, scn), metrics.random_subspace_distance(prep.data.d, k)
    show.cached_chart(figures.convergence_traces, (dps, level))
    st.caption(
        "Error per iteration from a random start, one line per ε (read off the chart): "
        + md_escape(views.convergence_words(dps, level))
        + " The iterates are part of DPS-PCA's release."
    )

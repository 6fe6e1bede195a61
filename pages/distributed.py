"""Distributed: sites pooling data with capePCA vs conventional vs one site alone vs pooled; DPS-PCA convergence."""
import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics

from ui import data, scenario, show
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

DIST = ["cape_pca", "dist_conventional", "dist_local"]
st.title("Distributed data: hospitals pooling without pooling")
scn = scenario.values()

st.markdown(
    "Each **site** (e.g. a hospital) holds its own rows. *Conventional*: every site adds its own full noise and an "
    "aggregator averages (noise ≈ √S × pooled). *Local*: one site works alone. **capePCA**: a trusted noise "
    "generator hands the sites correlated noise that cancels in the average, so the result reaches the pooled "
    "(centralised) Analyze Gauss accuracy while every message stays private."
)

EPS_OPTIONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
with st.sidebar:
    st.slider("number of sites S", 2, 20, **scenario.bind("dsites"))
    st.toggle("unequal site sizes", **scenario.bind("duneven"))
    st.toggle("sites = the label column", **scenario.bind("dbylabel"),
              help="For a dataset with a label column (e.g. an uploaded file with a hospital column): each label "
                   "value is one site. Overrides the two controls above.")
    st.select_slider("ε", options=scenario.with_current(EPS_OPTIONS, scn["deps"]), **scenario.bind("deps"))
    st.slider("repetitions", 2, 30, **scenario.bind("dreps"))
sites, uneven, by_label, eps, reps = scn["dsites"], scn["duneven"], scn["dbylabel"], scn["deps"], scn["dreps"]


def site_sizes(n, S, uneven):
    if not uneven:
        return S
    weights = np.arange(1, S + 1, dtype=float)
    sizes = np.maximum(2, np.floor(n * weights / weights.sum())).astype(int)
    sizes[-1] += n - sizes.sum()
    return sizes.tolist()


@st.cache_data(max_entries=32, show_spinner=False)
def _compare(key, k, eps, delta, sites_key, reps, seed, _prep, _truth, _sites):
    sites = _sites
    rows = []
    for mech in ["analyze_gauss"] + DIST:
        for r in range(reps):
            params = {} if mech == "analyze_gauss" else {"sites": sites}
            rng = np.random.default_rng([seed, r, sum(map(ord, mech))])
            rel = dc.run(mech, _prep, k, eps, delta, data_norm=_prep.data_norm, seed=rng, **params)
            rows.append({"mechanism": mech, "rep": r, "subspace distance": metrics.subspace_distance(rel.components, _truth),
                         "numbers sent": rel.facts.get("communication", {}).get("numbers", 0),
                         "messages": rel.facts.get("communication", {}).get("messages", 0)})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=16, show_spinner=False)
def _dps_traces(key, k, delta, sites_key, seed, s_hat, _prep, _truth, _sites):
    """Distance to the truth per DPS-PCA iteration, one trace per epsilon (cached on every input)."""
    traces = {}
    for e in (0.5, 2.0, 10.0):
        rel = dc.run("dps_pca", _prep, k, e, delta, data_norm=_prep.data_norm, seed=seed, sites=_sites,
                     sparsity=s_hat, iterations=15)
        traces[f"ε = {e:g}"] = [metrics.subspace_distance(Q, _truth) for Q in rel.outputs["iterates"]]
    return traces


with boundary("the distributed comparison"):
    ds = data.load_dataset(scn)
    prep = data.prepare(ds, scn)
    if prep.radius is not None:
        st.info(f"R is chosen privately for the central releases (Data page). The distributed mechanisms here have "
                f"no private radius step: each site clips its rows to the public largest R, {prep.data.data_norm:g}.",
                icon=":material/info:")
    if scn.get("scale") == "private":
        st.info(data.NO_PRIVATE_SCALING, icon=":material/info:")
    k = int(scn["k"])
    truth = ds.truth[:, :k] if ds.truth is not None and ds.truth.shape[1] >= k else prep.reference[:, :k]
    if by_label:
        if ds.labels is None:
            raise ValueError("this dataset has no label column; load a labelled sample or choose a label column "
                             "when uploading, or switch 'sites = the label column' off.")
        site_arg = np.asarray(ds.labels)
        sizes = [int(c) for c in pd.Series(site_arg).value_counts(sort=False)]
        sites = len(sizes)
        sites_key = "labels:" + data.array_key(pd.factorize(site_arg)[0])
    else:
        site_arg = sizes = site_sizes(prep.data.n, sites, uneven)
        sites_key = repr(sizes)
    frame = _compare(prep.key, k, float(eps), float(scn["delta"]), sites_key, reps, int(scn["seed"]), prep.data,
                     truth, site_arg)
    summary = frame.groupby("mechanism", sort=False).agg(mean=("subspace distance", "mean"),
                                                        sd=("subspace distance", "std"),
                                                        numbers=("numbers sent", "first"),
                                                        messages=("messages", "first"))
    cols = st.columns(4)
    labels = {"analyze_gauss": "pooled (central)", "cape_pca": "capePCA", "dist_conventional": "conventional",
              "dist_local": "one site alone"}
    for col, mech in zip(cols, ["analyze_gauss"] + DIST):
        col.metric(labels[mech], f"{summary.loc[mech, 'mean']:.3f}", delta=f"± {summary.loc[mech, 'sd']:.3f} s.d.",
                   delta_arrow="off", delta_color="off",
                   help="mean ‖sin Θ‖_F to the reference over repetitions (a diagnostic: not private)")
    st.caption(f"{prep.data.n} rows in {sites} sites "
               f"({'sizes ' + ', '.join(map(str, sizes)) if not isinstance(sizes, int) else 'equal sizes'}); "
               f"k = {k}, ε = {eps:g}, δ = {scn['delta']:g}. Diagnostics computed with the raw data as reference.")
    bar = figures.quantile_dotplot({m: frame.loc[frame.mechanism == m, "subspace distance"].to_numpy()
                                   for m in ["analyze_gauss"] + DIST}, "subspace distance")
    c1, c2 = st.columns(2)
    show.chart(bar, container=c1)
    show.chart(figures.communication_bar({m: int(summary.loc[m, "numbers"]) for m in DIST}), container=c2)
    with st.expander("Trust assumptions and communication, in words", expanded=True):
        for mech in DIST:
            spec = dc.get_mechanism(mech)
            st.markdown(f"**{spec.title}** — {int(summary.loc[mech, 'messages'])} messages, "
                        f"{int(summary.loc[mech, 'numbers']):,} numbers. {spec.notes}")

    st.subheader("DPS-PCA: convergence of the distributed noisy power method")
    traces = _dps_traces(prep.key, k, float(scn["delta"]), sites_key, int(scn["seed"]), int(scn["s"]) or None,
                         prep.data, truth, site_arg)
    show.chart(figures.convergence_traces(traces, metrics.random_subspace_distance(prep.data.d, k)))
    st.caption("Error per iteration from a random start, one line per ε: geometric decrease to a floor set by the "
               "privacy noise (lower for larger ε). The iterates are part of DPS-PCA's release.")

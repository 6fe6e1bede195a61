"""The Distributed page's computation: the sites of the scenario, the comparison of pooled, capePCA, conventional and
one-site releases over repetitions, and DPS-PCA's convergence, each cached on the scenario's settings.

Seeds: repetition r of a mechanism draws from :func:`dppca_core.pipeline.experiments.rep_seed` (scenario seed, r, mechanism),
the scheme of every other repeated run in the app; DPS-PCA's traces use the scenario seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core import metrics
from dppca_core.pipeline.experiments import rep_seed

from . import data, limits
from dppca_core.reading import number
from dppca_core.scenario import Settings

#: the distributed mechanisms the page compares with the pooled (central) Analyze Gauss
DIST = ("cape_pca", "dist_conventional", "dist_local")
COMPARED = ("analyze_gauss",) + DIST
#: the epsilons of DPS-PCA's convergence traces
TRACE_EPSILONS = (0.5, 2.0, 10.0)


@dataclass(frozen=True)
class Sites:
    """How the scenario splits the rows into sites: ``arg`` the mechanisms' ``sites`` parameter (a count, sizes or
    one label per row), ``sizes`` a count (equal sites) or the list of sizes, ``count`` the number of sites and
    ``key`` what identifies the split in a cache key."""

    arg: object
    sizes: int | list
    count: int
    key: str


def site_sizes(n: int, S: int, uneven: bool) -> int | list[int]:
    """S equal sites, or S sites of sizes growing 1 : 2 : ... : S (each at least 2 rows)."""
    if not uneven:
        return S
    weights = np.arange(1, S + 1, dtype=float)
    sizes = np.maximum(2, np.floor(n * weights / weights.sum())).astype(int)
    sizes[-1] += n - sizes.sum()
    return sizes.tolist()


def sites(ds: data.Dataset, n: int, scn: dict) -> Sites:
    """The scenario's sites: the label column's values (``dbylabel``), or ``dsites`` sites, equal or not."""
    s = Settings(scn)
    if s.sites_by_label:
        if ds.labels is None:
            raise ValueError(
                "this dataset has no label column; load a labelled sample or choose a label column "
                "when uploading, or switch 'sites = the label column' off."
            )
        labels = np.asarray(ds.labels)
        sizes = [int(c) for c in pd.Series(labels).value_counts(sort=False)]
        return Sites(labels, sizes, len(sizes), "labels:" + data.array_key(pd.factorize(labels)[0]))
    sizes = site_sizes(n, s.sites, s.uneven_sites)
    return Sites(sizes, sizes, s.sites, repr(sizes))


@st.cache_data(max_entries=32, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _compare(key, k, eps, delta, sites_key, reps, seed, _prep, _truth, _sites) -> pd.DataFrame:
    rows = []
    for mech in COMPARED:
        params = {} if mech == "analyze_gauss" else {"sites": _sites}
        for r in range(reps):
            rel = dc.run(
                mech,
                _prep,
                k,
                eps,
                delta,
                data_norm=_prep.data_norm,
                seed=np.random.default_rng(rep_seed(seed, r, mech)),
                **params,
            )
            sent = rel.facts.get("communication", {})
            rows.append(
                {
                    "mechanism": mech,
                    "rep": r,
                    "subspace distance": metrics.subspace_distance(rel.components, _truth),
                    "numbers sent": sent.get("numbers", 0),
                    "messages": sent.get("messages", 0),
                }
            )
    return pd.DataFrame(rows)


def comparison(prep: data.Prepared, truth: np.ndarray, split: Sites, scn: dict) -> pd.DataFrame:
    """One row per mechanism of :data:`COMPARED` and repetition: the distance to ``truth`` and the communication
    (cached on the prepared data's key, the settings and the sites)."""
    s = Settings(scn)
    return _compare(
        prep.key,
        int(s.k),
        float(s.distributed_epsilon),
        float(s.delta),
        split.key,
        int(s.distributed_repetitions),
        int(s.seed),
        prep.data,
        truth,
        split.arg,
    )


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per mechanism: the mean and s.d. of the distance, the numbers sent and the messages."""
    return frame.groupby("mechanism", sort=False).agg(
        mean=("subspace distance", "mean"),
        sd=("subspace distance", "std"),
        numbers=("numbers sent", "first"),
        messages=("messages", "first"),
    )


@st.cache_data(max_entries=16, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _dps_traces(key, k, delta, sites_key, seed, s_hat, _prep, _truth, _sites) -> dict:
    traces = {}
    for e in TRACE_EPSILONS:
        rel = dc.run(
            "dps_pca",
            _prep,
            k,
            e,
            delta,
            data_norm=_prep.data_norm,
            seed=seed,
            sites=_sites,
            sparsity=s_hat,
            iterations=15,
        )
        traces[f"ε = {number(e)}"] = [metrics.subspace_distance(Q, _truth) for Q in rel.outputs["iterates"]]
    return traces


def dps_traces(prep: data.Prepared, truth: np.ndarray, split: Sites, scn: dict) -> dict:
    """Distance to ``truth`` per DPS-PCA iteration, one trace per epsilon of :data:`TRACE_EPSILONS` (cached)."""
    s = Settings(scn)
    return _dps_traces(
        prep.key,
        int(s.k),
        float(s.delta),
        split.key,
        int(s.seed),
        int(s.support_size) or None,
        prep.data,
        truth,
        split.arg,
    )


def truth(ds: data.Dataset, prep: data.Prepared, k: int) -> np.ndarray:
    """The reference subspace: the dataset's planted components when it has k of them, else the non-private one."""
    return ds.truth[:, :k] if ds.truth is not None and ds.truth.shape[1] >= k else prep.reference[:, :k]

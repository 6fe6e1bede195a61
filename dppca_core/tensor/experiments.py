"""The comparisons of the paper's Figures 3-4: q_comp of capeAGN, conventional, local, non-private and random
vectors against epsilon and against the per-site sample size, on synthetic models with known parameters.

One unit of work is one repetition at one sample size: a fresh data set from the model, its moments computed
once (cached on the :class:`~dppca_core.tensor.moments.TensorData`) and every mechanism run on it at every
epsilon asked for. Seeds are derived from (seed, repetition, sample size, mechanism, epsilon), so a point
does not depend on which other points are computed.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..api import run
from .metrics import q_comp, random_components, weight_error
from .moments import prepare_tensor_input
from .synthetic import LatentModel, make_model

COMPARED = ("otd_cape_agn", "otd_conventional", "otd_local", "otd_non_private")
DISTRIBUTED = ("otd_cape_agn", "otd_conventional", "otd_local")
RANDOM = "random vectors"
LABELS = {"otd_cape_agn": "capeAGN", "otd_conventional": "conventional", "otd_local": "local (one site)",
          "otd_non_private": "non-private (pooled)", "otd_agn": "AGN (pooled)", "otd_avn": "AVN (pooled)",
          RANDOM: "random vectors"}


def _tag(value: float) -> int:
    return int(round(float(value) * 1e6))


def mechanism_params(model: LatentModel, mechanism: str, sites: int, split: float) -> dict:
    """The parameters a comparison passes to ``mechanism``: the split, the model's public facts (sigma2 and the
    bound on the means, onto which the released means are projected) and, for the distributed ones, the sites."""
    params = {"split": split, **model.params}
    if mechanism in DISTRIBUTED:
        params["sites"] = sites
    return params


def sample_data(model: LatentModel, sites: int, n_per_site: int, rep: int, seed: int):
    """The data of one repetition: ``sites`` equal sites of ``n_per_site`` samples each, prepared."""
    rng = np.random.default_rng([seed, rep, n_per_site, 7])
    return prepare_tensor_input(model.sample(sites * n_per_site, rng), model.data_norm)


def repetition(model: LatentModel, sites: int, n_per_site: int, epsilons, delta: float, split: float, rep: int,
               seed: int, mechanisms=COMPARED) -> list[dict]:
    """Rows (mechanism, epsilon, n_per_site, rep, q_comp, weight_error) of one repetition at one sample size."""
    data = sample_data(model, sites, n_per_site, rep, seed)
    rows = []
    for eps in epsilons:
        for m, mech in enumerate(mechanisms):
            rng = np.random.default_rng([seed, rep, n_per_site, m, _tag(eps)])
            rel = run(mech, data, model.K, float(eps), delta, data_norm=model.data_norm, seed=rng,
                      **mechanism_params(model, mech, sites, split))
            rows.append({"mechanism": mech, "epsilon": float(eps), "n_per_site": n_per_site, "rep": rep,
                         "q_comp": q_comp(rel.components, model.components),
                         "weight_error": weight_error(rel.components, rel.outputs["weights"], model.components,
                                                      model.weights)})
        rng = np.random.default_rng([seed, rep, n_per_site, 99, _tag(eps)])
        guess = random_components(model.kind, model.D, model.K, rng)
        rows.append({"mechanism": RANDOM, "epsilon": float(eps), "n_per_site": n_per_site, "rep": rep,
                     "q_comp": q_comp(guess, model.components),
                     "weight_error": weight_error(guess, np.full(model.K, 1.0 / model.K), model.components,
                                                  model.weights)})
    return rows


def summarize(frame: pd.DataFrame, axis: str, metric: str = "q_comp") -> pd.DataFrame:
    """Mean and 2.5% / 97.5% quantiles over repetitions, per mechanism and value of ``axis``."""
    if frame.empty:
        raise ValueError("no results to summarise.")
    g = frame.groupby(["mechanism", axis], sort=False)[metric]
    out = g.agg(mean="mean", lo=lambda v: np.quantile(v, 0.025), hi=lambda v: np.quantile(v, 0.975),
                reps="size").reset_index()
    return out


def example(model: LatentModel, sites: int, n_per_site: int, epsilon: float, delta: float, split: float, seed: int,
            mechanisms=("otd_cape_agn", "otd_non_private")) -> dict:
    """Components recovered by each mechanism on one data set (repetition 0), for a side-by-side view."""
    data = sample_data(model, sites, n_per_site, 0, seed)
    out = {}
    for m, mech in enumerate(mechanisms):
        rel = run(mech, data, model.K, float(epsilon), delta, data_norm=model.data_norm,
                  seed=np.random.default_rng([seed, 0, n_per_site, m, _tag(epsilon)]),
                  **mechanism_params(model, mech, sites, split))
        out[mech] = {"components": rel.components, "weights": np.asarray(rel.outputs["weights"]),
                     "q_comp": q_comp(rel.components, model.components)}
    return out


def model_for(kind: str, D: int, K: int, model_seed: int = 0) -> LatentModel:
    """The synthetic model of the page and benchmarks (paper's sigma^2 = 0.05 for the mixture)."""
    return make_model(kind, D, K, seed=model_seed)

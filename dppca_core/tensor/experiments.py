"""The comparisons of the paper's Figures 3-4: q_comp of capeAGN, conventional, local, non-private and random
vectors against epsilon and against the per-site sample size, on synthetic models with known parameters.

One unit of work is one repetition at one sample size: a fresh data set from the model, its moments computed
once (cached on the :class:`~dppca_core.tensor.moments.TensorData`) and every mechanism run on it at every
epsilon asked for. Seeds are derived from (seed, repetition, sample size, mechanism, epsilon), so a point
does not depend on which other points are computed.

The Tensor page's two sweeps are :func:`sweep_units`; the rows of its default settings (:data:`PAGE_DEFAULTS`)
are shipped precomputed, so that a fresh server's first visit reads them instead of computing them::

    python -m dppca_core.tensor.experiments --ship docs/reproduce/tensor_default.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..api import run
from .metrics import q_comp, random_components, weight_error
from .moments import prepare_tensor_input
from .synthetic import LatentModel, make_model

COMPARED = ("otd_cape_agn", "otd_conventional", "otd_local", "otd_non_private")
DISTRIBUTED = ("otd_cape_agn", "otd_conventional", "otd_local")
RANDOM = "random vectors"
LABELS = {
    "otd_cape_agn": "capeAGN",
    "otd_conventional": "conventional",
    "otd_local": "local (one site)",
    "otd_non_private": "non-private (pooled)",
    "otd_agn": "AGN (pooled)",
    "otd_avn": "AVN (pooled)",
    RANDOM: "random vectors",
}


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


def repetition(
    model: LatentModel,
    sites: int,
    n_per_site: int,
    epsilons,
    delta: float,
    split: float,
    rep: int,
    seed: int,
    mechanisms=COMPARED,
) -> list[dict]:
    """Rows (mechanism, epsilon, n_per_site, rep, q_comp, weight_error) of one repetition at one sample size."""
    data = sample_data(model, sites, n_per_site, rep, seed)
    rows = []
    for eps in epsilons:
        for m, mech in enumerate(mechanisms):
            rng = np.random.default_rng([seed, rep, n_per_site, m, _tag(eps)])
            rel = run(
                mech,
                data,
                model.K,
                float(eps),
                delta,
                data_norm=model.data_norm,
                seed=rng,
                **mechanism_params(model, mech, sites, split),
            )
            rows.append(
                {
                    "mechanism": mech,
                    "epsilon": float(eps),
                    "n_per_site": n_per_site,
                    "rep": rep,
                    "q_comp": q_comp(rel.components, model.components),
                    "weight_error": weight_error(
                        rel.components, rel.outputs["weights"], model.components, model.weights
                    ),
                }
            )
        rng = np.random.default_rng([seed, rep, n_per_site, 99, _tag(eps)])
        guess = random_components(model.kind, model.D, model.K, rng)
        rows.append(
            {
                "mechanism": RANDOM,
                "epsilon": float(eps),
                "n_per_site": n_per_site,
                "rep": rep,
                "q_comp": q_comp(guess, model.components),
                "weight_error": weight_error(guess, np.full(model.K, 1.0 / model.K), model.components, model.weights),
            }
        )
    return rows


def summarize(frame: pd.DataFrame, axis: str, metric: str = "q_comp") -> pd.DataFrame:
    """Mean and 2.5% / 97.5% quantiles over repetitions, per mechanism and value of ``axis``."""
    if frame.empty:
        raise ValueError("no results to summarise.")
    g = frame.groupby(["mechanism", axis], sort=False)[metric]
    out = g.agg(
        mean="mean", lo=lambda v: np.quantile(v, 0.025), hi=lambda v: np.quantile(v, 0.975), reps="size"
    ).reset_index()
    return out


def example(
    model: LatentModel,
    sites: int,
    n_per_site: int,
    epsilon: float,
    delta: float,
    split: float,
    seed: int,
    mechanisms=("otd_cape_agn", "otd_non_private"),
) -> dict:
    """Components recovered by each mechanism on one data set (repetition 0), for a side-by-side view."""
    data = sample_data(model, sites, n_per_site, 0, seed)
    out = {}
    for m, mech in enumerate(mechanisms):
        rel = run(
            mech,
            data,
            model.K,
            float(epsilon),
            delta,
            data_norm=model.data_norm,
            seed=np.random.default_rng([seed, 0, n_per_site, m, _tag(epsilon)]),
            **mechanism_params(model, mech, sites, split),
        )
        out[mech] = {
            "components": rel.components,
            "weights": np.asarray(rel.outputs["weights"]),
            "q_comp": q_comp(rel.components, model.components),
        }
    return out


def model_for(kind: str, D: int, K: int, model_seed: int = 0) -> LatentModel:
    """The synthetic model of the page and benchmarks (paper's sigma^2 = 0.05 for the mixture)."""
    return make_model(kind, D, K, seed=model_seed)


#: the epsilon sweep and the sample-size factors of the Tensor page
EPS_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
N_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: the Tensor page's default settings (its t* scenario fields; tests/app/test_tensor_page.py keeps them equal)
PAGE_DEFAULTS = dict(
    kind="mog", D=10, K=5, sites=5, n_per_site=1000, epsilon=1.0, delta=0.01, split=0.5, reps=5, seed=0
)


def sweep_units(n_per_site: int, epsilon: float, reps: int) -> list[tuple[str, int, tuple, int]]:
    """The units (axis, samples per site, epsilons, repetition) of the page's sweeps: against epsilon at
    ``n_per_site`` (the grid plus ``epsilon``), and against the samples per site at ``epsilon``. The second
    sweep's point at ``n_per_site`` is the first sweep's unit (the same data and seeds give the same rows), so
    it is not computed twice: read it with :func:`at_epsilon`."""
    eps_values = tuple(sorted(set(EPS_GRID) | {float(epsilon)}))
    n_values = sorted({max(50, int(round(f * n_per_site))) for f in N_FACTORS})
    units = [("eps", int(n_per_site), eps_values, r) for r in range(reps)]
    return units + [("n", n, (float(epsilon),), r) for n in n_values if n != n_per_site for r in range(reps)]


def at_epsilon(rows: list[dict], epsilon: float) -> list[dict]:
    """The rows of one epsilon (the sample-size sweep's point taken from the epsilon sweep)."""
    return [r for r in rows if r["epsilon"] == float(epsilon)]


def unit_key(kind, D, K, sites, n_per_site, epsilons, delta, split, rep, seed) -> str:
    """The JSON key of one unit's arguments (as :func:`repetition` takes them, the model as kind, D, K)."""
    return json.dumps(
        [
            str(kind),
            int(D),
            int(K),
            int(sites),
            int(n_per_site),
            [float(e) for e in epsilons],
            float(delta),
            float(split),
            int(rep),
            int(seed),
        ]
    )


def ship(path, settings: dict | None = None) -> Path:
    """Compute every unit of the page's sweeps at ``settings`` (default :data:`PAGE_DEFAULTS`) and write their
    rows to ``path`` (JSON), for :func:`load_shipped`."""
    cfg = dict(PAGE_DEFAULTS, **(settings or {}))
    model = model_for(cfg["kind"], cfg["D"], cfg["K"])
    units = {}
    for _, n, epsilons, rep in sweep_units(cfg["n_per_site"], cfg["epsilon"], cfg["reps"]):
        key = unit_key(
            cfg["kind"], cfg["D"], cfg["K"], cfg["sites"], n, epsilons, cfg["delta"], cfg["split"], rep, cfg["seed"]
        )
        units[key] = repetition(model, cfg["sites"], n, epsilons, cfg["delta"], cfg["split"], rep, cfg["seed"])
    path = Path(path)
    path.write_text(json.dumps({"settings": cfg, "units": units}, indent=0) + "\n", encoding="utf-8")
    return path


def load_shipped(path) -> dict[str, list[dict]]:
    """The units :func:`ship` wrote, by :func:`unit_key` ({} when the file is missing or unreadable)."""
    try:
        return dict(json.loads(Path(path).read_text(encoding="utf-8"))["units"])
    except (OSError, KeyError, ValueError):
        return {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dppca_core.tensor.experiments", description="Precompute the Tensor page's default sweeps."
    )
    parser.add_argument("--ship", required=True, help="JSON file to write (docs/reproduce/tensor_default.json)")
    args = parser.parse_args(argv)
    print(f"wrote {ship(args.ship)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

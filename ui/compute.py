"""Repeated runs of a mechanism and their diagnostics, cached on (data hash, parameters, seed).

The cache key contains the sha256 of the data (``Prepared.key``), every parameter and the seed, so
a cached result is only reused for exactly the same draw; a new seed gives fresh noise.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import streamlit as st

import dppca_core as dc
from dppca_core import experiments, metrics

from .data import Prepared

METRICS = {
    "subspace_distance": "Subspace distance ‖sin Θ‖_F (lower is better)",
    "energy": "Captured energy, % of optimal (higher is better)",
    "f1": "Support recovery F1 (higher is better)",
}


@dataclass
class RunResult:
    """``reps`` independent releases of one mechanism and their diagnostics (one value per repetition).

    ``published`` is what the first repetition publishes (:meth:`dppca_core.Release.published`): exports and the
    guarantee wording come from it. ``warnings`` are non-private diagnostics (e.g. how many rows were clipped).
    """

    mechanism: str
    components: np.ndarray        # reps x d x k
    distance: np.ndarray          # reps
    energy: np.ndarray            # reps, percent of the optimal rank-k energy
    precision: np.ndarray | None
    recall: np.ndarray | None
    f1: np.ndarray | None
    published: dict
    privacy: dc.privacy.PrivacyCurve
    caveat: str
    warnings: list
    seconds: float                # of the first repetition (a non-private diagnostic)
    trace: list | None = None     # distance to the reference per iteration (first repetition), if iterative

    @property
    def guarantee(self) -> str:
        return self.published["guarantee"]

    @property
    def guarantee_text(self) -> str:
        return self.published["guarantee_text"]

    @property
    def noise_scale(self) -> float | None:
        return self.published["noise_scale"]

    def metric(self, name: str) -> np.ndarray:
        return {"subspace_distance": self.distance, "energy": self.energy, "f1": self.f1}[name]


def true_support(prep: Prepared, planted, s: int, k: int):
    """Support used for recovery: the planted one if known, else the top-s rows of the non-private basis."""
    return experiments.support_for(prep.ref, planted, s, k)


def run_reps(prep: Prepared, mechanism: str, *, k: int, epsilon: float, delta: float, neighbors: str,
             reps: int, seed: int, params: dict, s: int = 0, planted_support=None, budget=None) -> RunResult:
    """Cached ``reps`` runs of ``mechanism`` on the prepared data (shared by every session with the same inputs).

    ``budget`` (a BudgetSplit) makes each run a complete release (private mean when the data are centred
    privately, spectrum, scores) with the subspace on its share.
    """
    support = true_support(prep, planted_support, s, k)
    support_key = None if support is None else tuple(int(i) for i in support)
    budget_key = None if budget is None else json.dumps(budget.as_dict(), sort_keys=True)
    return _run_reps(prep.key, mechanism, int(k), float(epsilon), float(delta), neighbors, int(reps), int(seed),
                     json.dumps(params, sort_keys=True, default=str), int(s), support_key, budget_key, _prep=prep)


def run_selected(ds, prep: Prepared, vals: dict, reps_field: str = "reps") -> tuple[dict, dict]:
    """Repetitions of every selected mechanism at the scenario's settings.

    Returns ({mechanism: RunResult}, {mechanism: message}) — a mechanism whose settings do not work (e.g. a
    relation it has no proof for) gets a message and the others still run.
    """
    from .scenario import budget, mech_params, mechanisms

    split = budget(vals)
    results, problems = {}, {}
    for mech in mechanisms(vals):
        try:
            results[mech] = run_reps(prep, mech, k=int(vals["k"]), epsilon=vals["eps"], delta=vals["delta"],
                                     neighbors=vals["nb"], reps=int(vals[reps_field]), seed=int(vals["seed"]),
                                     params=mech_params(mech, vals), s=int(vals["s"]), planted_support=ds.support,
                                     budget=split)
        except ValueError as exc:
            problems[mech] = str(exc)
    return results, problems


@st.cache_data(max_entries=256, show_spinner=False)
def _run_reps(key, mechanism, k, epsilon, delta, neighbors, reps, seed, params_json, s, support, budget_json, _prep):
    """Cached on every input (the data's hash and centring/radius in ``key``), shared by every session."""
    from dppca_core.budget import BudgetSplit

    budget = None if budget_json is None else BudgetSplit(**json.loads(budget_json))
    center = "private" if _prep.center == "private" else "none"
    reps_out = experiments.repeat(mechanism, _prep.data, k, epsilon, delta, neighbors, reps, seed,
                                  json.loads(params_json), _prep.ref, None if support is None else np.asarray(support),
                                  s, budget, center)
    release = reps_out.first
    # iterates: published where the proof covers them (noisy power methods), else a non-private diagnostic
    iterates = release.outputs.get("iterates") or release.diagnostics.get("iterates")
    ref = _prep.reference[:, :k]
    trace = [metrics.subspace_distance(Q[:, :k], ref) for Q in iterates] if iterates else None
    return RunResult(
        mechanism=mechanism, components=reps_out.components, distance=reps_out.distance, energy=reps_out.energy,
        precision=reps_out.precision, recall=reps_out.recall, f1=reps_out.f1, published=release.published(),
        privacy=release.privacy, caveat=release.caveat, warnings=list(release.diagnostics.get("warnings", [])),
        seconds=float(release.diagnostics.get("seconds", 0.0)), trace=trace,
    )


summary = experiments.summary


SWEEPS = {
    "eps": ("ε", [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0], True),
    "n": ("rows n", [250, 500, 1000, 2000, 5000, 10000], True),
    "d": ("features d", [5, 10, 20, 40, 80], True),
    "delta": ("δ", [1e-10, 1e-8, 1e-6, 1e-4, 1e-2], True),
    "k": ("components k", [1, 2, 3, 4, 5, 6], False),
    "s": ("support size s", [2, 5, 10, 20, 40], True),
}
SYNTHETIC_ONLY = ("n", "d")


def point_settings(scn: dict, axis: str, value) -> tuple[dict, dict]:
    """(scenario fields, extra mechanism parameters) for one point of a sweep along ``axis``."""
    fields = dict(scn)
    extra = {}
    if axis == "s":
        fields["s"] = int(value)
        extra["sparsity"] = int(value)  # passed only to mechanisms that declare a 'sparsity' parameter
    else:
        fields[axis] = type(scn[axis])(value)
    return fields, extra


def sweep_rows(res: RunResult, metric: str, axis: str, value) -> list[dict]:
    vals = res.metric(metric)
    if vals is None:
        return []
    mean, lo, hi = summary(vals)
    return [{"mechanism": res.mechanism, axis: value, "mean": mean, "lo": lo, "hi": hi, "reps": len(vals),
             "values": [float(v) for v in vals]}]


def meets(values, metric: str, target: float) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return values <= target if metric == "subspace_distance" else values >= target


def smallest_passing(frame, axis: str, metric: str, target: float, share: float = 0.95) -> dict:
    """Per mechanism, the smallest swept value whose repetitions meet ``target`` in at least ``share`` of cases."""
    out = {}
    for mech, g in frame.groupby("mechanism", sort=False):
        g = g.sort_values(axis)
        ok = [row[axis] for _, row in g.iterrows() if np.mean(meets(row["values"], metric, target)) >= share]
        out[mech] = ok[0] if ok else None
    return out

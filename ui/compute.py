"""Repeated runs of a mechanism and their diagnostics, cached on (data hash, parameters, seed).

The cache key contains the sha256 of the data (``Prepared.key``), every parameter and the seed, so
a cached result is only reused for exactly the same draw; a new seed gives fresh noise.
"""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

import dppca_core as dc
from dppca_core import metrics

from .data import Prepared

METRICS = {
    "subspace_distance": "Subspace distance ‖sin Θ‖_F (lower is better)",
    "energy": "Captured energy, % of optimal (higher is better)",
    "f1": "Support recovery F1 (higher is better)",
}


@dataclass
class RunResult:
    """``reps`` independent releases of one mechanism and their diagnostics (one value per repetition)."""

    mechanism: str
    components: np.ndarray        # reps x d x k
    distance: np.ndarray          # reps
    energy: np.ndarray            # reps, percent of the optimal rank-k energy
    precision: np.ndarray | None
    recall: np.ndarray | None
    f1: np.ndarray | None
    noise_scale: float | None
    guarantee: str
    guarantee_text: str
    caveat: str
    warnings: list
    seconds: float
    trace: list | None = None     # distance to the reference per iteration (first repetition), if iterative

    def metric(self, name: str) -> np.ndarray:
        return {"subspace_distance": self.distance, "energy": self.energy, "f1": self.f1}[name]


def rep_seed(seed: int, rep: int, mechanism: str) -> np.random.SeedSequence:
    """Independent, reproducible noise for each (seed, repetition, mechanism)."""
    return np.random.SeedSequence([int(seed), int(rep), zlib.crc32(mechanism.encode())])


def true_support(prep: Prepared, planted, s: int, k: int):
    """Support used for recovery: the planted one if known, else the top-s rows of the non-private basis."""
    if planted is not None:
        return np.asarray(planted)
    if s <= 0:
        return None
    return metrics.row_support(prep.reference[:, :k], s)


def run_reps(prep: Prepared, mechanism: str, *, k: int, epsilon: float, delta: float, neighbors: str,
             reps: int, seed: int, params: dict, s: int = 0, planted_support=None) -> RunResult:
    """Cached ``reps`` runs of ``mechanism`` on the prepared data."""
    support = true_support(prep, planted_support, s, k)
    support_key = None if support is None else tuple(int(i) for i in support)
    return _run_reps(prep.key, mechanism, int(k), float(epsilon), float(delta), neighbors, int(reps), int(seed),
                     json.dumps(params, sort_keys=True, default=str), int(s), support_key, _prep=prep)


@st.cache_data(max_entries=256, show_spinner=False)
def _run_reps(key, mechanism, k, epsilon, delta, neighbors, reps, seed, params_json, s, support, _prep):
    params = json.loads(params_json)
    if not 1 <= reps <= 1000:
        raise ValueError(f"repetitions must be between 1 and 1000 (got {reps}).")
    gram, ref = _prep.data.gram, _prep.reference[:, :k]
    best = float(np.sum(_prep.eigenvalues[:k]))
    comps, dist, energy, prec, rec, f1 = [], [], [], [], [], []
    release, trace = None, None
    seconds = 0.0
    for rep in range(reps):
        rng = np.random.default_rng(rep_seed(seed, rep, mechanism))
        release = dc.run(mechanism, _prep.data, k, epsilon, delta, neighbors, _prep.data.data_norm, rng, **params)
        V = release.components
        # iterates: published where the proof covers them (noisy power methods), else a non-private diagnostic
        iterates = release.outputs.get("iterates") or release.diagnostics.get("iterates")
        if rep == 0 and iterates:
            trace = [metrics.subspace_distance(Q[:, :k], ref) for Q in iterates]
        seconds += release.diagnostics.get("seconds", 0.0)
        comps.append(V)
        dist.append(metrics.subspace_distance(V, ref))
        energy.append(100.0 * metrics.captured_energy(V, gram) / best if best > 0 else np.nan)
        if support is not None:
            sr = metrics.support_recovery(V, np.asarray(support), s if s > 0 else len(support))
            prec.append(sr["precision"]), rec.append(sr["recall"]), f1.append(sr["f1"])
    spec = dc.get_mechanism(mechanism)
    arr = (lambda x: np.asarray(x) if support is not None else None)
    return RunResult(
        mechanism=mechanism, components=np.asarray(comps), distance=np.asarray(dist), energy=np.asarray(energy),
        precision=arr(prec), recall=arr(rec), f1=arr(f1),
        noise_scale=release.noise_scale, guarantee=release.guarantee, guarantee_text=release.guarantee_text(),
        caveat=spec.caveat, warnings=list(release.diagnostics.get("warnings", [])), seconds=seconds, trace=trace,
    )


def summary(values: np.ndarray | None) -> tuple[float, float, float] | None:
    """Mean and the 2.5% / 97.5% quantiles over repetitions."""
    if values is None or len(values) == 0:
        return None
    v = np.asarray(values, dtype=float)
    return float(np.mean(v)), float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))


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

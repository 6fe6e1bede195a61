"""Repeated releases of mechanisms and their utility diagnostics: what the dashboard and its exported script show.

The diagnostics compare each release with the non-private top-k subspace of the same clipped data (and with a
planted support when one is known). They use the raw data: they are **not private**; they show what privacy
costs. The releases themselves are what :meth:`dppca_core.Release.published` gives.

The dashboard and the script it exports both call :func:`compare`, so a script prints exactly the table the
Report page shows.
"""
from __future__ import annotations

import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import metrics
from .api import run
from .budget import BudgetSplit, release_pca
from .prepare import PreparedData
from .registry import get_mechanism


@dataclass(frozen=True)
class Reference:
    """The non-private answer: all eigenvectors of a Gram matrix (descending), and the matrix itself (captured
    energy is measured against it)."""

    vectors: np.ndarray
    eigenvalues: np.ndarray
    gram: np.ndarray

    @classmethod
    def from_gram(cls, gram: np.ndarray) -> "Reference":
        values, vectors = np.linalg.eigh(gram)
        order = np.argsort(values)[::-1]
        return cls(vectors[:, order], values[order], gram)

    @classmethod
    def of(cls, data: PreparedData, centred: bool = False) -> "Reference":
        """Of the prepared (clipped, scaled) rows; ``centred``: of the rows centred with their own mean (the target
        a privately centred release aims at)."""
        if not centred:
            return cls.from_gram(data.gram)
        rows = data.rows
        c = rows - rows.mean(axis=0)
        return cls.from_gram(c.T @ c)


@dataclass
class Repetitions:
    """``reps`` independent releases of one mechanism and one diagnostic value per repetition."""

    mechanism: str
    components: np.ndarray             # reps x d x k
    distance: np.ndarray               # ||sin Theta||_F to the non-private top-k subspace
    energy: np.ndarray                 # tr(V^T C V) as % of the best rank-k value
    precision: np.ndarray | None       # support recovery, when a support is given
    recall: np.ndarray | None
    f1: np.ndarray | None
    first: object = field(repr=False)  # the first repetition's Release

    def metric(self, name: str) -> np.ndarray | None:
        return {"subspace_distance": self.distance, "energy": self.energy, "f1": self.f1}[name]


def rep_seed(seed: int, rep: int, mechanism: str) -> np.random.SeedSequence:
    """Independent, reproducible noise for each (seed, repetition, mechanism)."""
    return np.random.SeedSequence([int(seed), int(rep), zlib.crc32(mechanism.encode())])


#: A repetition shorter than this (wall seconds) gains nothing from a second thread (measured in
#: ``docs/benchmarks.md``: thread start-up and contention eat the gain).
THREADED_MIN_SECONDS = 0.02


def repeat(mechanism: str, data: PreparedData, k: int, epsilon: float, delta: float, neighbors: str, reps: int,
           seed: int, params: dict | None = None, reference: Reference | None = None, support=None,
           s: int = 0, budget: BudgetSplit | None = None, center: str = "none",
           workers: int | None = None) -> Repetitions:
    """Run ``mechanism`` ``reps`` times with seeds :func:`rep_seed` and score each release.

    With a ``budget`` or ``center="private"`` each repetition is a complete release (:func:`release_pca`): the
    subspace gets its share of (epsilon, delta) and the scores compare it with the centred reference.

    ``workers``: threads the repetitions run on. Default: two (at most the cores) for mechanisms registered with
    ``threaded_reps`` (their time goes to loops that release the GIL) when the first repetition took at least
    :data:`THREADED_MIN_SECONDS`, else one (BLAS already uses every core; short runs gain nothing). Each
    repetition has its own seed, so the results do not depend on the number of threads.
    """
    if not 1 <= int(reps) <= 1000:
        raise ValueError(f"repetitions must be between 1 and 1000 (got {reps}).")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1 (got {workers!r}).")
    full = budget is not None or center == "private"
    reference = reference or Reference.of(data, centred=center == "private")
    ref = reference.vectors[:, :k]
    best = float(np.sum(reference.eigenvalues[:k]))

    def release_of(rep: int):
        rng = np.random.default_rng(rep_seed(seed, rep, mechanism))
        if full:
            return release_pca(mechanism, data, k, epsilon, delta, neighbors, data.data_norm, rng, budget=budget,
                               center=center, **(params or {}))
        return run(mechanism, data, k, epsilon, delta, neighbors, data.data_norm, rng, **(params or {}))

    comps, dist, energy, prec, rec, f1 = [], [], [], [], [], []

    def score(release) -> None:
        V = release.components
        comps.append(V)
        dist.append(metrics.subspace_distance(V, ref))
        energy.append(100.0 * metrics.captured_energy(V, reference.gram) / best if best > 0 else np.nan)
        if support is not None:
            sr = metrics.support_recovery(V, np.asarray(support), s if s > 0 else len(support))
            prec.append(sr["precision"]), rec.append(sr["recall"]), f1.append(sr["f1"])

    started = time.perf_counter()
    first = release_of(0)  # alone first: a refused setting raises before any thread starts
    if workers is None:
        long_enough = time.perf_counter() - started >= THREADED_MIN_SECONDS
        workers = min(2, os.cpu_count() or 1) if get_mechanism(mechanism).threaded_reps and long_enough else 1
    score(first)
    if workers > 1 and reps > 1:
        with ThreadPoolExecutor(min(int(workers), int(reps) - 1)) as pool:
            for release in pool.map(release_of, range(1, int(reps))):  # in order of repetition
                score(release)
    else:
        for rep in range(1, int(reps)):
            score(release_of(rep))
    arr = (lambda x: np.asarray(x) if support is not None else None)
    return Repetitions(mechanism, np.asarray(comps), np.asarray(dist), np.asarray(energy), arr(prec), arr(rec),
                       arr(f1), first)


def support_for(reference: Reference, planted, s: int, k: int):
    """The support recovery is scored against: the planted one if known, else the top-s rows of the non-private
    top-k basis (None when there is neither)."""
    if planted is not None:
        return np.asarray(planted)
    if s <= 0:
        return None
    return metrics.row_support(reference.vectors[:, :k], s)


def summary(values) -> tuple[float, float, float] | None:
    """Mean and the 2.5% / 97.5% quantiles over repetitions (None when there are no values)."""
    if values is None or len(values) == 0:
        return None
    v = np.asarray(values, dtype=float)
    return float(np.mean(v)), float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))


def results_table(results: dict) -> pd.DataFrame:
    """One row per mechanism: guarantee, noise scale and mean [95% band] of each diagnostic (as text)."""
    rows = []
    for mech, res in results.items():
        pub = res.published if hasattr(res, "published") else res.first.published()
        row = {"mechanism": mech, "guarantee": pub["guarantee"],
               "noise scale": "none" if pub["noise_scale"] is None else f"{pub['noise_scale']:.4g}"}
        for label, values, fmt in (("subspace distance", res.distance, "{:.3f}"),
                                   ("captured energy %", res.energy, "{:.1f}"), ("support F1", res.f1, "{:.2f}")):
            s = summary(values)
            row[label] = "n/a" if s is None else f"{fmt.format(s[0])} [{fmt.format(s[1])}, {fmt.format(s[2])}]"
        rows.append(row)
    return pd.DataFrame(rows)


def compare(data: PreparedData, mechanisms: list, k: int, epsilon: float, delta: float, neighbors: str,
            reps: int, seed: int, params: dict | None = None, support=None, s: int = 0,
            budget: BudgetSplit | None = None, center: str = "none") -> tuple[pd.DataFrame, dict]:
    """Repetitions of several mechanisms on the same data: (the results table, {mechanism: Repetitions}).

    ``params`` maps a mechanism to its parameters; ``support`` is a planted support (else, with ``s`` > 0, the
    top-s rows of the non-private basis are used, as the dashboard does).

    A mechanism whose settings are refused (ValueError) is reported in the table's guarantee column instead
    of stopping the others.
    """
    reference = Reference.of(data, centred=center == "private")
    support = support_for(reference, support, s, k)
    results, refused = {}, []
    for mech in mechanisms:
        try:
            results[mech] = repeat(mech, data, k, epsilon, delta, neighbors, reps, seed,
                                   (params or {}).get(mech, {}), reference, support, s, budget, center)
        except ValueError as exc:
            refused.append({"mechanism": mech, "guarantee": f"not run: {exc}"})
    table = pd.concat([results_table(results), pd.DataFrame(refused)], ignore_index=True) if refused else \
        results_table(results)
    return table, results

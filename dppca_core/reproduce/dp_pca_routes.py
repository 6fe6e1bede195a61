"""Which of DP-PCA's algorithms (Liu et al., NeurIPS 2022) a release ran, and from how many rows its schedule runs
Algorithms 4-5 rather than the fallback: functions of public n, d and epsilon only, for the reproductions."""

from __future__ import annotations

import functools

import numpy as np

from ..mechanisms.dp_pca_steps import ROUTE_TRUNCATED, dp_pca_schedule, min_batch_size

#: what produced a point (the algorithm column): Private Oja, and DP-PCA's three routes (outputs["mean_routes"])
ALG_OJA = "Private Oja (Algorithm 2), noise by parallel composition, no shuffling"
ALG_FALLBACK = "fallback, not Algorithms 4–5: a noisy minibatch gradient over the public range (batch too small)"
ALG_TRUNCATING = "Algorithms 3–5, Algorithm 5 truncating"
ALG_PUBLIC = "Algorithms 3–5, Algorithm 5 over the public range (r ≥ ½)"
#: Theorem 5.1 is stated for epsilon in (0, 0.9)
THEOREM_EPS = 0.9


def dp_pca_algorithm(release) -> str:
    """Which algorithm produced a DP-PCA release: the fallback (public n, d, epsilon, delta decide it), or
    Algorithms 3-5 with Algorithm 5 truncating in at least one batch, or over the public range in all."""
    if not release.facts["private_range"]:
        return ALG_FALLBACK
    return ALG_TRUNCATING if ROUTE_TRUNCATED in release.outputs["mean_routes"] else ALG_PUBLIC


@functools.lru_cache(maxsize=64)
def rows_needed(d: int, eps: float, split: bool = False) -> int | None:
    """The smallest n (to 1%) from which on DP-PCA's schedule (delta = 1/n^2) runs Algorithms 4-5 instead of the
    fallback: a function of public d and epsilon only (None beyond 10^8 rows)."""
    ns = np.unique(np.round(np.geomspace(1e3, 1e8, 1200)).astype(int))
    ok = np.array([dp_pca_schedule(int(n), d, eps, 1.0 / float(n) ** 2, split_budget=split)[2] for n in ns])
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(ns[bad[-1] + 1]) if bad.size else int(ns[0])


def batch_needed(n: int, d: int, eps: float, split: bool = False) -> tuple[int, int]:
    """(the schedule's batch B at n rows, the smallest batch Algorithms 4-5 can release from)."""
    B, T, _ = dp_pca_schedule(n, d, eps, 1.0 / n**2, split_budget=split)
    return B, min_batch_size(d, eps, 1.0 / n**2, 0.01 / (2 * T), split)


def theorem_side(eps: float) -> str:
    return "inside Theorem 5.1 (ε < 0.9)" if eps < THEOREM_EPS else "outside Theorem 5.1 (ε < 0.9)"

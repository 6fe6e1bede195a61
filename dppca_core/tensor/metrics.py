"""Accuracy of a recovered decomposition: q_comp, weight error, the random-vectors baseline.

These compare a release with the true model parameters, so they are diagnostics for synthetic data (or for
the analyst's own checks), not something to publish about real data.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def _pairwise(recovered: np.ndarray, truth: np.ndarray) -> np.ndarray:
    recovered, truth = np.asarray(recovered, dtype=float), np.asarray(truth, dtype=float)
    if recovered.ndim != 2 or truth.ndim != 2 or recovered.shape[0] != truth.shape[0]:
        raise ValueError(f"components must be d x K arrays of the same d (got {recovered.shape} and {truth.shape}).")
    return np.linalg.norm(recovered[:, :, None] - truth[:, None, :], axis=0)


def q_comp(recovered: np.ndarray, truth: np.ndarray) -> float:
    """Mean over recovered components of the Euclidean distance to the nearest true component (the paper's
    q_comp; columns are components). 0 is perfect; several recovered vectors may match the same true one."""
    return float(np.mean(_pairwise(recovered, truth).min(axis=1)))


def matching(recovered: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """For each recovered component, the index of its true component under the one-to-one matching of smallest
    total distance (Hungarian algorithm)."""
    rows, cols = linear_sum_assignment(_pairwise(recovered, truth))
    out = np.empty(len(rows), dtype=int)
    out[rows] = cols
    return out


def weight_error(recovered_components, recovered_weights, truth, true_weights) -> float:
    """Mean absolute error of the weights after matching recovered to true components one-to-one."""
    match = matching(recovered_components, truth)
    w_hat = np.asarray(recovered_weights, dtype=float)
    return float(np.mean(np.abs(w_hat - np.asarray(true_weights, dtype=float)[match])))


def aligned(recovered: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Recovered components reordered so that column j is the one matched to true component j."""
    match = matching(recovered, truth)
    out = np.zeros_like(np.asarray(truth, dtype=float))
    out[:, match] = recovered
    return out


def to_distributions(components: np.ndarray) -> np.ndarray:
    """The paper's post-processing for the topic model: negative entries set to 0, each column rescaled to sum
    to 1 (a column with no positive entry becomes uniform)."""
    A = np.clip(np.asarray(components, dtype=float), 0.0, None)
    sums = A.sum(axis=0)
    uniform = np.full(A.shape[0], 1.0 / A.shape[0])
    return np.where(sums > 0, A / np.where(sums > 0, sums, 1.0), uniform[:, None])


def random_components(kind: str, D: int, K: int, rng: np.random.Generator) -> np.ndarray:
    """The random-vectors baseline (uses no data): mixture means N(0, I/D) (norm about 1, the public bound on
    ||a_k||); topics uniform on the probability simplex (Dirichlet(1, ..., 1))."""
    if kind == "mog":
        return rng.standard_normal((D, K)) / np.sqrt(D)
    if kind == "stm":
        return rng.dirichlet(np.ones(D), size=K).T
    raise ValueError(f"unknown model {kind!r}; use 'mog' or 'stm'.")

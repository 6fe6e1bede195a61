"""No private release is worse than a data-independent guess: every registered PCA mechanism at a tiny epsilon,
where the noise swamps the data, against a uniformly random subspace of the same dimension.

A uniformly random k-subspace of R^d has E ||sin Theta||_F^2 = k (1 - k/d) to any fixed subspace. A mechanism
whose output is pure noise lands there; one whose own post-processing pushes it away from the truth (as the
tensor mechanisms' old projection onto the clipping radius did: tests/tensor/test_mechanisms.py checks those
against random vectors) lands above it. Each mechanism runs 20 times with fixed seeds; the squared distance of a
random subspace has s.d. 0.25 (d = 8, k = 2; 0.2 for k = 1), so the mean of 20 has s.d. <= 0.056 and a bias
of 0.2 (3.6 s.d.) fails.
"""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.registry import mechanism_names

N, D, K, REPS = 400, 8, 2, 20
EPSILON, DELTA = 0.01, 1e-6
#: cheaper settings where the defaults are slow and change nothing at this epsilon
FAST = {"ppca_exponential": {"sweeps": 20}}
PRIVATE_PCA = [m for m in mechanism_names("pca") if dc.get_mechanism(m).guarantee != "none"]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D)) * np.r_[3.0, 2.0, np.full(D - 2, 0.5)]
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0) / 4  # norms <= 1/4: a faint signal


@pytest.mark.parametrize("name", PRIVATE_PCA)
def test_private_release_is_no_worse_than_a_random_subspace_at_tiny_epsilon(name, rows):
    k = min(K, dc.get_mechanism(name).max_k or K)
    truth = np.eye(D)[:, :k]  # the rows' top-k subspace (their scales 3 > 2 > 0.5)
    squared = [
        metrics.subspace_distance(dc.run(name, rows, k, EPSILON, DELTA, seed=r, **FAST.get(name, {})).components, truth)
        ** 2
        for r in range(REPS)
    ]
    level = k * (1 - k / D)
    assert np.mean(squared) <= level + 0.2, (name, np.mean(squared), level)


def test_the_check_catches_a_release_pushed_away_from_the_truth(rows):
    """Mutation check: a release that carries the signal (epsilon = 100) post-processed away from it (the bottom
    of the noisy spectrum instead of the top) fails the same bound."""
    truth = np.eye(D)[:, :K]
    squared = []
    for r in range(REPS):
        V = dc.run("analyze_gauss", rows, D, 100.0, DELTA, seed=r).components
        squared.append(metrics.subspace_distance(V[:, -K:], truth) ** 2)  # the bottom of the noisy spectrum
    assert np.mean(squared) > K * (1 - K / D) + 0.2

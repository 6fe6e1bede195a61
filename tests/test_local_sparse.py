"""Fantope projection, the ADMM solver and the ldp_sparse mechanism."""
import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.fantope import fantope_l1_admm, fantope_projection
from tests.helpers import sparse_spiked_rows


def random_fantope_point(d, k, rng):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    w = rng.dirichlet(np.ones(d)) * k
    while w.max() > 1:  # rescale mass above 1 onto the others until feasible
        over = w > 1
        extra = (w[over] - 1).sum()
        w[over] = 1
        w[~over] += extra * w[~over] / w[~over].sum()
    return (Q * w) @ Q.T


@pytest.mark.parametrize("k", [1, 3])
def test_fantope_projection_is_the_projection(k):
    rng = np.random.default_rng(0)
    d = 7
    W = rng.normal(size=(d, d)) * 2
    W = (W + W.T) / 2
    P = fantope_projection(W, k)
    eig = np.linalg.eigvalsh(P)
    assert eig.min() > -1e-9 and eig.max() < 1 + 1e-9 and np.trace(P) == pytest.approx(k)
    # variational inequality of a projection onto a convex set: <W - P, Z - P> <= 0 for every Z in the set
    for _ in range(200):
        Z = random_fantope_point(d, k, rng)
        assert np.sum((W - P) * (Z - P)) <= 1e-8


def test_admm_without_penalty_recovers_top_eigenspace():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(6, 6))
    S = A @ A.T
    Y, info = fantope_l1_admm(S, 2, penalty=0.0, max_iter=2000, tol=1e-7)
    vals, vecs = np.linalg.eigh(S)
    assert info["converged"]
    assert metrics.subspace_distance(np.linalg.eigh(Y)[1][:, -2:], vecs[:, -2:]) < 1e-3


def test_ldp_sparse_recovers_support_when_n_eps2_large_and_degrades_as_eps_falls():
    X, U, support = sparse_spiked_rows(50000, 30, 1, 5, spikes=(6.0,), noise=0.1, seed=1)

    def f1(eps):
        return np.mean([metrics.support_recovery(dc.run("ldp_sparse", X, 1, eps, 1e-5, seed=s).components,
                                                 support)["f1"] for s in range(4)])

    high, low = f1(30.0), f1(0.3)
    # n eps^2 = 4.5e7: the noise max (~0.02) is far below the signal entries (~0.045), so all 5 rows survive
    # the soft threshold and only they do (the penalty bounds the noise with prob. 0.95)
    assert high >= 0.95
    assert low < 0.6 and low < high


def test_ldp_sparse_penalty_and_sparsity_params():
    X, U, support = sparse_spiked_rows(5000, 20, 2, 4, seed=2)
    rel = dc.run("ldp_sparse", X, 2, 5.0, 1e-5, seed=0, penalty=0.01, sparsity=4)
    assert rel.facts["penalty"] == 0.01
    assert np.count_nonzero(np.linalg.norm(rel.components, axis=1)) == 4
    with pytest.raises(ValueError, match="sparsity = 1 is below k = 2"):
        dc.run("ldp_sparse", X, 2, 5.0, seed=0, sparsity=1)

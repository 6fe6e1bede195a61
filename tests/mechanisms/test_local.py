"""Fantope projection, the ADMM solver and the ldp_sparse mechanism."""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.mechanisms.fantope import fantope_l1_admm, fantope_projection
from dppca_core.data.datasets import spiked_covariance
from dppca_core.mechanisms.local import default_sparse_penalty, noisy_local_covariance
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
        return np.mean(
            [
                metrics.support_recovery(dc.run("ldp_sparse", X, 1, eps, 1e-5, seed=s).components, support)["f1"]
                for s in range(4)
            ]
        )

    high, low = f1(30.0), f1(0.3)
    # n eps^2 = 4.5e7: the noise max (~0.02) is far below the signal entries (~0.045), so all 5 rows survive
    # the soft threshold and only they do (the penalty bounds the noise with prob. 0.95)
    assert high >= 0.95
    assert low < 0.6 and low < high


def test_ldp_sparse_penalty_and_sparsity_params():
    X, U, support = sparse_spiked_rows(5000, 20, 2, 4, seed=2)
    rel = dc.run("ldp_sparse", X, 2, 5.0, 1e-5, seed=0, penalty=0.01, sparsity=4)
    assert rel.outputs["penalty"] == 0.01
    assert np.count_nonzero(np.linalg.norm(rel.components, axis=1)) == 4
    with pytest.raises(ValueError, match="sparsity = 1 is below k = 2"):
        dc.run("ldp_sparse", X, 2, 5.0, seed=0, sparsity=1)


def test_ldp_sparse_issue_scenario_recovers_the_support_at_large_epsilon_and_degrades_as_it_falls():
    # 6-sparse spike 30 over noise 1, d = 40, k = 2, rows scaled to norm ~1/2: support variances 0.006-0.06, the
    # rest 0.0027. The old penalty's sampling term sqrt(2 ln(d^2)/n) = 0.027 killed all but two support rows (F1 0.5
    # at every epsilon); the scale-aware bound is 0.003 at epsilon = 1000 and grows with the noise s.d.
    data = spiked_covariance(n=20000, d=40, k=2, spike=30, sparsity=6, seed=0)
    prepared = dc.prepare(data.X)

    def f1(eps, reps=3):
        return np.mean(
            [
                metrics.support_recovery(dc.run("ldp_sparse", prepared, 2, eps, 1e-6, seed=s).components, data.support)[
                    "f1"
                ]
                for s in range(reps)
            ]
        )

    scores = [f1(eps) for eps in (1000.0, 50.0, 10.0, 2.0)]
    assert scores[0] >= 0.9 and scores[1] >= 0.9
    # the penalty grows like the noise s.d. as epsilon falls, so weaker support rows drop out one by one
    assert scores[0] >= scores[1] > scores[2] > scores[3]


def test_default_penalty_bounds_the_largest_entry_of_the_noisy_covariance_error():
    # Lemma 15 needs lambda >= ||S~ - Sigma||_max; the default is a 95% union bound on it, so over 20 draws it must
    # hold in about 19 (require 16: binomial(20, 0.95) >= 16 with probability 0.997). epsilon = 1000 leaves only the
    # sampling part (noise entry s.d. 4e-5 vs sampling s.d. up to 9e-4), epsilon = 50 mixes both
    # (noise entry s.d. 8e-4), epsilon = 5 is the noise part.
    data = spiked_covariance(n=5000, d=15, k=2, spike=10, sparsity=4, seed=1)
    prepared = dc.prepare(data.X)
    # population covariance of the scaled, clipped rows, up to ~4e-4 from clipping (a large sample of the same law)
    big = dc.prepare(spiked_covariance(n=400000, d=15, k=2, spike=10, sparsity=4, seed=1).X)
    sigma_pop = big.gram / big.n
    for eps in (5.0, 50.0, 1000.0):
        held = 0
        for seed in range(20):
            cov, sigma = noisy_local_covariance(prepared, eps, 1e-6, np.random.default_rng(seed))
            lam = default_sparse_penalty(prepared.n, prepared.d, sigma, cov)
            held += np.max(np.abs(cov - sigma_pop)) <= lam
            # and it is below the old default, whose worst-case sampling term sqrt(2 ln(d^2)/n) exceeded the signal
            old = sigma / np.sqrt(prepared.n) * np.sqrt(2 * np.log(15 * 16 / 0.05)) + np.sqrt(2 * np.log(225) / 5000)
            assert lam < old
        assert held >= 16, (eps, held)


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
audit/ldp_gaussian e9189fd58c2a033f72a0e980 f309626f2130be04
run/ldp_gaussian 83b647f40bb974db0e3e01b9 17d5ea4488811ced
run/ldp_gaussian/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/ldp_sparse c0ccbf865ac3123ddebeaddc 6d471744238c9f20
run/ldp_sparse/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
"""

"""The vector-Bingham sampler draws from the exact law; the published inverted variant does not.

Every exactness test compares E[x_i^2] (in the eigenbasis of C) of the sampler with an independent
reference: quadrature on S^1 / S^2, or self-normalised importance sampling (IS) from a *different*
envelope (ACG with b = 1, Fallaize-Kypraios) whose weights are bounded. The tolerance is z = 5 combined
Monte Carlo standard errors: sqrt(se_sampler^2 + se_reference^2) (a correct sampler fails a single
coordinate with probability ~6e-7).
"""

import numpy as np
import pytest
from scipy import integrate

from tests.support.moments import Z, moments_agree, quadrature_moments_s2

from dppca_core.privacy.bingham import (
    acg_envelope,
    orthogonal_complement,
    sample_matrix_bingham,
    sample_vector_bingham,
)

N_DRAWS = 4000


def ours(C, rng, n):
    return sample_vector_bingham(C, rng, size=n).x


def inverted(C, rng, n):
    """The acceptance test as shipped by diffprivlib / OpenDP: accept with exp(-x'Λx) / (M (x'Ωx)^{q/2})."""
    env = acg_envelope(C)
    q = C.shape[0]
    out = []
    while len(out) < n:
        y = rng.standard_normal(q) / np.sqrt(env.omega)
        x = y / np.linalg.norm(y)
        log_accept = -np.sum(env.lam * x**2) - env.log_m - (q / 2) * np.log(np.sum(env.omega * x**2))
        if np.log(rng.uniform()) < log_accept:
            out.append(env.vectors @ x)
    return np.array(out)


def importance_moments(lams, n=400_000, seed=123):
    """Self-normalised IS estimate of E[x_i^2] under exp(-sum lam_i x_i^2), with its delta-method s.e.

    Proposal: ACG with Omega_1 = I + 2 Lambda (b = 1 instead of the sampler's optimal b), density on the
    sphere ∝ (x'Omega_1 x)^{-q/2}; weights exp(-x'Λx) (x'Omega_1 x)^{q/2} are bounded, so the IS is stable.
    """
    lams = np.asarray(lams, dtype=float)
    rng = np.random.default_rng(seed)
    omega = 1.0 + 2.0 * lams
    y = rng.standard_normal((n, lams.size)) / np.sqrt(omega)
    x2 = y**2 / np.sum(y**2, axis=1, keepdims=True)
    log_w = -(x2 @ lams) + lams.size / 2 * np.log(x2 @ omega)
    w = np.exp(log_w - log_w.max())
    m = (w @ x2) / w.sum()
    se = np.sqrt((w**2) @ ((x2 - m) ** 2)) / w.sum()
    return m, se


def rotated(lams, seed):
    """C = Q diag(-lams) Q^T in a random basis Q (so f ∝ exp(x'Cx) = exp(-sum lams (Q'x)^2))."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(len(lams), len(lams))))
    return Q @ np.diag(-np.asarray(lams, dtype=float)) @ Q.T, Q


# ---------------------------------------------------------------- exactness of the vector sampler


@pytest.mark.parametrize(
    "lams", [[0.0, 0.5, 1.0], [0.0, 10.0, 25.0], [0.0, 300.0, 700.0], [0.0, 0.0, 40.0], [0.0, 2000.0, 5000.0]]
)
def test_matches_quadrature_on_s2(lams):
    lams = np.array(lams)
    ok, detail = moments_agree(ours(-np.diag(lams), np.random.default_rng(1), N_DRAWS), quadrature_moments_s2(lams))
    assert ok, detail


@pytest.mark.parametrize(
    "lams",
    [
        [0.0, 0.5, 1.0, 2.0],  # low concentration
        [0.0, 10.0, 20.0, 50.0],  # medium
        [0.0, 300.0, 600.0, 1000.0],  # high
        [0.0, 0.3, 0.6, 1.0, 1.5],
        [0.0, 5.0, 15.0, 30.0, 40.0],
        [0.0, 500.0, 800.0, 2000.0, 5000.0],
    ],
)
def test_matches_importance_sampling_in_a_rotated_basis(lams):
    C, Q = rotated(lams, seed=len(lams))
    exact, exact_se = importance_moments(lams)
    samples = ours(C, np.random.default_rng(3), N_DRAWS) @ Q  # coordinates in the eigenbasis
    ok, detail = moments_agree(samples, exact, exact_se)
    assert ok, detail


@pytest.mark.parametrize("lam", [0.5, 30.0, 1e4])
def test_circle_q2_matches_quadrature(lam):
    # On S^1, x = (cos t, sin t) and f ∝ exp(-lam sin^2 t).
    norm = integrate.quad(lambda t: np.exp(-lam * np.sin(t) ** 2), 0, np.pi, points=[np.pi / 2], limit=200)[0]
    second = integrate.quad(
        lambda t: np.sin(t) ** 2 * np.exp(-lam * np.sin(t) ** 2), 0, np.pi, points=[np.pi / 2], limit=200
    )[0]
    exact = np.array([1 - second / norm, second / norm])
    ok, detail = moments_agree(ours(np.diag([0.0, -lam]), np.random.default_rng(7), N_DRAWS), exact)
    assert ok, detail


@pytest.mark.parametrize("lams", [[0.0, 10.0, 25.0], [0.0, 10.0, 20.0, 50.0]])
def test_inverted_acceptance_test_is_caught_by_the_same_check(lams):
    """The check has the power to reject the diffprivlib / OpenDP law (it still terminates here)."""
    lams = np.array(lams)
    exact, exact_se = (quadrature_moments_s2(lams), 0.0) if lams.size == 3 else importance_moments(lams)
    wrong = inverted(-np.diag(lams), np.random.default_rng(1), N_DRAWS)
    ok, detail = moments_agree(wrong, exact, exact_se)
    assert not ok, detail
    right = ours(-np.diag(lams), np.random.default_rng(1), N_DRAWS)
    assert moments_agree(right, exact, exact_se)[0]


# ---------------------------------------------------------------- efficiency and robustness


@pytest.mark.parametrize(
    "concentration,d,spectrum",
    [
        (1e4, 10, "linear"),
        (1e6, 50, "linear"),
        (1e4, 50, "spike"),
        (1e6, 50, "spike"),
        (1e5, 3, "linear"),
    ],
)
def test_acceptance_rate_bounded_away_from_zero(concentration, d, spectrum):
    # KGM: about 0.12 at q = 50 for concentrations 1e4..1e6; 2000 draws give an
    # estimate with relative s.e. < 3%, so 0.05 leaves a wide margin for a correct sampler but fails the
    # fixed-b or inverted forms, whose rates collapse as the concentration grows.
    mu = np.linspace(concentration, 0, d) if spectrum == "linear" else np.r_[concentration, np.zeros(d - 1)]
    sample = sample_vector_bingham(np.diag(mu), np.random.default_rng(4), size=2000)
    assert sample.acceptance_rate > 0.05
    assert np.allclose(np.linalg.norm(sample.x, axis=1), 1.0)


def test_extreme_concentration_concentrates_on_the_mode():
    # f ∝ exp(1e8 (x'u)^2): the mass sits within ~1e-4 of ±u.
    rng = np.random.default_rng(5)
    u = rng.normal(size=20)
    u /= np.linalg.norm(u)
    sample = sample_vector_bingham(1e8 * np.outer(u, u), rng, size=200)
    assert np.all(np.isfinite(sample.x)) and np.min(np.abs(sample.x @ u)) > 1 - 1e-6


def test_shapes_q1_and_single_draw():
    rng = np.random.default_rng(6)
    one = sample_vector_bingham(np.array([[3.0]]), rng, size=400)
    assert one.x.shape == (400, 1) and set(np.unique(one.x)) == {-1.0, 1.0}
    assert 120 < np.sum(one.x > 0) < 280  # Binomial(400, 1/2): mean 200, s.d. 10
    single = sample_vector_bingham(np.diag([2.0, 1.0, 0.0]), rng)
    assert single.x.shape == (3,) and single.accepted == 1 and single.attempts >= 1


def test_same_seed_same_draws():
    C = np.diag([50.0, 10.0, 0.0, 0.0])
    a = sample_vector_bingham(C, np.random.default_rng(8), size=50).x
    b = sample_vector_bingham(C, np.random.default_rng(8), size=50).x
    assert np.array_equal(a, b)


def test_max_attempts_guard_raises_instead_of_hanging():
    # at q = 50 and concentration 1e6 the rate is ~0.12: one proposal per draw cannot yield 50 draws
    with pytest.raises(RuntimeError, match="max_attempts"):
        sample_vector_bingham(np.diag(np.linspace(1e6, 0, 50)), np.random.default_rng(9), size=50, max_attempts=1)


@pytest.mark.parametrize(
    "C,size,match",
    [
        (np.ones((2, 3)), None, "square"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), None, "NaN"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), None, "symmetric"),
        (np.eye(2), 0, "positive integer"),
    ],
)
def test_bad_input(C, size, match):
    with pytest.raises(ValueError, match=match):
        sample_vector_bingham(C, np.random.default_rng(0), size=size)


# ---------------------------------------------------------------- matrix Bingham (Gibbs)


def test_gibbs_k_equals_d_minus_one_reduces_to_vector_bingham():
    # With V d x (d-1), tr(V'BV) = tr(B) - w'Bw for the unit normal w of span(V), so w ~ Bingham(-B):
    # independent chains from random starts must reproduce the exact law of w.
    lams = np.array([3.0, 1.0, 0.0])
    rng = np.random.default_rng(5)
    normals = []
    for _ in range(500):
        V, _ = sample_matrix_bingham(np.diag(lams), 2, rng, sweeps=10)
        normals.append(orthogonal_complement(V, 3)[:, 0])
    ok, detail = moments_agree(np.array(normals), quadrature_moments_s2(lams))  # density of w: exp(-w' B w)
    assert ok, detail


def test_gibbs_matches_importance_sampling_on_the_stiefel_manifold():
    # E[tr(V'BV)] under etr(V'BV) on V_{4,2}: IS from Haar frames (weights exp(tr V'BV) <= e^{6.5}).
    B = np.diag([4.0, 2.5, 1.0, 0.0])
    rng = np.random.default_rng(11)
    frames, _ = np.linalg.qr(rng.normal(size=(200_000, 4, 2)))
    t = np.einsum("nij,ik,nkj->n", frames, B, frames)
    w = np.exp(t - t.max())
    ref = (w @ t) / w.sum()
    ref_se = np.sqrt((w**2) @ (t - ref) ** 2) / w.sum()
    finals = np.array([sample_matrix_bingham(B, 2, rng, sweeps=8)[1]["trace"][-1] for _ in range(400)])
    se = np.sqrt(finals.var(ddof=1) / finals.size + ref_se**2)
    assert abs(finals.mean() - ref) < Z * se, (finals.mean(), ref, se)


def test_gibbs_captures_most_energy_on_the_toy_problem():
    # Hoff's sampler: 200 sweeps on d = 10, n = 2000, eps = 1, k = 2 capture ~90% of the best
    # rank-2 energy. Rows of unit norm with two spiked directions; B = (eps / 2) X'X.
    rng = np.random.default_rng(12)
    U, _ = np.linalg.qr(rng.normal(size=(10, 2)))
    X = rng.normal(size=(2000, 2)) * [3.0, 2.0] @ U.T + 0.5 * rng.normal(size=(2000, 10))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    C = X.T @ X
    best = np.sum(np.linalg.eigvalsh(C)[-2:])
    ratios = []
    for seed in range(3):
        V, info = sample_matrix_bingham(0.5 * C, 2, np.random.default_rng(seed), sweeps=200)
        assert np.allclose(V.T @ V, np.eye(2), atol=1e-10) and len(info["trace"]) == 200
        assert 0 < info["acceptance_rate"] <= 1
        ratios.append(np.trace(V.T @ C @ V) / best)
    assert np.mean(ratios) > 0.85, ratios


def test_gibbs_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="k = 4"):
        sample_matrix_bingham(np.eye(3), 4, rng)
    with pytest.raises(ValueError, match="sweeps"):
        sample_matrix_bingham(np.eye(3), 2, rng, sweeps=0)
    with pytest.raises(ValueError, match="orthonormal"):
        sample_matrix_bingham(np.eye(3), 2, rng, init=np.ones((3, 2)))


# ---------------------------------------------------------------- envelopes without eigenvectors, reused in Gibbs


@pytest.mark.parametrize("shift,b_factor", [(0.0, 1.0), (0.4, 1.0), (-0.2, 1.0), (0.0, 3.0), (3.0, 0.6)])
def test_any_positive_definite_envelope_is_exact(shift, b_factor):
    """The Gibbs sampler reuses (mu, b) across sweeps: any mu, b with Omega > 0 must give the exact law.

    shift moves mu away from the largest eigenvalue (negative: below it, allowed while Omega stays positive
    definite), b_factor moves b away from its optimum; both only change the acceptance rate.
    """
    from dppca_core.privacy.bingham import _envelope_at, _optimal_b, _rejection_loop

    lams = np.array([0.0, 10.0, 25.0])
    C, Q = rotated(lams, seed=9)
    b = _optimal_b(lams) * b_factor
    env = _envelope_at(C, float(np.linalg.eigvalsh(C)[-1]) + shift, b)
    assert env is not None
    x, attempts = _rejection_loop(env, np.random.default_rng(10), N_DRAWS, 10**7)
    ok, detail = moments_agree(x @ Q, quadrature_moments_s2(lams))
    assert ok, detail
    # below lambda_max by more than b/2, Omega is not positive definite: refused, never used
    assert _envelope_at(C, float(np.linalg.eigvalsh(C)[-1]) - b, b) is None


def test_complement_compression_is_the_restriction_to_the_complement():
    from dppca_core.privacy.bingham import complement_compression

    rng = np.random.default_rng(13)
    B = rng.normal(size=(9, 9))
    B = B + B.T
    W, _ = np.linalg.qr(rng.normal(size=(9, 3)))
    C, lift = complement_compression(B, W)
    N = orthogonal_complement(W, 9)
    # same operator in another basis of the same subspace: equal spectra
    assert np.allclose(np.linalg.eigvalsh(C), np.linalg.eigvalsh(N.T @ B @ N), atol=1e-12)
    z = rng.normal(size=6)
    z /= np.linalg.norm(z)
    v = lift(z)
    assert np.allclose(W.T @ v, 0, atol=1e-13) and np.isclose(np.linalg.norm(v), 1) and np.isclose(v @ B @ v, z @ C @ z)


def test_gibbs_reuses_envelopes_after_burn_in():
    B = np.diag(np.r_[60.0, 50.0, 40.0, np.linspace(5, 0, 9)])
    V, info = sample_matrix_bingham(B, 3, np.random.default_rng(14), sweeps=40)
    # 3 fresh sweeps, then a column's envelope is renewed every 10 sweeps (or after a slow draw)
    assert 9 <= info["eigen_solves"] < 0.5 * 3 * 40
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-10)


@pytest.mark.parametrize("shift", [3.0, 200.0])
def test_a_reused_envelope_that_drifted_gives_way_to_a_fresh_one_and_the_draws_stay_exact(shift):
    """A column's cached mu far above the top eigenvalue of its new conditional (the other columns moved): Omega
    stays positive definite, so the envelope is exact, but a proposal is accepted with about exp(-(mu - c_max)).
    The sampler gave up after a million proposals (a Report's release failed so, q = 19); now a reused envelope
    gets 16 sqrt(q) proposals, then the optimal one is solved afresh. At shift 3 both paths run; the draws, from
    either, have the exact law."""
    from dppca_core.privacy import bingham
    from dppca_core.privacy.bingham import _column_draw, _optimal_b

    lams = np.array([0.0, 10.0, 25.0])
    C, Q = rotated(lams, seed=9)
    stale = (float(np.linalg.eigvalsh(C)[-1]) + shift, _optimal_b(lams), 5)
    rng = np.random.default_rng(15)
    draws, fresh, attempts = [], 0, []
    for _ in range(N_DRAWS if shift < 100 else 50):
        cached = {0: stale}  # reused at sweep 6: past the burn-in, younger than the refresh
        z, used, solved = _column_draw(C, 0, 6, cached, rng)
        draws.append(z)
        fresh += solved
        attempts.append(used)
    budget = np.ceil(bingham._REUSE_BUDGET * np.sqrt(3))
    if shift > 100:  # never accepted by the stale envelope: each draw pays its budget, then a few proposals
        assert fresh == 50 and min(attempts) > budget and max(attempts) < budget + 200, attempts
        return
    assert 0.05 < fresh / N_DRAWS < 0.95, fresh  # both the reused and the fresh envelope gave draws
    ok, detail = moments_agree(np.array(draws) @ Q, quadrature_moments_s2(lams))
    assert ok, detail

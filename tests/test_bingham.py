"""The vector-Bingham sampler draws from the exact law; the published inverted variant does not."""
import numpy as np
import pytest

from dppca_core.bingham import _envelope, sample_matrix_bingham, sample_vector_bingham

N_DRAWS = 3000


def draws(sampler, C, seed, n=N_DRAWS):
    rng = np.random.default_rng(seed)
    return np.array([sampler(C, rng) for _ in range(n)])


def ours(C, rng):
    return sample_vector_bingham(C, rng).x


def inverted(C, rng):
    """The acceptance test as shipped by diffprivlib / OpenDP: exp(-x'Ax) / (M (x'Ωx)^{q/2})."""
    q = C.shape[0]
    mu, vecs = np.linalg.eigh(C)
    lam = mu.max() - mu
    _, omega, log_m = _envelope(lam)
    while True:
        y = rng.standard_normal(q) / np.sqrt(omega)
        x = y / np.linalg.norm(y)
        if np.log(rng.uniform()) < -np.sum(lam * x**2) - log_m - (q / 2) * np.log(np.sum(omega * x**2)):
            return vecs @ x


def exact_second_moments_s2(lams):
    """E[x_i^2] under f ∝ exp(-sum lam_i x_i^2) on S^2 by quadrature on a fine (theta, phi) grid.

    The pole is put on the axis with lam = 0 (the mode) so the peak is resolved at high concentration.
    """
    order = np.argsort(lams)  # order[0] has lam = 0: the mode, placed at the pole
    theta = np.linspace(0, np.pi, 3001)
    phi = np.linspace(0, 2 * np.pi, 601)[:-1]
    T, P = np.meshgrid(theta, phi, indexing="ij")
    coords = [np.cos(T), np.sin(T) * np.cos(P), np.sin(T) * np.sin(P)]
    log_f = -sum(lams[order[i]] * coords[i] ** 2 for i in range(3))
    weights = np.exp(log_f - log_f.max()) * np.sin(T)
    moments = np.empty(3)
    for i in range(3):
        moments[order[i]] = np.sum(weights * coords[i] ** 2) / np.sum(weights)
    return moments


def moments_agree(samples, exact, z=5.0):
    """True when every E[x_i^2] matches within z Monte Carlo standard errors."""
    sq = samples**2
    se = sq.std(axis=0, ddof=1) / np.sqrt(len(sq)) + 1e-12
    return bool(np.all(np.abs(sq.mean(axis=0) - exact) < z * se)), (sq.mean(axis=0), exact, se)


@pytest.mark.parametrize("lams", [[0.0, 0.5, 1.0], [0.0, 10.0, 25.0], [0.0, 300.0, 700.0], [0.0, 0.0, 40.0]])
def test_vector_bingham_matches_quadrature_on_s2(lams):
    lams = np.array(lams)
    C = -np.diag(lams)  # f ∝ exp(x'Cx) = exp(-sum lam x^2)
    ok, detail = moments_agree(draws(ours, C, seed=1), exact_second_moments_s2(lams))
    assert ok, detail


def test_vector_bingham_in_a_rotated_basis_d5():
    # importance-sampling reference with uniform proposals (fine at low concentration), in a random basis
    rng = np.random.default_rng(2)
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    lams = np.array([0.0, 0.5, 1.5, 3.0, 5.0])
    C = Q @ np.diag(-lams) @ Q.T
    u = rng.normal(size=(400000, 5))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.exp(np.einsum("ij,jk,ik->i", u, C, u))
    exact = (w[:, None] * (u @ Q) ** 2).sum(axis=0) / w.sum()
    ok, detail = moments_agree(draws(ours, C, seed=3) @ Q, exact, z=5.5)
    assert ok, detail


def test_inverted_acceptance_test_is_caught_by_the_same_check():
    lams = np.array([0.0, 10.0, 25.0])
    ok, detail = moments_agree(draws(inverted, -np.diag(lams), seed=1), exact_second_moments_s2(lams))
    assert not ok, detail  # the check has the power to reject a wrong law


@pytest.mark.parametrize("concentration,d", [(1e4, 10), (1e6, 50), (1e5, 3)])
def test_acceptance_rate_bounded_away_from_zero(concentration, d):
    rng = np.random.default_rng(4)
    C = np.diag(np.linspace(concentration, 0, d))
    attempts = [sample_vector_bingham(C, rng).attempts for _ in range(300)]
    assert 1 / np.mean(attempts) > 0.05  # KGM envelope: ~0.12 at high concentration


def test_gibbs_k_equals_d_minus_one_reduces_to_vector_bingham():
    # With V d x (d-1), tr(V'BV) = tr(B) - w'Bw for the unit normal w of span(V), so w ~ Bingham(-B).
    B = np.diag([3.0, 1.0, 0.0])
    rng = np.random.default_rng(5)
    normals = []
    for _ in range(600):
        V, _ = sample_matrix_bingham(B, 2, rng, sweeps=15)
        w = np.linalg.svd(V, full_matrices=True)[0][:, -1]
        normals.append(w)
    exact = exact_second_moments_s2(np.array([3.0, 1.0, 0.0]))  # density of w: exp(-w'Bw)
    ok, detail = moments_agree(np.array(normals), exact, z=5.0)
    assert ok, detail


def test_gibbs_trace_and_rate():
    B = np.diag(np.linspace(50, 0, 8))
    V, info = sample_matrix_bingham(B, 3, np.random.default_rng(6), sweeps=30)
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-10)
    assert len(info["trace"]) == 30 and 0 < info["acceptance_rate"] <= 1
    assert np.mean(info["trace"][-10:]) > 0.8 * (50 + 50 * 6 / 7 + 50 * 5 / 7)

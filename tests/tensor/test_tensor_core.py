"""Tensor building blocks: unique coordinates, moments (chunked, symmetrised), sensitivities, whitening and the
tensor power method, q_comp and the synthetic models. Fixed seeds throughout."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.tensor import calibration as cal
from dppca_core.tensor import metrics as tm
from dppca_core.tensor import moments, power, symmetric as sym, synthetic
from dppca_core.tensor.moments import Documents, prepare_tensor_input


# -- unique coordinates --------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 5, 9])
def test_unique_coordinates_round_trip(d):
    rng = np.random.default_rng(d)
    b = rng.normal(size=sym.n_unique(d))
    T = sym.from_unique(b, d)
    assert sym.n_unique(d) == math.comb(d + 2, 3)
    for perm in [(0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]:
        assert np.array_equal(T, T.transpose(perm))  # every permutation of (i, j, k) holds the same value
    assert np.array_equal(sym.to_unique(T), b)
    # each unique entry stands for 6, 3 or 1 full entries: the full tensor's squared norm weights them so
    assert np.sum(T**2) == pytest.approx(np.sum(sym.unique_multiplicity(d) * b**2))
    u = rng.normal(size=sym.n_upper(d))
    M = sym.from_upper(u, d)
    assert np.array_equal(M, M.T) and np.array_equal(sym.to_upper(M), u)


def test_multilinear_and_tensor_vector_products_match_einsum():
    rng = np.random.default_rng(0)
    T = sym.symmetrize(rng.normal(size=(6, 6, 6)))
    W = rng.normal(size=(6, 3))
    assert np.allclose(sym.multilinear(T, W), np.einsum("ijk,ia,jb,kc->abc", T, W, W, W), atol=1e-12)
    u = rng.normal(size=(4, 6))
    assert np.allclose(sym.apply_vector(T, u), np.einsum("ijk,lj,lk->li", T, u, u), atol=1e-12)


@pytest.mark.parametrize("d", [2, 3, 10, 50])
def test_mean_correction_has_unique_norm_sqrt_d_plus_8(d):
    # the mixture's M3 sensitivity rests on ||unique(T(v))|| = sqrt(d + 8) ||v|| (derived in calibration.py)
    rng = np.random.default_rng(d)
    for _ in range(5):
        v = rng.normal(size=d)
        full = sym.delta_tensor(v)
        assert np.allclose(sym.delta_unique(v), sym.to_unique(full), atol=1e-12)
        assert np.linalg.norm(sym.delta_unique(v)) == pytest.approx(math.sqrt(d + 8) * np.linalg.norm(v))


# -- moments -------------------------------------------------------------------------------------------------


def test_third_moment_chunked_equals_the_definition(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(257, 5)) / 3
    exact = np.einsum("ni,nj,nk->ijk", X, X, X) / len(X)
    monkeypatch.setattr(moments, "CHUNK_FLOATS", 40)  # chunks of a few rows: the accumulation must not matter
    assert np.allclose(moments.third_moment(X), exact, atol=1e-14)
    assert np.allclose(moments.third_moment_unique(X), sym.to_unique(exact), atol=1e-14)


def test_mog_moments_match_their_formula():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4)) / 4
    s2 = 0.03
    u2, u3 = moments.mog_moments(X, s2)
    M2 = X.T @ X / 300 - s2 * np.eye(4)
    M3 = np.einsum("ni,nj,nk->ijk", X, X, X) / 300 - s2 * sym.delta_tensor(X.mean(axis=0))
    assert np.allclose(u2, sym.to_upper(M2), atol=1e-14) and np.allclose(u3, sym.to_unique(M3), atol=1e-14)


def test_stm_moments_are_the_symmetrised_raw_averages():
    rng = np.random.default_rng(3)
    words = rng.integers(0, 6, size=(500, 3))
    P2, P3 = moments.raw_stm_moments(words, 6)
    assert sym.antisymmetric_norm(P2) > 0.01 and sym.antisymmetric_norm(P3) > 0.01  # the raw averages are not
    u2, u3 = moments.stm_moments(words, 6)
    assert np.allclose(sym.from_upper(u2, 6), (P2 + P2.T) / 2, atol=1e-15)
    assert np.allclose(sym.from_unique(u3, 6), sym.symmetrize(P3), atol=1e-15)
    # permuting the three words of every document changes nothing
    u2p, u3p = moments.stm_moments(words[:, [1, 0, 2]], 6)
    assert np.allclose(u2p, u2, atol=1e-15) and np.allclose(u3p, u3, atol=1e-15)
    assert np.allclose(moments.stm_moments(words[:, [2, 0, 1]], 6)[1], u3, atol=1e-15)


@pytest.mark.parametrize("kind", ["mog", "stm"])
def test_empirical_moments_converge_to_the_population(kind):
    model = synthetic.make_model(kind, 6, 3, seed=0)
    data = prepare_tensor_input(model.sample(40_000, np.random.default_rng(4)), model.data_norm)
    u2, u3 = data.moments(sigma2=model.sigma2)
    P2, P3 = model.population_moments()
    R = model.data_norm
    # each unique coordinate is an average of n terms bounded by 1 (plus a small mean correction), so its
    # standard error is at most ~1/sqrt(n) = 0.005; 5 standard errors over all coordinates
    assert np.max(np.abs(u2 - sym.to_upper(P2) / R**2)) < 0.025
    assert np.max(np.abs(u3 - sym.to_unique(P3) / R**3)) < 0.025


def test_tensor_data_caches_moments_per_site():
    model = synthetic.make_model("mog", 5, 2)
    data = prepare_tensor_input(model.sample(100, 0), model.data_norm)
    first = data.moments(np.arange(50), sigma2=0.05)
    assert data.moments(np.arange(50), sigma2=0.05) is first
    assert data.moments(np.arange(50, 100), sigma2=0.05) is not first


def test_input_errors_say_what_to_do():
    with pytest.raises(ValueError, match="Documents"):
        prepare_tensor_input(np.zeros((5, 3), dtype=int))
    with pytest.raises(ValueError, match="L >= 3"):
        Documents(np.zeros((5, 2), dtype=int), 4)
    with pytest.raises(ValueError, match="0 .. 3"):
        Documents(np.full((5, 3), 4), 4)
    with pytest.raises(ValueError, match="data_norm at 1"):
        prepare_tensor_input(Documents(np.zeros((5, 3), dtype=int), 4), 2.0)
    with pytest.raises(ValueError, match="d <= 100"):
        prepare_tensor_input(np.zeros((5, 101)))
    with pytest.raises(ValueError, match="PreparedData"):
        prepare_tensor_input(dc.prepare(np.eye(3)))


# -- sensitivities -------------------------------------------------------------------------------------------


def _unique_change(model, a, b, s2, d):
    if model == "stm":
        return (
            np.r_[moments.stm_moments(a[None], d)[0]] - moments.stm_moments(b[None], d)[0],
            moments.stm_moments(a[None], d)[1] - moments.stm_moments(b[None], d)[1],
        )
    return (
        moments.mog_moments(a[None], s2)[0] - moments.mog_moments(b[None], s2)[0],
        moments.mog_moments(a[None], s2)[1] - moments.mog_moments(b[None], s2)[1],
    )


def test_stm_sensitivity_is_sqrt2_over_n_and_attained():
    d = 5
    rng = np.random.default_rng(5)
    worst2 = worst3 = 0.0
    docs = [np.array(t) for t in [(0, 0, 0), (1, 1, 1), (0, 1, 2), (0, 0, 1), (3, 4, 3)]]
    docs += [rng.integers(0, d, 3) for _ in range(200)]
    for a in docs:
        for b in docs[:20]:
            c2, c3 = _unique_change("stm", a, b, 0.0, d)
            worst2, worst3 = max(worst2, np.linalg.norm(c2)), max(worst3, np.linalg.norm(c3))
    # n = 1 here: the bound is sqrt(2) and (a,a,a) vs (b,b,b) attains it for both moments
    assert worst2 == pytest.approx(cal.m2_sensitivity(1)) and worst3 == pytest.approx(cal.m3_sensitivity("stm", 1, d))


def _mog_unique_moments(P, s2):
    """Unique coordinates of (upper(x x^T - s2 I), unique(x(x)x(x)x - s2 T(x))) for each row x of P (n = 1)."""
    d = P.shape[1]
    i, j = sym.upper_index(d)
    a, b, c = sym.unique_index(d)
    correction = np.stack([sym.delta_unique(e) for e in np.eye(d)])  # T(x) is linear in x
    return P[:, i] * P[:, j], P[:, a] * P[:, b] * P[:, c] - s2 * P @ correction


@pytest.mark.parametrize("d,s2", [(2, 0.05), (4, 0.05), (6, 0.2), (3, 0.0)])
def test_mog_sensitivity_bounds_every_pair(d, s2):
    rng = np.random.default_rng(d)
    pts = rng.normal(size=(3000, d))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    pts[:1000] *= rng.random((1000, 1))  # inside the ball too
    pts = np.vstack([pts, np.eye(d), -np.eye(d)])
    u2, u3 = _mog_unique_moments(pts, s2)
    # all pairs against a subset (the -I diagonal constants cancel in differences)
    ref = np.r_[np.arange(0, 3000, 50), np.arange(3000, 3000 + 2 * d)]
    worst2 = np.max(np.linalg.norm(u2[:, None, :] - u2[None, ref, :], axis=2))
    worst3 = np.max(np.linalg.norm(u3[:, None, :] - u3[None, ref, :], axis=2))
    assert worst2 <= cal.m2_sensitivity(1) + 1e-12 and worst2 == pytest.approx(math.sqrt(2), rel=1e-9)
    bound = cal.m3_sensitivity("mog", 1, d, s2)
    assert worst3 <= bound + 1e-12
    # the bound adds the two parts' worst cases (triangle inequality). Without the correction (s2 = 0) x = -y
    # attains it; with it the parts partly cancel (e.g. entry (1,1,1) of x = -y = e1 is 2 - 6 s2), so the bound
    # is conservative, though within a factor 3 of the worst pair found
    assert worst3 >= bound / 3
    if s2 == 0:
        assert worst3 == pytest.approx(bound, rel=1e-9)
    # the paper's bounds: spectral 1 for M2 (too small for Gaussian noise on entries), looser for M3
    assert worst2 > 1.0 and cal.paper_m3_sensitivity("mog", 1, d, s2) >= bound


# -- whitening and the tensor power method ------------------------------------------------------------------


def test_power_method_recovers_an_orthogonal_decomposition():
    rng = np.random.default_rng(6)
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    lam = np.array([3.0, 2.5, 2.0, 1.5, 1.2])
    T = np.einsum("k,ik,jk,lk->ijl", lam, Q, Q, Q)
    got_lam, got_vec = power.tensor_power_method(T, 5, np.random.default_rng(0))
    order = np.argsort(-got_lam)
    assert np.allclose(got_lam[order], lam, atol=1e-8)
    assert np.allclose(np.abs(got_vec[:, order].T @ Q), np.eye(5), atol=1e-6)


@pytest.mark.parametrize("kind", ["mog", "stm"])
def test_population_moments_give_the_exact_model(kind):
    model = synthetic.make_model(kind, 10, 5, seed=1)
    P2, P3 = model.population_moments()
    dec = power.decompose_moments(P2, P3, 5, np.random.default_rng(0))
    assert tm.q_comp(dec.components, model.components) < 1e-6
    assert tm.weight_error(dec.components, dec.weights, model.components, model.weights) < 1e-6


@pytest.mark.parametrize("kind", ["mog", "stm"])
def test_non_private_error_is_small_and_shrinks_like_one_over_sqrt_n(kind):
    model = synthetic.make_model(kind, 10, 5, seed=0)

    def error(n):
        out = []
        for rep in range(4):
            X = model.sample(n, np.random.default_rng([rep, n]))
            rel = dc.run("otd_non_private", X, 5, 1.0, data_norm=model.data_norm, seed=rep, sigma2=model.sigma2)
            out.append(tm.q_comp(rel.components, model.components))
        return float(np.mean(out))

    small, large = error(5_000), error(20_000)
    random = np.mean(
        [tm.q_comp(tm.random_components(kind, 10, 5, np.random.default_rng(r)), model.components) for r in range(20)]
    )
    # well-conditioned models: error far below the no-information level (random ~ 1 for MOG, ~0.45 for STM)
    assert large < 0.05 < 0.3 * random
    # the moments' sampling error is O(n^-1/2) and the recovery is Lipschitz in it: 4x the samples should
    # about halve the error (0.5); the range allows for the spread of 4 repetitions
    assert 0.3 < large / small < 0.75


def test_whitening_survives_negative_noisy_eigenvalues():
    M2 = np.diag([1.0, -0.5, 1e-20])
    wh = power.whiten(M2, 3)
    assert np.all(np.isfinite(wh.W)) and np.allclose(wh.B.T @ wh.W, np.eye(3))


# -- metrics and models --------------------------------------------------------------------------------------


def test_q_comp_and_weight_error():
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    assert tm.q_comp(A[:, ::-1], A) == 0.0  # order does not matter
    assert tm.q_comp(A + [[0.0], [0.0], [0.3]], A) == pytest.approx(0.3)
    both_same = np.c_[A[:, 0], A[:, 0]]
    assert tm.q_comp(both_same, A) == 0.0  # nearest-match: two copies of one component still score 0
    assert tm.weight_error(A[:, ::-1], [0.7, 0.3], A, [0.3, 0.7]) == 0.0
    assert tm.matching(A[:, ::-1], A).tolist() == [1, 0]
    P = tm.to_distributions(np.array([[0.5, -1.0], [-0.2, -0.1], [0.5, -3.0]]))
    assert np.allclose(P[:, 0], [0.5, 0, 0.5]) and np.allclose(P[:, 1], 1 / 3)
    with pytest.raises(ValueError, match="same d"):
        tm.q_comp(A, A[:2])


def test_random_baseline_is_data_free_and_valid():
    rng = np.random.default_rng(0)
    R = tm.random_components("stm", 8, 3, rng)
    assert R.shape == (8, 3) and np.allclose(R.sum(axis=0), 1) and np.all(R >= 0)
    G = tm.random_components("mog", 400, 3, rng)
    assert np.allclose(np.linalg.norm(G, axis=0), 1.0, atol=0.15)  # N(0, I/D): norm ~ 1 = the public bound


def test_paper_presets_and_clipping_radius():
    assert set(synthetic.PRESETS.values()) == {(10, 5), (50, 10)}
    for D, K in synthetic.PRESETS.values():
        mog = synthetic.make_model("mog", D, K)
        assert np.all(np.linalg.norm(mog.components, axis=0) <= 1.0) and mog.sigma2 == 0.05
        X = mog.sample(20_000, np.random.default_rng(0))
        # the public radius leaves P(clip) <= e^-12.5 per sample: none in 20,000
        assert np.max(np.linalg.norm(X, axis=1)) < mog.data_norm
        stm = synthetic.make_model("stm", D, K)
        assert np.allclose(stm.components.sum(axis=0), 1) and np.allclose(stm.weights.sum(), 1)
        docs = stm.sample(3000, np.random.default_rng(1))
        # word frequencies follow sum_k w_k a_k (5 standard errors of a frequency from 9000 words: < 0.03)
        freq = np.bincount(docs.words.ravel(), minlength=D) / docs.words.size
        assert np.max(np.abs(freq - stm.components @ stm.weights)) < 0.03
    with pytest.raises(ValueError, match="mog"):
        synthetic.make_model("lda", 10, 5)
    with pytest.raises(ValueError, match="K"):
        synthetic.make_model("mog", 4, 5)

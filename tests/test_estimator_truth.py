"""The estimator's attributes mean what scikit-learn users read them as (issue 30).

* ``mechanism="non_private"`` is exactly scikit-learn's PCA of the clipped rows;
* for every private mechanism, ``components_`` are ordered by their released variance and ``explained_variance_[i]``
  estimates the variance along ``components_[i]``, within a tolerance derived from the noise of that release;
* the variance share's sensitivity (sqrt(2)) holds for every pair of rows, and is reached.
"""

import math

import numpy as np
import pytest
from sklearn.decomposition import PCA

import dppca_core as dc
from dppca_core import DPPCA
from dppca_core.pipeline.budget import private_variances
from dppca_core.privacy import sensitivity
from dppca_core.privacy.shares import Share


def _clip(X, R):
    norms = np.linalg.norm(X, axis=1)
    return X * np.minimum(1.0, R / np.maximum(norms, 1e-300))[:, None]


def _issue_data():
    rs = np.random.RandomState(0)
    X = rs.randn(250, 21)
    X -= X.mean(0)
    return X / np.linalg.norm(X, axis=1).max()


DATASETS = {
    "centred (the issue's)": (_issue_data(), 1.0),
    "uncentred": (np.random.default_rng(1).normal(size=(300, 8)) * np.r_[3, 2, 1, 1, 0.5, 0.5, 0.2, 0.1] + 2.0, 40.0),
    "rows clipped": (np.random.default_rng(2).standard_t(3, size=(400, 5)) + 0.5, 3.0),
}


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.filterwarnings("ignore::dppca_core.estimator.ClippingWarning")
def test_non_private_is_scikit_learns_pca_of_the_clipped_rows(name):
    X, R = DATASETS[name]
    d = X.shape[1]
    clipped = _clip(X, R)
    for k in sorted({1, 2, d // 2, d - 1, d}):
        ours = DPPCA(k, mechanism="non_private", data_norm=R).fit(X)
        ref = PCA(k, svd_solver="full").fit(clipped)
        signs = np.sign(np.sum(ours.components_ * ref.components_, axis=1))
        assert np.allclose(ours.components_ * signs[:, None], ref.components_, atol=1e-10), (name, k)
        for attr in ("explained_variance_", "explained_variance_ratio_", "singular_values_", "mean_"):
            assert np.allclose(getattr(ours, attr), getattr(ref, attr), rtol=1e-10, atol=1e-12), (name, k, attr)
        assert ours.noise_variance_ == pytest.approx(ref.noise_variance_, rel=1e-9, abs=1e-12), (name, k)
        assert np.allclose(ours.get_covariance(), ref.get_covariance(), rtol=1e-9, atol=1e-12), (name, k)
        if k < d:  # scikit-learn's precision at k = d inverts a covariance with no noise floor
            assert ours.score(clipped) == pytest.approx(ref.score(clipped), rel=1e-9), (name, k)
        assert np.allclose(ours.transform(clipped) * signs, ref.transform(clipped), atol=1e-9)
        assert ours.release_["guarantee"] == "none" and "No privacy" in ours.release_["guarantee_text"]


def test_the_issues_non_private_reproduction():
    """Was [0.219, 0.075, 0.0] (noise from a budget share) and a score of -2.9e6 at k = 9."""
    X = _issue_data()
    est = DPPCA(3, mechanism="non_private", data_norm=1, random_state=0).fit(X)
    assert np.allclose(est.explained_variance_, PCA(3).fit(X).explained_variance_, rtol=1e-10)
    assert est.explained_variance_ == pytest.approx([0.0384, 0.0362, 0.0346], abs=1e-4)
    nine = DPPCA(9, mechanism="non_private", data_norm=1, random_state=0).fit(X)
    assert nine.score(X) == pytest.approx(PCA(9).fit(X).score(X), rel=1e-9)
    assert nine.score(X) == pytest.approx(9.07, abs=0.01)


def _mechanisms():
    out = []
    for name in dc.mechanism_names("pca"):
        spec = dc.get_mechanism(name)
        if spec.guarantee in ("none", "retracted"):
            continue
        params = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
        out.append((name, params, spec.max_k or 3))
    return out


SPIKED = np.random.default_rng(0).normal(size=(3000, 6)) * np.r_[3.0, 2.0, 1.2, 0.4, 0.3, 0.2]
SPIKED = SPIKED / np.linalg.norm(SPIKED, axis=1).max()


@pytest.mark.parametrize("epsilon", [1.0, 1000.0])
@pytest.mark.parametrize("name,params,k", _mechanisms(), ids=[m[0] for m in _mechanisms()])
def test_components_are_ordered_and_paired_with_their_variances(name, params, k, epsilon):
    """explained_variance_ is non-increasing, and explained_variance_[i] is within 5 noise s.d. of the variance along
    components_[i] measured with transform (Gaussian tail: a miss has probability < 1e-5 per value), plus, for a
    rotated basis, the spectral norm of the noisy k x k matrix's noise (at most about 2 sqrt(k) s.d.)."""
    est = DPPCA(min(k, 3), mechanism=name, epsilon=epsilon, data_norm=1.0, random_state=4, mechanism_params=params).fit(
        SPIKED
    )
    ev = est.explained_variance_
    assert np.all(np.diff(ev) <= 0), (name, ev)
    n = SPIKED.shape[0]
    measured = (est.transform(SPIKED) ** 2).sum(axis=0) / (n - 1)  # center="none": second moments about 0
    pub = est.release_
    sd = pub["facts"]["eigenvalue_noise_scale"] / (n - 1)  # R = 1
    rotated = pub["outputs"]["variances_released"]["kind"] == "upper"
    kk = len(ev)
    tolerance = 5.0 * sd * (1.0 + (2.0 * math.sqrt(kk) if rotated else 0.0))
    # negatives were set to 0 (post-processing): a measured variance below the noise can only read as 0
    assert np.all(np.abs(ev - measured) <= tolerance + 1e-12), (name, ev, measured, tolerance)


def test_the_sampled_subspace_is_rotated_into_its_principal_directions():
    """The issue's ppca_exponential case: the variance along the components was [0.014, 0.051, 0.027] while
    explained_variance_ read [0.060, 0.023, 0.006]; now the first component carries the largest variance, at
    epsilon = 4 and at 1e10, and the two agree within the noise."""
    X = np.random.default_rng(0).normal(size=(5000, 10)) * np.r_[3, 2, 1, [0.3] * 7]
    X /= np.linalg.norm(X, axis=1).max()
    for eps in (4.0, 1e10):
        e = DPPCA(3, mechanism="ppca_exponential", epsilon=eps, data_norm=1, random_state=0).fit(X)
        along = (e.transform(X) ** 2).mean(0)
        assert np.all(np.diff(along) < 0), along
        sd = e.release_["facts"]["eigenvalue_noise_scale"] / (len(X) - 1)
        assert np.allclose(e.explained_variance_, along * len(X) / (len(X) - 1), atol=5 * sd * (1 + 2 * math.sqrt(3)))


def test_the_variance_share_sensitivity_is_sqrt2_and_reached():
    """||[diag or upper(V^T (x x^T - x' x'^T) V), ||x||^2 - ||x'||^2]|| over random rows of norm <= 1 and random V:
    never above sqrt(2) (replace) or sqrt(2) (add/remove, x' = 0), and reached by x = e1 in the span, x' = 0."""
    rng = np.random.default_rng(5)
    d, k = 6, 3
    worst = 0.0
    for _ in range(4000):
        V = np.linalg.qr(rng.normal(size=(d, k)))[0]
        x, y = (rng.normal(size=d) for _ in range(2))
        x *= rng.uniform() ** 0.2 / np.linalg.norm(x)
        y *= rng.uniform() ** 0.2 / np.linalg.norm(y) if rng.uniform() < 0.8 else 0.0
        A = V.T @ (np.outer(x, x) - np.outer(y, y)) @ V
        for vec in (np.append(np.diag(A), x @ x - y @ y), np.append(A[np.triu_indices(k)], x @ x - y @ y)):
            worst = max(worst, float(np.linalg.norm(vec)))
    assert worst <= math.sqrt(2) + 1e-12 and sensitivity("variances_diag_trace", "replace") == math.sqrt(2)
    V = np.eye(d)[:, :k]
    A = V.T @ np.outer(np.eye(d)[0], np.eye(d)[0]) @ V
    assert np.linalg.norm(np.append(np.diag(A), 1.0)) == pytest.approx(math.sqrt(2))
    assert sensitivity("variances_upper_trace", "add_remove") == math.sqrt(2)


def test_the_variance_share_matches_dp_accounting():
    """Its released vector is exactly (sqrt(2)/sigma)-GDP on the grid (post-processing of the Gaussian mechanism):
    dp-accounting's Gaussian privacy loss distribution with the grid's sensitivity and scale gives the same delta."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    share = Share(0.1, 0.0, 1e-6, 0.3)
    data = dc.prepare(SPIKED)
    out = private_variances(data, np.eye(6)[:, :2], share, "replace", np.random.default_rng(0))
    noise = out["noise"]
    reference = pld.from_gaussian_mechanism(
        float(noise.scale), sensitivity=noise.sensitivity, value_discretization_interval=1e-4
    )
    for eps in (0.1, 0.5, 1.0):
        assert noise.curve().delta_at(eps) == pytest.approx(reference.get_delta_for_epsilon(eps), abs=1e-6)
    assert noise.curve().mu <= share.mu

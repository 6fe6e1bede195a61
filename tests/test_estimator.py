"""DPPCA: scikit-learn conformance, private attributes that approach PCA's, nothing non-private stored, clipping notice.

Tolerances come from the published noise scales: a Gaussian vector g ~ N(0, s^2 I_m) has ||g|| <= s (sqrt(m) + t)
with probability >= 1 - exp(-t^2/2) (Lipschitz concentration, E||g|| <= sqrt(m)), and one N(0, s^2) coordinate
exceeds 4.5 s with probability 7e-6. Every check uses fixed seeds.
"""

import json
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import NearestCentroid
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import dppca_core as dc
from dppca_core.estimator import CLIP_WARNING_SHARE, ClippingWarning, DPPCA
from tests.helpers import spiked_rows

X, U = spiked_rows(2000, 6, 2, seed=0)
#: an offset, so centring matters: rows have norm <= 0.5 + 0.3 <= data_norm = 1 and are never clipped, and
#: centred rows (norm <= 0.5 + 0.5 ||mean of spiked||) stay inside the radius once the private mean is close
OFFSET = np.array([0.3, -0.1, 0.0, 0.05, 0.0, 0.0]) * 0.3 / np.linalg.norm([0.3, -0.1, 0.0, 0.05, 0.0, 0.0])
XC = 0.5 * X + OFFSET
DIGITS = load_digits().data  # pixels in [0, 16]: the public bound gives data_norm = sqrt(64 * 16^2) = 128
DIGITS_NORM = math.sqrt(64 * 16.0**2)


# ---------------------------------------------------------------- scikit-learn's conformance suite
@pytest.mark.filterwarnings("ignore::dppca_core.estimator.ClippingWarning")  # the suite's data exceed data_norm = 1
@parametrize_with_checks(
    [
        DPPCA(random_state=0),
        DPPCA(center="private", random_state=0),
        DPPCA(n_components=0.8, random_state=0),
        DPPCA(n_components=1, mechanism="private_power", random_state=0),
    ]
)
def test_sklearn_conformance(estimator, check):
    check(estimator)


def test_tags_declare_what_is_not_supported():
    tags = get_tags(DPPCA())
    assert tags.input_tags.sparse is False and tags.input_tags.allow_nan is False
    assert tags.non_deterministic is False  # a fixed random_state fixes the release
    assert tags.transformer_tags.preserves_dtype == ["float64"]
    assert DPPCA(n_components=2, random_state=3).fit(X).transform(X[:5].astype(np.float32)).dtype == np.float64


# ---------------------------------------------------------------- private attributes approach PCA's
def _sin_theta(A, B):
    """||sin Theta||_F between the row spaces of two matrices with orthonormal rows."""
    return math.sqrt(max(A.shape[0] - np.linalg.norm(A @ B.T) ** 2, 0.0))


@pytest.mark.parametrize("epsilon", [1.0, 10.0, 100.0, 1000.0])
def test_private_attributes_approach_pca_within_their_noise(epsilon):
    # data in units where the public radius is R = 10 (rows of norm <= 8): every bound below is in the units of
    # the scaled rows (norm <= 1) the noise is calibrated for, and converted with R or R^2
    R, k = 10.0, 2
    data = R * XC
    n, d = data.shape
    est = DPPCA(k, epsilon=epsilon, data_norm=R, center="private", random_state=7).fit(data)
    pca = PCA(k).fit(data)
    facts = est.release_["facts"]
    # mean: noisy sum / n with noise N(0, s^2 I_d) on rows of norm <= 1 (then projected on the ball, which only helps)
    mean_bound = facts["mean_noise_scale"] * (math.sqrt(d) + 4.0) / n
    u = (est.mean_ - pca.mean_) / R  # the centring error in scaled units
    assert np.linalg.norm(u) <= mean_bound
    # the Gram matrix of the privately centred rows is G_c + n u u^T (exactly centred Gram plus a rank-one term)
    G_c = (data - pca.mean_).T @ (data - pca.mean_) / R**2
    exact = np.sort(np.linalg.eigvalsh(G_c))[::-1]
    shift = n * float(u @ u)
    # eigenvalues and trace: k + 1 Gaussian coordinates of s.d. s_e, each within 4.5 s_e; clipping at 0 and sorting
    # never move a coordinate further from the (sorted, non-negative) truth than that
    e_lam = shift + 4.5 * facts["eigenvalue_noise_scale"]
    assert np.all(np.abs(est.explained_variance_ - pca.explained_variance_) <= e_lam * R**2 / (n - 1))
    assert np.all(np.abs(est.singular_values_ - pca.singular_values_) <= R * np.sqrt(e_lam))  # |sqrt a - sqrt b|
    # the trace is raised to at least the sum of the top k: |t' - t| <= max(e_t, k e_lam)
    t = float(exact.sum())
    e_t = max(shift + 4.5 * facts["eigenvalue_noise_scale"], k * e_lam)
    if e_t < t:  # otherwise the noise may exceed the whole trace (small epsilon): no bound on the ratio
        ratio_err = np.abs(est.explained_variance_ratio_ - pca.explained_variance_ratio_)
        assert np.all(ratio_err <= (e_lam + e_t) / (t - e_t))
    # subspace (Analyze Gauss): E = symmetric noise (upper triangle N(0, sigma^2): ||E||_F <= sqrt(2) sigma
    # (sqrt(d(d+1)/2) + 4)) plus the rank-one centring term; Davis-Kahan (Yu, Wang & Samworth 2015):
    # ||sin Theta||_F <= 2 ||E||_F / (lambda_k - lambda_{k+1})
    sigma = est.release_["noise_scale"]
    E = math.sqrt(2.0) * sigma * (math.sqrt(d * (d + 1) / 2) + 4.0) + shift
    assert _sin_theta(est.components_, pca.components_) <= 2.0 * E / (exact[k - 1] - exact[k])
    if epsilon == 1000.0:  # the bounds themselves vanish as epsilon grows: the attributes approach PCA's
        assert mean_bound < 1e-3 and e_lam / exact[0] < 1e-2 and 2.0 * E / (exact[k - 1] - exact[k]) < 0.05


def test_ratios_never_sum_above_one():
    # at small epsilon the noisy trace can fall below the sum of the released eigenvalues (seed 0 here); the trace
    # is then raised to that sum (post-processing), so the explained-variance ratios still sum to at most 1
    est = DPPCA(None, epsilon=0.5, random_state=0).fit(X)
    lam = np.maximum(est.release_["eigenvalues"], 0.0)
    assert est.release_["outputs"]["total_variance"] < lam.sum()  # the case this test is about
    assert est.explained_variance_ratio_.sum() <= 1.0 + 1e-12 and np.all(est.explained_variance_ratio_ >= 0)


def test_noise_variance_and_uncentred_attributes_follow_the_release():
    k = 2
    est = DPPCA(k, epsilon=50.0, random_state=1).fit(X)
    pub = est.release_
    R, n, d = pub["parameters"]["data_norm"], pub["parameters"]["n"], X.shape[1]
    lam = np.sort(np.maximum(pub["eigenvalues"], 0.0))[::-1]
    trace = max(pub["outputs"]["total_variance"], lam.sum())
    assert np.allclose(est.explained_variance_, lam * R**2 / (n - 1))
    assert np.allclose(est.explained_variance_ratio_, lam / trace)
    assert est.noise_variance_ == pytest.approx((trace - lam.sum()) * R**2 / (n - 1) / (d - k))
    assert np.array_equal(est.mean_, np.zeros(d)) and est.n_samples_ == n
    # uncentred: the eigenvalues are those of X^T X (second moments about the origin), within the noise
    exact = np.sort(np.linalg.eigvalsh(X.T @ X))[::-1][:k]
    assert np.all(np.abs(lam - exact) <= 4.5 * pub["facts"]["eigenvalue_noise_scale"])
    assert DPPCA(d, epsilon=50.0, random_state=1).fit(X).noise_variance_ == 0.0


def test_float_n_components_is_chosen_from_the_private_ratios_only():
    est = DPPCA(0.9, epsilon=200.0, random_state=2).fit(X)
    pub = est.release_
    d = X.shape[1]
    rule = pub["parameters"]["k_rule"]
    assert rule["components_released"] == d and rule["variance_target"] == 0.9  # the whole spectrum was released
    assert pub["parameters"]["k"] == est.n_components_ == len(pub["eigenvalues"])  # the k kept are published
    assert pub["facts"]["budget"]["eigenvalues"]["share"] == pytest.approx(0.1)
    # the rule, replayed on the published release alone: smallest k with cumulative private ratio > 0.9
    ratio = np.asarray(pub["outputs"]["candidate_ratios"])
    assert len(ratio) == d and np.all(np.diff(ratio) <= 0)
    expected = int(np.argmax(np.cumsum(ratio) > 0.9)) + 1 if np.cumsum(ratio)[-1] > 0.9 else d
    assert est.n_components_ == expected == est.components_.shape[0]
    # at this epsilon the noise is far below the margin of the exact cumulative ratio to 0.9 (uncentred, as fitted)
    exact = np.sort(np.linalg.eigvalsh(X.T @ X))[::-1]
    cumulative = np.cumsum(exact / exact.sum())
    exact_k = int(np.argmax(cumulative > 0.9)) + 1
    assert np.min(np.abs(cumulative - 0.9)) > 0.05 and est.n_components_ == exact_k
    # the estimator refuses a float it could only choose from nothing private
    with pytest.raises(ValueError, match="eigenvalues"):
        DPPCA(0.9, mechanism="private_power", budget={"eigenvalues": 0.0}, random_state=0).fit(X)


# ---------------------------------------------------------------- nothing non-private is stored
def _leaves(value, path=""):
    if isinstance(value, dict):
        return {p: v for key, item in value.items() for p, v in _leaves(item, f"{path}.{key}").items()}
    if isinstance(value, (list, tuple)):
        return {p: v for i, item in enumerate(value) for p, v in _leaves(item, f"{path}[{i}]").items()}
    if isinstance(value, np.ndarray):
        return _leaves(value.tolist(), path)
    return {path: value}


def _fitted(est):
    """Everything fit stored on the estimator (public or not), i.e. all but the constructor's parameters."""
    params = est.get_params(deep=False)
    return {name: value for name, value in vars(est).items() if name not in params}


def _neighbours(neighbors):
    rng = np.random.default_rng(11)
    base = rng.normal(size=(29, 4)) * [0.4, 0.3, 0.2, 0.1]
    base /= np.maximum(np.linalg.norm(base, axis=1, keepdims=True), 1.0)
    D = np.vstack([[[5.0, 0.0, 0.0, 0.0]], base])  # clipped to e1 (1 of 30 rows: no warning)
    D_prime = base if neighbors == "add_remove" else np.vstack([[[0.0, 0.5, 0.0, 0.0]], base])
    return D, D_prime


@pytest.mark.filterwarnings("ignore::dppca_core.estimator.ClippingWarning")  # 30 rows at epsilon 1: a noisy mean
@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
@pytest.mark.parametrize("center", ["none", "private"])
def test_no_fitted_attribute_is_noise_free_and_data_dependent(neighbors, center):
    # a fitted value identical across seeds on D carries no noise; if it then differs on the neighbour D', it
    # identifies the dataset (this fails on an estimator that keeps e.g. the empirical mean or the exact trace)
    D, D_prime = _neighbours(neighbors)
    fit = lambda data, seed: _leaves(
        _fitted(
            DPPCA(
                2,
                epsilon=1.0,
                neighbors=neighbors,
                center=center,  # noqa: E731
                random_state=seed,
            ).fit(data)
        )
    )
    on_d = [fit(D, s) for s in range(4)]
    on_dp = fit(D_prime, 0)
    for path, value in on_d[0].items():
        if all(leaves.get(path) == value for leaves in on_d[1:]):
            assert on_dp.get(path) == value, f"fitted value {path} is noise-free and data-dependent"


@pytest.mark.filterwarnings("ignore::dppca_core.estimator.ClippingWarning")  # 30 rows at epsilon 1: a noisy mean
def test_pickled_estimator_holds_no_exact_statistic_nor_diagnostics():
    D, _ = _neighbours("replace")
    est = DPPCA(2, epsilon=1.0, center="private", random_state=0).fit(D)
    blob = pickle.dumps(est)
    for word in (b"rows_clipped", b"NonPrivateDiagnostics", b"clipped", b"seconds", b"warnings"):
        assert word not in blob
    exact = [float(v) for v in D.mean(axis=0)] + [float(np.trace(D.T @ D))]
    exact += [float(v) for v in np.linalg.eigvalsh(D.T @ D)]
    exact += [float(v) for v in np.linalg.eigvalsh(np.cov(D.T))]
    numbers = [v for v in _leaves(_fitted(pickle.loads(blob))).values() if isinstance(v, float)]
    for target in exact:
        assert not any(abs(v - target) <= 1e-9 * max(1.0, abs(target)) for v in numbers), target
    json.dumps(est.release_, allow_nan=False)  # release_ is the plain published dict


@pytest.mark.parametrize("seed", [0, np.random.RandomState(0), np.random.default_rng(0)])
def test_pickled_fitted_estimator_does_not_carry_the_seed(seed):
    # with the seed, anyone could regenerate Analyze Gauss's noise matrix and subtract it from the published
    # eigen-decomposition; the pickle of a fitted estimator therefore stores random_state=None
    est = DPPCA(2, epsilon=1.0, random_state=seed).fit(X)
    back = pickle.loads(pickle.dumps(est))
    assert back.random_state is None and est.random_state is seed  # the live estimator keeps its parameter
    assert np.array_equal(back.transform(X), est.transform(X)) and back.release_ == est.release_
    # an unfitted estimator (what a search pickles for its workers) keeps it, so runs stay reproducible
    assert pickle.loads(pickle.dumps(DPPCA(2, random_state=3))).random_state == 3


# ---------------------------------------------------------------- clipping notice
def test_default_data_norm_on_raw_pixels_warns_and_a_public_bound_does_not():
    with pytest.warns(ClippingWarning, match=r"1797 of 1797 rows \(100%\).*sqrt\(sum_j b_j\*\*2\)") as record:
        est = DPPCA(5, random_state=0).fit(DIGITS)
    assert issubclass(ClippingWarning, UserWarning) and len(record) == 1
    assert b"1797 of 1797" not in pickle.dumps(est)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        DPPCA(5, data_norm=DIGITS_NORM, random_state=0).fit(DIGITS)  # |x_j| <= 16: no row can be clipped
        D, _ = _neighbours("replace")  # its first row (norm 5) is clipped: 1 of 30 rows, below the notable share
        assert 1 / 30 < CLIP_WARNING_SHARE
        DPPCA(2, random_state=0).fit(D)


def test_clipping_after_private_centring_warns():
    # 90% of rows at 0.9 e1, 10% at -0.9 e1: the mean is near 0.72 e1, so the minority's centred rows have
    # norm ~1.6 > data_norm and are clipped again
    rows = np.zeros((200, 3))
    rows[:180, 0], rows[180:, 0] = 0.9, -0.9
    rows[:, 1] = np.linspace(-0.05, 0.05, 200)
    with pytest.warns(ClippingWarning, match="after centring with the private mean, 20 of 200"):
        DPPCA(1, epsilon=20.0, center="private", random_state=0).fit(rows)


# ---------------------------------------------------------------- API round-trips
def test_gridsearch_pipeline_clone_roundtrip():
    """Pipeline, GridSearchCV and clone accept DPPCA like PCA.

    This demonstrates API compatibility only: GridSearchCV's scoring reads the data (held-out accuracy), so the
    hyperparameters it selects are NOT chosen privately; each DPPCA fit inside it is private on its own, but the
    search as a whole is not a private procedure.
    """
    pipe = Pipeline(
        [
            ("dppca", DPPCA(epsilon=5.0, data_norm=DIGITS_NORM, center="private", random_state=0)),
            ("clf", NearestCentroid()),
        ]
    )
    y = load_digits().target
    search = GridSearchCV(pipe, {"dppca__n_components": [4, 12]}, cv=3).fit(DIGITS, y)
    assert search.best_params_["dppca__n_components"] in (4, 12)
    assert search.best_estimator_.named_steps["dppca"].components_.shape[1] == 64
    assert search.score(DIGITS, y) > 0.5  # 10 classes: a projection that kept nothing would score ~0.1
    est = DPPCA(
        3,
        budget=dc.BudgetSplit.with_extras(eigenvalues=0.2),
        random_state=np.random.RandomState(4),
        mechanism_params={},
    )
    twin = clone(est)
    assert twin is not est and twin.get_params().keys() == est.get_params().keys()
    assert twin.budget == est.budget and twin.n_components == 3
    fitted = DPPCA(2, random_state=5).fit(X)
    assert np.array_equal(clone(fitted).fit(X).components_, fitted.components_)  # clone keeps the params only
    assert not hasattr(clone(fitted), "components_")


def test_pandas_output_and_feature_names():
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    est = DPPCA(3, epsilon=5.0, random_state=0).set_output(transform="pandas").fit(frame)
    assert list(est.feature_names_in_) == list(frame.columns)
    out = est.transform(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["dppca0", "dppca1", "dppca2"]
    assert list(est.get_feature_names_out()) == ["dppca0", "dppca1", "dppca2"]
    pipe = make_pipeline(FunctionTransformer(), DPPCA(2, random_state=0)).set_output(transform="pandas").fit(frame)
    assert list(pipe.transform(frame).columns) == ["dppca0", "dppca1"]


def test_transform_inverse_and_likelihood_use_the_private_attributes():
    est = DPPCA(2, epsilon=5.0, center="private", random_state=0).fit(XC)
    Z = est.transform(XC)
    assert np.allclose(Z, (XC - est.mean_) @ est.components_.T)
    assert np.allclose(Z, est.fit_transform(XC))  # same random_state -> same release
    back = est.inverse_transform(Z)
    assert np.allclose(back, Z @ est.components_ + est.mean_)
    assert np.allclose(est.transform(back), Z)  # a projection: idempotent on its image
    cov = est.get_covariance()
    assert np.allclose(est.get_precision() @ cov, np.eye(6), atol=1e-8)
    expected = multivariate_normal(est.mean_, cov).logpdf(XC[:50])
    assert np.allclose(est.score_samples(XC[:50]), expected)
    assert est.score(XC[:50]) == pytest.approx(expected.mean())
    # the model is PCA's probabilistic model: with near-exact attributes it gives PCA's likelihood
    close = DPPCA(2, epsilon=1e4, center="private", random_state=0).fit(XC)
    assert close.score(XC) == pytest.approx(PCA(2).fit(XC).score(XC), rel=1e-3)


def test_random_state_forms():
    a = DPPCA(2, random_state=3).fit(X)
    rel = dc.release_pca("analyze_gauss", X, 2, 1.0, seed=3, budget=dc.BudgetSplit.with_extras(eigenvalues=0.1))
    assert np.array_equal(a.components_, rel.components.T)  # an int seeds release_pca exactly
    b1 = DPPCA(2, random_state=np.random.RandomState(5)).fit(X).components_
    b2 = DPPCA(2, random_state=np.random.RandomState(5)).fit(X).components_
    assert np.array_equal(b1, b2)
    gen = np.random.default_rng(0)
    est = DPPCA(2, random_state=gen)
    c1, c2 = est.fit(X).components_.copy(), est.fit(X).components_.copy()
    assert not np.array_equal(c1, c2)  # a Generator is advanced by each fit
    for bad in (-1, "seed", True, 1.5):
        with pytest.raises(ValueError, match="random_state"):
            DPPCA(2, random_state=bad).fit(X)


def test_budget_forms_and_composition():
    est = DPPCA(2, epsilon=0.7, center="private", budget={"mean": 0.2, "eigenvalues": 0.1}, random_state=0).fit(XC)
    shares = {p: v["share"] for p, v in est.release_["facts"]["budget"].items()}
    assert shares == pytest.approx({"mean": 0.2, "eigenvalues": 0.1, "subspace": 0.7})
    assert est.release_["epsilon"] == 0.7  # the parts compose to the total (release_pca checks the curve)
    full = DPPCA(2, budget={"subspace": 0.9, "eigenvalues": 0.1}, random_state=0).fit(X)
    assert full.release_["parameters"]["budget"]["subspace"] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="the mean a share of 0.1, but nothing uses it"):
        DPPCA(2, budget={"mean": 0.1}).fit(X)
    with pytest.raises(ValueError, match="positive mean share"):
        DPPCA(2, center="private", budget={"eigenvalues": 0.1}).fit(X)
    with pytest.raises(ValueError, match="unknown part"):
        DPPCA(2, budget={"spectrum": 0.1}).fit(X)
    with pytest.raises(ValueError, match="not 1"):
        DPPCA(2, budget={"subspace": 0.5}).fit(X)
    # no spectrum share: Analyze Gauss's own noisy eigenvalues and trace serve; private_power has none
    own = DPPCA(2, budget={"eigenvalues": 0.0}, random_state=0).fit(X)
    assert "eigenvalues" not in own.release_["facts"]["budget"] and own.explained_variance_.shape == (2,)
    bare = DPPCA(2, mechanism="private_power", budget={"eigenvalues": 0.0}, random_state=0).fit(X)
    assert not hasattr(bare, "explained_variance_") and not hasattr(bare, "explained_variance_ratio_")
    assert bare.transform(X).shape == (2000, 2)
    with pytest.raises(ValueError, match="eigenvalues"):
        bare.score(X)
    # a refit with a budget that releases no spectrum drops the old spectrum attributes
    own.set_params(mechanism="private_power").fit(X)
    assert not hasattr(own, "explained_variance_")


def test_add_remove_hides_n():
    est = DPPCA(2, neighbors="add_remove", random_state=0).fit(X)
    assert "n" not in est.release_["parameters"]
    assert est.explained_variance_ratio_.shape == (2,) and est.singular_values_.shape == (2,)
    if "count" in est.release_["outputs"]:  # a private count, where the release holds one
        assert est.explained_variance_.shape == (2,)
    else:
        assert not hasattr(est, "explained_variance_") and not hasattr(est, "n_samples_")
        with pytest.raises(ValueError, match="private count"):
            est.score(X)


def test_errors():
    est = DPPCA(2, random_state=0)
    with pytest.raises(NotFittedError):
        est.transform(X)
    est.fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but DPPCA is expecting 6 features"):
        est.transform(X[:, :3])
    with pytest.raises(ValueError, match="expects n_components_ = 2"):
        est.inverse_transform(X)
    for bad in (0, 9, 1.0, 0.0, "mle", True):
        with pytest.raises(ValueError, match="n_components"):
            DPPCA(bad).fit(X)
    with pytest.raises(ValueError, match="releases at most 1"):
        DPPCA(mechanism="private_oja").fit(X)
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked.mask[0, 0] = True
    with pytest.raises(ValueError, match="masked"):
        DPPCA(2).fit(masked)
    with pytest.raises(ValueError, match="dates"):
        DPPCA(1).fit(pd.DataFrame({"when": pd.date_range("2020-01-01", periods=5), "x": np.arange(5.0)}))
    with pytest.raises(ValueError, match="epsilon"):
        DPPCA(2, epsilon=0).fit(X)
    with pytest.raises(ValueError, match="center"):
        DPPCA(2, center="empirical").fit(X)


def test_under_add_remove_n_comes_from_any_private_count_the_release_publishes():
    """n is private under add/remove: the estimator never reads it off X. With private column scales (no private
    mean) the release publishes the scales' noisy row count, and n_samples_ is that count."""
    from dppca_core.estimator import DPPCA

    X = np.random.default_rng(0).normal(size=(400, 4)) * [3.0, 2.0, 1.0, 0.5]
    est = DPPCA(
        2, epsilon=2.0, neighbors="add_remove", scale="private", column_bounds=[10.0] * 4, data_norm=4.0, random_state=0
    ).fit(X)
    count = est.release_["outputs"]["column_scales_count"]
    assert est.n_samples_ == count and "n" not in est.release_["parameters"]
    assert hasattr(est, "explained_variance_")

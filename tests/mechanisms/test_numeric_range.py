"""Every registered mechanism over the whole positive float range of data_norm, epsilon and delta (and the tensor
mechanisms' own parameters): a Release or a ValueError, never another exception. Where the arithmetic stops
being meaningful, the ValueError names the usable range."""

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dppca_core as dc
from dppca_core.release import Release

TINY, HUGE = 5e-324, 1.7976931348623157e308


@st.composite
def positive_floats(draw):
    """A positive finite float anywhere in [5e-324, 1.8e308]: log-uniform mantissa x 10^e, the extremes, or
    hypothesis' own choice."""
    kind = draw(st.sampled_from(["log", "usable", "edge", "any"]))
    if kind == "log":
        value = draw(st.floats(1.0, 10.0)) * 10.0 ** draw(st.integers(-323, 307))
    elif kind == "usable":  # around and across the limits of the usable ranges (epsilon 1e-6 .. 1e16)
        value = draw(st.floats(1.0, 10.0)) * 10.0 ** draw(st.integers(-8, 17))
    elif kind == "edge":
        value = draw(
            st.sampled_from([TINY, 2.2250738585072014e-308, 1e-300, 1e-150, 1e-6, 1.0, 1e6, 1e150, 1e300, HUGE])
        )
    else:
        value = draw(st.floats(min_value=TINY, max_value=HUGE, allow_nan=False, allow_infinity=False))
    return min(max(value, TINY), HUGE)


@st.composite
def deltas(draw):
    """delta in (0, 1) across its range: 10^-e for e up to 323, and values near 1."""
    kind = draw(st.sampled_from(["small", "near_one", "any"]))
    if kind == "small":
        return max(draw(st.floats(1.0, 10.0)) * 10.0 ** -draw(st.integers(1, 323)), TINY)
    if kind == "near_one":
        return 1.0 - 10.0 ** -draw(st.integers(1, 16))
    return draw(st.floats(min_value=TINY, max_value=1.0, exclude_max=True))


def _data(d: int, scale: float) -> np.ndarray:
    X = np.random.default_rng(7).standard_normal((40, d)) * np.linspace(3, 0.5, d)
    return X * scale


def _check(mechanism, X, k, epsilon, delta, data_norm, **params):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = dc.run(mechanism, X, k, epsilon, delta, data_norm=data_norm, seed=0, **params)
    except ValueError as err:
        assert str(err).strip(), "a ValueError must say what to change"
        return None
    assert isinstance(release, Release)
    d = X.vocabulary_size if hasattr(X, "vocabulary_size") else X.shape[1]
    assert release.components.shape == (d, k) and np.all(np.isfinite(release.components))
    return release


PCA = dc.mechanism_names("pca")
TENSOR = dc.mechanism_names("tensor")
#: cheap settings of the parameters that only cost time (the ranges tested are data_norm, epsilon and delta)
FAST = {
    "ppca_exponential": {"sweeps": 3},
    "private_power": {"iterations": 5},
    "dps_pca": {"iterations": 3},
    "ldp_sparse": {"max_iter": 20},
}
EXAMPLES = int(os.environ.get("NUMERIC_RANGE_EXAMPLES", 30))  # more for a deeper local search
SCALES = st.sampled_from([1e-300, 1e-8, 1.0, 1e8, 1e300])


@pytest.mark.parametrize("mechanism", PCA)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_norm=positive_floats(), epsilon=positive_floats(), delta=deltas(), scale=SCALES, k=st.integers(1, 3))
def test_pca_mechanisms_give_a_release_or_a_value_error(mechanism, data_norm, epsilon, delta, scale, k):
    spec = dc.get_mechanism(mechanism)
    k = min(k, spec.max_k or k)
    _check(mechanism, _data(5, scale), k, epsilon, delta, data_norm, **FAST.get(mechanism, {}))


@st.composite
def tensor_params(draw, mechanism):
    spec = dc.get_mechanism(mechanism)
    names = {p.name for p in spec.params}
    params = {
        "split": draw(st.floats(0.05, 0.95)),
        "sigma2": draw(st.one_of(st.just(0.0), st.sampled_from([TINY, 1e-300, 100.0]), st.floats(0.0, 100.0))),
        "restarts": draw(st.integers(1, 3)),
        "iterations": draw(st.integers(1, 4)),
    }
    if "kappa" in names:
        params["kappa"] = draw(st.one_of(st.sampled_from([1.0, 1e6]), st.floats(1.0, 1e6)))
    if "sites" in names:
        params["sites"] = draw(st.integers(1, 4))
    return params


@pytest.mark.parametrize("mechanism", TENSOR)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    data_norm=positive_floats(),
    epsilon=positive_floats(),
    delta=deltas(),
    scale=SCALES,
    k=st.integers(1, 3),
)
def test_tensor_mechanisms_give_a_release_or_a_value_error(mechanism, data, data_norm, epsilon, delta, scale, k):
    params = data.draw(tensor_params(mechanism))
    _check(mechanism, _data(4, scale), k, epsilon, delta, data_norm, **params)


@pytest.mark.parametrize("mechanism", TENSOR)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(epsilon=positive_floats(), delta=deltas(), k=st.integers(1, 3), seed=st.integers(0, 3))
def test_topic_model_gives_a_release_or_a_value_error(mechanism, epsilon, delta, k, seed):
    from dppca_core.tensor.moments import Documents

    words = np.random.default_rng(seed).integers(0, 5, size=(60, 3))
    params = {"restarts": 2, "iterations": 3}
    if any(p.name == "sites" for p in dc.get_mechanism(mechanism).params):
        params["sites"] = 3
    _check(mechanism, Documents(words, 5), k, epsilon, delta, 1.0, **params)


# -- the crashes the issue lists, each at its cause -------------------------------------------------------

X5 = _data(5, 1.0)


@pytest.mark.parametrize("mechanism", ["private_power", "dps_pca", "amin_iterative", "ldp_sparse", "analyze_gauss"])
def test_a_tiny_data_norm_clips_every_row_and_still_releases(mechanism):
    """data_norm = 1e-300 clips every row to norm 1 after scaling: a valid release (was LinAlgError)."""
    release = _check(mechanism, X5, 2, 1.0, 1e-6, 1e-300, **FAST.get(mechanism, {}))
    assert release is not None


@pytest.mark.parametrize("mechanism", TENSOR)
@pytest.mark.parametrize("data_norm", [1e-300, 2.3e-308, 1e300, HUGE])
def test_tensor_moments_at_extreme_data_norm(mechanism, data_norm):
    """sigma2 / data_norm^2 overflowed or divided by an underflowed 0 (ZeroDivisionError / OverflowError)."""
    params = {"restarts": 2, "iterations": 3, "sigma2": 0.0}
    if "sites" in {p.name for p in dc.get_mechanism(mechanism).params}:
        params["sites"] = 2
    assert _check(mechanism, _data(4, 1.0), 2, 1.0, 1e-6, data_norm, **params) is not None  # sigma2 = 0: fine
    params["sigma2"] = 0.05
    try:
        dc.run(mechanism, _data(4, 1.0), 2, 1.0, 1e-6, data_norm=data_norm, seed=0, **params)
    except ValueError as err:
        assert data_norm < 1 and "sigma2" in str(err) and "data_norm" in str(err)


@pytest.mark.parametrize("data_norm", [5e-324, 1e-310, 2.2e-308])
def test_a_subnormal_data_norm_is_refused_with_the_usable_range(data_norm):
    """Rows are divided by data_norm: below the smallest normal double 1/data_norm overflows (a zero row became
    NaN)."""
    X = np.vstack([X5, np.zeros(5)])
    for mechanism in ("analyze_gauss", "otd_agn"):
        with pytest.raises(ValueError, match=r"Use data_norm >= 2\.3e-308"):
            dc.run(mechanism, X, 2, 1.0, data_norm=data_norm)
    assert _check("analyze_gauss", X, 2, 1.0, 1e-6, 2.3e-308) is not None


@pytest.mark.parametrize("mechanism", ["ppca_exponential", "amin_iterative"])
@pytest.mark.parametrize("epsilon", [1e15, 1e100, 1e300])
def test_the_exponential_mechanisms_refuse_a_concentration_they_cannot_sample(mechanism, epsilon):
    """At epsilon = 1e300 the Bingham sampler raised AttributeError or RuntimeError."""
    with pytest.raises(ValueError, match=r"epsilon .* n <= "):
        dc.run(mechanism, X5, 2, epsilon, **FAST.get(mechanism, {}))
    assert _check(mechanism, X5, 2, 1e6, 1e-6, 1.0, **FAST.get(mechanism, {})) is not None


def test_mod_sulq_at_a_huge_epsilon_says_how_large_epsilon_may_be():
    """mod_sulq at epsilon = 1e300 raised RuntimeError ("the calibration is wrong")."""
    with pytest.raises(ValueError, match=r"Use epsilon <= [0-9.e+]+ at this delta"):
        dc.run("mod_sulq", X5, 2, 1e300)
    assert _check("mod_sulq", X5, 2, 1e12, 1e-6, 1.0) is not None


# -- issue 30, item 3: a large finite epsilon passed validation and then crashed ---------------------------


def _issue30_X():
    rs = np.random.RandomState(0)
    X = rs.randn(250, 21)
    X -= X.mean(0)
    return X / np.linalg.norm(X, axis=1).max()


def test_estimator_fits_at_epsilon_1e12():
    est = dc.DPPCA(3, epsilon=1e12, data_norm=1).fit(_issue30_X())  # was RuntimeError "calibration is wrong"
    assert est.components_.shape == (3, 21) and np.all(np.isfinite(est.components_))


def test_release_pca_with_private_centring_at_epsilon_1e12():
    release = dc.release_pca("analyze_gauss", _issue30_X(), 3, 1e12, 1e-6, center="private", seed=0)
    assert release.privacy.delta_at(1e12) <= 1e-6 * (1 + 1e-6)


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "private_power"])
def test_run_at_epsilon_1e12_spends_the_budget_it_claims(mechanism):
    """At 1e12 the old calibration capped mu at 2^20 (a quarter too much noise: delta earned 0, not 1e-6) and
    between about 1.4e11 and 5e11 it gave too little noise (delta = 1, caught as a RuntimeError)."""
    release = dc.run(mechanism, _issue30_X(), 3, 1e12, 1e-6, seed=0)
    earned = release.privacy.delta_at(1e12)
    assert 0.99e-6 <= earned <= 1e-6  # tight: the noise is what the claim needs, not more, not less
    release = dc.run(mechanism, _issue30_X(), 3, 2e11, 1e-6, seed=0)
    assert release.privacy.delta_at(2e11) <= 1e-6


@pytest.mark.parametrize("epsilon", [10.0**e for e in range(0, 16)] + [1.7e15])
@pytest.mark.parametrize("delta", [1e-100, 1e-6, 0.5])
def test_the_gaussian_calibration_is_exact_up_to_its_usable_range(epsilon, delta):
    from dppca_core.privacy import gaussian_delta, gaussian_epsilon, gaussian_mu

    try:
        mu = gaussian_mu(epsilon, delta)
    except ValueError as err:
        usable = float(str(err).split("Use epsilon <= ")[1].split(" ")[0])
        assert usable < epsilon and "mechanism='non_private'" in str(err)
        assert gaussian_mu(usable, delta) > 0  # the range it names works
        return
    # tight and safe: the delta earned is the claim within 1e-9 (relative), or below it by at most the 2^-48 margin
    # for later rounding (worth at most 1e-6 relative by construction) plus the root finder's tolerance
    assert delta * (1 - 2e-6) <= gaussian_delta(epsilon, mu) <= delta * (1 + 1e-9)
    assert gaussian_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-9)


def test_a_tiny_epsilon_with_a_tiny_delta_is_calibrated_within_the_claim():
    """epsilon = 1e-6, delta = 1e-100: the root finder's absolute tolerance left mu 2e-5 (relative) too large in
    delta, caught as a RuntimeError ("the calibration is wrong")."""
    release = dc.run("analyze_gauss", X5, 2, 1e-6, 1e-100, seed=0)
    assert release.privacy.delta_at(1e-6) <= 1e-100 * (1 + 1e-9)


def test_the_usable_range_of_the_gaussian_calibration_grows_with_delta():
    from dppca_core.privacy import gaussian_mu

    with pytest.raises(ValueError, match=r"Use epsilon <= 8\.7e\+13 at this delta"):
        gaussian_mu(1e15, 1e-100)
    with pytest.raises(ValueError, match=r"Use epsilon <= 1\.7e\+15 at this delta"):
        gaussian_mu(1e16, 1e-6)
    assert math.isfinite(gaussian_mu(1e15, 1e-6))


def test_infinite_epsilon_points_to_the_non_private_mechanism():
    for call in (
        lambda: dc.run("analyze_gauss", X5, 2, math.inf),
        lambda: dc.release_pca("analyze_gauss", X5, 2, math.inf),
        lambda: dc.DPPCA(2, epsilon=math.inf).fit(X5),
    ):
        with pytest.raises(ValueError, match=r"mechanism='non_private'"):
            call()

"""Property-based fuzzing of run(): every input ends in a valid release or a ValueError, never anything else."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dppca_core as dc

FAST = [m for m in dc.mechanism_names("pca") if m not in ("dp_pca", "ppca_exponential")]
#: DP-PCA and its top-k extension need minibatches of at least 8 rows per component (a public precondition: n >= 8k,
#: refused with a ValueError, which the first fuzz test accepts); the valid problems below start at n = 4
ANY_N = [m for m in FAST if m != "topk_dp_pca"]

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
anything = st.one_of(finite, st.just(np.nan), st.just(np.inf), st.just(-np.inf), st.just(0.0))


@st.composite
def matrices(draw):
    n = draw(st.integers(0, 12))
    d = draw(st.integers(0, 6))
    fill = draw(st.sampled_from([finite, anything]))
    values = draw(st.lists(fill, min_size=n * d, max_size=n * d))
    return np.array(values, dtype=float).reshape(n, d)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    X=matrices(),
    mechanism=st.sampled_from(FAST),
    k=st.one_of(st.integers(-1, 7), st.floats(0, 3)),
    epsilon=st.one_of(st.floats(-1, 1e4), st.just(float("nan")), st.just(0.0), st.just(1e-8)),
    delta=st.one_of(st.floats(-0.5, 1.5), st.just(float("nan")), st.just(1e-300)),
    data_norm=st.one_of(st.floats(-1, 1e6), st.just(float("nan")), st.just(1.0)),
)
def test_run_returns_valid_release_or_value_error(X, mechanism, k, epsilon, delta, data_norm):
    params = {"sites": 2} if any(p.name == "sites" for p in dc.get_mechanism(mechanism).params) else {}
    try:
        rel = dc.run(mechanism, X, k, epsilon, delta, data_norm=data_norm, seed=0, **params)
    except ValueError as err:
        assert str(err)  # a message the user can act on
        return
    V = rel.components
    assert V.shape == (X.shape[1], k)
    assert np.all(np.isfinite(V))
    assert np.allclose(V.T @ V, np.eye(k), atol=1e-6)


def test_huge_values_are_clipped_not_zeroed():
    X = np.array([[1e300, 1e300], [1.0, 0.0], [0.0, 1.0]])
    prepared = dc.prepare(X, data_norm=1.0)
    assert np.allclose(np.linalg.norm(prepared.rows, axis=1), 1.0)
    assert prepared.n_clipped == 1


@st.composite
def valid_problems(draw):
    n = draw(st.integers(4, 30))
    d = draw(st.integers(2, 6))
    scale = draw(st.sampled_from([1e-200, 1e-3, 1.0, 1e3, 1e200]))
    values = draw(st.lists(st.floats(-1, 1), min_size=n * d, max_size=n * d))
    X = np.array(values).reshape(n, d) * scale
    return X, draw(st.integers(1, d))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    problem=valid_problems(),
    mechanism=st.sampled_from(ANY_N),
    epsilon=st.floats(1e-3, 1e3),
    delta=st.floats(1e-12, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_valid_inputs_always_give_a_valid_release(problem, mechanism, epsilon, delta, seed):
    X, k = problem
    spec = dc.get_mechanism(mechanism)
    if spec.max_k is not None:
        k = min(k, spec.max_k)
    params = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
    rel = dc.run(mechanism, X, k, epsilon, delta, seed=seed, **params)
    V = rel.components
    assert np.all(np.isfinite(V)) and np.allclose(V.T @ V, np.eye(k), atol=1e-6)
    assert rel.epsilon == (np.inf if spec.guarantee == "none" else epsilon)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(1, 3),
    extra_d=st.integers(0, 3),
    extra_n=st.integers(0, 20),
    epsilon=st.floats(1e-2, 1e2),
    seed=st.integers(0, 2**32 - 1),
)
def test_top_k_dp_pca_gives_a_valid_release_from_eight_rows_per_component(k, extra_d, extra_n, epsilon, seed):
    d, n = k + 1 + extra_d, 8 * k + extra_n
    X = np.random.default_rng(seed).uniform(-1, 1, size=(n, d))
    rel = dc.run("topk_dp_pca", X, k, epsilon, 1e-6, seed=seed)
    V = rel.components
    assert V.shape == (d, k) and np.allclose(V.T @ V, np.eye(k), atol=1e-6)
    with np.testing.assert_raises_regex(ValueError, "at least 8 rows"):
        dc.run("topk_dp_pca", X[: 8 * k - 1], k, epsilon, 1e-6, seed=seed)

"""Malformed input to the library: always a ValueError saying what is wrong and how to fix it, never another
exception type (issue: pandas Series, tiny epsilon, complex, masked, dates, out-of-range sites, mixed labels)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dppca_core as dc

NAMES = dc.mechanism_names("pca")
X = np.random.default_rng(0).normal(size=(40, 3)) / 3


def _params(name):
    return {"sites": 2} if any(p.name == "sites" for p in dc.get_mechanism(name).params) else {}


def _k(name):
    return 1


BAD_INPUTS = {
    "a pandas Series": pd.Series(X[:, 0]),
    "complex numbers": X + 1j,
    "a masked array": np.ma.masked_array(X, mask=np.eye(40, 3, dtype=bool)),
    "dates": np.array([[np.datetime64("2020-01-01")] * 3] * 10),
    "text": np.array([["a", "b", "c"]] * 10),
    "a text column": pd.DataFrame(X, columns=list("abc")).assign(c=lambda f: f.c.astype(str)),
    "nested ragged lists": [[1.0, 2.0], [3.0]],
}


@pytest.mark.parametrize("what", list(BAD_INPUTS))
@pytest.mark.parametrize("name", NAMES)
def test_bad_data_is_a_value_error_for_every_mechanism(name, what):
    with pytest.raises(ValueError) as info:
        dc.run(name, BAD_INPUTS[what], _k(name), 1.0, 1e-5, seed=0, **_params(name))
    assert len(str(info.value)) > 20  # a sentence, not a bare repr


@pytest.mark.parametrize("name", NAMES)
def test_astronomically_small_epsilon_is_refused_clearly(name):
    with pytest.raises(ValueError, match="epsilon"):
        dc.run(name, X, 1, 5e-324, 1e-5, seed=0, **_params(name))


def test_site_arguments_are_checked():
    with pytest.raises(ValueError, match="out of range"):
        dc.run("cape_pca", X, 1, 1.0, sites=51)
    with pytest.raises(ValueError, match="mix types"):
        dc.run("cape_pca", X, 1, 1.0, sites=np.array(["a"] * 20 + [1] * 20, dtype=object))
    with pytest.raises(ValueError):
        dc.run("cape_pca", X, 1, 1.0, sites=[2.5, 37.5])


def test_masked_array_without_masked_entries_is_accepted():
    rel = dc.run("analyze_gauss", np.ma.masked_array(X, mask=False), 1, 1.0, seed=0)
    assert rel.components.shape == (3, 1)


inputs = st.one_of(
    st.none(),
    st.text(max_size=5),
    st.integers(),
    st.floats(),
    st.lists(st.floats(), max_size=5),
    st.lists(st.lists(st.one_of(st.floats(), st.text(max_size=2), st.none()), min_size=0, max_size=3), max_size=4),
    st.dictionaries(st.text(max_size=2), st.floats(), max_size=3),
    st.builds(lambda n: np.full((n, 2), 1 + 1j), st.integers(2, 4)),
    st.builds(lambda n: pd.Series(np.ones(n)), st.integers(0, 4)),
    st.builds(lambda n: np.zeros((n, 0)), st.integers(0, 3)),
    st.builds(lambda n: np.zeros((n, 2, 2)), st.integers(1, 3)),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    X=inputs,
    name=st.sampled_from([m for m in NAMES if m not in ("ppca_exponential", "dp_pca")]),
    k=st.one_of(st.integers(-2, 4), st.none(), st.text(max_size=2), st.floats()),
    epsilon=st.one_of(st.floats(), st.none(), st.text(max_size=2), st.integers(-2, 3)),
    neighbors=st.one_of(st.sampled_from(["replace", "add_remove"]), st.text(max_size=4), st.none()),
)
def test_anything_malformed_is_a_value_error(X, name, k, epsilon, neighbors):
    try:
        dc.run(name, X, k, epsilon, 1e-5, neighbors, seed=0, **_params(name))
    except ValueError as err:
        assert str(err)

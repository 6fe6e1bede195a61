"""Behaviour every registered mechanism must have (each family's own checks: tests/mechanisms/test_<module>.py)."""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from tests.helpers import spiked_rows

X_SMALL, _ = spiked_rows(400, 8, 3, seed=1)
PRIVATE = [m for m in dc.mechanism_names("pca") if dc.get_mechanism(m).guarantee in ("pure", "approximate")]


def test_list_mechanisms_columns_and_values():
    table = dc.list_mechanisms()
    for col in ("name", "title", "paper", "model", "guarantee", "parameters", "notes"):
        assert col in table.columns
    assert set(table["guarantee"]) <= {"pure", "approximate", "none", "retracted"}
    assert set(table["model"]) <= {"central", "local", "distributed"}
    row = table.set_index("name").loc["wishart_sn"]
    assert row["guarantee"] == "retracted" and "RETRACTED" in row["notes"]
    assert {"non_private", "analyze_gauss", "mod_sulq", "private_power", "wishart_sn"} <= set(table["name"])


@pytest.mark.parametrize("name", dc.mechanism_names("pca"))
@pytest.mark.parametrize("k", [1, 3])
def test_orthonormal_and_deterministic(name, k):
    max_k = dc.get_mechanism(name).max_k
    if max_k is not None and k > max_k:
        with pytest.raises(ValueError, match=f"k <= {max_k}"):
            dc.run(name, X_SMALL, k, 1.0, seed=7)
        return
    a = dc.run(name, X_SMALL, k, 1.0, seed=7)
    b = dc.run(name, X_SMALL, k, 1.0, seed=7)
    c = dc.run(name, X_SMALL, k, 1.0, seed=8)
    assert a.components.shape == (8, k)
    assert np.allclose(a.components.T @ a.components, np.eye(k), atol=1e-10)
    assert np.array_equal(a.components, b.components)
    if a.guarantee != "none":
        assert not np.array_equal(a.components, c.components)
    assert a.mechanism == name and a.neighbors == "replace"


@pytest.mark.parametrize("name", PRIVATE)
def test_error_falls_with_epsilon(name):
    k = min(2, dc.get_mechanism(name).max_k or 2)
    X, U = spiked_rows(3000, 6, k, seed=2)

    def mean_err(eps):
        return np.mean([metrics.subspace_distance(dc.run(name, X, k, eps, seed=s).components, U) for s in range(6)])

    low, high = mean_err(0.05), mean_err(50.0)
    # with epsilon 1000x larger the privacy noise is at least ~30x smaller; demand a clear drop
    assert high < 0.7 * low, (low, high)


def test_shared_gram_gives_same_result_as_rows():
    prepared = dc.prepare(X_SMALL)
    a = dc.run("analyze_gauss", prepared, 2, 1.0, seed=3)
    b = dc.run("analyze_gauss", X_SMALL, 2, 1.0, seed=3)
    assert np.allclose(a.components, b.components)


def test_streaming_gram_equals_in_memory():
    chunks = np.array_split(X_SMALL * 3.0, 7)
    streamed = dc.gram_from_chunks(chunks, data_norm=2.0)
    direct = dc.prepare(X_SMALL * 3.0, data_norm=2.0)
    assert streamed.n == direct.n and streamed.n_clipped == direct.n_clipped
    assert np.allclose(streamed.gram, direct.gram)
    rel = dc.run("analyze_gauss", streamed, 2, 1.0, data_norm=2.0, seed=0)
    assert rel.components.shape == (8, 2)

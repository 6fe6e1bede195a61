"""Bad input to run() and the estimator raises ValueError naming the problem and the fix."""

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core.data.prepare import center_data, clip_rows, max_norm_scale
from tests.helpers import spiked_rows

X, _ = spiked_rows(200, 5, 2, seed=0)


@pytest.mark.parametrize("k,match", [(0, "1 <= k"), (6, "1 <= k <= d = 5"), (-1, "1 <= k"), (1.5, "whole number")])
def test_bad_k(k, match):
    with pytest.raises(ValueError, match=match):
        dc.run("analyze_gauss", X, k, 1.0)


@pytest.mark.parametrize("eps", [0, -1.0, float("nan"), float("inf"), "1"])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon must be"):
        dc.run("analyze_gauss", X, 2, eps)


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-3, 1.5])
def test_bad_delta_where_required(delta):
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        dc.run("analyze_gauss", X, 2, 1.0, delta=delta)


def test_delta_ignored_by_pure_mechanism():
    rel = dc.run("private_power", X, 2, 1.0, delta=1e-6, noise="laplace", seed=0)
    assert rel.delta == 0.0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values(bad):
    Y = X.copy()
    Y[3, 1] = bad
    with pytest.raises(ValueError, match="NaN or infinite.*row 3, column 1"):
        dc.run("analyze_gauss", Y, 2, 1.0)


def test_non_numeric_columns():
    frame = pd.DataFrame(X, columns=list("abcde")).assign(city="x")
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['city'\]"):
        dc.run("analyze_gauss", frame, 2, 1.0)
    with pytest.raises(ValueError, match="numeric"):
        dc.run("analyze_gauss", [["a", "b"], ["c", "d"]], 1, 1.0)


def test_too_few_rows_and_wrong_shape():
    with pytest.raises(ValueError, match="at least 2"):
        dc.run("analyze_gauss", X[:1], 1, 1.0)
    with pytest.raises(ValueError, match="2-D"):
        dc.run("analyze_gauss", X[0], 1, 1.0)


def test_unknown_mechanism_and_parameter_and_relation():
    with pytest.raises(ValueError, match="unknown mechanism 'pca'.*analyze_gauss"):
        dc.run("pca", X, 2, 1.0)
    with pytest.raises(ValueError, match=r"does not take parameter\(s\) \['iters'\]"):
        dc.run("private_power", X, 2, 1.0, iters=3)
    with pytest.raises(ValueError, match="iterations = 0 is out of range"):
        dc.run("private_power", X, 2, 1.0, iterations=0)
    with pytest.raises(ValueError, match="neighbouring relation"):
        dc.run("analyze_gauss", X, 2, 1.0, neighbors="swap")
    with pytest.raises(ValueError, match="block_size = 1 is out of range"):
        dc.run("private_power", X, 2, 1.0, block_size=1)


@pytest.mark.parametrize("norm", [0, -1, float("nan")])
def test_bad_data_norm(norm):
    with pytest.raises(ValueError, match="data_norm"):
        dc.run("analyze_gauss", X, 2, 1.0, data_norm=norm)


def test_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        dc.run("analyze_gauss", X, 2, 1.0, seed="abc")


def test_clipping_counts_and_bounds():
    Y = X * 5
    clipped, count = clip_rows(Y, 1.0)
    assert count == int((np.linalg.norm(Y, axis=1) > 1).sum()) and count > 0
    assert np.linalg.norm(clipped, axis=1).max() <= 1 + 1e-12
    rel = dc.run("analyze_gauss", Y, 2, 1.0, seed=0)
    assert rel.diagnostics["rows_clipped"] == count and rel.diagnostics["warnings"]


def test_centering_labels_privacy():
    assert center_data(X, "none").private
    assert not center_data(X, "empirical").private
    assert center_data(X, np.zeros(5)).private
    with pytest.raises(ValueError, match="length d = 5"):
        center_data(X, np.zeros(3))
    scaled, scale = max_norm_scale(X * 3)
    assert np.isclose(np.linalg.norm(scaled, axis=1).max(), 1.0) and scale > 0


def test_prepared_data_must_match_norm():
    prepared = dc.prepare(X, data_norm=1.0)
    with pytest.raises(ValueError, match="prepare them again"):
        dc.run("analyze_gauss", prepared, 2, 1.0, data_norm=2.0)


def test_regressions_found_by_fuzzing():
    zeros = np.zeros((12, 2))
    with pytest.raises(ValueError, match="too small to compute"):
        dc.run("mod_sulq", zeros, 1, 1.0, delta=5e-324)
    rel = dc.run("ldp_sparse", np.zeros((5, 2)), 2, 1.5, delta=0.5, seed=1)  # k = d: the Fantope is {I}
    assert np.allclose(rel.components.T @ rel.components, np.eye(2))

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dppca_core as dc
from dppca_core import datasets as D, metrics


def test_spiked_defaults_shapes_truth_and_norms():
    s = D.spiked_covariance(seed=1)
    assert s.X.shape == (2000, 20) and s.components.shape == (20, 3)
    assert np.allclose(s.components.T @ s.components, np.eye(3))
    assert np.linalg.norm(s.X, axis=1).max() <= 1 + 1e-12
    assert np.array_equal(D.spiked_covariance(seed=1).X, s.X)
    assert not np.array_equal(D.spiked_covariance(seed=2).X, s.X)


def test_default_problem_is_learnable_and_error_falls_with_epsilon():
    s = D.spiked_covariance(seed=0)
    def err(eps):
        return np.mean([metrics.subspace_distance(dc.run("analyze_gauss", s.X, 3, eps, seed=r).components,
                                                  s.components) for r in range(5)])
    random_level = metrics.random_subspace_distance(20, 3)
    assert err(1.0) < 0.5 * random_level
    assert err(10.0) < 0.5 * err(1.0) and err(0.1) > 0.8 * random_level


def test_sparse_support():
    s = D.spiked_covariance(d=50, k=2, sparsity=6, seed=3)
    assert len(s.support) == 6
    assert np.count_nonzero(np.linalg.norm(s.components, axis=1)) == 6
    with pytest.raises(ValueError, match="s >= k"):
        D.spiked_covariance(k=3, sparsity=2)


@pytest.mark.parametrize("name", list(D.PRESETS))
def test_presets_run(name):
    p = D.PRESETS[name]
    s = p.make(**p.defaults)
    assert np.all(np.isfinite(s.X)) and np.linalg.norm(s.X, axis=1).max() <= 1 + 1e-12
    assert np.allclose(s.components.T @ s.components, np.eye(s.components.shape[1]), atol=1e-10)


def test_example_41_signal_dominates_when_sigma_small():
    s = D.liu_example_41(n=2000, sigma=0.001, seed=0)
    assert metrics.subspace_distance(dc.run("non_private", s.X, 1, 1.0).components, s.components) < 0.01


def csv_bytes(text):
    return io.BytesIO(text.encode())


def test_load_table_csv_and_parquet_round_trip(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.1, 0.2], "city": ["x", "y", "z"], "y": [0, 1, 0]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    for path in (tmp_path / "t.csv", tmp_path / "t.parquet"):
        t = D.load_table(path, label="y")
        assert t.columns == ["a", "b"] and t.X.shape == (3, 2) and list(t.labels) == [0, 1, 0]
        assert t.dropped == {"city": "not numeric"}
    buf = io.BytesIO((tmp_path / "t.parquet").read_bytes())
    buf.name = "upload.parquet"
    assert D.load_table(buf, columns=["b"]).X.shape == (3, 1)
    assert D.load_table(csv_bytes("a;b\n1;2\n3;4\n5;6\n")).X.shape == (3, 2)
    assert D.load_table(io.BytesIO("é,b\n1,2\n3,4\n".encode("latin-1"))).columns == ["é", "b"]


@pytest.mark.parametrize("text,match", [
    ("", "empty"),
    ("a,b\n", "no data rows"),
    ("a,b\n1,2\n", "at least 2"),
    ("a,b\nx,y\nz,w\n", "no numeric columns"),
    ("a,b\n1,\n3,4\n", "'b' \\(1\\)"),
    ("a,a\n1,2\n3,4\n", "duplicate"),
])
def test_load_table_errors(text, match):
    with pytest.raises(ValueError, match=match):
        D.load_table(csv_bytes(text))


def test_load_table_column_errors_and_limits():
    data = csv_bytes("a,b,c\n1,2,x\n3,4,y\n")
    with pytest.raises(ValueError, match=r"\['zz'\] not found"):
        D.load_table(data, columns=["zz"])
    with pytest.raises(ValueError, match=r"\['c'\] are not numeric"):
        D.load_table(csv_bytes("a,b,c\n1,2,x\n3,4,y\n"), columns=["a", "c"])
    with pytest.raises(ValueError, match="over the limit of 0.0 MB"):
        D.load_table(csv_bytes("a\n1\n2\n"), max_bytes=3)
    with pytest.raises(ValueError, match="over the limit of 3 cells"):
        D.load_table(csv_bytes("a,b\n1,2\n3,4\n"), max_cells=3)
    with pytest.raises(ValueError, match="does not exist"):
        D.load_table("/nonexistent/file.csv")


def test_samples():
    t = D.load_sample("breast_cancer")
    assert t.X.shape == (569, 30) and set(t.labels) == {"malignant", "benign"}
    with pytest.raises(ValueError, match="unknown sample"):
        D.load_sample("mnist")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=300),
                 st.lists(st.lists(st.one_of(st.floats(allow_nan=True), st.text(max_size=4), st.integers()),
                                   min_size=3, max_size=3), min_size=0, max_size=6)
                 .map(lambda rows: pd.DataFrame(rows).to_csv(index=False).encode())))
def test_load_table_never_raises_anything_but_value_error(raw):
    try:
        t = D.load_table(io.BytesIO(raw))
    except ValueError as err:
        assert str(err)
        return
    assert t.X.dtype == float and t.X.shape[0] >= 2 and np.all(np.isfinite(t.X))

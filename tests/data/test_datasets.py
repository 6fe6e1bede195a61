"""Synthetic generators, paper presets, site partitions and the shipped samples (dppca_core.data.datasets)."""

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.data import datasets as D

ROW_TOL = 1e-12  # clip_rows rescales to the radius exactly, up to rounding


def check_truth(s, n, d, k, data_norm=1.0):
    assert s.X.shape == (n, d) and s.components.shape == (d, k) and s.covariance.shape == (d, d)
    assert np.allclose(s.components.T @ s.components, np.eye(k), atol=1e-10)
    assert np.all(np.isfinite(s.X)) and np.linalg.norm(s.X, axis=1).max() <= data_norm * (1 + ROW_TOL)
    assert np.all(np.diff(s.eigenvalues) <= 1e-15) and s.eigenvalues.shape == (d,)
    assert np.array_equal(s.support, np.sort(s.support))
    # the planted subspace is the top-k eigenspace of the stated covariance (the distance is a square root of
    # a difference of O(1) numbers, so rounding leaves ~ sqrt(machine eps) = 1.5e-8)
    top = np.linalg.eigh(s.covariance)[1][:, ::-1][:, :k]
    assert metrics.subspace_distance(top, s.components) < 1e-6


def test_spiked_defaults_shapes_truth_norms_and_seeds():
    s = D.spiked_covariance(seed=1)
    check_truth(s, 2000, 20, 3)
    assert np.array_equal(s.support, np.arange(20))
    assert np.array_equal(D.spiked_covariance(seed=1).X, s.X)
    assert np.array_equal(D.spiked_covariance(seed=np.random.default_rng(1)).X, s.X)
    assert not np.array_equal(D.spiked_covariance(seed=2).X, s.X)


def test_spiked_covariance_is_the_stated_law():
    # unclipped rows: the sample covariance converges at rate ~ ||Sigma|| sqrt(d/n); n = 40000 leaves < 10% error
    s = D.spiked_covariance(n=40000, d=8, k=2, spike=6.0, eigengap=2.0, noise=1.0, seed=0, clip=False)
    assert np.allclose(s.eigenvalues[:3] / s.eigenvalues[-1], [7.0, 5.0, 1.0])
    emp = s.X.T @ s.X / len(s.X)
    assert np.linalg.norm(emp - s.covariance, 2) < 0.1 * s.eigenvalues[0]
    # typical norm ~ R/2 by construction: E||x||^2 = tr(Sigma) = R^2/4
    assert np.trace(s.covariance) == pytest.approx(0.25)


def test_data_norm_and_clip_flag():
    s = D.spiked_covariance(n=500, seed=3, data_norm=5.0)
    check_truth(s, 500, 20, 3, data_norm=5.0)
    big = D.spiked_covariance(n=3000, seed=3, clip=False)
    clipped = D.spiked_covariance(n=3000, seed=3)
    over = np.linalg.norm(big.X, axis=1) > 1
    assert clipped.params["rows_clipped"] == over.sum()
    assert np.array_equal(big.X[~over], clipped.X[~over])


def analyze_gauss_error(s, eps, reps=5):
    k = s.components.shape[1]
    return np.mean(
        [
            metrics.subspace_distance(dc.run("analyze_gauss", s.X, k, eps, seed=r).components, s.components)
            for r in range(reps)
        ]
    )


def test_default_problem_is_learnable_and_error_falls_with_epsilon_and_n():
    # Analyze Gauss error ~ sigma sqrt(d k) / (n * eigengap): x10 in epsilon or x4 in n cut it by a lot;
    # factors 0.5 leave room for the variance of 5 repetitions (measured ratios are ~0.15-0.3)
    s = D.spiked_covariance(seed=0)
    random_level = metrics.random_subspace_distance(20, 3)
    err1 = analyze_gauss_error(s, 1.0)
    assert err1 < 0.5 * random_level
    assert analyze_gauss_error(s, 10.0) < 0.5 * err1
    assert analyze_gauss_error(s, 0.1) > 0.8 * random_level
    assert analyze_gauss_error(D.spiked_covariance(n=8000, seed=0), 1.0) < 0.5 * err1


def test_sparse_support_has_exactly_s_rows():
    s = D.spiked_covariance(d=50, k=2, sparsity=6, seed=3)
    check_truth(s, 2000, 50, 2)
    assert len(s.support) == 6
    assert np.array_equal(np.flatnonzero(np.linalg.norm(s.components, axis=1)), s.support)
    assert np.array_equal(D.spiked_covariance(d=5, k=2, sparsity=5, seed=0).support, np.arange(5))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(k=3, sparsity=2), "s >= k"),
        (dict(d=10, sparsity=11), "sparsity s = 11 is out of range"),
        (dict(k=0), "k = 0 is out of range"),
        (dict(d=5, k=6), "k = 6 is out of range"),
        (dict(n=1), "n = 1 is out of range"),
        (dict(spike=-1.0), "spike must be"),
        (dict(noise=0.0), "noise must be"),
        (dict(k=3, spike=1.0, eigengap=0.6), "lower the eigengap"),
        (dict(data_norm=0.0), "data_norm must be"),
        (dict(seed=-1), "seed must be"),
    ],
)
def test_spiked_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        D.spiked_covariance(**kwargs)


@pytest.mark.parametrize("name", list(D.PRESETS))
def test_presets_run_with_orthonormal_truth(name):
    make, description, defaults, paper = D.PRESETS[name]  # the 4-tuple form
    assert description and paper and callable(make)
    s = make(**defaults, seed=0)
    n, d = s.X.shape
    check_truth(s, n, d, s.components.shape[1])
    assert np.array_equal(make(**defaults, seed=0).X, s.X)
    assert np.array_equal(np.flatnonzero(np.linalg.norm(s.components, axis=1) > 0), s.support)


def test_paper_settings_are_accepted_by_their_presets():
    for name, kwargs in D.PAPER_SETTINGS.items():
        assert set(kwargs) <= set(D.PRESETS[name].make.__code__.co_varnames), name
    s = D.wang_xu_sparse(**D.PAPER_SETTINGS["wang_xu_sparse"], seed=0)
    check_truth(s, 2000, 400, 10)
    assert len(s.support) == 20


def test_wang_xu_law_matches_the_paper():
    # Sigma = lam/(5p(lam+1)) VV^T + 1/(5p(lam+1)) I: eigengap 1/(10p) for lam = 1
    s = D.wang_xu_low_dim(n=100, d=40, k=5, seed=0)
    assert s.eigenvalues[4] - s.eigenvalues[5] == pytest.approx(1 / 400)
    assert s.params["rows_clipped"] == 0


def test_ge_dps_eigenvalues_and_sparsity():
    s = D.ge_dps(n=200, d=40, k=3, s=10, seed=0)
    raw = s.eigenvalues * s.params["scale"] ** 2
    assert np.allclose(raw[:3], 100.0) and raw[3] <= 10.0 and raw[-1] >= 0.0
    assert len(s.support) == 10


def test_imtiaz_law_is_diagonal_unless_rotated():
    s = D.imtiaz_synthetic(n=100, d=30, k=5, seed=0)
    raw = np.diag(s.covariance) * s.params["scale"] ** 2
    assert np.allclose(raw[:5], np.linspace(10, 1, 5)) and np.all(raw[5:] <= 0.5)
    assert np.allclose(s.covariance, np.diag(np.diag(s.covariance)))
    assert np.array_equal(s.support, np.arange(5))
    r = D.imtiaz_synthetic(n=100, d=30, k=5, rotate=True, seed=0)
    assert np.allclose(r.eigenvalues, s.eigenvalues) and len(r.support) == 30


def test_example_41_signal_dominates_when_sigma_small_and_labels_are_signs():
    s = D.liu_example_41(n=2000, sigma=0.001, seed=0)
    assert metrics.subspace_distance(dc.run("non_private", s.X, 1, 1.0).components, s.components) < 0.01
    assert set(np.unique(s.labels)) == {-1, 1}
    assert np.all(np.sign(s.X @ s.components[:, 0]) == s.labels)
    noisy = D.liu_example_41(n=500, d=10, sigma=1.0, seed=0)  # the public scale grows with sigma sqrt(d)
    assert np.median(np.linalg.norm(noisy.X, axis=1)) < 1.0


@pytest.mark.parametrize(
    "sites,sizes",
    [
        (4, [25, 25, 25, 25]),
        ([10, 30, 60], [10, 30, 60]),
        (np.repeat(["b", "a"], [40, 60]), [40, 60]),
    ],
)
def test_make_sites(sites, sizes):
    parts = D.make_sites(100, sites)
    assert [len(p) for p in parts] == sizes
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(100))


@pytest.mark.parametrize(
    "sites,match",
    [
        ([10, 20], "sum to 30"),
        ([50, 0, 50], ">= 2"),
        (0, "out of range"),
        (51, "out of range"),
        (np.r_[np.zeros(99, int), 7], "fewer than 2 rows"),
        ("three", "number of sites"),
        (2.5, "number of sites"),
        (None, "number of sites"),
    ],
)
def test_make_sites_bad_input(sites, match):
    with pytest.raises(ValueError, match=match):
        D.make_sites(100, sites)


@pytest.mark.parametrize(
    "name,shape,classes",
    [
        ("breast_cancer", (569, 30), {"malignant", "benign"}),
        ("wine", (178, 13), {"class_0", "class_1", "class_2"}),
        ("iris", (150, 4), {"setosa", "versicolor", "virginica"}),
    ],
)
def test_samples(name, shape, classes):
    t = D.load_sample(name)
    assert t.X.shape == shape and set(t.labels) == classes and t.dropped == {}
    assert (D.SAMPLE_DIR / D.SAMPLES[name]["file"]).stat().st_size < 200_000
    assert name in (D.SAMPLE_DIR / "README.md").read_text()


def test_unknown_sample():
    with pytest.raises(ValueError, match="unknown sample"):
        D.load_sample("mnist")


@pytest.mark.parametrize("name", list(D.SAMPLES))
def test_samples_match_scikit_learn(name):
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    bunch = getattr(sklearn_datasets, f"load_{name}")(as_frame=True)
    t = D.load_sample(name)
    assert t.columns == list(bunch.feature_names)
    assert np.array_equal(t.X, bunch.data.to_numpy())  # CSV written with round-trip float formatting
    assert list(pd.Series(bunch.target_names[bunch.target])) == list(t.labels)


def test_datasets_is_the_namespace_of_synthetic_and_tables():
    from dppca_core.data import synthetic
    from dppca_core.data import tables

    for name in D.__all__:
        assert getattr(D, name) is getattr(synthetic, name, None) or getattr(D, name) is getattr(tables, name, None)
    assert D.PRESETS is synthetic.PRESETS and D.load_table is tables.load_table and D.SAMPLES is tables.SAMPLES

"""Metrics are exact to rounding: a curve at large epsilon or n must not flatten for a numerical reason."""

import numpy as np
import pytest
import scipy.linalg

import dppca_core as dc
from dppca_core import metrics

EPS = np.finfo(float).eps


def rotation_by(angles, d, rng):
    """Orthonormal U, V (d x k) whose principal angles are exactly ``angles`` (up to rounding of cos/sin)."""
    k = len(angles)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    U = Q[:, :k]
    V = Q[:, :k] * np.cos(angles) + Q[:, k : 2 * k] * np.sin(angles)
    return U, V


def test_non_private_release_matches_numpy_eigh_to_machine_precision():
    # Same clipped data, two eigensolvers: they differ only by rounding, ~eps ||C|| / gap (Davis-Kahan) with
    # ||C|| / gap <= ~30 here, i.e. ~1e-15. The old sqrt(k - ||U^T V||^2) read 0 or 1.5e-8 - 4e-8 on exactly these
    # comparisons (seeds 1-3), depending on how the cancellation rounded.
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(2000, 15)) * np.linspace(3.0, 0.5, 15) / 12.0
        prepared = dc.prepare(X)
        _, vectors = np.linalg.eigh(prepared.rows.T @ prepared.rows)
        for k in (1, 2, 5):
            release = dc.run("non_private", prepared, k, 1.0)
            assert metrics.subspace_distance(release.components, vectors[:, -k:]) < 100 * EPS  # ~1e-14


@pytest.mark.parametrize("angles", [[1e-12, 3e-9], [1e-6, 0.3, 1.2], [np.pi / 2, np.pi / 4]])
def test_distance_and_angles_are_exact_for_planted_angles(angles):
    rng = np.random.default_rng(1)
    U, V = rotation_by(np.array(angles), 9, rng)
    expected = np.sqrt(np.sum(np.sin(angles) ** 2))
    # relative accuracy a few eps for every angle, tiny ones included (cos/sin of the construction round to eps)
    assert metrics.subspace_distance(U, V) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert metrics.principal_angles(U, V) == pytest.approx(np.sort(angles), rel=1e-10, abs=1e-15)


def test_angles_agree_with_scipy_for_random_subspaces_of_any_dimensions():
    rng = np.random.default_rng(2)
    for kU, kV in [(3, 3), (4, 2), (2, 5)]:
        U, V = rng.normal(size=(10, kU)), rng.normal(size=(10, kV))  # not orthonormal: the metric orthonormalises
        ours = metrics.principal_angles(U, V)
        assert ours == pytest.approx(np.sort(scipy.linalg.subspace_angles(U, V)), abs=1e-13)
        Uo, Vo = metrics.orthonormalize(U), metrics.orthonormalize(V)
        projector = np.linalg.norm(Uo @ Uo.T - Vo @ Vo.T) / np.sqrt(2)
        if kU == kV:  # ||sin Theta||_F = ||U U^T - V V^T||_F / sqrt(2) for equal dimensions
            assert metrics.subspace_distance(U, V) == pytest.approx(projector, rel=1e-12)
            assert metrics.subspace_distance(U, V) == pytest.approx(np.linalg.norm(np.sin(ours)), rel=1e-12)
        else:
            assert metrics.subspace_distance(U, V) == pytest.approx(projector, rel=1e-12)


def test_energy_metrics_are_exact_at_the_optimum():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(8, 8))
    A = A @ A.T
    vals, vecs = np.linalg.eigh(A)
    assert metrics.captured_energy(vecs[:, -2:], A) == pytest.approx(vals[-2:].sum(), rel=10 * EPS * 8)
    assert abs(metrics.captured_energy_ratio(vecs[:, -2:], A) - 1.0) < 100 * EPS


@pytest.mark.parametrize("shape", [(20, 5), (7, 7), (500, 50), (3, 1)])
def test_thin_qr_equals_numpys_qr_with_a_positive_diagonal_to_the_last_bit(shape):
    from dppca_core.linalg import thin_qr

    Y = np.random.default_rng(sum(shape)).standard_normal(shape)
    Q, R = np.linalg.qr(Y)
    signs = np.sign(np.diag(R))
    expected = Q * signs
    got = thin_qr(Y)
    assert np.array_equal(got, expected)
    assert np.allclose(got.T @ got, np.eye(shape[1]), atol=1e-12)
    assert np.all(np.diag(got.T @ Y) > 0)  # R = Q^T Y has a positive diagonal


def test_thin_qr_of_rank_deficient_and_wide_matrices():
    from dppca_core.linalg import thin_qr

    Y = np.random.default_rng(3).standard_normal((10, 4))
    Y[:, 2] = 0.0  # R has a zero on its diagonal: that column keeps LAPACK's sign
    Q = thin_qr(Y)
    assert Q.shape == (10, 4) and np.allclose(Q @ (Q.T @ Y), Y, atol=1e-12)
    wide = np.random.default_rng(4).standard_normal((3, 5))  # numpy's path: Q is 3 x 3
    assert thin_qr(wide).shape == (3, 3)
    assert np.allclose(thin_qr(wide) @ thin_qr(wide).T, np.eye(3), atol=1e-12)


# -- the metrics' registry: one declaration drives the scoring, the table, the settings and the link -----------------


@pytest.fixture
def toy_metric():
    """A throwaway metric registered for one test: the largest absolute loading (a d x k to a float)."""

    @metrics.metric(
        "toy_peak",
        "Largest loading",
        column="largest loading",
        symbol="max |V|",
        lower_is_better=False,
        default_target=0.5,
    )
    def peak(s: metrics.Scoring) -> float:
        return float(np.max(np.abs(s.components)))

    try:
        yield metrics.METRICS["toy_peak"]
    finally:
        metrics.unregister_metric("toy_peak")


def test_a_registered_metric_is_scored_tabled_and_a_setting(toy_metric):
    from dppca_core.pipeline import experiments
    from dppca_core.scenario import link

    options = dc.ReleaseOptions(k=2, epsilon=1.0, delta=1e-6)
    inp = experiments.input_for(np.random.default_rng(0).normal(size=(300, 5)) / 4, options)
    table, runs = experiments.compare(inp, {"analyze_gauss": options}, reps=3, seed=1)
    got = runs["analyze_gauss"].metric("toy_peak")
    want = [np.max(np.abs(V)) for V in runs["analyze_gauss"].components]
    assert got.shape == (3,) and np.array_equal(got, want)  # scored on each release, in order
    assert table.columns.tolist().count("largest loading") == 1 and table["largest loading"][0].count("[") == 1
    values, notices = link.from_query({"metric": "toy_peak"})
    assert values["metric"] == "toy_peak" and not notices  # the link and the scenario accept its name
    assert values["target"] == 0.5  # its default target


def test_a_metric_scores_only_where_what_it_needs_is_known():
    from dppca_core.pipeline import experiments

    options = dc.ReleaseOptions(k=2, epsilon=1.0, delta=1e-6)
    inp = experiments.input_for(np.random.default_rng(0).normal(size=(300, 5)) / 4, options)
    plain = experiments.repeat("analyze_gauss", inp, options, reps=2, seed=1)
    sparse = experiments.repeat("analyze_gauss", inp, options, reps=2, seed=1, support=[0, 1], s=2)
    assert plain.metric("f1") is None and sparse.metric("f1").shape == (2,)  # needs a support
    assert np.array_equal(plain.distance, sparse.distance)  # the same releases


def test_the_registry_refuses_a_second_name_and_an_unknown_need():
    declared = metrics.METRICS["f1"]
    with pytest.raises(ValueError, match="already registered"):
        metrics.register_metric(declared)
    with pytest.raises(ValueError, match="needs"):
        metrics.register_metric(metrics.Metric("toy", "Toy", len, "toy", "t", True, 0.0, needs=("truth",)))
    assert "toy" not in metrics.METRICS

"""Trace-sensitive covariance (Dong, Liang & Yi 2022): calibration, release boundary, accuracy, k, seeds, audit."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.mechanisms.trace_sensitive import AUDIT_BACKGROUND, trace_sensitive_audit_design
from tests.helpers import spiked_rows
from tests.new_mechanisms import accepted_by_release_pca_and_estimator, no_noise_free_field, pld_epsilon

X, U = spiked_rows(3000, 8, 2, seed=4)


def skewed_rows(n, d, seed=0):
    """Rows with a fast-falling spectrum (variances ~ 1 / i^2), clipped to norm <= 1: a small trace."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    rows = rng.normal(size=(n, d)) / np.arange(1, d + 1) @ Q.T
    return rows / np.maximum(1.0, np.linalg.norm(rows, axis=1))[:, None]


@pytest.mark.parametrize("eps,delta,share", [(1.0, 1e-5, 0.5), (0.3, 1e-6, 0.7)])
def test_both_parts_compose_to_the_claim_in_dp_accounting(eps, delta, share):
    rel = dc.run("trace_sensitive", X, 2, eps, delta, seed=0, vector_share=share)
    mu = privacy.gaussian_mu(eps, delta)
    matrix = (rel.noise_scale, math.sqrt(2.0))  # upper(X^T X), replace-one
    values = (rel.outputs["eigenvalue_noise_sd"], math.sqrt(2.0))  # the sorted spectrum (Hoffman-Wielandt)
    assert rel.noise_scale == pytest.approx(math.sqrt(2.0) / (math.sqrt(share) * mu))
    # the spectrum's grid adds a rounding slack to its sensitivity: its noise is a hair above the bare calibration
    assert 1.0 <= values[0] / (math.sqrt(2.0) / (math.sqrt(1 - share) * mu)) < 1.0 + 1e-4
    assert pld_epsilon([matrix, values], delta) == pytest.approx(eps, rel=1e-3)
    assert rel.privacy.kind == "gdp" and rel.privacy.mu <= mu * (1 + 1e-12)


def test_release_boundary_and_the_grid():
    rel = dc.run("trace_sensitive", X, 8, 1.0, 1e-5, seed=1)
    pub = rel.published()
    assert set(pub["outputs"]) == {"spectrum", "eigenvalue_noise_sd"}
    spectrum = np.asarray(rel.outputs["spectrum"])
    assert np.all(np.diff(spectrum) <= 0) and spectrum.min() >= 0 and spectrum.max() <= X.shape[0]
    step = 2.0 ** math.floor(math.log2(rel.outputs["eigenvalue_noise_sd"]) - 20)
    inside = (spectrum > 0) & (spectrum < X.shape[0])
    assert np.all(spectrum[inside] / step == np.round(spectrum[inside] / step))  # exact noise on a grid
    assert np.array_equal(rel.eigenvalues, spectrum[:8])
    X_prime = X.copy()
    X_prime[0] = np.eye(8)[5]
    other = dc.run("trace_sensitive", X_prime, 8, 1.0, 1e-5, seed=1)
    assert other.facts == rel.facts and other.privacy == rel.privacy
    assert no_noise_free_field("trace_sensitive", X[:300], X_prime[:300], 2) is None


def test_accurate_at_large_epsilon():
    rel = dc.run("trace_sensitive", X, 8, 500.0, 1e-5, seed=2)
    C = X.T @ X
    estimate = (rel.components * rel.eigenvalues) @ rel.components.T
    assert np.linalg.norm(estimate - C) / X.shape[0] < 0.005
    assert metrics.subspace_distance(rel.components[:, :2], U) < 0.12


def test_covariance_beats_analyze_gauss_on_a_skewed_spectrum_with_d_large():
    rows = skewed_rows(1500, 60)
    C = rows.T @ rows

    def error(mechanism, seed):
        rel = dc.run(mechanism, rows, 60, 1.0, 1e-5, seed=seed)
        return np.linalg.norm((rel.components * rel.eigenvalues) @ rel.components.T - C) / rows.shape[0]

    ts = np.median([error("trace_sensitive", s) for s in range(5)])
    ag = np.median([error("analyze_gauss", s) for s in range(5)])
    assert ts < 0.7 * ag, (ts, ag)  # measured 0.116 against 0.210


@pytest.mark.parametrize("k", [1, 3, 8])
def test_shape_k_and_seeds(k):
    a = dc.run("trace_sensitive", X, k, 2.0, 1e-6, seed=11)
    b = dc.run("trace_sensitive", X, k, 2.0, 1e-6, seed=11)
    c = dc.run("trace_sensitive", X, k, 2.0, 1e-6, seed=12)
    assert a.components.shape == (8, k) and a.eigenvalues.shape == (k,)
    assert np.allclose(a.components.T @ a.components, np.eye(k), atol=1e-10)
    assert np.array_equal(a.components, b.components) and np.array_equal(a.eigenvalues, b.eigenvalues)
    assert not np.array_equal(a.eigenvalues, c.eigenvalues)
    with pytest.raises(ValueError, match="replace"):
        dc.run("trace_sensitive", X, k, 1.0, 1e-5, neighbors="add_remove")


def test_release_pca_and_the_estimator_accept_it():
    accepted_by_release_pca_and_estimator("trace_sensitive", X, 2)


def test_audit_design_reads_the_whole_mu():
    design = trace_sensitive_audit_design(d=2, n=20, neighbors="replace", statistic="auto")
    eps, delta, trials = 2.0, 1e-5, 300
    rng = np.random.default_rng(0)
    scores = [
        [design.score(design.release(data, rng, eps, delta, "replace")[0]) for _ in range(trials)]
        for data in (design.D, design.D_prime)
    ]
    mu = privacy.gaussian_mu(eps, delta)
    gap = np.mean(scores[1]) - np.mean(scores[0])  # mu^2 in expectation: both parts move by their sensitivity
    assert gap == pytest.approx(mu**2, rel=0.25) and np.std(scores[0]) == pytest.approx(mu, rel=0.15)
    assert design.D.n == 1 + sum(AUDIT_BACKGROUND)

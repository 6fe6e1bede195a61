"""Trace-sensitive covariance (Dong, Liang & Yi 2022): calibration, release boundary, accuracy, k, seeds, audit; the
automatic route (a private trace picks this release or the Gaussian mechanism)."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.mechanisms.trace_sensitive import (
    AUDIT_BACKGROUND,
    ROUTE_TRACE_SHARE,
    choose_route,
    trace_sensitive_audit_design,
)
from dppca_core.reproduce.dong_liang_yi import trace_one_rows, zipf_norm_rows
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
    # the spectrum's grid adds a rounding slack to its sensitivity, and the public floor of computation error at most
    # 2^-10 (privacy.grid.error_floor): its noise is a hair above the bare calibration
    assert 1.0 <= values[0] / (math.sqrt(2.0) / (math.sqrt(1 - share) * mu)) < 1.0 + 2**-10 + 1e-4
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


# -- route="auto": a private trace, then the trace-sensitive release or the Gaussian mechanism -------------------------

SMALL_TRACE = zipf_norm_rows(3000, 40, 6, np.random.default_rng(0))  # most rows short: tr(C)/n = 0.0082
LARGE_TRACE = trace_one_rows(3000, 40, np.random.default_rng(0))  # every row of norm 1: tr(C)/n = 1


def crossing_trace(d, n, mu_main, vector_share=0.5):
    """The trace of Sigma where the two predicted errors meet (choose_route picks "trace" below it), by bisection."""
    lo, hi = 0.0, 1.0
    assert choose_route(lo, d, n, mu_main, vector_share) == "trace"
    assert choose_route(hi, d, n, mu_main, vector_share) == "gauss"
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if choose_route(mid, d, n, mu_main, vector_share) == "trace" else (lo, mid)
    return lo


def covariance_error(rel, rows):
    return np.linalg.norm((rel.components * rel.eigenvalues) @ rel.components.T - rows.T @ rows) / rows.shape[0]


def test_the_route_follows_the_private_trace_far_from_the_crossing():
    n, d = SMALL_TRACE.shape
    mu_trace, mu_main = privacy.split_mu(privacy.gaussian_mu(1.0, 1e-5), (ROUTE_TRACE_SHARE, 1 - ROUTE_TRACE_SHARE))
    cross = crossing_trace(d, n, mu_main)
    assert cross == pytest.approx(0.912, abs=0.001)  # the two bounds' constants at n = 3,000, d = 40, mu* at (1, 1e-5)
    trace_sd = 1.0 / (mu_trace * n)  # the private trace's noise on tr(C) / n: 0.0035
    for rows, route in ((SMALL_TRACE, "trace"), (LARGE_TRACE, "gauss")):
        true = float(np.sum(rows * rows)) / n
        assert abs(true - cross) > 20 * trace_sd  # the noise cannot carry it across: the same route on every seed
        releases = [dc.run("trace_sensitive", rows, d, 1.0, 1e-5, seed=s, route="auto") for s in range(4)]
        assert {rel.outputs["route"] for rel in releases} == {route}
        assert all(abs(rel.outputs["trace"] / n - true) < 6 * trace_sd for rel in releases)
        # the branch runs at 7/8 of mu^2: sqrt(8/7) = 1.07 times the noise of the better release at the whole budget
        auto = np.mean([covariance_error(rel, rows) for rel in releases])
        best = min(
            np.mean([covariance_error(dc.run(m, rows, d, 1.0, 1e-5, seed=s), rows) for s in range(4)])
            for m in ("trace_sensitive", "analyze_gauss")
        )
        assert auto < 1.3 * best, (route, auto, best)


@pytest.mark.parametrize("rows,route", [(SMALL_TRACE, "trace"), (LARGE_TRACE, "gauss")])
def test_the_route_composes_to_the_claim_in_dp_accounting(rows, route):
    eps, delta = 1.0, 1e-5
    rel = dc.run("trace_sensitive", rows, 5, eps, delta, seed=3, route="auto")
    assert rel.outputs["route"] == route
    mu = privacy.gaussian_mu(eps, delta)
    mu_trace, mu_main = privacy.split_mu(mu, (ROUTE_TRACE_SHARE, 1 - ROUTE_TRACE_SHARE))
    assert rel.facts["mu_trace"] == pytest.approx(mu_trace) and rel.facts["mu_main"] == pytest.approx(mu_main)
    parts = [(rel.outputs["trace_noise_sd"], 1.0), (rel.noise_scale, math.sqrt(2.0))]  # tr(C), upper(X^T X)
    if route == "trace":
        parts.append((rel.outputs["eigenvalue_noise_sd"], math.sqrt(2.0)))  # the sorted spectrum
        assert rel.noise_scale == pytest.approx(math.sqrt(2.0) / (math.sqrt(0.5) * mu_main))
    else:
        assert rel.noise_scale == pytest.approx(math.sqrt(2.0) / mu_main) and "eigenvalue_noise_sd" not in rel.outputs
    assert pld_epsilon(parts, delta) == pytest.approx(eps, rel=1e-3)
    # the curve claimed is the trace with the whole branch share, whichever branch ran: at most mu*
    assert rel.privacy.kind == "gdp" and rel.privacy.mu <= mu * (1 + 1e-12)
    assert rel.privacy.mu == pytest.approx(mu, rel=1e-4)


def test_the_route_release_boundary():
    rel = dc.run("trace_sensitive", SMALL_TRACE, 3, 1.0, 1e-5, seed=1, route="auto")
    pub = rel.published()
    assert set(pub["outputs"]) == {"route", "spectrum", "trace", "trace_noise_sd", "eigenvalue_noise_sd"}
    assert pub["parameters"]["route"] == "auto" and pub["outputs"]["route"] == "trace"
    gauss = dc.run("trace_sensitive", LARGE_TRACE, 3, 1.0, 1e-5, seed=1, route="auto").published()
    assert set(gauss["outputs"]) == {"route", "spectrum", "trace", "trace_noise_sd"}
    # the facts, the curve and the trace's noise are the same on a neighbour, whatever the route
    X_prime = SMALL_TRACE.copy()
    X_prime[0] = np.eye(40)[5]
    other = dc.run("trace_sensitive", X_prime, 3, 1.0, 1e-5, seed=1, route="auto")
    assert other.facts == rel.facts and other.privacy == rel.privacy
    assert other.outputs["trace_noise_sd"] == rel.outputs["trace_noise_sd"]
    small = SMALL_TRACE[:300, :6] * 3.0
    assert no_noise_free_field("trace_sensitive", small, np.vstack([np.eye(6)[1], small[1:]]), 2, route="auto") is None


def test_the_route_through_release_pca_and_the_estimator():
    budget = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)
    rel = dc.release_pca(
        "trace_sensitive", SMALL_TRACE, 2, 4.0, 1e-6, center="private", budget=budget, seed=0, route="auto"
    )
    assert rel.outputs["route"] == "trace" and rel.components.shape == (40, 2)
    assert np.allclose(rel.components.T @ rel.components, np.eye(2), atol=1e-8)
    model = dc.DPPCA(
        n_components=2, mechanism="trace_sensitive", epsilon=4.0, random_state=0, mechanism_params={"route": "auto"}
    ).fit(LARGE_TRACE)
    assert model.release_["outputs"]["route"] == "gauss" and model.transform(LARGE_TRACE[:3]).shape == (3, 2)


def test_the_route_audit_design_reads_the_branch_share():
    design = trace_sensitive_audit_design(d=2, n=20, neighbors="replace", statistic="route_auto")
    eps, delta, trials = 2.0, 1e-5, 300
    rng = np.random.default_rng(0)
    runs = [
        [design.release(data, rng, eps, delta, "replace")[0] for _ in range(trials)]
        for data in (design.D, design.D_prime)
    ]
    assert {run["route"] for both in runs for run in both} == {"gauss"}  # d = 2: the Gaussian branch, always
    scores = [[design.score(run) for run in both] for both in runs]
    mu_main = privacy.gaussian_mu(eps, delta) * math.sqrt(1 - ROUTE_TRACE_SHARE)
    gap = np.mean(scores[1]) - np.mean(scores[0])  # mu_main^2 in expectation: the matrix moves by its sensitivity
    assert gap == pytest.approx(mu_main**2, rel=0.25) and np.std(scores[0]) == pytest.approx(mu_main, rel=0.15)


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
run/trace_sensitive 24e32713554304f93d7cf49b 5f6b4ea2cd95249c
run/trace_sensitive/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/trace_sensitive/auto 039a641afacdbd3166bb6d5d 6a399c4d414514f8
"""

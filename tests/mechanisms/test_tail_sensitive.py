"""Tail-sensitive covariance (Dong, Liang & Yi 2022): the sparse vector step's sensitivity on neighbouring data, the
calibration against dp-accounting, the release boundary, accuracy against n, release_pca and the estimator, audit."""

import math

import numpy as np
import pytest
from dp_accounting import pld

import dppca_core as dc
from dppca_core import privacy
from dppca_core.data.prepare import prepare
from dppca_core.mechanisms import tail_sensitive as ts
from tests.new_mechanisms import accepted_by_release_pca_and_estimator, no_noise_free_field


def zipf_rows(n, d, buckets=6, seed=0):
    """Skewed norms as in the paper's generator: directions of mixed Gaussian rows, norms 2^(1-N) .. 1 with Zipf(3)
    frequencies (most rows at the shortest norm)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) @ rng.uniform(0.0, 1.0, (d, d))
    X -= X.mean(axis=0)
    weights = 1.0 / np.arange(1, buckets + 1) ** 3.0
    norms = 2.0 ** (rng.choice(buckets, size=n, p=weights / weights.sum()) + 1 - buckets)
    return X / np.linalg.norm(X, axis=1)[:, None] * norms[:, None]


X = zipf_rows(4000, 12)


def test_pure_epsilon_for_mu_inverts_the_conversion_and_is_tight_in_dp_accounting():
    for mu in (0.05, 0.268, 1.0, 3.0):
        eps = privacy.pure_epsilon_for_mu(mu)
        assert privacy.pure_to_gdp_mu(eps) == pytest.approx(mu, rel=1e-10)
        # Laplace(1/eps) on a sensitivity-1 query is eps-DP; its privacy curve lies inside mu-GDP's everywhere
        lap = pld.privacy_loss_distribution.from_laplace_mechanism(1.0 / eps, value_discretization_interval=1e-4)
        for e in (0.0, 0.25 * eps, 0.5 * eps, 0.9 * eps):
            assert lap.get_delta_for_epsilon(e) <= privacy.gaussian_delta(e, mu) + 1e-4
        # randomized response at eps touches the GDP curve at its kink: a larger eps would not fit in mu
        assert privacy.pure_to_gdp_mu(eps * 1.01) > mu
    assert privacy.sparse_vector_scales(1.0, 0.5) == (4.0, 8.0)
    with pytest.raises(ValueError):
        privacy.pure_epsilon_for_mu(0.0)


def test_the_whole_release_is_mu_star_gdp_and_compose_agrees():
    rel = dc.run("tail_sensitive", X, 3, 1.0, 1e-5, seed=0)
    mu = privacy.gaussian_mu(1.0, 1e-5)
    f = rel.facts
    assert rel.privacy.kind == "gdp" and rel.privacy.mu <= mu * (1 + 1e-12)
    assert rel.privacy.mu == pytest.approx(mu, rel=1e-4)  # the grids' slack costs a hair below 1e-4
    # the same total through compose(): the pure step by its exact GDP conversion (route 2) with the Gaussian parts
    parts = [privacy.PrivacyCurve.pure(f["epsilon_svt"])] + [
        privacy.PrivacyCurve.gdp(f[k]) for k in ("mu_trace", "mu_vectors", "mu_values")
    ]
    total = privacy.compose(parts, delta=1e-5)
    assert total.kind == "gdp" and total.mu == pytest.approx(rel.privacy.mu, rel=1e-4)
    assert privacy.pure_to_gdp_mu(f["epsilon_svt"]) == pytest.approx(mu / math.sqrt(8), rel=1e-6)


def test_each_sparse_vector_query_moves_by_less_than_one_between_neighbours():
    """The proof's premise, checked on neighbouring datasets: replacing one row (by the longest row, the zero row, a
    row at a radius) moves every query by < 1, because the offsets are public and each row's excess is in [0, 1)."""
    data = prepare(X)
    mus = ts.budget(1.0, 1e-5, *ts.DEFAULT_SHARES)
    radii = ts.candidate_radii(ts.DEFAULT_LEVELS)
    trace = 0.05  # a released value: the same on both neighbours

    def queries(rows):
        sq = np.einsum("ij,ij->i", rows, rows)
        n = len(rows)
        return np.array(
            [
                ts.clipping_excess(sq, r) - n * ts.noise_error(r, trace, 12, n, mus["mu_vectors"], mus["mu_values"])
                for r in radii
            ]
        )

    base = queries(data.rows)
    rng = np.random.default_rng(1)
    for i in rng.choice(len(X), 25, replace=False):
        v = rng.normal(size=12)
        for new in (np.eye(12)[0], np.zeros(12), 0.5 * np.eye(12)[3], v / max(1.0, np.linalg.norm(v))):
            rows = data.rows.copy()
            rows[i] = new
            moved = np.abs(queries(rows) - base)
            assert moved.max() < 1.0 and moved.max() == pytest.approx(
                max(abs(max(new @ new - r * r, 0) - max(data.rows[i] @ data.rows[i] - r * r, 0)) for r in radii),
                abs=1e-9,
            )


def test_above_threshold_stops_where_the_queries_cross_and_spends_its_epsilon():
    rng = np.random.default_rng(0)
    queries = [-1e4, -1e4, 1e4, 1e4]
    stops = [ts.above_threshold(queries, 1.0, 0.0, rng) for _ in range(50)]
    assert all(stop == 2 for stop, _ in stops)
    assert all(0.999999 < spent <= 1.0 for _, spent in stops)  # the scales are rounded up: never more than epsilon
    assert ts.above_threshold([-1e4] * 3, 1.0, 0.0, rng)[0] == 3  # no crossing: past the last candidate
    # near the threshold the stop is random: both outcomes occur
    assert {ts.above_threshold([0.0, 0.0], 1.0, 0.0, rng)[0] for _ in range(60)} >= {0, 1}


def test_skewed_rows_are_clipped_and_the_release_boundary():
    rel = dc.run("tail_sensitive", X, 12, 2.0, 1e-5, seed=3)
    pub = rel.published()
    assert set(pub["outputs"]) == {"spectrum", "eigenvalue_noise_sd", "clipping_radius", "trace", "trace_noise_sd"}
    assert "rows_above_radius" in rel.diagnostics and "rows_above_radius" not in str(pub)
    radius = rel.outputs["clipping_radius"]
    assert radius < 1.0 and math.log2(radius) == round(math.log2(radius))  # skewed rows: a radius below the bound
    spectrum = np.asarray(rel.outputs["spectrum"])
    assert np.all(np.diff(spectrum) <= 0) and spectrum.min() >= 0 and spectrum.max() <= X.shape[0] * radius**2
    # exact noise on a grid, scaled by radius^2 (a power of two): still on a power-of-two grid
    step = 2.0 ** math.floor(math.log2(rel.outputs["eigenvalue_noise_sd"]) - 20)
    inside = (spectrum > 0) & (spectrum < X.shape[0] * radius**2)
    assert np.all(spectrum[inside] / step == np.round(spectrum[inside] / step))
    X_prime = X.copy()
    X_prime[0] = np.eye(12)[5]
    other = dc.run("tail_sensitive", X_prime, 12, 2.0, 1e-5, seed=3)
    assert other.facts == rel.facts and other.privacy == rel.privacy
    assert no_noise_free_field("tail_sensitive", X[:400], X_prime[:400], 2) is None
    with pytest.raises(ValueError, match="replace"):
        dc.run("tail_sensitive", X, 2, 1.0, 1e-5, neighbors="add_remove")


def test_error_falls_with_n_at_the_rates_slope():
    """On rows at the radius (tau = 1 throughout) the error is the Gaussian parts': at a fixed spectrum both the
    eigenvalues' noise sigma_lambda sqrt(d) / n and the first-order eigenvector error sigma_v / (n gap) fall like 1 / n,
    the rate's slope (TAIL_SENSITIVE_RATE; the paper's d^(1/4) sqrt(tr / n) is the worst case over spectra). Tolerance
    0.15 over a 16-fold range of n, median of 6 seeds (measured -0.96)."""
    d, ns = 16, (2000, 8000, 32000)
    errors = []
    for n in ns:
        rows = zipf_rows(n, d, buckets=1, seed=n)
        C = rows.T @ rows / n
        per_seed = []
        for seed in range(6):
            rel = dc.run("tail_sensitive", rows, d, 1.0, 1e-5, seed=seed)
            assert rel.outputs["clipping_radius"] == 1.0
            per_seed.append(np.linalg.norm((rel.components * rel.eigenvalues) @ rel.components.T / n - C))
        errors.append(np.median(per_seed))
    slope = np.polyfit(np.log(ns), np.log(errors), 1)[0]
    assert -1.15 <= slope <= -0.85, (errors, slope)


def test_beats_analyze_gauss_and_trace_sensitive_on_skewed_norms():
    rows = zipf_rows(6000, 60, buckets=8, seed=2)
    C = rows.T @ rows

    def error(mechanism, seed):
        rel = dc.run(mechanism, rows, 60, 1.0, 1e-5, seed=seed)
        return np.linalg.norm((rel.components * rel.eigenvalues) @ rel.components.T - C) / rows.shape[0]

    tail = np.median([error("tail_sensitive", s) for s in range(5)])
    assert tail < 0.8 * np.median([error("trace_sensitive", s) for s in range(5)])
    assert tail < 0.3 * np.median([error("analyze_gauss", s) for s in range(5)])


def test_release_pca_and_the_estimator_accept_it():
    accepted_by_release_pca_and_estimator("tail_sensitive", X, 2)


def test_audit_design_reads_the_gaussian_parts():
    design = ts.tail_sensitive_audit_design(d=2, n=20, neighbors="replace", statistic="auto")
    eps, delta, trials = 2.0, 1e-5, 200
    rng = np.random.default_rng(0)
    released = [
        [design.release(data, rng, eps, delta, "replace")[0] for _ in range(trials)]
        for data in (design.D, design.D_prime)
    ]
    assert all(r["radius"] == 1.0 for runs in released for r in runs)  # the background keeps tau = 1
    scores = [[design.score(r) for r in runs] for runs in released]
    mus = ts.budget(eps, delta, *ts.DEFAULT_SHARES)
    reach = mus["mu_vectors"] ** 2 + mus["mu_values"] ** 2  # 3/4 of mu^2: the two Gaussian parts move fully
    assert np.mean(scores[1]) - np.mean(scores[0]) == pytest.approx(reach, rel=0.25)
    assert design.D.n == 1 + sum(ts.AUDIT_BACKGROUND)

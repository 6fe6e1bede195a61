"""Tail-sensitive covariance (Dong, Liang & Yi 2022): the sparse vector step's sensitivity on neighbouring data, the
calibration against dp-accounting, the release boundary, accuracy against n, release_pca and the estimator, audit; the
automatic route (the authors' combined routine: the clipped release or the Gaussian mechanism)."""

import math

import numpy as np
import pytest
from dp_accounting import pld

import dppca_core as dc
from dppca_core import privacy
from dppca_core.data.prepare import prepare
from dppca_core.mechanisms import tail_sensitive as ts
from dppca_core.reproduce.dong_liang_yi import trace_one_rows, zipf_norm_rows
from tests.new_mechanisms import (
    accepted_by_release_pca_and_estimator,
    design_releases,
    no_noise_free_field,
    pld_epsilon,
)


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
    eps, delta = 2.0, 1e-5
    released = design_releases(design, eps, delta, 200)
    assert all(r["radius"] == 1.0 for runs in released for r in runs)  # the background keeps tau = 1
    scores = [[design.score(r) for r in runs] for runs in released]
    mus = ts.budget(eps, delta, *ts.DEFAULT_SHARES)
    reach = mus["mu_vectors"] ** 2 + mus["mu_values"] ** 2  # 3/4 of mu^2: the two Gaussian parts move fully
    assert np.mean(scores[1]) - np.mean(scores[0]) == pytest.approx(reach, rel=0.25)
    assert design.D.n == 1 + sum(ts.AUDIT_BACKGROUND)


# -- route="auto": the combined routine (private trace, sparse vector step against the smaller of two predicted errors,
# then the trace-sensitive release or the Gaussian mechanism on the clipped rows) ---------------------------------------

SKEWED = zipf_norm_rows(10000, 100, 8, np.random.default_rng(0))  # most rows short, d large: tr(C)/n = 0.0028
UNIT = trace_one_rows(20000, 20, np.random.default_rng(0))  # every row at norm 1, d small: tr(C)/n = 1
#: the branch runs at 3/4 of mu^2 (1/8 trace, 1/8 sparse vector step): sqrt(4/3) times the noise s.d. of a release
#: at the whole budget; the covariance error is at most linear in it (the eigenvector term grows like its root)
BRANCH_NOISE_FACTOR = math.sqrt(4.0 / 3.0)


def covariance_error(rel, rows, scale=1.0):
    """The Frobenius error of Sigma = C / n, the release's estimate times ``scale`` (tau^2 for unit-scale rows)."""
    estimate = scale * (rel.components * rel.eigenvalues) @ rel.components.T
    return np.linalg.norm(estimate - rows.T @ rows) / rows.shape[0]


def test_the_auto_route_is_the_authors_choice_at_the_released_values():
    """The branch is the authors' choice (their tail bounds, read where the walk stopped: half the released radius, or
    1 or 1/2 when it kept 1) at the released trace shifted up by their margin, a function of released and public
    values only: the clipped trace-sensitive release on skewed norms at d = 100 (the separate release's terms 0.5 to
    0.99 of the Gaussian mechanism's), the Gaussian mechanism on unit rows at d = 20 (6.7 to 12.9 times, and still
    above 2 with the trace moved by 6 of its noise s.d.s). At the radius it chose, its error is within the budget
    split's factor of the better of the two releases run on the same clipped rows with the whole budget, with 15% for
    the spread of 4 seeds' mean (measured: 1.05 and 1.16 times the better; the worse is 4.5 and 1.4 times the better)."""
    mus = ts.budget(1.0, 1e-5, *ts.DEFAULT_SHARES)
    margin = math.sqrt(2.0 * math.log(8.0 / ts.AUTHORS_BETA))
    for rows, route in ((SKEWED, "tail"), (UNIT, "gauss")):
        n, d = rows.shape
        releases = [dc.run("tail_sensitive", rows, d, 1.0, 1e-5, seed=s, route="auto") for s in range(4)]
        assert {rel.outputs["route"] for rel in releases} == {route}
        for rel in releases:
            radius, sd = rel.outputs["clipping_radius"], rel.outputs["trace_noise_sd"]
            for shift in (-6.0, 0.0, 6.0) if route == "gauss" else (0.0,):
                trace = float(np.clip((rel.outputs["trace"] + (margin + shift) * sd) / n, 1e-16, 1.0))
                terms = ts.authors_terms(trace, d, n, mus)
                for stop in (radius / 2, 1.0) if radius == 1.0 else (radius / 2,):
                    assert ts.authors_branch(stop, terms) == ("trace" if route == "tail" else "gauss")
                    ratio = (stop * terms["vectors"] + stop**2 * terms["values"]) / (stop**2 * terms["gauss"])
                    assert ratio > 2.0 if route == "gauss" else ratio < 1.0, (route, shift, stop, ratio)
        auto = np.mean([covariance_error(rel, rows) for rel in releases])
        branches = {"trace_sensitive": [], "analyze_gauss": []}
        for seed, rel in enumerate(releases):
            tau = rel.outputs["clipping_radius"]
            unit = rows / np.maximum(np.linalg.norm(rows, axis=1), tau)[:, None]  # clipped at tau, divided by it
            for mechanism, errors in branches.items():
                branch = dc.run(mechanism, unit, d, 1.0, 1e-5, seed=seed)
                errors.append(covariance_error(branch, rows, tau**2))
        best = min(np.mean(errors) for errors in branches.values())
        assert auto < 1.15 * BRANCH_NOISE_FACTOR * best, (route, auto, best)


@pytest.mark.parametrize("rows,route", [(SKEWED[:4000, :40], "tail"), (UNIT[:8000], "gauss")])
def test_the_auto_route_composes_to_the_claim_in_dp_accounting(rows, route):
    """The claim counts the trace, the sparse vector step (by its exact GDP conversion) and the branch at mu_main: in
    dp-accounting the Gaussian parts with the step as its GDP equivalent compose to epsilon (to the grids' slack), and
    with the step as randomized response (the exact worst case of a pure epsilon_0 step) to no more."""
    eps, delta = 1.0, 1e-5
    rel = dc.run("tail_sensitive", rows, 5, eps, delta, seed=3, route="auto")
    assert rel.outputs["route"] == route
    mu = privacy.gaussian_mu(eps, delta)
    mus = ts.budget(eps, delta, *ts.DEFAULT_SHARES)
    assert rel.facts["mu_main"] == pytest.approx(mu * math.sqrt(0.75)) and rel.facts["mu_trace"] == mus["mu_trace"]
    scale = (
        rel.outputs["clipping_radius"] ** 2
    )  # upper(X^T X) and the spectrum of the clipped rows move by sqrt(2) tau^2
    branch = [(rel.noise_scale, math.sqrt(2.0) * scale)]
    if route == "tail":
        branch.append((rel.outputs["eigenvalue_noise_sd"], math.sqrt(2.0) * scale))
        assert rel.noise_scale == pytest.approx(scale * math.sqrt(2.0) / mus["mu_vectors"])
    else:
        assert rel.noise_scale == pytest.approx(scale * math.sqrt(2.0) / mus["mu_main"])
        assert "eigenvalue_noise_sd" not in rel.outputs
    trace = (rel.outputs["trace_noise_sd"], 1.0)
    mu_svt = privacy.pure_to_gdp_mu(rel.facts["epsilon_svt"])
    assert pld_epsilon([trace, (1.0 / mu_svt, 1.0)] + branch, delta) == pytest.approx(eps, rel=1e-3)
    rr = pld.privacy_loss_distribution.from_randomized_response(
        2.0 / (1.0 + math.exp(rel.facts["epsilon_svt"])), 2, value_discretization_interval=1e-4
    )
    gaussians = [
        pld.privacy_loss_distribution.from_gaussian_mechanism(sd, sensitivity=s, value_discretization_interval=1e-4)
        for sd, s in [trace] + branch
    ]
    composed = rr
    for part in gaussians:
        composed = composed.compose(part)
    assert composed.get_epsilon_for_delta(delta) <= eps * (1 + 1e-3)
    # the curve claimed is the same whichever branch ran: at most mu*
    assert rel.privacy.kind == "gdp" and rel.privacy.mu <= mu * (1 + 1e-12)
    assert rel.privacy.mu == pytest.approx(mu, rel=1e-4)


def test_the_auto_route_release_boundary_and_neighbours():
    rel = dc.run("tail_sensitive", SKEWED, 3, 1.0, 1e-5, seed=1, route="auto")
    pub = rel.published()
    tail_outputs = {"route", "spectrum", "eigenvalue_noise_sd", "clipping_radius", "trace", "trace_noise_sd"}
    assert set(pub["outputs"]) == tail_outputs and pub["parameters"]["route"] == "auto"
    assert "rows_above_radius" in rel.diagnostics and "rows_above_radius" not in str(pub)
    gauss = dc.run("tail_sensitive", UNIT, 3, 1.0, 1e-5, seed=1, route="auto")
    assert set(gauss.published()["outputs"]) == tail_outputs - {"eigenvalue_noise_sd"}
    spectrum = np.asarray(gauss.outputs["spectrum"])  # the noisy matrix's eigenvalues, sorted, in [0, n tau^2]
    assert np.all(np.diff(spectrum) <= 0) and spectrum.min() >= 0 and spectrum.max() <= UNIT.shape[0]
    # a neighbour far from the crossing: the same route, facts and curve
    for rows, release in ((SKEWED, rel), (UNIT, gauss)):
        other_rows = rows.copy()
        other_rows[0] = np.eye(rows.shape[1])[3]
        other = dc.run("tail_sensitive", other_rows, 3, 1.0, 1e-5, seed=1, route="auto")
        assert other.outputs["route"] == release.outputs["route"]
        assert other.facts == release.facts and other.privacy == release.privacy
    small = UNIT[:300, :6] / np.linalg.norm(UNIT[:300, :6], axis=1)[:, None]
    assert no_noise_free_field("tail_sensitive", small, np.vstack([np.eye(6)[1], small[1:]]), 2, route="auto") is None


def test_the_default_route_is_the_tail_route():
    a = dc.run("tail_sensitive", X, 3, 1.0, 1e-5, seed=5)
    b = dc.run("tail_sensitive", X, 3, 1.0, 1e-5, seed=5, route="tail")
    assert np.array_equal(a.components, b.components) and a.outputs.keys() == b.outputs.keys()
    assert "route" not in a.outputs and "mu_vectors" in a.facts
    with pytest.raises(ValueError):
        dc.run("tail_sensitive", X, 3, 1.0, 1e-5, seed=5, route="gauss")


def test_the_auto_route_audit_design_reads_the_branch_share():
    design = ts.tail_sensitive_audit_design(d=2, n=20, neighbors="replace", statistic="route_auto")
    # epsilon 4: mu_main = 0.80, so the gap's standard error over 300 runs a side, sqrt(2 / 300) / mu_main, is 10%
    # of it (at epsilon 2 it was 19%, and a change of the random stream moved the gap by two of them)
    eps, delta = 4.0, 1e-5
    runs = design_releases(design, eps, delta, 300)
    assert {run["route"] for both in runs for run in both} == {"gauss"}  # d = 2: the Gaussian branch, always
    scores = [[design.score(run) for run in both] for both in runs]
    mu_main = ts.budget(eps, delta, *ts.DEFAULT_SHARES)["mu_main"]
    gap = np.mean(scores[1]) - np.mean(scores[0])  # mu_main^2 in expectation: the matrix moves by its sensitivity
    assert gap == pytest.approx(mu_main**2, rel=0.25) and np.std(scores[0]) == pytest.approx(mu_main, rel=0.15)


@pytest.mark.parametrize("n,d", [(2 * 13_107 + 5, 20), (3001, 40)])
def test_the_clipped_rows_are_summed_a_block_at_a_time_with_the_bits_of_a_clipped_copy(n, d):
    """Issue 64: the squared norms and the Gram matrix of the rows clipped at the radius are those of the rows formed
    whole and of their clipped copy prepared (what the mechanism computed before), bit for bit, from data whose rows
    are not formed."""
    rows = zipf_rows(n, d, seed=d) * 1.7  # some rows beyond R = 1: clipped by prepare first
    data = prepare(rows, 1.0, gram_now=False)
    formed = prepare(rows, 1.0, gram_now=False).rows
    sq = ts.row_sq_norms_of(data)
    assert np.array_equal(sq.view(np.uint64), ts.row_sq_norms(formed).view(np.uint64))
    norms = np.sqrt(sq)
    radius = 0.25
    unit = ts.clipped_unit_rows(data, norms, radius)
    scale = np.divide(1.0, norms, out=np.full(n, 1.0 / radius), where=norms > radius)
    assert np.array_equal(unit.gram.view(np.uint64), prepare(formed * scale[:, None]).gram.view(np.uint64))
    assert unit.n == n and not data.rows_formed


def test_a_run_forms_no_copy_of_the_rows():
    """The rows are read a block at a time (twice): the traced peak of a run stays far below the table's size (two
    copies, the rows and their clipped copy, came to 2.2 times it)."""
    import tracemalloc

    rows = zipf_rows(200_000, 20, seed=3)
    dc.run("tail_sensitive", rows, 2, 1.0, 1e-6, seed=0)
    tracemalloc.start()
    try:
        dc.run("tail_sensitive", rows, 2, 1.0, 1e-6, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * rows.nbytes, (peak, rows.nbytes)


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
run/tail_sensitive 4208d4135732cb872e6f5ec6 1904ba6ae4f58e0d
run/tail_sensitive/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/tail_sensitive/auto 439c12c7e2ab6060dee3a9a5 0cfd7ef2a8dc70b4
"""

"""Spatial-sign (Kendall) PCA: its sensitivity at the worst case and never above it, its noise, its audit, R's
calibration of the same statistic, and its advantage on heavy-tailed rows when the radius is a guess."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.audit import audit
from dppca_core.mechanisms import spatial_sign as ss
from tests.new_mechanisms import accepted_by_release_pca_and_estimator, design_releases, no_noise_free_field

ROOT = Path(__file__).resolve().parents[2]
SQRT2 = math.sqrt(2.0)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def moved(X, X_prime, centre, partners=3, seed=0):
    """||T(X) - T(X')||_F with the same public order on both (the statistic's sensitivity is for a fixed order)."""
    return np.linalg.norm(
        ss.sign_statistic(X, centre, partners, np.random.default_rng(seed))
        - ss.sign_statistic(X_prime, centre, partners, np.random.default_rng(seed))
    )


@pytest.mark.parametrize("centre", ss.CENTRES)
def test_the_worst_replacement_moves_the_statistic_by_sqrt2(centre):
    """A far canary turned from e1 to e2 among rows close together: every one of its terms goes from e1 e1^T to
    e2 e2^T, sqrt(2) in Frobenius norm (to 1e-12 at a canary 1e8 away). Without the 1/(2m), the pairs' sum moves by
    2m sqrt(2): a bound with one row's share of the pairs smaller than 2m would be exceeded."""
    rows = np.zeros((30, 3))
    rows[:, 0] = np.linspace(-1, 1, 31)[1:]
    canary = np.eye(3)[:2] * 1e8
    X, X_prime = np.vstack([canary[0], rows]), np.vstack([canary[1], rows])
    assert moved(X, X_prime, centre) == pytest.approx(SQRT2, abs=1e-12)
    assert privacy.sensitivity("sign_pairs" if centre == "pairs" else "sign_rows", "replace") == SQRT2


@pytest.mark.parametrize("centre", ss.CENTRES)
def test_no_replacement_moves_the_statistic_by_more_than_its_sensitivity(centre):
    """Random data, replacements drawn to be hostile (a zero row, a duplicate, a huge or tiny row, the negated row, an
    orthogonal one) at random positions, several public orders: never above sqrt(2)."""
    rng = np.random.default_rng(3)
    worst = 0.0
    for trial in range(60):
        n, d = rng.integers(5, 25), rng.integers(2, 5)
        X = rng.standard_normal((n, d)) * rng.choice([1e-6, 1.0, 1e6], size=(n, 1))
        X[rng.integers(n)] = X[rng.integers(n)]  # a duplicate pair: its sign is 0
        i = rng.integers(n)
        other = [np.zeros(d), -X[i], X[(i + 1) % n], 1e150 * rng.standard_normal(d), rng.standard_normal(d)][trial % 5]
        X_prime = X.copy()
        X_prime[i] = other
        worst = max(worst, moved(X, X_prime, centre, partners=int(rng.integers(1, 12)), seed=trial))
    assert worst <= SQRT2 + 1e-12


def test_add_remove_moves_the_origin_form_by_at_most_one():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 4))
    for i in range(5):
        assert moved(X, np.delete(X, i, axis=0), "origin") <= 1.0 + 1e-12
    assert moved(np.vstack([5.0 * np.eye(4)[0], X]), X, "origin") == pytest.approx(1.0, abs=1e-12)
    assert privacy.sensitivity("sign_rows", "add_remove") == 1.0
    with pytest.raises(ValueError, match="neighbors='replace'"):
        privacy.sensitivity("sign_pairs", "add_remove")
    with pytest.raises(ValueError, match="n public"):
        dc.run("spatial_sign", X, 2, 1.0, 1e-5, neighbors="add_remove", seed=0, centre="pairs")


def test_kim_and_jung_s_complete_statistic_and_its_sensitivity():
    """With n odd and m = (n - 1) / 2 partners every pair appears once: T = (n / 2) times Kim & Jung's mean over the
    n (n - 1) / 2 pairs, whatever the order. So that mean moves by 2 sqrt(2) / n at the worst case: above the 2 / n an
    earlier version of R's package calibrated for, below the 4 / n of its current one."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((11, 3))
    i, j = np.triu_indices(11, 1)
    complete = ss.unit_signs(X[j] - X[i]).T @ ss.unit_signs(X[j] - X[i]) * 2 / (11 * 10)
    T = ss.sign_statistic(X, "pairs", 5, np.random.default_rng(0))
    assert np.allclose(T * 2 / 11, complete, atol=1e-14)
    r_dppca = load("r_dppca")
    assert np.allclose(r_dppca.kendall_matrix(X), complete, atol=1e-14)
    rows = np.zeros((10, 3))
    rows[:, 0] = np.linspace(-1, 1, 11)[1:]
    X, X_prime = np.vstack([1e8 * np.eye(3)[0], rows]), np.vstack([1e8 * np.eye(3)[1], rows])
    shift = np.linalg.norm(r_dppca.kendall_matrix(X) - r_dppca.kendall_matrix(X_prime))
    assert shift == pytest.approx(2 * SQRT2 / 11, rel=1e-12) and 2 / 11 < shift < 4 / 11


def test_the_noise_is_frobenius_isotropic_at_the_analytic_scale():
    """Diagonal entries of variance sigma^2, off-diagonal sigma^2 / 2, independent (a chi-square check of 4,000
    draws: the sample variances within 7%, about 4.5 of their standard errors); sigma from the calibration module."""
    sigma = ss.noise_sd("pairs", 1.0, 1e-5, "replace")
    assert sigma == privacy.gaussian_sigma(SQRT2, 1.0, 1e-5)
    draws = np.array([ss.frobenius_noise(3, sigma, np.random.default_rng(s)) for s in range(4000)])
    var = draws.var(axis=0)
    assert np.allclose(np.diag(var), sigma**2, rtol=0.07)
    assert np.allclose(var[np.triu_indices(3, 1)], sigma**2 / 2, rtol=0.07)
    assert np.allclose(draws, np.swapaxes(draws, 1, 2))


@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
def test_a_release_is_exactly_mu_star_gdp_and_publishes_no_noise_free_field(neighbors):
    X = np.random.default_rng(6).standard_normal((200, 5)) * 50  # no radius: the rows as given
    rel = dc.run("spatial_sign", X, 2, 1.0, 1e-5, neighbors=neighbors, seed=1)
    assert rel.privacy.kind == "gdp" and rel.privacy.mu == pytest.approx(privacy.gaussian_mu(1.0, 1e-5), rel=1e-12)
    assert rel.facts["centre"] == ("pairs" if neighbors == "replace" else "origin")
    assert np.allclose(rel.components.T @ rel.components, np.eye(2), atol=1e-10)
    assert rel.diagnostics.get("warnings", []) == []  # nothing clipped
    X_prime = X.copy()
    X_prime[0] = -X[0] * 3
    assert no_noise_free_field("spatial_sign", X[:60], X_prime[:60], 2, neighbors=neighbors) is None


def test_its_design_reaches_the_whole_mu_and_the_audit_refutes_twice_the_claim():
    """The design's score is the exact likelihood ratio: it moves by mu^2 in expectation, with s.d. mu (at epsilon = 4,
    mu = 1.03: 400 releases a side, the mean gap's standard error 7%, the s.d.'s 3.5%; tolerances at 3 of them);
    the audit does not refute the claim and refutes a run at twice it (1,000 trials per dataset)."""
    design = ss.spatial_sign_audit_design(d=2, n=20, neighbors="replace", statistic="auto")
    runs = design_releases(design, 4.0, 1e-5, 400)
    scores = [[design.score(run) for run in both] for both in runs]
    mu = privacy.gaussian_mu(4.0, 1e-5)
    assert np.mean(scores[1]) - np.mean(scores[0]) == pytest.approx(mu**2, rel=0.21)
    assert np.std(scores[0]) == pytest.approx(mu, rel=0.11)
    held = audit("spatial_sign", 1.0, 1e-5, trials=1000, seed=0)
    assert not held.violated and held.statistic == "sign_likelihood"
    assert audit("spatial_sign", 1.0, 1e-5, trials=1000, seed=0, run_epsilon=2.0).violated


def test_release_pca_and_the_estimator_run_it():
    X = np.random.default_rng(7).standard_normal((300, 5)) * 0.2
    accepted_by_release_pca_and_estimator("spatial_sign", X, 2)


def test_r_dppca_s_earlier_calibration_is_refuted_where_its_sensitivity_is_short():
    """R's g-DPPCA before commit 5105b21 scaled its noise for a sensitivity 2 / n where a row moves the statistic by
    2 sqrt(2) / n: at (4, 1e-5) its noise gives epsilon 5.24, and audit_external on the port proves more than 4 (2,000
    trials per dataset); the current version (4 / n) gives 2.37, within its claim."""
    r_dppca = load("r_dppca")
    assert privacy.gaussian_epsilon(r_dppca.true_mu(2.0, 4.0, 1e-5), 1e-5) == pytest.approx(5.24, abs=0.01)
    assert privacy.gaussian_epsilon(r_dppca.true_mu(4.0, 4.0, 1e-5), 1e-5) == pytest.approx(2.37, abs=0.01)
    assert r_dppca.audit_version(2.0, 4.0, 1e-5, 2000).violated


RADIUS_BASED = [
    name
    for name in dc.mechanism_names("pca")
    if name != "spatial_sign"
    and dc.get_mechanism(name).guarantee in ("approximate", "pure")
    and (dc.get_mechanism(name).max_k or 2) >= 2
]


def test_it_is_ahead_of_every_radius_based_mechanism_on_t2_rows_with_a_guessed_radius():
    """Multivariate t with 2 degrees of freedom, n = 2,000, d = 10, k = 2, R = 10 times the law's median row norm (a
    guess from the law, not the rows): the median error over 3 seeds is below every radius-based mechanism's (each
    run once per seed at its defaults; measured 0.03 against 0.35 for CoinPress, the next best)."""
    frontier = load("frontier")
    errors = {}
    for seed in range(3):
        X, U = frontier.heavy_tailed(2000, 10, df=2, seed=seed)
        for name in RADIUS_BASED + ["spatial_sign"]:
            params = {"sites": 1} if dc.get_mechanism(name).model == "distributed" else {}
            rel = dc.run(name, X, 2, 1.0, 1e-5, seed=seed, **params)
            errors.setdefault(name, []).append(metrics.subspace_distance(rel.components, U))
    ours = np.median(errors.pop("spatial_sign"))
    best = min(errors, key=lambda name: np.median(errors[name]))
    assert ours < np.median(errors[best]), (ours, best, np.median(errors[best]))


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
run/spatial_sign 6d87c084db7e76bb03a36251 ba38698351825789
run/spatial_sign/add_remove bfab87b3b27c82b0c1bebc99 2486e374ad10257a
"""

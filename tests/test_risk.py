"""Disclosure risk (issue 16): trade-off curves, posterior bounds, composition, reference points, figures.

Closed forms are checked against independent computations (scipy's normal distribution, brute-force grids,
Monte Carlo) and compositions against Google's dp-accounting privacy-loss distributions (PLDs), as
tests/test_privacy.py does for the calibration.
"""

import json
import math

import numpy as np
import pytest
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy.stats import norm

import dppca_core as dc
from dppca_core import privacy, risk
from dppca_core.figures import risk as rfig
from dppca_core.privacy import PrivacyCurve

PLD_INTERVAL = 1e-4
ALPHA = np.linspace(0.0, 1.0, 2001)


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(7).normal(size=(120, 5))


def gdp_tradeoff_reference(mu, alpha):
    """mu-GDP trade-off written independently with scipy.stats: Phi(Phi^-1(1 - alpha) - mu)."""
    return norm.cdf(norm.isf(alpha) - mu)


def pure_tradeoff_reference(eps, alpha, delta=0.0):
    return np.maximum.reduce(
        [np.zeros_like(alpha), 1 - delta - math.exp(eps) * alpha, math.exp(-eps) * (1 - delta - alpha)]
    )


def dp_pld(eps, delta=0.0):
    return pld.from_privacy_parameters(
        pld_common.DifferentialPrivacyParameters(eps, delta), value_discretization_interval=PLD_INTERVAL
    )


def gauss_pld(mu):
    return pld.from_gaussian_mechanism(
        standard_deviation=1.0 / mu, sensitivity=1.0, value_discretization_interval=PLD_INTERVAL
    )


# ---------------------------------------------------------------------------------------------------------------
# The attacker's best test for real releases


@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
@pytest.mark.parametrize("eps,delta", [(0.3, 1e-6), (1.0, 1e-5), (4.0, 1e-8)])
def test_analyze_gauss_tradeoff_is_mu_gdp_at_its_sigma(X, neighbors, eps, delta):
    rel = dc.run("analyze_gauss", X, 2, eps, delta, neighbors=neighbors, seed=1)
    mu = privacy.sensitivity("gram_upper", neighbors) / rel.noise_scale  # from the noise actually added
    assert np.max(np.abs(risk.tradeoff(rel, ALPHA) - gdp_tradeoff_reference(mu, ALPHA))) <= 1e-9
    # its (epsilon, delta) reading at the claimed delta gives back the claimed epsilon
    assert risk.epsilon_at(rel, delta) == pytest.approx(eps, abs=1e-6)
    assert risk.delta_at(rel, eps) == pytest.approx(delta, rel=1e-6)


def test_private_power_tradeoff_composes_its_iterations(X):
    rel = dc.run("private_power", X, 2, 1.0, 1e-6, seed=1)
    steps = rel.facts["iterations"]
    sens = privacy.sensitivity("gram_times_basis", "replace", block_size=rel.facts["block_size"])
    mu = math.sqrt(steps) * sens / rel.noise_scale  # T Gaussian steps compose to sqrt(T) * Delta / sigma
    assert np.max(np.abs(risk.tradeoff(rel, ALPHA) - gdp_tradeoff_reference(mu, ALPHA))) <= 1e-9
    assert risk.epsilon_at(rel, 1e-6) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("mech", ["ppca_exponential", "amin_iterative"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_pure_mechanisms_get_the_epsilon_dp_curve(X, mech, eps):
    rel = dc.run(mech, X, 2, eps, seed=1)
    assert rel.privacy.kind == "pure"
    assert np.max(np.abs(risk.tradeoff(rel, ALPHA) - pure_tradeoff_reference(eps, ALPHA))) <= 1e-12
    assert risk.epsilon_at(rel, 0.0) == eps and risk.delta_at(rel, eps) == 0.0
    assert risk.attacker_advantage(rel) == pytest.approx(math.tanh(eps / 2), abs=1e-12)


def test_no_guarantee_means_the_attacker_always_wins(X):
    rel = dc.run("non_private", X, 2, 1.0, seed=1)
    assert np.all(risk.tradeoff(rel, ALPHA) == 0)
    assert risk.attacker_advantage(rel) == 1.0
    assert risk.posterior_bound(rel, 0.1).posterior == 1.0
    assert "no protection" in risk.posterior_sentence(risk.posterior_bound(rel, 0.1))
    assert math.isinf(risk.epsilon_at(rel, 1e-6))


def test_tradeoff_curve_is_convex_decreasing_below_the_diagonal_and_includes_kinks():
    for curve in (PrivacyCurve.gdp(0.7), PrivacyCurve.pure(1.3), PrivacyCurve.approx(0.8, 1e-3)):
        a, b = risk.tradeoff_curve(curve)
        assert a[0] == 0 and a[-1] == 1 and np.all(np.diff(a) > 0)
        assert np.all(np.diff(b) <= 1e-15) and np.all(b <= 1 - a + 1e-12)
        keep = np.concatenate([[True], np.diff(a) > 1e-6])  # finite differences need spacing above rounding
        a2, b2 = a[keep], b[keep]
        slopes = np.diff(b2) / np.diff(a2)
        assert np.all(np.diff(slopes) >= -1e-6 * (1 + np.abs(slopes[1:])))  # convex
    a, _ = risk.tradeoff_curve(PrivacyCurve.pure(1.3))
    assert np.any(np.isclose(a, 1 / (1 + math.exp(1.3)), rtol=0, atol=1e-15))
    with pytest.raises(ValueError, match="alpha"):
        risk.tradeoff(PrivacyCurve.pure(1.0), [1.5])


# ---------------------------------------------------------------------------------------------------------------
# Helpers of the trade-off: advantage, profile, best guess


@pytest.mark.parametrize(
    "curve",
    [
        PrivacyCurve.gdp(0.05),
        PrivacyCurve.gdp(1.0),
        PrivacyCurve.gdp(4.0),
        PrivacyCurve.pure(0.1),
        PrivacyCurve.pure(3.0),
        PrivacyCurve.approx(1.0, 0.01),
    ],
)
def test_advantage_is_the_brute_force_max_and_the_total_variation(curve):
    grid = np.concatenate([np.linspace(0, 1, 200001), ndtr_grid()])
    brute = np.max(1 - grid - curve.false_negative_floor(grid))
    # the closed form is the maximum: never below the grid's best, and the grid comes within its resolution
    assert brute - 1e-12 <= risk.attacker_advantage(curve) <= brute + 1e-4
    # independent: the total-variation distance of the extremal pair is dp-accounting's delta at epsilon = 0
    dist = gauss_pld(curve.mu) if curve.kind == "gdp" else dp_pld(curve.epsilon, curve.delta)
    assert risk.attacker_advantage(curve) == pytest.approx(dist.get_delta_for_epsilon(0.0), abs=2e-4)


def ndtr_grid():
    return norm.cdf(np.linspace(-9, 9, 20001))


def test_advantage_grows_with_epsilon():
    eps = np.linspace(0.01, 20, 200)
    adv = [risk.attacker_advantage(PrivacyCurve.pure(e)) for e in eps]
    adv_g = [risk.attacker_advantage(PrivacyCurve.gdp(m)) for m in eps]
    assert np.all(np.diff(adv) > 0) and np.all(np.diff(adv_g) >= 0) and adv_g[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("eps0,delta0", [(1.0, 0.0), (0.5, 1e-6), (3.0, 1e-3), (8.0, 0.0)])
def test_pure_and_approx_profile_matches_dp_accounting(eps0, delta0):
    curve = PrivacyCurve.pure(eps0) if delta0 == 0 else PrivacyCurve.approx(eps0, delta0)
    dist = dp_pld(eps0, delta0)
    for e in (0.0, 0.3 * eps0, 0.9 * eps0, eps0, 2 * eps0):
        assert risk.delta_at(curve, e) == pytest.approx(dist.get_delta_for_epsilon(e), abs=1e-6)
    for d in (delta0, delta0 + 1e-4, 0.05, 0.3):
        assert risk.epsilon_at(curve, d) == pytest.approx(dist.get_epsilon_for_delta(d), abs=2e-3)
    assert risk.epsilon_at(curve, delta0) == eps0  # the claim is given back exactly
    if delta0 > 0:
        assert math.isinf(risk.epsilon_at(curve, delta0 / 2))


def test_gdp_reading_matches_pld():
    for mu in (0.2, 1.0, 3.0):
        dist = gauss_pld(mu)
        for d in (1e-8, 1e-5, 1e-2):
            assert risk.epsilon_at(PrivacyCurve.gdp(mu), d) == pytest.approx(
                dist.get_epsilon_for_delta(d), rel=2e-3, abs=2e-4
            )


@pytest.mark.parametrize(
    "curve", [PrivacyCurve.gdp(0.3), PrivacyCurve.gdp(2.5), PrivacyCurve.pure(1.0), PrivacyCurve.approx(2.0, 0.01)]
)
@pytest.mark.parametrize("p", [0.01, 0.1, 0.5, 0.9])
def test_max_success_probability_is_the_brute_force_bayes_accuracy(curve, p):
    grid = np.concatenate([np.linspace(0, 1, 400001), ndtr_grid()])
    brute = 1 - np.min((1 - p) * grid + p * curve.false_negative_floor(grid))
    got = risk.max_success_probability(curve, p)
    assert brute - 1e-12 <= got <= brute + 1e-5
    assert got >= max(p, 1 - p) - 1e-12  # never below guessing from the prior


# ---------------------------------------------------------------------------------------------------------------
# Posterior belief


def test_posterior_matches_the_closed_form_and_the_issue_example():
    p = np.array([0.001, 0.01, 0.1, 0.25, 0.5, 0.9, 0.999])
    for e in (0.0, 0.1, 1.0, 5.0, 30.0):
        want = p * math.exp(e) / (1 - p + p * math.exp(e))
        assert np.allclose(risk.posterior(p, e), want, rtol=1e-12, atol=0)
    assert risk.posterior(0.1, 1.0) == pytest.approx(0.23197, abs=1e-5)  # "10% sure -> at most 23% sure"
    assert risk.posterior(0.3, math.inf) == 1.0 and risk.posterior(0.0, 5.0) == 0.0 and risk.posterior(1.0, 0) == 1
    assert risk.posterior(0.2, 800.0) == 1.0  # no overflow


def test_posterior_is_monotone_in_epsilon_and_prior():
    p = np.linspace(0.0, 1.0, 101)
    e = np.linspace(0.0, 10.0, 101)
    q = risk.posterior(p[:, None], e[None, :])
    assert np.all(np.diff(q, axis=0) >= 0) and np.all(np.diff(q, axis=1) >= 0)
    inner = q[1:-1, :]
    assert np.all(np.diff(inner, axis=0) > 0) and np.all(np.diff(inner, axis=1) > 0)  # strictly inside (0, 1)
    assert np.all(q >= p[:, None] - 1e-15)  # never below the prior
    # the release-level bound inherits both: more epsilon or mu, or a smaller tolerated failure, gives more
    for make in (PrivacyCurve.pure, PrivacyCurve.gdp):
        vals = [risk.posterior_bound(make(x), 0.1).posterior for x in np.linspace(0.05, 3, 60)]
        assert np.all(np.diff(vals) > 0)
    tails = [risk.posterior_bound(PrivacyCurve.gdp(0.5), 0.1, tail=t).posterior for t in (1e-2, 1e-4, 1e-6, 1e-10)]
    assert np.all(np.diff(tails) > 0)


def test_pure_bound_holds_for_every_output_and_is_the_closed_form():
    for eps in (0.1, 1.0, 4.0):
        for p in risk.DEFAULT_PRIORS:
            for tail in (None, 0.0, 1e-6):  # a small tolerated failure cannot beat the bound that always holds
                b = risk.posterior_bound(PrivacyCurve.pure(eps), p, tail=tail)
                assert b.always and b.tail == 0 and b.epsilon == eps
                assert b.posterior == pytest.approx(p * math.exp(eps) / (1 - p + p * math.exp(eps)), rel=1e-14)


def _doc_table(header_start):
    lines = open(__file__.replace("tests/test_risk.py", "docs/risk.md"), encoding="utf-8").read().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[i + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_the_tables_in_the_docs_are_what_the_code_computes():
    rows = _doc_table("| ε (pure DP)")
    assert len(rows) == 6
    for row in rows:
        eps = float(row[0])
        want = [risk.format_percent(risk.posterior(p, eps)) for p in risk.DEFAULT_PRIORS]
        want.append(risk.format_percent(0.5 + risk.attacker_advantage(PrivacyCurve.pure(eps)) / 2))
        assert row[1:] == want
    rows = _doc_table("| claimed ε at δ = 10⁻⁶")
    assert len(rows) == 6
    for row in rows:
        curve = PrivacyCurve.gdp(privacy.gaussian_mu(float(row[0]), 1e-6))
        bounds = [risk.posterior_bound(curve, p, tail=1e-6) for p in risk.DEFAULT_PRIORS]
        assert float(row[1]) == pytest.approx(curve.mu, abs=5e-4)
        assert float(row[2]) == pytest.approx(bounds[0].epsilon, abs=5e-3)
        assert row[3:6] == [risk.format_percent(b.posterior) for b in bounds]
        assert row[6] == risk.format_percent(0.5 + risk.attacker_advantage(curve) / 2)
        assert row[7] == risk.format_percent(float(risk.tradeoff(curve, 0.05)), upper=False)


@pytest.mark.parametrize(
    "curve",
    [
        PrivacyCurve.gdp(0.24),
        PrivacyCurve.gdp(1.0),
        PrivacyCurve.gdp(5.0),
        PrivacyCurve.approx(1.0, 1e-6),
        PrivacyCurve.approx(0.3, 1e-3),
    ],
)
@pytest.mark.parametrize("tail", [1e-10, 1e-6, 1e-3, 0.05])
def test_tail_epsilon_inverts_the_privacy_loss_tail(curve, tail):
    eps = risk.tail_epsilon(curve, tail)
    if curve.kind == "approx" and tail <= curve.delta:
        assert math.isinf(eps)
        return
    assert risk.privacy_loss_tail(curve, eps) == pytest.approx(tail, rel=1e-6)
    assert risk.privacy_loss_tail(curve, eps * 1.01 + 1e-9) < tail  # smallest such epsilon
    if curve.kind == "approx":  # closed form eps - ln(1 - delta / tail)
        assert eps == pytest.approx(curve.epsilon - math.log1p(-curve.delta / tail), rel=1e-12)


def test_gdp_tail_bounds_the_exact_gaussian_tail_and_the_profile():
    for mu in (0.2, 1.0, 3.0):
        curve = PrivacyCurve.gdp(mu)
        for eps in (0.1, 0.5, 1.0, 3.0, 8.0):
            t = risk.privacy_loss_tail(curve, eps)
            assert t >= norm.cdf(mu / 2 - eps / mu) * (1 - 1e-9)  # the plain Gaussian mechanism's own tail
            assert t >= privacy.gaussian_delta(eps, mu) * (1 - 1e-9)  # delta(eps) <= P[loss > eps]
            assert t <= 1


def test_gdp_tail_is_attained_by_a_two_point_pair():
    # P = Bern(1 - G(a)), Q = Bern(a) has trade-off >= G_mu (its kink lies on G_mu, convexity does the rest) and
    # loss > eps on its event when (1 - G(a)) / a > e^eps; the largest such probability is the tail bound.
    mu, eps = 1.0, 1.5
    a = np.logspace(-12, -0.01, 400000)
    power = 1 - gdp_tradeoff_reference(mu, a)
    reach = np.max(power[np.log(power / a) > eps])
    assert reach == pytest.approx(risk.privacy_loss_tail(PrivacyCurve.gdp(mu), eps), rel=1e-4)


def test_gdp_posterior_bound_holds_by_monte_carlo():
    # the scalar Gaussian mechanism, 0 vs 1 with sigma = 1/mu: exact likelihood ratio of each draw
    rng = np.random.default_rng(3)
    mu, p, tail = 1.0, 0.1, 0.02
    b = risk.posterior_bound(PrivacyCurve.gdp(mu), p, tail=tail)
    for truth in (1.0, 0.0):
        y = truth + rng.normal(size=200_000) / mu
        log_lr = mu**2 * (y - 0.5)  # ln N(y; 1, 1/mu^2) - ln N(y; 0, 1/mu^2)
        post = 1 / (1 + (1 - p) / p * np.exp(-log_lr))
        assert np.mean(post > b.posterior) <= tail
    # and the bound is not vacuous: it is exceeded with some probability near its level
    y = 1.0 + rng.normal(size=200_000) / mu
    post = 1 / (1 + (1 - p) / p * np.exp(-(mu**2) * (y - 0.5)))
    assert np.mean(post > b.posterior) > tail / 10


def test_posterior_sentences_in_words():
    pure = [risk.posterior_sentence(risk.posterior_bound(PrivacyCurve.pure(1.0), p)) for p in risk.DEFAULT_PRIORS]
    assert pure[1] == (
        "An attacker who was 10% sure that this person's row is in the data can become at most "
        "23.2% sure, whatever the release shows."
    )
    assert "1% sure" in pure[0] and "2.68%" in pure[0] and "50% sure" in pure[2] and "73.2%" in pure[2]
    g = risk.posterior_sentence(risk.posterior_bound(PrivacyCurve.gdp(0.5), 0.1, tail=1e-6), "replace")
    assert "except with probability at most 1 in 1,000,000" in g and "one particular value" in g


def test_format_percent_rounds_bounds_up():
    assert risk.format_percent(0.23191) == "23.2%"
    assert risk.format_percent(0.5) == "50%" and risk.format_percent(0.02701) == "2.71%"
    assert risk.format_percent(0.000123401) == "0.0124%" and risk.format_percent(0.99912) == "99.92%"
    assert risk.format_percent(0.99999) == "more than 99.99%" and risk.format_percent(1.0) == "100%"
    for x in np.random.default_rng(0).uniform(0.001, 0.999, 500):
        shown = float(risk.format_percent(x).rstrip("%")) / 100
        assert shown >= x - 1e-12
        assert float(risk.format_percent(x, upper=False).rstrip("%")) / 100 <= x + 1e-12


def test_risk_summary_is_json_and_consistent(X):
    rel = dc.run("analyze_gauss", X, 2, 1.0, 1e-6, seed=0)
    s = risk.risk_summary(rel, tail=1e-6)
    json.dumps(s, allow_nan=False)
    assert s["epsilon_at"]["1e-06"] == pytest.approx(1.0, abs=1e-6)
    assert [p["prior"] for p in s["posterior"]] == list(risk.DEFAULT_PRIORS)
    assert s["neighbors"] == "replace" and len(s["sentences"]) == 5  # the game, the two numbers, three priors
    assert s["posterior"][1]["posterior"] == pytest.approx(risk.posterior(0.1, s["tail_epsilon"]))


# ---------------------------------------------------------------------------------------------------------------
# Composition (privacy.compose), against dp-accounting


def test_compose_all_gdp_is_exact_against_pld():
    mus = [0.3, 0.7, 0.2]
    composed = privacy.compose([PrivacyCurve.gdp(m) for m in mus])
    assert composed.kind == "gdp" and composed.mu == pytest.approx(math.sqrt(sum(m * m for m in mus)), rel=1e-14)
    dist = gauss_pld(mus[0]).compose(gauss_pld(mus[1])).compose(gauss_pld(mus[2]))
    for d in (1e-8, 1e-5, 1e-2):
        assert risk.epsilon_at(composed, d) == pytest.approx(dist.get_epsilon_for_delta(d), rel=2e-3)


def test_compose_all_pure_sums_and_is_tight_at_delta_zero():
    eps = [0.5, 1.0, 0.25]
    composed = privacy.compose([PrivacyCurve.pure(e) for e in eps])
    assert composed.kind == "pure" and composed.epsilon == pytest.approx(1.75)
    dist = dp_pld(eps[0]).compose(dp_pld(eps[1])).compose(dp_pld(eps[2]))  # worst-case pairs of each guarantee
    assert dist.get_epsilon_for_delta(0.0) == pytest.approx(1.75, abs=1e-3)  # the sum is reached
    for d in (1e-6, 1e-3, 0.1):  # and the composed profile stays valid at every delta
        assert risk.epsilon_at(composed, d) >= dist.get_epsilon_for_delta(d) - 1e-3


@pytest.mark.parametrize(
    "parts,delta",
    [
        ([PrivacyCurve.gdp(0.24), PrivacyCurve.pure(1.0)], 1e-6),
        ([PrivacyCurve.gdp(0.5), PrivacyCurve.pure(0.3), PrivacyCurve.approx(0.4, 1e-7)], 1e-5),
        ([PrivacyCurve.gdp(0.4)] + [PrivacyCurve.pure(0.05)] * 30, 1e-6),  # route 2 (pure -> GDP) wins
        ([PrivacyCurve.pure(1.0), PrivacyCurve.approx(0.5, 1e-6)], None),
    ],
)
def test_compose_mixtures_are_valid_against_the_worst_case_pld(parts, delta):
    composed = privacy.compose(parts, delta=delta)
    dist = None
    for c in parts:
        d = gauss_pld(c.mu) if c.kind == "gdp" else dp_pld(c.epsilon, c.delta)
        dist = d if dist is None else dist.compose(d)
    target = delta if delta is not None else composed.delta
    # the worst case over all mechanisms with these guarantees needs no more epsilon than we claim
    assert risk.epsilon_at(composed, target) >= dist.get_epsilon_for_delta(target) - 2e-3
    # and the claim is no worse than adding up the parts' own (epsilon, delta) readings (basic composition)
    naive = sum(risk.epsilon_at(c, target / len(parts)) if c.kind == "gdp" else c.epsilon for c in parts)
    assert risk.epsilon_at(composed, target) <= naive + 1e-9
    if composed.kind == "gdp":  # a whole curve: valid at every epsilon, not only at the target delta
        for e in (0.5, 1.0, 2.0, 4.0):
            assert risk.delta_at(composed, e) >= dist.get_delta_for_epsilon(e) - 1e-6


def test_route_two_is_taken_when_many_small_pure_parts_compose():
    parts = [PrivacyCurve.gdp(0.4)] + [PrivacyCurve.pure(0.05)] * 30
    composed = privacy.compose(parts, delta=1e-6)
    assert composed.kind == "gdp"
    route1 = 1.5 + privacy.gaussian_epsilon(0.4, 1e-6)
    assert risk.epsilon_at(composed, 1e-6) < route1


def test_pure_to_gdp_mu_is_the_smallest_valid_mu():
    for eps in (0.05, 0.5, 1.0, 3.0, 10.0):
        mu = privacy.pure_to_gdp_mu(eps)
        f = pure_tradeoff_reference(eps, ndtr_grid())
        assert np.all(f >= gdp_tradeoff_reference(mu, ndtr_grid()) - 1e-12)  # eps-DP implies mu-GDP
        a_star = 1 / (1 + math.exp(eps))
        assert gdp_tradeoff_reference(mu, a_star) == pytest.approx(a_star, rel=1e-9)  # touching at the kink
        assert gdp_tradeoff_reference(0.999 * mu, a_star) > a_star  # any smaller mu is not implied
    assert privacy.pure_to_gdp_mu(0.0) == 0.0 and math.isinf(privacy.pure_to_gdp_mu(1e4))


def test_compose_of_releases_and_its_rules(X):
    r1 = dc.run("analyze_gauss", X, 2, 1.0, 1e-6, seed=0)
    r2 = dc.run("analyze_gauss", X, 2, 0.5, 1e-6, seed=1)
    both = risk.curve_of([r1, r2])
    assert both.kind == "gdp" and both.mu == pytest.approx(math.hypot(r1.privacy.mu, r2.privacy.mu), rel=1e-14)
    assert risk.epsilon_at(both, 2e-6) < 1.5  # tighter than adding the claims up
    rp = dc.run("ppca_exponential", X, 2, 1.0, seed=0)
    mixed = risk.curve_of([r1, rp])  # total delta defaults to the releases' deltas
    assert mixed.kind == "approx" and mixed.delta == pytest.approx(1e-6)
    assert mixed.epsilon == pytest.approx(2.0, abs=1e-6)
    assert privacy.compose([PrivacyCurve.gdp(1.0), PrivacyCurve.none()]).kind == "none"
    with pytest.raises(ValueError, match="at least one"):
        privacy.compose([])
    with pytest.raises(ValueError, match="delta"):
        privacy.compose([PrivacyCurve.gdp(1.0), PrivacyCurve.pure(1.0)])
    with pytest.raises(ValueError, match="delta must lie"):
        privacy.compose([PrivacyCurve.gdp(1.0), PrivacyCurve.approx(1.0, 1e-5)], delta=1e-6)
    with pytest.raises(ValueError, match="PrivacyCurve"):
        privacy.compose([1.0])
    assert "not releases" in privacy.compose.__doc__


# ---------------------------------------------------------------------------------------------------------------
# Reference points


def test_reference_points_are_labelled_honestly():
    refs = risk.reference_points()
    assert [r.value for r in refs] == sorted(r.value for r in refs)
    for r in refs:
        assert r.value > 0 and r.scope in risk.SCOPES and r.model in risk.MODELS and r.source and r.what
        if not r.confirmed:
            assert "not confirmed" in r.note.lower()
    apple = [r for r in refs if r.source.startswith("Apple")]
    assert apple and all(r.scope == "per_donation" and r.model == "local" for r in apple)
    census = [r for r in refs if "Census" in r.source]
    assert len(census) == 1 and census[0].value == 17.14 and census[0].scope == "total" and census[0].delta == 1e-10
    assert any(r.value == pytest.approx(math.log(3)) for r in refs)
    assert all(len(t) == 3 for t in risk.reference_tuples())
    assert all(r.confirmed for r in risk.reference_points(confirmed_only=True))
    below, above = risk.nearest_references(1.0)
    assert below.label == "ln 2" and above.label == "ln 3"
    assert "between" in risk.context_sentence(1.0) and "above every" in risk.context_sentence(40.0)


# ---------------------------------------------------------------------------------------------------------------
# Figures


def _ranges(fig):
    return tuple(fig.layout.xaxis.range), tuple(fig.layout.yaxis.range)


def test_tradeoff_figure_has_fixed_axes_diagonal_and_audit_point():
    figs = [rfig.tradeoff_figure(PrivacyCurve.gdp(mu), audit_point=(0.1, 0.5, "<b>audit</b>")) for mu in (0.1, 3.0)]
    assert _ranges(figs[0]) == _ranges(figs[1]) == (rfig.TRADEOFF_RANGE,) * 2  # fixed, whatever the curve
    assert rfig.TRADEOFF_RANGE[0] < 0 and rfig.TRADEOFF_RANGE[1] == 1
    names = [t.name for t in figs[0].data]
    assert any("random guessing" in n for n in names)
    assert "&lt;b&gt;audit&lt;/b&gt;" in names  # user text escaped
    line = figs[0].data[0]
    assert np.allclose(line.y, gdp_tradeoff_reference(0.1, np.asarray(line.x)), atol=1e-9)


def test_posterior_figure_marks_the_priors_with_the_bound():
    curves = {"pure": PrivacyCurve.pure(1.0), "gauss": PrivacyCurve.gdp(0.5)}
    fig = rfig.posterior_figure(curves, tail=1e-6)
    marks = [t for t in fig.data if t.mode == "markers+text"]
    assert len(marks) == 2
    assert np.allclose(marks[0].y, risk.posterior(np.array(risk.DEFAULT_PRIORS), 1.0))
    assert "10% → 23.2%" in marks[0].text
    other = rfig.posterior_figure(PrivacyCurve.pure(8.0))
    assert _ranges(fig) == _ranges(other)


def test_epsilon_ruler_shows_the_confirmed_references_and_the_chosen_epsilon():
    fig = rfig.epsilon_ruler(1.0, composed=2.5, font_size=22)
    xs = [x for t in fig.data if t.name in rfig._SCOPE_NAME.values() for x in t.x]
    assert sorted(xs) == pytest.approx(sorted(r.value for r in risk.reference_points(confirmed_only=True)))
    every = rfig.epsilon_ruler(1.0, references=risk.reference_points())
    assert len([x for t in every.data if t.name in rfig._SCOPE_NAME.values() for x in t.x]) == len(
        risk.reference_points()
    )
    assert any(t.name == "your ε = 1" for t in fig.data) and any("2.5" in t.name for t in fig.data)
    assert tuple(fig.layout.xaxis.range) == rfig.RULER_RANGE == tuple(rfig.epsilon_ruler(50.0).layout.xaxis.range)
    assert fig.layout.font.size == 22
    assert "off the scale" in [t.name for t in rfig.epsilon_ruler(500.0).data][-1]
    with pytest.raises(ValueError, match="font_size"):
        rfig.epsilon_ruler(1.0, font_size=2)


def test_teaching_audit_simulates_the_worst_case_the_guarantee_allows():
    from dppca_core.privacy import PrivacyCurve, gaussian_mu

    mu = gaussian_mu(1.0, 1e-5)
    d, dp = risk.worst_case_scores(PrivacyCurve.gdp(mu), 20_000, np.random.default_rng(0))
    assert dp.mean() - d.mean() == pytest.approx(mu, abs=0.04)  # s.e. 0.01
    eps = 1.0
    d, dp = risk.worst_case_scores(PrivacyCurve.pure(eps), 20_000, np.random.default_rng(1))
    # randomized response: D' says "1" (score 1) with probability 1/(1 + e^eps), "2" otherwise; D the reverse
    assert set(np.unique(np.r_[d, dp])) <= {1.0, 2.0}
    assert np.mean(dp == 2) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)), abs=0.015)
    attack, reading = risk.teaching_audit(PrivacyCurve.gdp(mu), 1e-5)
    assert not attack.violated and 0 < attack.strongest() < 1.0 and "does no better than" in reading
    assert attack.claim == PrivacyCurve.gdp(mu)
    # the same draws read against a claim of half the mu are refuted: the example is a test that can fail
    from dppca_core.audit.curve import tradeoff_curve

    d, dp = risk.worst_case_scores(PrivacyCurve.gdp(mu), risk.TEACHING_TRIALS, np.random.default_rng(0))
    assert tradeoff_curve(d, dp, PrivacyCurve.gdp(mu / 4), 1e-5).violated
    with pytest.raises(ValueError, match="no worst case"):
        risk.worst_case_scores(PrivacyCurve.none(), 10, np.random.default_rng(0))


# ---------------------------------------------------------------------------------------------------------------
# Issue 55 item 5: sentences true and readable at every epsilon, the two 50/50 numbers reconciled

PERCENT = r"(\d+(?:\.\d+)?)%"


def _curves():
    for eps in (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 8.9, 13.2, 20.0, 50.0, 200.0):
        yield f"pure {eps}", PrivacyCurve.pure(eps)
        yield f"approx {eps}", PrivacyCurve.approx(eps, 1e-6)
        yield f"gdp at eps {eps}", PrivacyCurve.gdp(privacy.gaussian_mu(eps, 1e-6))


def _upper_bound_holds(sentence: str, value: float) -> None:
    """An "at most P%" states P >= value; "more than 99.99%" states value > 99.99%; never both in one phrase."""
    assert "at most more than" not in sentence and "≤ more than" not in sentence, sentence
    import re

    for stated in re.findall(r"at most " + PERCENT, sentence):
        assert float(stated) / 100 >= value - 1e-12, (sentence, value)
    if "more than 99.99%" in sentence:
        assert value > 0.9999 and risk.SATURATED_WORDS in sentence, (sentence, value)


@pytest.mark.parametrize("label,curve", list(_curves()), ids=lambda x: x if isinstance(x, str) else "")
def test_odds_sentences_are_true_and_readable_at_every_epsilon(label, curve):
    """The brief said "from 50% to at most more than 99.99% sure" at a large epsilon. Every sentence now states a
    bound that holds, or what the guarantee allows and that it no longer rules out near certainty."""
    from dppca_core import publishable

    posterior = risk.posterior_bound(curve, 0.5).posterior
    for neighbors in ("replace", "add_remove"):
        _upper_bound_holds(publishable.odds(curve, neighbors)["sentence"], posterior)
        power = 1 - float(risk.tradeoff(curve, 0.05))
        test = publishable.best_test(curve, neighbors)["sentence"]
        assert "at most more than" not in test and ("more than 99.99%" not in test or power > 0.9999), test
    summary = risk.risk_summary(curve)
    for bound, sentence in zip(summary["posterior"], summary["sentences"][2:]):
        _upper_bound_holds(sentence, bound["posterior"])
    assert "at most more than" not in summary["sentences"][0]
    legend = rfig.tradeoff_figure(curve).data[0].name
    assert "≤ more than" not in legend and "at most more than" not in legend


def test_the_two_50_50_numbers_are_reconciled_in_one_sentence():
    """The Lesson's risk step and the risk view showed "right at most 54.8% of the time" beside a curve reading
    50% -> 76.9%: two answers to two questions, now said together in one sentence with both numbers."""
    from ui.gallery import LESSON
    from ui.lesson import step_figure, step_scenario

    curve = PrivacyCurve.gdp(privacy.gaussian_mu(1.0, 1e-6))
    guess = risk.format_percent(0.5 + risk.attacker_advantage(curve) / 2)
    sure = risk.format_percent(risk.posterior_bound(curve, 0.5).posterior)
    assert (guess, sure) == ("54.8%", "76.9%")
    sentence = risk.two_numbers_sentence(curve)
    assert guess in sentence and sure in sentence and sentence.count(". ") == 0  # one sentence
    assert sentence in risk.risk_summary(curve)["sentences"]  # the risk view and the Report list it
    (number, card) = next((i, c) for i, c in enumerate(LESSON, start=1) if c.figure == "risk")
    vals = step_scenario(card, step=number)
    fig, headline = step_figure(card, vals)
    marks = [t for t in fig.data if t.text is not None][0].text
    shown = next(m for m in marks if m.startswith("50%"))
    assert shown.split("→ ")[1] in headline and guess in headline  # the figure's 50% mark and the game's number
    # a pure guarantee: the two numbers are the same, and the sentence says so
    assert "agree" in risk.two_numbers_sentence(PrivacyCurve.pure(1.0))

"""The audit as a curve (dppca_core/audit/curve.py): the band's simultaneous coverage, violations of the claimed curve,
a broken mechanism caught, and the figure."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from dppca_core.audit import audit
from dppca_core.audit.curve import GRID_SIZE, grid_ranks, tradeoff_curve
from dppca_core.figures.alt import figure_table
from dppca_core.figures.tradeoff_curve import tradeoff_curve_figure
from dppca_core.privacy import PrivacyCurve, gaussian_epsilon, gaussian_mu


def test_grid_ranks_are_fixed_cover_both_tails_and_stay_small():
    ranks = grid_ranks(7500)
    assert ranks[0] == 1 and ranks[-1] == 7500 and np.all(np.diff(ranks) > 0)
    assert ranks.size <= GRID_SIZE + 2
    shares = 1 - ranks / 7500  # false-positive shares: down to a few trials in the upper tail, up to all in the lower
    assert shares[-2] <= 5 / 7500 and shares[1] >= 1 - 5 / 7500
    assert np.array_equal(grid_ranks(7500), ranks)  # no data in it: the same grid every time
    assert grid_ranks(3).tolist() == [1, 2, 3]


def _misses(curve, alpha_true, beta_true) -> bool:
    """Whether some true rate at a grid threshold is above its inner-edge bound (the band failed)."""
    return bool(
        np.any(alpha_true(curve.thresholds) > curve.fpr_upper) or np.any(beta_true(curve.thresholds) > curve.fnr_upper)
    )


def test_band_covers_every_threshold_at_once_with_its_confidence():
    """Continuous scores (the Gaussian shift the calibration is tight for): over 300 audits of m = 400 trials the band
    misses the true rates at some grid threshold in at most 5% of them (Bonferroni makes it rarer still); 5% of 300
    is 15 and the binomial s.d. 3.8, so 22 is the limit of a 95% band that holds."""
    rng = np.random.default_rng(0)
    mu, m = 1.0, 400
    claim = PrivacyCurve.gdp(mu)
    misses = 0
    for _ in range(300):
        curve = tradeoff_curve(rng.normal(size=m), mu + rng.normal(size=m), claim, 1e-5)
        misses += _misses(curve, lambda t: norm.sf(t), lambda t: norm.cdf(t - mu))
    assert misses <= 22


def test_band_covers_with_ties():
    """Scores with atoms (a count): the rank bound stays valid when many scores tie at the grid's thresholds."""
    rng = np.random.default_rng(1)
    from scipy.stats import poisson

    m, misses = 300, 0
    for _ in range(300):
        curve = tradeoff_curve(rng.poisson(3.0, size=m), rng.poisson(4.0, size=m), PrivacyCurve.pure(1.0), 0.0)
        misses += _misses(curve, lambda t: poisson.sf(t, 3.0), lambda t: poisson.cdf(t, 4.0))
    assert misses <= 22


def test_gaussian_shift_reads_close_to_its_mu_and_refutes_half_of_it():
    """The exact Gaussian statistic at mu = 1, m = 7,500: the best middle threshold has rates Phi(-1/2) = 0.31 and a
    one-sided Clopper-Pearson margin of z(0.025/(2 * 50)) sqrt(p(1 - p)/m) = 3.5 x 0.0053 on each rate, which costs
    2 x 0.019 / phi(1/2) = 0.105 in mu: the band reads mu >= 0.89 or so, never above 1."""
    rng = np.random.default_rng(2)
    m, mu = 7500, 1.0
    d, dp = rng.normal(size=m), mu + rng.normal(size=m)
    fair = tradeoff_curve(d, dp, PrivacyCurve.gdp(mu), 1e-5)
    assert not fair.violated
    assert 0.8 <= fair.mu_band <= mu
    assert fair.epsilon_gdp_band == pytest.approx(gaussian_epsilon(fair.mu_band, 1e-5))
    assert fair.epsilon_gdp_band < gaussian_epsilon(mu, 1e-5)
    claimed_half = tradeoff_curve(d, dp, PrivacyCurve.gdp(mu / 2), 1e-5)
    assert claimed_half.violated and np.sum(claimed_half.violations) >= 5
    assert "does better than the claim allows" in claimed_half.reading(gaussian_epsilon(mu / 2, 1e-5))
    assert "does no better than" in fair.reading(gaussian_epsilon(mu, 1e-5))


def test_pure_claim_band_is_the_distribution_free_bound():
    """Randomised response at epsilon = 1 (one bit, kept with probability e/(1 + e)): its whole trade-off is the
    pure-epsilon curve's corner, so the band reads epsilon close to 1 from below and refutes a claim of 0.5."""
    rng = np.random.default_rng(3)
    m, keep = 20000, math.e / (1 + math.e)
    d, dp = (rng.random(m) > keep).astype(float), (rng.random(m) < keep).astype(float)
    fair = tradeoff_curve(d, dp, PrivacyCurve.pure(1.0), 0.0)
    assert not fair.violated and 0.85 <= fair.epsilon_band <= 1.0
    assert tradeoff_curve(d, dp, PrivacyCurve.pure(0.5), 0.0).violated


def test_noise_at_half_its_scale_is_caught_by_the_curve():
    """Analyze Gauss whose noise is half the calibrated scale (mu doubled: run at the epsilon of 2 mu) is refuted by
    the band alone; the same audit of the mechanism as implemented is not, and its curve reads below the claim."""
    eps, delta = 1.0, 1e-5
    broken_eps = gaussian_epsilon(2 * gaussian_mu(eps, delta), delta)
    broken = audit("analyze_gauss", eps, delta, trials=2000, seed=0, run_epsilon=broken_eps)
    assert broken.curve.violated and broken.violated
    assert broken.curve.strongest() > eps
    fair = audit("analyze_gauss", eps, delta, trials=2000, seed=0)
    assert not fair.curve.violated and not fair.violated
    assert 0 < fair.curve.strongest() < eps
    assert fair.curve.claim == fair.claim_curve()


def test_a_published_field_without_noise_is_caught_by_the_curve(monkeypatch):
    """A release with an exact count beside the noisy components: the curve's band refutes it too."""
    eps = 1.0
    result = audit("non_private", eps, 1e-5, trials=200, seed=0)
    assert result.leaked_field and result.curve.violated


def test_figure_draws_band_claim_attack_violations_and_numbers():
    rng = np.random.default_rng(4)
    d, dp = rng.normal(size=2000), 2.0 + rng.normal(size=2000)
    curve = tradeoff_curve(d, dp, PrivacyCurve.gdp(1.0), 1e-5)
    fig = tradeoff_curve_figure(curve, point=(0.2, 0.3))
    names = [t.name for t in fig.data]
    assert any(n.startswith("claim:") for n in names) and any("band" in n for n in names)
    assert any(n.startswith("beyond the claim") for n in names)
    assert any("chosen threshold" in n for n in names)
    assert fig.layout.xaxis.range == (0, 1)
    attack = next(t for t in fig.data if t.name.startswith("the attack"))
    assert len(attack.x) <= 1500 < curve.fpr.size  # thinned for the record, its two ends kept
    assert (attack.x[0], attack.x[-1]) == (curve.fpr[0], curve.fpr[-1])
    table = figure_table(fig)
    assert len(table) > 0 and "series" in table.columns
    quiet = tradeoff_curve_figure(tradeoff_curve(d, dp, PrivacyCurve.gdp(3.0), 1e-5))
    assert not any(t.name.startswith("beyond the claim") for t in quiet.data)


def test_curve_needs_trials_on_both_sides():
    with pytest.raises(ValueError, match="evaluation trials"):
        tradeoff_curve([], [1.0], PrivacyCurve.pure(1.0), 0.0)

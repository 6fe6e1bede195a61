"""The bounded-range reading of the exponential mechanisms' audits (dppca_core/audit/bounds.py, curve.RangeClaim,
designs.log_density_design) and AVN's threshold fixed from its exact law (dppca_core/tensor/auditing.py)."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.audit import audit, log_density_design
from dppca_core.audit.bounds import epsilon_lower_bound, range_bounds, range_lower_bound
from dppca_core.audit.curve import RangeClaim, tradeoff_curve
from dppca_core.audit.designs import _circle_laws, best_log_density_thresholds
from dppca_core.privacy import PrivacyCurve


def _generalised_randomised_response(eps: float, t: float):
    """P(output 1) on D and on D' for the two-point law whose privacy loss is t (output 1) or t - eps (output 0)."""
    p = (1.0 - math.exp(t - eps)) / (math.exp(t) - math.exp(t - eps))
    return p, p * math.exp(t)


@pytest.mark.parametrize("t", [0.2, 0.5, 0.8])
def test_range_reading_is_exact_for_a_two_point_loss_and_the_distribution_free_one_is_not(t):
    """A loss taking only the values t and t - eps has range width eps: two tests read exactly eps from its exact rates,
    one test reads max(t, eps - t) only (Dong, Durfee & Rogers 2020: the worst case of a bounded range)."""
    eps = 1.0
    p, q = _generalised_randomised_response(eps, t)
    alpha, beta = p, 1.0 - q  # says D' on output 1
    assert range_lower_bound(alpha, beta, alpha, beta) == pytest.approx(eps, abs=1e-12)
    assert epsilon_lower_bound(alpha, beta, 0.0) == pytest.approx(max(t, eps - t), abs=1e-12)
    # on the claimed curve, never below it
    assert RangeClaim(eps).false_negative_floor(alpha) == pytest.approx(beta, abs=1e-12)


def test_range_claim_curve_is_symmetric_and_between_the_pure_curve_and_guessing():
    alpha = np.linspace(0.0, 1.0, 101)
    claim = RangeClaim(1.0)
    floor = claim.false_negative_floor(alpha)
    assert np.allclose(claim.false_negative_floor(floor), alpha)  # f(f(alpha)) = alpha
    pure = PrivacyCurve.pure(1.0).false_negative_floor(alpha)
    assert np.all(floor >= pure - 1e-12) and np.all(floor <= 1.0 - alpha + 1e-12)
    assert np.any(floor > pure + 0.05)  # strictly tighter inside
    # below the curve exactly when the two log-ratios add up to more than eps
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.01, 0.6, 500), rng.uniform(0.01, 0.6, 500)
    below = b < claim.false_negative_floor(a)
    assert np.array_equal(below, np.log((1 - b) / a) + np.log((1 - a) / b) > 1.0)


def test_range_bounds_hold_together_at_the_stated_confidence():
    """Four rate bounds, each one-sided at (1 - c)/4: over 2,000 audits of m = 500 trials of a two-point loss of
    width 1, the bound exceeds the width in at most 5% of them (binomial s.d. about 1%)."""
    eps, m = 1.0, 500
    p, q = _generalised_randomised_response(eps, 0.6)
    rng = np.random.default_rng(1)
    over = 0
    for _ in range(2000):
        ones_d, ones_dp = rng.binomial(m, p), rng.binomial(m, q)
        width, point, _ = range_bounds((ones_d, m - ones_dp), (ones_d, m - ones_dp), m, 0.0, 0.95)
        over += width > eps
        assert point <= width + 1e-12
    assert over <= 0.05 * 2000


def test_log_density_thresholds_sit_in_the_two_tails_of_the_exact_law():
    spec = dc.get_mechanism("ppca_exponential")
    design = log_density_design(spec, 2, 20, "replace", 1.0)
    assert design.bounded_range
    diag_d, diag_dp = np.diag(design.D.gram), np.diag(design.D_prime.gram)
    upper, lower = best_log_density_thresholds(0.5, diag_d, diag_dp, 10_000, 0.95)
    llr, below_d, _ = _circle_laws(0.5, diag_d, diag_dp, 20_001)
    assert llr[0] == pytest.approx(-0.5, abs=1e-6) and llr[-1] == pytest.approx(0.5, abs=1e-6)  # width eps
    assert lower < 0 < upper
    share_above = 1 - below_d[np.searchsorted(llr, upper, side="right") - 1]
    assert 0.005 < share_above < 0.3  # a tail, not the middle and not an empty end


def test_exponential_mechanisms_read_the_range_and_twice_the_claim_is_refuted():
    fair = audit("amin_iterative", 1.0, trials=2000, seed=0)
    assert fair.conversion == "range" and fair.lower_test is not None and not fair.violated
    assert fair.epsilon_lower >= fair.epsilon_lower_point and 0.3 < fair.epsilon_lower < 1.0
    assert fair.claim_curve().kind == "range" and fair.curve.claim == fair.claim_curve()
    broken = audit("ppca_exponential", 1.0, trials=2000, seed=0, run_epsilon=2.0)
    assert broken.conversion == "range" and broken.violated and broken.epsilon_lower > 1.0
    assert "range" in broken.verdict()


def test_range_band_marks_the_two_tails_when_the_width_exceeds_the_claim():
    rng = np.random.default_rng(3)
    eps, m = 1.0, 20_000
    theta = rng.uniform(0, 2 * math.pi, (2, m))
    # a loss w cos(2 theta)-like statistic at twice the claimed width: score = cos 2 theta, D' tilted by exp(width)
    scores_d = np.cos(theta[0])
    accept = rng.uniform(size=m) < np.exp(1.0 * (np.cos(theta[1]) - 1.0))  # density ratio exp(cos) up to a constant
    scores_dp = np.cos(theta[1][accept])
    wide = tradeoff_curve(scores_d, scores_dp, RangeClaim(eps), 0.0)
    assert wide.epsilon_range_band > eps and wide.violated and wide.strongest() == wide.epsilon_range_band
    fair = tradeoff_curve(scores_d, scores_dp, RangeClaim(2.5), 0.0)
    assert not fair.violated and 0 < fair.epsilon_range_band < 2.0


def test_avn_threshold_is_fixed_in_a_tail_from_public_quantities():
    from dppca_core.tensor.auditing import knorm_threshold

    change3 = np.zeros(4)
    change3[0] = 0.1
    beta = 0.95 / 0.1
    first = knorm_threshold(np.zeros(3), 1.0, change3, beta, 10_000, 0.95)
    assert first == knorm_threshold(np.zeros(3), 1.0, change3, beta, 10_000, 0.95)  # no trial in it
    assert 0.3 < first < 0.95  # in the upper tail of a loss within [-0.95, 0.95]

"""From a test's error rates to lower bounds on epsilon and mu, and the choice of the test's threshold.

For any test with false-positive rate alpha ("says D' on D") and false-negative rate beta, an (epsilon, delta)-DP
mechanism satisfies alpha + e^eps beta >= 1 - delta and beta + e^eps alpha >= 1 - delta (Kairouz, Oh &
Viswanath 2015); a mu-GDP mechanism satisfies beta >= Phi(Phi^-1(1 - alpha) - mu) (Dong, Roth & Su 2022).
Clopper-Pearson upper bounds on alpha and beta turn either into a lower bound with a stated confidence
(Jagielski, Ullman & Oprea 2020).

An exponential mechanism says more than epsilon-DP: its privacy loss ln(q(o)/p(o)) = w (u_D'(o) - u_D(o)) + const
lies in an interval [t - eps, t] of width eps for every pair of neighbours (epsilon-bounded range, Durfee & Rogers
2019; Dong, Durfee & Rogers 2020), with 0 <= t <= eps. Then every test has 1 - beta = E_D[phi e^L] <= e^t alpha
and beta = E_D[(1 - phi) e^L] >= e^(t - eps) (1 - alpha), so ln((1 - beta)/alpha) <= t and
ln((1 - alpha)/beta) <= eps - t, for one t shared by every test of the same pair: two tests (one in each tail)
give eps >= ln((1 - beta_1)/alpha_1) + ln((1 - alpha_2)/beta_2) (:func:`range_lower_bound`). It bounds the width
of the loss's range, which the exponential mechanism's proof bounds by its epsilon; for a mechanism that is
epsilon-DP without a bounded range (Laplace noise) the width can reach 2 epsilon, so only designs that audit an
exponential mechanism read it (``AuditDesign.bounded_range``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from ..privacy import gaussian_epsilon


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion."""
    lo, hi = clopper_pearson_arrays(np.array([successes]), trials, confidence)
    return float(lo[0]), float(hi[0])


def clopper_pearson_arrays(successes: np.ndarray, trials: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson intervals for many counts out of the same number of trials (vectorised)."""
    alpha = 1.0 - confidence
    s = np.asarray(successes, dtype=float)
    with np.errstate(invalid="ignore"):
        lo = np.where(s == 0, 0.0, beta_dist.ppf(alpha / 2, s, trials - s + 1))
        hi = np.where(s == trials, 1.0, beta_dist.ppf(1 - alpha / 2, s + 1, trials - s))
    return lo, hi


def epsilon_lower_bound(fpr_hi: float, fnr_hi: float, delta: float) -> float:
    """Largest epsilon the two (upper-bounded) error rates force, 0 if none (distribution-free)."""
    found = [0.0]
    for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
        numerator = 1.0 - delta - a
        if numerator > 0:
            found.append(math.inf if b <= 0 else math.log(numerator / b))
    return max(found)


def range_lower_bound(fpr_hi_upper: float, fnr_hi_upper: float, fpr_hi_lower: float, fnr_hi_lower: float) -> float:
    """Lower bound on the width of the privacy loss's range (module docstring) from two tests, one thresholded in
    the upper tail of the statistic and one in the lower: max(0, ln((1 - beta_1)/alpha_1)) + max(0, ln((1 -
    alpha_2)/beta_2)) at the (upper-bounded) error rates of test 1 and test 2; infinite where a rate bound is 0."""
    upper = _log_ratio(1.0 - fnr_hi_upper, fpr_hi_upper)
    lower = _log_ratio(1.0 - fpr_hi_lower, fnr_hi_lower)
    return max(0.0, upper) + max(0.0, lower)


def tail_log_ratios(fpr_hi, fnr_hi) -> tuple[np.ndarray, np.ndarray]:
    """(ln((1 - beta+)/alpha+), ln((1 - alpha+)/beta+)) per threshold: the two halves of :func:`range_lower_bound`,
    the first read in the upper tail of the statistic, the second in the lower (inf where a bound is 0)."""
    a, b = np.asarray(fpr_hi, dtype=float), np.asarray(fnr_hi, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(np.clip(1.0 - b, 1e-300, None) / a), np.log(np.clip(1.0 - a, 1e-300, None) / b)


def range_rate_level(confidence: float) -> float:
    """The two-sided Clopper-Pearson level whose upper bound, one-sided at (1 - confidence)/4, gives each of the
    four error rates of the two tests of :func:`range_bounds`: all four hold together with ``confidence``."""
    return 1.0 - (1.0 - confidence) / 2.0


def range_bounds(counts_upper, counts_lower, m: int, delta: float, confidence: float):
    """(range bound, distribution-free bound, the four upper bounds) of two tests evaluated on ``m`` trials per
    side: ``counts_upper`` = (false positives, false negatives) of the test thresholded in the upper tail,
    ``counts_lower`` those of the one in the lower tail. Every rate is bounded at ``range_rate_level``, so the
    four bounds (and both readings) hold together with ``confidence``."""
    level = range_rate_level(confidence)
    _, (fpr_u, fpr_l) = clopper_pearson_arrays(np.array([counts_upper[0], counts_lower[0]]), m, level)
    _, (fnr_u, fnr_l) = clopper_pearson_arrays(np.array([counts_upper[1], counts_lower[1]]), m, level)
    point = max(epsilon_lower_bound(fpr_u, fnr_u, delta), epsilon_lower_bound(fpr_l, fnr_l, delta))
    return range_lower_bound(fpr_u, fnr_u, fpr_l, fnr_l), point, (fpr_u, fnr_u, fpr_l, fnr_l)


def _log_ratio(numerator: float, denominator: float) -> float:
    """ln(numerator / denominator): -inf for a numerator <= 0, inf for a denominator <= 0."""
    if numerator <= 0:
        return -math.inf
    return math.inf if denominator <= 0 else math.log(numerator / denominator)


def mu_lower_bound(fpr_hi, fnr_hi):
    """GDP reading of one test: mu >= Phi^-1(1 - alpha) - Phi^-1(beta) for a mu-GDP mechanism (0 if negative)."""
    a = np.clip(np.asarray(fpr_hi, dtype=float), 1e-300, 1.0)
    b = np.clip(np.asarray(fnr_hi, dtype=float), 1e-300, 1.0)
    return np.maximum(ndtri(1.0 - a) - ndtri(b), 0.0)


def rates(scores_d: np.ndarray, scores_dp: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of false positives (D scored above t) and false negatives (D' at or below t) per threshold."""
    sd, sdp = np.sort(scores_d), np.sort(scores_dp)
    false_pos = sd.size - np.searchsorted(sd, thresholds, side="right")
    false_neg = np.searchsorted(sdp, thresholds, side="right")
    return false_pos, false_neg


def bounds(false_pos, false_neg, m: int, delta: float, confidence: float, gdp: bool):
    """(headline epsilon bound, point bound, mu bound, fpr upper, fnr upper) for arrays of counts."""
    _, fpr_hi = clopper_pearson_arrays(false_pos, m, confidence)
    _, fnr_hi = clopper_pearson_arrays(false_neg, m, confidence)
    point = np.array([epsilon_lower_bound(a, b, delta) for a, b in zip(fpr_hi, fnr_hi)])
    mu = mu_lower_bound(fpr_hi, fnr_hi)
    if gdp and delta > 0:
        headline = np.maximum(point, [gaussian_epsilon(float(v), delta) if v > 0 else 0.0 for v in mu])
    else:
        headline = point
    return headline, point, mu, fpr_hi, fnr_hi


def best_threshold(statistic, scores_d, scores_dp, delta, confidence, gdp, m_eval: int) -> float:
    """The test's threshold, chosen on the selection trials only (:func:`threshold_and_strength`)."""
    return threshold_and_strength(statistic, scores_d, scores_dp, delta, confidence, gdp, m_eval)[0]


def threshold_and_strength(statistic, scores_d, scores_dp, delta, confidence, gdp, m_eval: int):
    """(threshold, strength): the test's threshold, chosen on the selection trials only, and the bound (mu for the
    GDP reading, else epsilon) its selection error rates would give with ``m_eval`` evaluation trials, which ranks
    candidate statistics against each other (:func:`dppca_core.audit.audit_release`).

    PSD support test: 0 (D never scores above it: the attack on PSD noise, docs/papers.md#wishart-sn-retraction);
    a leaked field: 0.5.
    Otherwise the statistic is a location shift between D and D' (exactly Gaussian for the Gram-matrix entry),
    for which the likelihood-ratio test thresholds halfway between the two centres; the candidates are that
    midpoint and the quantiles of the pooled scores between 30% and 70% (2% and 98% for the distribution-free
    reading), each scored by the bound its selection error rates would give with the evaluation sample size.
    Staying near the middle for the GDP reading keeps a threshold fitted to a few tail trials from being chosen.
    """
    if statistic == "psd_support":
        return 1e-9 * (1.0 + float(np.max(np.abs(np.concatenate([scores_d, scores_dp]))))), math.inf
    if statistic == "published field":
        return 0.5, math.inf
    pooled = np.concatenate([scores_d, scores_dp])
    midpoint = 0.5 * (np.median(scores_d) + np.median(scores_dp))
    # the GDP reading is best near the middle; the distribution-free one often in a tail (a pure mechanism's
    # privacy loss is largest there), so its candidates reach the 2% and 98% quantiles
    levels = np.linspace(0.3, 0.7, 21) if gdp else np.linspace(0.02, 0.98, 49)
    candidates = np.unique(np.r_[midpoint, np.quantile(pooled, levels)])
    false_pos, false_neg = rates(scores_d, scores_dp, candidates)
    scale = m_eval / scores_d.size
    headline, _, mu, _, _ = bounds(
        np.round(false_pos * scale), np.round(false_neg * scale), m_eval, delta, confidence, gdp
    )
    key = mu if gdp else headline
    best = int(np.argmax(key))
    return float(candidates[best]), float(key[best])


def roc(scores_d, scores_dp):
    thresholds = np.unique(np.concatenate([scores_d, scores_dp, [-np.inf]]))[::-1]
    false_pos, false_neg = rates(scores_d, scores_dp, thresholds)
    return false_pos / scores_d.size, 1.0 - false_neg / scores_dp.size

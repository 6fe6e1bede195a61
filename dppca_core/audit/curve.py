"""The audit as a curve: the attack's whole trade-off (false-positive against false-negative rate over every
threshold of its statistic) with a simultaneous confidence band, against the trade-off curve the claim allows.

A mechanism with trade-off function f (Dong, Roth & Su 2022, Definition 2.1) lets no test of "D or D'?" have a
false-negative rate beta below f(alpha) at false-positive rate alpha: f is the Gaussian curve
Phi(Phi^-1(1 - alpha) - mu) for a mu-GDP claim, max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)) for an
(eps, delta) claim (Kairouz, Oh & Viswanath 2015), delta = 0 for a pure one, and (1 - alpha)/(1 + (e^eps - 1) alpha)
for an exponential mechanism, whose privacy loss stays in a range of width eps (:class:`RangeClaim`). The audit's test says D' when its
statistic exceeds a threshold t; each t gives one point (alpha(t), beta(t)) of the attack's curve.

**The band.** Thresholds on a grid of N = :data:`GRID_SIZE` (or fewer) points, each a fixed *rank* of the
evaluation scores on D: t_j = the k_j-th smallest of the m scores on D, with the ranks k_j fixed before any trial
(dense in both tails, where a pure-epsilon test is decided, and across the middle, where a Gaussian one is).

* alpha(t_j) = P_D(S > t_j) <= 1 - U_(k_j), with U_(k) the k-th smallest of m uniforms (probability integral
  transform; ties only make it smaller), and 1 - U_(k) ~ Beta(m - k + 1, k): its upper quantile is exactly the
  Clopper-Pearson upper bound for m - k false positives out of m, so the bound holds although t_j is read from
  the same scores.
* beta(t_j) = P_D'(S <= t_j): the scores on D' are independent of t_j, so their count at or below t_j is
  binomial given t_j and the Clopper-Pearson upper bound holds given t_j, hence on average.

Each of the 2N rates gets a one-sided bound at error (1 - confidence) / (2N) (Bonferroni): with the stated
confidence all N upper corners (alpha+_j, beta+_j), the band's *inner edge*, hold at once. The outer edge is drawn
with the same per-rate level from the observed counts. Why Clopper-Pearson with Bonferroni and not the DKW band:
DKW's width is the same at every threshold (sqrt(ln(2/g)/(2m)) ~ 0.017 at m = 7,500 and g = 2.5%), far wider than
the rates near 0.005 where a pure-epsilon test is decided; Clopper-Pearson's width shrinks with the rate, and the
union over N ~ 50 thresholds costs only a logarithmic factor (a one-sided level of 0.05/100 instead of 0.025).

**A violation** is a grid point whose inner-edge corner lies below the claimed curve: beta+_j < f(alpha+_j). Then
with the stated confidence the true (alpha, beta) at t_j, which is at or below and left of its corner, is below
f too (f decreases), and the claim is false. Every claimed curve here is symmetric, so the other inequality
(alpha >= f(beta)) is the same check.

**The summary number** stays the audit's headline epsilon lower bound at the threshold chosen on the selection
trials (:mod:`.core`); it is a point of this curve, marked on the figure. The band's own bounds
(``epsilon_band``, ``mu_band``: the largest over the grid) hold for every threshold at once, so they are a little
smaller. Against a :class:`RangeClaim` the band also bounds the range's width from its best threshold in each tail
(``epsilon_range_band``), and those two thresholds are marked as violations when the width exceeds the claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from ..privacy import PrivacyCurve, gaussian_epsilon
from .bounds import clopper_pearson_arrays, epsilon_lower_bound, mu_lower_bound, rates, roc, tail_log_ratios

#: Thresholds on the band's grid at most (fewer when the evaluation trials are few or the ranks coincide).
GRID_SIZE = 48
#: The smallest false-positive share a tail threshold aims at, in trials: fewer leave no Clopper-Pearson margin.
TAIL_TRIALS = 4


@dataclass(frozen=True)
class RangeClaim:
    """The trade-off curve of an epsilon-DP exponential mechanism: its privacy loss L lies in [t - eps, t] for some
    0 <= t <= eps (bounded range, :mod:`.bounds`), so every test has beta >= max(1 - e^t alpha, e^(t - eps)(1 - alpha)).
    The smallest over t is where the two meet, e^t = 1/(alpha + e^-eps (1 - alpha)):
    f(alpha) = (1 - alpha) / (1 + (e^eps - 1) alpha), above the pure eps-DP curve except at its ends. A point
    (alpha, beta) lies below it exactly when ln((1 - beta)/alpha) + ln((1 - alpha)/beta) > eps. Quacks like a
    :class:`dppca_core.privacy.PrivacyCurve` where the audit's curve and its figure read one."""

    epsilon: float
    kind: str = "range"
    delta: float = 0.0
    mu: None = None

    def false_negative_floor(self, alpha):
        alpha = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        return (1.0 - alpha) / (1.0 + math.expm1(min(self.epsilon, 700.0)) * alpha)

    def describe(self) -> str:
        return f"{self.epsilon:g}-DP exponential mechanism (privacy loss within a range of width {self.epsilon:g})"


@dataclass(frozen=True, eq=False)
class TradeoffCurve:
    """The attack's empirical trade-off curve, its simultaneous confidence band, and the claimed curve.

    ``fpr`` / ``fnr``: the empirical curve over every threshold (for drawing). On the grid (``thresholds``):
    the empirical rates ``grid_fpr`` / ``grid_fnr``, the band's inner edge ``fpr_upper`` / ``fnr_upper`` (all
    hold together with ``confidence``) and its outer edge ``fpr_lower`` / ``fnr_lower``. ``violations``: grid
    points whose inner corner is below the claimed curve. ``epsilon_band`` / ``mu_band``: the largest lower
    bounds on epsilon (at ``delta``, distribution-free) and mu the inner edge gives; ``epsilon_gdp_band``: the
    epsilon that mu implies at ``delta`` (meaningful where the claim is Gaussian DP); ``epsilon_range_band``: the
    width of the privacy loss's range the band proves (its best threshold in each tail; meaningful against a
    :class:`RangeClaim`).
    """

    fpr: np.ndarray = field(repr=False)
    fnr: np.ndarray = field(repr=False)
    thresholds: np.ndarray = field(repr=False)
    grid_fpr: np.ndarray = field(repr=False)
    grid_fnr: np.ndarray = field(repr=False)
    fpr_upper: np.ndarray = field(repr=False)
    fnr_upper: np.ndarray = field(repr=False)
    fpr_lower: np.ndarray = field(repr=False)
    fnr_lower: np.ndarray = field(repr=False)
    violations: np.ndarray = field(repr=False)
    trials: int
    confidence: float
    claim: PrivacyCurve
    delta: float
    epsilon_band: float
    mu_band: float
    epsilon_gdp_band: float
    epsilon_range_band: float = 0.0

    def __eq__(self, other) -> bool:
        """Equal when every field is (arrays element by element, so two audits with the same seed compare equal)."""
        if not isinstance(other, TradeoffCurve):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, f.name), getattr(other, f.name))
            if isinstance(getattr(self, f.name), np.ndarray)
            else getattr(self, f.name) == getattr(other, f.name)
            for f in fields(self)
        )

    __hash__ = None

    @property
    def violated(self) -> bool:
        """Whether some point of the band's inner edge lies beyond the claimed curve."""
        return bool(np.any(self.violations))

    @property
    def grid_size(self) -> int:
        return int(self.thresholds.size)

    def strongest(self) -> float:
        """The epsilon the band proves at its strongest threshold: the GDP reading for a Gaussian claim (which
        assumes a Gaussian trade-off curve), else the distribution-free one."""
        if self.claim.kind == "gdp" and self.delta > 0:
            return max(self.epsilon_band, self.epsilon_gdp_band)
        if self.claim.kind == "range":
            return max(self.epsilon_band, self.epsilon_range_band)
        return self.epsilon_band

    def reading(self, epsilon_claimed: float) -> str:
        """The curve in one line of plain words."""
        level = f"{self.confidence:.0%}"
        bound = self.strongest()
        shown = "∞" if math.isinf(bound) else f"{bound:.3g}"
        if self.violated:
            count = int(np.sum(self.violations))
            return (
                f"The best attack we found does better than the claim allows: at {count} of its {self.grid_size} "
                f"thresholds its error rates fall where the claimed curve forbids them ({level} confidence for "
                f"all thresholds at once), so ε ≥ {shown}, above the claimed ε = {epsilon_claimed:g}."
            )
        share = f" ({bound / epsilon_claimed:.0%} of the claim)" if epsilon_claimed > 0 else ""
        return (
            f"The best attack we found does no better than ε = {shown}{share}: at every one of its "
            f"{self.grid_size} thresholds its error rates stay on the allowed side of the claimed curve "
            f"({level} confidence for all thresholds at once). An audit can refute a claim, never prove one."
        )


def grid_ranks(m: int, size: int = GRID_SIZE) -> np.ndarray:
    """Ranks k (1 ... m) of the scores on D at which the band is read, fixed before any trial: false-positive
    shares (m - k) / m log-spaced in each tail from :data:`TAIL_TRIALS` / m to 0.1 and even across the middle,
    and the two extremes (no false positive, no true negative)."""
    tail = size // 3
    low = min(0.1, TAIL_TRIALS / m)
    shares = np.r_[
        np.geomspace(low, 0.1, tail),
        np.linspace(0.1, 0.9, size - 2 * tail + 2)[1:-1],
        1.0 - np.geomspace(0.1, low, tail),
    ]
    ranks = np.unique(np.clip(np.round(m * (1.0 - shares)).astype(int), 1, m))
    return np.unique(np.r_[1, ranks, m])


def tradeoff_curve(
    scores_d, scores_d_prime, claim: PrivacyCurve, delta: float, confidence: float = 0.95, size: int = GRID_SIZE
) -> TradeoffCurve:
    """The empirical trade-off curve of the test "says D' when the score exceeds t" on evaluation scores (never
    the ones that chose the audit's threshold), with its simultaneous band and the violations of ``claim``."""
    sd = np.sort(np.asarray(scores_d, dtype=float))
    sdp = np.asarray(scores_d_prime, dtype=float)
    m, m_prime = sd.size, sdp.size
    if m == 0 or m_prime == 0:
        raise ValueError("the trade-off curve needs evaluation trials on both datasets.")
    ranks = grid_ranks(m, size)
    thresholds = sd[ranks - 1]
    false_pos, false_neg = rates(sd, sdp, thresholds)
    per_rate = 1.0 - (1.0 - confidence) / ranks.size  # two-sided per rate: each one-sided tail (1 - conf) / (2N)
    _, fpr_upper = clopper_pearson_arrays(m - ranks, m, per_rate)  # the rank bound (module docstring)
    _, fnr_upper = clopper_pearson_arrays(false_neg, m_prime, per_rate)
    fpr_lower, _ = clopper_pearson_arrays(false_pos, m, per_rate)
    fnr_lower, _ = clopper_pearson_arrays(false_neg, m_prime, per_rate)
    floor = np.asarray(claim.false_negative_floor(fpr_upper), dtype=float)
    violations = fnr_upper < floor - 1e-12
    epsilon_range = 0.0
    if claim.kind == "range":  # one t for every test of the pair: the best threshold of each tail together
        upper, lower = tail_log_ratios(fpr_upper, fnr_upper)
        best_upper, best_lower = int(np.argmax(upper)), int(np.argmax(lower))
        epsilon_range = max(0.0, float(upper[best_upper])) + max(0.0, float(lower[best_lower]))
        if epsilon_range > claim.epsilon * (1 + 1e-9):
            violations[[best_upper, best_lower]] = True
    epsilon_band = max([0.0] + [epsilon_lower_bound(a, b, delta) for a, b in zip(fpr_upper, fnr_upper)])
    mu_band = float(np.max(mu_lower_bound(fpr_upper, fnr_upper)))
    epsilon_gdp = gaussian_epsilon(mu_band, delta) if mu_band > 0 and delta > 0 else 0.0
    fpr, tpr = roc(sd, sdp)
    return TradeoffCurve(
        fpr=fpr,
        fnr=1.0 - tpr,
        thresholds=thresholds,
        grid_fpr=false_pos / m,
        grid_fnr=false_neg / m_prime,
        fpr_upper=fpr_upper,
        fnr_upper=fnr_upper,
        fpr_lower=fpr_lower,
        fnr_lower=fnr_lower,
        violations=violations,
        trials=m,
        confidence=confidence,
        claim=claim,
        delta=float(delta),
        epsilon_band=float(epsilon_band),
        mu_band=mu_band,
        epsilon_gdp_band=float(epsilon_gdp),
        epsilon_range_band=epsilon_range,
    )


__all__ = ["GRID_SIZE", "RangeClaim", "TradeoffCurve", "grid_ranks", "tradeoff_curve"]

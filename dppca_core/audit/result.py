"""From the trials' scores to an :class:`AuditResult`: the threshold (chosen on a share of the trials, or fixed by
the design), the bounds on the rest (:mod:`.bounds`), and the attack's whole trade-off curve (:mod:`.curve`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..privacy import PrivacyCurve, gaussian_delta, gaussian_mu
from .bounds import bounds, range_bounds, rates, roc, threshold_and_strength
from .curve import RangeClaim, TradeoffCurve, tradeoff_curve
from .design import AuditDesign
from .trials import SCAN_TRIALS


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    ``epsilon_lower`` is the headline lower bound: the GDP reading where the release's privacy curve is
    Gaussian (``conversion == "gdp"``), else the distribution-free one (``conversion == "point"``); both are
    kept. ``scores_d`` / ``scores_d_prime`` are the test statistic on the evaluation half for D and D'
    (larger values point to D'); ``roc`` holds (false positive rate, true positive rate) over thresholds.

    ``epsilon_exact`` is the exact epsilon of the noise the audited runs added, at the claimed delta (from the
    privacy curve they state: ``PrivacyCurve.epsilon_at``); it is below the claim where a calibration adds more
    noise than its claim needs. ``target`` is the smaller of the two: what a tight audit can reach.
    ``note`` says where the design attacks (the release, a user's message, one step).

    ``conversion == "range"`` (an exponential mechanism's design): the headline bounds the width of the privacy
    loss's range, which the mechanism's proof bounds by epsilon, from two tests: the one at ``threshold`` (upper
    tail) and ``lower_test`` = (threshold, false-positive rate, false-negative rate, their upper bounds) in the
    lower tail; all four rate bounds hold together with ``confidence``.

    ``curve`` is the attack's whole trade-off curve on the evaluation trials with a simultaneous confidence band
    (:mod:`.curve`); ``violated`` is true when the chosen threshold's bound exceeds the claim or any point of the
    band's inner edge lies beyond the claimed curve.
    """

    mechanism: str
    epsilon_claimed: float
    delta_claimed: float
    neighbors: str
    epsilon_lower: float
    epsilon_lower_point: float
    mu_lower: float
    mu_claimed: float | None
    delta_lower: float
    conversion: str
    violated: bool
    statistic: str
    leaked_field: str | None
    trials: int
    seconds: float
    threshold: float
    false_positive_rate: float
    false_negative_rate: float
    false_positive_upper: float
    false_negative_upper: float
    confidence: float
    run_epsilon: float
    run_delta: float
    epsilon_exact: float
    note: str
    scores_d: np.ndarray = field(repr=False)
    scores_d_prime: np.ndarray = field(repr=False)
    roc: tuple = field(repr=False)
    curve: TradeoffCurve | None = field(default=None, repr=False)
    lower_test: tuple | None = field(default=None, repr=False)

    @property
    def ratio(self) -> float:
        """epsilon_lower / epsilon_claimed: how much of the claim the audit reaches (1 = tight, > 1 = refuted)."""
        return self.epsilon_lower / self.epsilon_claimed

    @property
    def target(self) -> float:
        """What a tight audit can reach: the claimed epsilon, or the exact epsilon of the noise where smaller."""
        return min(self.epsilon_claimed, self.epsilon_exact)

    @property
    def target_ratio(self) -> float:
        """epsilon_lower / target: the share of what a tight audit can reach."""
        return self.epsilon_lower / self.target if self.target > 0 else math.inf

    def claim_curve(self) -> PrivacyCurve:
        """The trade-off curve the claim allows: mu*-GDP for Gaussian claims, else the (epsilon, delta) region."""
        return _claim_curve(self.mu_claimed, self.epsilon_claimed, self.delta_claimed, self.conversion)

    def verdict(self) -> str:
        """The result in plain words, quoting the claim as (epsilon, delta)."""
        claim = f"({self.epsilon_claimed:g}, {self.delta_claimed:g})-DP"
        if self.leaked_field:
            return (
                f"Claim contradicted: the published field '{self.leaked_field}' carries no noise and differs "
                f"between the neighbouring datasets, so it identifies which one was used. With "
                f"{self.confidence:.0%} confidence the release is not {claim} for any delta below "
                f"{self.delta_lower:.3g}."
            )
        how = {
            "gdp": "reading the test through the Gaussian-DP trade-off curve (exact for Gaussian noise)",
            "range": "from two tests, one in each tail, read through the exponential mechanism's bounded privacy-"
            "loss range",
        }.get(self.conversion, "from the test's error rates (distribution-free)")
        if (
            self.violated
            and self.curve is not None
            and self.curve.violated
            and self.epsilon_lower <= self.epsilon_claimed * (1 + 1e-9)
        ):
            return (
                f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not {claim}. "
                f"{self.curve.reading(self.epsilon_claimed)}"
            )
        if self.violated:
            return (
                f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not {claim}. "
                f"The test separates the neighbours so well that epsilon must be at least "
                f"{self.epsilon_lower:.3g} at delta = {self.delta_claimed:g} ({how})."
            )
        return (
            f"No violation found: the empirical lower bound epsilon >= {self.epsilon_lower:.3g} "
            f"({self.ratio:.0%} of the claim, {how}) is within the claimed {claim}. An audit can refute a "
            "claim but never prove one."
        )


def evaluate(
    scores: np.ndarray,
    leaked: str | None,
    curve: PrivacyCurve,
    sample: dict,
    design: AuditDesign,
    epsilon: float,
    delta: float,
    *,
    neighbors: str,
    confidence: float,
    selection_share: float,
    label: str,
    run_epsilon: float | None,
    run_delta: float | None,
    start: float,
) -> AuditResult:
    """The audit's result from its trials' scores (2 x trials x candidates, :func:`_trial_scores`): the threshold
    chosen on the selection share (or fixed by the design), its bounds on the rest, and the whole trade-off curve.
    ``start``: the :func:`time.perf_counter` reading the audit started at."""
    trials = scores.shape[1]
    statistic = "published field" if leaked else design.statistic
    claimed_delta = float(delta)
    run = _Run(label, epsilon, claimed_delta, neighbors, confidence, run_epsilon, run_delta, curve, design.note, start)
    gdp = curve.kind == "gdp" and not leaked
    fixed = design.threshold(sample, trials, confidence) if design.threshold is not None and not leaked else None
    if fixed is not None and design.bounded_range:
        return _evaluate_range(scores[..., 0], fixed, statistic, run)
    if fixed is not None:  # fixed by the design's theory: every trial evaluates it
        half, threshold, scores = 0, float(fixed), scores[..., 0]
    else:
        half, threshold, scores, statistic = _chosen(
            statistic, scores, design, leaked, selection_share, claimed_delta, confidence, gdp
        )
    eval_d, eval_dp = scores[0][half:], scores[1][half:]
    m = eval_d.size
    false_pos, false_neg = rates(eval_d, eval_dp, np.array([threshold]))
    headline, point, mu, fpr_hi, fnr_hi = bounds(false_pos, false_neg, m, claimed_delta, confidence, gdp)
    mu_lower, a_hi, b_hi = float(mu[0]), float(fpr_hi[0]), float(fnr_hi[0])
    delta_lower, mu_claimed = _delta_and_mu(gdp, epsilon, claimed_delta, mu_lower, a_hi, b_hi)
    return _result(
        run,
        epsilon_lower=float(headline[0]),
        epsilon_lower_point=float(point[0]),
        mu_lower=mu_lower,
        mu_claimed=mu_claimed,
        delta_lower=delta_lower,
        conversion="gdp" if gdp else "point",
        statistic=statistic,
        leaked_field=leaked,
        trials=trials,
        threshold=threshold,
        rates=(float(false_pos[0]) / m, float(false_neg[0]) / m, a_hi, b_hi),
        eval_d=eval_d,
        eval_dp=eval_dp,
    )


def _chosen(
    statistic: str,
    scores: np.ndarray,
    design: AuditDesign,
    leaked: str | None,
    selection_share: float,
    delta: float,
    confidence: float,
    gdp: bool,
) -> tuple:
    """(the trials that chose, the threshold, the chosen statistic's scores, its name): the statistic and threshold
    chosen on the first share ``selection_share`` of the trials (at least :data:`SCAN_TRIALS`)."""
    trials = scores.shape[1]
    half = max(SCAN_TRIALS, int(round(trials * selection_share)))
    column, threshold = _select(statistic, scores, half, delta, confidence, gdp, trials - half)
    if design.statistics and not leaked:
        statistic = design.statistics[column]
    return half, threshold, scores[..., column], statistic


def _delta_and_mu(gdp: bool, epsilon: float, delta: float, mu_lower: float, a_hi: float, b_hi: float) -> tuple:
    """(the delta the bounds imply at ``epsilon``, the claim's mu or None): from the GDP reading ``mu_lower`` when
    ``gdp``, else from the error rates' upper bounds (a_hi, b_hi) alone."""
    if gdp:
        return gaussian_delta(epsilon, mu_lower), (gaussian_mu(epsilon, delta) if delta > 0 else None)
    return _delta_lower(epsilon, [(a_hi, b_hi)]), None


def _evaluate_range(scores: np.ndarray, thresholds: tuple, statistic: str, run: _Run) -> AuditResult:
    """:func:`evaluate` for an exponential mechanism's design (``bounded_range``): its two thresholds, fixed in advance,
    evaluated on every trial; the headline bounds the width of the privacy loss's range (:func:`.bounds.range_bounds`,
    conversion "range"), the distribution-free bound is read from the same four rate bounds."""
    upper, lower = (float(t) for t in thresholds)
    eval_d, eval_dp = scores[0], scores[1]
    m = eval_d.size
    false_pos, false_neg = rates(eval_d, eval_dp, np.array([upper, lower]))
    width, point, (a_u, b_u, a_l, b_l) = range_bounds(
        (false_pos[0], false_neg[0]), (false_pos[1], false_neg[1]), m, run.delta, run.confidence
    )
    return _result(
        run,
        epsilon_lower=max(width, point),
        epsilon_lower_point=point,
        mu_lower=0.0,
        mu_claimed=None,
        delta_lower=_delta_lower(run.epsilon, [(a_u, b_u), (a_l, b_l)]),
        conversion="range",
        statistic=statistic,
        leaked_field=None,
        trials=scores.shape[1],
        threshold=upper,
        rates=(float(false_pos[0]) / m, float(false_neg[0]) / m, a_u, b_u),
        eval_d=eval_d,
        eval_dp=eval_dp,
        lower_test=(lower, float(false_pos[1]) / m, float(false_neg[1]) / m, a_l, b_l),
    )


def _delta_lower(epsilon: float, upper_bounds) -> float:
    """The smallest delta the (alpha+, beta+) pairs allow at ``epsilon``: max(0, 1 - beta+ - e^eps alpha+,
    1 - alpha+ - e^eps beta+) over the pairs."""
    grow = math.exp(min(epsilon, 700.0))
    return float(max([0.0] + [max(1.0 - b - grow * a, 1.0 - a - grow * b) for a, b in upper_bounds]))


@dataclass(frozen=True)
class _Run:
    """What one audit claims and how it ran, the same on every evaluation path: its label, the claimed (epsilon,
    delta) under ``neighbors``, the confidence, the (epsilon, delta) the audited runs used (None: the claim's), the
    privacy curve they state, the design's note and the :func:`time.perf_counter` reading the audit started at."""

    label: str
    epsilon: float
    delta: float
    neighbors: str
    confidence: float
    run_epsilon: float | None
    run_delta: float | None
    curve: PrivacyCurve
    note: str
    start: float


def _result(
    run: _Run,
    *,
    epsilon_lower,
    epsilon_lower_point,
    mu_lower,
    mu_claimed,
    delta_lower,
    conversion,
    statistic,
    leaked_field,
    trials,
    threshold,
    rates,
    eval_d,
    eval_dp,
    lower_test=None,
) -> AuditResult:
    """The :class:`AuditResult` of one evaluation of ``run``, with the attack's whole trade-off curve against the
    claimed one; ``rates`` = (false-positive rate, false-negative rate, their upper bounds) at ``threshold``."""
    epsilon, delta, confidence = run.epsilon, run.delta, run.confidence
    curve_of_attack = tradeoff_curve(
        eval_d, eval_dp, _claim_curve(mu_claimed, epsilon, delta, conversion), delta, confidence
    )
    violated = epsilon_lower > epsilon * (1 + 1e-9) or delta_lower > delta or curve_of_attack.violated
    return AuditResult(
        mechanism=run.label,
        epsilon_claimed=float(epsilon),
        delta_claimed=delta,
        neighbors=run.neighbors,
        epsilon_lower=float(epsilon_lower),
        epsilon_lower_point=float(epsilon_lower_point),
        mu_lower=mu_lower,
        mu_claimed=mu_claimed,
        delta_lower=float(delta_lower),
        conversion=conversion,
        violated=bool(violated),
        statistic=statistic,
        leaked_field=leaked_field,
        trials=trials,
        seconds=time.perf_counter() - run.start,
        threshold=threshold,
        false_positive_rate=rates[0],
        false_negative_rate=rates[1],
        false_positive_upper=rates[2],
        false_negative_upper=rates[3],
        confidence=confidence,
        run_epsilon=float(epsilon if run.run_epsilon is None else run.run_epsilon),
        run_delta=float(delta if run.run_delta is None else run.run_delta),
        epsilon_exact=exact_epsilon(run.curve, delta),
        note=run.note,
        scores_d=eval_d,
        scores_d_prime=eval_dp,
        roc=roc(eval_d, eval_dp),
        curve=curve_of_attack,
        lower_test=lower_test,
    )


def _claim_curve(mu_claimed: float | None, epsilon: float, delta: float, conversion: str = "point"):
    """The trade-off curve a claim allows: mu*-GDP for a Gaussian claim, an exponential mechanism's bounded range
    (:class:`.curve.RangeClaim`) where the audit reads it, else the (epsilon, delta) region."""
    if conversion == "range":
        return RangeClaim(float(epsilon))
    return PrivacyCurve.gdp(mu_claimed) if mu_claimed is not None else PrivacyCurve.approx(epsilon, delta)


def _select(
    statistic: str, scores: np.ndarray, half: int, delta: float, confidence: float, gdp: bool, m_eval: int
) -> tuple[int, float]:
    """(column, threshold): the candidate statistic (a column of ``scores``, 2 x trials x candidates) whose
    threshold, chosen on the first ``half`` trials, gives the strongest bound there; the first on a tie."""
    best = None
    for column in range(scores.shape[-1]):
        threshold, strength = threshold_and_strength(
            statistic, scores[0, :half, column], scores[1, :half, column], delta, confidence, gdp, m_eval
        )
        if best is None or strength > best[2]:
            best = (column, threshold, strength)
    return best[0], best[1]


def exact_epsilon(curve: PrivacyCurve, delta: float) -> float:
    """The exact epsilon ``curve`` gives at ``delta`` (a GDP curve at delta = 0: infinite)."""
    if curve.kind == "gdp" and delta <= 0:
        return math.inf
    return float(curve.epsilon_at(delta))


__all__ = ["AuditResult", "evaluate", "exact_epsilon"]

"""The room's score against the promise: its true- and false-positive rates with Clopper-Pearson bands, the bound the
mechanism's exact trade-off curve puts on them, the verdict (within the promise, or an audit finding), and all of it
in words a class reads aloud ("x in 100").

A room's answers in one round are a test of "Alice is in": the true-positive rate (TPR) is the share of releases
with Alice on which the room said "in", the false-positive rate (FPR) the share of releases without her on which it
said "in". A curve f (the smallest false-negative rate at each false-positive rate) allows TPR <= 1 - f(FPR), and
the coin toss is TPR = FPR. Each rate gets a two-sided Clopper-Pearson band at level 1 - (1 - confidence) / 2, so
that both bands hold together with probability at least ``confidence`` (Bonferroni). The room beats the bound beyond
its bands when even the lower end of its TPR band lies above 1 - f at the upper end of its FPR band (1 - f rises with
the FPR): then, with that confidence, the rates break the curve, and the mechanism leaks more than it promises (the
audit's logic: Jagielski, Ullman & Oprea 2020; :mod:`dppca_core.audit.bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import risk
from ..audit.bounds import clopper_pearson
from ..privacy import PrivacyCurve

#: the confidence with which both bands hold together (each band is drawn at 1 - (1 - CONFIDENCE) / 2)
CONFIDENCE = 0.95


def band_level(confidence: float = CONFIDENCE) -> float:
    """The level of each rate's band, so that the two hold together with ``confidence``."""
    return 1.0 - (1.0 - confidence) / 2.0


def band(count: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Clopper-Pearson band of a rate ``count`` / ``trials`` (the whole [0, 1] when there are no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    return clopper_pearson(int(count), int(trials), band_level(confidence))


def most_hits(curve: PrivacyCurve, false_positive_rate) -> np.ndarray | float:
    """The highest true-positive rate the curve allows at ``false_positive_rate``: 1 - f(FPR)."""
    out = 1.0 - np.asarray(curve.false_negative_floor(false_positive_rate), dtype=float)
    return float(out) if out.ndim == 0 else out


def bound_line(curve: PrivacyCurve, points: int = 201) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, the highest TPR) tracing the bound on [0, 1], kinks included (:func:`dppca_core.risk.tradeoff_curve`)."""
    alpha, beta = risk.tradeoff_curve(curve, points)
    return alpha, 1.0 - beta


@dataclass(frozen=True)
class RoomResult:
    """One round's answers, scored. Counts: releases with Alice (``with_alice``) and how many the room called "in"
    (``hits``), releases without her (``without_alice``) and how many it called "in" (``false_alarms``)."""

    with_alice: int
    hits: int
    without_alice: int
    false_alarms: int
    curve: PrivacyCurve
    confidence: float = CONFIDENCE

    @property
    def answers(self) -> int:
        return self.with_alice + self.without_alice

    @property
    def right(self) -> int:
        return self.hits + (self.without_alice - self.false_alarms)

    @property
    def tpr(self) -> float:
        return self.hits / self.with_alice if self.with_alice else math.nan

    @property
    def fpr(self) -> float:
        return self.false_alarms / self.without_alice if self.without_alice else math.nan

    @property
    def tpr_band(self) -> tuple[float, float]:
        return band(self.hits, self.with_alice, self.confidence)

    @property
    def fpr_band(self) -> tuple[float, float]:
        return band(self.false_alarms, self.without_alice, self.confidence)

    @property
    def advantage(self) -> float:
        """TPR - FPR: 0 for a coin toss, at most the curve's :func:`dppca_core.risk.attacker_advantage`."""
        return self.tpr - self.fpr

    @property
    def advantage_band(self) -> tuple[float, float]:
        """The advantage's band from the rates' bands (holds with the same joint confidence)."""
        (t_lo, t_hi), (f_lo, f_hi) = self.tpr_band, self.fpr_band
        return t_lo - f_hi, t_hi - f_lo

    @property
    def bound_at_fpr(self) -> float:
        """The highest TPR the curve allows at the room's FPR."""
        return most_hits(self.curve, self.fpr) if self.without_alice else math.nan

    @property
    def finding(self) -> bool:
        """Whether the room beats the bound beyond its bands: the TPR band's lower end above the bound at the FPR
        band's upper end. Needs answers on both sides."""
        if not (self.with_alice and self.without_alice):
            return False
        return self.tpr_band[0] > most_hits(self.curve, self.fpr_band[1]) + 1e-12

    def as_dict(self) -> dict:
        return {
            "with_alice": self.with_alice,
            "hits": self.hits,
            "without_alice": self.without_alice,
            "false_alarms": self.false_alarms,
            "privacy": self.curve.as_dict(),
            "confidence": self.confidence,
            "finding": self.finding,
        }


def score(answers, curve: PrivacyCurve, confidence: float = CONFIDENCE) -> RoomResult:
    """The room's result from ``answers``: pairs (Alice was in, the student said "in"), one per answered release."""
    pairs = [(bool(inside), bool(said)) for inside, said in answers]
    with_alice = sum(1 for inside, _ in pairs if inside)
    hits = sum(1 for inside, said in pairs if inside and said)
    false_alarms = sum(1 for inside, said in pairs if not inside and said)
    return RoomResult(with_alice, hits, len(pairs) - with_alice, false_alarms, curve, confidence)


# -- in words ---------------------------------------------------------------------------------------------------


def in_100(x: float) -> str:
    """A rate as "x in 100" (one decimal below 10, else a whole number)."""
    value = 100.0 * float(x)
    return f"{value:.1f} in 100" if 0 < value < 10 else f"{value:.0f} in 100"


def promise_words(curve: PrivacyCurve, epsilon: float, at_fpr: float = 0.1) -> str:
    """What the curve allows, in odds: the best guesser's share of right answers at 50/50, and the most "in"s on
    releases with Alice for a given share of false alarms."""
    best = 0.5 + risk.attacker_advantage(curve) / 2.0
    hits = most_hits(curve, at_fpr)
    return (
        f"At ε = {epsilon:g} the best possible guesser is right at most {times_in_100(best)} (a coin toss: 50 times "
        f'in 100). A room that says "in" for {in_100(at_fpr)} of the releases without Alice can say "in" for at most '
        f"{in_100_up(hits)} of those with her."
    )


def in_100_up(x: float) -> str:
    """An upper bound as "x in 100", rounded up to a tenth so that it stays a bound."""
    return f"{math.ceil(1000.0 * float(x) - 1e-9) / 10:g} in 100"


def times_in_100(x: float) -> str:
    """An upper bound on a share of right answers as "x times in 100", rounded up."""
    return in_100_up(x).replace(" in 100", " times in 100")


def result_words(result: RoomResult) -> str:
    """The round's result in plain words: the two rates with their bands, the share of right answers, and the
    verdict against the bound."""
    if not result.answers:
        return "No answers yet."
    parts = []
    if result.with_alice:
        lo, hi = result.tpr_band
        parts.append(
            f'with Alice, the room said "in" {result.hits} times of {result.with_alice} ({in_100(result.tpr)}; '
            f"band {100 * lo:.0f} to {100 * hi:.0f})"
        )
    if result.without_alice:
        lo, hi = result.fpr_band
        parts.append(
            f"without her, {result.false_alarms} of {result.without_alice} times ({in_100(result.fpr)}; band "
            f"{100 * lo:.0f} to {100 * hi:.0f})"
        )
    text = "; ".join(parts)
    text = text[0].upper() + text[1:] + f". Right {result.right} of {result.answers} times."
    return text + " " + verdict_words(result)


def verdict_words(result: RoomResult) -> str:
    """The verdict: an audit finding when the room beats the bound beyond its bands, else within the promise."""
    level = f"{100 * result.confidence:.0f}%"
    if result.finding:
        return (
            f"AUDIT FINDING: the room beats the bound beyond its bands (at {level} confidence): its hit rate is above "
            "anything this mechanism's noise allows at its false-alarm rate. The round's settings are kept."
        )
    if not (result.with_alice and result.without_alice):
        return "The verdict needs answers on releases with and without Alice."
    return f"Within the promise: the room's bands reach the region the curve allows (at {level} confidence)."


def short_verdict(result: RoomResult) -> str:
    """The verdict in a few words, for the teacher's status line."""
    if result.finding:
        return "AUDIT FINDING: beyond the bound"
    if not (result.with_alice and result.without_alice):
        return "no verdict yet"
    return "within the promise"

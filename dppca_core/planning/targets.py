"""The targets of a plan: what each one reads, which way is better, and how many repetitions a confidence
needs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..pipeline.scores import READABLE_NOISE

#: the confidence of the Clopper-Pearson interval of the share of releases that meet the targets
PLAN_INTERVAL = 0.95

# ---------------------------------------------------------------------------------------------------------------
# Targets


@dataclass(frozen=True)
class Target:
    """One kind of target: how its metric is read and which way is better.

    ``power``: the power of the metric's error (``error``) in the noise scale, to first order (the distance is
    linear in the noise; the energy lost and 1 - F1 go with squared sines); ``part``: the part of the release whose
    noise drives it.
    """

    name: str
    label: str
    lower_is_better: bool
    low: float
    high: float
    power: float
    part: str
    unit: str = ""

    def error(self, value):
        """The metric as an error (0 = perfect, the larger the worse)."""
        value = np.asarray(value, dtype=float)
        return value if self.lower_is_better else 1.0 - value

    def meets(self, value, target: float):
        value = np.asarray(value, dtype=float)
        with np.errstate(invalid="ignore"):
            return (value <= target) if self.lower_is_better else (value >= target)

    def words(self, target: float) -> str:
        return f"{self.label} {'≤' if self.lower_is_better else '≥'} {target:g}{self.unit}"


TARGETS = {
    t.name: t
    for t in (
        Target("subspace_distance", "subspace distance", True, 0.0, math.inf, 1.0, "subspace"),
        Target("energy", "captured energy", False, 0.0, 1.0, 2.0, "subspace", " of the optimum"),
        Target("f1", "support recovery F1", False, 0.0, 1.0, 2.0, "subspace"),
        Target("explained_variance_error", "explained-variance error", True, 0.0, 1.0, 1.0, "eigenvalues"),
        Target("score_readability", "score plot's noise-to-signal ratio", True, 0.0, math.inf, 1.0, "scores"),
    )
}
#: the parts of a release a target needs beyond the components
TARGET_PARTS = {"explained_variance_error": "eigenvalues", "score_readability": "scores"}


def check_targets(targets: dict, k: int | None = None, d: int | None = None) -> dict:
    """The targets validated, in the order of :data:`TARGETS` ({name: value}); ValueError in plain words.

    ``score_readability`` may be True (the dashboard's rule: noise at most half the rows of a typical cell of the
    smallest group's cloud, :data:`dppca_core.pipeline.scores.READABLE_NOISE`).
    """
    if not isinstance(targets, dict) or not targets:
        raise ValueError(
            "give at least one target, e.g. targets={'subspace_distance': 0.3} (a distance of at most "
            "0.3 from the exact components)."
        )
    unknown = [str(name) for name in targets if name not in TARGETS]
    if unknown:
        raise ValueError(f"unknown target {', '.join(unknown)}: use {', '.join(TARGETS)}.")
    out = {}
    for name, target in TARGETS.items():
        if name not in targets:
            continue
        value = targets[name]
        if name == "score_readability" and value is True:
            value = READABLE_NOISE
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"the {target.label} target must be a number (got {value!r}).")
        high = (
            math.sqrt(min(k, d - k)) if name == "subspace_distance" and k is not None and d is not None else target.high
        )
        if not target.low < value <= high:
            raise ValueError(
                f"the {target.label} target must lie in ({target.low:g}, {high:.3g}] (got {value:g})"
                + (": give a fraction, e.g. 0.95 for 95% of the optimum." if name == "energy" else ".")
            )
        out[name] = float(value)
    return out


def target_words(targets: dict, confidence: float) -> str:
    """ "subspace distance ≤ 0.3 in 90% of releases" (targets joined with "and")."""
    parts = [TARGETS[name].words(value) for name, value in check_targets(targets).items()]
    return f"{' and '.join(parts)} in {100 * confidence:.4g}% of releases"


def default_reps(confidence: float) -> int:
    """Repetitions per checked epsilon: 10 / (1 - confidence), at least 100, at most 600. At a share p = confidence
    the binomial standard error sqrt(p (1 - p) / reps) is then at most (1 - confidence) / 3 (0.03 at 90%)."""
    return int(min(600, max(100, math.ceil(round(10.0 / (1.0 - confidence), 6)))))


def share_meets(counts, reps: int, confidence: float) -> np.ndarray:
    """Whether each share counts / reps reaches the confidence."""
    return np.asarray(counts) >= math.ceil(round(confidence * reps, 9))

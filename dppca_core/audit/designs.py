"""Which design audits a mechanism: the level at which its privacy proof states the guarantee.

* A mechanism's own design (registry ``audit_design``): Private Oja's and DP-PCA's step, the tensor moments.
* A local mechanism (registry ``local_randomizer``): the canary user's message to the untrusted aggregator,
  which is what local DP is about (:func:`local_message_design`).
* A pure exponential mechanism on the sphere (``audit_statistic = "log_density_ratio"``): the exact
  log-density ratio of the two neighbours, one test in each tail (:func:`log_density_design`).
* Otherwise the generic statistics on the published release (:func:`.statistics.default_design`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import i0e

from ..data.prepare import prepare
from ..release import to_plain
from .bounds import clopper_pearson_arrays, range_rate_level, tail_log_ratios
from .design import AuditDesign
from .statistics import DESCRIPTIONS, STATISTICS, default_design

LOCAL_STATISTIC = "ldp_message"
LOG_DENSITY_STATISTIC = "log_density_ratio"
#: how the audit reads the designs of this module, in plain words
READINGS = {
    LOCAL_STATISTIC: "the canary user's own message to the aggregator (x xᵀ plus noise): the difference of its two "
    "diagonal entries, exactly the Gaussian the local calibration is tight for",
    LOG_DENSITY_STATISTIC: "the exact ratio of the released vector's densities under the two datasets, with two "
    "thresholds fixed in advance from those densities (one in each tail): an exponential "
    "mechanism's privacy loss stays in a range of width ε, and the two tests bound that width",
}


def describe_statistic(spec, statistic: str) -> str:
    """How an audit of ``spec`` reads ``statistic``, in plain words: what the mechanism declares for its own designs
    (registry ``audit_descriptions``), else the generic designs' words; the name itself when none is known."""
    return spec.audit_descriptions.get(statistic) or READINGS.get(statistic) or DESCRIPTIONS.get(statistic, statistic)


def design_for(
    spec, *, d: int, n: int, neighbors: str, statistic: str, k: int | None, epsilon: float, delta: float
) -> AuditDesign:
    """The design that audits ``spec`` with ``statistic`` ("auto": where its proof lives)."""
    if spec.audit_design is not None:
        design = spec.audit_design(d=d, n=n, neighbors=neighbors, statistic=statistic, epsilon=epsilon, delta=delta)
        if design is not None:
            return design
    chosen = spec.audit_statistic if statistic == "auto" else statistic
    if chosen == LOCAL_STATISTIC and spec.local_randomizer is not None:
        return local_message_design(spec, d, neighbors)
    if chosen == LOG_DENSITY_STATISTIC:
        return log_density_design(spec, d, n, neighbors, epsilon)
    if chosen not in STATISTICS:
        known = ["auto", *STATISTICS] + [s for s in (LOCAL_STATISTIC,) if spec.local_randomizer is not None]
        raise ValueError(f"statistic={statistic!r} is not known for {spec.name}; choose one of {known}.")
    return default_design(spec, d, n, neighbors, chosen, k)


# -- local mechanisms: the canary user's message ------------------------------------------------------------


def local_message_design(spec, d: int, neighbors: str) -> AuditDesign:
    """The canary user's message: x = e1 on D, x' = e2 on D' (local DP compares any two inputs of one user).

    The message is upper(x x^T) plus i.i.d. Gaussian noise (``spec.local_randomizer``); the score
    M_22 - M_11 moves by 2 with noise of s.d. sqrt(2) sigma, a separation of sqrt(2)/sigma: exactly the mu the
    randomiser is calibrated for (the likelihood-ratio test, so the audit is as strong as any test).
    """
    if neighbors != "replace":
        raise ValueError(
            f"{spec.name} is a local mechanism: its guarantee compares any two inputs of one user, a "
            "replace relation; audit it with neighbors='replace'."
        )
    x, x_prime = np.eye(d)[0], np.eye(d)[1]

    def release(row, rng, epsilon, delta, neighbors):
        message, curve = spec.local_randomizer(row, epsilon, delta, rng)
        return {"message": to_plain(message)}, curve

    def score(published: dict) -> float:
        message = published["message"]
        return float(message[1][1] - message[0][0])

    return AuditDesign(
        x,
        x_prime,
        1,
        score,
        LOCAL_STATISTIC,
        release=release,
        note="the canary user's message to the aggregator (local DP is about each message)",
    )


# -- pure exponential mechanisms on the sphere: the exact log-density ratio ----------------------------------


def _log_normaliser(weight: float, diag: np.ndarray) -> float:
    """log of the mean of exp(w v^T diag(a, b) v) over the unit circle: w (a + b)/2 + log I0(w (a - b)/2)."""
    a, b = float(diag[0]), float(diag[1])
    kappa = weight * (a - b) / 2.0
    return weight * (a + b) / 2.0 + math.log(i0e(kappa)) + abs(kappa)


def _circle_laws(weight: float, diag_d, diag_dp, grid: int):
    """(log-likelihood ratios sorted, P_D(llr <= each), P_D'(llr <= each)) over the circle by quadrature: the exact
    laws of the statistic from the run's public weight and the design's data (both known before any trial)."""
    theta = np.linspace(0.0, 2.0 * math.pi, grid, endpoint=False)
    energy = np.stack([np.cos(theta) ** 2, np.sin(theta) ** 2], axis=1)
    diag_d, diag_dp = np.asarray(diag_d, dtype=float), np.asarray(diag_dp, dtype=float)
    llr = weight * energy @ (diag_dp - diag_d) - _log_normaliser(weight, diag_dp) + _log_normaliser(weight, diag_d)
    density_d = np.exp(weight * energy @ diag_d - _log_normaliser(weight, diag_d))
    density_d /= density_d.sum()
    density_dp = density_d * np.exp(llr)
    density_dp /= density_dp.sum()
    order = np.argsort(llr)
    return llr[order], np.cumsum(density_d[order]), np.cumsum(density_dp[order])


def best_log_density_thresholds(
    weight: float, diag_d, diag_dp, trials: int, confidence: float, grid: int = 20_001
) -> tuple[float, float]:
    """(upper, lower): the two log-likelihood-ratio thresholds whose tests give the largest expected bound on the
    width of the privacy loss's range (:func:`.bounds.range_bounds`): the upper one maximises
    ln((1 - beta+)/alpha+), the lower one ln((1 - alpha+)/beta+), each with the Clopper-Pearson margins
    ``trials`` evaluations would leave (the audit's own arithmetic), from the exact laws (:func:`_circle_laws`).
    """
    llr, below_d, below_dp = _circle_laws(weight, diag_d, diag_dp, grid)
    at = np.unique(np.r_[np.arange(0, llr.size, max(1, grid // 2000)), llr.size - 1])
    # says D' above t: false positives P_D(llr > t), false negatives P_D'(llr <= t)
    false_pos, false_neg = np.round((1.0 - below_d[at]) * trials), np.round(below_dp[at] * trials)
    level = range_rate_level(confidence)
    _, fpr_hi = clopper_pearson_arrays(false_pos, trials, level)
    _, fnr_hi = clopper_pearson_arrays(false_neg, trials, level)
    upper, lower = tail_log_ratios(fpr_hi, fnr_hi)
    return float(llr[at][int(np.nanargmax(upper))]), float(llr[at][int(np.nanargmax(lower))])


def log_density_design(spec, d: int, n: int, neighbors: str, epsilon: float) -> AuditDesign:
    """Neighbours on the circle and the exact log-density ratio of the released unit vector (d = 2, k = 1).

    The release v has density exp(w v^T C v) / Z(C) on the circle (the exponential mechanism with utility
    v^T C v, C = X^T X; w is published in ``facts["bingham_weight"]``), so the log-likelihood ratio of D' against
    D is w v^T (C' - C) v - log Z(C') + log Z(C), with Z a Bessel function (:func:`_log_normaliser`). The
    canary is e1 (replaced by e2, or removed) and the rest of the data is empty.

    Why these neighbours. The loss w (v_2^2 - v_1^2) (replace; -w v_1^2 under add/remove, with twice the weight)
    spans its whole range, of width epsilon, and its law (that of cos 2 theta for a nearly uniform angle) puts
    much of its mass near both ends. A distribution-free bound reads one tail only: a loss of epsilon/2 at
    most here, and no background along the canary lifts it past about 0.55 epsilon at 10,000 trials (its
    largest loss grows, but the outputs that reach it become rare). The exponential mechanism's proof bounds the
    loss's *range* by epsilon (:mod:`.bounds`), and two tests, one per tail, bound that range from below: with
    these neighbours about 0.75 epsilon at 10,000 trials by quadrature, and 1.7 epsilon for a run at twice the
    claim. The thresholds are fixed in advance from the exact densities (:func:`best_log_density_thresholds`),
    so every trial evaluates them.
    """
    if d != 2:
        raise ValueError(
            "the log-density design is written for d = 2 (on the circle the normaliser is a Bessel "
            "function); audit with d=2."
        )
    if n < 2:
        raise ValueError("the log-density design needs n >= 2 rows; use a larger n.")
    zeros = [np.zeros(2)] * (n - 1)
    D = np.vstack([np.eye(2)[0], *zeros])
    if neighbors == "add_remove":
        D_prime = np.vstack(zeros)
    else:
        D_prime = np.vstack([np.eye(2)[1], *zeros])
    D, D_prime = prepare(D), prepare(D_prime)
    diag_d, diag_dp = np.diag(D.gram).copy(), np.diag(D_prime.gram).copy()

    def score(published: dict) -> float:
        w = float(published["facts"]["bingham_weight"])
        v = np.asarray(published["components"], dtype=float)[:, 0]
        energy = v**2
        return float(w * energy @ (diag_dp - diag_d) - _log_normaliser(w, diag_dp) + _log_normaliser(w, diag_d))

    def thresholds(published: dict, trials: int, confidence: float) -> tuple[float, float]:
        w = float(published["facts"]["bingham_weight"])
        return best_log_density_thresholds(w, diag_d, diag_dp, trials, confidence)

    return AuditDesign(
        D,
        D_prime,
        1,
        score,
        LOG_DENSITY_STATISTIC,
        threshold=thresholds,
        bounded_range=True,
        note="the released vector's exact log-density ratio (canary e1, the rest of the data empty), "
        "one test in each tail",
    )


__all__ = [
    "describe_statistic",
    "design_for",
    "local_message_design",
    "log_density_design",
    "LOCAL_STATISTIC",
    "LOG_DENSITY_STATISTIC",
]

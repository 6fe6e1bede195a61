"""Which design audits a mechanism: the level at which its privacy proof states the guarantee.

* A mechanism's own design (registry ``audit_design``): Private Oja's and DP-PCA's step, the tensor moments.
* A local mechanism (registry ``local_randomizer``): the canary user's message to the untrusted aggregator,
  which is what local DP is about (:func:`local_message_design`).
* A pure exponential mechanism on the sphere (``audit_statistic = "log_density_ratio"``): the exact
  log-density ratio of the two neighbours (:func:`log_density_design`).
* Otherwise the generic statistics on the published release (:func:`.statistics.default_design`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import i0e

from ..data.prepare import prepare
from ..privacy import exponential_weight, sensitivity
from ..release import to_plain
from .design import AuditDesign
from .statistics import DESCRIPTIONS, STATISTICS, default_design

LOCAL_STATISTIC = "ldp_message"
LOG_DENSITY_STATISTIC = "log_density_ratio"
#: Concentration of the von Mises law of 2 theta on D (the background's strength). The distribution-free bound
#: of the log-density test at 10,000 trials per side (7,500 evaluated) for a shift of w/2 between D and D' is,
#: computed by quadrature over K = 0.8 ... 2.4: 0.47 at K = 0.8, 0.51 at 1.2, 0.52 at 1.6, 0.45 at 2.4 (0.36 with
#: no background); a run at twice the claim (shift and concentration doubled) reads 1.20, 1.23, 1.06 and 0.51.
#: K = 1.2 keeps both: half the claim, and a refutation of twice the claim.
LOG_DENSITY_CONCENTRATION = 1.2
#: how the audit reads the designs of this module, in plain words
READINGS = {
    LOCAL_STATISTIC: "the canary user's own message to the aggregator (x xᵀ plus noise): the difference of its two "
                     "diagonal entries, exactly the Gaussian the local calibration is tight for",
    LOG_DENSITY_STATISTIC: "the exact ratio of the released vector's densities under the two datasets (a background "
                           "along the canary makes the normaliser move too); threshold fixed in advance from that "
                           "density",
}


def describe_statistic(spec, statistic: str) -> str:
    """How an audit of ``spec`` reads ``statistic``, in plain words: what the mechanism declares for its own designs
    (registry ``audit_descriptions``), else the generic designs' words; the name itself when none is known."""
    return spec.audit_descriptions.get(statistic) or READINGS.get(statistic) or DESCRIPTIONS.get(statistic, statistic)


def design_for(spec, *, d: int, n: int, neighbors: str, statistic: str, k: int | None, epsilon: float,
               delta: float) -> AuditDesign:
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
        raise ValueError(f"{spec.name} is a local mechanism: its guarantee compares any two inputs of one user, a "
                         "replace relation; audit it with neighbors='replace'.")
    x, x_prime = np.eye(d)[0], np.eye(d)[1]

    def release(row, rng, epsilon, delta, neighbors):
        message, curve = spec.local_randomizer(row, epsilon, delta, rng)
        return {"message": to_plain(message)}, curve

    def score(published: dict) -> float:
        message = published["message"]
        return float(message[1][1] - message[0][0])

    return AuditDesign(x, x_prime, 1, score, LOCAL_STATISTIC, release=release,
                       note="the canary user's message to the aggregator (local DP is about each message)")


# -- pure exponential mechanisms on the sphere: the exact log-density ratio ----------------------------------

def _log_normaliser(weight: float, diag: np.ndarray) -> float:
    """log of the mean of exp(w v^T diag(a, b) v) over the unit circle: w (a + b)/2 + log I0(w (a - b)/2)."""
    a, b = float(diag[0]), float(diag[1])
    kappa = weight * (a - b) / 2.0
    return weight * (a + b) / 2.0 + math.log(i0e(kappa)) + abs(kappa)


def best_log_density_threshold(weight: float, diag_d, diag_dp, trials: int, confidence: float,
                               grid: int = 20_001) -> float:
    """The log-likelihood-ratio threshold whose test has the largest expected distribution-free bound.

    The exact laws of the score on D and D' follow from the run's public weight and the design's data (both
    known before any trial): by quadrature over the circle, each candidate threshold's error rates give the
    bound its Clopper-Pearson margins at ``trials`` evaluations would leave (the same arithmetic as the audit's).
    """
    from .bounds import bounds

    theta = np.linspace(0.0, 2.0 * math.pi, grid, endpoint=False)
    energy = np.stack([np.cos(theta) ** 2, np.sin(theta) ** 2], axis=1)
    llr = weight * energy @ (np.asarray(diag_dp) - np.asarray(diag_d)) - _log_normaliser(weight, diag_dp) \
        + _log_normaliser(weight, diag_d)
    density_d = np.exp(weight * energy @ np.asarray(diag_d) - _log_normaliser(weight, diag_d))
    density_d /= density_d.sum()
    density_dp = density_d * np.exp(llr)
    density_dp /= density_dp.sum()
    order = np.argsort(llr)
    candidates = llr[order][:: max(1, grid // 400)]
    # says D' above t: false positives P_D(llr > t), false negatives P_D'(llr <= t)
    below_d, below_dp = np.cumsum(density_d[order]), np.cumsum(density_dp[order])
    at = np.searchsorted(llr[order], candidates, side="right") - 1
    false_pos, false_neg = (1.0 - below_d[at]) * trials, below_dp[at] * trials
    headline = bounds(np.round(false_pos), np.round(false_neg), trials, 0.0, confidence, False)[0]
    return float(candidates[int(np.argmax(headline))])


def log_density_design(spec, d: int, n: int, neighbors: str, epsilon: float) -> AuditDesign:
    """Neighbours on the circle and the exact log-density ratio of the released unit vector (d = 2, k = 1).

    The release v has density exp(w v^T C v) / Z(C) on the circle (the exponential mechanism with utility
    v^T C v, C = X^T X; w is published in ``facts["bingham_weight"]``), so the log-likelihood ratio of D' against
    D is w v^T (C' - C) v - log Z(C') + log Z(C), with Z a Bessel function (:func:`_log_normaliser`). The
    canary is e1 (replaced by e2, or removed). With the rest of the data empty the law of 2 theta is von Mises
    with concentration w/2 on D and -w/2 on D', and the privacy loss never exceeds w = epsilon/2: the
    normaliser does not move. Rows along e1 (a background of total squared norm m, public to the test) raise
    the concentration to :data:`LOG_DENSITY_CONCENTRATION` on D, where the normaliser moves too and the
    distribution-free bound at 10,000 trials is largest.
    """
    if d != 2:
        raise ValueError("the log-density design is written for d = 2 (on the circle the normaliser is a Bessel "
                         "function); audit with d=2.")
    weight = exponential_weight(sensitivity("quadratic_score", neighbors), epsilon, neighbors)
    mass = max(0.0, 2.0 * LOG_DENSITY_CONCENTRATION / weight - 1.0)
    whole, part = int(mass), math.sqrt(mass - int(mass))
    background = [np.eye(2)[0]] * whole + ([part * np.eye(2)[0]] if part > 0 else [])
    rows = 1 + len(background)
    if n < rows + 1:
        raise ValueError(f"the log-density design needs n >= {rows + 1} rows at epsilon = {epsilon:g}; use a larger n.")
    zeros = [np.zeros(2)] * (n - rows)
    D = np.vstack([np.eye(2)[0], *background, *zeros])
    if neighbors == "add_remove":
        D_prime = np.vstack([*background, *zeros]) if background or zeros else np.zeros((0, 2))
    else:
        D_prime = np.vstack([np.eye(2)[1], *background, *zeros])
    D, D_prime = prepare(D), prepare(D_prime)
    diag_d, diag_dp = np.diag(D.gram).copy(), np.diag(D_prime.gram).copy()

    def score(published: dict) -> float:
        w = float(published["facts"]["bingham_weight"])
        v = np.asarray(published["components"], dtype=float)[:, 0]
        energy = v**2
        return float(w * energy @ (diag_dp - diag_d) - _log_normaliser(w, diag_dp) + _log_normaliser(w, diag_d))

    def threshold(published: dict, trials: int, confidence: float) -> float:
        w = float(published["facts"]["bingham_weight"])
        return best_log_density_threshold(w, diag_d, diag_dp, trials, confidence)

    return AuditDesign(D, D_prime, 1, score, LOG_DENSITY_STATISTIC, threshold=threshold,
                       note=f"the released vector's exact log-density ratio (canary e1, a background of squared "
                            f"norm {mass:.2g} along e1)")


__all__ = ["describe_statistic", "design_for", "local_message_design", "log_density_design", "LOCAL_STATISTIC",
           "LOG_DENSITY_STATISTIC"]

"""Empirical privacy audit: a lower bound on epsilon from a distinguishing test on neighbouring datasets.

For neighbouring D, D' and any test that flags "D'", an (epsilon, delta)-DP mechanism must satisfy
    P_D'[flag] <= e^eps P_D[flag] + delta   and   P_D[not flag] <= e^eps P_D'[not flag] + delta
(Kairouz, Oh & Viswanath 2015, hypothesis-testing view). With Clopper-Pearson bounds on the two error rates
this gives a lower bound on epsilon that holds with the stated confidence (Jagielski, Ullman & Oprea 2020).
The threshold of the test is chosen on one half of the trials and evaluated on the other half, so the
bound is not biased by the choice.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import beta as beta_dist

from .api import run
from .prepare import prepare
from .privacy import check_neighbors
from .registry import get_mechanism
from .validation import as_generator, check_int_range

STATISTICS = ("subspace_energy", "psd_support")


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    ``scores_d`` / ``scores_d_prime`` are the test statistic on the evaluation half for D (with the row u) and
    D' (its neighbour); larger values point to D'. ``roc`` holds (false positive rate, true positive rate)
    arrays over thresholds on the evaluation half.
    """

    mechanism: str
    epsilon_claimed: float
    delta_claimed: float
    epsilon_lower: float
    delta_lower: float
    violated: bool
    statistic: str
    trials: int
    seconds: float
    neighbors: str
    threshold: float
    false_positive_rate: float
    false_negative_rate: float
    confidence: float
    scores_d: np.ndarray = field(repr=False)
    scores_d_prime: np.ndarray = field(repr=False)
    roc: tuple = field(repr=False)

    def verdict(self) -> str:
        """The result in plain words."""
        if self.violated:
            return (f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not "
                    f"({self.epsilon_claimed:g}, {self.delta_claimed:g})-DP. The test separates the neighbours so "
                    f"well that epsilon must be at least {self.epsilon_lower:.3g}"
                    + (f", or delta at least {self.delta_lower:.3g} at the claimed epsilon." if self.delta_lower > 0
                       else "."))
        return (f"No violation found: the empirical lower bound epsilon >= {self.epsilon_lower:.3g} is within the "
                f"claimed epsilon = {self.epsilon_claimed:g}. An audit can refute a claim but never prove one.")


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion."""
    alpha = 1.0 - confidence
    lo = 0.0 if successes == 0 else beta_dist.ppf(alpha / 2, successes, trials - successes + 1)
    hi = 1.0 if successes == trials else beta_dist.ppf(1 - alpha / 2, successes + 1, trials - successes)
    return float(lo), float(hi)


def epsilon_lower_bound(fpr_hi: float, fnr_hi: float, delta: float) -> float:
    """Largest epsilon the two (upper-bounded) error rates force, 0 if none."""
    bounds = [0.0]
    for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
        numerator = 1.0 - delta - a
        if numerator > 0:
            bounds.append(math.inf if b <= 0 else math.log(numerator / b))
    return max(bounds)


def _neighbouring_data(d: int, n: int, neighbors: str, statistic: str):
    """D holds u = e1 and n-1 zero rows; D' replaces u by e2 (or 0 for the PSD test) or removes it."""
    base = np.zeros((n - 1, d))
    u = np.eye(d)[0]
    D = np.vstack([base, u])
    if neighbors == "add_remove":
        D_prime = base
    else:
        D_prime = np.vstack([base, np.eye(d)[1] if statistic == "subspace_energy" else np.zeros(d)])
    return D, D_prime, u


def _score(statistic: str, release, u: np.ndarray, gram_d: np.ndarray) -> float:
    if statistic == "subspace_energy":
        # energy of the released subspace along the row that only D contains: low under D'
        return -float(np.sum((release.components.T @ u) ** 2))
    if release.eigenvalues is None or release.components.shape[1] != release.components.shape[0]:
        raise ValueError("the psd_support test needs the full spectrum: run with k = d on a mechanism that "
                         "releases eigenvalues.")
    Y = (release.components * release.eigenvalues) @ release.components.T
    # ALGORITHMS.md §6.3: Y - A_D has a negative eigenvalue only if D' produced Y (for PSD noise)
    return -float(np.linalg.eigvalsh(Y - gram_d).min())


def _error_rates(scores_d, scores_dp, threshold):
    fpr = float(np.mean(scores_d > threshold))  # flag D' although the data were D
    fnr = float(np.mean(scores_dp <= threshold))  # miss D'
    return fpr, fnr


def _best_threshold(scores_d, scores_dp, delta, trials, confidence):
    candidates = np.unique(np.concatenate([scores_d, scores_dp]))
    best, best_eps = candidates[0], -1.0
    for t in candidates:
        fpr, fnr = _error_rates(scores_d, scores_dp, t)
        _, fpr_hi = clopper_pearson(int(round(fpr * trials)), trials, confidence)
        _, fnr_hi = clopper_pearson(int(round(fnr * trials)), trials, confidence)
        eps = epsilon_lower_bound(fpr_hi, fnr_hi, delta)
        if eps > best_eps:
            best, best_eps = t, eps
    return float(best)


def _roc(scores_d, scores_dp):
    thresholds = np.unique(np.concatenate([scores_d, scores_dp, [-np.inf]]))[::-1]
    fpr = np.array([np.mean(scores_d > t) for t in thresholds])
    tpr = np.array([np.mean(scores_dp > t) for t in thresholds])
    return fpr, tpr


def audit(mechanism: str, epsilon: float, delta: float = 1e-6, neighbors: str = "replace", trials: int = 1000,
          seed=0, statistic: str | None = None, d: int = 3, n: int = 20, k: int | None = None,
          confidence: float = 0.95, progress=None, **params) -> AuditResult:
    """Audit a mechanism's privacy claim empirically.

    Parameters
    ----------
    mechanism : str
        Registry name.
    epsilon, delta : float
        The claim to audit (delta is ignored by pure mechanisms).
    neighbors : {"replace", "add_remove"}
    trials : int
        Runs on each of D and D'; half choose the threshold, half evaluate it.
    statistic : {"subspace_energy", "psd_support"}, optional
        "subspace_energy": energy of the released subspace along the differing row (any mechanism);
        "psd_support": whether Y - X_D^T X_D has a negative eigenvalue, for mechanisms that release the whole
        spectrum with k = d (the attack on PSD noise, ALGORITHMS.md §6.3). Default: psd_support for
        retracted mechanisms, else subspace_energy.
    d, n, k : int
        Dimension, rows and components of the synthetic neighbouring datasets (k defaults to 1, or d for the
        PSD test).
    confidence : float
        Confidence of each Clopper-Pearson bound.
    progress : callable(fraction), optional
        Called as trials complete.
    **params
        Mechanism parameters.
    """
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    trials = check_int_range(trials, "trials", 20, 10**6)
    d = check_int_range(d, "d", 2, 200)
    n = check_int_range(n, "n", 4, 10**6)
    statistic = statistic or ("psd_support" if spec.guarantee == "retracted" else "subspace_energy")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic={statistic!r} is not known; choose one of {list(STATISTICS)}.")
    k = k if k is not None else (d if statistic == "psd_support" else 1)
    rng = as_generator(seed)
    D, D_prime, u = _neighbouring_data(d, n, neighbors, statistic)
    prepared = {"D": prepare(D), "D'": prepare(D_prime)}
    gram_d = prepared["D"].gram
    start = time.perf_counter()
    scores = {"D": np.empty(trials), "D'": np.empty(trials)}
    for i in range(trials):
        for name in ("D", "D'"):
            release = run(mechanism, prepared[name], k, epsilon, delta, neighbors, seed=rng, **params)
            scores[name][i] = _score(statistic, release, u, gram_d)
        if progress is not None and (i + 1) % max(1, trials // 50) == 0:
            progress((i + 1) / trials)
    half = trials // 2
    claimed_delta = delta if spec.uses_delta else 0.0
    threshold = _best_threshold(scores["D"][:half], scores["D'"][:half], claimed_delta, half, confidence)
    evaluation_d, evaluation_dp = scores["D"][half:], scores["D'"][half:]
    m = evaluation_d.size
    fpr, fnr = _error_rates(evaluation_d, evaluation_dp, threshold)
    _, fpr_hi = clopper_pearson(int(round(fpr * m)), m, confidence)
    _, fnr_hi = clopper_pearson(int(round(fnr * m)), m, confidence)
    eps_lower = epsilon_lower_bound(fpr_hi, fnr_hi, claimed_delta)
    delta_lower = max(0.0, 1.0 - fnr_hi - math.exp(epsilon) * fpr_hi, 1.0 - fpr_hi - math.exp(epsilon) * fnr_hi)
    violated = eps_lower > epsilon or delta_lower > claimed_delta
    return AuditResult(
        mechanism=mechanism, epsilon_claimed=float(epsilon), delta_claimed=float(claimed_delta),
        epsilon_lower=float(eps_lower), delta_lower=float(delta_lower), violated=bool(violated),
        statistic=statistic, trials=trials, seconds=time.perf_counter() - start, neighbors=neighbors,
        threshold=threshold, false_positive_rate=fpr, false_negative_rate=fnr, confidence=confidence,
        scores_d=evaluation_d, scores_d_prime=evaluation_dp, roc=_roc(evaluation_d, evaluation_dp),
    )

"""Audit design for the tensor mechanisms: worst-case neighbours and the likelihood-ratio test on the moments.

With K = d the published release determines the noisy moments exactly: M2^ = U diag(lam) U^T from the
published eigenpairs of the noisy M2, and M3^ = T(V, V, V) with V = W^-1 from the published whitening W and
projected tensor T = M3^(W, W, W). Both are the true moments plus noise on their unique coordinates, so the
log-likelihood ratio of D' against D is linear in them:

    score = <upper(M2^), upper(M2_D' - M2_D)> / sd2^2 + <unique(M3^), unique(M3_D' - M3_D)> / sd3^2

with the per-coordinate noise s.d. sd2, sd3 the release states in its facts. For Gaussian noise this is the
test the composed GDP guarantee is tight for, so a mechanism that adds less noise than it claims is refuted.
For AVN (l2 K-norm noise on M3, a pure stage) the M3 term is the exact log-density ratio, and the test's
threshold is fixed in advance from the score's exact law (:func:`knorm_threshold`).
"""

from __future__ import annotations

import math

import numpy as np

from ..audit.design import AuditDesign
from ..privacy import gaussian_mu
from .calibration import m2_sensitivity, m3_sensitivity, split_budget
from .moments import Documents, prepare_tensor_input
from .symmetric import multilinear, to_unique, to_upper

STATISTIC = "moment_likelihood_ratio"


def reconstruct_moments(published: dict) -> tuple[np.ndarray, np.ndarray]:
    """The noisy (M2, M3) a release with K = d determines, in the units of the moments."""
    U = np.asarray(published["outputs"]["m2_eigenvectors"], dtype=float)
    lam = np.asarray(published["outputs"]["m2_eigenvalues"], dtype=float)
    W = np.asarray(published["outputs"]["whitening"], dtype=float)
    T = np.asarray(published["outputs"]["whitened_tensor"], dtype=float)
    if W.shape[0] != W.shape[1]:
        raise ValueError("the moments can be rebuilt only from a release with K = d components.")
    return (U * lam) @ U.T, multilinear(T, np.linalg.inv(W))


#: Parameters the mixture design runs with: sigma2 = 0, the edge of the declared domain where the third-moment
#: sensitivity bound 2/n is reached (by x = e1 against -e1), and 95% of the budget on M3 (split = 0.05), whose
#: bound that canary reaches; the M2 stage, which no single pair can load at the same time, then adds little to
#: the composed curve (exact epsilon 0.95 at a claim of (1, 1e-5), against 0.69 at the paper's equal split).
MOG_AUDIT_PARAMS = {"sigma2": 0.0, "split": 0.05}


def _mog_canary(d: int, s2: float, mu2: float, mu3: float) -> np.ndarray:
    """Unit y (in the span of e1, e2) replacing x = e1 that maximises the composed separation
    (mu2 ||d upper(M2)|| / Delta2)^2 + (mu3 ||d unique(M3)|| / Delta3)^2 of the two noisy moments, for stage
    GDP parameters mu2, mu3 (each stage's noise s.d. is Delta / mu)."""
    from .moments import mog_moments

    base = np.zeros((1, d))
    c2, c3 = m2_sensitivity(1), m3_sensitivity("mog", 1, d, s2)
    x = np.zeros(d)
    x[0] = 1.0
    u2x, u3x = mog_moments(np.vstack([x, base]), s2)
    best, best_val = None, -1.0
    for theta in np.linspace(0.0, 2.0 * math.pi, 721)[1:-1]:
        y = np.zeros(d)
        y[0], y[1] = math.cos(theta), math.sin(theta)
        u2y, u3y = mog_moments(np.vstack([y, base]), s2)
        val = (mu2 * np.linalg.norm(u2y - u2x) / c2) ** 2 + (mu3 * np.linalg.norm(u3y - u3x) / c3) ** 2
        if val > best_val:
            best, best_val = y, val
    return best


def tensor_audit_design(
    d: int, n: int, neighbors: str, statistic: str, model: str = "mog", epsilon: float = 1.0, delta: float = 1e-5, **_
) -> AuditDesign:
    """Neighbouring inputs and the moment likelihood-ratio score (the ``audit_design`` registry hook).

    Mixture: run at :data:`MOG_AUDIT_PARAMS` (any parameters the guarantee covers may be audited; these are
    where its proof is tight); D holds the canary e1 in row 0 and n - 1 zero rows, D' replaces it
    by the unit vector that maximises the composed separation of the two noisy moments at the claim's stage
    budgets (:func:`_mog_canary`). Topic model: D's document 0 is (0, 0, 0), D' makes it (1, 1, 1); the other
    documents repeat word i mod d. Either way row 0 is in the first site. The score reads the actual sigma2 and
    noise scales from the release: for Gaussian noise it is the exact log-likelihood ratio; for AVN's l2 K-norm
    noise on M3 (density exp(-beta ||b||)) the M3 term is beta (||m3 - u3_D|| - ||m3 - u3_D'||), also exact.
    """
    if neighbors != "replace":
        raise ValueError(
            "the tensor mechanisms are defined for replace-one neighbours (n public); audit them "
            "with neighbors='replace'."
        )
    if statistic not in ("auto", STATISTIC):
        raise ValueError(
            f"the tensor mechanisms are audited with their own statistic ({STATISTIC!r}); use " "statistic='auto'."
        )
    params = {}
    if model == "mog":
        params = dict(MOG_AUDIT_PARAMS)
        eps1, d1, eps2, d2 = split_budget(epsilon, delta, params["split"])
        base = np.zeros((n - 1, d))
        x = np.zeros(d)
        x[0] = 1.0
        y = _mog_canary(d, params["sigma2"], gaussian_mu(eps1, d1), gaussian_mu(eps2, d2))
        D, D_prime = (prepare_tensor_input(np.vstack([v, base])) for v in (x, y))
    elif model == "stm":
        words = np.repeat((np.arange(n) % d)[:, None], 3, axis=1)
        words_prime = words.copy()
        words[0], words_prime[0] = 0, 1
        D, D_prime = prepare_tensor_input(Documents(words, d)), prepare_tensor_input(Documents(words_prime, d))
    else:
        raise ValueError(f"unknown model {model!r}; use 'mog' or 'stm'.")

    def score(published: dict) -> float:
        s2 = float(published["parameters"].get("sigma2", 0.0))
        u2, u3 = D.moments(sigma2=s2)
        u2p, u3p = D_prime.moments(sigma2=s2)
        M2, M3 = reconstruct_moments(published)
        facts = published["facts"]  # noise scales are public facts (absent for the non-private reference)
        m2_term = to_upper(M2) @ (u2p - u2) / facts.get("m2_noise_sd", 1.0) ** 2
        m3 = to_unique(M3)
        if "m3_rate_beta" in facts:  # l2 K-norm noise: exact log-density ratio
            m3_term = facts["m3_rate_beta"] * (np.linalg.norm(m3 - u3) - np.linalg.norm(m3 - u3p))
        else:
            m3_term = m3 @ (u3p - u3) / facts.get("m3_noise_sd", 1.0) ** 2
        return float(m2_term + m3_term)

    def threshold(published: dict, trials: int, confidence: float) -> float | None:
        facts = published["facts"]
        if "m3_rate_beta" not in facts:  # Gaussian stages: chosen on the selection trials (the GDP reading)
            return None
        s2 = float(published["parameters"].get("sigma2", 0.0))
        (u2, u3), (u2p, u3p) = D.moments(sigma2=s2), D_prime.moments(sigma2=s2)
        return knorm_threshold(
            u2p - u2, float(facts["m2_noise_sd"]), u3p - u3, float(facts["m3_rate_beta"]), trials, confidence
        )

    return AuditDesign(
        D,
        D_prime,
        d,
        score,
        STATISTIC,
        params=params,
        threshold=threshold,
        note="the noisy moments the release determines (K = d), canary at the edge of the domain",
    )


#: Draws of the exact law of the score that fix AVN's threshold (a fixed seed: the choice depends on public
#: quantities only, never on the audit's trials).
KNORM_LAW_DRAWS = 400_000


def knorm_threshold(
    change2: np.ndarray, sd2: float, change3: np.ndarray, beta: float, trials: int, confidence: float
) -> float:
    """AVN's threshold, fixed in advance: the one whose test gives the largest expected distribution-free bound with
    ``trials`` evaluations, from the exact law of the score on D and D'.

    The score is a Gaussian M2 term, N(+-||change2||^2 / (2 sd2^2) about a common centre, ||change2|| / sd2), plus
    the M3 term beta (||z|| - ||z - change3||) on D and beta (||z + change3|| - ||z||) on D', with z the l2 K-norm
    noise (uniform direction, radius Gamma(m, rate beta)); drawn :data:`KNORM_LAW_DRAWS` times. A pure stage's loss
    reaches epsilon2 only in a tail, so the best threshold is there; fixing it from the law, every trial evaluates
    it (no quarter of the trials spent on choosing it, and no choice fitted to a few tail trials).
    """
    from ..audit.bounds import bounds

    rng = np.random.default_rng(20261127)
    m = change3.size
    z = rng.standard_normal((KNORM_LAW_DRAWS, m))
    z *= rng.gamma(m, 1.0 / beta, KNORM_LAW_DRAWS)[:, None] / np.linalg.norm(z, axis=1, keepdims=True)
    spread2 = float(np.linalg.norm(change2)) / sd2
    gauss = spread2 * rng.standard_normal(KNORM_LAW_DRAWS)
    on_d = gauss - spread2**2 / 2 + beta * (np.linalg.norm(z, axis=1) - np.linalg.norm(z - change3, axis=1))
    on_dp = gauss + spread2**2 / 2 + beta * (np.linalg.norm(z + change3, axis=1) - np.linalg.norm(z, axis=1))
    candidates = np.quantile(on_d, np.linspace(0.5, 0.999, 500))
    sorted_d, sorted_dp = np.sort(on_d), np.sort(on_dp)
    false_pos = (1.0 - np.searchsorted(sorted_d, candidates, side="right") / KNORM_LAW_DRAWS) * trials
    false_neg = np.searchsorted(sorted_dp, candidates, side="right") / KNORM_LAW_DRAWS * trials
    headline = bounds(np.round(false_pos), np.round(false_neg), trials, 0.0, confidence, False)[0]
    return float(candidates[int(np.argmax(headline))])


def stm_audit_design(d: int, n: int, neighbors: str, statistic: str, **budget) -> AuditDesign:
    """:func:`tensor_audit_design` on topic-model documents (swap it into a spec to audit the topic model)."""
    return tensor_audit_design(d, n, neighbors, statistic, model="stm", **budget)


__all__ = ["knorm_threshold", "reconstruct_moments", "tensor_audit_design", "stm_audit_design", "STATISTIC"]

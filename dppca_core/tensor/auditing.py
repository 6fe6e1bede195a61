"""Audit design for the tensor mechanisms: worst-case neighbours and the likelihood-ratio test on the moments.

With K = d the published release determines the noisy moments exactly: M2^ = U diag(lam) U^T from the
published eigenpairs of the noisy M2, and M3^ = T(V, V, V) with V = W^-1 from the published whitening W and
projected tensor T = M3^(W, W, W). Both are the true moments plus noise on their unique coordinates, so the
log-likelihood ratio of D' against D is linear in them:

    score = <upper(M2^), upper(M2_D' - M2_D)> / sd2^2 + <unique(M3^), unique(M3_D' - M3_D)> / sd3^2

with the per-coordinate noise s.d. sd2, sd3 the release states in its facts. For Gaussian noise this is the
test the composed GDP guarantee is tight for, so a mechanism that adds less noise than it claims is refuted.
"""
from __future__ import annotations

import math

import numpy as np

from ..audit import AuditDesign
from .calibration import m2_sensitivity, m3_sensitivity
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


def _mog_canary(d: int, s2: float) -> np.ndarray:
    """Unit y (in the span of e1, e2) replacing x = e1 that maximises the composed signal-to-noise
    (||d upper(M2)|| / Delta2)^2 + (||d unique(M3)|| / Delta3)^2 at an equal budget split."""
    base = np.zeros((1, d))
    best, best_val = None, -1.0
    c2, c3 = m2_sensitivity(1), m3_sensitivity("mog", 1, d, s2)
    from .moments import mog_moments

    x = np.zeros(d)
    x[0] = 1.0
    u2x, u3x = mog_moments(np.vstack([x, base]), s2)
    for theta in np.linspace(0.0, 2.0 * math.pi, 361)[1:-1]:
        y = np.zeros(d)
        y[0], y[1] = math.cos(theta), math.sin(theta)
        u2y, u3y = mog_moments(np.vstack([y, base]), s2)
        val = (np.linalg.norm(u2y - u2x) / c2) ** 2 + (np.linalg.norm(u3y - u3x) / c3) ** 2
        if val > best_val:
            best, best_val = y, val
    return best


def tensor_audit_design(d: int, n: int, neighbors: str, statistic: str, model: str = "mog",
                        sigma2: float = 0.05) -> AuditDesign:
    """Neighbouring inputs and the moment likelihood-ratio score (the ``audit_design`` registry hook).

    Mixture: D holds the canary e1 in row 0 and n - 1 zero rows, D' replaces it by the unit vector that
    maximises the composed signal for the default sigma2 (0.05) and budget split. Topic model: D's document 0
    is (0, 0, 0), D' makes it (1, 1, 1); the other documents repeat word i mod d. Either way row 0 is in the
    first site. The score reads the actual sigma2 and noise scales from the release.
    """
    if neighbors != "replace":
        raise ValueError("the tensor mechanisms are defined for replace-one neighbours (n public); audit them "
                         "with neighbors='replace'.")
    if statistic not in ("auto", STATISTIC):
        raise ValueError(f"the tensor mechanisms are audited with their own statistic ({STATISTIC!r}); use "
                         "statistic='auto'.")
    if model == "mog":
        base = np.zeros((n - 1, d))
        x = np.zeros(d)
        x[0] = 1.0
        y = _mog_canary(d, sigma2)
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
        return float(to_upper(M2) @ (u2p - u2) / facts.get("m2_noise_sd", 1.0) ** 2
                     + to_unique(M3) @ (u3p - u3) / facts.get("m3_noise_sd", 1.0) ** 2)

    return AuditDesign(D, D_prime, d, score, STATISTIC)


def stm_audit_design(d: int, n: int, neighbors: str, statistic: str) -> AuditDesign:
    """:func:`tensor_audit_design` on topic-model documents (swap it into a spec to audit the topic model)."""
    return tensor_audit_design(d, n, neighbors, statistic, model="stm")


__all__ = ["reconstruct_moments", "tensor_audit_design", "stm_audit_design", "STATISTIC"]

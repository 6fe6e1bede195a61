"""Fantope projection and the ADMM solver of sparse PCA (Vu, Cho, Lei & Rohe 2013)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq


def fantope_projection(W: np.ndarray, k: int) -> np.ndarray:
    """Frobenius projection of a symmetric W onto F^k = {0 <= X <= I, tr X = k}.

    With W = sum gamma_i u_i u_i^T the projection is sum min(max(gamma_i - theta, 0), 1) u_i u_i^T where
    theta solves sum_i min(max(gamma_i - theta, 0), 1) = k (Vu et al. 2013, Lemma 4.1).
    """
    if k >= W.shape[0]:
        return np.eye(W.shape[0])  # F^d = {I}
    gamma, U = np.linalg.eigh((W + W.T) / 2.0)

    def excess(theta):
        return np.clip(gamma - theta, 0.0, 1.0).sum() - k

    theta = brentq(excess, gamma.min() - 1.0, gamma.max(), xtol=1e-12)
    weights = np.clip(gamma - theta, 0.0, 1.0)
    return (U * weights) @ U.T


def soft_threshold(X: np.ndarray, level: float) -> np.ndarray:
    return np.sign(X) * np.maximum(np.abs(X) - level, 0.0)


def fantope_l1_admm(
    S: np.ndarray, k: int, penalty: float, rho: float = 1.0, max_iter: int = 300, tol: float = 1e-4
) -> tuple[np.ndarray, dict]:
    """Solve max <S, X> - penalty ||X||_1 over the Fantope F^k by ADMM (Vu et al. 2013; Wang & Xu Algorithm 2).

    Residual balancing: rho is doubled / halved when the primal / dual residual ratio exceeds 10.
    Returns the sparse iterate Y and diagnostics (iterations, residuals, converged).
    """
    d = S.shape[0]
    Y = np.zeros((d, d))
    U = np.zeros((d, d))
    scale = max(1.0, np.linalg.norm(S))
    converged = False
    for it in range(1, max_iter + 1):
        X = fantope_projection(Y - U + S / rho, k)
        Y_new = soft_threshold(X + U, penalty / rho)
        primal = np.linalg.norm(X - Y_new)
        dual = rho * np.linalg.norm(Y_new - Y)
        U += X - Y_new
        Y = Y_new
        if primal < tol * scale and dual < tol * scale:
            converged = True
            break
        if primal > 10 * dual:
            rho *= 2.0
            U /= 2.0
        elif dual > 10 * primal:
            rho /= 2.0
            U *= 2.0
    return Y, {
        "admm_iterations": it,
        "primal_residual": float(primal),
        "dual_residual": float(dual),
        "converged": converged,
        "rho": rho,
    }

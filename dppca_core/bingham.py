"""Exact sampling from the Bingham distribution on the sphere, and a Gibbs sampler on the Stiefel manifold.

Vector Bingham: f(x) ∝ exp(x^T C x) on S^{q-1}, sampled exactly by rejection from an angular central
Gaussian envelope (Kent, Ganeiber & Mardia 2013, arXiv:1310.8110; ALGORITHMS.md §2.3.1).
Matrix Bingham: p(V) ∝ etr(V^T B V) on the Stiefel manifold V_{d,k}, sampled column by column
(Hoff 2009, JCGS; ALGORITHMS.md §2.3.2): approximate for a finite number of sweeps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from .linalg import random_orthonormal


@dataclass(frozen=True)
class BinghamSample:
    """A sample and the number of proposals it took (acceptance rate = 1 / attempts on average)."""

    x: np.ndarray
    attempts: int


def _envelope(lam: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Optimal ACG envelope for f ∝ exp(-x^T diag(lam) x), lam >= 0 with min 0.

    b solves sum_i 1/(b + 2 lam_i) = 1 on (0, q]; Omega = I + 2 Lambda / b; log M* = -(q - b)/2 + (q/2) ln(q/b).
    """
    q = lam.size
    if np.all(lam == 0):
        b = float(q)
    else:
        b = brentq(lambda t: np.sum(1.0 / (t + 2.0 * lam)) - 1.0, 1e-300, q, xtol=1e-14, rtol=1e-14)
    omega = 1.0 + 2.0 * lam / b
    log_m = -(q - b) / 2.0 + (q / 2.0) * np.log(q / b)
    return b, omega, log_m


def sample_vector_bingham(C: np.ndarray, rng: np.random.Generator, *, batch: int = 64,
                          max_attempts: int = 1_000_000) -> BinghamSample:
    """One exact draw from f(x) ∝ exp(x^T C x) on the unit sphere (C symmetric).

    Works for any concentration (all computations in log space); the acceptance probability is bounded
    below (about 0.12 even at concentrations of 1e6, ALGORITHMS.md §2.3.1).
    """
    C = np.asarray(C, dtype=float)
    q = C.shape[0]
    if q == 1:
        return BinghamSample(np.array([rng.choice([-1.0, 1.0])]), 1)
    mu, vecs = np.linalg.eigh((C + C.T) / 2.0)
    lam = mu.max() - mu  # f ∝ exp(-x^T Lambda x) in the eigenbasis, min lam = 0
    _, omega, log_m = _envelope(lam)
    scale = 1.0 / np.sqrt(omega)
    attempts = 0
    while attempts < max_attempts:
        y = rng.standard_normal((batch, q)) * scale
        x = y / np.linalg.norm(y, axis=1, keepdims=True)
        log_u = np.log(rng.uniform(size=batch))
        # accept with density ratio exp(-x'Λx) (x'Ωx)^{q/2} / M*  (NOT its inverse)
        log_ratio = -np.sum(lam * x**2, axis=1) - log_m + (q / 2.0) * np.log(np.sum(omega * x**2, axis=1))
        accepted = np.flatnonzero(log_u < log_ratio)
        if accepted.size:
            first = accepted[0]
            return BinghamSample(vecs @ x[first], attempts + first + 1)
        attempts += batch
    raise RuntimeError(f"Bingham sampler made {max_attempts} proposals without acceptance; this should not happen.")


def sample_matrix_bingham(B: np.ndarray, k: int, rng: np.random.Generator, sweeps: int = 200,
                          init: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """Hoff's column-wise Gibbs sampler for p(V) ∝ etr(V^T B V), V in V_{d,k}.

    Each column is redrawn from its exact full conditional: a vector Bingham on the unit sphere of the
    orthogonal complement of the other columns. Returns V and diagnostics (trace of tr(V^T B V) per sweep,
    proposals per accepted draw).
    """
    B = (np.asarray(B, dtype=float) + np.asarray(B, dtype=float).T) / 2.0
    d = B.shape[0]
    V = random_orthonormal(d, k, rng) if init is None else np.array(init, dtype=float)
    trace, attempts, draws = [], 0, 0
    for _ in range(sweeps):
        for j in rng.permutation(k):
            others = np.delete(V, j, axis=1)
            N = _complement_basis(others, d)
            sample = sample_vector_bingham(N.T @ B @ N, rng)
            V[:, j] = N @ sample.x
            attempts += sample.attempts
            draws += 1
        trace.append(float(np.trace(V.T @ B @ V)))
    return V, {"trace": trace, "acceptance_rate": draws / max(attempts, 1), "sweeps": sweeps}


def _complement_basis(others: np.ndarray, d: int) -> np.ndarray:
    """Orthonormal basis (d x (d - m)) of the orthogonal complement of the m columns of ``others``."""
    if others.shape[1] == 0:
        return np.eye(d)
    Q, _ = np.linalg.qr(np.hstack([others, np.eye(d)]))
    return Q[:, others.shape[1]:d]

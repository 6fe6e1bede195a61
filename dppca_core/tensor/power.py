"""Whitening and the robust tensor power method (Anandkumar, Ge, Hsu, Kakade & Telgarsky, JMLR 2014, Alg. 1).

For a latent-variable model with M2 = sum_k w_k a_k a_k^T and M3 = sum_k w_k a_k (x) a_k (x) a_k (a_k linearly
independent, w_k > 0), let M2 = U diag(lam) U^T be its rank-K eigendecomposition and W = U diag(lam)^(-1/2).
Then W^T M2 W = I, so the vectors v_k = sqrt(w_k) W^T a_k are orthonormal and
M3(W, W, W) = sum_k w_k^(-1/2) v_k (x) v_k (x) v_k is an orthogonally decomposable K x K x K tensor. The power
method finds its eigenpairs (theta_k, l_k) = (v_k, 1 / sqrt(w_k)); then w_k = 1 / l_k^2 and
a_k = l_k U diag(lam)^(1/2) theta_k (U diag(lam)^(1/2) is the pseudo-inverse of W^T).

Everything here is post-processing of the (private) moments; its randomness (restarts) comes from the
caller's generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import top_eigenvectors
from .symmetric import apply_vector, cubic_form, multilinear

#: Eigenvalues of the noisy M2 below this fraction of the largest magnitude are raised to it before whitening.
EIGENVALUE_FLOOR = 1e-10


@dataclass(frozen=True)
class Whitening:
    """W (d x K) with W^T M2 W = diag(sign(lam)), the eigenpairs it came from, and B = pinv(W^T)."""

    W: np.ndarray
    U: np.ndarray
    eigenvalues: np.ndarray
    B: np.ndarray


def whiten(M2: np.ndarray, K: int) -> Whitening:
    """Whitening from the K largest eigenvalues of a symmetric matrix.

    A noisy M2 can have top eigenvalues that are negative or near zero; their magnitudes (floored at
    ``EIGENVALUE_FLOOR`` times the largest) are used, so the map stays defined. Such a whitening no longer
    makes the components orthogonal and the recovery degrades, as it should when the noise dominates.
    """
    values, U = top_eigenvectors(M2, K)
    scale = np.max(np.abs(values)) if values.size else 0.0
    mags = np.maximum(np.abs(values), max(scale * EIGENVALUE_FLOOR, 1e-300))
    return Whitening(W=U / np.sqrt(mags), U=U, eigenvalues=values, B=U * np.sqrt(mags))


def tensor_power_method(
    T: np.ndarray, K: int, rng: np.random.Generator, restarts: int = 20, iterations: int = 30
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of a symmetric K x K x K tensor by power iterations with restarts and deflation.

    For each of the K components: ``restarts`` starts drawn uniformly on the sphere are iterated
    theta <- T(I, theta, theta) / ||T(I, theta, theta)|| ``iterations`` times (all starts at once); the one with the
    largest T(theta, theta, theta) is iterated ``iterations`` more times, its eigenvalue l = T(theta, theta, theta)
    recorded, and l theta (x) theta (x) theta subtracted from T. The sign is fixed so that l >= 0.

    Returns (eigenvalues (K,), eigenvectors (K x K, one per column)).
    """
    T = np.array(T, dtype=float)
    k = T.shape[0]
    if T.shape != (k, k, k):
        raise ValueError(f"the tensor must be k x k x k (got shape {T.shape}).")
    if not 1 <= K <= k:
        raise ValueError(f"K = {K} components cannot be extracted from a {k} x {k} x {k} tensor.")
    lams, vecs = np.zeros(K), np.zeros((k, K))
    for comp in range(K):
        theta = rng.standard_normal((restarts, k))
        theta /= np.linalg.norm(theta, axis=1, keepdims=True)
        theta = _iterate(T, theta, iterations)
        best = theta[int(np.argmax(cubic_form(T, theta)))][None, :]
        best = _iterate(T, best, iterations)[0]
        lam = float(cubic_form(T, best))
        if lam < 0:
            best, lam = -best, -lam
        lams[comp], vecs[:, comp] = lam, best
        T = T - lam * np.einsum("i,j,k->ijk", best, best, best)
    return lams, vecs


def _iterate(T: np.ndarray, theta: np.ndarray, iterations: int) -> np.ndarray:
    for _ in range(iterations):
        nxt = apply_vector(T, theta)
        norms = np.linalg.norm(nxt, axis=1, keepdims=True)
        # a start with T(I, theta, theta) = 0 stays where it is (it cannot be normalised)
        theta = np.where(norms > 0, nxt / np.where(norms > 0, norms, 1.0), theta)
    return theta


@dataclass(frozen=True)
class Decomposition:
    """What the decomposition of (private) moments yields; every field is post-processing of them."""

    components: np.ndarray  # d x K, a_k in the units of the moments
    weights: np.ndarray  # K, w_k = 1 / l_k^2
    tensor_eigenvalues: np.ndarray  # K, l_k
    whitening: Whitening
    whitened_tensor: np.ndarray  # K x K x K, M3(W, W, W)


def decompose(
    M2: np.ndarray,
    whitened_tensor: np.ndarray,
    whitening: Whitening,
    rng: np.random.Generator,
    restarts: int = 20,
    iterations: int = 30,
) -> Decomposition:
    """Components and weights from M2's whitening and the whitened third moment M3(W, W, W)."""
    K = whitening.W.shape[1]
    lams, thetas = tensor_power_method(whitened_tensor, K, rng, restarts, iterations)
    components = whitening.B @ (thetas * lams)
    weights = 1.0 / np.maximum(lams, 1e-150) ** 2  # l_k >= 0 after the sign fix; 0 gives a huge, finite weight
    return Decomposition(components, weights, lams, whitening, whitened_tensor)


def decompose_moments(
    M2: np.ndarray, M3: np.ndarray, K: int, rng: np.random.Generator, restarts: int = 20, iterations: int = 30
) -> Decomposition:
    """Whiten with M2, project M3 on W and run the power method (pooled data, e.g. non-private)."""
    wh = whiten(M2, K)
    return decompose(M2, multilinear(M3, wh.W), wh, rng, restarts, iterations)

"""Small linear-algebra helpers shared by the mechanisms."""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack


def top_eigenvectors(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs of a symmetric matrix, eigenvalues descending, sign-fixed columns.

    Signs are fixed so that the largest-magnitude entry of each column is positive, which
    makes outputs reproducible across LAPACK builds.
    """
    S = (S + S.T) / 2.0
    d = S.shape[0]
    vals, vecs = np.linalg.eigh(S)
    vals, vecs = vals[::-1][:k], vecs[:, ::-1][:, :k]
    return vals, fix_signs(vecs) if d else vecs


def fix_signs(V: np.ndarray) -> np.ndarray:
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs


def stacked_top_eigenvectors(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`top_eigenvectors` of every matrix of a stack (m, d, d) at once: (m, k) values, (m, d, k) vectors.

    Bit for bit what :func:`top_eigenvectors` gives each matrix: the symmetrisation and the sign fix are the same
    elementwise operations, and ``eigh`` of a stack runs LAPACK on each matrix alone (tested).
    """
    S = (S + np.swapaxes(S, -1, -2)) / 2.0
    vals, vecs = np.linalg.eigh(S)
    vals, vecs = vals[:, ::-1][:, :k], vecs[:, :, ::-1][:, :, :k]
    if S.shape[-1] == 0:
        return vals, vecs
    idx = np.argmax(np.abs(vecs), axis=1)
    signs = np.sign(np.take_along_axis(vecs, idx[:, None, :], axis=1))
    signs[signs == 0] = 1.0
    return vals, vecs * signs


def stacked_symmetric_gaussian(draws: np.ndarray) -> np.ndarray:
    """:func:`symmetric_gaussian` of a stack of (d, d) draws: each one's upper triangle mirrored below."""
    E = np.triu(draws)
    return E + np.swapaxes(np.triu(E, 1), -1, -2)


def thin_qr(Y: np.ndarray) -> np.ndarray:
    """Q factor of the thin QR of Y with a positive diagonal of R (unique).

    LAPACK's dgeqrf/dorgqr directly (what ``np.linalg.qr`` calls, same result to the last bit) when Y is a tall
    float matrix: a noisy power method takes one QR per iteration of a small d x p matrix, where numpy's
    wrapper costs three times the factorisation itself.
    """
    Y = np.asarray(Y)
    if Y.ndim == 2 and Y.dtype == np.float64 and Y.shape[0] >= Y.shape[1] >= 1:
        qr, tau, _, info = lapack.dgeqrf(Y)
        if info == 0:
            signs = np.sign(qr.diagonal())
            Q, _, info = lapack.dorgqr(qr, tau)
            if info == 0:
                signs[signs == 0] = 1.0
                return Q * signs
    Q, R = np.linalg.qr(Y)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def symmetric_gaussian(d: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Symmetric d x d matrix whose upper triangle (diagonal included) is i.i.d. N(0, sigma^2)."""
    E = np.triu(rng.normal(0.0, sigma, size=(d, d)))
    return E + np.triu(E, 1).T


def random_orthonormal(d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random d x k matrix with orthonormal columns (data-independent start)."""
    return thin_qr(rng.standard_normal((d, k)))

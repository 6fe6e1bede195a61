"""Utility metrics. These use the raw data or the truth as reference: diagnostics, not releases."""

from __future__ import annotations

import numpy as np


def _basis(U, name: str) -> np.ndarray:
    U = np.asarray(U, dtype=float)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2:
        raise ValueError(f"{name} must be a d x k matrix of column vectors (got shape {U.shape}).")
    return U


def _pair(U, V):
    U, V = _basis(U, "U"), _basis(V, "V")
    if U.shape[0] != V.shape[0]:
        raise ValueError(f"U and V live in different dimensions ({U.shape[0]} vs {V.shape[0]}).")
    return U, V


def orthonormalize(U) -> np.ndarray:
    """Orthonormal basis of span(U) (thin QR with a positive diagonal)."""
    Q, R = np.linalg.qr(_basis(U, "U"))
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def _sines_and_cosines(U, V):
    """Sines and cosines of the principal angles of two orthonormal bases, both accurate to rounding.

    The cosines are the singular values of U^T V and the sines those of the residual V - U (U^T V) = (I - U U^T) V
    (for k_U >= k_V; the roles swap otherwise). The residual is formed directly, so a sine of 1e-15 comes out as
    1e-15, where sqrt(1 - cos^2) would lose it to cancellation (it cannot resolve angles below ~1e-8).
    Returns (sines ascending, cosines descending), each of length min(k_U, k_V).
    """
    if U.shape[1] < V.shape[1]:
        U, V = V, U
    overlap = U.T @ V
    cos = np.linalg.svd(overlap, compute_uv=False)
    sin = np.sort(np.linalg.svd(V - U @ overlap, compute_uv=False))
    return np.clip(sin, 0.0, 1.0), np.clip(cos, 0.0, 1.0)


def principal_angles(U, V) -> np.ndarray:
    """Principal angles (radians, ascending) between span(U) and span(V), accurate for small and large angles.

    Small angles come from the sines (arcsin of the singular values of (I - U U^T) V), large ones from the cosines
    (arccos of those of U^T V), switching at 45 degrees where both are well conditioned, as
    ``scipy.linalg.subspace_angles`` does.
    """
    U, V = _pair(U, V)
    sin, cos = _sines_and_cosines(orthonormalize(U), orthonormalize(V))
    small = cos**2 >= 0.5  # angle <= 45 degrees: arcsin of the sine is the accurate one
    return np.where(small, np.arcsin(sin), np.arccos(cos))


def subspace_distance(U, V) -> float:
    """||sin Theta(U, V)||_F = ||(I - U U^T) V||_F = ||U U^T - V V^T||_F / sqrt(2) for orthonormal U, V of equal k.

    Computed from the residual (I - U U^T) V, which is accurate to machine precision (1e-16 for identical
    subspaces), not as sqrt(k - ||U^T V||_F^2), which floors at ~1e-8 by cancellation. For subspaces of different
    dimensions the projector formula ||U U^T - V V^T||_F / sqrt(2) is used as written (also exact: a difference of
    O(1) entries).
    """
    U, V = _pair(U, V)
    U, V = orthonormalize(U), orthonormalize(V)
    if U.shape[1] == V.shape[1]:
        return float(np.linalg.norm(V - U @ (U.T @ V)))
    return float(np.linalg.norm(U @ U.T - V @ V.T) / np.sqrt(2.0))


def random_subspace_distance(d: int, k: int) -> float:
    """sqrt(E ||sin Theta||_F^2) for a uniformly random k-subspace: sqrt(k (1 - k/d)).

    The 'no information' reference line.
    """
    return float(np.sqrt(k * (1.0 - k / d)))


def random_support_f1(d: int, selected: int, truth: int) -> float:
    """The expected F1 of ``selected`` of the d rows chosen at random against a support of ``truth`` rows: the chance
    level of :func:`support_recovery`. E[hits] = selected truth / d, so E[F1] = 2 E[hits] / (selected + truth) =
    2 selected truth / (d (selected + truth)) (precision truth / d, recall selected / d on average)."""
    if not (1 <= selected <= d and 1 <= truth <= d):
        raise ValueError(f"need 1 <= selected, truth <= d = {d} (got {selected}, {truth}).")
    return 2.0 * selected * truth / (d * (selected + truth))


def captured_energy(V, A) -> float:
    """tr(V^T A V): the variance of A captured by the columns of V."""
    V = _basis(V, "V")
    A = np.asarray(A, dtype=float)
    if A.shape != (V.shape[0], V.shape[0]):
        raise ValueError(f"A must be {V.shape[0]} x {V.shape[0]} (got {A.shape}).")
    return float(np.trace(V.T @ A @ V))


def captured_energy_ratio(V, A, k: int | None = None) -> float:
    """tr(V^T A V) / (sum of the k largest eigenvalues of A), 1 = optimal."""
    V = _basis(V, "V")
    k = V.shape[1] if k is None else int(k)
    eig = np.linalg.eigvalsh(np.asarray(A, dtype=float))[::-1]
    best = float(np.sum(eig[:k]))
    if best <= 0:
        raise ValueError("the best rank-k energy of A is not positive; the ratio is undefined.")
    return captured_energy(V, A) / best


def row_support(V, s: int | None = None, *, tol: float = 1e-12) -> np.ndarray:
    """Indices of the row support: the s rows of largest norm, or the non-zero rows if s is None."""
    V = _basis(V, "V")
    norms = np.linalg.norm(V, axis=1)
    if s is None:
        return np.flatnonzero(norms > tol)
    if not 1 <= s <= V.shape[0]:
        raise ValueError(f"s = {s} is out of range: choose 1 <= s <= d = {V.shape[0]}.")
    return np.sort(np.argsort(-norms, kind="stable")[:s])


def support_recovery(V, true_support, s: int | None = None) -> dict:
    """Precision, recall, F1 and exact match of V's row support against ``true_support``.

    ``true_support`` is an index array or a boolean mask of length d.
    """
    V = _basis(V, "V")
    truth = np.asarray(true_support)
    if truth.dtype == bool:
        if truth.shape != (V.shape[0],):
            raise ValueError(f"a boolean support mask must have length d = {V.shape[0]}.")
        truth = np.flatnonzero(truth)
    truth_set = set(int(i) for i in truth.ravel())
    found = set(int(i) for i in row_support(V, s))
    hits = len(truth_set & found)
    precision = hits / len(found) if found else 0.0
    recall = hits / len(truth_set) if truth_set else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "exact": found == truth_set}


def align_components(V, reference) -> np.ndarray:
    """Rotate V within its span to best match ``reference`` (orthogonal Procrustes).

    For side-by-side plots of loadings: the span is unchanged, only the basis inside it.
    """
    V, R = _pair(V, reference)
    U, _, Wt = np.linalg.svd(V.T @ R)
    return V @ (U @ Wt)

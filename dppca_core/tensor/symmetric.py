"""Symmetric matrices and third-order tensors stored by their unique entries.

Every private statistic of the tensor mechanisms lives in these coordinates: the d(d+1)/2 entries
M_ij with i <= j of a symmetric matrix and the d(d+1)(d+2)/6 entries T_ijk with i <= j <= k of a symmetric
third-order tensor. Noise is added to those coordinates and the full object is then rebuilt by mirroring,
so a released matrix or tensor is a function of noisy unique coordinates only: nothing outside them (in
particular no antisymmetric part) can reach a release.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def n_upper(d: int) -> int:
    """Number of unique entries of a symmetric d x d matrix, d(d+1)/2."""
    return d * (d + 1) // 2


def n_unique(d: int) -> int:
    """Number of unique entries of a symmetric d x d x d tensor, C(d+2, 3) = d(d+1)(d+2)/6."""
    return d * (d + 1) * (d + 2) // 6


@lru_cache(maxsize=16)
def upper_index(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices (i <= j) of the upper triangle, diagonal included, in row-major order."""
    i, j = np.triu_indices(d)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


@lru_cache(maxsize=16)
def unique_index(d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index triples (i <= j <= k) of the unique entries of a symmetric d x d x d tensor, lexicographic."""
    grid = np.indices((d, d, d)).reshape(3, -1)
    keep = (grid[0] <= grid[1]) & (grid[1] <= grid[2])
    out = tuple(np.ascontiguousarray(grid[a, keep]) for a in range(3))
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def unique_map(d: int) -> np.ndarray:
    """d x d x d array: the position, in :func:`unique_index` order, of the sorted version of (i, j, k)."""
    i, j, k = unique_index(d)
    pos = np.empty((d, d, d), dtype=np.int64)
    ids = np.arange(i.size)
    for a, b, c in ((i, j, k), (i, k, j), (j, i, k), (j, k, i), (k, i, j), (k, j, i)):
        pos[a, b, c] = ids
    pos.setflags(write=False)
    return pos


@lru_cache(maxsize=16)
def unique_multiplicity(d: int) -> np.ndarray:
    """How many entries of the full tensor each unique entry stands for (6, 3 or 1)."""
    i, j, k = unique_index(d)
    distinct = 1 + (i != j) + (j != k)
    mult = np.where(distinct == 3, 6, np.where(distinct == 2, 3, 1)).astype(float)
    mult.setflags(write=False)
    return mult


def to_upper(M: np.ndarray) -> np.ndarray:
    """Upper-triangle entries of a square matrix (the matrix is read as given; symmetrise first)."""
    i, j = upper_index(M.shape[0])
    return M[i, j]


def from_upper(values: np.ndarray, d: int) -> np.ndarray:
    """The symmetric matrix whose upper triangle holds ``values`` (mirrored below the diagonal)."""
    values = np.asarray(values, dtype=float)
    if values.shape[-1] != n_upper(d):
        raise ValueError(f"expected {n_upper(d)} upper-triangle entries for d = {d}, got {values.shape[-1]}.")
    i, j = upper_index(d)
    out = np.zeros(values.shape[:-1] + (d, d))
    out[..., i, j] = values
    out[..., j, i] = values
    return out


def to_unique(T: np.ndarray) -> np.ndarray:
    """Unique entries T_ijk, i <= j <= k, of a d x d x d tensor (read as given; symmetrise first)."""
    i, j, k = unique_index(T.shape[0])
    return T[i, j, k]


def from_unique(values: np.ndarray, d: int) -> np.ndarray:
    """The symmetric tensor whose unique entries are ``values`` (every permutation gets the same value)."""
    values = np.asarray(values, dtype=float)
    if values.shape[-1] != n_unique(d):
        raise ValueError(f"expected {n_unique(d)} unique entries for d = {d}, got {values.shape[-1]}.")
    return values[..., unique_map(d)]


def symmetrize(T: np.ndarray) -> np.ndarray:
    """Average of a third-order tensor over the six permutations of its indices (the symmetric part)."""
    return (
        T
        + T.transpose(0, 2, 1)
        + T.transpose(1, 0, 2)
        + T.transpose(1, 2, 0)
        + T.transpose(2, 0, 1)
        + T.transpose(2, 1, 0)
    ) / 6.0


def antisymmetric_norm(T: np.ndarray) -> float:
    """Frobenius norm of T minus its symmetric part (0 for a symmetric matrix or tensor)."""
    T = np.asarray(T, dtype=float)
    sym = (T + T.T) / 2.0 if T.ndim == 2 else symmetrize(T)
    return float(np.linalg.norm(T - sym))


def multilinear(T: np.ndarray, W: np.ndarray) -> np.ndarray:
    """T(W, W, W): [T(W,W,W)]_abc = sum_ijk T_ijk W_ia W_jb W_kc, for T d x d x d and W d x k."""
    out = np.tensordot(T, W, axes=([2], [0]))  # d x d x k
    out = np.tensordot(out, W, axes=([1], [0]))  # d x k x k  (axes: i, c, b)
    out = np.tensordot(W, out, axes=([0], [0]))  # k x k x k  (axes: a, c, b)
    return out.transpose(0, 2, 1)


def apply_vector(T: np.ndarray, u: np.ndarray) -> np.ndarray:
    """T(I, u, u) for a k x k x k tensor and vectors u (shape (k,) or (m, k) for m vectors at once)."""
    return np.einsum("ijk,...j,...k->...i", T, u, u)


def cubic_form(T: np.ndarray, u: np.ndarray) -> np.ndarray:
    """T(u, u, u) for vectors u (shape (k,) or (m, k))."""
    return np.einsum("...i,...i->...", apply_vector(T, u), u)


@lru_cache(maxsize=16)
def _pair_position(d: int) -> np.ndarray:
    """d x d array: position of the pair (min, max) in :func:`upper_index` order."""
    i, j = upper_index(d)
    pos = np.empty((d, d), dtype=np.int64)
    pos[i, j] = np.arange(i.size)
    pos[j, i] = np.arange(i.size)
    pos.setflags(write=False)
    return pos


def unique_from_pairs(P: np.ndarray) -> np.ndarray:
    """Unique tensor entries from a d x d(d+1)/2 array P[i, p(j, k)] (p: position of the pair j <= k) of a
    symmetric tensor: entry (i, j, k), i <= j <= k, is P[i, p(j, k)]."""
    d = P.shape[0]
    i, j, k = unique_index(d)
    return P[i, _pair_position(d)[j, k]]


def delta_unique(v: np.ndarray) -> np.ndarray:
    """Unique entries of :func:`delta_tensor` (v) without building it: 3 v_i at (i, i, i), v_k at (i, i, k) and
    v_i at (i, k, k) for i < k, 0 where all three indices differ."""
    v = np.asarray(v, dtype=float)
    i, j, k = unique_index(v.size)
    return np.where((i == j) & (j == k), 3.0 * v[i], np.where(i == j, v[k], np.where(j == k, v[i], 0.0)))


def delta_tensor(v: np.ndarray) -> np.ndarray:
    """sum_d (v x e_d x e_d + e_d x v x e_d + e_d x e_d x v): the mean correction of the mixture moments.

    Entry (i, j, k) is v_i [j = k] + v_j [i = k] + v_k [i = j]. Its unique entries are 3 v_i on the diagonal,
    v_k at (i, i, k) and v_i at (i, k, k) for i < k, and 0 elsewhere, so their l2 norm is sqrt(d + 8) ||v||.
    """
    v = np.asarray(v, dtype=float)
    d = v.size
    T = np.zeros((d, d, d))
    idx = np.arange(d)
    T[:, idx, idx] += v[:, None]
    T[idx, :, idx] += v[None, :]
    T[idx, idx, :] += v[None, :]
    return T

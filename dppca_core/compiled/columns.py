"""The passes of a release that scales its columns (:func:`dppca_core.pipeline.choices.private_column_scales`),
compiled by numba:

* :func:`clipped_square_sums` — the exact column sums of ``min(|x_ij| / b_j, 1)^2`` the private scales are read
  from, in one pass without the n x d array of squares;
* :func:`divide_columns` — ``X / scales`` into a buffer a block at a time, counting the entries of X that are not
  finite as it goes: every pass of a release over a table whose columns it scales divides each block as it reads
  it (:func:`dppca_core.data.gram.divide_block`), so the scaled table is never formed;
* :func:`divided_sq_norms` — the squared row norms of ``X / scales`` without the quotients' array, the norms a
  private radius reads (:func:`dppca_core.data.gram.divided_sq_norms`): four rows divided at a time into a small
  buffer, their sums (each in column order) interleaved;
* :func:`scale_rows` — rows times one factor each (divided by the column scales first, where there are): the
  products a prepared table's rows hold, formed a block at a time (numpy's broadcast product costs three times
  as much at d = 20);
* :func:`divided_row_sums` — the first pass's exact sums of the scaled rows ``(x_i / scales) f_i`` with the block's
  rows (divided, or divided and scaled) written for its Gram matrix, the division done once
  (:func:`dppca_core.data.first_pass.first_pass`).

All are compiled with numpy's error model: a division by zero gives inf, as numpy's does, instead of raising, so
numba checks no divisor and the divisions run in SIMD lanes. The quotients are the correctly rounded ones either
way: the same bits as numpy (tested).
"""

from __future__ import annotations

import functools

import numpy as np

from .kernels import EXACT_FLOAT_ROWS, NO_DIVISORS, compiled_row_sums, compiled_worth, fixed_point_totals
from .loops import compile_kernel, fixed_order_sq_norms


def _clipped_square_sums_kernel(X, bounds, unit, limit, out):  # pragma: no cover - compiled
    n, d = X.shape
    acc = np.empty(d)
    refused = 0
    for a in range(0, n, EXACT_FLOAT_ROWS):  # the integers summed exactly in floats (see EXACT_FLOAT_ROWS)
        for j in range(d):
            acc[j] = 0.0
        for i in range(a, min(a + EXACT_FLOAT_ROWS, n)):
            for j in range(d):
                q = abs(X[i, j]) / bounds[j]
                if q > 1.0:  # np.minimum(q, 1.0); a NaN stays NaN and is refused below
                    q = 1.0
                t = q * q
                refused += 0 if t <= limit else 1
                acc[j] += np.trunc(t * unit)
        for j in range(d):
            out[j] += np.int64(acc[j])
    return refused == 0


@functools.cache
def compiled_clipped_square_sums():
    """The kernel with numpy's error model (module docstring): 0.9 ms instead of 3.7 at 1e5 x 20 with numba's
    default one, which checks every divisor and so divides one entry at a time."""
    return compile_kernel(_clipped_square_sums_kernel, error_model="numpy")


def clipped_square_sums(
    X: np.ndarray, bounds: np.ndarray, bits: int, limit: float, compiled: bool = True
) -> list[int] | None:
    """Exact column sums of ``min(|x_ij| / b_j, 1)^2`` (:func:`dppca_core.pipeline.choices.clipped_squares`), each term
    truncated toward zero to a multiple of 2^-bits, as Python ints; None when a term is not finite or exceeds
    ``limit``. One pass without the n x d array of squares; the same integers as summing that array."""
    X = np.asarray(X, dtype=float)
    bounds = np.ascontiguousarray(bounds, dtype=float).reshape(-1)
    kernel = compiled_clipped_square_sums() if compiled and compiled_worth(X.size) else None

    def numpy_terms(a: int, b: int) -> np.ndarray:
        return np.minimum(np.abs(X[a:b]) / bounds, 1.0) ** 2

    def kernel_sums(a: int, b: int, unit: float, limit: float, sums: np.ndarray) -> bool:
        return kernel(X[a:b], bounds, unit, limit, sums)

    return fixed_point_totals(*X.shape, bits, limit, numpy_terms, None if kernel is None else kernel_sums)


def _divide_columns_kernel(X, scales, out):  # pragma: no cover - compiled
    n, d = X.shape
    bad = 0
    for i in range(n):
        for j in range(d):
            x = X[i, j]
            bad += 0 if x - x == 0.0 else 1  # inf - inf and NaN - NaN are NaN: the entries that are not finite
            out[i, j] = x / scales[j]
    return bad


@functools.cache
def compiled_divide_columns():
    return compile_kernel(_divide_columns_kernel, error_model="numpy")


def divide_columns(X: np.ndarray, scales: np.ndarray, out: np.ndarray, compiled: bool = True) -> int:
    """``out = X / scales`` (one divisor per column: the bits of numpy's division), and the number of entries of X
    that are not finite, in one pass (compiled when numba is installed and the block is worth it)."""
    kernel = compiled_divide_columns() if compiled and compiled_worth(X.size) else None
    if kernel is None:
        np.divide(X, scales, out=out)
        return int(X.size - np.count_nonzero(np.isfinite(X)))
    return int(kernel(X, scales, out))


def divided_row_sums(
    source: np.ndarray,
    divisors: np.ndarray,
    factors: np.ndarray,
    bits: int,
    limit: float,
    rows: np.ndarray,
    scaled: bool,
    compiled: bool = True,
) -> list[int] | None:
    """Exact column sums of the rows ``(source[i] / divisors) * factors[i]`` (each entry truncated toward zero to a
    multiple of 2^-bits, as Python ints; None when an entry is not finite or exceeds ``limit``), in one pass that
    also writes into ``rows`` (the shape of ``source``) those scaled rows (``scaled``) or the divided rows ``source[i]
    / divisors``: the bits of dividing, multiplying and :func:`dppca_core.compiled.kernels.fixed_point_column_sums`
    in turn (the numpy path, tested)."""
    divisors = np.ascontiguousarray(divisors, dtype=float).reshape(-1)
    factors = np.ascontiguousarray(factors, dtype=float).reshape(-1)
    kernel = compiled_row_sums() if compiled and compiled_worth(source.size) else None

    def numpy_terms(a: int, b: int) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):  # refused by the sums, as the compiled loop refuses them
            divided = np.divide(source[a:b], divisors, out=rows[a:b])
            terms = divided * factors[a:b, None]
        if scaled:
            rows[a:b] = terms
        return terms

    def kernel_sums(a: int, b: int, unit: float, limit: float, sums: np.ndarray) -> bool:
        return kernel(source[a:b], divisors, factors[a:b], unit, limit, sums, rows[a:b], 1 if scaled else 2)

    return fixed_point_totals(*source.shape, bits, limit, numpy_terms, None if kernel is None else kernel_sums)


def _scale_rows_kernel(source, divisors, factors, out):  # pragma: no cover - compiled
    n, d = source.shape
    divided = divisors.shape[0] > 0
    bad = 0
    for i in range(n):
        f = factors[i]
        if divided:
            for j in range(d):
                x = source[i, j]
                bad += 0 if x - x == 0.0 else 1  # counted, and returned: the divisions then run in SIMD lanes (1.4x)
                out[i, j] = (x / divisors[j]) * f
        else:
            for j in range(d):
                out[i, j] = source[i, j] * f
    return bad


@functools.cache
def compiled_scale_rows():
    return compile_kernel(_scale_rows_kernel, error_model="numpy")


def scale_rows(
    source: np.ndarray, factors: np.ndarray, out: np.ndarray, divisors: np.ndarray | None = None, compiled: bool = True
) -> np.ndarray:
    """``out = (source / divisors) * factors[:, None]`` (``source * factors[:, None]`` without divisors), returned:
    the bits of numpy's division and product, in one pass (compiled when numba is installed and the block is worth
    it)."""
    factors = np.ascontiguousarray(factors, dtype=float).reshape(-1)
    kernel = compiled_scale_rows() if compiled and compiled_worth(source.size) else None
    if kernel is None:
        with np.errstate(over="ignore", invalid="ignore"):
            rows = source if divisors is None else np.divide(source, divisors, out=out)
            return np.multiply(rows, factors[:, None], out=out)
    divisors = NO_DIVISORS if divisors is None else np.ascontiguousarray(divisors, dtype=float)
    kernel(source, divisors, factors, out)
    return out


def _divided_sq_norms_kernel(X, scales, out):  # pragma: no cover - compiled
    n, d = X.shape
    tmp = np.empty((4, d))
    bad = 0
    i = 0
    while i + 4 <= n:
        for r in range(4):  # four rows divided (the quotients numpy's division gives), then their norms
            for j in range(d):
                x = X[i + r, j]
                bad += 0 if x - x == 0.0 else 1  # inf - inf and NaN - NaN are NaN: the entries that are not finite
                tmp[r, j] = x / scales[j]
        s0 = s1 = s2 = s3 = 0.0
        for j in range(d):  # each sum in column order, one rounding per product and per sum (row_sq_norms's)
            s0 += tmp[0, j] * tmp[0, j]
            s1 += tmp[1, j] * tmp[1, j]
            s2 += tmp[2, j] * tmp[2, j]
            s3 += tmp[3, j] * tmp[3, j]
        out[i], out[i + 1], out[i + 2], out[i + 3] = s0, s1, s2, s3
        i += 4
    for r in range(i, n):
        s = 0.0
        for j in range(d):
            x = X[r, j]
            bad += 0 if x - x == 0.0 else 1
            q = x / scales[j]
            s += q * q
        out[r] = s
    return bad


@functools.cache
def compiled_divided_sq_norms():
    return compile_kernel(_divided_sq_norms_kernel, error_model="numpy")


def divided_sq_norms(X: np.ndarray, scales: np.ndarray, out: np.ndarray, compiled: bool = True) -> int:
    """``out`` = the squared norms of the rows of ``X / scales``, each quotient rounded as numpy's division rounds it,
    squared and summed in column order (the bits of :func:`dppca_core.compiled.loops.row_sq_norms` of the divided
    rows); returns the number of entries of X that are not finite. Without numba (or for a small block before numba
    is imported): the block divided (:func:`divide_columns`), then the numpy norms."""
    kernel = compiled_divided_sq_norms() if compiled and compiled_worth(X.size) else None
    if kernel is None:  # the division compiled where numba is loaded (the same quotients), the norms numpy's
        divided = np.empty(X.shape)
        with np.errstate(over="ignore", invalid="ignore"):  # counted, as the compiled loop counts them
            bad = divide_columns(X, scales, divided)
        out[:] = fixed_order_sq_norms(divided)
        return bad
    return int(kernel(X, scales, out))

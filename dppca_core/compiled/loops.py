"""Inner loops of the algorithms that are sequential by design, compiled by numba when it is installed.

Private Oja takes one step per row and every step needs the previous iterate, so numpy cannot vectorise the
pass: in Python each step costs a few microseconds of interpreter overhead whatever d is (about 110x the
X^T X + eigh floor at d = 20). numba (in ``requirements.txt`` and the ``fast`` extra; the library does not
require it) compiles the same arithmetic. Without numba the pure-Python loop below runs instead: same
inputs, same operations in the same order, results equal to rounding (tested).

The squared row norms that clipping needs are compiled too (:func:`row_sq_norms`). Each is summed in column order,
one rounding per product and per sum, with no fast-math: the compiled loop and the numpy loop give the same bits for
every row, wherever it sits, so which of the two runs (chosen by the array's size) shows in nothing published. A
norm compared with a threshold (the private radius's counts, clipping) must never depend on the path that computed it.
"""

from __future__ import annotations

import functools
import math

import numpy as np


def oja_steps_python(rows, w, etas, noise, offset, trace_every, trace):
    """Oja steps w <- normalise(w + eta_i x_i (x_i . w) + noise_i) over the rows of one chunk, in place.

    ``noise`` holds each step's noise already scaled; after step ``offset + i + 1`` divisible by ``trace_every``
    the iterate is copied into the next row of ``trace``. Returns how many rows of ``trace`` were written.
    """
    d = w.shape[0]
    tmp = np.empty(d)
    dot, mul, add, sqrt = np.dot, np.multiply, np.add, math.sqrt
    written = 0
    for i, eta in enumerate(etas.tolist()):
        x = rows[i]
        mul(x, eta * dot(x, w), out=tmp)
        add(w, tmp, out=w)
        add(w, noise[i], out=w)
        mul(w, 1.0 / sqrt(dot(w, w)), out=w)
        if (offset + i + 1) % trace_every == 0:
            trace[written] = w
            written += 1
    return written


def _oja_steps_kernel(rows, w, etas, noise, offset, trace_every, trace):  # pragma: no cover - compiled
    n, d = rows.shape
    written = 0
    for i in range(n):
        s = 0.0
        for c in range(d):
            s += rows[i, c] * w[c]
        s = etas[i] * s
        squares = 0.0
        for c in range(d):
            v = (w[c] + rows[i, c] * s) + noise[i, c]
            w[c] = v
            squares += v * v
        scale = 1.0 / math.sqrt(squares)
        for c in range(d):
            w[c] *= scale
        if (offset + i + 1) % trace_every == 0:
            for c in range(d):
                trace[written, c] = w[c]
            written += 1
    return written


def compile_kernel(kernel, **flags):
    """``kernel`` compiled by numba (``nogil``, plus ``flags``), or None without numba. Importing numba costs
    about 0.5 s, so callers compile on first use."""
    try:
        import numba
    except ImportError:
        return None
    try:  # cache the machine code next to this file when that folder is writable
        return numba.njit(cache=True, nogil=True, **flags)(kernel)
    except Exception:  # noqa: BLE001 - an unwritable cache is not an error: compile per process
        return numba.njit(nogil=True, **flags)(kernel)


@functools.cache
def compiled_oja_steps():
    """The Oja kernel compiled by numba, or None without numba."""
    return compile_kernel(_oja_steps_kernel)


def oja_steps(rows, w, etas, noise, offset, trace_every, trace):
    """The loop Private Oja uses: compiled when numba is installed, else :func:`oja_steps_python`."""
    loop = compiled_oja_steps() or oja_steps_python
    return loop(rows, w, etas, noise, offset, trace_every, trace)


def _row_sq_norms_kernel(B, out):  # pragma: no cover - compiled
    n, d = B.shape
    for i in range(n):
        s = 0.0
        for c in range(d):
            s += B[i, c] * B[i, c]
        out[i] = s
    return out


@functools.cache
def compiled_row_sq_norms():
    """Squared row norms compiled by numba, each summed in column order with one rounding per product and per sum
    (no fast-math: no reordering, no fused multiply-add), or None without numba."""
    return compile_kernel(_row_sq_norms_kernel)


#: rows per block of the numpy loop of :func:`row_sq_norms` (its accumulator and one column stay in cache)
NUMPY_NORM_BLOCK = 8192


def fixed_order_sq_norms(B: np.ndarray) -> np.ndarray:
    """Each row's squared norm ``((0 + x_1 x_1) + x_2 x_2) + ...``, one rounding per product and per sum, in column
    order, by whole-column numpy operations a block of rows at a time: a result that depends on the row alone."""
    B = np.asarray(B, dtype=np.float64)
    n, d = B.shape
    out = np.zeros(n)
    tmp = np.empty(min(n, NUMPY_NORM_BLOCK))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow gives inf, as the compiled loop does
        for a in range(0, n, NUMPY_NORM_BLOCK):
            acc, block = out[a : a + NUMPY_NORM_BLOCK], B[a : a + NUMPY_NORM_BLOCK]
            t = tmp[: acc.shape[0]]
            for j in range(d):
                np.multiply(block[:, j], block[:, j], out=t)
                acc += t
    return out


def row_sq_norms(B: np.ndarray, compiled: bool = True) -> np.ndarray:
    """Squared Euclidean norm of every row of the float array B, each summed in column order (see the module's
    docstring): ``compiled`` (and numba installed) runs the compiled loop, else the numpy loop; both give the same
    bits, so ``compiled`` decides speed only. Non-finite values propagate."""
    B = np.ascontiguousarray(B, dtype=np.float64)
    kernel = compiled_row_sq_norms() if compiled else None
    if kernel is None:
        return fixed_order_sq_norms(B)
    return kernel(B, np.empty(B.shape[0]))


def _clip_factors_kernel(sq, r2_tol, radius, out):  # pragma: no cover - compiled
    plain = 1.0 / radius
    clipped = 0
    finite = True
    for i in range(sq.shape[0]):
        v = sq[i]
        finite &= v - v == 0.0  # inf - inf and NaN - NaN are NaN
        if v > r2_tol:
            out[i] = 1.0 / math.sqrt(v)
            clipped += 1
        else:
            out[i] = plain
    return clipped if finite else -1


@functools.cache
def compiled_clip_factors():
    """Each row's clip factor from its squared norm (``1 / sqrt(sq)`` beyond the radius, else ``1 / R``: the
    operations numpy's ``np.where(over, 1 / np.sqrt(sq), 1 / R)`` rounds, so the same bits) in one pass, with the count
    clipped (-1 when a norm is not finite), compiled by numba; None without numba."""
    return compile_kernel(_clip_factors_kernel)

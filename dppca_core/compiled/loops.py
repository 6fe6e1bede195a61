"""Inner loops of the algorithms that are sequential by design, compiled by numba when it is installed.

Private Oja takes one step per row and every step needs the previous iterate, so numpy cannot vectorise the
pass: in Python each step costs a few microseconds of interpreter overhead whatever d is (about 110x the
X^T X + eigh floor at d = 20). numba (in ``requirements.txt`` and the ``fast`` extra; the library does not
require it) compiles the same arithmetic. Without numba the pure-Python loop below runs instead: same
inputs, same operations in the same order, results equal to rounding (tested).

The squared row norms that clipping needs are compiled too (:func:`row_sq_norms`): at d = 20 numpy's
``einsum`` spends a fifth of the time of X^T X on them, the compiled loop a twelfth.
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


def _compile(kernel, **flags):
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
    return _compile(_oja_steps_kernel)


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
    """Squared row norms compiled by numba with the sum free to be reordered and fused (so it runs in SIMD
    lanes: about 2.5x numpy's einsum at d = 20, where the row-norm pass is a fifth of X^T X), or None."""
    return _compile(_row_sq_norms_kernel, fastmath={"reassoc", "contract"})


def row_sq_norms(B: np.ndarray, compiled: bool = True) -> np.ndarray:
    """Squared Euclidean norm of every row of the float array B.

    ``compiled`` (and numba installed): the compiled kernel, else ``einsum``; either runs on a C-contiguous
    copy, so the same row gives the same bits in any block or memory layout (a :class:`PreparedData`
    recomputes its rows' scale factors the way it first computed them, and compares). Non-finite values
    propagate (no fast-math assumption about them).
    """
    B = np.ascontiguousarray(B, dtype=np.float64)
    kernel = compiled_row_sq_norms() if compiled else None
    if kernel is None:
        return np.einsum("ij,ij->i", B, B)
    return kernel(B, np.empty(B.shape[0]))

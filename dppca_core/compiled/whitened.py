"""CoinPress's clipped whitened rows (:mod:`dppca_core.mechanisms.coinpress`), compiled by numba.

Each step of CoinPress maps every row z by a public matrix A (w = A z), compares the mapped row's norm with the step's
radius r and scales the row down to r where it is longer, then adds w w^T to the step's Gram matrix. The norm is
compared with a threshold, so it must be computed the same way whatever runs it (docs/privacy.md, "Three rules",
rule 2): here every entry of w is summed in a fixed column order, ``((0 + z_1 a_c1) + z_2 a_c2) + ...`` (the arithmetic
of :func:`dppca_core.compiled.kernels.fixed_order_project`, one rounding per product and per sum), the squared norm
likewise over the entries of w in order, and the clip factor is ``min(1, r / max(||w||, 1e-300))``. The compiled
kernel does the three in one pass over a block of rows (its rows in SIMD lanes, each sum still in order); without
numba the numpy loops run, with the same bits (tested). The Gram matrix of the clipped rows is then one BLAS product
per block, on the same blocks either way.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import kernels
from .kernels import _project_block, compiled_worth, fixed_order_project_numpy, project_block_rows
from .loops import _compile, fixed_order_sq_norms


def _clipped_whitened_kernel(rows, components, radius, out, block):  # pragma: no cover - compiled
    n, d = rows.shape
    k = components.shape[1]
    xt = np.empty((d, block))
    acc = np.empty((k, block))
    sq = np.empty(block)
    for a in range(0, n, block):
        m = min(block, n - a)
        _project_block(rows, components, a, m, xt, acc)  # acc[c, r]: row a + r's entry c, summed in column order
        for r in range(m):
            sq[r] = 0.0
        for c in range(k):  # each row's squared norm over its entries in order (rows in lanes)
            for r in range(m):
                sq[r] += acc[c, r] * acc[c, r]
        for r in range(m):
            norm = math.sqrt(sq[r])
            quotient = radius / (norm if norm > 1e-300 else 1e-300)
            factor = quotient if quotient < 1.0 else 1.0
            for c in range(k):
                out[a + r, c] = acc[c, r] * factor
    return out


@functools.cache
def compiled_clipped_whitened():
    """The kernel compiled with strict IEEE arithmetic (no fast-math, no fused multiply-adds), or None without numba."""
    if not kernels._compiled_helpers():
        return None
    globals()["_project_block"] = kernels._project_block  # the kernel calls the compiled helper
    return _compile(_clipped_whitened_kernel)


def clipped_whitened(rows: np.ndarray, components: np.ndarray, radius: float, out: np.ndarray, compiled: bool = True):
    """``out`` (n x k) = the rows mapped by ``components`` (d x k: A^T), each entry summed in column order, every
    mapped row longer than ``radius`` scaled down to it (module docstring); returned. ``compiled=False`` (or no numba)
    runs the numpy loops: the same bits."""
    components = np.ascontiguousarray(components, dtype=float)
    kernel = compiled_clipped_whitened() if compiled and compiled_worth(rows.size * components.shape[1]) else None
    if kernel is None or rows.shape[0] == 0:
        out[...] = fixed_order_project_numpy(rows, components)
        norms = np.sqrt(fixed_order_sq_norms(out))
        out *= np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None]
        return out
    return kernel(rows, components, float(radius), out, project_block_rows(*components.shape))

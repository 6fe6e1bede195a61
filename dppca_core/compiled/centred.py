"""The projections of centred, re-clipped rows computed from the raw rows, compiled by numba.

A release centred with its private mean (:func:`dppca_core.data.centring.centre_algebraically`) does not form the
centred rows: its Gram matrix comes from the raw rows' one, and what reads the rows afterwards (the score plot) reads
their projections on the released components. Each row is centred here in a small buffer with exactly the
arithmetic that forms it (:func:`dppca_core.compiled.kernels.scaled_centred`, then its clip factor) and projected in
the fixed column order of :func:`dppca_core.compiled.kernels.fixed_order_project`: the same bits as projecting the
formed rows, a pass over n x d less.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .cells import cells_kernel, compiled_cells
from .kernels import NO_DIVISORS
from .loops import compile_kernel

#: rows projected at a time by the score plot's cells kernel before their cells are found (k x this many floats)
CELL_BLOCK_ROWS = 1024


def _form_rows(source, divisors, factors, mean, scale, weights, first, count, buf):  # pragma: no cover - compiled
    """Rows first .. first + count - 1 formed into ``buf``: the entries the centred rows hold, with their roundings
    (the raw entries divided by the column scales first where ``divisors`` holds them; empty: no division). Returns
    how many raw entries are not finite where it divides (0 otherwise): counting them as the quotients are formed
    lets LLVM run the divisions in SIMD lanes (1.5x faster at 1e6 x 20, measured); without divisions it slows the
    loop, so it is not done there."""
    divided = divisors.shape[0] > 0
    bad = 0
    for q in range(count):
        f = factors[first + q]
        w = weights[first + q]
        if divided:
            for j in range(source.shape[1]):
                x = source[first + q, j]
                bad += 0 if x - x == 0.0 else 1  # inf - inf and NaN - NaN are NaN
                buf[q, j] = (((x / divisors[j]) * f - mean[j]) * scale) * w
        else:
            for j in range(source.shape[1]):
                buf[q, j] = ((source[first + q, j] * f - mean[j]) * scale) * w
    return bad


def _centred_project_kernel(source, divisors, factors, mean, scale, weights, components, out):  # pragma: no cover
    """Four rows at a time formed in a buffer, then projected two components at a time: eight running sums, each
    taking its row's products in column order (the arithmetic of ``fixed_order_project``), independent of each
    other so that the adds overlap. ``out`` is k x n: each component's projections in one contiguous row. Returns
    the number of raw entries that are not finite (see ``_form_rows``)."""
    n, d = source.shape
    k = components.shape[1]
    buf = np.empty((4, d))
    bad = 0
    i = 0
    while i + 4 <= n:
        bad += _form_rows(source, divisors, factors, mean, scale, weights, i, 4, buf)
        for c in range(0, k, 2):
            e = c + 1 if c + 1 < k else c  # an odd last component: both sums are its own, written twice
            a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
            for j in range(d):
                v, u = components[j, c], components[j, e]
                x0, x1, x2, x3 = buf[0, j], buf[1, j], buf[2, j], buf[3, j]
                a0 += x0 * v
                a1 += x1 * v
                a2 += x2 * v
                a3 += x3 * v
                b0 += x0 * u
                b1 += x1 * u
                b2 += x2 * u
                b3 += x3 * u
            out[c, i], out[c, i + 1], out[c, i + 2], out[c, i + 3] = a0, a1, a2, a3
            out[e, i], out[e, i + 1], out[e, i + 2], out[e, i + 3] = b0, b1, b2, b3
        i += 4
    bad += _form_rows(source, divisors, factors, mean, scale, weights, i, n - i, buf)
    for q in range(n - i):
        for c in range(k):
            s = 0.0
            for j in range(d):
                s += buf[q, j] * components[j, c]
            out[c, i + q] = s
    return bad


@functools.cache
def compiled_centred_project():
    """The kernel compiled with strict IEEE arithmetic (no fast-math, no fused multiply-adds), or None without
    numba."""
    helper = compile_kernel(_form_rows, error_model="numpy")
    if helper is None:
        return None
    globals()["_form_rows"] = helper  # the kernel calls the compiled helper
    return compile_kernel(_centred_project_kernel, error_model="numpy")


def _centred_cells_kernel(source, divisors, factors, mean, scale, weights, components, edges, spacing, out):  # noqa
    """Each row's cell of the score plot's grid, as one index (first axis major): a block of rows projected by
    ``_centred_project_kernel`` (the same bits), then each projection's cell found by ``cells_kernel`` (the same
    cells as :func:`dppca_core.compiled.cells.cell_index`), without the n x k projections. ``edges``: one row of
    edges per component; ``spacing``: cells / span per component. Returns the projection kernel's count of raw
    entries that are not finite."""
    n, k = source.shape[0], components.shape[1]
    proj = np.empty((k, CELL_BLOCK_ROWS))
    cells = np.empty((k, CELL_BLOCK_ROWS), dtype=np.int64)
    width = edges.shape[1] - 1
    bad = 0
    for a in range(0, n, CELL_BLOCK_ROWS):
        b = min(a + CELL_BLOCK_ROWS, n)
        m = b - a
        bad += _centred_project_kernel(
            source[a:b], divisors, factors[a:b], mean, scale, weights[a:b], components, proj[:, :m]
        )
        for c in range(k):
            cells_kernel(edges[c], proj[c, :m], spacing[c], cells[c, :m])
        for i in range(m):
            out[a + i] = cells[0, i] if k == 1 else cells[0, i] * width + cells[1, i]
    return bad


@functools.cache
def compiled_centred_cells():
    """The cells kernel (strict IEEE arithmetic, as the projection's), or None without numba."""
    project, cells = compiled_centred_project(), compiled_cells()
    if project is None or cells is None:
        return None
    globals()["_centred_project_kernel"], globals()["cells_kernel"] = project, cells  # called compiled
    return compile_kernel(_centred_cells_kernel, error_model="numpy")


def centred_cells(source, factors, mean, scale, weights, components, edges, divisors=None) -> np.ndarray | None:
    """:func:`dppca_core.compiled.cells.flat_cells` of :func:`centred_project`'s projections on one or two
    ``components`` among ``edges`` (increasing, evenly spaced, one array per component, the same number of cells),
    without forming the projections; None without numba or for edges the cell kernel does not take."""
    kernel = compiled_centred_cells()
    grid = np.array(edges, dtype=float, ndmin=2)
    span = grid[:, -1] - grid[:, 0]
    if kernel is None or components.shape[1] not in (1, 2) or not (np.all(np.isfinite(span)) and np.all(span > 0)):
        return None
    parts = _kernel_parts(source, factors, mean, scale, weights, components, divisors)
    out = np.empty(source.shape[0], dtype=np.int64)
    _refuse_non_finite(kernel(*parts, grid, (grid.shape[1] - 1) / span, out))
    return out


def _kernel_parts(source, factors, mean, scale, weights, components, divisors=None) -> tuple:
    """The kernels' first seven arguments, as they take them (contiguous float arrays and a float)."""
    contiguous = (np.ascontiguousarray(a, dtype=float) for a in (factors, mean, weights, components))
    factors, mean, weights, components = contiguous
    divisors = NO_DIVISORS if divisors is None else np.ascontiguousarray(divisors, dtype=float)
    return source, divisors, factors, mean, float(scale), weights, components


def centred_project(
    source: np.ndarray,
    factors: np.ndarray,
    mean: np.ndarray,
    scale: float,
    weights: np.ndarray,
    components: np.ndarray,
    divisors: np.ndarray | None = None,
) -> np.ndarray | None:
    """``fixed_order_project(rows, components)`` for ``rows[i] = ((source[i] * factors[i] - mean) * scale) *
    weights[i]`` (``source[i] / divisors`` in place of ``source[i]`` where column scales divide the raw rows), without
    forming ``rows``; None without numba (the caller then forms the rows). The n x k result is stored column by
    column (Fortran order): each component's projections are contiguous, as the score plot's cells read them (no
    copy per component)."""
    kernel = compiled_centred_project()
    if kernel is None:
        return None
    out = np.empty((components.shape[1], source.shape[0]))
    _refuse_non_finite(kernel(*_kernel_parts(source, factors, mean, scale, weights, components, divisors), out))
    return out.T


def _refuse_non_finite(bad: int) -> None:
    """The rows a release divides by its column scales were checked when first read: an entry that is not finite
    now means the table was changed since (ValueError, as :class:`dppca_core.data.prepare.PreparedData` says)."""
    if bad:
        raise ValueError(
            "the array given to prepare() was modified afterwards; call prepare() again (or pass a copy of the data)."
        )


def _suspects_kernel(source, weights, factors, sq_norms, m2, threshold, limit2, out):  # pragma: no cover - compiled
    """The rows whose norm ||z_i|| = sqrt(sq_i) f_i may exceed ``threshold`` and whose ||z_i - m||^2, as
    ||z_i||^2 - 2 f_i (x_i . weights) + m2, is not below ``limit2``, written to ``out``; returns how many. The first
    test compares the squares (sq_i f_i^2 against threshold^2 (1 - 1e-12): a superset of the rows the norms leave,
    found without a branch), the second reads only the rows left."""
    n, d = source.shape
    t2 = threshold * threshold * (1.0 - 1e-12) if threshold > 0.0 else -1.0
    count = 0
    for i in range(n):
        out[count] = i
        count += 1 if sq_norms[i] * (factors[i] * factors[i]) > t2 else 0
    found = 0
    for t in range(count):
        i = out[t]
        size = math.sqrt(sq_norms[i]) * factors[i]
        dot = 0.0
        for j in range(d):
            dot += source[i, j] * weights[j]
        near = size * size - 2.0 * factors[i] * dot + m2
        if not (near <= limit2):  # NaN (a product out of range) included
            out[found] = i
            found += 1
    return found


@functools.cache
def compiled_suspects():
    """The suspects kernel, or None without numba. Its dot products may be summed in any order and with fused
    multiply-adds (``reassoc``, ``contract``: the sum vectorises): every order errs by at most (d + 4) u, far inside
    the margin that makes the result a superset; NaN is still honoured (no ``nnan``)."""
    return compile_kernel(_suspects_kernel, fastmath={"reassoc", "contract"})


def suspects(source, weights, factors, sq_norms, m2: float, threshold: float, limit2: float) -> np.ndarray | None:
    """The indices :func:`_suspects_kernel` finds, in one pass over the norms and the rows they leave (no gathered
    copy of the rows); None without numba."""
    kernel = compiled_suspects()
    if kernel is None:
        return None
    out = np.empty(source.shape[0], dtype=np.int64)
    count = kernel(source, np.ascontiguousarray(weights, dtype=float), factors, sq_norms, m2, threshold, limit2, out)
    return out[:count].copy()

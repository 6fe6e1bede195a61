"""Loops of the publishable path whose arithmetic must not depend on where a row sits, compiled by numba.

Three computations read every row and must give each row a result that depends on that row alone:

* :func:`fixed_order_project` — the projections ``rows @ V`` on the released components (the variances along
  them, the score plot). A BLAS product may round a row differently depending on its place in the blocks it
  splits the matrix into, which would let one row move another row's cell. Here every entry is
  ``((0 + x_1 v_1c) + x_2 v_2c) + ...``: a product and a sum per column, rounded each time (no fused multiply-add),
  in column order, the same for every row wherever it sits; exactly the arithmetic of the column-by-column numpy
  loop (:func:`fixed_order_project_numpy`), so the two give the same bits.
* :func:`fixed_point_column_sums` — the integer column sums of per-row terms truncated to a fixed-point grid
  (:class:`dppca_core.privacy.exact.FixedSums`). Integers add exactly, so any order gives the same sums.
* :func:`clipped_whitened` — CoinPress's rows mapped by a public matrix, their norms and their clip factors (each
  row's clip decision compared with a radius: summed in column order, as the projections are).

numba (``requirements.txt``) compiles them; without it the numpy loops run, with the same results. The compiled
projection works on blocks of rows transposed into a small buffer, so each column operation runs over
contiguous memory in SIMD lanes (across rows, never across the sum): about the speed of a BLAS product at small k
(measured in ``docs/benchmarks.md``).
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from .loops import compile_kernel, fixed_order_sq_norms

#: below this much work (values read or written), a compiled kernel runs only if numba is already imported:
#: importing it costs about 0.5 s of CPU and 50 MB once per process (as for :data:`dppca_core.data.prepare.COMPILED_NORMS_MIN_SIZE`)
COMPILE_MIN_WORK = 1 << 20
#: values of a block of the compiled projection (its transposed rows and accumulators, (d + k) x rows): about
#: 32 KB, the first-level cache (measured best at n = 1e5: 128 rows at d = 20, 32 at d = 100 and at d = k = 100)
PROJECT_BLOCK_VALUES = 4096


def project_block_rows(d: int, k: int) -> int:
    """Rows per block of the compiled projection for d columns and k components: a multiple of 8 in [32, 128]."""
    return max(32, min(128, PROJECT_BLOCK_VALUES // max(d + k, 1)) // 8 * 8)


#: rows per block of the numpy projection (an (n, k) accumulator of this many rows stays in cache)
NUMPY_BLOCK = 4096
#: rows per integer partial sum: 2^22 terms of magnitude <= 2^40 + 2 stay below 2^63
SUM_CHUNK = 1 << 22


def check_exact_range(bits: int, limit: float) -> float:
    """2^bits, once ``limit * 2^bits`` is checked to stay below 2^41 (what :data:`EXACT_FLOAT_ROWS` relies on)."""
    unit = float(2.0**bits)
    if not limit * unit < 2.0**41:
        raise ValueError(f"exact sums need limit * 2^bits below 2^41 (got {limit:g} * 2^{bits}).")
    return unit


#: rows whose truncated terms the compiled exact sums add as floats before converting the total to an integer:
#: each term ``trunc(t * 2^bits)`` is an integer of magnitude below 2^41 (the callers' ``limit * 2^bits``), so
#: 4096 of them sum below 2^53, where every integer is a float and every addition exact: the same integers as
#: int64 additions, in SIMD lanes (this machine has no vector conversion from float to int64): the sums of scaled
#: rows take 0.75x the time of int64 additions (paired runs at 1e5 x 20; the clipped squares 0.8x, once their
#: divisions run in SIMD lanes). A term over ``limit`` refuses the sums.
EXACT_FLOAT_ROWS = 4096


def fixed_order_project_numpy(rows: np.ndarray, components: np.ndarray) -> np.ndarray:
    """``rows @ components`` with every entry summed over the columns in order, one rounding per product and per
    sum: the reference loop (whole-column numpy operations, a block of rows at a time)."""
    rows = np.asarray(rows, dtype=float)
    components = np.asarray(components, dtype=float)
    n, d = rows.shape
    out = np.zeros((n, components.shape[1]))
    for a in range(0, n, NUMPY_BLOCK):
        acc, block = out[a : a + NUMPY_BLOCK], rows[a : a + NUMPY_BLOCK]
        tmp = np.empty_like(acc)
        for j in range(d):
            np.multiply(block[:, j : j + 1], components[j], out=tmp)
            acc += tmp
    return out


def _project_block(rows, components, a, m, xt, acc):  # pragma: no cover - compiled
    """acc[c, r] = the fixed-order projection of row a + r on column c, for the m rows from a (xt: a buffer).

    Eight columns of the rows at a time: each entry's running sum is read once, takes its eight products in column
    order (one rounding per product and per sum, as one column at a time does) and is written back, so the loop
    over rows (SIMD lanes) reads and writes the accumulators an eighth as often (about 2x faster at d = k = 100).
    """
    d, k = components.shape
    for r in range(m):
        for j in range(d):
            xt[j, r] = rows[a + r, j]
    for c in range(k):
        for r in range(m):
            acc[c, r] = 0.0
    j = 0
    while j + 8 <= d:
        for c in range(k):
            v0 = components[j, c]
            v1 = components[j + 1, c]
            v2 = components[j + 2, c]
            v3 = components[j + 3, c]
            v4 = components[j + 4, c]
            v5 = components[j + 5, c]
            v6 = components[j + 6, c]
            v7 = components[j + 7, c]
            for r in range(m):  # across rows: independent lanes, each sum still in column order
                s = acc[c, r]
                s += xt[j, r] * v0
                s += xt[j + 1, r] * v1
                s += xt[j + 2, r] * v2
                s += xt[j + 3, r] * v3
                s += xt[j + 4, r] * v4
                s += xt[j + 5, r] * v5
                s += xt[j + 6, r] * v6
                s += xt[j + 7, r] * v7
                acc[c, r] = s
        j += 8
    for jj in range(j, d):  # the last d mod 8 columns, one at a time
        for c in range(k):
            v = components[jj, c]
            for r in range(m):
                acc[c, r] += xt[jj, r] * v


def _project_kernel(rows, components, out, block):  # pragma: no cover - compiled
    n, d = rows.shape
    k = components.shape[1]
    xt = np.empty((d, block))
    acc = np.empty((k, block))
    for a in range(0, n, block):
        m = min(block, n - a)
        _project_block(rows, components, a, m, xt, acc)
        for r in range(m):
            for c in range(k):
                out[a + r, c] = acc[c, r]
    return out


def compiled_worth(work: int) -> bool:
    """Whether a compiled kernel should run for ``work`` values: numba is already imported, or the work pays for
    importing it. Compiled and numpy loops give the same results, so this decides speed only."""
    return "numba" in sys.modules or work >= COMPILE_MIN_WORK


def warm_up() -> bool:
    """Import numba and load every compiled kernel of the publishable path now (about 0.8 s of CPU once per
    process, 50 MB), so that even small releases run compiled afterwards; False without numba. For a long-running
    process (a server, an audit, a benchmark) that will make many releases."""
    from .exact_kernels import compiled_samplers, draw

    kernels = (compiled_project, compiled_project_rows, compiled_fixed_sums, compiled_product_sums)
    loaded = [kernel() for kernel in kernels] + [compiled_samplers()]
    if any(kernel is None for kernel in loaded):
        return False
    rng = np.random.default_rng(0)
    rows, components = rng.uniform(-0.1, 0.1, (8, 3)), np.eye(3)[:, :2]
    fixed_order_project(rows, components)  # the first call of each kernel loads its machine code
    fixed_point_column_sums(rows, 40, 1.0)
    projected_product_sums(rows, components, [0, 1], [0, 1], None, 40, 1.0, projections=np.empty((8, 2)))
    from fractions import Fraction

    for laplace in (False, True):
        for size in (1, 200):
            draw(size, Fraction(3), rng, laplace, size >= 128)
    return True


@functools.cache
def _compiled_helpers() -> bool:
    """Compile the helpers the kernels call (they then call the compiled ones); False without numba."""
    jitted = compile_kernel(_project_block)
    if jitted is None:
        return False
    globals()["_project_block"] = jitted
    return True


def _project_rows_kernel(rows, components, out):  # pragma: no cover - compiled
    """The same projection for narrow rows and few components, read in place: four rows at a time, each of their
    sums a register taking its row's products in column order (no transposed copy; the four independent sums keep
    the multiply and add units busy)."""
    n, d = rows.shape
    k = components.shape[1]
    i = 0
    while i + 4 <= n:
        for c in range(k):
            s0 = s1 = s2 = s3 = 0.0
            for j in range(d):
                v = components[j, c]
                s0 += rows[i, j] * v
                s1 += rows[i + 1, j] * v
                s2 += rows[i + 2, j] * v
                s3 += rows[i + 3, j] * v
            out[i, c] = s0
            out[i + 1, c] = s1
            out[i + 2, c] = s2
            out[i + 3, c] = s3
        i += 4
    for r in range(i, n):
        for c in range(k):
            s = 0.0
            for j in range(d):
                s += rows[r, j] * components[j, c]
            out[r, c] = s
    return out


#: the row kernel's domain: up to this many columns and components it beats the blocked one (CPU time over the
#: blocked kernel's, paired runs on 1e5 rows: 0.72 at d = 20, k = 2; 0.80 at d = 32, k = 3; 0.83 at d = 20,
#: k = 5; 0.85 at d = 50, k = 2), and loses beyond (about 1.6 at d = 64, k = 2; 1.1 at d = 50, k = 10)
ROW_KERNEL_MAX_D, ROW_KERNEL_MAX_K = 50, 5


@functools.cache
def compiled_project():
    """The projection kernel compiled by numba (strict IEEE arithmetic: no fast-math, no contraction into fused
    multiply-adds), or None without numba."""
    return compile_kernel(_project_kernel) if _compiled_helpers() else None


@functools.cache
def compiled_project_rows():
    """The row projection kernel compiled as :func:`compiled_project` is, or None without numba."""
    return compile_kernel(_project_rows_kernel)


def fixed_order_project(rows: np.ndarray, components: np.ndarray, compiled: bool = True) -> np.ndarray:
    """``rows @ components`` (n x k) where row i's result depends on row i alone: entry (i, c) is
    ``((0 + x_i1 v_1c) + x_i2 v_2c) + ...`` rounded after every product and every sum, in column order.

    Bit-identical to :func:`fixed_order_project_numpy` (and to the column loop ``out += rows[:, j:j+1] * V[j]``
    it replaces); ``compiled=False`` runs that loop.
    """
    rows = np.asarray(rows, dtype=float)
    components = np.asarray(components, dtype=float)
    if rows.ndim != 2 or components.ndim != 2 or rows.shape[1] != components.shape[0]:
        raise ValueError(f"cannot project rows of shape {rows.shape} on components of shape {components.shape}.")
    kernel = compiled_project() if compiled and compiled_worth(rows.size * components.shape[1]) else None
    if kernel is None or rows.shape[0] == 0:
        return fixed_order_project_numpy(rows, components)
    out = np.empty((rows.shape[0], components.shape[1]))
    if components.shape[0] <= ROW_KERNEL_MAX_D and components.shape[1] <= ROW_KERNEL_MAX_K:
        return compiled_project_rows()(rows, np.ascontiguousarray(components), out)
    return kernel(rows, np.ascontiguousarray(components), out, project_block_rows(*components.shape))


def _fixed_sums_kernel(terms, unit, limit, out):  # pragma: no cover - compiled
    n, m = terms.shape
    acc = np.empty(m)
    refused = 0
    for a in range(0, n, EXACT_FLOAT_ROWS):
        for c in range(m):
            acc[c] = 0.0
        for i in range(a, min(a + EXACT_FLOAT_ROWS, n)):
            for c in range(m):
                t = terms[i, c]
                refused += 0 if abs(t) <= limit else 1  # counts NaN and infinities too
                acc[c] += np.trunc(t * unit)  # an integer, exactly the one int64(t * unit) truncates to
        for c in range(m):
            out[c] += np.int64(acc[c])
    return refused == 0


@functools.cache
def compiled_fixed_sums():
    return compile_kernel(_fixed_sums_kernel)


def fixed_point_column_sums(terms: np.ndarray, bits: int, limit: float, compiled: bool = True) -> np.ndarray | None:
    """Column sums of ``trunc(t * 2^bits)`` over a block of at most :data:`SUM_CHUNK` rows, as int64, or None
    when a term is not finite or exceeds ``limit`` in magnitude (``limit * 2^bits`` must stay below 2^41).

    Multiplying by a power of two is exact, and the conversion to an integer truncates toward zero, so every term
    is exactly ``trunc(ldexp(t, bits))``; integers add exactly, so the sums do not depend on the order.
    """
    terms = np.asarray(terms, dtype=float)
    if terms.shape[0] > SUM_CHUNK:
        raise ValueError(f"at most {SUM_CHUNK} rows per block (the int64 sums could overflow).")
    unit = check_exact_range(bits, limit)
    kernel = compiled_fixed_sums() if compiled and compiled_worth(terms.size) else None
    if kernel is None:
        if terms.size and not (np.all(np.isfinite(terms)) and np.max(np.abs(terms)) <= limit):
            return None
        return (terms * unit).astype(np.int64).sum(axis=0, dtype=np.int64)
    out = np.zeros(terms.shape[1], dtype=np.int64)
    return out if kernel(terms, unit, float(limit), out) else None


def _product_sums_kernel(rows, components, first, second, norms, unit, limit, out, block, proj):  # pragma: no cover
    n, d = rows.shape
    k = components.shape[1]
    m = first.size
    keep = proj.shape[0] == n  # also write each row's projections (else proj has no rows)
    own = norms.shape[0] != n  # no norms given: each row's squared norm summed in column order (xt holds the rows)
    xt = np.empty((d, block))
    acc = np.empty((k, block))
    sq = np.empty(block)
    ok = True
    for a in range(0, n, block):
        size = min(block, n - a)
        _project_block(rows, components, a, size, xt, acc)
        if own:
            for r in range(size):
                sq[r] = 0.0
            for j in range(d):
                for r in range(size):
                    sq[r] += xt[j, r] * xt[j, r]
        if keep:
            for r in range(size):
                for c in range(k):
                    proj[a + r, c] = acc[c, r]
        for p in range(m):  # each term's integers of the block summed in a register (integers: any order)
            f, g = first[p], second[p]
            total = np.int64(0)
            for r in range(size):
                t = acc[f, r] * acc[g, r]
                ok &= abs(t) <= limit
                total += np.int64(t * unit)
            out[p] += total
        total = np.int64(0)
        for r in range(size):
            t = sq[r] if own else norms[a + r]
            ok &= abs(t) <= limit
            total += np.int64(t * unit)
        out[m] += total
    return ok


@functools.cache
def compiled_product_sums():
    return compile_kernel(_product_sums_kernel) if _compiled_helpers() else None


def projected_product_sums(
    rows: np.ndarray,
    components: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    norms: np.ndarray | None,
    bits: int,
    limit: float,
    compiled: bool = True,
    projections: np.ndarray | None = None,
) -> list[int] | None:
    """Exact column sums of the per-row terms ``[y_a y_b for (a, b) in zip(first, second)] + [norms_i]``, where
    y = :func:`fixed_order_project` of the row: each term truncated toward zero to a multiple of 2^-bits and
    summed as an integer (Python ints, one per term), or None when a term is not finite or exceeds ``limit``.
    ``norms`` None: each row's :func:`fixed_order_sq_norms`, computed in the same pass.

    One pass over the rows without forming the n x k projections (the compiled kernel projects a block of rows,
    then adds each row's products); the same integers as projecting, multiplying and summing with
    :func:`fixed_point_column_sums`, which the numpy path does. ``projections`` (n x k, optional) receives the
    projections the sums were made of: :func:`fixed_order_project` of the rows, bit for bit.
    """
    rows = np.asarray(rows, dtype=float)
    components = np.ascontiguousarray(components, dtype=float)
    first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    own = norms is None
    norms = np.empty(0) if own else np.asarray(norms, dtype=float)
    totals = [0] * (first.size + 1)
    no_rows = np.empty((0, components.shape[1]))
    if projections is not None and projections.shape != (rows.shape[0], components.shape[1]):
        raise ValueError(f"projections must have shape {(rows.shape[0], components.shape[1])}.")
    kernel = compiled_product_sums() if compiled and compiled_worth(rows.size * components.shape[1]) else None
    step = SUM_CHUNK if kernel is not None else max(1, (1 << 22) // max(first.size + components.shape[1] + 1, 1))
    for a in range(0, rows.shape[0], step):
        block = rows[a : a + step]
        block_norms = (
            norms if own and kernel is not None else (fixed_order_sq_norms(block) if own else norms[a : a + step])
        )
        proj = no_rows if projections is None else projections[a : a + step]
        if kernel is not None:
            sums = np.zeros(first.size + 1, dtype=np.int64)
            if not kernel(
                block,
                components,
                first,
                second,
                block_norms,
                float(2.0**bits),
                float(limit),
                sums,
                project_block_rows(*components.shape),
                proj,
            ):
                return None
        else:
            Y = fixed_order_project_numpy(block, components)
            if projections is not None:
                proj[...] = Y
            sums = fixed_point_column_sums(
                np.column_stack([Y[:, first] * Y[:, second], block_norms]), bits, limit, compiled=False
            )
            if sums is None:
                return None
        totals = [t + int(s) for t, s in zip(totals, sums.tolist())]
    return totals


def chunk_totals(n: int, width: int, block_sums) -> list[int] | None:
    """The totals, as Python ints, of ``block_sums(a, b)`` (int64 column sums of rows a to b, or None when a term
    is refused) over chunks of :data:`SUM_CHUNK` rows (whose int64 sums cannot overflow); None if any is None."""
    totals = [0] * width
    for a in range(0, n, SUM_CHUNK):
        sums = block_sums(a, min(a + SUM_CHUNK, n))
        if sums is None:
            return None
        totals = [t + int(v) for t, v in zip(totals, sums.tolist())]
    return totals


def fixed_point_totals(n: int, width: int, bits: int, limit: float, numpy_terms, kernel_sums=None) -> list[int] | None:
    """The exact column totals, as Python ints, of the terms of n rows (``width`` columns), each truncated toward
    zero to a multiple of 2^-bits; None when a term is not finite or exceeds ``limit``. Rows ``a`` to ``b`` of a
    chunk (:func:`chunk_totals`) are summed by ``kernel_sums(a, b, unit, limit, sums)`` (a compiled pass adding
    their truncated terms, times ``unit`` = 2^bits, into the int64 ``sums``; False when it refused one) where one is
    given, else by :func:`fixed_point_column_sums` of the array ``numpy_terms(a, b)``: the same integers."""
    unit = check_exact_range(bits, limit)

    def block_sums(a: int, b: int):
        if kernel_sums is None:
            return fixed_point_column_sums(numpy_terms(a, b), bits, limit, compiled=False)
        sums = np.zeros(width, dtype=np.int64)
        return sums if kernel_sums(a, b, unit, float(limit), sums) else None

    return chunk_totals(n, width, block_sums)


def _centred_kernel(rows, mean, scale, out):  # pragma: no cover - compiled
    n, d = rows.shape
    for i in range(n):
        for j in range(d):
            out[i, j] = (rows[i, j] - mean[j]) * scale
    return out


@functools.cache
def compiled_centred():
    return compile_kernel(_centred_kernel)


def centred(
    rows: np.ndarray, mean: np.ndarray, scale: float, compiled: bool = True, out: np.ndarray | None = None
) -> np.ndarray:
    """``(rows - mean) * scale`` in one pass (the same two roundings per entry as numpy's two passes), into ``out``
    (a new array by default)."""
    rows = np.asarray(rows, dtype=float)
    mean = np.ascontiguousarray(mean, dtype=float).reshape(-1)
    out = np.empty(rows.shape) if out is None else out
    kernel = compiled_centred() if compiled and compiled_worth(rows.size) else None
    if kernel is None:
        np.subtract(rows, mean, out=out)
        return np.multiply(out, scale, out=out)
    return kernel(rows, mean, float(scale), out)


def _scaled_centred_kernel(source, factors, mean, scale, out):  # pragma: no cover - compiled
    n, d = source.shape
    for i in range(n):
        f = factors[i]
        for j in range(d):
            out[i, j] = (source[i, j] * f - mean[j]) * scale
    return out


def _divided_centred_kernel(source, divisors, factors, mean, scale, out):  # pragma: no cover - compiled
    n, d = source.shape
    bad = 0
    for i in range(n):
        f = factors[i]
        for j in range(d):
            x = source[i, j]
            bad += 0 if x - x == 0.0 else 1  # counted, and returned: the divisions then run in SIMD lanes (2x)
            out[i, j] = ((x / divisors[j]) * f - mean[j]) * scale
    return bad


@functools.cache
def compiled_scaled_centred():
    return compile_kernel(_scaled_centred_kernel)


@functools.cache
def compiled_divided_centred():
    """The centring of rows stored divided by column scales, compiled with numpy's error model (the divisions in
    SIMD lanes, the quotients those numpy gives: :mod:`dppca_core.compiled.columns`)."""
    return compile_kernel(_divided_centred_kernel, error_model="numpy")


def scaled_centred(
    source: np.ndarray,
    factors: np.ndarray,
    mean: np.ndarray,
    scale: float,
    compiled: bool = True,
    out: np.ndarray | None = None,
    divisors: np.ndarray | None = None,
) -> np.ndarray:
    """``(source * factors[:, None] - mean) * scale`` in one pass: :func:`centred` of rows stored as raw rows and
    one factor per row (:meth:`dppca_core.data.prepare.PreparedData.scaled_parts`), without forming the scaled rows
    (the same three roundings per entry as numpy's three passes), into ``out`` (a new array by default).
    ``divisors``: the raw rows are divided by these column scales first (:meth:`dppca_core.data.prepare.
    PreparedData.row_parts`): ``((source / divisors) * factors[:, None] - mean) * scale``, four roundings per entry."""
    source = np.asarray(source, dtype=float)
    factors = np.ascontiguousarray(factors, dtype=float).reshape(-1)
    mean = np.ascontiguousarray(mean, dtype=float).reshape(-1)
    out = np.empty(source.shape) if out is None else out
    divided = divisors is not None
    if compiled and compiled_worth(source.size):
        kernel = compiled_divided_centred() if divided else compiled_scaled_centred()
    else:
        kernel = None
    if kernel is None:
        if divided:
            np.divide(source, divisors, out=out)
            np.multiply(out, factors[:, None], out=out)
        else:
            np.multiply(source, factors[:, None], out=out)
        np.subtract(out, mean, out=out)
        return np.multiply(out, scale, out=out)
    if divided:
        kernel(source, np.ascontiguousarray(divisors, dtype=float), factors, mean, float(scale), out)
        return out
    return kernel(source, factors, mean, float(scale), out)


def _row_sums_kernel(source, divisors, factors, unit, limit, out, rows, write):  # pragma: no cover - compiled
    """The exact column sums of the rows ``(source[i] / divisors) * factors[i]`` (no division for empty ``divisors``),
    writing into ``rows`` nothing (``write`` 0), the scaled rows (1) or the divided ones (2) as it goes."""
    n, m = source.shape
    divided = divisors.shape[0] > 0
    acc = np.empty(m)
    refused = 0
    for a in range(0, n, EXACT_FLOAT_ROWS):  # the integers summed exactly in floats (see EXACT_FLOAT_ROWS)
        for c in range(m):
            acc[c] = 0.0
        for i in range(a, min(a + EXACT_FLOAT_ROWS, n)):
            f = factors[i]
            for c in range(m):
                q = source[i, c] / divisors[c] if divided else source[i, c]  # the divided table's entry
                t = q * f  # the scaled row's entry, the product PreparedData.rows forms
                if write:  # the rows formed as they are summed (the same speed either way: measured)
                    rows[i, c] = t if write == 1 else q
                refused += 0 if abs(t) <= limit else 1
                acc[c] += np.trunc(t * unit)
        for c in range(m):
            out[c] += np.int64(acc[c])
    return refused == 0


#: where the sums kernel writes nothing (it forms no rows): an empty array of the type a block of rows has, and the
#: ``divisors`` of rows that are not divided
_NOWHERE, NO_DIVISORS = np.empty((0, 0)), np.empty(0)


@functools.cache
def compiled_row_sums():
    """The sums kernel with numpy's error model (a division by zero gives inf, as numpy's does: no divisor checked)."""
    return compile_kernel(_row_sums_kernel, error_model="numpy")


#: the kernel's name from when the scaled rows had one of their own
compiled_scaled_sums = compiled_row_sums


def scaled_row_sums(
    source: np.ndarray,
    factors: np.ndarray,
    bits: int,
    limit: float,
    compiled: bool = True,
    formed: np.ndarray | None = None,
) -> list[int] | None:
    """Exact column sums of the rows ``source[i] * factors[i]``, each entry truncated toward zero to a multiple of
    2^-bits, as Python ints (None when an entry is not finite or exceeds ``limit``): what summing the formed rows
    with :func:`fixed_point_column_sums` gives, in one pass without forming them. ``formed`` (an array of the shape
    of ``source``): receives the rows, formed in the same pass (the products ``source * factors[:, None]``)."""
    source = np.asarray(source, dtype=float)
    factors = np.ascontiguousarray(factors, dtype=float).reshape(-1)
    kernel = compiled_row_sums() if compiled and compiled_worth(source.size) else None

    def numpy_terms(a: int, b: int) -> np.ndarray:
        return np.multiply(source[a:b], factors[a:b, None], out=None if formed is None else formed[a:b])

    def kernel_sums(a: int, b: int, unit: float, limit: float, sums: np.ndarray) -> bool:
        into, write = (_NOWHERE, 0) if formed is None else (formed[a:b], 1)
        return kernel(source[a:b], NO_DIVISORS, factors[a:b], unit, limit, sums, into, write)

    return fixed_point_totals(*source.shape, bits, limit, numpy_terms, None if kernel is None else kernel_sums)


# ------------------------------------------------------------------------------ CoinPress's clipped whitened rows
#
# Each step of CoinPress (dppca_core.mechanisms.coinpress) maps every row z by a public matrix A (w = A z), compares
# the mapped row's norm with the step's radius r and scales the row down to r where it is longer, then adds w w^T to
# the step's Gram matrix. The norm is compared with a threshold, so it must be computed the same way whatever runs it
# (docs/privacy.md, "Three rules", rule 2): every entry of w is summed in a fixed column order (the arithmetic of
# fixed_order_project), the squared norm likewise over the entries of w in order, and the clip factor is
# min(1, r / max(||w||, 1e-300)). The compiled kernel does the three in one pass over a block of rows (its rows in
# SIMD lanes, each sum still in order); without numba the numpy loops run, with the same bits (tested). The Gram
# matrix of the clipped rows is then one BLAS product per block, on the same blocks either way.


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
    return compile_kernel(_clipped_whitened_kernel) if _compiled_helpers() else None


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

"""Karney's exact samplers (:mod:`dppca_core.privacy.exact`) compiled by numba, drawing the same words in the same order.

:mod:`dppca_core.privacy.exact` draws exact Gaussian and Laplace noise with integer arithmetic on uniform 64-bit words: one
sample at a time below :data:`~dppca_core.privacy.exact.VECTOR_MIN` draws, in lockstep over all samples above. Both are
Python loops (the lockstep one over numpy arrays), whose cost per release is fixed: about 13 microseconds per draw
one at a time and 7 in lockstep, so a score histogram of 1,600 cells cost 11 ms. The kernels here run the same
algorithms (N, H and B of Karney 2016; von Neumann's exponential) with the same order of draws: each word comes
from the release's bit generator through its C entry point (``bit_generator.ctypes.next_uint64``, the function
``random_raw`` calls), so a seeded release gives the same bits compiled or not.

Two events are left to the Python code, which decides them exactly with further digits: two uniform deviates
whose first 64-bit digits are equal (probability 2^-64 per comparison), and a value within a proven rounding
margin of a grid cell boundary. The kernel then stops (:class:`NeedsExactPath`), the generator is put back in the
state it had before the draw, and the Python sampler makes the whole draw from there: the same stream from the
start. The kernels never decide such an event themselves, so their output is the Python sampler's output in every
case.
"""

from __future__ import annotations

import functools

import numpy as np

from .loops import compile_kernel

#: words per block of the one-at-a-time sampler (samplers._BLOCK): drawn at once, used from the last one back
BLOCK = 256
_HALF = np.uint64(1 << 63)
_TWO_M64 = 2.0**-64
_U = 2.0**-53
#: largest cell the float decision returns (beyond it, the Python sampler decides with Python integers)
_MAX_CELL = 2.0**62


class NeedsExactPath(Exception):
    """A draw met an event the kernel leaves to the Python sampler (a tie of first digits, a value at a cell
    boundary)."""


# -- the word stream ---------------------------------------------------------------------------------------------


def _next(fn, state):  # pragma: no cover - compiled
    """The next 64-bit word of the generator (its C entry point: the function ``random_raw`` calls)."""
    return fn(state)


def _raw(fn, state, size):  # pragma: no cover - compiled
    """``random_raw(size)``: ``size`` consecutive words."""
    out = np.empty(size, dtype=np.uint64)
    for i in range(size):
        out[i] = _next(fn, state)
    return out


def _word(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers.WordSource.word: blocks of :data:`BLOCK` words, used from the last one back. counts[0]: words left."""
    if counts[0] == 0:
        for i in range(BLOCK):
            buf[i] = _next(fn, state)
        counts[0] = BLOCK
    counts[0] -= 1
    return buf[counts[0]]


def _below(fn, state, buf, counts, m):  # pragma: no cover - compiled
    """samplers.WordSource.below: a uniform integer in [0, m) by rejection, m >= 2 small."""
    mm = np.uint64(m)
    top = np.uint64(0xFFFFFFFFFFFFFFFF)
    if top % mm == mm - np.uint64(1):  # m divides 2^64: every word is kept
        return _word(fn, state, buf, counts) % mm
    limit = (top // mm) * mm  # (2^64 // m) * m when m does not divide 2^64
    while True:
        w = _word(fn, state, buf, counts)
        if w < limit:
            return w % mm


def _cell(k, x, s):  # pragma: no cover - compiled
    """floor(s (k + x / 2^64) + 1/2) when a float computation decides it beyond its proven error margin (the
    margin of vector_samplers._vector_round); else stop."""
    low = s * (float(k) + float(x) * _TWO_M64) + 0.5
    margin = 8.0 * _U * (s * (k + 1.0) + 1.0)
    if not abs(low) < _MAX_CELL:
        raise NeedsExactPath()
    lo_cell = np.floor(low - margin)
    if lo_cell != np.floor(low + s * _TWO_M64 + margin):
        raise NeedsExactPath()
    return np.int64(lo_cell)


# -- one sample at a time (exact._draw below VECTOR_MIN) ---------------------------------------------------------


def _s_exp_minus_half(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers._bernoulli_exp_minus_half."""
    first = _word(fn, state, buf, counts)
    if not first < _HALF:
        return True
    last, n = first, 1
    while True:
        z = _word(fn, state, buf, counts)
        if z == last:
            raise NeedsExactPath()
        if not z < last:
            return n % 2 == 0
        last, n = z, n + 1


def _s_bernoulli_b(fn, state, buf, counts, k, x_drawn, x):  # pragma: no cover - compiled
    """samplers._bernoulli_b; x's first digit is drawn at its first comparison, after the other deviate's.
    Returns (outcome, x_drawn, x)."""
    last, last_is_x, n, m = np.uint64(0), True, 0, 2 * k + 2
    while True:
        z = _word(fn, state, buf, counts)
        if not x_drawn:
            x, x_drawn = _word(fn, state, buf, counts), True
        ref = x if last_is_x else last
        if z == ref:
            raise NeedsExactPath()
        if not z < ref:
            break
        f = _below(fn, state, buf, counts, m)
        if f == np.uint64(2 * k):
            u = _word(fn, state, buf, counts)
            if u == x:
                raise NeedsExactPath()
            if not u < x:
                break
        elif f > np.uint64(2 * k):
            break
        last, last_is_x, n = z, False, n + 1
    return n % 2 == 0, x_drawn, x


def _s_half_normal(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers.half_normal_parts: (k, first digit of x)."""
    while True:
        k = 0
        while _s_exp_minus_half(fn, state, buf, counts):
            k += 1
        ok = True
        for _ in range(k * (k - 1)):
            if not _s_exp_minus_half(fn, state, buf, counts):
                ok = False
                break
        if not ok:
            continue
        x_drawn, x = False, np.uint64(0)
        for _ in range(k + 1):
            passed, x_drawn, x = _s_bernoulli_b(fn, state, buf, counts, k, x_drawn, x)
            if not passed:
                ok = False
                break
        if ok:
            return k, x


def _s_run_from_one(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers._bernoulli_exp_uniform(words, None): the first uniform is not compared; its digit is drawn at the
    second one's comparison, after the second one's."""
    last, last_drawn, n = np.uint64(0), False, 1
    while True:
        z = _word(fn, state, buf, counts)
        if not last_drawn:
            last, last_drawn = _word(fn, state, buf, counts), True
        if z == last:
            raise NeedsExactPath()
        if not z < last:
            return n % 2 == 0
        last, n = z, n + 1


def _s_run_below_fresh(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers._bernoulli_exp_uniform(words, x) for a fresh x: (outcome, first digit of x)."""
    x = np.uint64(0)
    last, n = np.uint64(0), 0
    while True:
        z = _word(fn, state, buf, counts)
        if n == 0:
            x = _word(fn, state, buf, counts)
            last = x
        if z == last:
            raise NeedsExactPath()
        if not z < last:
            return n % 2 == 0, x
        last, n = z, n + 1


def _s_exponential(fn, state, buf, counts):  # pragma: no cover - compiled
    """samplers.exponential_parts: (k, first digit of x)."""
    k = 0
    while _s_run_from_one(fn, state, buf, counts):
        k += 1
    while True:
        accepted, x = _s_run_below_fresh(fn, state, buf, counts)
        if accepted:
            return k, x


def _one_at_a_time(fn, state, size, laplace, s, out):  # pragma: no cover - compiled
    """exact._draw below VECTOR_MIN: deviate, cell, then a sign bit (samplers.WordSource.bit: low bit first)."""
    buf = np.empty(BLOCK, dtype=np.uint64)
    counts = np.zeros(1, dtype=np.int64)
    bits, nbits = np.uint64(0), 0
    for i in range(size):
        if laplace:
            k, x = _s_exponential(fn, state, buf, counts)
        else:
            k, x = _s_half_normal(fn, state, buf, counts)
        r = _cell(k, x, s)
        if nbits == 0:
            bits, nbits = _word(fn, state, buf, counts), 64
        nbits -= 1
        negative = (bits & np.uint64(1)) == np.uint64(1)
        bits = bits >> np.uint64(1)
        out[i] = -r if negative else r
    return out


# -- many samples in lockstep (vector_samplers.vector_draw) ---------------------------------------------------------------


def _v_exp_minus_half(fn, state, size):  # pragma: no cover - compiled
    """vector_samplers._vector_bernoulli_exp_minus_half."""
    first = _raw(fn, state, size)
    result = np.ones(size, dtype=np.bool_)
    active = np.empty(size, dtype=np.int64)
    last = np.empty(size, dtype=np.uint64)
    na = 0
    for i in range(size):
        if first[i] < _HALF:
            active[na], last[na] = i, first[i]
            na += 1
    n = 1
    while na > 0:
        z = _raw(fn, state, na)
        kept = 0
        for j in range(na):
            if z[j] == last[j]:
                raise NeedsExactPath()
        for j in range(na):
            if z[j] < last[j]:
                active[kept], last[kept] = active[j], z[j]
                kept += 1
            else:
                result[active[j]] = n % 2 == 0
        na, n = kept, n + 1
    return result


def _v_integers(fn, state, highs):  # pragma: no cover - compiled
    """samplers.WordSource.integers: uniform integers in [0, highs[i]) by rejection rounds."""
    size = highs.size
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    nt = size
    while nt > 0:
        w = _raw(fn, state, nt)
        left = 0
        for j in range(nt):
            h = highs[todo[j]]
            floor = (np.uint64(0) - h) % h  # 2^64 mod h
            if w[j] >= floor:
                out[todo[j]] = np.int64(w[j] % h)
            else:
                todo[left] = todo[j]
                left += 1
        nt = left
    return out


def _v_bernoulli_b(fn, state, k, x):  # pragma: no cover - compiled
    """vector_samplers._vector_bernoulli_b (every sample has its own copy of its deviate's first digit)."""
    size = k.size
    result = np.zeros(size, dtype=np.bool_)
    active = np.arange(size)
    last = x.copy()
    na, n = size, 0
    passes = np.empty(size, dtype=np.bool_)
    while na > 0:
        z = _raw(fn, state, na)
        highs = np.empty(na, dtype=np.uint64)
        for j in range(na):
            if z[j] == last[active[j]]:
                raise NeedsExactPath()
            highs[j] = np.uint64(2 * k[active[j]] + 2)
        f = _v_integers(fn, state, highs)
        edges = 0
        for j in range(na):
            two_k = 2 * k[active[j]]
            descending = z[j] < last[active[j]]
            passes[j] = descending and f[j] < two_k
            if descending and f[j] == two_k:
                edges += 1
        if edges:
            u = _raw(fn, state, edges)
            e = 0
            for j in range(na):
                if z[j] < last[active[j]] and f[j] == 2 * k[active[j]]:
                    if u[e] == x[active[j]]:
                        raise NeedsExactPath()
                    passes[j] = u[e] < x[active[j]]
                    e += 1
        na, n = _step_runs(active, na, passes, z, last, result, n), n + 1
    return result


def _count_successes(k, counting, nc, success):  # pragma: no cover - compiled
    """One lockstep round of "count successes before the first failure": the samples counting[:nc] whose trial
    succeeded add one to k and keep counting, in order. Returns how many keep counting."""
    kept = 0
    for j in range(nc):
        if success[j]:
            k[counting[j]] += 1
            counting[kept] = counting[j]
            kept += 1
    return kept


def _step_runs(active, na, go, z, last, result, n):  # pragma: no cover - compiled
    """One lockstep step of decreasing runs: the runs that go on (``go``) take their new last value and stay
    active, in order; the others stop with outcome "length n is even". Returns how many go on."""
    kept = 0
    for j in range(na):
        i = active[j]
        if go[j]:
            last[i] = z[j]
            active[kept] = i
            kept += 1
        else:
            result[i] = n % 2 == 0
    return kept


def _all_per_sample(trials, counts):  # pragma: no cover - compiled
    """vector_samplers._all_per_sample: sample i owns counts[i] consecutive trials; all of them True."""
    out = np.ones(counts.size, dtype=np.bool_)
    at = 0
    for i in range(counts.size):
        for t in range(at, at + counts[i]):
            if not trials[t]:
                out[i] = False
        at += counts[i]
    return out


def _v_half_normal(fn, state, size):  # pragma: no cover - compiled
    """vector_samplers.vector_half_normal: (k, first digits of x)."""
    k_out = np.empty(size, dtype=np.int64)
    x_out = np.empty(size, dtype=np.uint64)
    pending = np.arange(size)
    npend = size
    while npend > 0:
        k = np.zeros(npend, dtype=np.int64)
        counting = np.arange(npend)
        nc = npend
        while nc > 0:  # N1
            nc = _count_successes(k, counting, nc, _v_exp_minus_half(fn, state, nc))
        pairs = k * (k - 1)  # N2
        ok = _all_per_sample(_v_exp_minus_half(fn, state, int(pairs.sum())), pairs)
        cand = np.flatnonzero(ok)
        x = _raw(fn, state, cand.size)  # N3
        kc = k[cand]
        runs = kc + 1  # N4: k + 1 runs of algorithm B on the same x
        owner = np.repeat(np.arange(cand.size), runs)
        accepted = _all_per_sample(_v_bernoulli_b(fn, state, kc[owner], x[owner]), runs)
        done = np.zeros(npend, dtype=np.bool_)
        for c in range(cand.size):
            if accepted[c]:
                target = pending[cand[c]]
                k_out[target], x_out[target] = kc[c], x[c]
                done[cand[c]] = True
        kept = 0
        for j in range(npend):
            if not done[j]:
                pending[kept] = pending[j]
                kept += 1
        npend = kept
    return k_out, x_out


def _v_run_even(fn, state, size, start, from_start):  # pragma: no cover - compiled
    """vector_samplers._vector_run_even: from 1 (``from_start`` False) or below ``start``."""
    result = np.zeros(size, dtype=np.bool_)
    active = np.arange(size)
    na, n = size, 1
    if not from_start:
        last = _raw(fn, state, size)
    else:
        last = _raw(fn, state, size)
        for i in range(size):
            if last[i] == start[i]:
                raise NeedsExactPath()
        na = 0
        for i in range(size):
            if last[i] < start[i]:
                active[na] = i
                na += 1
            else:
                result[i] = True
    go = np.empty(size, dtype=np.bool_)
    while na > 0:
        z = _raw(fn, state, na)
        for j in range(na):
            if z[j] == last[active[j]]:
                raise NeedsExactPath()
            go[j] = z[j] < last[active[j]]
        na, n = _step_runs(active, na, go, z, last, result, n), n + 1
    return result


def _v_exponential(fn, state, size):  # pragma: no cover - compiled
    """vector_samplers.vector_exponential: (k, first digits of x)."""
    k = np.zeros(size, dtype=np.int64)
    counting = np.arange(size)
    nc = size
    none = np.empty(0, dtype=np.uint64)
    while nc > 0:
        nc = _count_successes(k, counting, nc, _v_run_even(fn, state, nc, none, False))
    x_out = np.empty(size, dtype=np.uint64)
    pending = np.arange(size)
    npend = size
    while npend > 0:
        x = _raw(fn, state, npend)
        ok = _v_run_even(fn, state, npend, x, True)
        kept = 0
        for j in range(npend):
            if ok[j]:
                x_out[pending[j]] = x[j]
            else:
                pending[kept] = pending[j]
                kept += 1
        npend = kept
    return k, x_out


def _lockstep(fn, state, size, laplace, s, out):  # pragma: no cover - compiled
    """vector_samplers.vector_draw: deviates in lockstep, their cells, then one word per sample for the signs."""
    if laplace:
        k, x = _v_exponential(fn, state, size)
    else:
        k, x = _v_half_normal(fn, state, size)
    for i in range(size):
        out[i] = _cell(k[i], x[i], s)
    signs = _raw(fn, state, size)
    for i in range(size):
        if signs[i] & np.uint64(1):
            out[i] = -out[i]
    return out


_HELPERS = (
    _next,
    _raw,
    _word,
    _below,
    _cell,
    _s_exp_minus_half,
    _s_bernoulli_b,
    _s_half_normal,
    _s_run_from_one,
    _s_run_below_fresh,
    _s_exponential,
    _v_exp_minus_half,
    _v_integers,
    _v_bernoulli_b,
    _all_per_sample,
    _v_half_normal,
    _v_run_even,
    _v_exponential,
    _step_runs,
    _count_successes,
)


@functools.cache
def compiled_samplers():
    """(one_at_a_time, lockstep) compiled by numba, or None without numba. The helpers are compiled first (each
    kernel calls them as compiled functions)."""
    import sys

    module = sys.modules[__name__]
    for helper in _HELPERS:
        jitted = compile_kernel(helper)
        if jitted is None:
            return None
        setattr(module, helper.__name__, jitted)
    return compile_kernel(_one_at_a_time), compile_kernel(_lockstep)


def draw(size: int, scale, rng: np.random.Generator, laplace: bool, lockstep: bool) -> np.ndarray | None:
    """The compiled draw of ``size`` rounded samples (int64), or None when the kernel left the draw to the Python
    sampler: the generator is then back in the state it had before the draw (saved, and restored), so the Python
    sampler reads the same words from the start."""
    kernels = compiled_samplers()
    bit_generator = rng.bit_generator
    kernel = kernels[1] if lockstep else kernels[0]
    out = np.empty(int(size), dtype=np.int64)
    interface = bit_generator.ctypes
    with bit_generator.lock:
        saved = bit_generator.state
        try:
            return kernel(interface.next_uint64, interface.state_address, int(size), bool(laplace), float(scale), out)
        except NeedsExactPath:
            bit_generator.state = saved
            return None

"""The samplers of :mod:`dppca_core.privacy.samplers` over many draws at once (used from ``VECTOR_MIN`` draws).

Every comparison of two uniform deviates is decided on their first 64-bit digits unless those are equal
(probability 2^-64), in which case more digits are drawn for both, exactly as the one-at-a-time code does; a grid
cell is decided in floating point unless the value lies within a proven error margin of a cell boundary, in which
case it is decided exactly with integer arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .samplers import LazyUniform, WordSource, round_scaled

_HALF_WORD = np.uint64(1 << 63)


class _Extensions:
    """Further digits (after the first 64-bit one) of some of a batch's uniform deviates, by sample index."""

    __slots__ = ("_more",)

    def __init__(self):
        self._more: dict[int, list[int]] = {}

    def digits(self, i: int, first: int) -> list[int]:
        return [int(first)] + self._more.get(i, [])

    def set(self, i: int, digits: list[int]) -> None:
        if len(digits) > 1:
            self._more[i] = digits[1:]
        else:
            self._more.pop(i, None)

    def move(self, src: "_Extensions", to, frm=None) -> None:
        """The deviates at positions ``to`` take over ``src``'s digits at positions ``frm`` (default: the same).

        Nothing to do in the usual case, where neither side holds a digit beyond the first."""
        if not self._more and not src._more:
            return
        to = np.asarray(to).tolist()
        frm = to if frm is None else np.asarray(frm).tolist()
        for t, f in zip(to, frm):
            more = src._more.get(f)
            if more:
                self._more[t] = list(more)
            else:
                self._more.pop(t, None)


def _less_exact(words: WordSource, a: list[int], b: list[int]) -> bool:
    """a < b for two deviates whose known digits are the lists a and b (extended in place as needed)."""
    j = 0
    while True:
        while len(a) <= j:
            a.append(words.word())
        while len(b) <= j:
            b.append(words.word())
        if a[j] != b[j]:
            return a[j] < b[j]
        j += 1


def _less(
    words: WordSource,
    z: np.ndarray,
    y: np.ndarray,
    y_ext: _Extensions,
    y_idx: np.ndarray,
    z_ext: _Extensions | None = None,
) -> np.ndarray:
    """z < y elementwise for fresh deviates z (first digits) and stored ones y (first digits + extensions at the
    sample indices ``y_idx``); ties in the first digit are decided exactly. ``z_ext`` receives the extra digits a
    tie drew for z (when z may be kept, as a run's new last value)."""
    out = z < y
    for pos in np.flatnonzero(z == y):
        i = int(y_idx[pos])
        a, b = [int(z[pos])], y_ext.digits(i, y[pos])
        out[pos] = _less_exact(words, a, b)
        y_ext.set(i, b)
        if z_ext is not None:
            z_ext.set(i, a)
    return out


def _raw(words: WordSource, size: int) -> np.ndarray:
    return words.raw(size)


def _vector_bernoulli_exp_minus_half(words: WordSource, size: int) -> np.ndarray:
    """``size`` independent Bernoulli(exp(-1/2)) draws (algorithm H, run in lockstep)."""
    first = _raw(words, size)
    result = np.ones(size, dtype=bool)
    active = np.flatnonzero(first < _HALF_WORD)  # the run started: z_1 < 1/2 (exact on the first digit)
    last, n = first[active], np.ones(active.size, dtype=np.int64)
    ext = _Extensions()
    while active.size:
        z = _raw(words, active.size)
        z_ext = _Extensions()
        go_on = _less(words, z, last, ext, active, z_ext)
        stop = ~go_on
        result[active[stop]] = n[stop] % 2 == 0
        ext.move(z_ext, active[go_on])
        active, last, n = active[go_on], z[go_on], n[go_on] + 1
    return result


def _vector_bernoulli_b(
    words: WordSource, k: np.ndarray, x: np.ndarray, x_ext: _Extensions, idx: np.ndarray
) -> np.ndarray:
    """Algorithm B for each sample: True with probability exp(-x (2k + x) / (2k + 2)).

    ``x`` holds the first digits of each sample's deviate and ``x_ext`` its further digits at positions ``idx``
    (several samples may share one deviate: every comparison with it reads and extends the same digits)."""
    size = k.size
    result = np.zeros(size, dtype=bool)
    n = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    last, last_ext = x.copy(), _Extensions()
    while active.size:
        z = _raw(words, active.size)
        z_ext = _Extensions()
        if n[active[0]] == 0:  # the first step compares with x itself (all samples take it together)
            descending = _less(words, z, x[active], x_ext, idx[active], z_ext)
            z_ext = _rekey(z_ext, idx[active], active)
        else:
            descending = _less(words, z, last[active], last_ext, active, z_ext)
        kk = k[active]
        f = words.integers(2 * kk + 2)
        passes = descending & (f < 2 * kk)
        edge = np.flatnonzero(descending & (f == 2 * kk))
        if edge.size:  # f = 2k: passes when a fresh uniform is below x
            u = _raw(words, edge.size)
            passes[edge] = _less(words, u, x[active[edge]], x_ext, idx[active[edge]])
        active = _run_step(result, n, last, last_ext, active, z, z_ext, passes)
    return result


def _run_step(result, n, last, last_ext: _Extensions, active, z, z_ext: _Extensions, go_on) -> np.ndarray:
    """One step of the runs of the ``active`` samples (state by sample position): a run that stops (not ``go_on``)
    settles ``result`` to whether its length ``n`` is even; one that goes on takes ``z`` (its further digits in
    ``z_ext``) as its last value and grows by one. Returns the samples still running."""
    stop = active[~go_on]
    result[stop] = n[stop] % 2 == 0
    keep = active[go_on]
    last[keep] = z[go_on]
    last_ext.move(z_ext, keep)
    n[keep] += 1
    return keep


def _rekey(ext: _Extensions, old: np.ndarray, new: np.ndarray) -> _Extensions:
    """The same digits keyed by ``new`` positions instead of ``old`` ones (empty in the usual case)."""
    out = _Extensions()
    if ext._more:
        out.move(ext, new, old)
    return out


def _all_per_sample(trials: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """For samples owning ``counts[i]`` consecutive trials: whether all of sample i's trials are True."""
    owners = np.repeat(np.arange(counts.size), counts)
    return np.bincount(owners[~trials], minlength=counts.size) == 0


def vector_half_normal(words: WordSource, size: int):
    """(k, first digits of x, extensions of x) with k + x exactly |N(0, 1)|, for ``size`` samples (algorithm N)."""
    k_out = np.empty(size, dtype=np.int64)
    x_out = np.empty(size, dtype=np.uint64)
    x_ext_out = _Extensions()
    pending = np.arange(size)
    while pending.size:
        p = pending.size
        k = np.zeros(p, dtype=np.int64)
        counting = np.arange(p)
        while counting.size:  # N1: successes of H before the first failure
            h = _vector_bernoulli_exp_minus_half(words, counting.size)
            k[counting[h]] += 1
            counting = counting[h]
        # N2: k (k - 1) more successes of H, all needed; N4: k + 1 runs of algorithm B on the same x, all needed.
        # All of a sample's trials are drawn at once (no early stop): the same acceptance event, fewer rounds.
        ok = _all_per_sample(_vector_bernoulli_exp_minus_half(words, int(np.sum(k * (k - 1)))), k * (k - 1))
        cand = np.flatnonzero(ok)
        x = _raw(words, cand.size)  # N3
        x_ext = _Extensions()
        kc = k[cand]
        owner = np.repeat(np.arange(cand.size), kc + 1)
        accepted = _all_per_sample(_vector_bernoulli_b(words, kc[owner], x[owner], x_ext, owner), kc + 1)
        done = cand[accepted]
        targets = pending[done]
        k_out[targets] = kc[accepted]
        x_out[targets] = x[accepted]
        x_ext_out.move(x_ext, targets, np.flatnonzero(accepted))
        keep = np.ones(p, dtype=bool)
        keep[done] = False
        pending = pending[keep]
    return k_out, x_out, x_ext_out


def _vector_run_even(
    words: WordSource, size: int, start: np.ndarray | None = None, start_ext: _Extensions | None = None
) -> np.ndarray:
    """von Neumann's run for each sample: uniforms z_1 > z_2 > ... below ``start`` (deviates: first digits, with
    further digits by position in ``start_ext``, read and extended in place), or below 1 when ``start`` is None; True
    when the run's length is even: probability exp(-start), or exp(-1)."""
    result = np.zeros(size, dtype=bool)
    active = np.arange(size)
    last_ext = _Extensions()
    if start is None:  # from 1: the first uniform always continues the run
        last, n = _raw(words, size), np.ones(size, dtype=np.int64)
    else:
        z = _raw(words, size)
        z_ext = _Extensions()
        go_on = _less(words, z, start, start_ext, active, z_ext)
        result[~go_on] = True  # a run of length 0
        last, n = z, np.ones(size, dtype=np.int64)
        last_ext = z_ext
        active = active[go_on]
    while active.size:
        z = _raw(words, active.size)
        z_ext = _Extensions()
        go_on = _less(words, z, last[active], last_ext, active, z_ext)
        active = _run_step(result, n, last, last_ext, active, z, z_ext, go_on)
    return result


def vector_exponential(words: WordSource, size: int):
    """(k, first digits of x, extensions of x) with k + x exactly Exp(1), for ``size`` samples (von Neumann)."""
    k = np.zeros(size, dtype=np.int64)
    counting = np.arange(size)
    while counting.size:
        h = _vector_run_even(words, counting.size)
        k[counting[h]] += 1
        counting = counting[h]
    x_out = np.empty(size, dtype=np.uint64)
    x_ext_out = _Extensions()
    pending = np.arange(size)
    while pending.size:
        x = _raw(words, pending.size)
        x_ext = _Extensions()
        ok = _vector_run_even(words, pending.size, x, x_ext)
        x_out[pending[ok]] = x[ok]
        # the run may have drawn further digits of x (a tie): they belong to x, which the rounding reads
        x_ext_out.move(x_ext, pending[ok], np.flatnonzero(ok))
        pending = pending[~ok]
    return k, x_out, x_ext_out


def _vector_round(words: WordSource, k: np.ndarray, x: np.ndarray, x_ext: _Extensions, scale: Fraction) -> np.ndarray:
    """floor(scale (k + x) + 1/2) for each sample, exactly: decided in float64 when the value is farther than a
    proven rounding margin from a cell boundary, else with integer arithmetic on x's digits."""
    s = float(scale)
    low = s * (k + x.astype(float) * 2.0**-64) + 0.5
    # |low - exact lower end| <= 8 u (s (k + 1) + 1) covers every rounding above (x to float, the product and sums);
    # x's undrawn digits add up to s 2^-64 above the lower end
    margin = 8.0 * 2.0**-53 * (s * (k + 1.0) + 1.0)
    lo_cell, hi_cell = np.floor(low - margin), np.floor(low + s * 2.0**-64 + margin)
    out = lo_cell.astype(np.int64)
    for i in np.flatnonzero(lo_cell != hi_cell):
        digits = x_ext.digits(int(i), x[i])
        u = LazyUniform(words)
        u.digits = digits
        out[i] = round_scaled(int(k[i]), u, scale)
    return out


def vector_draw(size: int, scale: Fraction, rng: np.random.Generator, deviate) -> np.ndarray:
    words = WordSource(rng)
    k, x, x_ext = deviate(words, size)
    magnitude = _vector_round(words, k, x, x_ext, scale)
    signs = (words.raw(size) & np.uint64(1)).astype(bool)
    return np.where(signs, -magnitude, magnitude)

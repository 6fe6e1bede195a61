"""Exact integer noise: what a release adds to a published value, drawn with integer arithmetic only.

Why. A published ``value + noise`` computed in floating point can give the value away through its low-order bits:
numpy's ``normal(0, s)`` returns ``s`` times one of a finite set of floats, and ``laplace`` is ``s log(2U)`` on a
2^-53 grid, so ``published - value`` is often a float the sampler can never produce under one of two neighbouring
datasets (Mironov, CCS 2012; Jin, McMurtry, Rubinstein & Ohrimenko, IEEE S&P 2022). Here every such value is
released on a grid, with integer noise:

* the statistic is rounded to a public power-of-two grid ``gamma`` (exact in float64: a division by a power of two),
  which the calibration adds to its sensitivity (:func:`dppca_core.privacy.grid_noise`);
* the noise is the continuous Gaussian (or Laplace) mechanism's noise **rounded to the nearest grid point**:
  ``round(scale * G)`` for G exactly N(0, 1) (or Laplace). Since the rounded statistic is itself on the grid,
  ``round(q + scale G) = q + round(scale G)``: the release is a *post-processing* of the textbook Gaussian (Laplace)
  mechanism on the rounded statistic, so it keeps that mechanism's exact guarantee (mu-Gaussian DP, or pure
  epsilon-DP) and composes with the other Gaussian parts of a release exactly as before;
* the sample is exact: G is drawn by Karney's algorithm (ACM TOMS 42(1), 2016, "Sampling exactly from the normal
  distribution", algorithms N, H and B), which uses only uniform integers and comparisons of uniform deviates whose
  64-bit digits are drawn when a comparison needs them; the rounding ``round(scale G)`` for a rational ``scale`` is
  decided exactly by drawing more digits of G until the grid cell is certain. Laplace noise is a random sign times
  an exact Exp(1) deviate (von Neumann 1951), rounded the same way;
* the published number is ``integer * gamma``, exact in float64 below 2^53 (beyond, the float rounds the exact
  noisy integer: a post-processing that reveals nothing more).

Every random word comes from the release's generator (``rng.bit_generator.random_raw``): a seeded PCG64 when
exploring, ChaCha20 keyed from the operating system for a release to publish (:mod:`dppca_core.privacy.randomness`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..compiled.kernels import (SUM_CHUNK, clipped_square_sums, compiled_worth, fixed_point_column_sums,
                      projected_product_sums, scaled_row_sums)

_WORD = 1 << 64
#: words drawn from the generator at a time (the unused rest of a block is discarded; a seeded run still reproduces)
_BLOCK = 256
#: largest integer a float64 holds exactly, plus one
_EXACT_INT = 1 << 53


#: bit generators whose ``random_raw`` gives full 64-bit words (numpy's MT19937 gives 32-bit ones)
_RAW64 = {"PCG64", "PCG64DXSM", "Philox", "SFC64", "ChaCha"}
_MAX64 = np.iinfo(np.uint64).max


class _Words:
    """Uniform 64-bit words from a numpy Generator, drawn a block at a time: straight from its bit generator when
    that gives 64-bit words, else through ``Generator.integers`` over the full 64-bit range."""

    __slots__ = ("_raw", "_buf", "_bits", "_nbits")

    def __init__(self, rng: np.random.Generator):
        if type(rng.bit_generator).__name__ in _RAW64:
            self._raw = rng.bit_generator.random_raw
        else:
            self._raw = lambda size: rng.integers(0, _MAX64, size, dtype=np.uint64, endpoint=True)
        self._buf: list[int] = []
        self._bits = 0
        self._nbits = 0

    def word(self) -> int:
        if not self._buf:
            self._buf = self._raw(_BLOCK).tolist()
        return self._buf.pop()

    def bit(self) -> int:
        if self._nbits == 0:
            self._bits, self._nbits = self.word(), 64
        self._nbits -= 1
        bit = self._bits & 1
        self._bits >>= 1
        return bit

    def raw(self, size: int) -> np.ndarray:
        """``size`` uniform 64-bit words as a uint64 array (straight from the generator)."""
        return self._raw(int(size)) if size else np.empty(0, dtype=np.uint64)

    def integers(self, highs: np.ndarray) -> np.ndarray:
        """Uniform integers in [0, highs[i]) (highs >= 1), exactly: a word w is kept when w >= 2^64 mod h, whose
        complement [2^64 mod h, 2^64) holds a whole number of periods of h; then w mod h is uniform."""
        highs = np.asarray(highs, dtype=np.uint64)
        out = np.empty(highs.size, dtype=np.uint64)
        todo = np.arange(highs.size)
        while todo.size:
            h = highs[todo]
            w = self.raw(todo.size)
            floor = (np.uint64(0) - h) % h  # 2^64 mod h, in wrapping uint64 arithmetic
            ok = w >= floor
            out[todo[ok]] = w[ok] % h[ok]
            todo = todo[~ok]
        return out.astype(np.int64)

    def below(self, m: int) -> int:
        """A uniform integer in [0, m), 1 <= m <= 2^64, by rejection (no modulo bias)."""
        limit = (_WORD // m) * m
        while True:
            w = self.word()
            if w < limit:
                return w % m


class _Uniform:
    """A uniform deviate in (0, 1) whose 64-bit binary digits are drawn only when a comparison needs them.

    Undrawn digits are uniform and independent of everything so far, so comparisons decided on the drawn digits are
    exact (Karney 2016, section 2).
    """

    __slots__ = ("_words", "digits")

    def __init__(self, words: _Words):
        self._words = words
        self.digits: list[int] = []

    def digit(self, i: int) -> int:
        while len(self.digits) <= i:
            self.digits.append(self._words.word())
        return self.digits[i]

    def less(self, other: "_Uniform") -> bool:
        i = 0
        while True:
            a, b = self.digit(i), other.digit(i)
            if a != b:
                return a < b
            i += 1

    def less_than_half(self) -> bool:
        return self.digit(0) < (_WORD >> 1)


def _bernoulli_exp_minus_half(words: _Words) -> bool:
    """True with probability exp(-1/2) (Karney's algorithm H: von Neumann's decreasing run from 1/2).

    Draw uniforms z_1, z_2, ... while 1/2 > z_1 > z_2 > ...; the run's length n has P(n >= j) = (1/2)^j / j!, so
    P(n even) = sum_j (-1/2)^j / j! = exp(-1/2).
    """
    first = _Uniform(words)
    if not first.less_than_half():
        return True
    last, n = first, 1
    while True:
        z = _Uniform(words)
        if not z.less(last):
            return n % 2 == 0
        last, n = z, n + 1


def _bernoulli_exp_uniform(words: _Words, x: _Uniform | None) -> bool:
    """True with probability exp(-x) for a uniform deviate x in (0, 1), or exp(-1) when x is None (the run from 1)."""
    last, n = x, 0
    while True:
        z = _Uniform(words)
        if last is not None and not z.less(last):
            return n % 2 == 0
        last, n = z, n + 1


def _bernoulli_b(words: _Words, k: int, x: _Uniform) -> bool:
    """True with probability exp(-x (2k + x) / (2k + 2)) (Karney's algorithm B).

    A decreasing run x > z_1 > z_2 > ... in which each step also passes a test of probability (2k + x) / (2k + 2):
    a uniform f in {0, ..., 2k + 1} with f < 2k passes, f = 2k passes when a fresh uniform is below x, f = 2k + 1
    fails. P(run >= j) = (x p)^j / j! with p = (2k + x) / (2k + 2), so P(even) = exp(-x p).
    """
    last, n, m = x, 0, 2 * k + 2
    while True:
        z = _Uniform(words)
        if not z.less(last):
            break
        f = words.below(m)
        if f == 2 * k:
            if not _Uniform(words).less(x):
                break
        elif f > 2 * k:
            break
        last, n = z, n + 1
    return n % 2 == 0


def _half_normal(words: _Words) -> tuple[int, _Uniform]:
    """(k, x) with k + x distributed exactly as |N(0, 1)| (Karney's algorithm N).

    N1: k >= 0 with probability exp(-k/2)(1 - exp(-1/2)); N2: accept with probability exp(-k(k - 1)/2), so k has
    probability proportional to exp(-k^2/2); N3-N4: x uniform, accepted with probability exp(-x(2k + x)/2) by k + 1
    runs of algorithm B, so k + x has density proportional to exp(-(k + x)^2 / 2) on [0, inf).
    """
    while True:
        k = 0
        while _bernoulli_exp_minus_half(words):
            k += 1
        if not all(_bernoulli_exp_minus_half(words) for _ in range(k * (k - 1))):
            continue
        x = _Uniform(words)
        if all(_bernoulli_b(words, k, x) for _ in range(k + 1)):
            return k, x


def _exponential(words: _Words) -> tuple[int, _Uniform]:
    """(k, x) with k + x distributed exactly as Exp(1) (von Neumann 1951).

    k counts the successes of Bernoulli(exp(-1)) before the first failure (P(k) = e^-k (1 - e^-1)); x is a uniform
    accepted with probability exp(-x) (redrawn, keeping k, until accepted), so k + x has density e^-(k + x).
    """
    k = 0
    while _bernoulli_exp_uniform(words, None):
        k += 1
    while True:
        x = _Uniform(words)
        if _bernoulli_exp_uniform(words, x):
            return k, x


def _round_scaled(k: int, x: _Uniform, scale: Fraction) -> int:
    """floor(scale * (k + x) + 1/2) for a positive rational scale, exactly.

    With the first j digits of x known, x lies in [a / W, (a + 1) / W), W = 2^(64 j); draw digits until that whole
    interval, scaled and shifted, lies inside one unit cell.
    """
    p, q = scale.numerator, scale.denominator
    a, width, j = 0, 1, 0
    while True:
        a = (a << 64) | x.digit(j)
        width <<= 64
        j += 1
        den = 2 * q * width
        low = 2 * p * (k * width + a) + q * width  # den * (scale (k + a / W) + 1/2)
        cell = low // den
        if low + 2 * p <= (cell + 1) * den:  # the upper end scale (k + (a + 1) / W) + 1/2 stays in the cell
            return cell


def _draw(size: int, scale: Fraction, rng: np.random.Generator, deviate, vector_deviate,
          laplace: bool) -> np.ndarray:
    """One at a time below :data:`VECTOR_MIN` draws, in lockstep above; compiled where numba is installed
    (:mod:`dppca_core.compiled.exact_kernels`: the same words in the same order, so the same result)."""
    if not isinstance(scale, Fraction) or scale <= 0:
        raise ValueError(f"scale must be a positive Fraction (got {scale!r}).")
    size = int(size)
    lockstep = size >= VECTOR_MIN
    if COMPILED and _compiled_stream(rng) and compiled_worth(size * WORK_PER_DRAW):
        from ..compiled import exact_kernels

        if exact_kernels.compiled_samplers() is not None:
            out = exact_kernels.draw(size, scale, rng, laplace, lockstep)
            if out is not None:
                return out
    if lockstep:
        return _vector_draw(size, scale, rng, vector_deviate)
    words = _Words(rng)
    out = np.empty(size, dtype=np.int64)
    for i in range(out.size):
        k, x = deviate(words)
        r = _round_scaled(k, x, scale)
        out[i] = -r if words.bit() else r
    return out


#: draw with the compiled samplers when numba is installed (False: always the Python ones; same results)
COMPILED = True
#: a draw's weight in :func:`dppca_core.compiled.kernels.compiled_worth` (one Python draw costs about as much as 16 values
#: of a numpy pass): a draw of 65,536 values is worth importing numba for
WORK_PER_DRAW = 16


def _compiled_stream(rng: np.random.Generator) -> bool:
    """Whether the compiled samplers can read this generator's words: 64-bit words through its C interface."""
    return type(rng.bit_generator).__name__ in _RAW64 and hasattr(rng.bit_generator, "ctypes")


def rounded_normal(size: int, scale: Fraction, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws of round(scale * G), G ~ N(0, 1), exactly; int64 array.

    P(value = j) = Phi((j + 1/2) / scale) - Phi((j - 1/2) / scale) exactly (ties have probability 0).
    """
    return _draw(size, scale, rng, _half_normal, _vector_half_normal, False)


def rounded_laplace(size: int, scale: Fraction, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws of round(scale * L), L ~ Laplace(0, 1) (density e^-|l| / 2), exactly; int64 array."""
    return _draw(size, scale, rng, _exponential, _vector_exponential, True)


def on_grid(values, step: float, name: str = "statistic") -> np.ndarray:
    """``values`` rounded to the nearest multiple of the power-of-two ``step``, as integers (multiples of ``step``).

    Dividing by a power of two is exact in float64 (barring underflow), so only the rounding itself moves a value; a
    quotient of 2^53 or more is already an integer, converted exactly (int64, or Python integers beyond it).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.asarray(values, dtype=float) / step
    if not np.all(np.isfinite(scaled)):
        raise ValueError(f"the {name} is too large for its noise grid (value / {step:g} overflows); use a smaller "
                         "clipping radius or a smaller epsilon.")
    rounded = np.rint(scaled)
    if rounded.size and np.max(np.abs(rounded)) >= 2.0**62:
        return np.array([int(v) for v in rounded.ravel()], dtype=object).reshape(rounded.shape)
    return rounded.astype(np.int64)


#: fixed-point resolution of exact sums: each term is truncated toward zero to a multiple of 2^-SUM_BITS
SUM_BITS = 40
#: rows per int64 partial sum (2^22 terms of magnitude <= 2^40 + 2 stay below 2^63)
_SUM_CHUNK = SUM_CHUNK
#: the largest term accepted: 1, and a little rounding above it
_TERM_LIMIT = 1.0 + 1e-12


class FixedSums:
    """Column sums of per-row terms in [-1, 1], computed exactly: each term truncated toward zero to a multiple of
    2^-SUM_BITS (never larger in magnitude than the term), then summed in integer arithmetic.

    Why. A float64 sum errs by up to gamma_n times the sum of the absolute terms, a bound that grows with n (which is
    private under add/remove) and depends on the order of summation. Summed exactly, two neighbouring datasets' sums
    differ by exactly the difference of their differing rows' truncated terms, so the sensitivity needs only a
    per-row slack, known in advance (Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022, show what float sums cost).

    Parameters
    ----------
    terms : ndarray (n, m), optional
        Added at once; more blocks can follow with :meth:`add`.
    width : int, optional
        m, when no terms are given yet.
    """

    #: the largest error, per term, of the truncation to the fixed-point grid
    TRUNCATION = 2.0**-SUM_BITS

    def __init__(self, terms: np.ndarray | None = None, width: int | None = None):
        if terms is None and width is None:
            raise ValueError("FixedSums needs terms or a width.")
        self.totals = [0] * (int(width) if terms is None else np.asarray(terms).shape[1])
        if terms is not None:
            self.add(terms)

    def add(self, terms: np.ndarray) -> "FixedSums":
        terms = np.asarray(terms, dtype=float)
        if terms.ndim != 2 or terms.shape[1] != len(self.totals):
            raise ValueError(f"FixedSums takes blocks of shape (rows, {len(self.totals)}).")
        totals = self.totals
        for a in range(0, terms.shape[0], _SUM_CHUNK):  # one pass per block: check, truncate, sum (kernels.py)
            column_sums = fixed_point_column_sums(terms[a:a + _SUM_CHUNK], SUM_BITS, _TERM_LIMIT)
            if column_sums is None:
                raise ValueError("exact sums take terms in [-1, 1] (rows scaled to norm <= 1).")
            totals = [t + c for t, c in zip(totals, column_sums.tolist())]
        self.totals = totals
        return self

    @classmethod
    def of_projected_products(cls, rows: np.ndarray, components: np.ndarray, first, second,
                              norms: np.ndarray, projections: np.ndarray | None = None) -> "FixedSums":
        """The exact sums of each row's products ``y_a y_b`` of its projections y = ``rows @ components`` (summed in
        a fixed order per row, :func:`dppca_core.compiled.kernels.fixed_order_project`) for the pairs ``zip(first,
        second)``, and of ``norms`` (one term per row) last: what adding the block ``[Y[:, first] * Y[:, second],
        norms]`` gives, in one pass without the n x k projections (:func:`dppca_core.compiled.kernels.projected_product_sums`;
        ``projections``, n x k, receives them when given).
        """
        return cls._of_totals(projected_product_sums(rows, components, first, second, norms, SUM_BITS, _TERM_LIMIT,
                                                     projections=projections))

    @classmethod
    def of_clipped_squares(cls, X: np.ndarray, bounds) -> "FixedSums":
        """The exact column sums of ``min(|x_ij| / b_j, 1)^2`` (:func:`dppca_core.pipeline.choices.clipped_squares`): what
        ``FixedSums(clipped_squares(X, bounds))`` gives, in one pass (:func:`dppca_core.compiled.kernels.clipped_square_sums`)."""
        return cls._of_totals(clipped_square_sums(X, bounds, SUM_BITS, _TERM_LIMIT))

    @classmethod
    def of_scaled_rows(cls, source: np.ndarray, factors: np.ndarray) -> "FixedSums":
        """The exact column sums of the rows ``source[i] * factors[i]`` (raw rows and their clip factors,
        :meth:`dppca_core.data.prepare.PreparedData.scaled_parts`): what ``FixedSums(source * factors[:, None])`` gives,
        in one pass without forming the rows (:func:`dppca_core.compiled.kernels.scaled_row_sums`)."""
        return cls._of_totals(scaled_row_sums(source, factors, SUM_BITS, _TERM_LIMIT))

    @classmethod
    def _of_totals(cls, totals: list[int] | None) -> "FixedSums":
        if totals is None:
            raise ValueError("exact sums take terms in [-1, 1] (rows scaled to norm <= 1).")
        out = cls(width=len(totals))
        out.totals = totals
        return out

    def __len__(self) -> int:
        return len(self.totals)

    def values(self) -> np.ndarray:
        """The sums as floats (for post-processing and diagnostics; a release rounds the exact integers)."""
        return np.array([math.ldexp(t, -SUM_BITS) for t in self.totals])


def _exact_on_grid(sums: FixedSums, step: float) -> np.ndarray:
    """Exact sums rounded to the nearest multiple of the power-of-two ``step`` (ties to even), as integers."""
    mantissa, exponent = math.frexp(step)
    if mantissa != 0.5:
        raise ValueError(f"the grid step must be a power of two (got {step!r}).")
    shift = SUM_BITS + exponent - 1  # step = 2^(exponent - 1); a sum is total * 2^-SUM_BITS
    out = []
    for t in sums.totals:
        if shift <= 0:
            q = t << -shift
        else:
            q, r = divmod(t, 1 << shift)
            half = 1 << (shift - 1)
            if r > half or (r == half and q % 2 == 1):
                q += 1
        out.append(q)
    return np.array(out, dtype=np.int64 if all(abs(q) < 1 << 62 for q in out) else object)


def noisy_on_grid(values, step: float, scale: Fraction, rng: np.random.Generator, *, laplace: bool = False,
                  name: str = "statistic") -> np.ndarray:
    """The published ``values`` (floats, or :class:`FixedSums`): rounded to the grid ``step``, plus exact rounded
    noise of ``scale`` grid steps.

    Returns float64 multiples of ``step`` (integer * power of two: exact while |integer| < 2^53, else the float
    rounding of the exact noisy integer).
    """
    grid = _exact_on_grid(values, step) if isinstance(values, FixedSums) else on_grid(values, step, name)
    draw = rounded_laplace if laplace else rounded_normal
    noise = draw(grid.size, scale, rng).reshape(grid.shape)
    if grid.dtype == object or np.max(np.abs(grid), initial=0) >= (1 << 62) - (1 << 61):
        noisy = grid.astype(object) + noise.astype(object)  # exact in Python integers
    else:
        noisy = grid + noise
    # the release is the integer: as a float it is exact below 2^53 and beyond that a rounding of the integer (a
    # post-processing of the exact noisy value, which reveals nothing more)
    return np.array([float(v) for v in noisy.ravel()]).reshape(noisy.shape) * step if noisy.dtype == object \
        else noisy.astype(float) * step


#: significant bits kept when a noise scale is rounded up to a dyadic rational
SCALE_BITS = 40


def exact_scale(value: float) -> Fraction:
    """The smallest dyadic rational with :data:`SCALE_BITS` significant bits that is >= ``value`` (a noise scale
    rounded up: never less noise than calibrated, at most 2^-40 more)."""
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"a noise scale must be a finite number > 0 (got {value!r}).")
    shift = SCALE_BITS - math.frexp(value)[1]
    unit = Fraction(2) ** shift
    return Fraction(math.ceil(Fraction(value) * unit)) / unit


# ---------------------------------------------------------------------------------------------------------------
# The same samplers over many draws at once. Every comparison of two uniform deviates is decided on their first
# 64-bit digits unless those are equal (probability 2^-64), in which case more digits are drawn for both, exactly
# as the one-at-a-time code does; a grid cell is decided in floating point unless the value lies within a proven
# error margin of a cell boundary, in which case it is decided exactly with integer arithmetic.

#: below this many draws the one-at-a-time sampler is faster (numpy's per-call cost dominates; measured crossover
#: about 150 draws of the normal)
VECTOR_MIN = 128
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


def _less_exact(words: _Words, a: list[int], b: list[int]) -> bool:
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


def _less(words: _Words, z: np.ndarray, y: np.ndarray, y_ext: _Extensions, y_idx: np.ndarray,
          z_ext: _Extensions | None = None) -> np.ndarray:
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


def _raw(words: _Words, size: int) -> np.ndarray:
    return words.raw(size)


def _vector_bernoulli_exp_minus_half(words: _Words, size: int) -> np.ndarray:
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


def _vector_bernoulli_b(words: _Words, k: np.ndarray, x: np.ndarray, x_ext: _Extensions,
                        idx: np.ndarray) -> np.ndarray:
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
        stop = active[~passes]
        result[stop] = n[stop] % 2 == 0
        keep = active[passes]
        last[keep] = z[passes]
        last_ext.move(z_ext, keep)
        n[keep] += 1
        active = keep
    return result


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


def _vector_half_normal(words: _Words, size: int):
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


def _vector_run_even(words: _Words, size: int, start: np.ndarray | None = None,
                     start_ext: _Extensions | None = None) -> np.ndarray:
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
        stop = active[~go_on]
        result[stop] = n[stop] % 2 == 0
        keep = active[go_on]
        last[keep] = z[go_on]
        last_ext.move(z_ext, keep)
        n[keep] += 1
        active = keep
    return result


def _vector_exponential(words: _Words, size: int):
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


def _vector_round(words: _Words, k: np.ndarray, x: np.ndarray, x_ext: _Extensions, scale: Fraction) -> np.ndarray:
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
        u = _Uniform(words)
        u.digits = digits
        out[i] = _round_scaled(int(k[i]), u, scale)
    return out


def _vector_draw(size: int, scale: Fraction, rng: np.random.Generator, deviate) -> np.ndarray:
    words = _Words(rng)
    k, x, x_ext = deviate(words, size)
    magnitude = _vector_round(words, k, x, x_ext, scale)
    signs = (words.raw(size) & np.uint64(1)).astype(bool)
    return np.where(signs, -magnitude, magnitude)

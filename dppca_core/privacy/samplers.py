"""The exact samplers of :mod:`dppca_core.privacy.exact`, one draw at a time: uniform deviates whose 64-bit digits are
drawn from the generator only when a comparison needs them (:class:`WordSource`, :class:`LazyUniform`), Karney's algorithms
N, H and B for the normal (ACM TOMS 42(1), 2016), von Neumann's exponential, and the exact rounding of
``scale * G`` to the grid.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

_WORD = 1 << 64


#: words drawn from the generator at a time (the unused rest of a block is discarded; a seeded run still reproduces)
_BLOCK = 256


#: largest integer a float64 holds exactly, plus one
_EXACT_INT = 1 << 53


#: bit generators whose ``random_raw`` gives full 64-bit words (numpy's MT19937 gives 32-bit ones)
RAW64_GENERATORS = {"PCG64", "PCG64DXSM", "Philox", "SFC64", "ChaCha"}


_MAX64 = np.iinfo(np.uint64).max


class WordSource:
    """Uniform 64-bit words from a numpy Generator, drawn a block at a time: straight from its bit generator when
    that gives 64-bit words, else through ``Generator.integers`` over the full 64-bit range."""

    __slots__ = ("_raw", "_buf", "_bits", "_nbits")

    def __init__(self, rng: np.random.Generator):
        if type(rng.bit_generator).__name__ in RAW64_GENERATORS:
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


class LazyUniform:
    """A uniform deviate in (0, 1) whose 64-bit binary digits are drawn only when a comparison needs them.

    Undrawn digits are uniform and independent of everything so far, so comparisons decided on the drawn digits are
    exact (Karney 2016, section 2).
    """

    __slots__ = ("_words", "digits")

    def __init__(self, words: WordSource):
        self._words = words
        self.digits: list[int] = []

    def digit(self, i: int) -> int:
        while len(self.digits) <= i:
            self.digits.append(self._words.word())
        return self.digits[i]

    def less(self, other: "LazyUniform") -> bool:
        i = 0
        while True:
            a, b = self.digit(i), other.digit(i)
            if a != b:
                return a < b
            i += 1

    def less_than_half(self) -> bool:
        return self.digit(0) < (_WORD >> 1)


def _bernoulli_exp_minus_half(words: WordSource) -> bool:
    """True with probability exp(-1/2) (Karney's algorithm H: von Neumann's decreasing run from 1/2).

    Draw uniforms z_1, z_2, ... while 1/2 > z_1 > z_2 > ...; the run's length n has P(n >= j) = (1/2)^j / j!, so
    P(n even) = sum_j (-1/2)^j / j! = exp(-1/2).
    """
    first = LazyUniform(words)
    if not first.less_than_half():
        return True
    last, n = first, 1
    while True:
        z = LazyUniform(words)
        if not z.less(last):
            return n % 2 == 0
        last, n = z, n + 1


def _bernoulli_exp_uniform(words: WordSource, x: LazyUniform | None) -> bool:
    """True with probability exp(-x) for a uniform deviate x in (0, 1), or exp(-1) when x is None (the run from 1)."""
    last, n = x, 0
    while True:
        z = LazyUniform(words)
        if last is not None and not z.less(last):
            return n % 2 == 0
        last, n = z, n + 1


def _bernoulli_b(words: WordSource, k: int, x: LazyUniform) -> bool:
    """True with probability exp(-x (2k + x) / (2k + 2)) (Karney's algorithm B).

    A decreasing run x > z_1 > z_2 > ... in which each step also passes a test of probability (2k + x) / (2k + 2):
    a uniform f in {0, ..., 2k + 1} with f < 2k passes, f = 2k passes when a fresh uniform is below x, f = 2k + 1
    fails. P(run >= j) = (x p)^j / j! with p = (2k + x) / (2k + 2), so P(even) = exp(-x p).
    """
    last, n, m = x, 0, 2 * k + 2
    while True:
        z = LazyUniform(words)
        if not z.less(last):
            break
        f = words.below(m)
        if f == 2 * k:
            if not LazyUniform(words).less(x):
                break
        elif f > 2 * k:
            break
        last, n = z, n + 1
    return n % 2 == 0


def half_normal_parts(words: WordSource) -> tuple[int, LazyUniform]:
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
        x = LazyUniform(words)
        if all(_bernoulli_b(words, k, x) for _ in range(k + 1)):
            return k, x


def exponential_parts(words: WordSource) -> tuple[int, LazyUniform]:
    """(k, x) with k + x distributed exactly as Exp(1) (von Neumann 1951).

    k counts the successes of Bernoulli(exp(-1)) before the first failure (P(k) = e^-k (1 - e^-1)); x is a uniform
    accepted with probability exp(-x) (redrawn, keeping k, until accepted), so k + x has density e^-(k + x).
    """
    k = 0
    while _bernoulli_exp_uniform(words, None):
        k += 1
    while True:
        x = LazyUniform(words)
        if _bernoulli_exp_uniform(words, x):
            return k, x


def round_scaled(k: int, x: LazyUniform, scale: Fraction) -> int:
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

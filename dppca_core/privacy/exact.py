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

from ..compiled.kernels import (
    SUM_CHUNK,
    compiled_worth,
    fixed_point_column_sums,
    projected_product_sums,
    scaled_row_sums,
)
from ..compiled.columns import clipped_square_sums
from .samplers import RAW64_GENERATORS, WordSource, exponential_parts, half_normal_parts, round_scaled
from .vector_samplers import vector_draw, vector_exponential, vector_half_normal


def _draw(size: int, scale: Fraction, rng: np.random.Generator, deviate, vector_deviate, laplace: bool) -> np.ndarray:
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
        return vector_draw(size, scale, rng, vector_deviate)
    words = WordSource(rng)
    out = np.empty(size, dtype=np.int64)
    for i in range(out.size):
        k, x = deviate(words)
        r = round_scaled(k, x, scale)
        out[i] = -r if words.bit() else r
    return out


#: draw with the compiled samplers when numba is installed (False: always the Python ones; same results)
COMPILED = True
#: a draw's weight in :func:`dppca_core.compiled.kernels.compiled_worth` (one Python draw costs about as much as 16 values
#: of a numpy pass): a draw of 65,536 values is worth importing numba for
WORK_PER_DRAW = 16


def _compiled_stream(rng: np.random.Generator) -> bool:
    """Whether the compiled samplers can read this generator's words: 64-bit words through its C interface."""
    return type(rng.bit_generator).__name__ in RAW64_GENERATORS and hasattr(rng.bit_generator, "ctypes")


def rounded_normal(size: int, scale: Fraction, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws of round(scale * G), G ~ N(0, 1), exactly; int64 array.

    P(value = j) = Phi((j + 1/2) / scale) - Phi((j - 1/2) / scale) exactly (ties have probability 0).
    """
    return _draw(size, scale, rng, half_normal_parts, vector_half_normal, False)


def rounded_laplace(size: int, scale: Fraction, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws of round(scale * L), L ~ Laplace(0, 1) (density e^-|l| / 2), exactly; int64 array."""
    return _draw(size, scale, rng, exponential_parts, vector_exponential, True)


def on_grid(values, step: float, name: str = "statistic") -> np.ndarray:
    """``values`` rounded to the nearest multiple of the power-of-two ``step``, as integers (multiples of ``step``).

    Dividing by a power of two is exact in float64 (barring underflow), so only the rounding itself moves a value; a
    quotient of 2^53 or more is already an integer, converted exactly (int64, or Python integers beyond it).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.asarray(values, dtype=float) / step
    if not np.all(np.isfinite(scaled)):
        raise ValueError(
            f"the {name} is too large for its noise grid (value / {step:g} overflows); use a smaller "
            "clipping radius or a smaller epsilon."
        )
    rounded = np.rint(scaled)
    if rounded.size and np.max(np.abs(rounded)) >= 2.0**62:
        return np.array([int(v) for v in rounded.ravel()], dtype=object).reshape(rounded.shape)
    return rounded.astype(np.int64)


#: fixed-point resolution of exact sums: each term is truncated toward zero to a multiple of 2^-SUM_BITS
SUM_BITS = 40
#: rows per int64 partial sum (2^22 terms of magnitude <= 2^40 + 2 stay below 2^63)
_SUM_CHUNK = SUM_CHUNK
#: the largest term accepted: 1, and a little rounding above it
TERM_LIMIT = _TERM_LIMIT = 1.0 + 1e-12


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
            column_sums = fixed_point_column_sums(terms[a : a + _SUM_CHUNK], SUM_BITS, _TERM_LIMIT)
            if column_sums is None:
                raise ValueError("exact sums take terms in [-1, 1] (rows scaled to norm <= 1).")
            totals = [t + c for t, c in zip(totals, column_sums.tolist())]
        self.totals = totals
        return self

    @classmethod
    def of_projected_products(
        cls,
        rows: np.ndarray,
        components: np.ndarray,
        first,
        second,
        norms: np.ndarray | None = None,
        projections: np.ndarray | None = None,
    ) -> "FixedSums":
        """The exact sums of each row's products ``y_a y_b`` of its projections y = ``rows @ components`` (summed in
        a fixed order per row, :func:`dppca_core.compiled.kernels.fixed_order_project`) for the pairs ``zip(first,
        second)``, and of ``norms`` (one term per row) last: what adding the block ``[Y[:, first] * Y[:, second],
        norms]`` gives, in one pass without the n x k projections (:func:`dppca_core.compiled.kernels.projected_product_sums`;
        ``projections``, n x k, receives them when given). ``norms`` None: each row's squared norm summed in column
        order in the same pass (:func:`dppca_core.compiled.kernels.fixed_order_sq_norms`).
        """
        return cls._of_totals(
            projected_product_sums(
                rows, components, first, second, norms, SUM_BITS, _TERM_LIMIT, projections=projections
            )
        )

    @classmethod
    def of_clipped_squares(cls, X: np.ndarray, bounds) -> "FixedSums":
        """The exact column sums of ``min(|x_ij| / b_j, 1)^2`` (:func:`dppca_core.pipeline.choices.clipped_squares`): what
        ``FixedSums(clipped_squares(X, bounds))`` gives, in one pass (:func:`dppca_core.compiled.columns.clipped_square_sums`)."""
        return cls._of_totals(clipped_square_sums(X, bounds, SUM_BITS, _TERM_LIMIT))

    @classmethod
    def of_scaled_rows(cls, source: np.ndarray, factors: np.ndarray) -> "FixedSums":
        """The exact column sums of the rows ``source[i] * factors[i]`` (raw rows and their clip factors,
        :meth:`dppca_core.data.prepare.PreparedData.scaled_parts`): what ``FixedSums(source * factors[:, None])`` gives,
        in one pass without forming the rows (:func:`dppca_core.compiled.kernels.scaled_row_sums`)."""
        return cls._of_totals(scaled_row_sums(source, factors, SUM_BITS, _TERM_LIMIT))

    @classmethod
    def of_totals(cls, totals: list[int] | None) -> "FixedSums":
        """The sums from their integer totals (e.g. :attr:`dppca_core.data.prepare.PreparedData.row_sums`, formed
        by the same truncation); ValueError for None (a term was out of range)."""
        return cls._of_totals(None if totals is None else list(totals))

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


def noisy_on_grid(
    values, step: float, scale: Fraction, rng: np.random.Generator, *, laplace: bool = False, name: str = "statistic"
) -> np.ndarray:
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
    return (
        np.array([float(v) for v in noisy.ravel()]).reshape(noisy.shape) * step
        if noisy.dtype == object
        else noisy.astype(float) * step
    )


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


#: below this many draws the one-at-a-time sampler is faster (numpy's per-call cost dominates; measured crossover
#: about 150 draws of the normal)
VECTOR_MIN = 128

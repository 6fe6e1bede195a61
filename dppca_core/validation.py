"""Input checks shared by the library. Every failure is a ValueError saying what to change.

One rule per option: epsilon (:func:`check_epsilon`), delta (:func:`check_delta`), the number of components
(:func:`check_k`) and every bounded number (an :class:`Interval`, scikit-learn's ``Interval`` is the model) are
checked here and nowhere else; :class:`dppca_core.pipeline.options.ReleaseOptions` declares which rule each option
of a release follows, and a mechanism's parameters (:class:`dppca_core.registry.Param`) declare their range as an
:class:`Interval`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np


def _is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "to_numpy") and hasattr(getattr(X, "dtypes", None), "items")


def _is_series(X) -> bool:
    return hasattr(X, "to_numpy") and hasattr(X, "dtype") and not hasattr(X, "columns") and getattr(X, "ndim", 0) == 1


def check_matrix(X, *, name: str = "X", min_rows: int = 2, finite: bool = True) -> np.ndarray:
    """Return X as a finite 2-D float array with at least ``min_rows`` rows.

    Accepts arrays, nested lists and numeric DataFrames. Refuses, with a message saying what to do: a pandas
    Series (one column: say which shape you mean), masked arrays with masked entries, complex numbers, dates and
    times, text, NaN and infinities. ``finite=False``: NaN and infinities are left to the caller, which finds them
    in a pass of its own (and calls this function again to say where the first one is).
    """
    if np.ma.isMaskedArray(X):
        if np.ma.getmaskarray(X).any():
            raise ValueError(
                f"{name} is a masked array with masked entries; fill them (X.filled(value)) or drop "
                "those rows before the analysis."
            )
        X = np.ma.getdata(X)
    if _is_series(X):
        raise ValueError(
            f"{name} is a pandas Series (one column); pass a 2-D table: series.to_frame() for n rows "
            "of one feature, or a DataFrame with one column per feature."
        )
    if _is_dataframe(X):
        from pandas.api.types import is_bool_dtype, is_complex_dtype, is_numeric_dtype

        bad = [
            str(c) for c, t in X.dtypes.items() if not is_numeric_dtype(t) or is_bool_dtype(t) or is_complex_dtype(t)
        ]
        if bad:
            raise ValueError(f"non-numeric column(s) {bad[:10]}: drop them or encode them as numbers.")
        X = X.to_numpy(dtype=float)
    raw = np.asarray(X)
    if raw.dtype.kind in "mM":
        raise ValueError(
            f"{name} holds dates or times; convert them to numbers first (e.g. days since a public "
            "reference date) or drop those columns."
        )
    if raw.dtype.kind == "c" or (raw.dtype == object and any(isinstance(v, complex) for v in raw.ravel()[:1000])):
        raise ValueError(
            f"{name} holds complex numbers; PCA here is for real data: pass the real and imaginary "
            "parts as separate columns, or their magnitudes."
        )
    try:
        arr = raw.astype(float) if raw.dtype != float else raw
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(
            f"{name} must be numeric (a 2-D array of numbers); convert or drop non-numeric columns ({exc})."
        ) from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one row per record, one column per feature); got shape {arr.shape}.")
    n, d = arr.shape
    if d < 1:
        raise ValueError(f"{name} has no columns; give at least one numeric feature.")
    if n < min_rows:
        raise ValueError(f"{name} has {n} row(s); at least {min_rows} are needed. Add rows.")
    # a finite sum means every entry is finite (a NaN or an infinity makes it NaN or infinite): one pass without an
    # n x d mask; only a sum that is not finite (a bad entry, or an overflow of large ones) looks entry by entry
    if finite and not np.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        bad_rows, bad_cols = np.nonzero(~np.isfinite(arr))
        raise ValueError(
            f"{name} contains NaN or infinite values (first at row {bad_rows[0]}, column {bad_cols[0]}); "
            "drop or impute them first."
        )
    return arr


def check_k(k, d: int | None = None, *, name: str = "k") -> int:
    """The number of components as an int: a whole number (not a boolean), at least 1 and at most ``d`` (the number
    of columns) when it is known.

    The one rule for k: a release checks k >= 1 with its other options, before the data are read (``d=None``), and
    k <= d once they are; a k below 1 gets the same words either way. ``name``: the option as the caller spells it
    (the estimator's ``n_components``).
    """
    if isinstance(k, bool) or not isinstance(k, Integral):
        raise ValueError(f"{name} must be a whole number (got {k!r}).")
    if k < 1:
        raise ValueError(f"{name} = {k} is out of range: choose 1 <= {name} <= d (the number of columns).")
    if d is not None and k > d:
        raise ValueError(f"{name} = {k} is out of range: choose 1 <= {name} <= d = {d} (the number of columns).")
    return int(k)


def check_positive(value, name: str, *, hint: str = "") -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (got {value!r}).{(' ' + hint) if hint else ''}")
    return float(value)


def check_data_norm(value) -> float:
    """The public clipping radius R: a positive float whose reciprocal is finite (rows are divided by it).

    Below the smallest normal double (2.2e-308) 1/R overflows to inf and a zero row would become NaN; the
    usable range is every normal positive double.
    """
    value = check_positive(value, "data_norm (clipping radius R)", hint="Choose a public bound on row norms.")
    if value < sys.float_info.min:
        raise ValueError(
            f"data_norm = {value!r} is below the smallest normal double ({sys.float_info.min:.3g}): the "
            "rows are divided by it and 1/data_norm overflows. Use data_norm >= 2.3e-308, e.g. by "
            "multiplying the data and data_norm by the same large factor."
        )
    return value


MIN_EPSILON = 1e-6


def check_epsilon(epsilon, *, minimum: float | None = MIN_EPSILON) -> float:
    """epsilon as a float: a real number (not a boolean), finite, > 0, and at least ``minimum``.

    The one rule for epsilon in the library. ``minimum`` is :data:`MIN_EPSILON` for a total budget a user gives
    (below it the noise overflows the arithmetic); the calibration of one part of a split budget
    (:mod:`dppca_core.privacy`) passes ``minimum=None``: a share of a valid total may be smaller than the floor.
    """
    if isinstance(epsilon, Real) and not isinstance(epsilon, bool) and epsilon == math.inf:
        raise ValueError(
            "epsilon must be finite: epsilon = inf asks for no privacy, which no private mechanism can "
            "be calibrated for. For the exact PCA without privacy use mechanism='non_private' (its "
            "release states no guarantee), or give a finite epsilon such as 1.0."
        )
    epsilon = check_positive(epsilon, "epsilon", hint="Try e.g. epsilon=1.0.")
    if minimum is not None and epsilon < minimum:
        raise ValueError(
            f"epsilon = {epsilon!r} is below {minimum:g}: the noise would be astronomically large "
            "(every output pure noise) and overflows the arithmetic; use epsilon >= 1e-6."
        )
    return epsilon


MIN_DELTA = 1e-100


def check_delta(delta, *, minimum: float | None = MIN_DELTA) -> float:
    """delta as a float strictly between 0 and 1 (not a boolean), and at least ``minimum`` (``None`` for one part
    of a split budget, as for :func:`check_epsilon`)."""
    if isinstance(delta, bool) or not isinstance(delta, Real) or not (0.0 < delta < 1.0):
        raise ValueError(
            f"delta must lie strictly between 0 and 1 (got {delta!r}); a common choice is delta < 1/n, e.g. 1e-6."
        )
    if minimum is not None and delta < minimum:
        raise ValueError(
            f"delta = {delta!r} is below {minimum:g}, too small to compute with; use a pure-DP "
            "mechanism or delta >= 1e-100."
        )
    return float(delta)


@dataclass(frozen=True)
class Interval:
    """A declared range of a number: a whole number (``kind="int"``) or a finite real (``"float"``) from ``low`` to
    ``high`` (None: no bound on that side), each end included unless ``low_open`` / ``high_open``.

    :meth:`check` is the one place a bounded number is checked, in the same words wherever it is declared
    (:func:`check_int_range`, :func:`check_float_range`, a mechanism's parameters).
    """

    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __post_init__(self):
        if self.kind not in ("int", "float"):
            raise ValueError(f"an Interval holds 'int' or 'float' numbers (got {self.kind!r}).")

    def check(self, value, name: str, what: str = "a value"):
        """``value`` as an int or a float when it lies in the range, else ValueError saying the range (``what``: the
        thing to choose, in words)."""
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, Integral):
                raise ValueError(f"{name} must be a whole number (got {value!r}).")
            value = int(value)
        else:
            if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number (got {value!r}).")
            value = float(value)
        if not self.contains(value):
            raise ValueError(f"{name} = {value} is out of range: choose {what} {self.words()}.")
        return value

    def contains(self, value) -> bool:
        low, high = self.low, self.high
        above = low is None or (value > low if self.low_open else value >= low)
        below = high is None or (value < high if self.high_open else value <= high)
        return above and below

    def words(self) -> str:
        """The range in symbols: "in [1, 500]", "in (0.0, 1.0)", ">= 0" or "<= 10"."""
        if self.low is not None and self.high is not None:
            return f"in {'(' if self.low_open else '['}{self.low}, {self.high}{')' if self.high_open else ']'}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {self.low}"
        return f"{'<' if self.high_open else '<='} {self.high}"


def check_int_range(value, name: str, low: int, high: int | None = None) -> int:
    return Interval("int", low, high).check(value, name)


def check_float_range(value, name: str, low: float, high: float, *, low_open=False, high_open=False) -> float:
    return Interval("float", low, high, low_open, high_open).check(value, name)


def as_generator(seed) -> np.random.Generator:
    """A numpy Generator from None, an int, a SeedSequence or a Generator (passed through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (Integral, np.random.SeedSequence)):
        if isinstance(seed, Integral) and seed < 0:
            raise ValueError(f"seed must be >= 0 (got {seed}).")
        return np.random.default_rng(seed)
    raise ValueError(f"seed must be None, a non-negative int or a numpy Generator (got {type(seed).__name__}).")

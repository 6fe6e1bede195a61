"""Privacy-safe preprocessing and the sufficient statistics the mechanisms read.

The default pipeline is: (optional) centre with a *public* centre, then clip every
row to the public radius ``data_norm`` and divide by it, so every row the mechanisms
see has norm <= 1 and every sensitivity in :mod:`dppca_core.privacy` applies.
Data-dependent steps (the empirical mean, the data's own max norm) are available
but return ``private=False`` so callers can label them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .validation import check_matrix, check_positive


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean row norms without overflow for huge entries (each row is scaled by its max first)."""
    peak = np.max(np.abs(X), axis=1)
    safe = np.where(peak > 0, peak, 1.0)
    return np.linalg.norm(X / safe[:, None], axis=1) * safe


def clip_rows(X: np.ndarray, radius: float) -> tuple[np.ndarray, int]:
    """Scale each row with norm above ``radius`` down to ``radius``.

    Returns the clipped copy and the number of rows that were clipped.
    """
    radius = check_positive(radius, "data_norm (clipping radius R)", hint="Choose a public bound on row norms.")
    norms = row_norms(X)
    over = norms > radius
    factors = np.ones_like(norms)
    factors[over] = radius / norms[over]
    clipped = X * factors[:, None]
    return clipped, int(over.sum())


@dataclass(frozen=True)
class Centering:
    """Outcome of a centring step: the centred data and whether the step is private."""

    X: np.ndarray
    center: np.ndarray
    private: bool
    note: str


def center_data(X, center="none") -> Centering:
    """Centre rows.

    Parameters
    ----------
    center : "none", "empirical" or array of shape (d,)
        "none" keeps the uncentred second moment (private, the default); an array is a
        public centre fixed before seeing the data (private); "empirical" subtracts the
        data's own mean, which is **not private** (the mean itself leaks).
    """
    X = check_matrix(X)
    d = X.shape[1]
    if isinstance(center, str):
        if center == "none":
            return Centering(X, np.zeros(d), True, "No centring: the uncentred second moment is analysed.")
        if center == "empirical":
            mean = X.mean(axis=0)
            return Centering(
                X - mean, mean, False,
                "Centred with the data's own mean: NOT private (the mean is released implicitly). "
                "Use a public centre or none for a real guarantee.",
            )
        raise ValueError(f"center={center!r} is not understood; use 'none', 'empirical' or a public vector of length {d}.")
    vec = np.asarray(center, dtype=float)
    if vec.shape != (d,) or not np.all(np.isfinite(vec)):
        raise ValueError(f"a public centre must be a finite vector of length d = {d} (got shape {vec.shape}).")
    return Centering(X - vec, vec, True, "Centred with a public centre fixed in advance.")


def max_norm_scale(X) -> tuple[np.ndarray, float]:
    """Divide by the data's own largest row norm. NOT private: the scale is data-dependent.

    Offered only because papers do it; the UI must label it non-private.
    """
    X = check_matrix(X)
    scale = float(np.linalg.norm(X, axis=1).max())
    if scale == 0:
        raise ValueError("every row is zero; there is nothing to analyse.")
    return X / scale, scale


class PreparedData:
    """Rows with norm <= 1 (after clipping to ``data_norm`` and dividing by it) and their Gram matrix.

    Central input-perturbation mechanisms only read ``n`` and ``gram`` (= sum of x x^T of the
    scaled rows), which is computed once and shared by every repetition. Build one with
    :func:`prepare` (from rows) or :func:`gram_from_chunks` (streaming, rows not kept).
    """

    def __init__(self, n: int, d: int, data_norm: float, rows=None, gram=None, n_clipped: int = 0):
        self.n, self.d = int(n), int(d)
        self.data_norm = float(data_norm)
        self.n_clipped = int(n_clipped)
        self._rows = rows
        self._gram = gram
        if rows is not None:
            rows.setflags(write=False)
        if gram is not None:
            gram.setflags(write=False)

    @property
    def has_rows(self) -> bool:
        return self._rows is not None

    @property
    def rows(self) -> np.ndarray:
        if self._rows is None:
            raise ValueError(
                "this mechanism needs the individual rows, but only the Gram matrix was kept; "
                "pass the data matrix itself to run()."
            )
        return self._rows

    @property
    def gram(self) -> np.ndarray:
        if self._gram is None:
            g = self._rows.T @ self._rows
            g = (g + g.T) / 2.0
            g.setflags(write=False)
            self._gram = g
        return self._gram

    def __repr__(self) -> str:
        return f"PreparedData(n={self.n}, d={self.d}, data_norm={self.data_norm:g}, n_clipped={self.n_clipped})"


def prepare(X, data_norm: float = 1.0, *, min_rows: int = 2) -> PreparedData:
    """Validate, clip rows to ``data_norm`` and scale them to the unit ball."""
    if isinstance(X, PreparedData):
        if not np.isclose(X.data_norm, data_norm):
            raise ValueError(
                f"the prepared data were clipped at data_norm={X.data_norm:g}, not {data_norm:g}; prepare them again."
            )
        return X
    if hasattr(X, "to_numpy") and hasattr(X, "dtypes"):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        non_numeric = [str(c) for c, t in X.dtypes.items() if not is_numeric_dtype(t) or is_bool_dtype(t)]
        if non_numeric:
            raise ValueError(f"non-numeric column(s) {non_numeric}: drop them or encode them as numbers.")
        X = X.to_numpy(dtype=float)
    arr = check_matrix(X, min_rows=min_rows)
    clipped, n_clipped = clip_rows(arr, data_norm)
    rows = clipped / float(data_norm)
    return PreparedData(arr.shape[0], arr.shape[1], data_norm, rows=rows, n_clipped=n_clipped)


def gram_from_chunks(chunks: Iterable, data_norm: float = 1.0) -> PreparedData:
    """Stream row chunks (arrays or DataFrames) into the Gram matrix without keeping the rows."""
    gram, n, d, n_clipped = None, 0, None, 0
    for chunk in chunks:
        part = prepare(chunk, data_norm, min_rows=1)
        if d is None:
            d, gram = part.d, np.zeros((part.d, part.d))
        elif part.d != d:
            raise ValueError(f"chunks disagree on the number of columns ({part.d} vs {d}).")
        gram += part.gram
        n += part.n
        n_clipped += part.n_clipped
    if d is None or n < 2:
        raise ValueError(f"the chunks held {n} row(s); at least 2 are needed.")
    return PreparedData(n, d, data_norm, gram=gram, n_clipped=n_clipped)

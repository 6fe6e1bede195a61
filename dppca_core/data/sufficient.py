"""The sufficient statistics of a streamed table: what each chunk adds (n, the sum, the Gram matrix of its clipped
rows, per site when a column names sites, the counts of bad cells) and :class:`SufficientStats`, the result.
Every engine (:mod:`dppca_core.data.engines`) adds its chunks with these functions, so both give the same sums.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .gram import GramAccumulator, canonical_additions, gram_error_bound
from .prepare import PreparedData, SitePartition, Summarised
from ..privacy import summation_error
from .diagnostics import NonPrivateDiagnostics
from .readers import FileSpec
from .columns import analyse_column
from .tables import PublicSchema


#: The site of a row whose site cell is empty, with ``on_bad="replace"`` (a public name, like a replaced cell).
NO_SITE = "(no site)"


@dataclass(frozen=True, eq=False)
class SufficientStats(Summarised):
    """n, the sum and the Gram matrix of the rows of a table, clipped to ``data_norm`` and divided by it.

    Every array here is a raw-data quantity: pass it to a mechanism, never publish it.

    Parameters
    ----------
    n : int
        Rows used (after any rows dropped for bad cells).
    columns : tuple of str
        The feature columns, in order (d = len(columns)).
    data_norm : float
        The public clipping radius R the statistics were built with.
    gram : ndarray (d, d)
        sum_i y_i y_i^T with y_i = x_i min(1, R/||x_i||) / R (norm <= 1).
    sum : ndarray (d,)
        sum_i y_i.
    site_column : str or None
        The column that named each row's site.
    site_labels : tuple or None
        Site labels (as text) in order of first appearance.
    site_counts : ndarray of int or None
        Rows per site.
    site_grams : ndarray (S, d, d) or None
        Each site's Gram matrix.
    gram_error : float or None
        A bound on the rounding error of each entry of ``gram`` (how it was summed; see
        :func:`dppca_core.data.prepare.gram_error_bound`), which the exact release of statistics computed from it adds to
        their sensitivity. None: the bound for rows summed by blocks.
    diagnostics : NonPrivateDiagnostics
        Raw-data counts (rows read, clipped, dropped; bad cells per column and cells replaced; dropped columns;
        files; time): not private, never to be published.
    schema : PublicSchema or None
        The columns in order and what a bad cell became (:class:`dppca_core.data.tables.PublicSchema`).

    Examples
    --------
    >>> import io
    >>> import dppca_core as dc
    >>> csv = io.BytesIO(b"x,y,site\\n0.3,0.4,A\\n3.0,4.0,B\\n0.0,0.5,A\\n")  # the second row has norm 5
    >>> stats = dc.sufficient_stats(csv, data_norm=1.0, sites="site")
    >>> stats.n, stats.columns, stats.sum  # (0.3, 0.4) + (3, 4) clipped to (0.6, 0.8) + (0, 0.5)
    (3, ('x', 'y'), array([0.9, 1.7]))
    >>> stats.site_labels, stats.site_counts, stats.site_grams.shape
    (('A', 'B'), array([2, 1]), (2, 2, 2))
    """

    n: int
    columns: tuple
    data_norm: float
    gram: np.ndarray
    sum: np.ndarray
    site_column: str | None = None
    site_labels: tuple | None = None
    site_counts: np.ndarray | None = None
    site_grams: np.ndarray | None = None
    diagnostics: NonPrivateDiagnostics = field(default_factory=NonPrivateDiagnostics)
    gram_error: float | None = None
    schema: PublicSchema | None = None

    @property
    def d(self) -> int:
        return len(self.columns)

    @property
    def n_clipped(self) -> int:
        return int(self.diagnostics.get("rows_clipped", 0))

    def prepared(self, data_norm: float | None = None) -> PreparedData:
        """A :class:`~dppca_core.data.prepare.PreparedData` without rows: n, the Gram matrix and the sites."""
        if data_norm is not None and not np.isclose(float(data_norm), self.data_norm):
            raise ValueError(
                f"the statistics were clipped at data_norm={self.data_norm:g}, not {data_norm:g}; "
                "build them again with that radius (or pass the same data_norm to run())."
            )
        if self.n < 2:
            raise ValueError(f"the statistics hold {self.n} row(s); at least 2 are needed.")
        gram = np.array(self.gram, dtype=float)
        sites = None
        if self.site_grams is not None:
            grams = []
            for g in self.site_grams:
                g = np.array(g, dtype=float)
                g.setflags(write=False)
                grams.append(g)
            sites = SitePartition(np.asarray(self.site_counts, dtype=int), tuple(grams), tuple(self.site_labels))
        return PreparedData(
            self.n,
            self.d,
            self.data_norm,
            gram=gram,
            n_clipped=self.n_clipped,
            sites=sites,
            site_column=self.site_column,
            gram_error=self.gram_error,
        )

    def __repr__(self) -> str:
        sites = f", sites={len(self.site_labels)} from {self.site_column!r}" if self.site_labels else ""
        return f"SufficientStats(n={self.n}, d={self.d}, data_norm={self.data_norm:g}{sites})"


class Partial:
    """Statistics of some rows: one accumulator per site (or one in all), and bad-cell counts."""

    def __init__(self, d: int, data_norm: float):
        self.d, self.data_norm = d, data_norm
        self.sites: dict = {}  # label -> GramAccumulator, in order of first appearance
        self.rows_read = 0
        self.rows_dropped = 0
        self.cells_replaced = 0  # on_bad="replace": bad cells replaced by their column's public value
        self.bad_cells: dict = {}  # column -> [missing, infinite, non_numeric]
        self.first_bad: tuple | None = None  # (data row or None, columns) of the first bad row seen

    def accumulator(self, label) -> GramAccumulator:
        acc = self.sites.get(label)
        if acc is None:
            acc = self.sites[label] = GramAccumulator(self.d, self.data_norm, want_sum=True)
        return acc

    def merge(self, other: "Partial") -> "Partial":
        for label, acc in other.sites.items():
            if label in self.sites:
                self.sites[label].merge(acc)
            else:
                self.sites[label] = acc
        self.rows_read += other.rows_read
        self.rows_dropped += other.rows_dropped
        self.cells_replaced += other.cells_replaced
        for c, counts in other.bad_cells.items():
            mine = self.bad_cells.setdefault(c, [0, 0, 0])
            for i in range(3):
                mine[i] += counts[i]
        if self.first_bad is None:
            self.first_bad = other.first_bad
        return self


def _chunk_values(chunk: pd.DataFrame, spec: FileSpec):
    """(float matrix with NaN/inf at bad cells, per-column [missing, infinite, non_numeric], site labels)."""
    n = len(chunk)
    counts = {}
    dtypes = chunk.dtypes
    numeric = [
        pd.api.types.is_float_dtype(dtypes[j])
        or (pd.api.types.is_integer_dtype(dtypes[j]) and not pd.api.types.is_bool_dtype(dtypes[j]))
        for j in spec.features
    ]
    if all(numeric):  # the usual case: the parser read every feature as numbers, one copy into floats
        X = chunk[list(spec.features)].to_numpy(dtype=float, na_value=np.nan)
        nan, inf = np.isnan(X).sum(axis=0), np.isinf(X).sum(axis=0)
        for t in np.flatnonzero(nan + inf):
            counts[spec.header[spec.features[t]]] = [int(nan[t]), int(inf[t]), 0]
        return X, counts, _site_labels(chunk, spec, X, counts)
    X = np.empty((n, len(spec.features)))
    for t, j in enumerate(spec.features):
        col = chunk[j]
        dt = dtypes[j]
        if pd.api.types.is_float_dtype(dt) or (
            pd.api.types.is_integer_dtype(dt) and not pd.api.types.is_bool_dtype(dt)
        ):
            X[:, t] = col.to_numpy(dtype=float, na_value=np.nan)
            missing, non_numeric = int(np.isnan(X[:, t]).sum()), 0
        else:
            info = analyse_column(col, spec.header[j], spec.decimal_comma)
            if info.values is None:  # a whole chunk of text, booleans...: every present cell is bad
                X[:, t] = np.nan
                present = (col.notna()).to_numpy()
                missing, non_numeric = int((~present).sum()), int(present.sum())
            else:
                X[:, t] = info.values
                missing, non_numeric = info.missing, info.non_numeric
        infinite = int(np.isinf(X[:, t]).sum())
        if missing or infinite or non_numeric:
            counts[spec.header[j]] = [missing, infinite, non_numeric]
    return X, counts, _site_labels(chunk, spec, X, counts)


def _site_labels(chunk, spec, X, counts):
    """Each row's site as text (None without a site column). A row without a site is marked bad in X, or, with
    ``on_bad="replace"``, put in the public site :data:`NO_SITE`."""
    labels = None
    if spec.site is not None:
        raw = chunk[spec.site]
        labels = raw.astype(str).str.strip().to_numpy(dtype=object)
        empty = (raw.isna() | (labels == "")).to_numpy() if len(raw) else np.zeros(0, dtype=bool)
        if empty.any():
            if spec.on_bad == "replace":
                labels[empty] = NO_SITE
            else:
                X[empty, 0] = np.nan  # a row without a site is a bad row
            counts.setdefault(spec.header[spec.site], [0, 0, 0])[0] += int(empty.sum())
    return labels


def add_chunk(
    part: Partial, chunk: pd.DataFrame, spec: FileSpec, name: str, first_row: int | None, max_sites: int
) -> None:
    X, counts, labels = _chunk_values(chunk, spec)
    part.rows_read += len(X)
    if spec.on_bad == "replace":  # each bad cell becomes its column's public value: no row is left out
        _count_bad(part, counts)
        cells = ~np.isfinite(X)
        if cells.any():
            X = np.where(cells, np.asarray(spec.fill, dtype=float), X)
            part.cells_replaced += int(cells.sum())
        bad = np.zeros(len(X), dtype=bool)
    else:
        bad = ~np.isfinite(X).all(axis=1) if len(X) else np.zeros(0, dtype=bool)
    if bad.any():
        _count_bad(part, counts)
        if part.first_bad is None:
            where = None if first_row is None else first_row + int(np.flatnonzero(bad)[0]) + 1
            part.first_bad = (where, sorted(counts))
        if spec.on_bad == "error":
            _raise_bad(name, part)
        keep = ~bad
        part.rows_dropped += int(bad.sum())
        X = X[keep]
        labels = None if labels is None else labels[keep]
    if labels is None:
        part.accumulator(None).add(X, name=name)
        return
    if not len(X):
        return
    uniq, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    for u in np.argsort(first, kind="stable"):
        label = uniq[u]
        if label not in part.sites and len(part.sites) >= max_sites:
            raise ValueError(
                f"{name}: the site column {spec.header[spec.site]!r} has more than {max_sites} distinct "
                "values; is it the right column? (raise max_sites if so)."
            )
        part.accumulator(label).add(X[inverse == u], name=name)


def _count_bad(part: Partial, counts: dict) -> None:
    for c, k in counts.items():
        mine = part.bad_cells.setdefault(c, [0, 0, 0])
        for i in range(3):
            mine[i] += k[i]


def _raise_bad(name: str, part: Partial):
    where, cols = part.first_bad
    detail = ", ".join(f"{c!r} ({sum(part.bad_cells[c])} cell(s))" for c in cols[:5])
    at = f", first at data row {where}" if where else ""
    raise ValueError(
        f"{name}: missing, infinite or non-numeric values in column(s) {detail}{at}; replace them by a "
        "public value (on_bad='replace', fill=...), drop or impute those rows, leave the column out "
        "(columns=...), or pass on_bad='drop_rows' to skip such rows (they are counted)."
    )


def finish_stats(part: Partial, spec: FileSpec, name: str, site_col, extra: dict) -> SufficientStats:
    if part.first_bad is not None and spec.on_bad == "error":
        _raise_bad(name, part)
    d = len(spec.features)
    accs = list(part.sites.values())
    n = sum(a.n for a in accs)
    if n < 2:
        extra_msg = f" after dropping {part.rows_dropped} row(s) with bad cells" if part.rows_dropped else ""
        raise ValueError(f"{name} has {n} usable data row(s){extra_msg}; at least 2 are needed.")
    gram = np.zeros((d, d))
    total = np.zeros(d)
    for a in accs:
        gram += a.gram
        total += a.sum
    gram = (gram + gram.T) / 2.0
    site_labels = site_counts = site_grams = None
    if site_col is not None:
        kept = [(label, a) for label, a in part.sites.items() if a.n]
        site_labels = tuple(str(label) for label, _ in kept)
        site_counts = np.array([a.n for _, a in kept], dtype=int)
        site_grams = np.stack([a.gram for _, a in kept])
    diag = {
        "rows_read": part.rows_read,
        "rows_used": n,
        "rows_clipped": sum(a.n_clipped for a in accs),
        "rows_dropped": part.rows_dropped,
        "cells_replaced": part.cells_replaced,
        "bad_cells": {c: dict(zip(("missing", "infinite", "non_numeric"), v)) for c, v in part.bad_cells.items()},
        **extra,
    }
    warn = []
    if part.rows_dropped:
        warn.append(
            f"{part.rows_dropped} of {part.rows_read} rows had missing, infinite or non-numeric values and "
            "were left out (on_bad='drop_rows'; a non-private count)."
        )
    if part.cells_replaced:
        warn.append(
            f"{part.cells_replaced} missing, infinite or non-numeric cell(s) were replaced by their column's "
            "public value (on_bad='replace'; a non-private count)."
        )
    diag["warnings"] = warn
    # the pooled matrix adds the sites' matrices in turn: within the canonical bound when the additions are few
    # (every path to the same statistics then publishes the same noise scale), else their own bounds add up
    additions = sum(a.additions for a in accs) + len(accs)
    gram_error = (
        gram_error_bound(n, d)
        if additions <= canonical_additions(n, d)
        else sum(a.gram_error for a in accs) + summation_error(len(accs) + 2, n)
    )
    return SufficientStats(
        n,
        tuple(spec.names),
        spec.data_norm,
        gram,
        total,
        site_col,
        site_labels,
        site_counts,
        site_grams,
        NonPrivateDiagnostics(diag),
        gram_error,
    )

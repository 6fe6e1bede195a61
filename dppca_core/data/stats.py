"""Sufficient statistics of a table of any size, streamed from CSV or Parquet in bounded memory.

Every input-perturbation mechanism reads only n and the Gram matrix of the clipped rows (the distributed
ones: per-site Gram matrices). :func:`sufficient_stats` reads a file (or a glob of many, or a folder of
Parquet files) chunk by chunk, clips each row to the public radius ``data_norm``, divides it by the radius
and adds it to n, the sum and the Gram matrix (and to its site's statistics when ``sites`` names a
column); memory depends on the chunk size and d, never on the number of rows. The result goes to
:func:`dppca_core.run` in place of X::

    from dppca_core.data.stats import sufficient_stats
    stats = sufficient_stats("visits-*.csv", data_norm=5.0, sites="hospital")
    release = dppca_core.run("cape_pca", stats, k=3, epsilon=1.0, data_norm=5.0, sites=len(stats.site_labels))

Mechanisms that read individual rows (``needs_rows``) refuse statistics and say which ones do not.

Privacy: everything in a :class:`SufficientStats` is computed from the raw data without noise. The Gram
matrices, n and the sum feed mechanisms and are never published as such; the counts in ``diagnostics``
(rows clipped, rows dropped, bad cells) are non-private diagnostics for the analyst only.

Engines: ``engine="numpy"`` streams in this process. ``engine="dask"`` (optional: ``pip install
-r requirements-scale.txt`` or the ``scale`` extra) splits the files into blocks, computes each block's
statistics on the workers with the same code, and adds them up in a tree. ``scheduler=`` picks where: the
default (a running ``distributed.Client`` if there is one, else local threads), ``"processes"``, or the
address of an existing cluster, e.g. ``scheduler="tcp://10.0.0.5:8786"``. The workers must be able to
open the paths (a shared file system; the files are opened by path). CSV files are split into blocks of
lines with ``dask.bytes.read_bytes`` (the reader behind ``dask.dataframe.read_csv``) and each block is parsed
by the same code as the numpy engine, so both engines apply the same rules; as with dask's own CSV reader,
a quoted field must not hold a line break, and the header must be the first line. Parquet files are read
with ``dask.dataframe.read_parquet``, one task per partition.
"""
from __future__ import annotations

import glob as _glob
import io
import os
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from .prepare import (GramAccumulator, PreparedData, SitePartition, Summarised, _canonical_additions,
                      gram_error_bound)
from ..privacy import summation_error
from .diagnostics import NonPrivateDiagnostics
from .tables import (
    MAX_COLUMNS,
    _SAMPLE_BYTES,
    _UNNAMED,
    PublicSchema,
    _fill_values,
    analyse_column,
    check_unique_header,
    check_wide_length,
    detect_encoding,
    is_parquet,
    leading_junk,
    plain_name,
    read_header,
    record_end,
    text_encoding,
)
from ..validation import check_data_norm

ENGINES = ("numpy", "dask")
#: Cells (rows x columns) parsed per chunk when ``chunk_rows`` is not given (about 16 MB of floats).
CHUNK_CELLS = 2_000_000
#: Files at least this large are parsed by several threads (``workers``).
PARALLEL_BYTES = 32 << 20
#: Default cap on the number of distinct sites (each keeps a d x d matrix).
MAX_SITES = 200
#: What the streaming reader can do with a bad cell (see :func:`sufficient_stats`).
STREAM_ON_BAD = ("error", "replace", "drop_rows")
#: The site of a row whose site cell is empty, with ``on_bad="replace"`` (a public name, like a replaced cell).
NO_SITE = "(no site)"
#: Rows read to choose the feature columns when ``columns`` is None.
_PROBE_ROWS = 1000
_LOCAL_SCHEDULERS = ("threads", "processes", "synchronous", "sync", "single-threaded")


class StreamCancelled(ValueError):
    """Raised when a ``progress`` callback returns False: the caller cancelled the read."""


@dataclass(frozen=True, eq=False)
class SufficientStats(Summarised):
    """n, the sum and the Gram matrix of the rows of a table, clipped to ``data_norm`` and divided by it.

    Attributes
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

    Every array here is a raw-data quantity: pass it to a mechanism, never publish it.
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
            raise ValueError(f"the statistics were clipped at data_norm={self.data_norm:g}, not {data_norm:g}; "
                             "build them again with that radius (or pass the same data_norm to run()).")
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
        return PreparedData(self.n, self.d, self.data_norm, gram=gram, n_clipped=self.n_clipped, sites=sites,
                            site_column=self.site_column, gram_error=self.gram_error)

    def __repr__(self) -> str:
        sites = f", sites={len(self.site_labels)} from {self.site_column!r}" if self.site_labels else ""
        return f"SufficientStats(n={self.n}, d={self.d}, data_norm={self.data_norm:g}{sites})"


# ------------------------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class _Spec:
    """What every chunk of every file is read with (picklable, sent to dask workers)."""

    kind: str                 # "csv" or "parquet"
    header: tuple             # all column names of the file
    features: tuple           # indices (into header) of the feature columns
    site: int | None          # index of the site column
    sep: str = ","
    encoding: str = "utf-8"
    decimal_comma: bool = False
    data_norm: float = 1.0
    on_bad: str = "error"
    usable: tuple = ("numeric",)
    fill: tuple = ()          # on_bad="replace": the public value of each feature column's bad cells

    @property
    def names(self) -> list:
        return [self.header[j] for j in self.features]


def _expand(source) -> tuple[list, str]:
    """(list of paths or one file-like, display name)."""
    if hasattr(source, "read") or hasattr(source, "getvalue") or isinstance(source, (bytes, bytearray)):
        name = plain_name(Path(str(getattr(source, "name", "") or "upload")).name)
        return [source], name
    if isinstance(source, (list, tuple)):
        paths = [str(p) for p in source]
        if not paths:
            raise ValueError("the list of files is empty; give at least one CSV or Parquet file.")
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            raise ValueError(f"file(s) {missing[:5]} do not exist; check the paths.")
        return paths, f"{len(paths)} files"
    if not isinstance(source, (str, os.PathLike)):
        raise ValueError("source must be a path, a glob, a folder of Parquet files, a list of paths or a file-like "
                         f"object; got {type(source).__name__}.")
    text = str(source)
    if os.path.isdir(text):
        files = sorted(p for p in _glob.glob(os.path.join(text, "*")) if p.lower().endswith((".parquet", ".pq"))
                       and os.path.isfile(p))
        if not files:
            files = sorted(p for p in _glob.glob(os.path.join(text, "*.csv")) if os.path.isfile(p))
        if not files:
            raise ValueError(f"folder {text!r} holds no .parquet (or .csv) files; point at the files or a glob.")
        return files, plain_name(text)
    if any(ch in text for ch in "*?["):
        files = sorted(p for p in _glob.glob(text) if os.path.isfile(p))
        if not files:
            raise ValueError(f"no file matches {text!r}; check the pattern.")
        return files, plain_name(text)
    if not os.path.isfile(text):
        raise ValueError(f"file {text!r} does not exist or is not a file; check the path.")
    return [text], _display(text)


def _display(path) -> str:
    """A file's name as messages show it (:func:`dppca_core.data.tables.plain_name`)."""
    return plain_name(Path(path).name)


def _open_binary(item):
    if isinstance(item, (str, os.PathLike)):
        return open(item, "rb"), _display(item)
    name = plain_name(Path(str(getattr(item, "name", "") or "upload")).name)
    if isinstance(item, (bytes, bytearray)):
        return io.BytesIO(item), name
    if hasattr(item, "getvalue"):
        raw = item.getvalue()
        return io.BytesIO(raw.encode("utf-8") if isinstance(raw, str) else raw), name
    if hasattr(item, "seek") and hasattr(item, "tell"):
        return item, name
    raw = item.read()
    return io.BytesIO(raw.encode("utf-8") if isinstance(raw, str) else raw), name


def _csv_head(fh, name: str, max_columns):
    """(header, sep, encoding, offset of the header record) from the start of a CSV stream.

    Reads no further than the end of the header record (which may hold quoted line breaks), in blocks that double
    in size, so a long header costs time linear in its length; the header is read by
    :func:`dppca_core.data.tables.read_header`, as for a whole file.
    """
    start = fh.tell()
    head = fh.read(_SAMPLE_BYTES)
    if isinstance(head, str):
        raise ValueError(f"{name} is open in text mode; open it in binary mode ('rb') or pass its path.")
    encoding = detect_encoding(head)
    if encoding in ("utf-16", "utf-32"):
        fh.seek(0, os.SEEK_END)
        check_wide_length(fh.tell() - start, name, encoding)
        fh.seek(start)
        body = _wide_head(fh, head, encoding)
        fh.seek(start)
        if not body:
            raise ValueError(f"{name} is empty; give a CSV with a header row and at least 2 data rows.")
        header, sep, _ = read_header(body, "utf-8", name, max_columns)
        return header, sep, encoding, start  # pandas decodes the file and skips the mark itself
    if b"\x00" in head:
        raise ValueError(f"{name} looks binary (it contains NUL bytes); give a CSV text file (UTF-8, or UTF-16 or "
                         "UTF-32 with a byte-order mark) or a Parquet file.")
    skip = leading_junk(head)
    if skip == len(head):
        if len(head) < _SAMPLE_BYTES:
            raise ValueError(f"{name} is empty; give a CSV with a header row and at least 2 data rows.")
        raise ValueError(f"{name} starts with more than {_SAMPLE_BYTES:,} bytes of blank space; remove them.")
    body = _narrow_head(fh, head[skip:])
    header, sep, encoding = read_header(body, text_encoding(body[:_SAMPLE_BYTES], len(body) < _SAMPLE_BYTES), name,
                                        max_columns)
    return header, sep, encoding, start + skip


def _narrow_head(fh, body: bytes) -> bytes:
    """``body`` and what follows it in ``fh`` up to the end of the first CSV record (or of the file)."""
    end, inside = record_end(body)
    size = _SAMPLE_BYTES
    while end < 0:
        more = fh.read(size)
        if not more:
            break
        end, inside = record_end(more, inside)
        body += more
        size *= 2
    return body


def _wide_head(fh, head: bytes, encoding: str) -> bytes:
    """The start of a UTF-16 or UTF-32 stream as UTF-8, leading marks and blank space removed, up to the end of the
    first CSV record (or of the file); reads blocks that double in size."""
    unit = 4 if encoding == "utf-32" else 2
    data, size = head, _SAMPLE_BYTES
    while True:
        whole = len(data) - len(data) % unit
        body = data[:whole].decode(encoding, errors="replace").lstrip("\ufeff \t\r\n").encode("utf-8")
        if body and record_end(body)[0] >= 0:
            return body
        more = fh.read(size)
        if not more:
            return body
        data += more
        size *= 2


def _choose(header, first: pd.DataFrame, columns, label, site_col, on_bad, decimal_comma, name):
    """(feature indices, dropped {name: reason}) from the header and the first chunk."""
    index = {h: j for j, h in enumerate(header)}
    for what, col in (("label", label), ("sites", site_col)):
        if col is not None and col not in index:
            raise ValueError(f"{what} column {col!r} is not in {name}; available: {list(header)[:20]}.")
    usable = ("numeric", "mixed")  # text cells in a mostly numeric column are bad cells (on_bad decides)
    dropped = {}
    if columns is None:
        chosen = []
        for h, j in index.items():
            if h in (label, site_col):
                continue
            info = analyse_column(first[j], h, decimal_comma)
            if info.kind in usable and not h.startswith("Unnamed: "):
                chosen.append(j)
            else:
                dropped[h] = _UNNAMED if info.kind in usable else f"{info.reason} (in the first {len(first)} rows)"
        if not chosen:
            raise ValueError(f"{name} has no numeric columns ({dict(list(dropped.items())[:5])}); PCA needs numeric "
                             "features: encode them as numbers or choose another file.")
        return tuple(chosen), dropped
    columns = [columns] if isinstance(columns, str) else [str(c) for c in columns]
    if not columns:
        raise ValueError("columns is empty; choose at least one numeric column (or pass columns=None for all).")
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns: duplicate column name(s) in {columns}; name each column once.")
    missing = [c for c in columns if c not in index]
    if missing:
        raise ValueError(f"column(s) {missing} not found in {name}; available: {list(header)[:20]}.")
    clash = [c for c in columns if c in (label, site_col)]
    if clash:
        raise ValueError(f"column(s) {clash} are the label or the site column and a feature; remove them from columns.")
    bad = []
    for c in columns if on_bad != "replace" else ():  # replace: a declared column is read as numbers, whatever it holds
        info = analyse_column(first[index[c]], c, decimal_comma)
        if info.kind not in usable:
            bad.append(f"{c!r}: {info.reason}")
    if bad:
        raise ValueError(f"column(s) are not numeric ({'; '.join(bad[:5])}); choose numeric columns or encode them as "
                         "numbers.")
    dropped.update({h: "not selected" for h in header if h not in columns and h not in (label, site_col)})
    return tuple(index[c] for c in columns), dropped


# --------------------------------------------------------------------------------------- accumulation


class _Partial:
    """Statistics of some rows: one accumulator per site (or one in all), and bad-cell counts."""

    def __init__(self, d: int, data_norm: float):
        self.d, self.data_norm = d, data_norm
        self.sites: dict = {}          # label -> GramAccumulator, in order of first appearance
        self.rows_read = 0
        self.rows_dropped = 0
        self.cells_replaced = 0        # on_bad="replace": bad cells replaced by their column's public value
        self.bad_cells: dict = {}      # column -> [missing, infinite, non_numeric]
        self.first_bad: tuple | None = None  # (data row or None, columns) of the first bad row seen

    def accumulator(self, label) -> GramAccumulator:
        acc = self.sites.get(label)
        if acc is None:
            acc = self.sites[label] = GramAccumulator(self.d, self.data_norm, want_sum=True)
        return acc

    def merge(self, other: "_Partial") -> "_Partial":
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


def _chunk_values(chunk: pd.DataFrame, spec: _Spec):
    """(float matrix with NaN/inf at bad cells, per-column [missing, infinite, non_numeric], site labels)."""
    n = len(chunk)
    counts = {}
    dtypes = chunk.dtypes
    numeric = [pd.api.types.is_float_dtype(dtypes[j]) or (pd.api.types.is_integer_dtype(dtypes[j])
                                                          and not pd.api.types.is_bool_dtype(dtypes[j]))
               for j in spec.features]
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
        if pd.api.types.is_float_dtype(dt) or (pd.api.types.is_integer_dtype(dt) and not pd.api.types.is_bool_dtype(dt)):
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


def _add_chunk(part: _Partial, chunk: pd.DataFrame, spec: _Spec, name: str, first_row: int | None,
               max_sites: int) -> None:
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
            raise ValueError(f"{name}: the site column {spec.header[spec.site]!r} has more than {max_sites} distinct "
                             "values; is it the right column? (raise max_sites if so).")
        part.accumulator(label).add(X[inverse == u], name=name)


def _count_bad(part: _Partial, counts: dict) -> None:
    for c, k in counts.items():
        mine = part.bad_cells.setdefault(c, [0, 0, 0])
        for i in range(3):
            mine[i] += k[i]


def _raise_bad(name: str, part: _Partial):
    where, cols = part.first_bad
    detail = ", ".join(f"{c!r} ({sum(part.bad_cells[c])} cell(s))" for c in cols[:5])
    at = f", first at data row {where}" if where else ""
    raise ValueError(f"{name}: missing, infinite or non-numeric values in column(s) {detail}{at}; replace them by a "
                     "public value (on_bad='replace', fill=...), drop or impute those rows, leave the column out "
                     "(columns=...), or pass on_bad='drop_rows' to skip such rows (they are counted).")


def _finish(part: _Partial, spec: _Spec, name: str, site_col, extra: dict) -> SufficientStats:
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
    diag = {"rows_read": part.rows_read, "rows_used": n, "rows_clipped": sum(a.n_clipped for a in accs),
            "rows_dropped": part.rows_dropped, "cells_replaced": part.cells_replaced,
            "bad_cells": {c: dict(zip(("missing", "infinite", "non_numeric"), v)) for c, v in part.bad_cells.items()},
            **extra}
    warn = []
    if part.rows_dropped:
        warn.append(f"{part.rows_dropped} of {part.rows_read} rows had missing, infinite or non-numeric values and "
                    "were left out (on_bad='drop_rows'; a non-private count).")
    if part.cells_replaced:
        warn.append(f"{part.cells_replaced} missing, infinite or non-numeric cell(s) were replaced by their column's "
                    "public value (on_bad='replace'; a non-private count).")
    diag["warnings"] = warn
    # the pooled matrix adds the sites' matrices in turn: within the canonical bound when the additions are few
    # (every path to the same statistics then publishes the same noise scale), else their own bounds add up
    additions = sum(a.additions for a in accs) + len(accs)
    gram_error = (gram_error_bound(n, d) if additions <= _canonical_additions(n, d)
                  else sum(a.gram_error for a in accs) + summation_error(len(accs) + 2, n))
    return SufficientStats(n, tuple(spec.names), spec.data_norm, gram, total, site_col, site_labels, site_counts,
                           site_grams, NonPrivateDiagnostics(diag), gram_error)


# ------------------------------------------------------------------------------------------- readers


class _KeepOpen(io.RawIOBase):
    """A binary stream reading ``fh`` that leaves ``fh`` open when it is closed."""

    def __init__(self, fh):
        self._fh = fh

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._fh.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _csv_reader(fh, spec: _Spec, offset: int | None, chunk_rows: int, usecols):
    """Chunks of a CSV stream: from ``offset`` (the header line, skipped), or, with offset None, from the
    stream's start, which is a line start after the header (a byte range of a split file)."""
    if offset is not None:
        fh.seek(offset)
    if spec.encoding not in ("utf-8", "latin-1"):  # pandas decodes through a wrapper it closes, closing ``fh``
        fh = io.BufferedReader(_KeepOpen(fh), 1 << 20)
    dtype = None if spec.site is None else {spec.site: str}
    return pd.read_csv(fh, sep=spec.sep, header=None, skiprows=0 if offset is None else 1,
                       names=range(len(spec.header)), usecols=usecols,
                       index_col=False, skipinitialspace=True, engine="c", chunksize=chunk_rows, encoding=spec.encoding,
                       dtype=dtype, low_memory=False)


def _iter_csv_chunks(fh, spec, offset, chunk_rows, usecols, name):
    reader = _csv_reader(fh, spec, offset, chunk_rows, usecols)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise ValueError(f"{name} is not valid {spec.encoding} text further in ({exc.reason}); re-save it as "
                                 "UTF-8.") from None
            except Exception as exc:  # the parsers raise several types on malformed text
                detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
                raise ValueError(f"{name}: could not parse as CSV ({detail}); use one header row and the same number "
                                 "of separated fields on every line.") from None
            yield chunk


def _parquet_file(fh, name, max_columns):
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(fh)
        header = [plain_name(c) for c in pf.schema_arrow.names]
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it.") from None
    if max_columns is not None and len(header) > max_columns:
        raise ValueError(f"{name} has {len(header):,} columns, over the limit of {max_columns:,} columns; keep the "
                         "columns you need (or raise max_columns).")
    return pf, header


def _iter_parquet_chunks(pf, spec: _Spec, chunk_rows: int, name: str):
    wanted = sorted(set(spec.features) | ({spec.site} if spec.site is not None else set()))
    names = [pf.schema_arrow.names[j] for j in wanted]  # as stored (the header shows them through plain_name)
    try:
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=names):
            frame = batch.to_pandas()
            frame.columns = wanted
            yield frame
    except Exception as exc:
        raise ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it.") from None


# ----------------------------------------------------------------------------------------------- API


def sufficient_stats(source, columns=None, data_norm: float = 1.0, sites: str | None = None,
                     chunk_rows: int | None = None, engine: str = "numpy", label: str | None = None,
                     on_bad: str = "error", *, fill=None, scheduler=None, max_columns: int | None = MAX_COLUMNS,
                     max_sites: int = MAX_SITES, workers: int | None = None,
                     progress: Callable[[int, int], bool | None] | None = None) -> SufficientStats:
    """Stream a CSV or Parquet table into n, the sum and the Gram matrix of its clipped rows.

    Parameters
    ----------
    source : path, glob, folder, list of paths, or file-like
        One CSV or Parquet file (a binary file-like works with the numpy engine), a glob such as
        ``"data/part-*.csv"``, a folder of Parquet files, or a list of paths. Every file must have the
        same columns.
    columns : list of str, optional
        Feature columns; default every column that is numeric (or mostly numeric) in the first 1,000 rows,
        except ``label``, ``sites`` and header-less ones (the report of the others is in
        ``diagnostics["dropped_columns"]``).
    data_norm : float
        Public clipping radius R: each row is scaled to norm <= R, then divided by R.
    sites : str, optional
        A column naming each row's site (data holder): per-site Gram matrices are kept for the distributed
        mechanisms (then run them with ``sites=len(stats.site_labels)``).
    chunk_rows : int, optional
        Rows per chunk (memory grows with it, not with the file); default about 2 million cells.
    engine : {"numpy", "dask"}
        Stream here, or compute blocks in parallel with dask (optional dependency; see the module doc).
    label : str, optional
        A column to leave out of the features (e.g. classes).
    on_bad : {"error", "replace", "drop_rows"}
        A missing, infinite or non-numeric feature cell (or an empty site) stops the read with a message naming
        the column and the row; or is replaced by its column's public value (``fill``; an empty site becomes the
        site :data:`NO_SITE`), so n is the file's row count whatever the cells hold (counted in
        ``diagnostics["cells_replaced"]``); or its row is left out and counted (``diagnostics["rows_dropped"]``;
        n then depends on those rows: only for neighbours that add or remove a row). The same rules as
        :func:`dppca_core.data.datasets.load_table`; ``"drop_column"`` needs two passes over the file, so choose the
        columns with ``columns=`` instead. Declare ``columns`` with ``"replace"`` for a public schema
        (``SufficientStats.schema``): a declared column is then read as numbers whatever its cells hold.
    fill : float or dict, optional
        With ``on_bad="replace"``: the public value of a bad cell (one for all, or column -> value; default
        :data:`dppca_core.data.tables.DEFAULT_FILL`).
    scheduler : None, "threads", "processes", "synchronous", an address, or a distributed.Client
        Dask only: where to compute. An address such as ``"tcp://10.0.0.5:8786"`` uses an existing cluster.
    max_columns : int, optional
        Refuse wider files (checked from the header before parsing).
    max_sites : int
        Refuse a site column with more distinct values (each site keeps a d x d matrix).
    workers : int, optional
        numpy engine: threads that parse separate byte ranges of a large CSV file (pandas' parser releases the
        GIL); default 2 where there are 2 cores or more. A file under 32 MB, a file-like object, UTF-16, or a
        file whose first 64 KB hold a quote character (a quoted field may hold a line break) is read by one
        thread. The statistics are the same either way (to rounding); with several threads a bad row is
        reported with its column and count but, outside the first range, without its row number.
    progress : callable, optional
        numpy engine: called after each chunk with (rows read, rows clipped) so far; return False to cancel
        (raises :class:`StreamCancelled`).

    Returns
    -------
    SufficientStats
    """
    data_norm = check_data_norm(data_norm)
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not understood; choose one of {list(ENGINES)}.")
    if on_bad not in STREAM_ON_BAD:
        hint = (" Dropping a column needs two passes over the file: choose the columns with columns=... instead."
                if on_bad == "drop_column" else "")
        raise ValueError(f"on_bad={on_bad!r} is not supported when streaming; use 'error', 'replace' or "
                         f"'drop_rows'.{hint}")
    if fill is not None and on_bad != "replace":
        raise ValueError(f"fill= is the value that replaces a bad cell: it needs on_bad='replace' (got {on_bad!r}).")
    if chunk_rows is not None and (isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer))
                                   or chunk_rows < 1):
        raise ValueError(f"chunk_rows must be a whole number >= 1 (got {chunk_rows!r}).")
    if isinstance(max_sites, bool) or not isinstance(max_sites, (int, np.integer)) or max_sites < 1:
        raise ValueError(f"max_sites must be a whole number >= 1 (got {max_sites!r}).")
    if sites is not None and not isinstance(sites, str):
        raise ValueError("sites must name the column holding each row's site (a string); to split rows into equal "
                         "sites, pass the data matrix to run() instead.")
    items, display = _expand(source)
    started = time.perf_counter()
    if engine == "dask":
        stats = _dask_stats(items, display, columns, data_norm, sites, chunk_rows, label, on_bad, scheduler,
                            max_columns, max_sites, started, fill)
        return _with_schema(stats, label, on_bad, fill, columns is not None)
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    elif isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1 (got {workers!r}).")
    stats = _numpy_stats(items, display, columns, data_norm, sites, chunk_rows, label, on_bad, max_columns,
                         max_sites, progress, started, int(workers), fill)
    return _with_schema(stats, label, on_bad, fill, columns is not None)


def _with_schema(stats: SufficientStats, label, on_bad: str, fill, declared: bool) -> SufficientStats:
    fills = _fill_values(fill, list(stats.columns)) if on_bad == "replace" else {}
    return replace(stats, schema=PublicSchema(tuple(stats.columns), label, on_bad, fills, declared))


def _with_fill(spec: _Spec, fill) -> _Spec:
    """The spec with the public value of each feature column's bad cells (``on_bad="replace"``)."""
    if spec.on_bad != "replace":
        return spec
    fills = _fill_values(fill, spec.names)
    return replace(spec, fill=tuple(fills[c] for c in spec.names))


def _file_spec(fh, name, columns, data_norm, sites, chunk_rows, label, on_bad, max_columns, kind_hint=None):
    """(spec, first chunk iterator, dropped) for one file, reading its head."""
    start = fh.tell()
    magic = fh.read(4)
    fh.seek(start)
    if is_parquet(magic, name):
        pf, header = _parquet_file(fh, name, max_columns)
        check_unique_header(header, name)
        probe = _Spec("parquet", tuple(header), tuple(range(len(header))), None)
        first = next(_iter_parquet_chunks(pf, probe, _PROBE_ROWS, name), pd.DataFrame(columns=range(len(header))))
        features, dropped = _choose(header, first, columns, label, sites, on_bad, False, name)
        site = None if sites is None else header.index(sites)
        spec = _Spec("parquet", tuple(header), features, site, data_norm=data_norm, on_bad=on_bad)
        return spec, ("parquet", pf), dropped
    header, sep, encoding, offset = _csv_head(fh, name, max_columns)
    check_unique_header(header, name)
    probe = _Spec("csv", tuple(header), tuple(range(len(header))), None, sep, encoding)
    first = next(_iter_csv_chunks(fh, probe, offset, _PROBE_ROWS, None, name),
                 pd.DataFrame(columns=range(len(header))))
    features, dropped = _choose(header, first, columns, label, sites, on_bad, sep != ",", name)
    site = None if sites is None else header.index(sites)
    spec = _Spec("csv", tuple(header), features, site, sep, encoding, sep != ",", data_norm, on_bad)
    return spec, ("csv", offset), dropped


def _default_chunk(spec: _Spec, chunk_rows):
    return chunk_rows or max(1000, CHUNK_CELLS // max(len(spec.header), 1))


class _ByteRange(io.RawIOBase):
    """The bytes [start, stop) of a file, as a stream (one worker's share of a large CSV)."""

    def __init__(self, path, start: int, stop: int):
        self._fh = open(path, "rb")
        self._fh.seek(start)
        self._left = stop - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self._left)
        if n <= 0:
            return 0
        data = self._fh.read(n)
        buffer[:len(data)] = data
        self._left -= len(data)
        return len(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


def _split_points(path, offset: int, workers: int) -> list:
    """Byte ranges of the data lines (after the header at ``offset``), cut at line starts."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        fh.seek(offset)
        fh.readline()
        cuts = [fh.tell()]
        for i in range(1, workers):
            fh.seek(max(cuts[-1], cuts[0] + (size - cuts[0]) * i // workers))
            fh.readline()
            cuts.append(max(fh.tell(), cuts[-1]))
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def _parallel_ok(item, fh, spec: _Spec, workers: int) -> bool:
    """Split a CSV between threads only when it is a large plain file whose lines cannot hide line breaks."""
    if workers < 2 or not isinstance(item, (str, os.PathLike)) or spec.encoding not in ("utf-8", "latin-1"):
        return False
    if os.path.getsize(item) < PARALLEL_BYTES:
        return False
    here = fh.tell()
    fh.seek(0)
    head = fh.read(_SAMPLE_BYTES)
    fh.seek(here)
    return b'"' not in head  # a quoted field may hold a line break: then one reader sees the whole file


def _read_ranges(path, spec, offset, rows, usecols, name, max_sites, workers, progress, display):
    """Statistics of a CSV file parsed by ``workers`` threads, each on its own byte range (pandas' parser
    releases the GIL), merged in file order so sites keep their order of first appearance."""
    from concurrent.futures import ThreadPoolExecutor
    import threading

    ranges = _split_points(path, offset, workers)
    lock, cancelled = threading.Lock(), threading.Event()
    parts = [_Partial(len(spec.features), spec.data_norm) for _ in ranges]
    inner = _counting(spec)  # count bad rows everywhere; refuse after the merge if asked

    def work(i):
        start, stop = ranges[i]
        stream = io.BufferedReader(_ByteRange(path, start, stop), 1 << 20)
        try:
            row = 0
            for chunk in _iter_csv_chunks(stream, inner, None, rows, usecols, name):
                if cancelled.is_set():
                    return
                _add_chunk(parts[i], chunk, inner, name, row if i == 0 else None, max_sites)
                row += len(chunk)
                if progress is not None:
                    with lock:
                        read = sum(p.rows_read for p in parts)
                        clipped = sum(a.n_clipped for p in parts for a in p.sites.values())
                        if progress(read, clipped) is False:
                            cancelled.set()
        finally:
            stream.close()

    with ThreadPoolExecutor(len(ranges)) as pool:
        list(pool.map(work, range(len(ranges))))
    if cancelled.is_set():
        raise StreamCancelled(f"cancelled after {sum(p.rows_read for p in parts):,} rows of {display}.")
    merged = parts[0]
    for p in parts[1:]:
        merged.merge(p)
    if len(merged.sites) > max_sites:
        raise ValueError(f"{name}: the site column {spec.header[spec.site]!r} has more than {max_sites} distinct "
                         "values; is it the right column? (raise max_sites if so).")
    return merged


def _counting(spec: _Spec) -> _Spec:
    """The spec a part of the file is read with when another part may refuse it later: bad rows are counted and
    left out (``on_bad="error"`` refuses after the merge); replaced cells stay replaced."""
    return spec if spec.on_bad == "replace" else replace(spec, on_bad="drop_rows")


def _numpy_stats(items, display, columns, data_norm, sites, chunk_rows, label, on_bad, max_columns, max_sites,
                 progress, started, workers, fill=None):
    spec, part, dropped = None, None, {}
    for item in items:
        fh, name = _open_binary(item)
        try:
            file_spec, how, file_dropped = _file_spec(fh, name, columns, data_norm, sites, chunk_rows, label, on_bad,
                                                      max_columns)
            file_spec = _with_fill(file_spec, fill)
            if spec is None:
                spec, dropped = file_spec, file_dropped
                part = _Partial(len(spec.features), data_norm)
            elif file_spec.header != spec.header:
                raise ValueError(f"{name} has columns {list(file_spec.header)[:10]}, not those of the first file "
                                 f"({list(spec.header)[:10]}); every file must have the same columns.")
            rows = _default_chunk(spec, chunk_rows)
            if how[0] == "parquet":
                chunks = _iter_parquet_chunks(how[1], spec, rows, name)
            else:
                file_spec = _Spec("csv", spec.header, spec.features, spec.site, file_spec.sep, file_spec.encoding,
                                  file_spec.decimal_comma, data_norm, on_bad, fill=spec.fill)
                usecols = None if columns is None else sorted(set(spec.features) | (
                    {spec.site} if spec.site is not None else set()))
                if _parallel_ok(item, fh, file_spec, workers):
                    part.merge(_read_ranges(item, file_spec, how[1], rows, usecols, name, max_sites, workers,
                                            progress, display))
                    continue
                chunks = _iter_csv_chunks(fh, file_spec, how[1], rows, usecols, name)
            row = 0
            for chunk in chunks:
                _add_chunk(part, chunk, file_spec if how[0] == "csv" else spec, name, row, max_sites)
                row += len(chunk)
                if progress is not None:
                    clipped = sum(a.n_clipped for a in part.sites.values())
                    if progress(part.rows_read, clipped) is False:
                        raise StreamCancelled(f"cancelled after {part.rows_read:,} rows of {display}.")
        finally:
            if isinstance(item, (str, os.PathLike)):
                fh.close()
    extra = {"engine": "numpy", "files": len(items), "dropped_columns": dropped,
             "seconds": time.perf_counter() - started}
    return _finish(part, spec, display, sites, extra)


# ------------------------------------------------------------------------------------------------ dask


def _dask_block(block: bytes, spec: _Spec, name: str, max_sites: int) -> _Partial:
    """Statistics of one block of CSV lines (runs on a dask worker)."""
    part = _Partial(len(spec.features), spec.data_norm)
    if not block.strip():
        return part
    names = range(len(spec.header))
    dtype = None if spec.site is None else {spec.site: str}
    for chunk in _iter_block(block, spec, names, dtype, name):
        _add_chunk(part, chunk, _counting(spec), name, None, max_sites)
    return part


def _iter_block(block, spec, names, dtype, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(io.BytesIO(block), sep=spec.sep, header=None, names=names, index_col=False,
                                skipinitialspace=True, engine="c", encoding=spec.encoding, dtype=dtype,
                                low_memory=False)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name} is not valid {spec.encoding} text further in ({exc.reason}); re-save it as "
                             "UTF-8.") from None
        except Exception as exc:
            detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
            raise ValueError(f"{name}: could not parse as CSV ({detail}); use one header row and the same number "
                             "of separated fields on every line.") from None
    yield frame


def _dask_frame(frame: pd.DataFrame, spec: _Spec, name: str, max_sites: int, stored: tuple) -> _Partial:
    """Statistics of one dask.dataframe partition (Parquet; runs on a dask worker); ``stored``: the column names as
    the file stores them."""
    part = _Partial(len(spec.features), spec.data_norm)
    frame = frame.copy()
    frame.columns = [stored.index(str(c)) for c in frame.columns]
    _add_chunk(part, frame, _counting(spec), name, None, max_sites)
    return part


def _merge_all(*parts: _Partial) -> _Partial:
    out = parts[0]
    for p in parts[1:]:
        out.merge(p)
    return out


def _tree(delayed, leaves, fan_in=8):
    """Sum the partial statistics in a tree of ``fan_in``-way merges (depth log_8 of the blocks)."""
    level = list(leaves)
    while len(level) > 1:
        level = [delayed(_merge_all)(*level[i:i + fan_in]) for i in range(0, len(level), fan_in)]
    return level[0]


def _dask_stats(items, display, columns, data_norm, sites, chunk_rows, label, on_bad, scheduler, max_columns,
                max_sites, started, fill=None):
    try:
        import dask
        from dask import delayed
    except ImportError:
        raise ValueError("engine='dask' needs dask: pip install -r requirements-scale.txt (or the 'scale' extra), "
                         "or use engine='numpy'.") from None
    if not all(isinstance(i, (str, os.PathLike)) for i in items):
        raise ValueError("engine='dask' reads files by path (the workers open them); pass a path, glob or folder, or "
                         "use engine='numpy' for a file-like object.")
    paths = [str(p) for p in items]
    with open(paths[0], "rb") as fh:
        spec, how, dropped = _file_spec(fh, _display(paths[0]), columns, data_norm, sites, chunk_rows, label,
                                        on_bad, max_columns)
    spec = _with_fill(spec, fill)
    for p in paths[1:]:  # every file's header must match (cheap: one head each)
        with open(p, "rb") as fh:
            other, _, _ = _file_spec(fh, _display(p), columns, data_norm, sites, chunk_rows, label, on_bad,
                                     max_columns)
        if other.header != spec.header:
            raise ValueError(f"{_display(p)} has columns {list(other.header)[:10]}, not those of the first file "
                             f"({list(spec.header)[:10]}); every file must have the same columns.")
    if spec.kind == "csv":
        for p in paths:
            with open(p, "rb") as fh:
                head = fh.read(4)
            if head[3 if head[:3] == b"\xef\xbb\xbf" else 0:][:1].isspace():
                raise ValueError(f"{_display(p)} starts with blank space before the header; remove it (the dask "
                                 "engine expects the header on the first line) or use engine='numpy'.")
        if spec.encoding in ("utf-16", "utf-32"):
            raise ValueError(f"{display}: {spec.encoding.upper()} files cannot be split into blocks; re-save them as UTF-8 or use "
                             "engine='numpy'.")
        from dask.bytes import read_bytes

        rows = _default_chunk(spec, chunk_rows)
        blocksize = max(1 << 16, rows * 16 * len(spec.header))  # about the bytes of one chunk of rows
        _, blocks = read_bytes(paths, delimiter=b"\n", not_zero=True, blocksize=blocksize, sample=False)
        leaves = [delayed(_dask_block)(b, spec, _display(p), max_sites) for p, file_blocks in zip(paths, blocks)
                  for b in file_blocks]
    else:
        import dask.dataframe as dd

        import pyarrow.parquet as pq

        stored = tuple(str(c) for c in pq.ParquetFile(paths[0]).schema_arrow.names)
        wanted = sorted(set(spec.features) | ({spec.site} if spec.site is not None else set()))
        ddf = dd.read_parquet(paths, columns=[stored[j] for j in wanted])
        leaves = [delayed(_dask_frame)(p, spec, display, max_sites, stored) for p in ddf.to_delayed()]
    if not leaves:
        raise ValueError(f"{display} holds no data rows.")
    total = _tree(delayed, leaves)
    part = _compute(dask, total, scheduler)
    extra = {"engine": "dask", "files": len(paths), "blocks": len(leaves), "dropped_columns": dropped,
             "seconds": time.perf_counter() - started}
    return _finish(part, spec, display, sites, extra)


def _compute(dask, total, scheduler):
    if scheduler is None:
        return dask.compute(total)[0]
    if isinstance(scheduler, str) and scheduler in _LOCAL_SCHEDULERS:
        return dask.compute(total, scheduler=scheduler)[0]
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("a scheduler address needs dask.distributed: pip install -r requirements-scale.txt.") from None
    if isinstance(scheduler, Client):
        return scheduler.compute(total).result()
    if not isinstance(scheduler, str):
        raise ValueError(f"scheduler must be None, one of {list(_LOCAL_SCHEDULERS)}, an address such as "
                         f"'tcp://host:8786' or a distributed.Client (got {type(scheduler).__name__}).")
    try:
        client = Client(scheduler, set_as_default=False, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"could not connect to the dask scheduler at {scheduler!r} ({exc}); check the address and "
                         "that the cluster is running.") from None
    try:
        return client.compute(total).result()
    finally:
        client.close()

"""Reading real tables (CSV, Parquet) into validated numeric features, and the shipped samples.

Parse once, choose columns later: :func:`parse_table` reads a file once and analyses every column
(numeric or not, and how many cells are missing, infinite or not numbers); :meth:`ParsedTable.select`
then builds a :class:`Table` for any choice of columns without parsing again, with a per-column report.
:func:`load_table` does both in one call.

The schema is public, the cells are private. Which columns are analysed, in which order, each read as numbers,
the label column and what a bad cell becomes are the table's :class:`PublicSchema` (``Table.schema``): a
release may state it, so nothing in it may depend on one person's cells. Declare the columns (``columns=``) and
use ``on_bad="replace"``: every missing, infinite or non-numeric cell of a chosen column is replaced, row by
row, by a public value (``fill=``, per column; default :data:`DEFAULT_FILL`), so d and n are the same for
every neighbouring table. ``columns=None`` *suggests* the columns by reading the cells (the numeric ones):
fine for exploring, but then the schema says ``declared=False``.

The other choices of ``on_bad`` are not private, and say so: ``"error"`` refuses (naming the columns and
counts), ``"drop_column"`` leaves the column out (d then depends on one cell), ``"drop_rows"`` leaves out the
rows with a bad cell (n then depends on them: only for neighbours that add or remove a row, where n is
private). The report and ``Table.rows_dropped`` say what was done. The same rules apply when streaming a file
into sufficient statistics (:func:`dppca_core.data.stats.sufficient_stats`).

Size: the library reads any size (limits are optional arguments, for the app's uploads), but refuses
files wider than ``max_columns`` (default :data:`MAX_COLUMNS`) before parsing them, because parsing and
analysing a very wide header costs CPU time out of proportion to the file size. Every limit is checked from
cheap facts before the large work starts, and no step takes more than linear time in the file's bytes (see the
reading section below), so a hostile file costs little whatever it holds.

The public namespace is :mod:`dppca_core.data.datasets`, which re-exports everything here.
"""
from __future__ import annotations

import csv
import io
import itertools
import math
import os
import re
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"

#: Default cap on the number of columns of a table (checked from the header, before parsing).
MAX_COLUMNS = 10_000
#: What to do with bad cells (missing, infinite or non-numeric) in a feature column.
ON_BAD = ("error", "replace", "drop_column", "drop_rows")
#: The public value a bad cell becomes under ``on_bad="replace"`` when none is declared for its column: public bounds
#: |x_j| <= b_j are symmetric, so 0 is also their midpoint.
DEFAULT_FILL = 0.0
#: Bytes read to guess the delimiter (and, when streaming, first read to find the header).
_SAMPLE_BYTES = 1 << 16

_FIX_ROWS = "upload a CSV with a header row and at least 2 data rows."
_CSV_FIX = "use one header row and the same number of comma-, semicolon- or tab-separated fields on every line."
_UNNAMED = "no header (often a saved row index); give it a name to use it"


@dataclass(frozen=True)
class Table:
    """A validated numeric table.

    Attributes
    ----------
    frame : DataFrame
        The feature columns as float (no missing values).
    X : ndarray (n_rows, len(columns))
        ``frame`` as a float array.
    columns : list of str
    labels : Series, optional
        The ``label`` column, untouched (any dtype).
    dropped : dict
        Columns not used as features, name -> reason.
    constant_columns : list of str
        Feature columns with a single value. They are *kept* (without centring they still carry second
        moment, and silently changing d would surprise) and reported so the caller can drop them.
    n_rows : int
    name : str
        File name of the source ("upload" for an unnamed buffer).
    report : DataFrame
        One row per column of the file: ``column``, ``status`` ("feature", "label" or "dropped"), ``reason``
        and the counts of ``missing``, ``infinite`` and ``non_numeric`` cells. Computed from the raw data
        without noise: a non-private diagnostic for the analyst, never to be published.
    rows_dropped : int
        Rows left out because of a bad cell (``on_bad="drop_rows"``); non-private, like ``report``.
    schema : PublicSchema
        What is public about the table: the columns in order, the label and what a bad cell became.
    replaced : dict
        Cells replaced by their column's public value (``on_bad="replace"``), column -> count: a non-private
        diagnostic for the data owner, like ``report``; never to be published.
    """

    frame: pd.DataFrame
    X: np.ndarray
    columns: list
    labels: pd.Series | None
    dropped: dict
    constant_columns: list
    n_rows: int
    name: str
    report: pd.DataFrame = field(default_factory=pd.DataFrame)
    rows_dropped: int = 0
    schema: PublicSchema | None = None
    replaced: dict = field(default_factory=dict)

    @property
    def source(self) -> str:
        return self.name


@dataclass(frozen=True)
class PublicSchema:
    """What is public about a table: fixed by the analyst, never by one person's cells.

    Attributes
    ----------
    columns : tuple of str
        The feature columns, in order; each is read as numbers (d = len(columns)).
    label : str or None
        The column kept aside as labels.
    on_bad : str
        What a missing, infinite or non-numeric cell of a feature column becomes: "replace" (its column's public
        value), "drop_rows" (the row is left out: n then depends on it), "error" or "drop_column" (see
        :meth:`ParsedTable.select`).
    replacement : dict
        Column -> the public value its bad cells become (``on_bad="replace"``; empty otherwise).
    declared : bool
        True when the caller named the columns; False when they were chosen by reading the cells
        (``columns=None``, which suggests the numeric columns, or ``on_bad="drop_column"``): then which columns
        are analysed depends on the data.
    """

    columns: tuple
    label: str | None = None
    on_bad: str = "replace"
    replacement: Mapping = field(default_factory=dict)
    declared: bool = True

    @property
    def d(self) -> int:
        return len(self.columns)

    def as_dict(self) -> dict:
        """The schema as plain JSON: ``columns`` (in order), ``types`` (each "number"), ``replacement`` (column ->
        value), ``label``, ``bad_cells`` (the ``on_bad`` rule) and ``declared``."""
        return {"columns": list(self.columns), "types": {c: "number" for c in self.columns},
                "replacement": {c: float(v) for c, v in self.replacement.items()}, "label": self.label,
                "bad_cells": self.on_bad, "declared": bool(self.declared)}

    def describe(self) -> str:
        """The schema in one or two plain sentences."""
        text = f"{self.d} column(s), in this order, each read as numbers: {', '.join(self.columns)}."
        if self.on_bad == "replace":
            values = sorted({float(v) for v in self.replacement.values()})
            if len(values) == 1:
                text += f" A missing, infinite or non-numeric cell becomes {values[0]:g}."
            else:
                text += " A missing, infinite or non-numeric cell becomes its column's public value (" + ", ".join(
                    f"{c}: {float(v):g}" for c, v in self.replacement.items()) + ")."
        elif self.on_bad == "drop_rows":
            text += " A row with a missing, infinite or non-numeric cell is left out (the row count depends on it)."
        if self.label:
            text += f" Label column: {self.label}."
        if not self.declared:
            text += " The columns were chosen by reading the data."
        return text


@dataclass(frozen=True)
class ColumnInfo:
    """What parsing found in one column: its float values (NaN where a cell is bad) and the bad-cell counts.

    ``kind`` is "numeric" (every present cell is a number), "mixed" (at least half of the present cells are
    numbers, the rest text: those are bad cells, like missing ones), or not numeric: "text", "empty",
    "boolean", "complex", "datetime".
    """

    name: str
    kind: str
    reason: str
    values: np.ndarray | None = None
    missing: int = 0
    infinite: int = 0
    non_numeric: int = 0

    @property
    def usable(self) -> bool:
        return self.kind in ("numeric", "mixed")

    @property
    def bad(self) -> np.ndarray:
        """Rows whose cell is missing, infinite or not a number."""
        return ~np.isfinite(self.values)


class ParsedTable:
    """A file parsed once: its header, its raw columns and an analysis of each (see :func:`parse_table`).

    Use :meth:`select` to build a :class:`Table` for a choice of columns, label and bad-cell policy, as often
    as needed, without parsing again; :meth:`column_report` shows what each column holds.
    """

    def __init__(self, name: str, header: list, frame: pd.DataFrame, decimal_comma: bool):
        self.name, self.header, self._frame = name, list(header), frame
        self.decimal_comma = decimal_comma
        self.n_rows = len(frame)
        self._index = {h: j for j, h in enumerate(self.header)}
        self._info: dict = {}
        self._flags: dict | None = None
        self._bulk_numeric()

    def _bulk_numeric(self) -> None:
        """Analyse every column that the parser already read as numbers in one vectorised pass."""
        from pandas.api.types import is_bool_dtype, is_complex_dtype, is_numeric_dtype

        dtypes = self._frame.dtypes.tolist()
        js = [j for j, t in enumerate(dtypes) if is_numeric_dtype(t) and not is_bool_dtype(t)
              and not is_complex_dtype(t)]
        if not js or not self.n_rows:
            return
        block = np.asfortranarray(self._frame.iloc[:, js].to_numpy(dtype=float, na_value=np.nan))
        missing = np.isnan(block).sum(axis=0)
        infinite = np.isinf(block).sum(axis=0)
        for t, j in enumerate(js):
            h = self.header[j]
            if missing[t] == self.n_rows:
                self._info[h] = ColumnInfo(h, "empty", "empty column", missing=int(missing[t]))
            else:
                self._info[h] = ColumnInfo(h, "numeric", "", block[:, t], int(missing[t]), int(infinite[t]), 0)

    @property
    def columns(self) -> list:
        """Every column name, in file order."""
        return list(self.header)

    def info(self, column: str) -> ColumnInfo:
        """The analysis of one column (computed once, on first use)."""
        if column not in self._info:
            j = self._index[column]
            self._info[column] = analyse_column(self._frame[j], column, self.decimal_comma)
        return self._info[column]

    @property
    def numeric_columns(self) -> list:
        """Columns a default selection would use (numeric or mostly numeric, with a header)."""
        return [h for h in self.header if self.info(h).usable and not h.startswith("Unnamed: ")]

    def column_report(self) -> pd.DataFrame:
        """One row per column: kind, reason it is not numeric (if so), the counts of bad cells and a ``note`` from
        :meth:`flags` (what the column looks like). Read from the cells: not private, for the data owner only."""
        rows, flags = [], self.flags()
        for h in self.header:
            i = self.info(h)
            reason = _UNNAMED if i.usable and h.startswith("Unnamed: ") else i.reason
            rows.append({"column": h, "kind": i.kind, "reason": reason, "missing": i.missing,
                         "infinite": i.infinite, "non_numeric": i.non_numeric,
                         "note": flags[h].words if h in flags else ""})
        return pd.DataFrame(rows, columns=["column", "kind", "reason", "missing", "infinite", "non_numeric", "note"])

    def flags(self) -> dict:
        """Columns that are rarely features, read from their names and cells: column -> :class:`ColumnFlag`.

        "identifier" (a row number 1, 2, 3, ... or a name such as id), "time" (a year, a date), "constant" (one
        value in every row), "text" (not numbers: not analysed, or the label), "empty". Suggestions for the data
        owner, read from the data (not private): the schema is what the caller declares.
        """
        if self._flags is None:
            self._flags = {}
            for h in self.header:
                flag = _flag(self.info(h), h, self._frame[self._index[h]])
                if flag is not None:
                    self._flags[h] = flag
        return self._flags

    def labels(self, label: str) -> pd.Series:
        if label not in self._index:
            raise ValueError(f"label column {label!r} is not in {self.name}; available: {self.header[:20]}.")
        return _label_series(self._frame[self._index[label]]).rename(label)

    def select(self, columns=None, label: str | None = None, on_bad: str = "error", fill=None) -> Table:
        """Build a :class:`Table` from the parsed file.

        Parameters
        ----------
        columns : list of str, optional
            Feature columns, in order: the public schema. Default: every numeric column (most non-empty cells are
            numbers) except ``label`` and header-less ones, a suggestion read from the cells (the schema then says
            ``declared=False``).
        label : str, optional
            A column kept aside as ``labels``.
        on_bad : {"error", "replace", "drop_column", "drop_rows"}
            What to do with a feature column that has missing, infinite or non-numeric cells: refuse (naming
            the columns and counts); replace each such cell by its column's public value (``fill``; d and n stay
            those of the schema and the file, whatever the cells hold); leave the column out; or leave out the
            rows with a bad cell. With ``"replace"`` a declared column is read as numbers whatever it holds
            (a text cell is a bad cell), so the schema never depends on the cells.
        fill : float or dict, optional
            ``on_bad="replace"`` only: the public value of every bad cell, or column -> value (columns not named
            get :data:`DEFAULT_FILL`). Choose it from public knowledge (a typical value, the midpoint of a
            public range), never from these data.
        """
        if on_bad not in ON_BAD:
            raise ValueError(f"on_bad={on_bad!r} is not understood; choose one of {list(ON_BAD)}.")
        if fill is not None and on_bad != "replace":
            raise ValueError(f"fill= is the value that replaces a bad cell: it needs on_bad='replace' (got {on_bad!r})"
                             ".")
        name = self.name
        labels = None if label is None else self.labels(label)
        dropped: dict = {}
        declared = columns is not None
        chosen = self._choose(columns, label, on_bad, dropped)
        if on_bad == "replace":
            fills = _fill_values(fill, chosen)
            values, replaced = self._replaced(chosen, fills)
            return self._table(chosen, label, labels, values, dropped, 0,
                               PublicSchema(tuple(chosen), label, on_bad, fills, declared), replaced)
        infos = [self.info(c) for c in chosen]
        counts = [int(i.bad.sum()) for i in infos]
        keep_rows = None
        if any(counts):
            if on_bad == "error":
                worst = [f"{c!r} ({k} of {self.n_rows} rows)" for c, k in zip(chosen, counts) if k][:5]
                what = ("missing, infinite or non-numeric" if any(i.non_numeric for i in infos)
                        else "missing or infinite")
                raise ValueError(f"{what} values in column(s) {', '.join(worst)}; replace them by a public value "
                                 "(on_bad='replace', fill=...), drop or impute those rows, or leave the column out "
                                 "(or pass on_bad='drop_rows' or 'drop_column').")
            if on_bad == "drop_column":
                for c, k in zip(chosen, counts):
                    if k:
                        dropped[c] = f"{_bad_cells(self.info(c))} (on_bad='drop_column')"
                infos = [i for i, k in zip(infos, counts) if not k]
                chosen = [i.name for i in infos]
                declared = False
                if not chosen:
                    raise ValueError(f"every candidate column of {name} has missing, infinite or non-numeric cells; "
                                     "use on_bad='replace' or 'drop_rows', or clean the file.")
            else:
                bad = np.zeros(self.n_rows, dtype=bool)
                for i in infos:
                    bad |= i.bad
                keep_rows = ~bad
        values = np.column_stack([i.values for i in infos]) if infos else np.empty((self.n_rows, 0))
        rows_dropped = 0
        if keep_rows is not None:
            rows_dropped = int((~keep_rows).sum())
            values = values[keep_rows]
            if labels is not None:
                labels = labels[keep_rows].reset_index(drop=True)
        return self._table(chosen, label, labels, values, dropped, rows_dropped,
                           PublicSchema(tuple(chosen), label, on_bad, {}, declared), {})

    def _table(self, chosen, label, labels, values, dropped, rows_dropped, schema, replaced) -> Table:
        if len(values) < 2:
            extra = f" after dropping {rows_dropped} row(s) with bad cells" if rows_dropped else ""
            raise ValueError(f"{self.name} has {len(values)} data row{'' if len(values) == 1 else 's'}{extra}; at "
                             "least 2 are needed. Add rows" + (" or choose other columns." if rows_dropped else "."))
        values = np.ascontiguousarray(values, dtype=float)
        features = pd.DataFrame(values, columns=list(chosen), copy=False)
        constant = [c for j, c in enumerate(chosen) if np.ptp(values[:, j]) == 0]
        report = self._report(chosen, label, dropped, schema, replaced)
        return Table(features, values, list(chosen), labels, dropped, constant, len(values), self.name, report,
                     rows_dropped, schema, replaced)

    def numbers(self, column: str) -> np.ndarray:
        """The column read as numbers, whatever it holds: NaN (or ±inf) where a cell is not a finite number."""
        info = self.info(column)
        if info.values is not None:
            return np.array(info.values, dtype=float)
        return np.full(self.n_rows, np.nan)  # empty, boolean, complex or dates: no cell is a number

    def _replaced(self, chosen: list, fills: dict) -> tuple[np.ndarray, dict]:
        """The chosen columns as numbers with every bad cell replaced by its column's public value, and the number
        of cells replaced per column (a non-private diagnostic)."""
        values = np.empty((self.n_rows, len(chosen)))
        replaced = {}
        for j, c in enumerate(chosen):
            column = self.numbers(c)
            bad = ~np.isfinite(column)
            column[bad] = fills[c]
            values[:, j] = column
            replaced[c] = int(bad.sum())
        return values, replaced

    def _choose(self, columns, label, on_bad, dropped) -> list:
        usable = ("numeric", "mixed")  # a mostly numeric column's text cells are bad cells, handled by on_bad
        if columns is None:
            chosen = []
            for h in self.header:
                if h == label:
                    continue
                i = self.info(h)
                if i.kind in usable and not h.startswith("Unnamed: "):
                    chosen.append(h)
                elif i.kind in usable:
                    dropped[h] = _UNNAMED
                else:
                    dropped[h] = i.reason
            if not chosen:
                raise ValueError(f"{self.name} has no numeric columns ({dict(list(dropped.items())[:5])}); PCA needs "
                                 "numeric features: encode them as numbers or choose another file.")
            return chosen
        columns = [columns] if isinstance(columns, str) else [str(c) for c in columns]
        if not columns:
            raise ValueError("columns is empty; choose at least one numeric column (or pass columns=None for all).")
        check_unique_header(columns, "columns")
        if label is not None and label in columns:
            raise ValueError(f"column {label!r} is both the label and a feature; remove it from columns.")
        missing = [c for c in columns if c not in self._index]
        if missing:
            raise ValueError(f"column(s) {missing} not found in {self.name}; available: {self.header[:20]}.")
        # declared columns with on_bad="replace" are read as numbers whatever their cells hold (the schema is public)
        bad = [] if on_bad == "replace" else [c for c in columns if self.info(c).kind not in usable]
        if bad:
            why = "; ".join(f"{c!r}: {self.info(c).reason}" for c in bad[:5])
            raise ValueError(f"column(s) {bad} are not numeric ({why}); choose numeric columns, encode them as "
                             "numbers, or pass on_bad='replace' to read them as numbers (every other cell replaced).")
        wanted = set(columns)
        dropped.update({h: "not selected" for h in self.header if h not in wanted and h != label})
        return columns

    def _report(self, chosen, label, dropped, schema=None, replaced=None) -> pd.DataFrame:
        rows, flags, replaced = [], self.flags(), replaced or {}
        fills = schema.replacement if schema is not None else {}
        chosen = set(chosen)
        for h in self.header:
            i = self.info(h)
            status = "feature" if h in chosen else "label" if h == label else "dropped"
            rows.append({"column": h, "status": status, "reason": dropped.get(h, ""), "missing": i.missing,
                         "infinite": i.infinite, "non_numeric": i.non_numeric,
                         "replaced": replaced.get(h, 0), "replaced_by": fills.get(h, np.nan),
                         "note": flags[h].words if h in flags else ""})
        return pd.DataFrame(rows, columns=["column", "status", "reason", "missing", "infinite", "non_numeric",
                                           "replaced", "replaced_by", "note"])


def _fill_values(fill, chosen: list) -> dict:
    """Column -> the public value of its bad cells, from ``fill`` (None, a number, or column -> number)."""
    if fill is None or isinstance(fill, Mapping):
        given = dict(fill or {})
        unknown = [c for c in given if c not in chosen]
        if unknown:
            raise ValueError(f"fill names column(s) {unknown[:5]} that are not among the features {chosen[:10]}.")
    else:
        given = {c: fill for c in chosen}
    out = {}
    for c in chosen:
        value = given.get(c, DEFAULT_FILL)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"fill for column {c!r} must be a number (got {value!r}).") from None
        if not math.isfinite(number):
            raise ValueError(f"fill for column {c!r} must be a finite number (got {value!r}).")
        out[c] = number
    return out


@dataclass(frozen=True)
class ColumnFlag:
    """What a column looks like (see :meth:`ParsedTable.flags`): ``kind`` and a phrase in plain words."""

    kind: str
    words: str


#: names (whole, or their last word) of columns that identify rows, and words of names that are times
_ID_WORDS = {"id", "ids", "idx", "index", "row", "rownum", "rowid", "key", "uuid", "guid", "record", "number", "no",
             "nr", "code"}
_TIME_WORDS = {"year", "years", "yr", "date", "datetime", "timestamp", "month", "week", "quarter", "time", "day",
               "hour", "minute"}
#: text columns with at most this many distinct values can be a label (groups)
_LABEL_VALUES = 50


def _name_words(name: str) -> list:
    """The words of a column name, lower case ("sampleID" -> ["sample", "id"], "birth_year" -> ["birth", "year"])."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]


def _flag(info: ColumnInfo, name: str, raw: pd.Series) -> ColumnFlag | None:
    """A column's :class:`ColumnFlag`, or None when it looks like an ordinary measurement."""
    if info.kind == "empty":
        return ColumnFlag("empty", "empty: no cell holds a value")
    words = _name_words(name)
    if not info.usable:
        if info.kind == "datetime":
            return ColumnFlag("time", "dates: not analysed")
        if info.kind == "boolean":
            return ColumnFlag("text", "true/false: encode it as 0/1 to analyse it")
        distinct = raw.dropna().nunique()
        if distinct <= _LABEL_VALUES:
            return ColumnFlag("text", f"text, {distinct} distinct value(s): can be the label (groups)")
        return ColumnFlag("text", "text: not analysed")
    finite = info.values[np.isfinite(info.values)]
    if len(finite) and np.ptp(finite) == 0:
        return ColumnFlag("constant", f"constant ({finite[0]:g} in every row): adds nothing")
    integers = len(finite) > 1 and bool(np.all(finite == np.round(finite)))
    if integers and len(finite) == len(info.values) and np.all(np.diff(finite) == 1):
        return ColumnFlag("identifier", "a row number (1, 2, 3, …): an identifier")
    if words and (words[-1] in _ID_WORDS or "".join(words) in _ID_WORDS):
        return ColumnFlag("identifier", "named like an identifier: identifies, does not measure")
    if any(w in _TIME_WORDS for w in words) or (integers and np.all((finite >= 1900) & (finite <= 2100))
                                                  and len(np.unique(finite)) <= 50):
        return ColumnFlag("time", "a year or a time: says when, not what")
    return None


def _bad_cells(info: ColumnInfo) -> str:
    parts = [f"{k} {what}" for k, what in ((info.missing, "missing"), (info.infinite, "infinite"),
                                           (info.non_numeric, "non-numeric")) if k]
    return ", ".join(parts) + " cell(s)"


# ------------------------------------------------------------------------------------------- reading
#
# Every step is bounded before it starts, whatever the bytes: the delimiter is guessed from the first
# _SAMPLE_BYTES only, the header record's fields are counted in one linear pass before the record is split into
# names, a row limit stops the CSV parser, and a Parquet file's size is read from its metadata before any data
# page is decompressed (then counted again as the batches arrive). Nothing runs in more than linear time on a
# visitor's bytes (csv.Sniffer, whose regular expression takes time quadratic in a long line, is not used).

#: Byte-order marks and the encodings they announce (the UTF-32 little-endian mark starts with the UTF-16 one).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig"))
#: Byte-order marks (any number: some tools add one to a file that has one) and blank space before the header.
_LEADING_BYTES = re.compile(rb"(?:\xef\xbb\xbf|[ \t\r\n\x0b\x0c])*")
_LEADING_TEXT = "\ufeff \t\r\n\x0b\x0c"
#: Candidate delimiters, in the order that breaks ties, and the rows of the sample compared.
_DELIMITERS = ",;\t|"
_SNIFF_ROWS = 20
#: Bytes scanned at a time when looking for the end of the header record or counting its fields.
_SCAN_BYTES = 1 << 20
#: Rows per batch when reading a Parquet file (its size is checked as the batches arrive).
_PARQUET_BATCH_ROWS = 1 << 16
#: In names: runs of line breaks and tabs (shown as one space), and the characters shown as escapes (\u202e):
#: C0 and C1 controls, and the bidirectional formatting characters, which reorder the text around them without
#: being shown (Arabic letter mark, left-to-right and right-to-left marks, embeddings, overrides and isolates).
_NAME_BREAKS = re.compile("[\t\n\r\x0b\x0c\x85\u2028\u2029]+")
_NAME_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def plain_name(name) -> str:
    """A file or column name as text that displays as it is stored.

    Line breaks and tabs become one space, byte-order marks (U+FEFF) are removed, and every other control
    character and every bidirectional formatting character (U+061C, U+200E-U+200F, U+202A-U+202E,
    U+2066-U+2069: they reverse or reorder the text around them without being shown, so ``"x\\u202egpj.csv"``
    displays as ``"xvsc.jpg"``) is written as a visible escape such as ``\\u202e``. Every name the reader
    returns has been through this, so a name is shown, written and matched in one form.
    """
    text = _NAME_BREAKS.sub(" ", str(name)).replace("\ufeff", "")
    return _NAME_HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _source_name(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return plain_name(Path(source).name)
    return plain_name(Path(str(getattr(source, "name", "") or "upload")).name)


def _check_size(size: int, name: str, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise ValueError(f"{name} is {size / 1e6:.1f} MB, over the limit of {max_bytes / 1e6:.1f} MB "
                         f"({max_bytes:,} bytes); upload a sample of the rows, or stream the file into sufficient "
                         "statistics (dppca_core.data.stats.sufficient_stats).")


def _read_bytes(source, max_bytes: int | None = None) -> tuple[bytes, str]:
    """(the file's bytes, its name for messages); a file on disk over ``max_bytes`` is refused before it is read."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"file {plain_name(path)!r} does not exist or is not a file; check the path.")
        _check_size(path.stat().st_size, _source_name(path), max_bytes)
        return path.read_bytes(), _source_name(path)
    name = _source_name(source)
    if hasattr(source, "getvalue"):
        raw = source.getvalue()
    elif hasattr(source, "read"):
        raw = source.read()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        raw = source
    else:
        raise ValueError("source must be a path or a file-like object (with read() or getvalue()); "
                         f"got {type(source).__name__}.")
    raw = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    _check_size(len(raw), name, max_bytes)
    return raw, name


def detect_encoding(head: bytes) -> str:
    """The encoding a byte-order mark announces: "utf-32", "utf-16" or "utf-8-sig"; "utf-8" without one (callers
    fall back to latin-1)."""
    return next((encoding for bom, encoding in _BOMS if head.startswith(bom)), "utf-8")


def check_wide_length(size: int, name: str, encoding: str) -> None:
    """Refuse a UTF-16 or UTF-32 file whose length is not a whole number of code units (it is cut short)."""
    unit = 4 if encoding == "utf-32" else 2
    if size % unit:
        label = encoding.upper()
        count = f"an odd number of bytes ({size:,})" if unit == 2 else f"{size:,} bytes, not a multiple of 4"
        raise ValueError(f"{name} is marked as {label} but has {count}, so it is truncated or not {label}; re-save "
                         "it as UTF-8 (or as UTF-16 from a spreadsheet program).")


def decode_wide(raw: bytes, name: str, encoding: str) -> str:
    """Decode a UTF-16 or UTF-32 file (with its byte-order mark), refusing a truncated or broken one with the fix."""
    check_wide_length(len(raw), name, encoding)
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} is marked as {encoding.upper()} but cannot be decoded ({exc.reason} at byte "
                         f"{exc.start:,}); re-save it as UTF-8.") from None


def leading_junk(data: bytes) -> int:
    """Bytes of byte-order marks and blank space before the header (linear in their length)."""
    return _LEADING_BYTES.match(data).end()


def text_encoding(head: bytes, complete: bool) -> str:
    """"utf-8" when ``head`` (the file's first bytes; ``complete`` when it is the whole file) decodes as UTF-8, a
    character cut at its end allowed, else "latin-1"."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "utf-8" if exc.start >= len(head) - 3 and not complete else "latin-1"
    return "utf-8"


def _csv_body(raw: bytes, name: str) -> tuple[bytes, str]:
    """(the CSV's bytes from the header on, "utf-8" or "latin-1"). A UTF-16 or UTF-32 file (byte-order mark) is
    decoded and re-encoded as UTF-8, so one reader handles every file; leading byte-order marks and blank space
    are removed."""
    encoding = detect_encoding(raw[:4])
    if encoding in ("utf-16", "utf-32"):
        return decode_wide(raw, name, encoding).lstrip(_LEADING_TEXT).encode("utf-8"), "utf-8"
    if b"\x00" in raw:
        raise ValueError(f"{name} looks binary (it contains NUL bytes); upload a CSV text file (UTF-8, or UTF-16 or "
                         "UTF-32 with a byte-order mark) or a Parquet file.")
    start = leading_junk(raw)
    body = raw[start:] if start else raw
    return body, text_encoding(body[:_SAMPLE_BYTES], len(body) <= _SAMPLE_BYTES)


def _quoted(block: np.ndarray, inside: bool) -> np.ndarray:
    """For each byte of ``block``: whether it lies inside double quotes (``inside``: the block starts inside).

    A doubled quote inside a quoted field toggles twice, so the parity of the quotes seen so far is the state."""
    return (np.cumsum(block == 34) + inside) % 2 == 1


def record_end(data: bytes, inside: bool = False) -> tuple[int, bool]:
    """(index of the line break that ends the CSV record starting ``data``, or -1 when ``data`` ends first;
    whether ``data`` ends inside double quotes). A line break inside quotes does not end a record. Linear in the
    bytes scanned, in the memory of one block; ``inside`` continues a scan from a previous block."""
    if not inside:
        lf = data.find(b"\n")
        cr = data.find(b"\r", 0, lf if lf >= 0 else len(data))
        stop = cr if cr >= 0 else lf
        if data.find(b'"', 0, stop if stop >= 0 else len(data)) < 0:
            return stop, False
    for lo in range(0, len(data), _SCAN_BYTES):
        block = np.frombuffer(data, np.uint8, min(_SCAN_BYTES, len(data) - lo), lo)
        quoted = _quoted(block, inside)
        ends = np.flatnonzero(((block == 10) | (block == 13)) & ~quoted)
        if ends.size:
            return lo + int(ends[0]), False
        inside = bool(quoted[-1])
    return -1, inside


def count_fields(record: bytes, sep: str) -> int:
    """The fields of one CSV record: its delimiters outside double quotes, plus one (linear, memory of one block)."""
    code = ord(sep)
    if b'"' not in record:
        return record.count(bytes([code])) + 1
    count, inside = 1, False
    for lo in range(0, len(record), _SCAN_BYTES):
        block = np.frombuffer(record, np.uint8, min(_SCAN_BYTES, len(record) - lo), lo)
        quoted = _quoted(block, inside)
        count += int(np.count_nonzero((block == code) & ~quoted))
        inside = bool(quoted[-1])
    return count


def sniff_delimiter(sample: str) -> str:
    """The delimiter (comma, semicolon, tab or pipe) of the first lines of a CSV; comma when unclear.

    Reads at most ``_SAMPLE_BYTES`` characters, in linear time (the csv module's reader, once per candidate;
    csv.Sniffer is not used: its regular expression takes time quadratic in a long line). The candidate that
    splits the first complete rows into the same number of fields, more than one, wins; when none does (one long
    first line), the one that gives the first row the most fields; ties go to the earlier of , ; tab |.
    """
    sample = sample[:_SAMPLE_BYTES]
    best, best_key = ",", (False, 1, 0)
    for order, sep in enumerate(_DELIMITERS):
        try:
            rows = [r for r in itertools.islice(csv.reader(io.StringIO(sample, newline=""), delimiter=sep),
                                                _SNIFF_ROWS + 1) if r]
        except csv.Error:  # e.g. a field longer than the csv module's limit
            continue
        if not rows:
            continue
        whole = rows[:-1] if len(rows) > 1 and not sample.endswith(("\n", "\r")) else rows  # the last may be cut
        widths = {len(r) for r in whole[:_SNIFF_ROWS]}
        steady = len(whole) > 1 and len(widths) == 1 and len(rows[0]) > 1
        key = (steady, len(rows[0]), -order)
        if key > best_key:
            best, best_key = sep, key
    return best


def _too_wide(name: str, count: int, max_columns: int):
    return ValueError(f"{name} has {count:,} columns, over the limit of {max_columns:,} columns; keep the columns you "
                      "need (or raise max_columns).")


def read_header(body: bytes, encoding: str, name: str, max_columns: int | None) -> tuple[list, str, str]:
    """(column names, delimiter, encoding) of a CSV from its bytes (UTF-8 or latin-1, starting at the header).

    Bounded work before anything large is built: the delimiter is guessed from the first ``_SAMPLE_BYTES``, the
    header record (which may hold quoted line breaks) is found and its fields counted in one linear pass, and more
    than ``max_columns`` fields are refused with the true count before the record is split into names. Names go
    through :func:`plain_name`; an empty one becomes "Unnamed: j". ``encoding`` becomes "latin-1" when the header
    is not UTF-8.
    """
    sample = body[:_SAMPLE_BYTES]
    sep = sniff_delimiter(sample.decode(encoding, errors="ignore"))
    end, _ = record_end(body)
    record = body[:end] if end >= 0 else body
    if max_columns is not None and record.count(sep.encode()) >= max_columns:  # an upper bound: count properly
        count = count_fields(record, sep)
        if count > max_columns:
            raise _too_wide(name, count, max_columns)
    try:
        text = record.decode(encoding)
    except UnicodeDecodeError:
        text, encoding = record.decode("latin-1"), "latin-1"
    try:
        fields = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep, skipinitialspace=True))
    except StopIteration:
        raise ValueError(f"{name} is empty; {_FIX_ROWS}") from None
    except csv.Error as exc:
        detail = (f"a column name is longer than {csv.field_size_limit():,} characters" if "field limit" in str(exc)
                  else str(exc))
        raise ValueError(f"{name}: could not parse the header ({detail}); {_CSV_FIX}") from None
    if max_columns is not None and len(fields) > max_columns:  # quotes the linear count misread
        raise _too_wide(name, len(fields), max_columns)
    names = [plain_name(h).strip() for h in fields]
    return [h or f"Unnamed: {j}" for j, h in enumerate(names)], sep, encoding


def _parse_csv(raw: bytes, name: str, max_columns: int | None, max_cells: int | None) -> tuple[pd.DataFrame, list, str]:
    body, encoding = _csv_body(raw, name)
    if not body:
        raise ValueError(f"{name} is empty; {_FIX_ROWS}")
    header, sep, encoding = read_header(body, encoding, name, max_columns)
    max_rows = None if max_cells is None else max_cells // len(header)
    try:
        frame = _read_frame(io.BytesIO(body), encoding, header, sep, name, max_rows)
    except _DecodeFailure:
        frame = _read_frame(io.BytesIO(body), "latin-1", header, sep, name, max_rows)
    if max_rows is not None and len(frame) > max_rows:  # the parser stopped one row past the limit
        lines = max(body.count(b"\n"), len(frame) + 1)
        raise ValueError(f"{name} has about {lines * len(header):,} cells ({lines:,} lines of {len(header):,} "
                         f"columns), over the limit of {max_cells:,} cells; upload fewer rows or columns.")
    return frame, header, sep


class _DecodeFailure(Exception):
    pass


def _read_frame(buffer, encoding, header, sep, name, max_rows: int | None = None) -> pd.DataFrame:
    """The data rows (after the header record) as raw columns; at most ``max_rows`` + 1 rows are parsed."""
    try:
        # the header is read by the csv module so repeated names stay visible (pandas would rename them)
        with warnings.catch_warnings():  # a row longer than the header would be truncated with only a warning
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(buffer, sep=sep, header=None, skiprows=1, names=range(len(header)), index_col=False,
                               skipinitialspace=True, engine="c", low_memory=False, encoding=encoding,
                               nrows=None if max_rows is None else max_rows + 1)
    except UnicodeDecodeError:
        if encoding == "utf-8":
            raise _DecodeFailure from None
        raise ValueError(f"{name}: the text cannot be decoded; re-save it as UTF-8.") from None
    except pd.errors.EmptyDataError:
        return pd.DataFrame(columns=range(len(header)))
    except Exception as exc:  # the parsers raise several types on malformed text
        detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{name}: could not parse as CSV ({detail}); {_CSV_FIX}") from None


def _not_parquet(name: str, exc: Exception) -> ValueError:
    if isinstance(exc, MemoryError):
        return ValueError(f"{name}: its data do not fit in the memory available to read it; upload fewer rows or "
                          "columns.")
    return ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it, or upload a CSV.")


def _parquet_width(file) -> int:
    """The columns a Parquet file's table has: its stored columns less a pandas index stored as columns."""
    names = file.schema_arrow.names
    index = (file.schema_arrow.pandas_metadata or {}).get("index_columns", [])
    return len(names) - sum(1 for column in index if isinstance(column, str) and column in names)


def parquet_limits(file, name: str, max_columns: int | None, max_cells: int | None,
                   max_decoded_bytes: int | None) -> None:
    """Refuse a Parquet file over a limit from its metadata (columns, rows, row groups and the size of its data once
    decompressed), before any data page is read: a small file can decompress to gigabytes."""
    meta, width = file.metadata, _parquet_width(file)
    if max_columns is not None and width > max_columns:
        raise _too_wide(name, width, max_columns)
    if max_cells is not None and meta.num_rows * width > max_cells:
        raise ValueError(f"{name} has {meta.num_rows * width:,} cells ({meta.num_rows:,} rows of {width:,} columns), "
                         f"over the limit of {max_cells:,} cells; upload fewer rows or columns.")
    if max_decoded_bytes is not None:
        decoded = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        if decoded > max_decoded_bytes:
            raise ValueError(f"{name} holds {decoded / 1e6:,.0f} MB of data once decompressed, over the limit of "
                             f"{max_decoded_bytes / 1e6:,.0f} MB; upload fewer rows or columns.")


def _parse_parquet(raw: bytes, name: str, max_columns: int | None, max_cells: int | None,
                   max_decoded_bytes: int | None) -> tuple[pd.DataFrame, list]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        file = pq.ParquetFile(io.BytesIO(raw))  # reads the footer only
        width = _parquet_width(file)
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise _not_parquet(name, exc) from None
    parquet_limits(file, name, max_columns, max_cells, max_decoded_bytes)
    max_rows = None if max_cells is None else max_cells // max(width, 1)
    batches, rows = [], 0
    try:
        for batch in file.iter_batches(batch_size=_PARQUET_BATCH_ROWS):  # counted again: the metadata may lie
            rows += batch.num_rows
            if max_rows is not None and rows > max_rows:
                break
            batches.append(batch)
        if max_rows is None or rows <= max_rows:
            table = pa.Table.from_batches(batches, schema=file.schema_arrow)
            batches.clear()
            frame = table.to_pandas(self_destruct=True, split_blocks=True)
            del table
    except Exception as exc:  # pyarrow raises many types (some of them ValueError) for a broken file
        raise _not_parquet(name, exc) from None
    if max_rows is not None and rows > max_rows:
        raise ValueError(f"{name} has more than {max_rows * width:,} cells (more rows than its metadata say), over "
                         f"the limit of {max_cells:,} cells; upload fewer rows or columns.")
    header = [plain_name(c) for c in frame.columns]
    frame.columns = range(frame.shape[1])
    return frame, header


def is_parquet(head: bytes, name: str) -> bool:
    return head[:4] == b"PAR1" or name.lower().endswith((".parquet", ".pq"))


def release_arrow_memory() -> None:
    """Give back to the system the memory pyarrow's pool keeps after a read (its allocator holds freed pages: 3.3
    GB stayed resident after one refused Parquet file). pandas' text columns live there too."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


# -------------------------------------------------------------------------------------- column analysis


def to_float(text: pd.Series) -> pd.Series:
    """Numbers from text cells (NaN where a cell is not a number), with integers too large for a float as inf."""
    try:
        return pd.to_numeric(text, errors="coerce").astype(float)
    except (OverflowError, TypeError, ValueError):
        return text.map(_cell_float).astype(float)


def _cell_float(value) -> float:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return np.nan
    if isinstance(value, str) and "_" in value:  # Python reads "1_000" as 1000; a table reader does not
        return np.nan
    try:
        return float(value)
    except OverflowError:  # an int with hundreds of digits: out of float range
        return np.inf if value > 0 else -np.inf
    except (TypeError, ValueError):
        return np.nan


def analyse_column(col: pd.Series, name: str, decimal_comma: bool) -> ColumnInfo:
    """Classify one parsed column and count its bad cells (see :class:`ColumnInfo`)."""
    if col.isna().all():
        return ColumnInfo(name, "empty", "empty column", missing=len(col))
    if pd.api.types.is_bool_dtype(col):
        return ColumnInfo(name, "boolean", "boolean (encode it as 0/1 to use it)")
    if pd.api.types.is_complex_dtype(col):
        return ColumnInfo(name, "complex", "complex numbers")
    if pd.api.types.is_numeric_dtype(col):
        values = col.to_numpy(dtype=float, na_value=np.nan)
        return _numeric_info(name, values, np.isnan(values), 0)
    if pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col):
        return ColumnInfo(name, "datetime", f"not numeric ({col.dtype})")
    try:
        is_object = pd.api.types.is_object_dtype(col)
        if pd.api.types.is_string_dtype(col) and not is_object:
            text = col.str.strip()
        else:  # object columns (e.g. from Parquet) may mix numbers and text
            text = col.map(lambda v: v.strip() if isinstance(v, str) else v)
        present = (text.notna() & (text != "")).to_numpy()
        if not present.any():
            return ColumnInfo(name, "empty", "empty column", missing=len(col))
        if is_object:
            kinds = {type(v) for v in text[present]}
            if any(issubclass(t, (bool, np.bool_)) for t in kinds):
                return ColumnInfo(name, "boolean", "boolean (encode it as 0/1 to use it)")
            if any(issubclass(t, (complex, np.complexfloating)) for t in kinds):
                return ColumnInfo(name, "complex", "complex numbers")
        values = to_float(text.where(present)).to_numpy()
        failed = present & np.isnan(values)
        if failed.any() and decimal_comma:
            retry = to_float(text.where(present).astype(str).str.replace(",", ".", regex=False)).to_numpy()
            values = np.where(present, retry, np.nan)
            failed = present & np.isnan(values)
    except (TypeError, ValueError, AttributeError):
        return ColumnInfo(name, "text", "not numeric")
    non_numeric = int(failed.sum())
    if non_numeric:
        example = str(text[failed].iloc[0])[:20]
        reason = f"not numeric (e.g. {example!r})"
        if non_numeric * 2 > int(present.sum()):  # its few numbers are kept: a declared column reads them
            return ColumnInfo(name, "text", reason, np.asarray(values, dtype=float), int((~present).sum()),
                              int(np.isinf(values).sum()), non_numeric)
        info = _numeric_info(name, values, ~present, non_numeric)
        return ColumnInfo(name, "mixed", f"{reason}: {non_numeric} of {len(values)} cells", info.values,
                          info.missing, info.infinite, non_numeric)
    return _numeric_info(name, values, ~present, 0)


def _numeric_info(name, values, missing_mask, non_numeric) -> ColumnInfo:
    values = np.asarray(values, dtype=float)
    infinite = int(np.isinf(values).sum())
    return ColumnInfo(name, "numeric" if not non_numeric else "mixed", "", values,
                      int(np.asarray(missing_mask).sum()), infinite, non_numeric)


def _label_series(col: pd.Series) -> pd.Series:
    """Labels as integers or floats when every cell is a number (CSV text '0', '1'), else unchanged."""
    if pd.api.types.is_numeric_dtype(col) or col.isna().any():
        return col.reset_index(drop=True)
    info = analyse_column(col, "label", decimal_comma=False)
    if info.kind != "numeric" or info.missing or info.infinite:
        return col.reset_index(drop=True)
    values = pd.Series(info.values)
    if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
        return values.astype(np.int64)
    return values


def check_unique_header(header: list, name: str) -> None:
    """Refuse a header that names a column twice (shared with the streaming reader in stats.py)."""
    seen, dup = set(), []
    for h in header:
        if h in seen and h not in dup:
            dup.append(h)
        seen.add(h)
    if dup:
        raise ValueError(f"{name}: duplicate column name(s) {dup}; give every column a unique header.")


# ---------------------------------------------------------------------------------------------- API


def parse_table(source, *, max_bytes: int | None = None, max_cells: int | None = None,
                max_columns: int | None = MAX_COLUMNS, max_decoded_bytes: int | None = None) -> ParsedTable:
    """Parse a CSV or Parquet file once; choose columns afterwards with :meth:`ParsedTable.select`.

    Parameters
    ----------
    source : str, path, or file-like
        A path, or an object with ``getvalue()`` or ``read()`` (``io.BytesIO``, a Streamlit UploadedFile);
        its ``name`` (if any) picks Parquet by extension, otherwise the ``PAR1`` magic bytes do.
    max_bytes, max_cells : int, optional
        Refuse files larger than this many bytes, or with more than this many cells (rows x columns).
        None (the default): no limit; an app passes its upload limit.
    max_columns : int, optional
        Refuse files with more columns, checked from the header before parsing (default
        :data:`MAX_COLUMNS`); None for no limit.
    max_decoded_bytes : int, optional
        Refuse a Parquet file whose data take more bytes than this once decompressed (from its metadata).

    Each limit is checked from cheap facts before the large work starts: the file's size; a CSV's header record
    (its fields counted in one linear pass) and a row limit that stops the parser one row past ``max_cells``; a
    Parquet file's metadata (columns, rows, decompressed size), then its rows again as they are read. Nothing
    takes more than linear time in the file's size.

    Raises
    ------
    ValueError
        Empty file, header only, duplicate headers, over a limit, or a file that cannot be parsed or
        decoded; each message names the file and says how to fix it.
    """
    raw, name = _read_bytes(source, max_bytes)
    if not raw[:_SAMPLE_BYTES].strip() and not raw.strip():
        raise ValueError(f"{name} is empty; {_FIX_ROWS}")
    try:
        if is_parquet(raw, name):
            frame, header = _parse_parquet(raw, name, max_columns, max_cells, max_decoded_bytes)
            decimal_comma = False
        else:
            frame, header, sep = _parse_csv(raw, name, max_columns, max_cells)
            decimal_comma = sep != ","
    finally:
        del raw
        release_arrow_memory()
    check_unique_header(header, name)
    if max_cells is not None and frame.size > max_cells:
        raise ValueError(f"{name} has {frame.size:,} cells, over the limit of {max_cells:,} cells; "
                         "upload fewer rows or columns.")
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no data rows; {_FIX_ROWS}")
    return ParsedTable(name, header, frame, decimal_comma)


def load_table(source, columns=None, label: str | None = None, max_bytes: int | None = None,
               max_cells: int | None = None, *, max_columns: int | None = MAX_COLUMNS,
               on_bad: str = "error", fill=None) -> Table:
    """Read a CSV or Parquet file into validated numeric features (:func:`parse_table` then ``select``).

    Parameters
    ----------
    source : str, path, or file-like
        A path, or an object with ``getvalue()`` or ``read()`` (``io.BytesIO``, a Streamlit UploadedFile);
        its ``name`` (if any) picks Parquet by extension, otherwise the ``PAR1`` magic bytes do.
    columns : list of str, optional
        Feature columns; default every numeric column except ``label`` and header-less ones.
    label : str, optional
        A column kept aside as ``labels`` (e.g. classes for classification on the projection).
    max_bytes, max_cells, max_columns : int, optional
        Optional limits (see :func:`parse_table`); only ``max_columns`` has a default.
    on_bad : {"error", "replace", "drop_column", "drop_rows"}
        What to do with missing, infinite or non-numeric cells in a feature column (see
        :meth:`ParsedTable.select`); ``Table.report``, ``Table.replaced`` and ``Table.rows_dropped`` say what was
        done. With declared ``columns``, ``"replace"`` keeps the schema (``Table.schema``) and n independent of
        the cells: the choice for a release.
    fill : float or dict, optional
        With ``on_bad="replace"``: the public value a bad cell becomes (one for all, or column -> value; default
        :data:`DEFAULT_FILL`).

    Returns
    -------
    Table

    Raises
    ------
    ValueError
        Empty file, header only, fewer than 2 rows, no numeric column, a requested column missing or not
        numeric, missing/infinite values (column and count named) with ``on_bad="error"``, duplicate
        headers, over a limit, or a file that cannot be parsed; each message says how to fix it.

    Notes
    -----
    CSV: UTF-8 (with or without BOM, even doubled), UTF-16 or UTF-32 with BOM, else latin-1; the delimiter
    (comma, semicolon, tab, pipe) is guessed from the first 64 KB; the header may hold quoted line breaks; with a
    non-comma delimiter a decimal comma is accepted. Names go through :func:`plain_name` (line breaks become
    spaces, control and bidirectional characters visible escapes). A text column counts as
    numeric when at least half of its non-empty cells parse as numbers (the others are bad cells, like
    empty ones); an integer too large for a float counts as an infinite value.
    """
    parsed = parse_table(source, max_bytes=max_bytes, max_cells=max_cells, max_columns=max_columns)
    return parsed.select(columns, label, on_bad, fill)


SAMPLES = {
    "wine": {"file": "wine.csv", "label": "class", "title": "Wine recognition (13 chemical measurements, 3 cultivars)"},
    "breast_cancer": {"file": "breast_cancer.csv", "label": "diagnosis",
                      "title": "Breast cancer Wisconsin (30 features, malignant/benign)"},
    "iris": {"file": "iris.csv", "label": "species", "title": "Iris (4 measurements, 3 species)"},
}


def load_sample(name: str) -> Table:
    """Load a dataset shipped in ``sample_data/`` (see ``SAMPLES`` and sample_data/README.md)."""
    if name not in SAMPLES:
        raise ValueError(f"unknown sample {name!r}; choose one of {sorted(SAMPLES)}.")
    info = SAMPLES[name]
    parsed = parse_table(SAMPLE_DIR / info["file"])
    # a shipped sample's schema is its header: every column but the label (declared, not read from the cells)
    return parsed.select([c for c in parsed.columns if c != info["label"]], info["label"])

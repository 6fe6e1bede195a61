"""What each column of a parsed table holds: its cells read as numbers (:func:`analyse_column`, a
:class:`ColumnInfo` with the counts of missing, infinite and non-numeric cells) and what it looks like
(:class:`ColumnFlag`: an identifier, a time, a label, a constant), for :mod:`dppca_core.data.tables`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd


UNNAMED = "no header (often a saved row index); give it a name to use it"


@dataclass(frozen=True)
class ColumnInfo:
    """What parsing found in one column: its float values (NaN where a cell is bad) and the bad-cell counts.

    ``kind`` is "numeric" (every present cell is a number), "mixed" (at least half of the present cells are
    numbers, the rest text: those are bad cells, like missing ones), or not numeric: "text", "empty",
    "boolean", "complex", "datetime".

    Parameters
    ----------
    name : str
        The column's name.
    kind : str
        What it holds (above).
    reason : str
        Why it cannot be a feature, in words ("" when it can).
    values : ndarray, optional
        Its float values, NaN where a cell is bad.
    missing, infinite, non_numeric : int
        Its bad cells by kind (raw-data counts: never published).

    Examples
    --------
    >>> import io
    >>> from dppca_core.data import datasets
    >>> parsed = datasets.parse_table(io.BytesIO(b"a,b\\n1,2\\n3,\\n"))
    >>> info = parsed.info("b")
    >>> info.kind, info.missing
    ('numeric', 1)
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


@dataclass(frozen=True)
class ColumnFlag:
    """What a column looks like (see :meth:`ParsedTable.flags`): ``kind`` and a phrase in plain words."""

    kind: str
    words: str


#: names (whole, or their last word) of columns that identify rows, and words of names that are times
_ID_WORDS = {
    "id",
    "ids",
    "idx",
    "index",
    "row",
    "rownum",
    "rowid",
    "key",
    "uuid",
    "guid",
    "record",
    "number",
    "no",
    "nr",
    "code",
}


_TIME_WORDS = {
    "year",
    "years",
    "yr",
    "date",
    "datetime",
    "timestamp",
    "month",
    "week",
    "quarter",
    "time",
    "day",
    "hour",
    "minute",
}


#: text columns with at most this many distinct values can be a label (groups)
_LABEL_VALUES = 50


def _name_words(name: str) -> list:
    """The words of a column name, lower case ("sampleID" -> ["sample", "id"], "birth_year" -> ["birth", "year"])."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]


def column_flag(info: ColumnInfo, name: str, raw: pd.Series) -> ColumnFlag | None:
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
    if any(w in _TIME_WORDS for w in words) or (
        integers and np.all((finite >= 1900) & (finite <= 2100)) and len(np.unique(finite)) <= 50
    ):
        return ColumnFlag("time", "a year or a time: says when, not what")
    return None


def bad_cells(info: ColumnInfo) -> str:
    parts = [
        f"{k} {what}"
        for k, what in ((info.missing, "missing"), (info.infinite, "infinite"), (info.non_numeric, "non-numeric"))
        if k
    ]
    return ", ".join(parts) + " cell(s)"


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
            return ColumnInfo(
                name,
                "text",
                reason,
                np.asarray(values, dtype=float),
                int((~present).sum()),
                int(np.isinf(values).sum()),
                non_numeric,
            )
        info = _numeric_info(name, values, ~present, non_numeric)
        return ColumnInfo(
            name,
            "mixed",
            f"{reason}: {non_numeric} of {len(values)} cells",
            info.values,
            info.missing,
            info.infinite,
            non_numeric,
        )
    return _numeric_info(name, values, ~present, 0)


def _numeric_info(name, values, missing_mask, non_numeric) -> ColumnInfo:
    values = np.asarray(values, dtype=float)
    infinite = int(np.isinf(values).sum())
    return ColumnInfo(
        name,
        "numeric" if not non_numeric else "mixed",
        "",
        values,
        int(np.asarray(missing_mask).sum()),
        infinite,
        non_numeric,
    )


def label_series(col: pd.Series) -> pd.Series:
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
    """Refuse a header that names a column twice (shared with the streaming reader, readers.py)."""
    seen, dup = set(), []
    for h in header:
        if h in seen and h not in dup:
            dup.append(h)
        seen.add(h)
    if dup:
        raise ValueError(f"{name}: duplicate column name(s) {dup}; give every column a unique header.")

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
cheap facts before the large work starts, and no step takes more than linear time in the file's bytes (see
:mod:`dppca_core.data.files`), so a hostile file costs little whatever it holds.

The public namespace is :mod:`dppca_core.data.datasets`, which re-exports everything here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .columns import UNNAMED, ColumnInfo, bad_cells, column_flag, label_series, analyse_column, check_unique_header
from .schema import (
    DEFAULT_FILL as DEFAULT_FILL,
    ON_BAD,
    PublicSchema,
    Table,
    fill_values,
)
from .files import FIX_ROWS, SAMPLE_BYTES, parse_csv, parse_parquet, read_bytes, is_parquet, release_arrow_memory

#: the shipped samples: sample_data/ at the repository's top, which a wheel installs as dppca_core/sample_data/
_INSTALLED_SAMPLES = Path(__file__).resolve().parents[1] / "sample_data"
SAMPLE_DIR = _INSTALLED_SAMPLES if _INSTALLED_SAMPLES.is_dir() else Path(__file__).resolve().parents[2] / "sample_data"

#: Default cap on the number of columns of a table (checked from the header, before parsing).
MAX_COLUMNS = 10_000


class ParsedTable:
    """A file parsed once: its header, its raw columns and an analysis of each (see :func:`parse_table`).

    Use :meth:`select` to build a :class:`Table` for a choice of columns, label and bad-cell policy, as often
    as needed, without parsing again; :meth:`column_report` shows what each column holds.

    Parameters
    ----------
    name : str
        The file's name (shown in messages).
    header : list of str
        The column names, in the file's order.
    frame : DataFrame
        The raw columns as read.
    decimal_comma : bool
        Whether numbers were read with a decimal comma.

    Examples
    --------
    >>> import io
    >>> from dppca_core.data import datasets
    >>> parsed = datasets.parse_table(io.BytesIO(b"a,b,label\\n1,2,x\\n3,,y\\n5,6,x\\n"))
    >>> parsed.header
    ['a', 'b', 'label']
    >>> parsed.select(["a", "b"], "label", on_bad="replace", fill=0.0).X.tolist()
    [[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]]
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
        js = [
            j for j, t in enumerate(dtypes) if is_numeric_dtype(t) and not is_bool_dtype(t) and not is_complex_dtype(t)
        ]
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
            reason = UNNAMED if i.usable and h.startswith("Unnamed: ") else i.reason
            rows.append(
                {
                    "column": h,
                    "kind": i.kind,
                    "reason": reason,
                    "missing": i.missing,
                    "infinite": i.infinite,
                    "non_numeric": i.non_numeric,
                    "note": flags[h].words if h in flags else "",
                }
            )
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
                flag = column_flag(self.info(h), h, self._frame[self._index[h]])
                if flag is not None:
                    self._flags[h] = flag
        return self._flags

    def labels(self, label: str) -> pd.Series:
        if label not in self._index:
            raise ValueError(f"label column {label!r} is not in {self.name}; available: {self.header[:20]}.")
        return label_series(self._frame[self._index[label]]).rename(label)

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
            raise ValueError(
                f"fill= is the value that replaces a bad cell: it needs on_bad='replace' (got {on_bad!r})" "."
            )
        labels = None if label is None else self.labels(label)
        dropped: dict = {}
        declared = columns is not None
        chosen = self._choose(columns, label, on_bad, dropped)
        fills, replaced, rows_dropped = {}, {}, 0
        if on_bad == "replace":
            fills = fill_values(fill, chosen)
            values, replaced = self._replaced(chosen, fills)
        else:
            infos, keep_rows = self._apply_on_bad(chosen, on_bad, dropped)
            if len(infos) < len(chosen):  # on_bad="drop_column" left some out: the columns now depend on the cells
                chosen, declared = [i.name for i in infos], False
            values = np.column_stack([i.values for i in infos]) if infos else np.empty((self.n_rows, 0))
            if keep_rows is not None:
                rows_dropped = int((~keep_rows).sum())
                values = values[keep_rows]
                if labels is not None:
                    labels = labels[keep_rows].reset_index(drop=True)
        schema = PublicSchema(tuple(chosen), label, on_bad, fills, declared)
        return self._table(chosen, label, labels, values, dropped, rows_dropped, schema, replaced)

    def _apply_on_bad(self, chosen: list, on_bad: str, dropped: dict) -> tuple[list, np.ndarray | None]:
        """(the chosen columns' analyses that stay, the rows that stay or None for all) under ``on_bad`` ("error",
        "drop_column" or "drop_rows"): refuse naming the columns with bad cells, leave those columns out (saying so
        in ``dropped``), or leave out the rows with a bad cell."""
        infos = [self.info(c) for c in chosen]
        counts = [int(i.bad.sum()) for i in infos]
        if not any(counts):
            return infos, None
        if on_bad == "error":
            worst = [f"{c!r} ({k} of {self.n_rows} rows)" for c, k in zip(chosen, counts) if k][:5]
            what = "missing, infinite or non-numeric" if any(i.non_numeric for i in infos) else "missing or infinite"
            raise ValueError(
                f"{what} values in column(s) {', '.join(worst)}; replace them by a public value "
                "(on_bad='replace', fill=...), drop or impute those rows, or leave the column out "
                "(or pass on_bad='drop_rows' or 'drop_column')."
            )
        if on_bad == "drop_column":
            for c, k in zip(chosen, counts):
                if k:
                    dropped[c] = f"{bad_cells(self.info(c))} (on_bad='drop_column')"
            kept = [i for i, k in zip(infos, counts) if not k]
            if not kept:
                raise ValueError(
                    f"every candidate column of {self.name} has missing, infinite or non-numeric cells; "
                    "use on_bad='replace' or 'drop_rows', or clean the file."
                )
            return kept, None
        bad = np.zeros(self.n_rows, dtype=bool)
        for i in infos:
            bad |= i.bad
        return infos, ~bad

    def _table(self, chosen, label, labels, values, dropped, rows_dropped, schema, replaced) -> Table:
        if len(values) < 2:
            extra = f" after dropping {rows_dropped} row(s) with bad cells" if rows_dropped else ""
            raise ValueError(
                f"{self.name} has {len(values)} data row{'' if len(values) == 1 else 's'}{extra}; at "
                "least 2 are needed. Add rows" + (" or choose other columns." if rows_dropped else ".")
            )
        values = np.ascontiguousarray(values, dtype=float)
        features = pd.DataFrame(values, columns=list(chosen), copy=False)
        constant = [c for j, c in enumerate(chosen) if np.ptp(values[:, j]) == 0]
        report = self._report(chosen, label, dropped, schema, replaced)
        return Table(
            features,
            values,
            list(chosen),
            labels,
            dropped,
            constant,
            len(values),
            self.name,
            report,
            rows_dropped,
            schema,
            replaced,
        )

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
                    dropped[h] = UNNAMED
                else:
                    dropped[h] = i.reason
            if not chosen:
                raise ValueError(
                    f"{self.name} has no numeric columns ({dict(list(dropped.items())[:5])}); PCA needs "
                    "numeric features: encode them as numbers or choose another file."
                )
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
            raise ValueError(
                f"column(s) {bad} are not numeric ({why}); choose numeric columns, encode them as "
                "numbers, or pass on_bad='replace' to read them as numbers (every other cell replaced)."
            )
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
            rows.append(
                {
                    "column": h,
                    "status": status,
                    "reason": dropped.get(h, ""),
                    "missing": i.missing,
                    "infinite": i.infinite,
                    "non_numeric": i.non_numeric,
                    "replaced": replaced.get(h, 0),
                    "replaced_by": fills.get(h, np.nan),
                    "note": flags[h].words if h in flags else "",
                }
            )
        return pd.DataFrame(
            rows,
            columns=[
                "column",
                "status",
                "reason",
                "missing",
                "infinite",
                "non_numeric",
                "replaced",
                "replaced_by",
                "note",
            ],
        )


def parse_table(
    source,
    *,
    max_bytes: int | None = None,
    max_cells: int | None = None,
    max_columns: int | None = MAX_COLUMNS,
    max_decoded_bytes: int | None = None,
    max_memory_bytes: int | None = None,
) -> ParsedTable:
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
    max_memory_bytes : int, optional
        Refuse a Parquet file whose table would take more memory than this once read, from its metadata and its
        dictionaries before any value is expanded (:mod:`dppca_core.data.expansion`: a text stored once can be
        repeated in millions of rows).

    Returns
    -------
    ParsedTable
        The header and the raw columns with an analysis of each.

    Raises
    ------
    ValueError
        Empty file, header only, duplicate headers, over a limit, or a file that cannot be parsed or
        decoded; each message names the file and says how to fix it.

    Notes
    -----
    Each limit is checked from cheap facts before the large work starts: the file's size; a CSV's header record
    (its fields counted in one linear pass) and a row limit that stops the parser one row past ``max_cells``; a
    Parquet file's metadata (columns, rows, decompressed size), then its rows again as they are read. Nothing
    takes more than linear time in the file's size.

    Examples
    --------
    >>> import io
    >>> from dppca_core.data import datasets
    >>> parsed = datasets.parse_table(io.BytesIO(b"a,b\\n1,2\\n3,4\\n"), max_cells=100)
    >>> parsed.header, parsed.n_rows
    (['a', 'b'], 2)
    """
    raw, name = read_bytes(source, max_bytes)
    if not raw[:SAMPLE_BYTES].strip() and not raw.strip():
        raise ValueError(f"{name} is empty; {FIX_ROWS}")
    try:
        if is_parquet(raw, name):
            frame, header = parse_parquet(raw, name, max_columns, max_cells, max_decoded_bytes, max_memory_bytes)
            decimal_comma = False
        else:
            frame, header, sep = parse_csv(raw, name, max_columns, max_cells)
            decimal_comma = sep != ","
    finally:
        del raw
        release_arrow_memory()
    check_unique_header(header, name)
    if max_cells is not None and frame.size > max_cells:
        raise ValueError(
            f"{name} has {frame.size:,} cells, over the limit of {max_cells:,} cells; " "upload fewer rows or columns."
        )
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no data rows; {FIX_ROWS}")
    return ParsedTable(name, header, frame, decimal_comma)


def load_table(
    source,
    columns=None,
    label: str | None = None,
    max_bytes: int | None = None,
    max_cells: int | None = None,
    *,
    max_columns: int | None = MAX_COLUMNS,
    on_bad: str = "error",
    fill=None,
) -> Table:
    """Read a CSV or Parquet file into validated numeric features (:func:`parse_table` then ``select``).

    Parameters
    ----------
    source : str, path, or file-like
        A path or a file's bytes, read as :func:`parse_table` reads them (Parquet or CSV).
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

    Examples
    --------
    >>> import io
    >>> from dppca_core.data import datasets
    >>> table = datasets.load_table(io.BytesIO(b"a,b,label\\n1,2,x\\n3,,y\\n5,6,x\\n"), label="label", on_bad="replace",
    ...                             fill=0.0)
    >>> table.X.tolist(), table.labels.tolist()
    ([[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]], ['x', 'y', 'x'])
    """
    parsed = parse_table(source, max_bytes=max_bytes, max_cells=max_cells, max_columns=max_columns)
    return parsed.select(columns, label, on_bad, fill)


SAMPLES = {
    "wine": {"file": "wine.csv", "label": "class", "title": "Wine recognition (13 chemical measurements, 3 cultivars)"},
    "breast_cancer": {
        "file": "breast_cancer.csv",
        "label": "diagnosis",
        "title": "Breast cancer Wisconsin (30 features, malignant/benign)",
    },
    "iris": {"file": "iris.csv", "label": "species", "title": "Iris (4 measurements, 3 species)"},
}


def load_sample(name: str) -> Table:
    """Load a dataset shipped in ``sample_data/`` (see ``SAMPLES`` and sample_data/README.md).

    Parameters
    ----------
    name : str
        One of :data:`SAMPLES` ("wine", "breast_cancer", "iris").

    Returns
    -------
    Table
        Its features and label, its header declared as the schema.

    Raises
    ------
    ValueError
        For a name that is not a shipped sample.

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> datasets.load_sample("wine").X.shape
    (178, 13)
    >>> datasets.load_sample("nope")
    Traceback (most recent call last):
        ...
    ValueError: unknown sample 'nope'; choose one of ['breast_cancer', 'iris', 'wine'].
    """
    if name not in SAMPLES:
        raise ValueError(f"unknown sample {name!r}; choose one of {sorted(SAMPLES)}.")
    info = SAMPLES[name]
    parsed = parse_table(SAMPLE_DIR / info["file"])
    # a shipped sample's schema is its header: every column but the label (declared, not read from the cells)
    return parsed.select([c for c in parsed.columns if c != info["label"]], info["label"])

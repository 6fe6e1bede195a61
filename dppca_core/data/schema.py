"""What is public about a table (:class:`PublicSchema`: its columns, label and what a bad cell becomes), the
validated numeric :class:`Table` read under it, and the public values bad cells become; for
:mod:`dppca_core.data.tables` and the streamed reader (:mod:`dppca_core.data.stats`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: What to do with bad cells (missing, infinite or non-numeric) in a feature column.
ON_BAD = ("error", "replace", "drop_column", "drop_rows")
#: The public value a bad cell becomes under ``on_bad="replace"`` when none is declared for its column: public bounds
#: |x_j| <= b_j are symmetric, so 0 is also their midpoint.
DEFAULT_FILL = 0.0


@dataclass(frozen=True)
class Table:
    """A validated numeric table.

    Parameters
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

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> iris = datasets.load_sample("iris")
    >>> iris.X.shape, iris.labels.name, iris.schema.declared
    ((150, 4), 'species', True)
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

    Parameters
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

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> schema = datasets.PublicSchema(columns=("a", "b"), label="label")
    >>> schema.as_dict()["columns"], schema.declared
    (['a', 'b'], True)
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
        return {
            "columns": list(self.columns),
            "types": {c: "number" for c in self.columns},
            "replacement": {c: float(v) for c, v in self.replacement.items()},
            "label": self.label,
            "bad_cells": self.on_bad,
            "declared": bool(self.declared),
        }

    def describe(self) -> str:
        """The schema in one or two plain sentences."""
        text = f"{self.d} column(s), in this order, each read as numbers: {', '.join(self.columns)}."
        if self.on_bad == "replace":
            values = sorted({float(v) for v in self.replacement.values()})
            if len(values) == 1:
                text += f" A missing, infinite or non-numeric cell becomes {values[0]:g}."
            else:
                text += (
                    " A missing, infinite or non-numeric cell becomes its column's public value ("
                    + ", ".join(f"{c}: {float(v):g}" for c, v in self.replacement.items())
                    + ")."
                )
        elif self.on_bad == "drop_rows":
            text += " A row with a missing, infinite or non-numeric cell is left out (the row count depends on it)."
        if self.label:
            text += f" Label column: {self.label}."
        if not self.declared:
            text += " The columns were chosen by reading the data."
        return text


def rows_and_schema(X) -> tuple:
    """(the rows, their :class:`PublicSchema` or None): a :class:`Table` gives its float rows and its schema, and
    streamed statistics (:class:`dppca_core.data.sufficient.SufficientStats`) pass through with theirs, so that a
    release drawn from either knows whether its columns were declared (:func:`dppca_core.publish` refuses one whose
    columns were suggested by reading the cells); anything else passes through with no schema."""
    if isinstance(X, Table):
        return X.X, X.schema
    schema = getattr(X, "schema", None)  # streamed statistics keep the schema they were read with
    return X, schema if isinstance(schema, PublicSchema) else None


UNDECLARED = (
    "the columns of this table were suggested by reading its cells (columns=None, or on_bad='drop_column'), so "
    "which columns are analysed, and d, depend on the data. Declare them before publishing: name the columns "
    "(load_table(..., columns=[...]) or ParsedTable.select(columns=[...])) with on_bad='replace'. Exploring with the "
    "suggestion is fine; publishing it is not."
)


def fill_values(fill, chosen: list) -> dict:
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

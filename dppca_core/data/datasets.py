"""Data for the mechanisms: synthetic laws and paper presets, and validated loading of real tables.

This module is the public namespace; the code lives in two modules by job:

* :mod:`dppca_core.data.synthetic`: :func:`spiked_covariance`, each paper's law (:data:`PRESETS`,
  :data:`PAPER_SETTINGS`), :class:`SyntheticData` and :func:`make_sites`;
* :mod:`dppca_core.data.tables`: :func:`parse_table` / :func:`load_table` for CSV and Parquet files (with a
  per-column report and a choice of what to do with bad cells), :class:`Table` and the shipped samples
  (:data:`SAMPLES`, :func:`load_sample`).

Files larger than memory are streamed into sufficient statistics by :func:`dppca_core.data.stats.sufficient_stats`.
"""

from __future__ import annotations

from .synthetic import (  # noqa: F401
    PAPER_SETTINGS,
    PRESETS,
    Preset,
    SyntheticData,
    ge_dps,
    imtiaz_synthetic,
    liu_example_41,
    liu_spiked,
    make_sites,
    spiked_covariance,
    wang_xu_low_dim,
    wang_xu_sparse,
)
from .tables import (  # noqa: F401
    DEFAULT_FILL,
    MAX_COLUMNS,
    ON_BAD,
    SAMPLE_DIR,
    PublicSchema,
    SAMPLES,
    ColumnInfo,
    ParsedTable,
    Table,
    load_sample,
    load_table,
    parse_table,
)

__all__ = [
    "PAPER_SETTINGS",
    "PRESETS",
    "Preset",
    "SyntheticData",
    "ge_dps",
    "imtiaz_synthetic",
    "liu_example_41",
    "liu_spiked",
    "make_sites",
    "spiked_covariance",
    "wang_xu_low_dim",
    "wang_xu_sparse",
    "DEFAULT_FILL",
    "MAX_COLUMNS",
    "ON_BAD",
    "SAMPLE_DIR",
    "SAMPLES",
    "ColumnInfo",
    "ParsedTable",
    "PublicSchema",
    "Table",
    "load_sample",
    "load_table",
    "parse_table",
]

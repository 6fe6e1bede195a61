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

Bad cells (``on_bad``): ``"error"`` stops the read with a message naming the column and the row; ``"replace"``
puts its column's public value (``fill``) in the cell (an empty site becomes the site :data:`NO_SITE`), so n is the
file's row count whatever the cells hold (counted in ``diagnostics["cells_replaced"]``); ``"drop_rows"`` leaves the
row out and counts it (``diagnostics["rows_dropped"]``; n then depends on those rows: only for neighbours that add
or remove a row). The same rules as :func:`dppca_core.data.datasets.load_table`; ``"drop_column"`` needs two passes
over the file, so choose the columns with ``columns=`` instead. Declare ``columns`` with ``"replace"`` for a public
schema (``SufficientStats.schema``): a declared column is then read as numbers whatever its cells hold.

Threads (``workers``, numpy engine): pandas' parser releases the GIL, so threads parse separate byte ranges of a
large CSV file. A file under 32 MB, a file-like object, UTF-16, or a file whose first 64 KB hold a quote character
(a quoted field may hold a line break) is read by one thread. The statistics are the same either way (to rounding);
with several threads a bad row is reported with its column and count but, outside the first range, without its
row number.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Callable

import numpy as np

from ..validation import check_data_norm
from .engines import PARALLEL_BYTES, StreamCancelled, StreamRead, dask_stats, numpy_stats
from .readers import CHUNK_CELLS, expand_columns
from .sufficient import NO_SITE, SufficientStats
from .tables import MAX_COLUMNS, PublicSchema, fill_values

ENGINES = ("numpy", "dask")
#: Default cap on the number of distinct sites (each keeps a d x d matrix).
MAX_SITES = 200
#: What the streaming reader can do with a bad cell (see :func:`sufficient_stats`).
STREAM_ON_BAD = ("error", "replace", "drop_rows")


def sufficient_stats(
    source,
    columns=None,
    data_norm: float = 1.0,
    sites: str | None = None,
    chunk_rows: int | None = None,
    engine: str = "numpy",
    label: str | None = None,
    on_bad: str = "error",
    *,
    fill=None,
    scheduler=None,
    max_columns: int | None = MAX_COLUMNS,
    max_sites: int = MAX_SITES,
    workers: int | None = None,
    progress: Callable[[int, int], bool | None] | None = None,
) -> SufficientStats:
    """Stream a CSV or Parquet table into n, the sum and the Gram matrix of its clipped rows.

    Parameters
    ----------
    source : path, glob, folder, list of paths, or file-like
        One CSV or Parquet file (a binary file-like works with the numpy engine), a glob such as
        ``"data/part-*.csv"``, a folder of Parquet files, or a list of paths, all with the same columns.
    columns : list of str, optional
        Feature columns; default every (mostly) numeric column of the first 1,000 rows but ``label``, ``sites``
        and header-less ones (the others are reported in ``diagnostics["dropped_columns"]``).
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
        What a missing, infinite or non-numeric feature cell (or an empty site) does: stop the read with a message
        naming the column and the row; become its column's public value (``fill``), so n is the file's row count;
        or leave its row out (n then depends on it: add/remove neighbours only). See "Bad cells" in the module doc.
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
        numpy engine: threads that parse separate byte ranges of a large CSV file; default 2 where there are 2
        cores or more (see "Threads" in the module doc).
    progress : callable, optional
        numpy engine: called after each chunk with (rows read, rows clipped) so far; return False to cancel
        (raises :class:`StreamCancelled`).

    Returns
    -------
    SufficientStats

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> import pandas as pd
    >>> import dppca_core as dc
    >>> table = pd.DataFrame(np.random.default_rng(0).normal(size=(2000, 3)) / 2, columns=["a", "b", "c"])
    >>> csv = io.BytesIO(table.to_csv(index=False).encode())  # a file's path, a glob or a folder work alike
    >>> stats = dc.sufficient_stats(csv, data_norm=1.0)
    >>> stats.n, stats.columns, stats.gram.shape
    (2000, ('a', 'b', 'c'), (3, 3))
    >>> dc.run("analyze_gauss", stats, k=1, epsilon=1.0, seed=0).components.shape
    (3, 1)
    """
    data_norm = check_data_norm(data_norm)
    workers = _check_arguments(engine, on_bad, fill, chunk_rows, max_sites, sites, workers)
    started = time.perf_counter()
    items, display = expand_columns(source)
    read = StreamRead(
        items, display, columns, data_norm, sites, chunk_rows, label, on_bad, max_columns, max_sites, fill, started
    )
    if engine == "dask":
        stats = dask_stats(read, scheduler)
    else:
        stats = numpy_stats(read, progress, workers)
    return _with_schema(stats, label, on_bad, fill, columns is not None)


def _check_arguments(engine: str, on_bad: str, fill, chunk_rows, max_sites, sites, workers) -> int:
    """ValueError in plain words for an argument of :func:`sufficient_stats` it cannot read with; the number of
    parsing threads (``workers``, default 2 where there are 2 cores or more)."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not understood; choose one of {list(ENGINES)}.")
    if on_bad not in STREAM_ON_BAD:
        hint = (
            " Dropping a column needs two passes over the file: choose the columns with columns=... instead."
            if on_bad == "drop_column"
            else ""
        )
        raise ValueError(
            f"on_bad={on_bad!r} is not supported when streaming; use 'error', 'replace' or " f"'drop_rows'.{hint}"
        )
    if fill is not None and on_bad != "replace":
        raise ValueError(f"fill= is the value that replaces a bad cell: it needs on_bad='replace' (got {on_bad!r}).")
    if chunk_rows is not None and (
        isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1
    ):
        raise ValueError(f"chunk_rows must be a whole number >= 1 (got {chunk_rows!r}).")
    if isinstance(max_sites, bool) or not isinstance(max_sites, (int, np.integer)) or max_sites < 1:
        raise ValueError(f"max_sites must be a whole number >= 1 (got {max_sites!r}).")
    if sites is not None and not isinstance(sites, str):
        raise ValueError(
            "sites must name the column holding each row's site (a string); to split rows into equal "
            "sites, pass the data matrix to run() instead."
        )
    if workers is None:
        return min(2, os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1 (got {workers!r}).")
    return int(workers)


def _with_schema(stats: SufficientStats, label, on_bad: str, fill, declared: bool) -> SufficientStats:
    fills = fill_values(fill, list(stats.columns)) if on_bad == "replace" else {}
    return replace(stats, schema=PublicSchema(tuple(stats.columns), label, on_bad, fills, declared))


__all__ = [
    "sufficient_stats",
    "SufficientStats",
    "StreamCancelled",
    "ENGINES",
    "MAX_SITES",
    "STREAM_ON_BAD",
    "NO_SITE",
    "CHUNK_CELLS",
    "PARALLEL_BYTES",
]

"""The engines that run :func:`dppca_core.data.stats.sufficient_stats`: ``numpy`` streams in this process (one
thread, or several on byte ranges of a large CSV file); ``dask`` computes the blocks on its workers with the same
reading and adding code and adds the blocks up in a tree.
"""

from __future__ import annotations

import io
import os
import time
import warnings
from dataclasses import dataclass, replace

import pandas as pd

from .readers import (
    ByteRange,
    csv_error,
    FileSpec,
    default_chunk,
    display_path,
    read_file_spec,
    iter_csv_chunks,
    iter_parquet_chunks,
    open_binary,
    split_points,
    with_fill,
)
from .sufficient import Partial, add_chunk, finish_stats
from .files import SAMPLE_BYTES


#: Files at least this large are parsed by several threads (``workers``).
PARALLEL_BYTES = 32 << 20


_LOCAL_SCHEDULERS = ("threads", "processes", "synchronous", "sync", "single-threaded")


class StreamCancelled(ValueError):
    """Raised when a ``progress`` callback returns False: the caller cancelled the read."""


@dataclass(frozen=True)
class StreamRead:
    """What :func:`dppca_core.data.stats.sufficient_stats` asks of either engine: the files (``items``, shown as
    ``display``), how their rows are read, and when the read started."""

    items: list
    display: str
    columns: list | None
    data_norm: float
    sites: str | None
    chunk_rows: int | None
    label: str | None
    on_bad: str
    max_columns: int | None
    max_sites: int
    fill: object
    started: float

    def file_spec(self, fh, name: str) -> tuple[FileSpec, tuple, dict]:
        """(spec, how to read on, dropped columns) of one file from its head (:func:`read_file_spec`)."""
        return read_file_spec(
            fh,
            name,
            self.columns,
            self.data_norm,
            self.sites,
            self.chunk_rows,
            self.label,
            self.on_bad,
            self.max_columns,
        )

    def finish(self, part: Partial, spec: FileSpec, extra: dict):
        """The statistics of the merged ``part``, with the engine's ``extra`` facts and the seconds taken."""
        return finish_stats(
            part, spec, self.display, self.sites, {**extra, "seconds": time.perf_counter() - self.started}
        )


def check_same_header(spec: FileSpec, other: FileSpec, name: str) -> None:
    """ValueError unless the file ``name`` (read as ``other``) has the columns of the first file (``spec``)."""
    if other.header != spec.header:
        raise ValueError(
            f"{name} has columns {list(other.header)[:10]}, not those of the first file "
            f"({list(spec.header)[:10]}); every file must have the same columns."
        )


def _parallel_ok(item, fh, spec: FileSpec, workers: int) -> bool:
    """Split a CSV between threads only when it is a large plain file whose lines cannot hide line breaks."""
    if workers < 2 or not isinstance(item, (str, os.PathLike)) or spec.encoding not in ("utf-8", "latin-1"):
        return False
    if os.path.getsize(item) < PARALLEL_BYTES:
        return False
    here = fh.tell()
    fh.seek(0)
    head = fh.read(SAMPLE_BYTES)
    fh.seek(here)
    return b'"' not in head  # a quoted field may hold a line break: then one reader sees the whole file


def _read_ranges(path, spec, offset, rows, usecols, name, max_sites, workers, progress, display):
    """Statistics of a CSV file parsed by ``workers`` threads, each on its own byte range (pandas' parser
    releases the GIL), merged in file order so sites keep their order of first appearance."""
    from concurrent.futures import ThreadPoolExecutor
    import threading

    ranges = split_points(path, offset, workers)
    lock, cancelled = threading.Lock(), threading.Event()
    parts = [Partial(len(spec.features), spec.data_norm) for _ in ranges]
    inner = _counting(spec)  # count bad rows everywhere; refuse after the merge if asked

    def work(i):
        start, stop = ranges[i]
        stream = io.BufferedReader(ByteRange(path, start, stop), 1 << 20)
        try:
            row = 0
            for chunk in iter_csv_chunks(stream, inner, None, rows, usecols, name):
                if cancelled.is_set():
                    return
                add_chunk(parts[i], chunk, inner, name, row if i == 0 else None, max_sites)
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
        raise ValueError(
            f"{name}: the site column {spec.header[spec.site]!r} has more than {max_sites} distinct "
            "values; is it the right column? (raise max_sites if so)."
        )
    return merged


def _counting(spec: FileSpec) -> FileSpec:
    """The spec a part of the file is read with when another part may refuse it later: bad rows are counted and
    left out (``on_bad="error"`` refuses after the merge); replaced cells stay replaced."""
    return spec if spec.on_bad == "replace" else replace(spec, on_bad="drop_rows")


def numpy_stats(read: StreamRead, progress, workers: int):
    spec, part, dropped = None, None, {}
    data_norm, on_bad, max_sites, display = read.data_norm, read.on_bad, read.max_sites, read.display
    for item in read.items:
        fh, name = open_binary(item)
        try:
            file_spec, how, file_dropped = read.file_spec(fh, name)
            file_spec = with_fill(file_spec, read.fill)
            if spec is None:
                spec, dropped = file_spec, file_dropped
                part = Partial(len(spec.features), data_norm)
            check_same_header(spec, file_spec, name)
            rows = default_chunk(spec, read.chunk_rows)
            if how[0] == "parquet":
                chunks = iter_parquet_chunks(how[1], spec, rows, name)
            else:
                file_spec = FileSpec(
                    "csv",
                    spec.header,
                    spec.features,
                    spec.site,
                    file_spec.sep,
                    file_spec.encoding,
                    file_spec.decimal_comma,
                    data_norm,
                    on_bad,
                    fill=spec.fill,
                )
                usecols = (
                    None
                    if read.columns is None
                    else sorted(set(spec.features) | ({spec.site} if spec.site is not None else set()))
                )
                if _parallel_ok(item, fh, file_spec, workers):
                    part.merge(
                        _read_ranges(
                            item, file_spec, how[1], rows, usecols, name, max_sites, workers, progress, display
                        )
                    )
                    continue
                chunks = iter_csv_chunks(fh, file_spec, how[1], rows, usecols, name)
            row = 0
            for chunk in chunks:
                add_chunk(part, chunk, file_spec if how[0] == "csv" else spec, name, row, max_sites)
                row += len(chunk)
                if progress is not None:
                    clipped = sum(a.n_clipped for a in part.sites.values())
                    if progress(part.rows_read, clipped) is False:
                        raise StreamCancelled(f"cancelled after {part.rows_read:,} rows of {display}.")
        finally:
            if isinstance(item, (str, os.PathLike)):
                fh.close()
    return read.finish(part, spec, {"engine": "numpy", "files": len(read.items), "dropped_columns": dropped})


def _dask_block(block: bytes, spec: FileSpec, name: str, max_sites: int) -> Partial:
    """Statistics of one block of CSV lines (runs on a dask worker)."""
    part = Partial(len(spec.features), spec.data_norm)
    if not block.strip():
        return part
    names = range(len(spec.header))
    dtype = None if spec.site is None else {spec.site: str}
    for chunk in _iter_block(block, spec, names, dtype, name):
        add_chunk(part, chunk, _counting(spec), name, None, max_sites)
    return part


def _iter_block(block, spec, names, dtype, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                io.BytesIO(block),
                sep=spec.sep,
                header=None,
                names=names,
                index_col=False,
                skipinitialspace=True,
                engine="c",
                encoding=spec.encoding,
                dtype=dtype,
                low_memory=False,
            )
        except Exception as exc:  # noqa: BLE001 - the parsers raise several types on malformed text
            raise csv_error(exc, name, spec.encoding) from None
    yield frame


def _dask_frame(frame: pd.DataFrame, spec: FileSpec, name: str, max_sites: int, stored: tuple) -> Partial:
    """Statistics of one dask.dataframe partition (Parquet; runs on a dask worker); ``stored``: the column names as
    the file stores them."""
    part = Partial(len(spec.features), spec.data_norm)
    frame = frame.copy()
    frame.columns = [stored.index(str(c)) for c in frame.columns]
    add_chunk(part, frame, _counting(spec), name, None, max_sites)
    return part


def _merge_all(*parts: Partial) -> Partial:
    out = parts[0]
    for p in parts[1:]:
        out.merge(p)
    return out


def _tree(delayed, leaves, fan_in=8):
    """Sum the partial statistics in a tree of ``fan_in``-way merges (depth log_8 of the blocks)."""
    level = list(leaves)
    while len(level) > 1:
        level = [delayed(_merge_all)(*level[i : i + fan_in]) for i in range(0, len(level), fan_in)]
    return level[0]


def dask_stats(read: StreamRead, scheduler):
    try:
        import dask
        from dask import delayed
    except ImportError:
        raise ValueError(
            "engine='dask' needs dask: pip install -r requirements-scale.txt (or the 'scale' extra), "
            "or use engine='numpy'."
        ) from None
    if not all(isinstance(i, (str, os.PathLike)) for i in read.items):
        raise ValueError(
            "engine='dask' reads files by path (the workers open them); pass a path, glob or folder, or "
            "use engine='numpy' for a file-like object."
        )
    paths = [str(p) for p in read.items]
    spec, dropped = _dask_spec(paths, read)
    if spec.kind == "csv":
        leaves = _csv_leaves(delayed, paths, spec, read.display, read.chunk_rows, read.max_sites)
    else:
        leaves = _parquet_leaves(delayed, paths, spec, read.display, read.max_sites)
    if not leaves:
        raise ValueError(f"{read.display} holds no data rows.")
    part = _compute(dask, _tree(delayed, leaves), scheduler)
    extra = {"engine": "dask", "files": len(paths), "blocks": len(leaves), "dropped_columns": dropped}
    return read.finish(part, spec, extra)


def _dask_spec(paths, read: StreamRead):
    """(the first file's reading spec with its public fills, the columns it leaves out); ValueError unless every
    file has the same header (cheap: one head each)."""
    with open(paths[0], "rb") as fh:
        spec, _, dropped = read.file_spec(fh, display_path(paths[0]))
    spec = with_fill(spec, read.fill)
    for p in paths[1:]:
        with open(p, "rb") as fh:
            other, _, _ = read.file_spec(fh, display_path(p))
        check_same_header(spec, other, display_path(p))
    return spec, dropped


def _csv_leaves(delayed, paths, spec, display, chunk_rows, max_sites) -> list:
    """One delayed partial sum per block of bytes of the CSV files (blocks of about one chunk of rows, cut at line
    ends)."""
    for p in paths:
        with open(p, "rb") as fh:
            head = fh.read(4)
        if head[3 if head[:3] == b"\xef\xbb\xbf" else 0 :][:1].isspace():
            raise ValueError(
                f"{display_path(p)} starts with blank space before the header; remove it (the dask "
                "engine expects the header on the first line) or use engine='numpy'."
            )
    if spec.encoding in ("utf-16", "utf-32"):
        raise ValueError(
            f"{display}: {spec.encoding.upper()} files cannot be split into blocks; re-save them as UTF-8 or use "
            "engine='numpy'."
        )
    from dask.bytes import read_bytes

    rows = default_chunk(spec, chunk_rows)
    blocksize = max(1 << 16, rows * 16 * len(spec.header))  # about the bytes of one chunk of rows
    _, blocks = read_bytes(paths, delimiter=b"\n", not_zero=True, blocksize=blocksize, sample=False)
    return [
        delayed(_dask_block)(b, spec, display_path(p), max_sites)
        for p, file_blocks in zip(paths, blocks)
        for b in file_blocks
    ]


def _parquet_leaves(delayed, paths, spec, display, max_sites) -> list:
    """One delayed partial sum per partition of the Parquet files, reading only the feature (and site) columns."""
    import dask.dataframe as dd

    import pyarrow.parquet as pq

    stored = tuple(str(c) for c in pq.ParquetFile(paths[0]).schema_arrow.names)
    wanted = sorted(set(spec.features) | ({spec.site} if spec.site is not None else set()))
    ddf = dd.read_parquet(paths, columns=[stored[j] for j in wanted])
    return [delayed(_dask_frame)(p, spec, display, max_sites, stored) for p in ddf.to_delayed()]


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
        raise ValueError(
            f"scheduler must be None, one of {list(_LOCAL_SCHEDULERS)}, an address such as "
            f"'tcp://host:8786' or a distributed.Client (got {type(scheduler).__name__})."
        )
    try:
        client = Client(scheduler, set_as_default=False, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise ValueError(
            f"could not connect to the dask scheduler at {scheduler!r} ({exc}); check the address and "
            "that the cluster is running."
        ) from None
    try:
        return client.compute(total).result()
    finally:
        client.close()

"""Reading the files that :func:`dppca_core.data.stats.sufficient_stats` streams: the sources (a path, a glob, a
folder, a file-like), each file's head (header, separator, encoding, the feature columns chosen from the first rows)
and its chunks (CSV by pandas, Parquet by pyarrow), and the byte ranges several threads read. What is read is the
same for both engines (:mod:`dppca_core.data.engines`).
"""

from __future__ import annotations

import glob as _glob
import io
import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from .columns import UNNAMED, analyse_column, check_unique_header
from .files import (
    SAMPLE_BYTES,
    check_wide_length,
    detect_encoding,
    is_parquet,
    leading_junk,
    plain_name,
    read_header,
    record_end,
    text_encoding,
)
from .tables import fill_values


#: Cells (rows x columns) parsed per chunk when ``chunk_rows`` is not given (about 16 MB of floats).
CHUNK_CELLS = 2_000_000


#: Rows read to choose the feature columns when ``columns`` is None.
_PROBE_ROWS = 1000


@dataclass(frozen=True)
class FileSpec:
    """What every chunk of every file is read with (picklable, sent to dask workers)."""

    kind: str  # "csv" or "parquet"
    header: tuple  # all column names of the file
    features: tuple  # indices (into header) of the feature columns
    site: int | None  # index of the site column
    sep: str = ","
    encoding: str = "utf-8"
    decimal_comma: bool = False
    data_norm: float = 1.0
    on_bad: str = "error"
    usable: tuple = ("numeric",)
    fill: tuple = ()  # on_bad="replace": the public value of each feature column's bad cells

    @property
    def names(self) -> list:
        return [self.header[j] for j in self.features]


def expand_columns(source) -> tuple[list, str]:
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
        raise ValueError(
            "source must be a path, a glob, a folder of Parquet files, a list of paths or a file-like "
            f"object; got {type(source).__name__}."
        )
    text = str(source)
    if os.path.isdir(text):
        files = sorted(
            p
            for p in _glob.glob(os.path.join(text, "*"))
            if p.lower().endswith((".parquet", ".pq")) and os.path.isfile(p)
        )
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
    return [text], display_path(text)


def display_path(path) -> str:
    """A file's name as messages show it (:func:`dppca_core.data.tables.plain_name`)."""
    return plain_name(Path(path).name)


def open_binary(item):
    if isinstance(item, (str, os.PathLike)):
        return open(item, "rb"), display_path(item)
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
    head = fh.read(SAMPLE_BYTES)
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
        raise ValueError(
            f"{name} looks binary (it contains NUL bytes); give a CSV text file (UTF-8, or UTF-16 or "
            "UTF-32 with a byte-order mark) or a Parquet file."
        )
    skip = leading_junk(head)
    if skip == len(head):
        if len(head) < SAMPLE_BYTES:
            raise ValueError(f"{name} is empty; give a CSV with a header row and at least 2 data rows.")
        raise ValueError(f"{name} starts with more than {SAMPLE_BYTES:,} bytes of blank space; remove them.")
    body = _narrow_head(fh, head[skip:])
    header, sep, encoding = read_header(
        body, text_encoding(body[:SAMPLE_BYTES], len(body) < SAMPLE_BYTES), name, max_columns
    )
    return header, sep, encoding, start + skip


def _narrow_head(fh, body: bytes) -> bytes:
    """``body`` and what follows it in ``fh`` up to the end of the first CSV record (or of the file)."""
    end, inside = record_end(body)
    size = SAMPLE_BYTES
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
    data, size = head, SAMPLE_BYTES
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
                dropped[h] = UNNAMED if info.kind in usable else f"{info.reason} (in the first {len(first)} rows)"
        if not chosen:
            raise ValueError(
                f"{name} has no numeric columns ({dict(list(dropped.items())[:5])}); PCA needs numeric "
                "features: encode them as numbers or choose another file."
            )
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
        raise ValueError(
            f"column(s) are not numeric ({'; '.join(bad[:5])}); choose numeric columns or encode them as " "numbers."
        )
    dropped.update({h: "not selected" for h in header if h not in columns and h not in (label, site_col)})
    return tuple(index[c] for c in columns), dropped


class _KeepOpen(io.RawIOBase):
    """A binary stream reading ``fh`` that leaves ``fh`` open when it is closed."""

    def __init__(self, fh):
        self._fh = fh

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._fh.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _csv_reader(fh, spec: FileSpec, offset: int | None, chunk_rows: int, usecols):
    """Chunks of a CSV stream: from ``offset`` (the header line, skipped), or, with offset None, from the
    stream's start, which is a line start after the header (a byte range of a split file)."""
    if offset is not None:
        fh.seek(offset)
    if spec.encoding not in ("utf-8", "latin-1"):  # pandas decodes through a wrapper it closes, closing ``fh``
        fh = io.BufferedReader(_KeepOpen(fh), 1 << 20)
    dtype = None if spec.site is None else {spec.site: str}
    return pd.read_csv(
        fh,
        sep=spec.sep,
        header=None,
        skiprows=0 if offset is None else 1,
        names=range(len(spec.header)),
        usecols=usecols,
        index_col=False,
        skipinitialspace=True,
        engine="c",
        chunksize=chunk_rows,
        encoding=spec.encoding,
        dtype=dtype,
        low_memory=False,
    )


def csv_error(exc: Exception, name: str, encoding: str) -> ValueError:
    """What a CSV parser's error on the file ``name`` says in plain words (the parsers raise several types on
    malformed text): the text is not valid ``encoding`` further in, or a line does not parse."""
    if isinstance(exc, UnicodeDecodeError):
        return ValueError(f"{name} is not valid {encoding} text further in ({exc.reason}); re-save it as UTF-8.")
    detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
    return ValueError(
        f"{name}: could not parse as CSV ({detail}); use one header row and the same number "
        "of separated fields on every line."
    )


def iter_csv_chunks(fh, spec, offset, chunk_rows, usecols, name):
    reader = _csv_reader(fh, spec, offset, chunk_rows, usecols)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001 - the parsers raise several types on malformed text
                raise csv_error(exc, name, spec.encoding) from None
            yield chunk


def _parquet_file(fh, name, max_columns):
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(fh)
        header = [plain_name(c) for c in pf.schema_arrow.names]
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it.") from None
    if max_columns is not None and len(header) > max_columns:
        raise ValueError(
            f"{name} has {len(header):,} columns, over the limit of {max_columns:,} columns; keep the "
            "columns you need (or raise max_columns)."
        )
    return pf, header


def iter_parquet_chunks(pf, spec: FileSpec, chunk_rows: int, name: str):
    wanted = sorted(set(spec.features) | ({spec.site} if spec.site is not None else set()))
    names = [pf.schema_arrow.names[j] for j in wanted]  # as stored (the header shows them through plain_name)
    try:
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=names):
            frame = batch.to_pandas()
            frame.columns = wanted
            yield frame
    except Exception as exc:
        raise ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it.") from None


def with_fill(spec: FileSpec, fill) -> FileSpec:
    """The spec with the public value of each feature column's bad cells (``on_bad="replace"``)."""
    if spec.on_bad != "replace":
        return spec
    fills = fill_values(fill, spec.names)
    return replace(spec, fill=tuple(fills[c] for c in spec.names))


def read_file_spec(fh, name, columns, data_norm, sites, chunk_rows, label, on_bad, max_columns, kind_hint=None):
    """(spec, first chunk iterator, dropped) for one file, reading its head."""
    start = fh.tell()
    magic = fh.read(4)
    fh.seek(start)
    if is_parquet(magic, name):
        pf, header = _parquet_file(fh, name, max_columns)
        check_unique_header(header, name)
        probe = FileSpec("parquet", tuple(header), tuple(range(len(header))), None)
        first = next(iter_parquet_chunks(pf, probe, _PROBE_ROWS, name), pd.DataFrame(columns=range(len(header))))
        features, dropped = _choose(header, first, columns, label, sites, on_bad, False, name)
        site = None if sites is None else header.index(sites)
        spec = FileSpec("parquet", tuple(header), features, site, data_norm=data_norm, on_bad=on_bad)
        return spec, ("parquet", pf), dropped
    header, sep, encoding, offset = _csv_head(fh, name, max_columns)
    check_unique_header(header, name)
    probe = FileSpec("csv", tuple(header), tuple(range(len(header))), None, sep, encoding)
    first = next(iter_csv_chunks(fh, probe, offset, _PROBE_ROWS, None, name), pd.DataFrame(columns=range(len(header))))
    features, dropped = _choose(header, first, columns, label, sites, on_bad, sep != ",", name)
    site = None if sites is None else header.index(sites)
    spec = FileSpec("csv", tuple(header), features, site, sep, encoding, sep != ",", data_norm, on_bad)
    return spec, ("csv", offset), dropped


def default_chunk(spec: FileSpec, chunk_rows):
    return chunk_rows or max(1000, CHUNK_CELLS // max(len(spec.header), 1))


class ByteRange(io.RawIOBase):
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
        buffer[: len(data)] = data
        self._left -= len(data)
        return len(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


def split_points(path, offset: int, workers: int) -> list:
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

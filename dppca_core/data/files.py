"""Reading a CSV or Parquet file's bytes for :mod:`dppca_core.data.tables` (and the streamed reader,
:mod:`dppca_core.data.readers`): size limits, byte-order marks and encodings, the CSV body, its delimiter and
header, the Parquet metadata and batches.

Every step is bounded before it starts, whatever the bytes: the delimiter is guessed from the first
SAMPLE_BYTES only, the header record's fields are counted in one linear pass before the record is split into
names, a row limit stops the CSV parser, and a Parquet file's size is read from its metadata before any data
page is decompressed (then counted again as the batches arrive). Nothing runs in more than linear time on a
visitor's bytes (csv.Sniffer, whose regular expression takes time quadratic in a long line, is not used).
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


#: Bytes read to guess the delimiter (and, when streaming, first read to find the header).
SAMPLE_BYTES = 1 << 16


FIX_ROWS = "upload a CSV with a header row and at least 2 data rows."


_CSV_FIX = "use one header row and the same number of comma-, semicolon- or tab-separated fields on every line."


#: Byte-order marks and the encodings they announce (the UTF-32 little-endian mark starts with the UTF-16 one).
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
)


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
        raise ValueError(
            f"{name} is {size / 1e6:.1f} MB, over the limit of {max_bytes / 1e6:.1f} MB "
            f"({max_bytes:,} bytes); upload a sample of the rows, or stream the file into sufficient "
            "statistics (dppca_core.data.stats.sufficient_stats)."
        )


def read_bytes(source, max_bytes: int | None = None) -> tuple[bytes, str]:
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
        raise ValueError(
            "source must be a path or a file-like object (with read() or getvalue()); " f"got {type(source).__name__}."
        )
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
        raise ValueError(
            f"{name} is marked as {label} but has {count}, so it is truncated or not {label}; re-save "
            "it as UTF-8 (or as UTF-16 from a spreadsheet program)."
        )


def decode_wide(raw: bytes, name: str, encoding: str) -> str:
    """Decode a UTF-16 or UTF-32 file (with its byte-order mark), refusing a truncated or broken one with the fix."""
    check_wide_length(len(raw), name, encoding)
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name} is marked as {encoding.upper()} but cannot be decoded ({exc.reason} at byte "
            f"{exc.start:,}); re-save it as UTF-8."
        ) from None


def leading_junk(data: bytes) -> int:
    """Bytes of byte-order marks and blank space before the header (linear in their length)."""
    return _LEADING_BYTES.match(data).end()


def text_encoding(head: bytes, complete: bool) -> str:
    """ "utf-8" when ``head`` (the file's first bytes; ``complete`` when it is the whole file) decodes as UTF-8, a
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
        raise ValueError(
            f"{name} looks binary (it contains NUL bytes); upload a CSV text file (UTF-8, or UTF-16 or "
            "UTF-32 with a byte-order mark) or a Parquet file."
        )
    start = leading_junk(raw)
    body = raw[start:] if start else raw
    return body, text_encoding(body[:SAMPLE_BYTES], len(body) <= SAMPLE_BYTES)


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

    Reads at most ``SAMPLE_BYTES`` characters, in linear time (the csv module's reader, once per candidate;
    csv.Sniffer is not used: its regular expression takes time quadratic in a long line). The candidate that
    splits the first complete rows into the same number of fields, more than one, wins; when none does (one long
    first line), the one that gives the first row the most fields; ties go to the earlier of , ; tab |.
    """
    sample = sample[:SAMPLE_BYTES]
    best, best_key = ",", (False, 1, 0)
    for order, sep in enumerate(_DELIMITERS):
        try:
            rows = [
                r
                for r in itertools.islice(csv.reader(io.StringIO(sample, newline=""), delimiter=sep), _SNIFF_ROWS + 1)
                if r
            ]
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
    return ValueError(
        f"{name} has {count:,} columns, over the limit of {max_columns:,} columns; keep the columns you "
        "need (or raise max_columns)."
    )


def read_header(body: bytes, encoding: str, name: str, max_columns: int | None) -> tuple[list, str, str]:
    """(column names, delimiter, encoding) of a CSV from its bytes (UTF-8 or latin-1, starting at the header).

    Bounded work before anything large is built: the delimiter is guessed from the first ``SAMPLE_BYTES``, the
    header record (which may hold quoted line breaks) is found and its fields counted in one linear pass, and more
    than ``max_columns`` fields are refused with the true count before the record is split into names. Names go
    through :func:`plain_name`; an empty one becomes "Unnamed: j". ``encoding`` becomes "latin-1" when the header
    is not UTF-8.
    """
    sample = body[:SAMPLE_BYTES]
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
        raise ValueError(f"{name} is empty; {FIX_ROWS}") from None
    except csv.Error as exc:
        detail = (
            f"a column name is longer than {csv.field_size_limit():,} characters"
            if "field limit" in str(exc)
            else str(exc)
        )
        raise ValueError(f"{name}: could not parse the header ({detail}); {_CSV_FIX}") from None
    if max_columns is not None and len(fields) > max_columns:  # quotes the linear count misread
        raise _too_wide(name, len(fields), max_columns)
    names = [plain_name(h).strip() for h in fields]
    return [h or f"Unnamed: {j}" for j, h in enumerate(names)], sep, encoding


def parse_csv(raw: bytes, name: str, max_columns: int | None, max_cells: int | None) -> tuple[pd.DataFrame, list, str]:
    body, encoding = _csv_body(raw, name)
    if not body:
        raise ValueError(f"{name} is empty; {FIX_ROWS}")
    header, sep, encoding = read_header(body, encoding, name, max_columns)
    max_rows = None if max_cells is None else max_cells // len(header)
    try:
        frame = _read_frame(io.BytesIO(body), encoding, header, sep, name, max_rows)
    except _DecodeFailure:
        frame = _read_frame(io.BytesIO(body), "latin-1", header, sep, name, max_rows)
    if max_rows is not None and len(frame) > max_rows:  # the parser stopped one row past the limit
        lines = max(body.count(b"\n"), len(frame) + 1)
        raise ValueError(
            f"{name} has about {lines * len(header):,} cells ({lines:,} lines of {len(header):,} "
            f"columns), over the limit of {max_cells:,} cells; upload fewer rows or columns."
        )
    return frame, header, sep


class _DecodeFailure(Exception):
    pass


def _read_frame(buffer, encoding, header, sep, name, max_rows: int | None = None) -> pd.DataFrame:
    """The data rows (after the header record) as raw columns; at most ``max_rows`` + 1 rows are parsed."""
    try:
        # the header is read by the csv module so repeated names stay visible (pandas would rename them)
        with warnings.catch_warnings():  # a row longer than the header would be truncated with only a warning
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                buffer,
                sep=sep,
                header=None,
                skiprows=1,
                names=range(len(header)),
                index_col=False,
                skipinitialspace=True,
                engine="c",
                low_memory=False,
                encoding=encoding,
                nrows=None if max_rows is None else max_rows + 1,
            )
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
        return ValueError(
            f"{name}: its data do not fit in the memory available to read it; upload fewer rows or " "columns."
        )
    return ValueError(f"{name}: not a readable Parquet file; re-export it, or upload a CSV.")


def _parquet_width(file) -> int:
    """The columns a Parquet file's table has: its stored columns less a pandas index stored as columns."""
    names = file.schema_arrow.names
    index = (file.schema_arrow.pandas_metadata or {}).get("index_columns", [])
    return len(names) - sum(1 for column in index if isinstance(column, str) and column in names)


def parquet_limits(
    file, name: str, max_columns: int | None, max_cells: int | None, max_decoded_bytes: int | None
) -> None:
    """Refuse a Parquet file over a limit from its metadata (columns, rows, row groups and the size of its data once
    decompressed), before any data page is read: a small file can decompress to gigabytes."""
    meta, width = file.metadata, _parquet_width(file)
    if max_columns is not None and width > max_columns:
        raise _too_wide(name, width, max_columns)
    if max_cells is not None and meta.num_rows * width > max_cells:
        raise ValueError(
            f"{name} has {meta.num_rows * width:,} cells ({meta.num_rows:,} rows of {width:,} columns), "
            f"over the limit of {max_cells:,} cells; upload fewer rows or columns."
        )
    if max_decoded_bytes is not None:
        decoded = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        if decoded > max_decoded_bytes:
            raise ValueError(
                f"{name} holds {decoded / 1e6:,.0f} MB of data once decompressed, over the limit of "
                f"{max_decoded_bytes / 1e6:,.0f} MB; upload fewer rows or columns."
            )


def parse_parquet(
    raw: bytes,
    name: str,
    max_columns: int | None,
    max_cells: int | None,
    max_decoded_bytes: int | None,
    max_memory_bytes: int | None = None,
) -> tuple[pd.DataFrame, list]:
    from .expansion import TooLarge, check_memory

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        file = pq.ParquetFile(io.BytesIO(raw))  # reads the footer only
        width = _parquet_width(file)
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise _not_parquet(name, exc) from None
    parquet_limits(file, name, max_columns, max_cells, max_decoded_bytes)
    try:  # the memory its table takes once read: from the metadata, then the dictionaries, never expanded
        check_memory(file, raw, name, max_memory_bytes)
    except TooLarge:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a broken file
        raise _not_parquet(name, exc) from None
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
        raise ValueError(
            f"{name} has more than {max_rows * width:,} cells (more rows than its metadata say), over "
            f"the limit of {max_cells:,} cells; upload fewer rows or columns."
        )
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

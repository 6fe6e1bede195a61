"""The memory a Parquet file's table takes once read, known before any value is expanded (:func:`check_memory`).

A Parquet file may store a text once (in a dictionary page) and each row as a small index into it, and those indices
compress to almost nothing: 17 KB can hold ten million copies of a 60-character text, which a reader expands into
ten million Python strings and the gigabytes they take. So before the rows are read:

1. the metadata give every column of numbers (rows x bytes per value) and every text column stored plainly (its
   decompressed size bounds its texts' lengths) exactly, and a floor for the others (every row at least a number,
   the dictionary read at least once): a file over the limit on these alone is refused without reading a page;
2. a text column stored as a dictionary is then read as a dictionary: its distinct texts once and a 4-byte index
   per row, never expanded; the length of its texts once expanded is the sum, over its rows, of the length of the
   text each row points to, counted by Arrow without building them. A column with a delta encoding (which Arrow
   cannot read as a dictionary) is counted a few thousand rows at a time, each batch dropped once counted.

The model of a cell once read (:data:`NUMBER_CELL`, :data:`TEXT_CELL`, :data:`TEXT_BYTE`) is what the app's parse
measured (the upload worker's peak resident memory): a number is held in Arrow's buffer, in pandas and as the
analysed column; a text in Arrow's buffer, as a Python string (57 bytes and its length) and once more by the
analysis. ``tests/data/test_parquet_expansion.py`` checks that the worker's peak stays near the model.
"""

from __future__ import annotations

import io

#: bytes a cell of numbers takes once read (Arrow's buffer, pandas' column, the analysed column: 8 bytes each)
NUMBER_CELL = 24
#: bytes a text cell takes once read, beyond its length: measured 236, 340 and 808 bytes a row of the worker's peak
#: for texts of 20, 60 and 200 characters, about 140 + 3.3 x the length
TEXT_CELL = 140
#: bytes a text cell takes once read for each byte of its text (Arrow's buffer, the string, the analysis' copy)
TEXT_BYTE = 3
#: the physical types of Parquet whose values have a fixed size
_FIXED = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE"}
#: encodings of a text column whose decompressed size bounds its texts (levels are encoded RLE or BIT_PACKED)
_PLAIN = {"PLAIN", "RLE", "BIT_PACKED"}


def _chunk_bytes(chunk, length: int | None, dictionary: bool) -> int | None:
    """The bytes one column chunk takes once read, from the metadata alone, or None for a text column whose size
    only its dictionary gives (``length``: a fixed-length value's bytes; ``dictionary``: the file's schema keeps the
    column as categories)."""
    rows, physical = chunk.num_values, chunk.physical_type
    if physical in _FIXED:
        return rows * NUMBER_CELL
    if physical == "FIXED_LEN_BYTE_ARRAY":
        return rows * (TEXT_CELL + TEXT_BYTE * (length or 0))
    if dictionary:  # read as categories: an index per row and the distinct texts once
        return rows * NUMBER_CELL + chunk.total_uncompressed_size
    if set(chunk.encodings) <= _PLAIN:  # every text is stored whole: the decompressed size bounds their lengths
        return rows * TEXT_CELL + TEXT_BYTE * chunk.total_uncompressed_size
    return None


def metadata_bytes(file) -> tuple[int, int, dict]:
    """From the metadata of a ``pyarrow.parquet.ParquetFile`` alone: (the bytes of the columns they give once read,
    a floor of the bytes of the others: every row at least a number and the dictionary read whole, {name: rows} of
    those others: text columns whose size only their dictionaries give)."""
    import pyarrow as pa

    meta, schema = file.metadata, file.schema
    kept = {f.name for f in file.schema_arrow if pa.types.is_dictionary(f.type)}
    known = floor = 0
    counted: dict = {}
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        for j in range(group.num_columns):
            chunk, column = group.column(j), schema.column(j)
            name = column.path.split(".")[0]
            size = _chunk_bytes(chunk, column.length, name in kept)
            if size is None:
                floor += chunk.num_values * NUMBER_CELL + chunk.total_uncompressed_size
                counted[name] = counted.get(name, 0) + chunk.num_values
            else:
                known += size
    return known, floor, counted


#: rows read at a time when counting the texts of a dictionary (4 bytes each: 4 MB), and of a column whose pages
#: have no dictionary (a delta encoding: the texts themselves, so fewer rows)
_COUNT_ROWS = 1 << 20
_PLAIN_ROWS = 1 << 12


def _counted(raw: bytes, column: str, as_dictionary: bool) -> int:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    file = pq.ParquetFile(io.BytesIO(raw), read_dictionary=[column] if as_dictionary else None)
    total = 0
    for batch in file.iter_batches(batch_size=_COUNT_ROWS if as_dictionary else _PLAIN_ROWS, columns=[column]):
        chunk = batch.column(0)
        if hasattr(chunk, "dictionary"):
            total += pc.sum(pc.take(pc.binary_length(chunk.dictionary), chunk.indices)).as_py() or 0
        else:
            total += pc.sum(pc.binary_length(chunk)).as_py() or 0
    return total


def dictionary_text_bytes(raw: bytes, columns: list) -> int:
    """The bytes of the texts of ``columns`` once expanded (the sum over rows of the length of each row's text).
    Each column is read as a dictionary a million rows at a time (4 bytes a row and its distinct texts, never the
    expanded column); one whose pages Arrow cannot read as a dictionary (a delta encoding) is read 4,096 rows at
    a time and each batch dropped once counted (the worker's memory budget bounds a batch)."""
    total = 0
    for column in columns:
        try:
            total += _counted(raw, column, as_dictionary=True)
        except (OSError, NotImplementedError):  # "not yet implemented" for a delta-encoded page
            total += _counted(raw, column, as_dictionary=False)
    return total


class TooLarge(ValueError):
    """A table that would take more memory once read than the reader allows (the message says so, in words)."""


def refusal(name: str, needed: int, limit: int, rows: int) -> TooLarge:
    """The message of a table too large once read: the limit passed and what to do."""
    return TooLarge(
        f"{name} expands to about {needed / 1e6:,.0f} MB in memory once read ({rows:,} rows: a Parquet file can "
        f"store a value once and repeat it in every row); this server allows {limit / 1e6:,.0f} MB for one "
        "upload: upload fewer rows or columns, or read it on your own computer with the library's streaming "
        "reader (dppca_core.sufficient_stats)."
    )


def check_memory(file, raw: bytes, name: str, max_memory_bytes: int | None) -> int:
    """Refuse (ValueError, in words) a Parquet file whose table would take more than ``max_memory_bytes`` once read,
    from its metadata and then its dictionaries, before any value is expanded; return the bytes it will take."""
    if max_memory_bytes is None:
        return 0
    rows = file.metadata.num_rows
    known, floor, counted = metadata_bytes(file)
    if known + floor > max_memory_bytes:
        raise refusal(name, known + floor, max_memory_bytes, rows)
    if not counted:
        return known
    texts = dictionary_text_bytes(raw, list(counted))
    needed = known + TEXT_CELL * sum(counted.values()) + TEXT_BYTE * texts
    if needed > max_memory_bytes:
        raise refusal(name, needed, max_memory_bytes, rows)
    return needed

"""Hostile files (tests/data/test_hostile_files.py, test_parquet_expansion.py, the app's tests/app/test_app_hostile_files.py,
the browser's tests/e2e/test_hostile_upload.py and benchmarks/load.py): first lines that once took the CSV sniffer
hours, Parquet bombs, and the characters no name may keep."""

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

MB = 10**6
RLO, LRI, PDI = "\u202e", "\u2066", "\u2069"


#: every hostile file below is answered with a peak memory growth of the worker under this (measured: 2-40 MB)
HOSTILE_PEAK = 150 * MB

#: raw control and bidirectional characters no name may keep (tab and line breaks included: they become spaces)
RAW = [
    chr(c)
    for c in (
        *range(0, 32),
        *range(0x7F, 0xA0),
        0x61C,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0xFEFF,
    )
]


def named(raw: bytes, name: str = "t.csv") -> io.BytesIO:
    buffer = io.BytesIO(raw)
    buffer.name = name
    return buffer


def rows(n: int = 50, d: int = 3, seed: int = 0) -> str:
    """Data lines of a messy numeric table (units 1000x apart, a missing cell)."""
    values = np.random.default_rng(seed).normal(size=(n, d)) * (10.0 ** (3 * np.arange(d)))
    lines = [",".join(f"{v:.4f}" for v in row) for row in values]
    lines[3] = lines[3].split(",", 1)[0] + "," + ",".join([""] * (d - 1))
    return "\n".join(lines) + "\n"


#: adversarial first lines of 1 MB: each once took csv.Sniffer hours, or fooled the column guard
HOSTILE_LINES = {
    "quote-dash": '-"a' * 350_000,  # 36 KB of this took 3.5 s, 144 KB 71 s
    "open quote, then commas": '"a' + "," * 1_000_000,
    "quote inside a field, then commas": 'a"' + ",0" * 500_000,
    "every delimiter": ",;\t|" * 250_000,
    "one long name": "a" * 1_000_000,
    "only quotes": '"' * 1_000_001,
}


def hostile_csv(line: str) -> bytes:
    return (line + "\n" + rows()).encode()


def parquet_bomb(path, rows: int = 11_000_000) -> bytes:
    """2 columns of zeros (the issue's bomb had 100 M rows in 876 KB; 11 M rows pass the 20 M-cell limit too)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    block = pa.table({"a": np.zeros(1_000_000), "b": np.zeros(1_000_000)})
    with pq.ParquetWriter(path, block.schema) as writer:
        for _ in range(rows // 1_000_000):
            writer.write_table(block)
    return path.read_bytes()


def dictionary_bomb(rows: int, text_bytes: int) -> bytes:
    """One text of ``text_bytes`` characters stored once and repeated in ``rows`` rows: a dictionary page and runs of
    the index 0, written without Arrow's schema (so a reader cannot keep it as categories) and without statistics."""
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array(["z" * text_bytes]))
    buffer = io.BytesIO()
    pq.write_table(
        pa.table({"z": column}, schema=pa.schema([pa.field("z", column.type, nullable=False)])),
        buffer,
        compression="zstd",
        store_schema=False,
        write_statistics=False,
        row_group_size=rows,
        data_page_size=1 << 30,
    )
    return buffer.getvalue()

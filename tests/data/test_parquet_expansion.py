"""A Parquet file that expands in memory is refused before it does (issues 62 and 63): the memory its table takes
once read is known from its metadata and its dictionaries before any text is repeated, the refusal names the limit
and what to do, and what the upload worker sends back is bounded. Measured by the worker's peak resident memory,
never by a clock."""

import io
import operator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dppca_core.data import expansion, tables
from tests.support.hostile import HOSTILE_PEAK, MB, dictionary_bomb, named
from ui import limits, worker

#: the app's upload limits (ui/limits.py defaults), with the memory a table may take once read
APP = (50 * MB, 20_000_000, 2_000, 1_000 * MB, limits.UPLOAD_MEMORY_BYTES)
#: the app's parse budget (ui/limits.py default)
BUDGET = limits.PARSE_MEMORY_BYTES
CLASS_NAME = r"\b[A-Z]\w*(Error|Exception)\b"


def attempt(raw: bytes, name: str):
    """(the parsed table or the message, the worker's peak memory growth in bytes) of the app's parse."""
    try:
        out = worker.run(
            worker.parse_upload,
            name,
            raw,
            *APP,
            memory_bytes=BUDGET,
            cpu_seconds=60,
            what=name,
            max_reply_bytes=limits.UPLOAD_MEMORY_BYTES,
        )
    except worker.Refused as exc:
        return str(exc), exc.peak_bytes
    return out.value, out.peak_bytes


#: (rows, text bytes) of the issue's bombs: 16 KB that expand to 600 MB of text, 10 KB to 1 GB
BOMBS = {"600-mb.parquet": (10_000_000, 60), "1-gb.parquet": (5_000_000, 200)}


@pytest.mark.parametrize("name", list(BOMBS))
def test_a_dictionary_bomb_is_refused_from_its_dictionary_before_the_worker_passes_its_budget(name):
    rows, text_bytes = BOMBS[name]
    raw = dictionary_bomb(rows, text_bytes)
    assert len(raw) < 20_000  # 17.7 KB and 9 KB
    message, peak = attempt(raw, name)
    assert isinstance(message, str), "the bomb was read"
    needed = rows * (expansion.TEXT_CELL + expansion.TEXT_BYTE * text_bytes)
    assert message.startswith(
        f"{name} expands to about {needed / 1e6:,.0f} MB in memory once read ({rows:,} rows"
    ), message
    assert "this server allows 1,000 MB for one upload: upload fewer rows or columns" in message
    assert "streaming reader" in message and "z" * 20 not in message
    assert not pytest.importorskip("re").search(CLASS_NAME, message)
    assert peak < HOSTILE_PEAK, f"{peak / MB:.0f} MB"  # the texts were never expanded (they would take gigabytes)


def test_a_bomb_is_refused_by_the_library_without_reading_its_rows(monkeypatch):
    raw = dictionary_bomb(*BOMBS["600-mb.parquet"])
    read = []
    real = pq.ParquetFile.iter_batches
    monkeypatch.setattr(
        pq.ParquetFile, "iter_batches", lambda self, *a, **k: read.append(k.get("columns")) or real(self, *a, **k)
    )
    with pytest.raises(ValueError, match=r"expands to about 3,200 MB in memory once read"):
        tables.parse_table(named(raw, "bomb.parquet"), max_memory_bytes=1_000 * MB)
    assert read == [["z"]]  # only the count of its dictionary's texts, never the rows themselves


def _written(table: pa.Table, **options) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    return buffer.getvalue()


def test_the_estimate_is_exact_from_the_metadata_for_numbers_and_plain_texts():
    rows = 1_000
    raw = _written(
        pa.table({"x": np.arange(rows, dtype=float), "n": np.arange(rows), "t": [f"{i:010d}" for i in range(rows)]}),
        use_dictionary=False,
    )
    file = pq.ParquetFile(io.BytesIO(raw))
    known, floor, counted = expansion.metadata_bytes(file)
    text = file.metadata.row_group(0).column(2).total_uncompressed_size
    assert (floor, counted) == (0, {})
    assert known == 2 * rows * expansion.NUMBER_CELL + rows * expansion.TEXT_CELL + expansion.TEXT_BYTE * text


def test_the_texts_of_a_dictionary_are_counted_row_by_row():
    labels = pa.array(["a", "bb", "cccc"])
    indices = pa.array(np.array([0, 1, 2, 2, 2] * 1_000, dtype=np.int32))
    raw = _written(pa.table({"g": pa.DictionaryArray.from_arrays(indices, labels)}), store_schema=False)
    assert expansion.dictionary_text_bytes(raw, ["g"]) == 1_000 * (1 + 2 + 4 + 4 + 4)
    delta = _written(
        pa.table({"g": ["prefix-" + "x" * (i % 50) for i in range(5_000)]}),
        use_dictionary=False,
        column_encoding={"g": "DELTA_BYTE_ARRAY"},
    )
    assert expansion.metadata_bytes(pq.ParquetFile(io.BytesIO(delta)))[2] == {"g": 5_000}  # counted, not guessed
    assert expansion.dictionary_text_bytes(delta, ["g"]) == sum(7 + i % 50 for i in range(5_000))


def test_a_legitimate_table_with_a_text_label_opens_and_its_estimate_bounds_the_worker():
    rows = 300_000
    rng = np.random.default_rng(0)
    table = pa.table(
        {
            **{f"x{j}": rng.normal(size=rows) for j in range(5)},
            "species": pa.array(rng.choice(["Adelie", "Gentoo", "Chinstrap"], size=rows)),
        }
    )
    raw = _written(table)
    parsed, peak = attempt(raw, "penguins.parquet")
    assert not isinstance(parsed, str), parsed
    assert parsed.columns == [f"x{j}" for j in range(5)] + ["species"] and parsed.n_rows == rows
    needed = expansion.check_memory(pq.ParquetFile(io.BytesIO(raw)), raw, "penguins.parquet", 10**12)
    assert needed == rows * (5 * expansion.NUMBER_CELL + expansion.TEXT_CELL) + expansion.TEXT_BYTE * sum(
        len(s) for s in table["species"].to_pylist()
    )
    assert peak < needed + 100 * MB, (peak / MB, needed / MB)  # the model is not far below what reading takes


def test_a_column_kept_as_categories_is_not_counted_as_expanded():
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(2_000_000, dtype=np.int32)), pa.array(["z" * 60]))
    raw = _written(pa.table({"z": column, "x": np.zeros(2_000_000)}))  # Arrow's schema kept: read as categories
    file = pq.ParquetFile(io.BytesIO(raw))
    assert expansion.check_memory(file, raw, "c.parquet", 1_000 * MB) < 2_000_000 * 2 * expansion.NUMBER_CELL + MB


def test_what_the_worker_sends_back_is_bounded():
    with pytest.raises(worker.Refused, match=r"big.csv takes about 80 MB once read, over the 10 MB this server"):
        worker.run(np.ones, 10_000_000, memory_bytes=400 * MB, cpu_seconds=30, what="big.csv", max_reply_bytes=10 * MB)
    assert (
        worker.run(np.ones, 1_000, memory_bytes=400 * MB, cpu_seconds=30, max_reply_bytes=10 * MB).value.sum() == 1_000
    )


def test_a_worker_that_fails_says_so_without_the_exception_or_the_cells():
    with pytest.raises(worker.Refused) as refused:
        worker.run(operator.getitem, {}, "Adelie,39.1,secret", memory_bytes=400 * MB, cpu_seconds=30, what="x.csv")
    message = str(refused.value)
    assert message.startswith("x.csv could not be read") and "secret" not in message and "KeyError" not in message


def test_a_broken_parquet_file_is_refused_without_naming_an_exception():
    raw = _written(pa.table({"x": np.arange(100.0)}))
    broken = raw[:40] + b"\x00" * 200 + raw[240:]
    with pytest.raises(ValueError) as refused:
        tables.parse_table(named(broken, "broken.parquet"), max_memory_bytes=1_000 * MB)
    assert "not a readable Parquet file" in str(refused.value)
    assert not pytest.importorskip("re").search(CLASS_NAME, str(refused.value))

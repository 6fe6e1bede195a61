"""One visitor's file never stalls or starves the server (issue 42), in the library and its budgeted worker.

Hostile files are answered with a plain message after bounded work: no csv.Sniffer (its regular expression takes
time quadratic in a long line), a delimiter guessed from a bounded sample, a CSV parser stopped one row past the
cell limit, a Parquet file refused from its metadata before any data page is read. Each is measured by the peak
resident memory of the worker process that reads it (ui.worker, as the app reads uploads), never by a clock. The
valid-but-odd files read right: quoted line breaks in the header, UTF-32, doubled byte-order marks, the true
column count of a one-line file, and names with control or bidirectional characters shown as visible escapes.
"""

import csv

import numpy as np
import pandas as pd
import pytest

from dppca_core.data import files, tables
from dppca_core.data.stats import sufficient_stats
from tests.support.hostile import (
    HOSTILE_LINES,
    HOSTILE_PEAK,
    LRI,
    MB,
    PDI,
    RAW,
    RLO,
    hostile_csv,
    named,
    parquet_bomb,
    rows,
)
from ui import limits, worker

#: the app's upload limits (ui/limits.py defaults)
APP = (50 * MB, 20_000_000, 2_000, 1_000 * MB)
#: one parse's memory growth allowed in these tests: well above a legitimate small file's, far below a bomb's
BUDGET = 1_500 * MB


@pytest.fixture
def bounded_sniff(monkeypatch):
    """csv.Sniffer must never run, and the delimiter guess must read a bounded sample: the lengths it saw."""

    class NoSniffer:
        def __init__(self, *args, **kwargs):
            raise AssertionError("csv.Sniffer was used on a visitor's bytes")

    seen = []
    guess = files.sniff_delimiter
    monkeypatch.setattr(csv, "Sniffer", NoSniffer)
    monkeypatch.setattr(files, "sniff_delimiter", lambda sample: seen.append(len(sample)) or guess(sample))
    return seen


def attempt(raw: bytes, name: str, limits_=APP, memory=BUDGET):
    """(the parsed table or the message, the worker's peak memory growth in bytes) of the app's parse."""
    try:
        out = worker.run(worker.parse_upload, name, raw, *limits_, memory_bytes=memory, cpu_seconds=60, what=name)
    except worker.Refused as exc:
        return str(exc), exc.peak_bytes
    return out.value, out.peak_bytes


# -- hostile CSV ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(HOSTILE_LINES))
def test_a_hostile_first_line_is_answered_after_bounded_work(kind, bounded_sniff):
    raw = hostile_csv(HOSTILE_LINES[kind])
    try:
        parsed = tables.parse_table(named(raw, "h.csv"), max_bytes=APP[0], max_cells=APP[1], max_columns=APP[2])
    except ValueError as exc:
        message = str(exc)
        assert message.startswith("h.csv") and ("columns" in message or "header" in message), message
    else:
        assert len(parsed.columns) <= APP[2] and parsed.n_rows == 50
    assert bounded_sniff and max(bounded_sniff) <= files.SAMPLE_BYTES


@pytest.mark.parametrize("kind", ["quote-dash", "quote inside a field, then commas", "every delimiter"])
def test_a_hostile_first_line_costs_little_memory(kind):
    message, peak = attempt(hostile_csv(HOSTILE_LINES[kind]), "h.csv")
    assert isinstance(message, str) and "h.csv" in message, message
    assert peak < HOSTILE_PEAK, f"{peak / MB:.0f} MB"


def test_a_one_line_file_reports_its_true_column_count():
    raw = b"1," * 2_500_000 + b"1"  # 5 MB, one line (the old guard counted the first 64 KB: 32,769)
    with pytest.raises(ValueError, match=r"has 2,500,001 columns, over the limit of 2,000"):
        tables.parse_table(named(raw, "wide.csv"), max_columns=2_000)
    message, peak = attempt(raw, "wide.csv")
    assert "2,500,001 columns" in message and peak < HOSTILE_PEAK, (message, peak / MB)


def test_the_csv_parser_stops_one_row_past_the_cell_limit(monkeypatch):
    lines = ["a,b,c,d"] + [f"{i},{i % 7},{i % 3},{i % 5}" for i in range(100_000)]
    parsed_rows = []
    read_csv = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: parsed_rows.append(k.get("nrows")) or read_csv(*a, **k))
    with pytest.raises(
        ValueError, match=r"about 400,004 cells \(100,001 lines of 4 columns\), over the limit of " r"40,000 cells"
    ):
        tables.parse_table(named("\n".join(lines).encode() + b"\n"), max_cells=40_000)
    assert parsed_rows == [10_001]  # 40,000 cells / 4 columns, plus the one row that shows the limit is passed


# -- hostile Parquet --------------------------------------------------------------------------------------------


def test_a_parquet_bomb_is_refused_from_its_metadata_before_any_page_is_read(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    raw = parquet_bomb(tmp_path / "bomb.parquet")
    assert len(raw) < 2 * MB
    read = []
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", lambda self, *a, **k: read.append(1) or iter(()))
    with pytest.raises(
        ValueError,
        match=r"bomb.parquet has 22,000,000 cells \(11,000,000 rows of 2 columns\), over "
        r"the limit of 20,000,000 cells",
    ):
        tables.parse_table(named(raw, "bomb.parquet"), max_cells=20_000_000)
    assert not read
    message, peak = attempt(raw, "bomb.parquet")
    assert "over the limit of 20,000,000 cells" in message and peak < HOSTILE_PEAK, (message, peak / MB)


def test_a_parquet_file_whose_metadata_understate_it_is_stopped_as_it_is_read(tmp_path, monkeypatch):
    raw = parquet_bomb(tmp_path / "liar.parquet", rows=3_000_000)
    monkeypatch.setattr(files, "parquet_limits", lambda *args: None)  # as if the metadata said little
    with pytest.raises(ValueError, match="more rows than its metadata say"):
        tables.parse_table(named(raw, "liar.parquet"), max_cells=1_000_000)


def test_a_parquet_file_too_large_once_decompressed_is_refused_from_its_metadata(tmp_path):
    text = pd.DataFrame({"x": np.arange(2_000, dtype=float), "note": ["word " * 2_000] * 2_000})
    text.to_parquet(tmp_path / "wordy.parquet", compression="zstd", use_dictionary=False)
    raw = (tmp_path / "wordy.parquet").read_bytes()
    with pytest.raises(
        ValueError, match=r"wordy.parquet holds \d+ MB of data once decompressed, over the limit of " r"5 MB"
    ):
        tables.parse_table(named(raw, "wordy.parquet"), max_decoded_bytes=5 * MB)


def test_a_dictionary_bomb_the_metadata_cannot_show_is_stopped_by_the_memory_budget(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # one 1 MB string repeated 3,000 times: a few KB on disk, 3 GB once read as text; the metadata count the
    # dictionary-encoded pages only (written without Arrow's schema, so a reader cannot keep it as categories)
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(3_000, dtype=np.int32)), pa.array(["z" * MB]))
    pq.write_table(
        pa.table({"x": pa.array(np.arange(3_000.0)), "z": column}), tmp_path / "dict.parquet", store_schema=False
    )
    raw = (tmp_path / "dict.parquet").read_bytes()
    assert len(raw) < 2 * MB
    message, peak = attempt(raw, "dict.parquet", memory=400 * MB)
    assert isinstance(message, str) and "dict.parquet" in message and "memory" in message, message
    assert peak < 450 * MB, f"{peak / MB:.0f} MB"


def test_arrow_memory_is_given_back_after_a_parse(tmp_path, monkeypatch):
    raw = parquet_bomb(tmp_path / "small.parquet", rows=1_000_000)
    released = []
    monkeypatch.setattr(tables, "release_arrow_memory", lambda: released.append(1))
    tables.parse_table(named(raw, "small.parquet"))
    with pytest.raises(ValueError):
        tables.parse_table(named(raw, "small.parquet"), max_cells=10)
    assert released == [1, 1]


def test_the_worker_budgets_end_a_runaway_parse_with_a_plain_message():
    with pytest.raises(worker.Refused, match=r"needs more than 100 MB of memory to read") as info:
        worker.run(np.ones, 40 * MB, memory_bytes=100 * MB, cpu_seconds=30, what="big.csv")
    assert info.value.peak_bytes < 150 * MB
    with pytest.raises(worker.Refused, match=r"needs more than 1 s of computing time"):
        worker.run(sum, range(10**12), memory_bytes=100 * MB, cpu_seconds=1, what="slow.csv")


# -- valid but odd ----------------------------------------------------------------------------------------------


def _values(parsed, column):
    return parsed.info(column).values


@pytest.mark.parametrize("encoding", ["utf-32", "utf-32-be", "utf-16", "utf-16-be"])
def test_wide_encodings_with_a_byte_order_mark_read_right(encoding):
    text = "a,b\n1,2\n3,4.5\n"
    raw = ("\ufeff" + text).encode(encoding) if encoding.endswith("-be") else text.encode(encoding)
    parsed = tables.parse_table(named(raw))
    assert parsed.columns == ["a", "b"]
    assert list(_values(parsed, "b")) == [2.0, 4.5]
    stats = sufficient_stats(named(raw), data_norm=10.0)
    assert stats.columns == ("a", "b") and stats.n == 2


def test_a_truncated_utf32_file_names_its_encoding():
    with pytest.raises(ValueError, match="marked as UTF-32 but has 27 bytes, not a multiple of 4"):
        tables.parse_table(named("a,b\n1,".encode("utf-32")[:-1]))


def test_a_utf16_file_without_a_mark_is_refused_naming_the_encodings():
    with pytest.raises(ValueError, match="UTF-16 or UTF-32 with a byte-order mark"):
        tables.parse_table(named("a,b\n1,2\n3,4\n".encode("utf-16-le")))


@pytest.mark.parametrize(
    "raw",
    [
        b"\xef\xbb\xbf\xef\xbb\xbfa,b\n1,2\n3,4\n",
        b"\xef\xbb\xbf \n\xef\xbb\xbfa,b\n1,2\n3,4\n",
        "\ufeffa,b\n1,2\n3,4\n".encode("utf-16"),
    ],
)
def test_doubled_byte_order_marks_leave_no_mark_in_the_names(raw):
    assert tables.parse_table(named(raw)).columns == ["a", "b"]
    assert sufficient_stats(named(raw), data_norm=10.0).columns == ("a", "b")


def test_a_header_with_quoted_line_breaks_reads_right():
    data = "".join(f"{line},text\n" for line in rows(40, 3).splitlines())
    raw = ('id,"weight\n(kg)","height\r\n(cm)",note\n' + data).encode()
    parsed = tables.parse_table(named(raw))
    assert parsed.columns == ["id", "weight (kg)", "height (cm)", "note"]
    assert parsed.n_rows == 40 and parsed.numeric_columns == ["id", "weight (kg)", "height (cm)"]
    stats = sufficient_stats(named(raw), columns=["weight (kg)", "height (cm)"], data_norm=1e7, on_bad="drop_rows")
    assert stats.columns == ("weight (kg)", "height (cm)") and stats.n == 39


def test_a_semicolon_file_with_decimal_commas_and_a_long_header_is_sniffed_from_a_bounded_sample(bounded_sniff):
    names = [f"measurement number {j} in millimetres" for j in range(1_900)]  # a 70 KB header line
    body = "\n".join(";".join(f"{i + j / 10:.1f}".replace(".", ",") for j in range(1_900)) for i in range(3))
    parsed = tables.parse_table(named((";".join(names) + "\n" + body + "\n").encode()), max_columns=2_000)
    assert parsed.columns == names and _values(parsed, names[1])[2] == pytest.approx(2.1)
    assert max(bounded_sniff) <= files.SAMPLE_BYTES


def test_a_long_header_is_streamed_in_growing_blocks():
    names = [f"column number {j:06d}" for j in range(5_000)]  # 105 KB of header: more than one block
    raw = (",".join(names) + "\n" + "\n".join(",".join(["1"] * 5_000) for _ in range(3)) + "\n").encode()
    stats = sufficient_stats(named(raw), columns=names[:2], data_norm=10.0, max_columns=None)
    assert stats.columns == tuple(names[:2]) and stats.n == 3
    with pytest.raises(ValueError, match="has 5,000 columns, over the limit of 2,000"):
        sufficient_stats(named(raw), data_norm=10.0, max_columns=2_000)


def test_control_and_bidirectional_characters_in_names_become_visible_escapes(tmp_path):
    header = f'"a{RLO}gpj.exe","b\tc",d{LRI}x{PDI},"e\x85f",g\x01'
    path = tmp_path / f"report{RLO}vsc.exe.csv"
    path.write_bytes((header + "\n" + rows(10, 5)).encode())
    parsed = tables.parse_table(path)
    assert parsed.name == "report\\u202evsc.exe.csv"
    assert parsed.columns == ["a\\u202egpj.exe", "b c", "d\\u2066x\\u2069", "e f", "g\\u0001"]
    stats = sufficient_stats(path, data_norm=1e7, on_bad="drop_rows")
    assert stats.columns == tuple(parsed.columns)
    for name in [parsed.name, *parsed.columns, *stats.columns]:
        assert not any(ch in name for ch in RAW), repr(name)


def test_parquet_names_are_neutralised_and_still_read_by_their_stored_names(tmp_path):
    frame = pd.DataFrame({f"x{RLO}1": np.arange(5.0), "y\n2": np.arange(5.0) ** 2})
    frame.to_parquet(tmp_path / "n.parquet")
    parsed = tables.parse_table(tmp_path / "n.parquet")
    assert parsed.columns == ["x\\u202e1", "y 2"] and list(_values(parsed, "y 2")) == [0, 1, 4, 9, 16]
    stats = sufficient_stats(tmp_path / "n.parquet", data_norm=100.0)
    assert stats.columns == ("x\\u202e1", "y 2") and stats.n == 5


def test_the_budgets_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("DPPCA_PARSE_CPU_SECONDS", "7")
    monkeypatch.setenv("DPPCA_UPLOAD_MB", "not a number")
    assert limits._setting("DPPCA_PARSE_CPU_SECONDS", 60) == 7
    assert limits._setting("DPPCA_UPLOAD_MB", 50) == 50
    assert {row[0] for row in limits.SETTINGS} >= {"DPPCA_UPLOAD_MB", "DPPCA_PARSE_MEMORY_MB", "DPPCA_PARSE_WORKERS"}


def test_a_pandas_index_stored_in_parquet_does_not_count_as_a_column_of_cells(tmp_path):
    frame = pd.DataFrame({"x": np.arange(6.0), "y": np.arange(6.0) ** 2}, index=pd.Index(list("pqrstu"), name="key"))
    frame.to_parquet(tmp_path / "indexed.parquet")
    parsed = tables.parse_table(tmp_path / "indexed.parquet", max_cells=12, max_columns=2)
    assert parsed.columns == ["x", "y"] and parsed.n_rows == 6

"""Validated CSV / Parquet loading (dppca_core.data.datasets.load_table)."""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dppca_core.data import datasets as D

FRAME = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.1, 0.2], "city": ["x", "y", "z"], "y": [0, 1, 0]})


def buffer(data, name=None):
    buf = io.BytesIO(data.encode() if isinstance(data, str) else data)
    if name:
        buf.name = name
    return buf


class FakeUpload:
    """The parts of a Streamlit UploadedFile that load_table uses."""

    def __init__(self, raw, name):
        self.name, self._raw = name, raw

    def getvalue(self):
        return self._raw

    def read(self):  # pragma: no cover - getvalue is preferred
        return self._raw


def check(t, columns, n):
    assert t.columns == columns and list(t.frame.columns) == columns
    assert t.X.shape == (n, len(columns)) and t.X.dtype == float and t.n_rows == n
    assert np.array_equal(t.frame.to_numpy(), t.X)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_round_trip_from_path_buffer_and_upload(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    FRAME.to_csv(path, index=False) if fmt == "csv" else FRAME.to_parquet(path)
    raw = path.read_bytes()
    for source in (path, str(path), buffer(raw, f"t.{fmt}"), buffer(raw), FakeUpload(raw, f"t.{fmt}")):
        t = D.load_table(source, label="y")
        check(t, ["a", "b"], 3)
        assert np.allclose(t.X, FRAME[["a", "b"]].to_numpy())
        assert list(t.labels) == [0, 1, 0] and t.dropped == {"city": "not numeric (e.g. 'x')"}
    assert D.load_table(path).columns == ["a", "b", "y"]
    t = D.load_table(buffer(raw, f"upload.{fmt}"), columns=["b"])
    check(t, ["b"], 3)
    assert t.name == t.source == f"upload.{fmt}" and set(t.dropped) == {"a", "city", "y"}


def test_csv_dialects_and_encodings():
    check(D.load_table(buffer("a;b\n1;2\n3;4\n5;6\n")), ["a", "b"], 3)
    check(D.load_table(buffer("a\tb\n1\t2\n3\t4\n")), ["a", "b"], 2)
    t = D.load_table(buffer("a;b\n1,5;2\n3,25;4\n"))  # decimal comma with a semicolon delimiter
    assert np.allclose(t.X, [[1.5, 2], [3.25, 4]])
    check(D.load_table(buffer("a\n1\n2\n")), ["a"], 2)  # one column: nothing to sniff
    assert D.load_table(buffer("é,b\n1,2\n3,4\n".encode("latin-1"))).columns == ["é", "b"]
    assert D.load_table(buffer("\ufeffa,b\n1,2\n3,4\n".encode())).columns == ["a", "b"]  # UTF-8 BOM
    assert D.load_table(buffer("a,b\n1,2\n3,4\n".encode("utf-16"))).columns == ["a", "b"]
    t = D.load_table(buffer('"x 1", y\n1, 2\n3, 4\n\n'))
    assert t.columns == ["x 1", "y"] and np.allclose(t.X, [[1, 2], [3, 4]])


def test_constant_columns_are_kept_and_reported_and_index_columns_dropped():
    t = D.load_table(buffer(",a,c\n0,1,7\n1,2,7\n2,3,7\n"))
    assert t.columns == ["a", "c"] and t.constant_columns == ["c"]
    assert "Unnamed: 0" in t.dropped and "row index" in t.dropped["Unnamed: 0"]
    assert D.load_table(buffer(",a\n0,1\n1,2\n"), columns=["Unnamed: 0", "a"]).X.shape == (2, 2)


def test_labels_keep_text_and_empty_columns_are_dropped():
    t = D.load_table(buffer("a,b,kind,\n1,2,cat,\n3,4,dog,\n"), label="kind")
    assert list(t.labels) == ["cat", "dog"] and t.columns == ["a", "b"]
    assert t.dropped == {"Unnamed: 3": "empty column"}
    t = D.load_table(buffer("a,flag\n1,True\n2,False\n"))
    assert t.columns == ["a"] and "boolean" in t.dropped["flag"]


@pytest.mark.parametrize(
    "text,match",
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("a,b\n", "no data rows"),
        ("a,b\n1,2\n", "at least 2"),
        ("a,b\nx,y\nz,w\n", "no numeric columns"),
        ("a,b\n1,\n3,4\n5,6\n", r"'b' \(1 of 3 rows\)"),
        ("a,b\n1,inf\n3,-inf\n5,6\n", r"'b' \(2 of 3 rows\)"),
        ("a,b\n1,nan\n3,4\n", r"missing or infinite values in column\(s\) 'b'"),
        ("a,a\n1,2\n3,4\n", r"duplicate column name\(s\) \['a'\]"),
        ("a,b\n1,2\n3,4,5\n", "could not parse as CSV"),
        ("a,b\n1,2\x00\n", "binary"),
    ],
)
def test_bad_csv(text, match):
    with pytest.raises(ValueError, match=match):
        D.load_table(buffer(text))


def test_duplicate_like_names_are_fine():
    # pandas would mangle a repeated "x" into "x.1"; a genuine "x.1" next to "x" is not a duplicate
    assert D.load_table(buffer("x,x.1\n1,2\n3,4\n")).columns == ["x", "x.1"]


def test_column_errors_and_limits():
    data = "a,b,c\n1,2,x\n3,4,y\n"
    with pytest.raises(ValueError, match=r"\['zz'\] not found"):
        D.load_table(buffer(data), columns=["zz"])
    with pytest.raises(ValueError, match=r"\['c'\] are not numeric"):
        D.load_table(buffer(data), columns=["a", "c"])
    with pytest.raises(ValueError, match="label column 'q' is not in"):
        D.load_table(buffer(data), label="q")
    with pytest.raises(ValueError, match="both the label and a feature"):
        D.load_table(buffer(data), columns=["a", "b"], label="a")
    with pytest.raises(ValueError, match="columns is empty"):
        D.load_table(buffer(data), columns=[])
    with pytest.raises(ValueError, match=r"over the limit of 0.0 MB \(3 bytes\)"):
        D.load_table(buffer("a\n1\n2\n"), max_bytes=3)
    with pytest.raises(ValueError, match="over the limit of 3 cells"):
        D.load_table(buffer("a,b\n1,2\n3,4\n"), max_cells=3)
    with pytest.raises(ValueError, match="does not exist"):
        D.load_table("/nonexistent/file.csv")
    with pytest.raises(ValueError, match="file-like"):
        D.load_table(12345)
    assert D.load_table(buffer(data), columns="a").columns == ["a"]


def test_bad_parquet(tmp_path):
    with pytest.raises(ValueError, match="not a readable Parquet file"):
        D.load_table(buffer(b"PAR1garbage", "x.parquet"))
    FRAME.iloc[:0].to_parquet(tmp_path / "empty.parquet")
    with pytest.raises(ValueError, match="no data rows"):
        D.load_table(tmp_path / "empty.parquet")
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0], "t": pd.to_datetime(["2020-01-01"] * 3), "ok": [True, False, True]})
    frame.to_parquet(tmp_path / "nan.parquet")
    with pytest.raises(ValueError, match=r"'a' \(1 of 3 rows\)"):
        D.load_table(tmp_path / "nan.parquet")
    with pytest.raises(ValueError, match=r"\['t'\] are not numeric"):
        D.load_table(tmp_path / "nan.parquet", columns=["t"])
    with pytest.raises(ValueError, match="boolean"):
        D.load_table(tmp_path / "nan.parquet", columns=["ok"])


cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**20), 10**20),
    st.text(max_size=5),
    st.booleans(),
    st.none(),
)
frames = st.integers(1, 4).flatmap(lambda c: st.lists(st.lists(cells, min_size=c, max_size=c), max_size=6))


def as_bytes(rows, fmt, sep):
    frame = pd.DataFrame(rows)
    frame.columns = [f"c{j}" for j in range(frame.shape[1])]
    if fmt == "parquet":
        buf = io.BytesIO()
        frame.astype(str).to_parquet(buf) if frame.shape[1] else frame.to_parquet(buf)
        return buf.getvalue()
    return frame.to_csv(index=False, sep=sep).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(max_size=300),
        st.text(alphabet=st.sampled_from(list("0123456789.,;\t\n-e abxé\"'")), max_size=200).map(str.encode),
        st.builds(as_bytes, frames, st.sampled_from(["csv", "parquet"]), st.sampled_from([",", ";", "\t"])),
    )
)
def test_load_table_returns_a_valid_table_or_raises_value_error(raw):
    try:
        t = D.load_table(io.BytesIO(raw))
    except ValueError as err:
        assert str(err)
        return
    assert isinstance(t.X, np.ndarray) and t.X.dtype == float and t.X.ndim == 2
    assert t.X.shape[0] >= 2 and t.X.shape[1] == len(t.columns) >= 1 and np.all(np.isfinite(t.X))
    assert t.n_rows == t.X.shape[0] and not set(t.columns) & set(t.dropped)


# ------------------------------------------------------------------ hostile files (issue 14) and one parse


def test_a_400_digit_integer_is_an_infinite_cell_not_a_crash():
    big = "9" * 400
    with pytest.raises(ValueError, match=r"missing or infinite values in column\(s\) 'b' \(1 of 3 rows\)"):
        D.load_table(buffer(f"a,b\n1,{big}\n3,4\n5,6\n"))
    t = D.load_table(buffer(f"a,b\n1,-{big}\n3,4\n5,6\n"), on_bad="drop_rows")
    assert t.rows_dropped == 1 and np.array_equal(t.X, [[3, 4], [5, 6]])
    assert t.report.set_index("column").loc["b", "infinite"] == 1
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": pd.Series([10**400, 2, 3], dtype=object)})
    buf = io.BytesIO()
    frame.astype({"b": str}).to_parquet(buf)
    with pytest.raises(ValueError, match="infinite"):
        D.load_table(buffer(buf.getvalue(), "big.parquet"))


def test_odd_length_utf16_names_the_file_and_the_fix():
    raw = "a,b\n1,2\n3,4\n".encode("utf-16") + b"x"
    with pytest.raises(ValueError, match=r"odd.csv is marked as UTF-16 but has an odd number of bytes.*UTF-8"):
        D.load_table(buffer(raw, "odd.csv"))


@pytest.mark.parametrize("columns,rows", [(1_000_000, 1), (100_000, 3)])
def test_wide_files_are_refused_from_the_header_before_parsing(monkeypatch, columns, rows):
    text = ",".join(f"c{j}" for j in range(columns)) + "\n" + "\n".join(",".join(["1"] * columns) for _ in range(rows))
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("parsed a file that is over the column limit"))
    with pytest.raises(ValueError, match=rf"has {columns:,} columns, over the limit of 10,000 columns"):
        D.load_table(buffer(text + "\n", "wide.csv"))


def test_column_limit_is_a_parameter_and_counts_quoted_fields_right(tmp_path):
    assert D.load_table(buffer('a,"b,c"\n1,2\n3,4\n'), max_columns=2).columns == ["a", "b,c"]
    with pytest.raises(ValueError, match="3 columns, over the limit of 2"):
        D.load_table(buffer("a,b,c\n1,2,3\n4,5,6\n"), max_columns=2)
    FRAME.to_parquet(tmp_path / "w.parquet")
    with pytest.raises(ValueError, match="4 columns, over the limit of 3"):
        D.load_table(tmp_path / "w.parquet", max_columns=3)
    assert D.load_table(buffer("a,b,c\n1,2,3\n4,5,6\n"), max_columns=None).X.shape == (2, 3)


def test_no_size_limit_by_default():
    text = "a,b\n" + "\n".join(f"{i},{i % 3}" for i in range(200_000)) + "\n"  # 1.6 MB, 400k cells
    t = D.load_table(buffer(text))
    assert t.n_rows == 200_000
    with pytest.raises(ValueError, match="over the limit of 0.0 MB"):
        D.load_table(buffer(text), max_bytes=1000)


def test_parse_once_then_select_many_times(monkeypatch):
    calls = []
    real = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: calls.append(1) or real(*a, **k))
    parsed = D.parse_table(buffer("a,b,c,city,y\n1,2,x,p,0\n3,,5,q,1\n4,5,6,r,0\n7,8,9,s,1\n", "t.csv"))
    assert parsed.columns == ["a", "b", "c", "city", "y"] and parsed.numeric_columns == ["a", "b", "c", "y"]
    report = parsed.column_report().set_index("column")
    assert report.loc["c", "kind"] == "mixed" and report.loc["c", "non_numeric"] == 1
    assert report.loc["b", "missing"] == 1 and report.loc["city", "kind"] == "text"
    with pytest.raises(
        ValueError,
        match=r"missing, infinite or non-numeric values in column\(s\) 'b' \(1 of 4 rows\), " r"'c' \(1 of 4 rows\)",
    ):
        parsed.select(label="y")
    rows = parsed.select(label="y", on_bad="drop_rows")
    assert rows.columns == ["a", "b", "c"] and rows.rows_dropped == 2 and list(rows.labels) == [0, 1]
    assert np.array_equal(rows.X, [[4, 5, 6], [7, 8, 9]])
    cols = parsed.select(label="y", on_bad="drop_column")
    assert cols.columns == ["a"] and cols.rows_dropped == 0 and "1 missing cell(s)" in cols.dropped["b"]
    table = cols.report.set_index("column")
    assert table.loc["a", "status"] == "feature" and table.loc["y", "status"] == "label"
    assert table.loc["city", "status"] == "dropped" and "not numeric" in table.loc["city", "reason"]
    assert parsed.select(["a"]).columns == ["a"]
    assert len(calls) == 1  # every selection above reused the one parse


def test_on_bad_is_checked():
    with pytest.raises(ValueError, match="on_bad='skip'"):
        D.load_table(buffer("a\n1\n2\n"), on_bad="skip")
    with pytest.raises(ValueError, match="at least 2 are needed. Add rows or choose other columns"):
        D.load_table(buffer("a,b\n1,\n2,3\n"), on_bad="drop_rows")

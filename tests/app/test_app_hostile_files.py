"""Hostile and odd uploads in the app (issue 42): a clear message from the budgeted worker, the memory it took
measured, the page still usable; the valid-but-odd files open; and no page or download shows a raw control or
bidirectional character from a file's name or columns."""

from pathlib import Path

import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict
from plotly.offline import get_plotlyjs

from tests.support.app import assert_clean
from tests.support.downloads import offered
from tests.support.hostile import HOSTILE_LINES, HOSTILE_PEAK, MB, RAW, RLO, hostile_csv, parquet_bomb
from ui import data, worker
from tests.helpers import draw_releases

WINE = Path(__file__).resolve().parents[2] / "sample_data" / "wine.csv"


@pytest.fixture
def parses(monkeypatch):
    """What every upload parse cost: (peak memory growth of its worker, the message if it was refused)."""
    seen = []
    run = worker.run

    def spy(*args, **kwargs):
        try:
            out = run(*args, **kwargs)
        except worker.Refused as exc:
            seen.append((exc.peak_bytes, str(exc)))
            raise
        seen.append((out.peak_bytes, None))
        return out

    monkeypatch.setattr(worker, "run", spy)
    data._parsed.clear()  # each test parses its files afresh
    yield seen
    data._parsed.clear()


def upload(at, name: str, raw: bytes, columns=(), label=""):
    at.session_state["upload"] = {
        "name": name,
        "bytes": raw,
        "columns": tuple(columns),
        "label": label,
        "on_bad": "drop_column",
    }


def hostile_files(tmp_path) -> dict:
    return {
        "quote-dash.csv": hostile_csv(HOSTILE_LINES["quote-dash"]),
        "every-delimiter.csv": hostile_csv(HOSTILE_LINES["every delimiter"]),
        "one-line.csv": b"1," * 2_500_000 + b"1",
        "bomb.parquet": parquet_bomb(tmp_path / "bomb.parquet"),
    }


@pytest.mark.parametrize("name", ["quote-dash.csv", "every-delimiter.csv", "one-line.csv", "bomb.parquet"])
def test_a_hostile_upload_gets_a_clear_message_and_costs_little(app_test, parses, tmp_path, name):
    at = app_test(src="upload")
    upload(at, name, hostile_files(tmp_path)[name])
    at.switch_page("pages/data.py").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in at.error)
    assert name.replace("-", "\\-").replace(".", "\\.") in shown and ("limit" in shown or "header" in shown), shown
    ((peak, message),) = parses
    assert message and peak < HOSTILE_PEAK, (message, peak / MB)
    at.session_state["scenario"]["src"] = "sample:wine"  # the app stays usable: another dataset opens
    at.session_state["scenario"]["R"] = 2000.0
    at.switch_page("pages/explore.py").run()
    assert_clean(at)


@pytest.mark.parametrize("rows, text_bytes", [(10_000_000, 60), (5_000_000, 200)], ids=["600-mb", "1-gb"])
def test_a_dictionary_bomb_is_refused_in_words_once_and_not_parsed_again(app_test, parses, rows, text_bytes):
    from tests.support.hostile import dictionary_bomb

    at = app_test(src="upload")
    upload(at, "bomb.parquet", dictionary_bomb(rows, text_bytes))
    at.switch_page("pages/data.py").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in at.error).replace("\\", "")
    assert "expands to about" in shown and "this server allows 1,000 MB" in shown, shown
    assert "upload fewer rows or columns" in shown and "Error" not in shown, shown
    ((peak, message),) = parses
    assert message and peak < HOSTILE_PEAK, (message, peak / MB)
    at.run()
    assert len(parses) == 1  # the refusal is remembered: no second parse on a rerun


def test_a_parse_that_fails_is_remembered_like_a_refusal(app_test, monkeypatch):
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("reading x failed (ArrowException: Wrapping zzzz failed)")

    monkeypatch.setattr(worker, "run", failing)
    data._parsed.clear()
    try:
        at = app_test(src="upload")
        upload(at, "odd.parquet", b"PAR1 not really")
        at.switch_page("pages/data.py").run()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        shown = " ".join(e.value for e in at.error)
        assert "could not be read" in shown and "zzzz" not in shown and "Error" not in shown, shown
        assert len(calls) == 1
    finally:
        data._parsed.clear()


ODD = {
    "utf32.csv": "\ufeffa,b,c\n1,2,3\n4,5,7\n2,2,1\n".encode("utf-32"),
    "double-bom.csv": b"\xef\xbb\xbf\xef\xbb\xbfa,b,c\n1,2,3\n4,5,7\n2,2,1\n",
    "quoted-break.csv": b'"a\n(kg)",b,c\n1,2,3\n4,5,7\n2,2,1\n',
}


@pytest.mark.parametrize("name", list(ODD))
def test_valid_but_odd_files_open(app_test, parses, name):
    at = app_test(src="upload", R="20")
    upload(at, name, ODD[name])
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    options = [o for ms in at.multiselect for o in ms.options]
    assert options[-2:] == ["b", "c"] and options[0] in ("a", "a (kg)"), options
    assert parses and parses[0][1] is None
    at.switch_page("pages/explore.py").run()
    assert_clean(at)


# -- no raw control or bidirectional character anywhere -------------------------------------------------------


def _bidi_wine() -> tuple[str, bytes, list]:
    """The wine sample with a file name and column names that carry a right-to-left override, isolates, a line
    break, a tab and C0/C1 controls."""
    frame = pd.read_csv(WINE).iloc[:, [0, 1, 2, 4, 5, -1]]
    columns = [f"alc{RLO}lohol", "malic\u2066x\u2069", "ash\nlevel", "alca\tlinity", "mag\x01nesium\x85", f"cl{RLO}ass"]
    frame.columns = columns
    return f"wine{RLO}vsc.exe.csv", frame.to_csv(index=False).encode(), columns


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _shown_text(at):
    """Every string the page shows: each element's fields (labels, options, help, Markdown, figure specs) and the
    columns, index and text cells of its tables."""

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None and not hasattr(proto, "arrow_data_frame"):
            yield from _strings(MessageToDict(proto))
        for child in getattr(node, "children", {}).values():
            yield from walk(child)

    yield from walk(at._tree)
    for frame in at.dataframe:
        table = frame.value
        yield from map(str, table.columns)
        yield from map(str, table.index)
        for column in table.columns:
            yield from (v for v in table[column].tolist() if isinstance(v, str))


def _raw_characters(text: str, allowed: str = "") -> list:
    return sorted({f"U+{ord(ch):04X}" for ch in text if ch in RAW and ch not in allowed})


def test_no_page_or_download_shows_a_raw_control_or_bidirectional_character(app_test, downloads):  # noqa: F811
    name, raw, columns = _bidi_wine()
    at = app_test(src="upload", R="2000", mechs="analyze_gauss,private_power", reps="2", sreps="2", k="2")
    upload(at, name, raw, label=columns[-1].replace(RLO, "\\u202e"))
    at.run()
    files = {}
    pages = [
        ("pages/data.py", {}),
        ("pages/explore.py", {"view": "loadings"}),
        ("pages/explore.py", {"view": "downstream"}),
        ("pages/explore.py", {"view": "scores"}),
        ("pages/tradeoffs.py", {}),
        ("pages/distributed.py", {}),
        ("pages/audit.py", {}),
        ("pages/report.py", {}),
    ]
    for page, values in pages:
        at.session_state["scenario"].update(values)
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        if any(b.key == "declare_schema" for b in at.button):  # publishing needs a declared schema (issue 54)
            at.button(key="declare_schema").click().run()
        if page == "pages/report.py":
            draw_releases(at)
        for text in _shown_text(at):
            assert not _raw_characters(text, "\n"), (page, values, text[:200])
        files.update({(page, label): data for label, data in offered(at, downloads).items()})
    shown = " ".join(_shown_text(at))
    assert "alc\\u202elohol" in shown or "alc\\\\u202elohol" in shown  # the name shown, as a visible escape
    kinds = {label for _, label in files}
    assert {"HTML report (offline)", "Python script", "Download slides"} <= kinds, kinds
    assert any("JSON" in label for label in kinds) and any("CSV" in label for label in kinds), kinds
    library = get_plotlyjs()  # the offline record and slides embed plotly.js, whose code holds a few control bytes
    for (page, label), raw in files.items():
        text = raw.decode("utf-8").replace(library, "")
        assert not _raw_characters(text, "\n\t\r"), (page, label, _raw_characters(text, "\n\t\r"))
    html = files[("pages/report.py", "HTML report (offline)")].decode()
    assert "wine\\u202evsc.exe.csv" in html

"""A scenario file's structure is counted in one linear pass before the TOML parser sees it (issues 62 and 63): the
files that made the parser's time or memory grow with the square of their size are refused in words without being
parsed, the largest scenario the app writes still opens, and the counts bound what the parser finds."""

import tomllib
import tracemalloc

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from dppca_core import scenario as core
from dppca_core.scenario import Scenario, file, prescan
from tests.support.scenarios import CLASS_NAME, QUADRATIC, largest_scenario


@pytest.fixture
def no_parse(monkeypatch):
    """The TOML parser must not run."""

    def refuse(*args, **kwargs):
        raise AssertionError("the TOML parser saw a file the pre-scan should have refused")

    monkeypatch.setattr(file.tomllib, "loads", refuse)


@pytest.mark.parametrize("text", list(QUADRATIC.values()), ids=list(QUADRATIC))
def test_a_file_shaped_to_make_the_parser_quadratic_is_refused_before_parsing_in_words(text, no_parse):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="more than any scenario file holds") as refused:
            Scenario.from_toml(text.encode())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not CLASS_NAME.search(str(refused.value))
    assert peak < 4 * len(text) + 2_000_000, f"{peak / 1e6:.1f} MB for a {len(text) / 1e3:.0f} KB file"


def test_the_largest_scenario_the_app_writes_opens_within_every_limit():
    vals = largest_scenario()
    text = core.to_toml(vals)
    counts = prescan(text)
    assert len(text.encode()) <= core.MAX_FILE_BYTES
    for limit, (most, _) in core.FILE_LIMITS.items():
        assert counts[limit] <= most / 2 or limit in ("parts", "nesting"), (limit, counts[limit], most)
    assert counts["parts"] == 2 and counts["nesting"] == 1
    assert Scenario.from_toml(text.encode()).values == vals


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _leaves(value) -> int:
    if isinstance(value, dict):
        return sum(map(_leaves, value.values()))
    if isinstance(value, list):
        return 1 + sum(_leaves(v) for v in value if isinstance(v, (dict, list)))
    return 1


def _bounds_the_parse(text: str) -> None:
    """If the pre-scan passes ``text`` and the parser reads it, the counts bound what the parser found."""
    try:
        counts = prescan(text)
    except ValueError as exc:
        assert not CLASS_NAME.search(str(exc))
        return
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return
    assert _depth(doc) - 1 <= 2 * counts["parts"] + counts["nesting"], (counts, doc)  # below the document
    assert _leaves(doc) <= counts["tokens"] + 1, (counts, doc)


#: the characters that make TOML's structure, and a few others
TOML_ALPHABET = list("ab1.=[]{},\"'#\\ \n\t-:e+_") + ["'''", '"""', "0x1", "1.5", "[[", "]]"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(TOML_ALPHABET), max_size=60).map("".join))
def test_the_counts_bound_what_the_parser_finds_in_any_text(text):
    _bounds_the_parse(text)


keys = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
nested = st.recursive(
    st.integers(-5, 5) | st.text(max_size=4) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.dictionaries(keys, nested, max_size=4))
def test_the_counts_bound_what_the_parser_finds_in_any_toml_document(doc):
    _bounds_the_parse(tomli_w.dumps(doc))


@pytest.mark.parametrize(
    "text",
    [
        '"' * 600_000,
        "'" * 600_000,
        '"""' + "\\" * 599_990,
        "'''" + "'" * 599_990,
        '"' + "\\" * 599_998 + '"',
        "a = [" + "1," * 29_000 + "\n" * 9_000,
        "#" * 600_000,
    ],
    ids=["quotes", "apostrophes", "open triple quote", "triple apostrophes", "escapes", "a long array", "a comment"],
)
def test_the_pre_scan_reads_any_600_kb_text_in_one_pass(text):
    try:
        prescan(text)
    except ValueError as exc:
        assert "more than" in str(exc) or "larger than" in str(exc)


def test_a_file_over_the_size_limit_is_refused_before_it_is_decoded():
    with pytest.raises(ValueError, match="larger than 600 kB"):
        Scenario.from_toml(b"#" * (core.MAX_FILE_BYTES + 1))


def test_home_refuses_each_quadratic_file_in_words_and_stays_usable(app_test, no_parse):
    from tests.support.app import plain

    at = app_test(eps="2.0")
    at.run()
    before = dict(at.session_state["scenario"])
    for name, text in QUADRATIC.items():
        at.file_uploader(key="scenario_file").set_value((f"{name}.toml", text.encode(), "application/toml")).run()
        assert not at.exception, (name, [e.value for e in at.exception])
        (error,) = at.error
        assert "could not be opened" in plain(error.value) and "more than" in plain(error.value), name
        assert at.session_state["scenario"] == before

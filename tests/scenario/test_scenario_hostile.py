"""A stranger's scenario file or link (issue 62): every value of every setting is checked before it is used, and a
value that cannot be used keeps its default with a notice; nothing escapes as an exception, whatever the file holds
(any TOML value of any type, huge integers, deep tables, long strings), from the library or on Home."""

import datetime
import json

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dppca_core import scenario as core
from dppca_core.registry import get_mechanism, mechanism_names
from dppca_core.scenario import Scenario
from tests.support.app import plain
from tests.support.scenarios import CLASS_NAME, HEADER, assert_valid

#: huge whole numbers (each under 4,300 digits, so a failing example can still be printed)
HUGE = [10**400, -(10**400), 2**64, -(2**63) - 1, 2**53 + 1, 16**3000, 10**4000]

#: every mechanism parameter the registry knows, as "<mechanism>.<parameter>"
PARAMETER_KEYS = sorted(f"{m}.{p.name}" for m in mechanism_names() for p in get_mechanism(m).params)

scalars = st.one_of(
    st.booleans(),
    st.integers(),
    st.integers(0, len(HUGE) - 1).map(HUGE.__getitem__),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.builds(lambda c, n: c * n, st.characters(), st.integers(0, 20_000)),  # long strings
    st.datetimes(),
    st.dates(),
    st.times(),
)
#: any TOML value: scalars, and arrays and tables of them, nested (deep tables included)
toml_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
#: a value of every setting, each in its own section or in another one, and mechanism parameters of any value
documents = st.fixed_dictionaries(
    {"format": st.just(core.FILE_FORMAT), "format_version": st.just(core.FILE_VERSION)},
    optional={
        "settings": st.dictionaries(st.sampled_from(sorted(core.FIELDS)), toml_values, max_size=len(core.FIELDS)),
        "parameters": st.dictionaries(st.sampled_from(PARAMETER_KEYS), toml_values, max_size=8),
        "elsewhere": st.dictionaries(st.sampled_from(sorted(core.SECTIONS)), toml_values, max_size=3),
        "extra": st.dictionaries(st.text(max_size=8), toml_values, max_size=3),
    },
).map(lambda parts: _layout(**parts))


def _layout(format, format_version, settings=(), parameters=(), elsewhere=(), extra=()) -> dict:
    """A scenario file's content: each setting in its section, parameters by mechanism, and odd sections."""
    doc: dict = {"format": format, "format_version": format_version}
    for name, value in dict(settings).items():
        doc.setdefault(core.section_of(name), {})[name] = value
    for key, value in dict(parameters).items():
        mech, _, name = key.partition(".")
        doc.setdefault("parameters", {}).setdefault(mech, {})[name] = value
    for section, value in dict(elsewhere).items():
        if section not in doc:
            doc[section] = value  # a section that is not a table, or a table of anything
    for key, value in dict(extra).items():
        doc.setdefault(key, value)
    return doc


def _assert_plain(message: str) -> None:
    assert isinstance(message, str) and 0 < len(message) <= 600, message[:200]
    assert not CLASS_NAME.search(message), message[:200]


def _assert_opened(opened) -> None:
    assert_valid(opened.values)
    for notice in opened.notices:
        _assert_plain(notice)


def _opened_or_refused_in_words(text: str):
    """The scenario file ``text`` opened with every value checked, or None: refused in plain words."""
    try:
        opened = Scenario.from_toml(text.encode())
    except ValueError as exc:
        _assert_plain(str(exc))
        return None
    _assert_opened(opened)
    return opened


@settings(max_examples=150, deadline=None, derandomize=True)
@given(documents)
def test_any_value_of_any_setting_in_a_parsed_file_gives_a_valid_scenario(doc):
    vals, notices = core.from_document(doc)
    _assert_opened(Scenario(vals, tuple(notices)))


def _dumped(doc: dict) -> str | None:
    """The TOML text of ``doc`` (None when TOML cannot hold it: a value TOML has no form for)."""
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):  # e.g. an integer tomli_w cannot write in decimal
        return None


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_scenario_file_opens_or_is_refused_in_words(doc):
    text = _dumped(doc)
    if text is None:
        return
    _opened_or_refused_in_words(text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.dictionaries(
        st.sampled_from(sorted(core.FIELDS) + PARAMETER_KEYS),
        st.one_of(
            st.text(max_size=40),
            st.integers(0, 4).map(lambda i: str(HUGE[i])),
            st.integers(0, 6).map(lambda i: hex(HUGE[i])),
            toml_values.map(lambda v: json.dumps(v, default=str)),
            st.builds(lambda n: "9" * n, st.integers(300, 5_000)),
        ),
        max_size=10,
    )
)
def test_any_link_opens_with_every_value_checked(query):
    _assert_opened(Scenario.from_query(query))


# -- the hand-written files ------------------------------------------------------------------------------

#: (what the file is, its text) of the values that escaped as an exception
HAND_WRITTEN = {
    "n = 1 followed by 400 zeros": HEADER + "[data]\nn = 1" + "0" * 400 + "\n",
    "a huge site count in hex": HEADER + "[distributed]\ndsites = 0x" + "f" * 2_000 + "\n",
    "a huge mechanism parameter": HEADER + "[parameters.private_power]\niterations = 1" + "0" * 400 + "\n",
    "a huge list of site sizes": HEADER + "[parameters.dps_pca]\nsites = [1" + "0" * 400 + ", 2]\n",
    "a huge public bound": HEADER + "[preprocessing]\nbounds = [1" + "0" * 400 + "]\n",
    "a huge fill value": HEADER + '[schema]\ncols = ["a", "b"]\nfill = {a = 1' + "0" * 400 + "}\n",
    "a huge float-valued setting": HEADER + "[privacy]\ndelta = 0x" + "f" * 3_000 + "\neps = 1" + "0" * 400 + "\n",
    "a version in hex": f'format = "{core.FILE_FORMAT}"\nformat_version = 0x' + "f" * 5_000 + "\n",
    "an integer too long to read": HEADER + "[data]\nn = " + "9" * 5_000 + "\n",
    "a 900 KB label": HEADER + '[schema]\nlabel = "' + "x" * 900_000 + '"\n',
}


@pytest.mark.parametrize("text", list(HAND_WRITTEN.values()), ids=list(HAND_WRITTEN))
def test_a_hand_written_value_out_of_range_keeps_its_default_with_a_notice(text):
    opened = _opened_or_refused_in_words(text)
    assert opened is None or opened.notices  # the value that could not be used is named


def test_a_huge_whole_number_is_range_checked_before_it_is_converted():
    doc = {
        "format": core.FILE_FORMAT,
        "format_version": 1,
        "data": {"n": 10**400},
        "privacy": {"eps": -(16**5000)},  # beyond any float: converting it first would overflow
        "parameters": {"private_power": {"iterations": 2**64}},
    }
    vals, notices = core.from_document(doc)
    assert (vals["n"], vals["eps"]) == (core.DEFAULTS["n"], core.DEFAULTS["eps"])
    assert "private_power.iterations" not in vals
    assert notices == [
        "ignored n = a whole number of about 400 digits: outside [10, 200000]; using 2000",
        "ignored eps = a whole number of about 6,021 digits: outside [0.001, 100]; using 1.0",
        "ignored private_power.iterations = 18446744073709551616: out of range: choose a value in [1, 500]",
    ]


def test_the_home_page_opens_every_hand_written_file_without_an_error_box(app_test):
    at = app_test()
    at.run()
    for name, text in HAND_WRITTEN.items():
        at.file_uploader(key="scenario_file").set_value((f"{name}.toml", text.encode(), "application/toml")).run()
        assert not at.exception, (name, [e.value for e in at.exception])
        shown = [plain(e.value) for e in [*at.error, *at.warning, *at.success]]
        assert shown, name  # opened (with what was not used) or refused, in words
        for message in shown:
            assert not CLASS_NAME.search(message), (name, message[:200])


@settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(documents)
def test_the_home_page_opens_any_file_without_an_error_box(app_test, doc):
    text = _dumped(doc)
    if text is None:
        return
    at = app_test()
    at.run()
    at.file_uploader(key="scenario_file").set_value(("any.toml", text.encode(), "application/toml")).run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_date_or_a_table_where_a_number_belongs_is_a_notice():
    doc = {
        "format": core.FILE_FORMAT,
        "format_version": 1,
        "data": {"n": datetime.date(2020, 1, 1), "d": {"a": [1, 2]}},
        "privacy": {"eps": [[[[1.0]]]]},
    }
    vals, notices = core.from_document(doc)
    assert (vals["n"], vals["d"], vals["eps"]) == (core.DEFAULTS["n"], core.DEFAULTS["d"], core.DEFAULTS["eps"])
    assert len(notices) == 3

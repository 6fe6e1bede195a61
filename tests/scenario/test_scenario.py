"""The scenario module: every setting parsed from a link is valid or refused with a notice, never a crash."""

import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ui import scenario
from ui.text import md_escape
from tests.support.scenarios import assert_valid

PARAM_KEYS = [
    "private_power.iterations",
    "private_power.block_size",
    "private_power.noise",
    "dps_pca.sites",
    "cape_pca.kappa",
    "dp_pca.split_budget",
    "ldp_sparse.penalty",
    "nope.x",
    "analyze_gauss.foo",
]
HOSTILE_VALUES = [
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e999",
    "-1e999",
    "1e-999",
    "",
    " ",
    "[" * 5000,
    "{" * 3000,
    "[Log in again](http://evil.example)",
    "<script>alert(1)</script>",
    "9" * 400,
    "0x10",
    "true",
    "null",
    "[1, 2, 3]",
    "[2, 2]",
    '"gaussian"',
    "-1",
    "1.5",
    "\x00",
    "é" * 50,
    "%00",
]


def test_round_trip_keeps_types_and_parameters():
    vals = {
        **scenario.DEFAULTS,
        "eps": 0.3,
        "delta": 1e-8,
        "present": True,
        "private_power.iterations": 7,
        "private_power.block_size": None,
        "dps_pca.sites": [300, 700],
        "atrials": 5000,
        "afactor": 3,
    }
    back, notices = scenario.from_query(scenario.to_query(vals))
    # a parameter left at its default (None: the mechanism's own) is not written into the link
    assert back == {k: v for k, v in vals.items() if k != "private_power.block_size"} and not notices
    assert isinstance(back["eps"], float) and isinstance(back["k"], int) and back["present"] is True


def test_links_carry_only_what_differs_from_the_defaults():
    assert scenario.to_query(scenario.DEFAULTS) == {}
    vals = {
        **scenario.DEFAULTS,
        "eps": 2.0,
        "present": True,
        "private_power.iterations": None,
        "dps_pca.sites": 5,
        "seed": 0,
    }
    query = scenario.to_query(vals)
    assert query == {"eps": "2.0", "present": "true"}  # dps_pca.sites = 5 is the registry's default too
    assert len(scenario.query_string(vals)) < 30
    back, _ = scenario.from_query(query)
    assert back["eps"] == 2.0 and back["present"] is True and back["seed"] == 0


def test_nonprivate_choices_name_each_data_dependent_step():
    base = dict(scenario.DEFAULTS)
    assert scenario.nonprivate_choices(base) == []
    assert scenario.nonprivate_choices({**base, "center": "private"}) == []
    chosen = scenario.nonprivate_choices(
        {**base, "center": "empirical", "rfrom": "hints", "scale": "bounds", "sfrom": "hints", "bounds": "1.0,2.0"}
    )
    assert len(chosen) == 3 and "empirical" in chosen[1] and "radius R" in chosen[2] and "scaling" in chosen[0]
    assert scenario.nonprivate_choices({**base, "scale": "bounds", "sfrom": "public", "bounds": "1.0"}) == []


def test_bounds_are_checked():
    assert scenario.FIELDS["bounds"].validate(" 1, 2.5 ,3") == "1.0,2.5,3.0"
    for bad in ("1,-2", "1,nan", "1,inf", "a,b", ",".join(["1"] * (scenario.MAX_BOUNDS + 1))):
        try:
            scenario.FIELDS["bounds"].validate(bad)
        except ValueError:
            continue
        raise AssertionError(f"bounds {bad!r} were accepted")


def test_malformed_values_fall_back_to_defaults_with_a_notice():
    back, notices = scenario.from_query({"eps": "banana", "k": "nan", "reps": "5", "seed": "1e999", "n": "inf"})
    assert back["eps"] == 1.0 and back["k"] == 2 and back["reps"] == 5 and back["seed"] == 0 and back["n"] == 2000
    assert len(notices) == 4 and all("ignored" in n for n in notices)


def test_off_grid_values_are_kept_exactly():
    back, notices = scenario.from_query({"eps": "2.5", "delta": "0.123456"})
    assert back["eps"] == 2.5 and back["delta"] == 0.123456 and not notices
    assert 2.5 in scenario.with_current((1.0, 3.0), 2.5)


def test_synthetic_size_is_capped_with_the_limit_in_the_message():
    back, notices = scenario.from_query({"n": "200000", "d": "500"})
    assert back["n"] * back["d"] <= scenario.MAX_CELLS and back["n"] == scenario.MAX_CELLS // 500
    assert any(f"{scenario.MAX_CELLS:,}" in n for n in notices)


def test_mechanism_parameters_are_checked_against_the_registry():
    back, notices = scenario.from_query(
        {
            "private_power.block_size": "NaN",
            "private_power.iterations": "9999",
            "private_power.noise": "gaussian",
            "foo.bar": "[" * 5000,
            "mechs": "analyze_gauss,[x](http://e.vil),nope",
        }
    )
    assert "private_power.block_size" not in back and "private_power.iterations" not in back
    assert back["private_power.noise"] == "gaussian"
    assert back["mechs"] == scenario.DEFAULTS["mechs"]  # an unknown mechanism makes the list invalid
    assert len(notices) == 4


def test_notices_render_as_text():
    _, notices = scenario.from_query({"src": "[Log in again](http://evil.example)"})
    shown = md_escape(notices[0])
    assert not re.search(r"(?<!\\)[\[\]()]", shown)  # every bracket escaped: no Markdown link can form
    assert "http://" not in shown  # and no bare autolink


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(list(scenario.FIELDS) + PARAM_KEYS + ["x", "a.b.c", ""]),
        st.one_of(
            st.sampled_from(HOSTILE_VALUES),
            st.text(max_size=60),
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.integers(min_value=-(10**30), max_value=10**30).map(str),
        ),
        max_size=12,
    )
)
def test_any_link_gives_a_valid_scenario(query):
    values, notices = scenario.from_query(query)
    assert_valid(values)
    assert all(isinstance(n, str) and len(n) < 400 for n in notices)


def test_field_validation_refuses_non_finite_and_out_of_range():
    for name, bad in (
        ("eps", math.inf),
        ("eps", 0.0),
        ("k", 2.5),
        ("R", -1.0),
        ("delta", 0.9),
        ("present", "yes"),
        ("atrials", 1234),
        ("view", "nope"),
        ("src", "sample:nope"),
    ):
        try:
            scenario.FIELDS[name].validate(bad)
        except ValueError:
            continue
        raise AssertionError(f"{name} = {bad!r} was accepted")

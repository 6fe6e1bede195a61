"""A link too long to carry a wide table's schema says so and offers the scenario file (issue 63, item 7): the address
bar leaves out what a link cannot carry (every value it holds is read back), the sidebar says what was left out and
where it is kept, a link that arrives with such a value says why it was not used, and nothing is lost."""

import json
import urllib.parse

from dppca_core import scenario as core
from dppca_core.scenario import Scenario
from tests.support.app import plain
from tests.support.downloads import offered

#: a 200-column upload with long names (the issue: a 4 MB address)
WIDE = [f"questionnaire item {j:03d}: how often in the last twelve months did you " + "x" * 60 for j in range(200)]


def _wide_scenario() -> dict:
    vals, notices = core.from_fields(
        {"src": "upload", "cols": json.dumps(WIDE), "fill": json.dumps({c: 0.5 for c in WIDE}), "eps": 0.5}
    )
    assert not notices
    return vals


def test_the_address_bar_leaves_out_what_a_link_cannot_carry_and_reads_back_the_rest():
    vals = _wide_scenario()
    assert set(core.too_long_for_a_link(vals)) == {"cols", "fill"}
    query = core.link_query(vals)
    assert set(query) == {"src", "eps"} and len(urllib.parse.urlencode(query)) < 100
    back, notices = core.from_query(query)
    assert not notices and back["eps"] == 0.5 and back["src"] == "upload"


def test_a_wide_schema_is_left_out_of_the_address_bar_in_words_and_kept_in_the_scenario_file(app_test, downloads):  # noqa: F811
    at = app_test()
    at.run()
    at.file_uploader(key="scenario_file").set_value(
        ("wide.toml", Scenario(_wide_scenario()).to_toml().encode(), "application/toml")
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    query = dict(at.query_params)
    assert "cols" not in query and "fill" not in query and query.get("eps") == "0.5"  # no 60 KB address
    assert sum(len(k) + len(v) for k, v in query.items()) < 2_000
    said = [plain(w.value) for w in at.sidebar.warning]
    assert any("link cannot hold the declared columns" in w and "scenario file" in w for w in said), said
    assert json.loads(at.session_state["scenario"]["cols"]) == WIDE  # nothing is lost
    kept = Scenario.from_toml(offered(at, downloads)["Scenario file"])
    assert json.loads(kept.values["cols"]) == WIDE and kept.values == at.session_state["scenario"]


def test_a_link_with_a_value_too_long_to_carry_says_why_it_was_not_used(app_test):
    at = app_test(src="upload", cols=json.dumps(WIDE))
    at.run()
    assert not at.exception
    (warning,) = [plain(w.value) for w in at.warning if "were not used" in plain(w.value)]
    assert "ignored cols" in warning and "more than a link carries for one setting (2,000)" in warning
    assert "a scenario file holds it" in warning and "open it on Home" in warning

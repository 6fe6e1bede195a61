"""The Trade-offs page's budget planner: targets in the metric's unit and range, converted when the metric changes,
answers that agree with the sweep table, and advice on which range to sweep next (issue 31)."""

import pytest

from tests.support.app import assert_clean


def _planner(at):
    shown = [t.value.reset_index() for t in at.table] + [df.value for df in at.dataframe]
    frames = [frame for frame in shown if any(str(c).startswith("smallest") for c in frame.columns)]
    assert frames, "no planner table"
    return frames[0]


def _sweep(at):
    return next(df.value for df in at.dataframe if "2.5%" in df.value.columns)


def test_a_percentage_target_is_read_in_percent_and_answers_what_the_table_shows(app_test):
    """Issue 31: with the captured energy, a target of 0.8 was read as 0.8% and the planner answered Analyze Gauss
    ε = 0.5 and MOD-SuLQ ε = 0.05, where the table beside it showed far less than 80%."""
    at = app_test(mechs="analyze_gauss,mod_sulq", metric="energy", sreps="5")
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    at.number_input(key="w:target").set_value(0.8).run()
    assert_clean(at)
    assert at.session_state["scenario"]["target"] == pytest.approx(80.0)
    table, planner = _sweep(at), _planner(at)
    for _, row in planner.iterrows():
        answer = row["smallest ε"]
        if answer == "not reached on the grid":
            assert (table[table["mechanism"] == row["mechanism"]]["2.5%"] < 80).all()
            continue
        at_answer = table[(table["mechanism"] == row["mechanism"]) & (table["eps"] == float(answer))].iloc[0]
        assert at_answer["2.5%"] >= 80 and at_answer["mean"] >= 80, (row["mechanism"], answer, at_answer.to_dict())
        below = table[(table["mechanism"] == row["mechanism"]) & (table["eps"] < float(answer))]
        assert (below["mean"] < 80).any() or below.empty  # the table's smaller ε do not meet it on average


def test_changing_the_metric_converts_the_target(app_test):
    """Issue 31: the previous metric's target (a distance of 0.3) stayed in the box as 0.3% of captured energy."""
    at = app_test(mechs="analyze_gauss", sreps="2")
    at.switch_page("pages/tradeoffs.py").run()
    assert at.number_input(key="w:target").value == pytest.approx(0.3)
    at.selectbox(key="w:metric").set_value("energy").run()
    assert_clean(at)
    assert at.number_input(key="w:target").value == pytest.approx(90.0)
    assert "% of optimal" in at.number_input(key="w:target").label
    at.selectbox(key="w:metric").set_value("subspace_distance").run()
    assert at.number_input(key="w:target").value == pytest.approx(0.3)


def test_an_out_of_range_target_from_a_link_is_refused_with_the_range(app_test):
    at = app_test(mechs="analyze_gauss", sreps="2", metric="energy", target="150")
    at.switch_page("pages/tradeoffs.py").run()
    assert not at.exception
    assert any("between 0 and 100" in w.value for w in at.warning)
    assert at.session_state["scenario"]["target"] == pytest.approx(90.0)


def test_the_planner_says_which_range_to_sweep_next_and_extends_it(app_test):
    at = app_test(mechs="analyze_gauss", sreps="2", target="0.005")  # far below what ε = 10 reaches
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    assert list(_planner(at)["smallest ε"]) == ["not reached on the grid"]
    assert any("from 10 to 100 next" in i.value for i in at.info)
    at.button(key="planner_extend").click().run()
    assert_clean(at)
    assert {20.0, 50.0, 100.0} <= set(_sweep(at)["eps"])
    assert at.session_state["scenario"]["shi"] == 100.0
    at.selectbox(key="w:sweep").set_value("delta").run()  # another axis: the extension does not carry over
    assert at.session_state["scenario"]["shi"] == 0.0


def test_a_target_met_everywhere_suggests_a_smaller_range(app_test):
    at = app_test(mechs="analyze_gauss", sreps="2", target="1.414")  # the largest distance there is: met at once
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    assert list(_planner(at)["smallest ε"]) == ["0.05"]
    assert any("from 0.005 to 0.05 next" in i.value for i in at.info)
    at.button(key="planner_extend").click().run()
    assert {0.005, 0.01, 0.02} <= set(_sweep(at)["eps"])

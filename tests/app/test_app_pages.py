"""Every page runs under AppTest without exception, and widget changes change the shown numbers."""

import pytest

from tests.support.app import PAGES, assert_clean, metric


def test_every_page_runs(app_test):
    at = app_test()
    at.run()
    assert_clean(at)
    for page in PAGES[1:]:
        at.switch_page(page).run()
        assert_clean(at)


def test_explore_epsilon_changes_metrics(app_test):
    at = app_test()
    at.run()
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    low = float(metric(at, "subspace distance"))
    at.select_slider(key="w:eps").set_value(10.0).run()
    assert_clean(at)
    high = float(metric(at, "subspace distance"))
    # Analyze Gauss noise s.d. scales like 1/epsilon (analytic GM), so a 10x larger epsilon must bring the
    # private subspace much closer to the non-private one.
    assert high < low / 2, (low, high)
    energy = float(metric(at, "captured energy").rstrip("%"))
    assert energy > 95.0


def test_explore_repetitions_and_seed_change_spread(app_test):
    at = app_test()
    at.switch_page("pages/explore.py").run()
    before = at.metric[0].delta
    at.number_input(key="w:seed").set_value(7).run()
    assert_clean(at)
    assert at.metric[0].delta != before  # fresh noise: the 95% band moves


def test_data_page_numbers_follow_widgets(app_test):
    at = app_test()
    at.switch_page("pages/data.py").run()
    assert metric(at, "rows n") == "2,000"
    at.number_input(key="w:n").set_value(500).run()
    assert_clean(at)
    assert metric(at, "rows n") == "500"
    assert metric(at, "rows clipped at R") == "0"
    at.number_input(key="w:R").set_value(0.05).run()
    assert int(metric(at, "rows clipped at R").replace(",", "")) > 0  # a tiny public radius clips rows


def test_url_reproduces_scenario(app_test):
    at = app_test(eps="5.0", seed="3", mechs="analyze_gauss", k="1")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert at.select_slider(key="w:eps").value == 5.0
    first = metric(at, "subspace distance")
    again = app_test(eps="5.0", seed="3", mechs="analyze_gauss", k="1")
    again.switch_page("pages/explore.py").run()
    assert metric(again, "subspace distance") == first  # same URL, same seeds: same numbers
    assert at.query_params["eps"] == ["5.0"] or at.query_params["eps"] == "5.0"


def test_state_survives_page_switch(app_test):
    at = app_test()
    at.switch_page("pages/explore.py").run()
    at.select_slider(key="w:eps").set_value(0.1).run()
    at.switch_page("pages/data.py").run()
    at.switch_page("pages/explore.py").run()
    assert at.select_slider(key="w:eps").value == 0.1


def test_bad_settings_show_message_not_traceback(app_test):
    at = app_test(k="50")  # more components than the 20 features
    at.switch_page("pages/explore.py").run()
    assert not at.exception
    assert any("choose k between" in e.value for e in at.error)
    at.number_input(key="w:k").set_value(2).run()
    assert_clean(at)


def test_incompatible_relation_is_explained(app_test):
    at = app_test(mechs="mod_sulq,analyze_gauss", nb="add_remove")
    at.switch_page("pages/explore.py").run()
    assert not at.exception
    assert any("neighbors" in e.value for e in at.error)  # mod_sulq is replace-only
    assert metric(at, "subspace distance")  # analyze_gauss still shows its numbers


def test_gallery_loads_scenario(app_test):
    at = app_test()
    at.run()
    at.button(key="gallery:3").click().run()  # "Can you trust a privacy claim?"
    assert not at.exception  # the page shows an st.error on purpose: the mechanism is retracted
    assert "wishart_sn" in at.session_state["scenario"]["mechs"]


def test_tradeoffs_sweep_and_planner(app_test):
    at = app_test(sreps="5")
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    frame = next(df.value for df in at.dataframe if "mechanism" in df.value.columns)  # not a chart's numbers
    assert set(frame["mechanism"]) == {"Analyze Gauss", "Private power method"}  # display names, never ids
    means = frame[frame["mechanism"] == "Analyze Gauss"].sort_values("eps")["mean"].to_numpy()
    assert means[-1] < means[0]  # more budget, less error
    planner = at.table[0].value
    assert list(planner.index) == ["Analyze Gauss", "Private power method"]


@pytest.mark.parametrize("present", ["true", "false"])
def test_report_page_and_presenter_mode(app_test, present):
    at = app_test(present=present)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    if present == "true":  # no sidebar: the presenter bar with the big dial and page buttons instead
        assert at.select_slider(key="w:eps_presenter").value == 1.0
        assert [b.key for b in at.button if b.key and b.key.startswith("present_")] == [
            "present_prev",
            "present_next",
            "present_exit",
        ]
        at.button(key="present_exit").click().run()
        assert at.toggle(key="w:present").value is False
    else:
        assert at.toggle(key="w:present").value is False


def test_every_gallery_scenario_and_sample_runs(app_test):
    from ui import gallery

    for i, entry in enumerate(gallery.GALLERY):
        at = app_test()
        at.run()
        at.button(key=f"gallery:{i}").click().run()
        assert not at.exception, (entry.title, [e.value for e in at.exception])
        real_errors = [e.value for e in at.error if "claim is false" not in e.value]
        assert not real_errors, (entry.title, real_errors)
    at = app_test(src="sample:wine", k="2")
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    assert metric(at, "rows n") == "178" and metric(at, "labels") == "yes"


def test_no_download_reruns_the_page():
    """Every download button is built with ``on_click="ignore"``: a press only downloads. A press that also reruns the
    page lets the rerun drop the file the press asked for (Streamlit forgets a built-when-pressed file once the run
    that drew its button is replaced), so on a busy server the download could silently never come."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [root / "app.py", *sorted((root / "pages").glob("*.py")), *sorted((root / "ui").glob("*.py"))]
    calls = [
        (path.name, node)
        for path in files
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "download_button"
    ]
    streamlit_calls = [(name, node) for name, node in calls if len(node.args) >= 2 or node.keywords]
    # the Report's nine downloads go through one call (pages/report.py _offer): that and four others
    assert len(streamlit_calls) >= 5, [name for name, _ in streamlit_calls]
    rerunning = [
        f"{name}:{node.lineno}"
        for name, node in streamlit_calls
        if not any(k.arg == "on_click" and getattr(k.value, "value", None) == "ignore" for k in node.keywords)
    ]
    assert not rerunning, rerunning

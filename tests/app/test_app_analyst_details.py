"""The smaller items of issue 35 (item 10), each checked in the app: the audit's numbers and δ, visible explanations,
labels that fit, the lesson's words and buttons."""

import pytest

from tests.support.app import assert_clean


def _metric(at, label):
    return next(m for m in at.metric if m.label == label)


def test_a_refuted_claim_reads_in_words_not_999_percent(app_test):
    at = app_test(mechs="wishart_sn")
    at.switch_page("pages/audit.py").run()
    at.select_slider(key="w:atrials").set_value(500)
    at.button(key="run_audit").click().run()
    assert_clean(at)
    reached = _metric(at, "claim reached")
    assert reached.value == "over 100%" and "refuted" in reached.delta and "× the claim" in reached.delta
    assert "%" not in reached.delta


def test_the_audit_takes_the_scenario_delta(app_test):
    at = app_test(mechs="analyze_gauss", delta="1e-08")
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    assert at.number_input(key="w:adelta").value == 1e-8
    at.number_input(key="w:adelta").set_value(1e-4).run()  # a choice made on the Audit page is kept
    at.switch_page("pages/explore.py").run()
    at.switch_page("pages/audit.py").run()
    assert at.number_input(key="w:adelta").value == 1e-4


def test_the_gallery_card_names_the_dial_range_and_the_dial_explains_its_marks(app_test):
    from ui import controls, gallery

    grid = controls.eps_grid()
    card = next(c for c in gallery.GALLERY if c.title == "The epsilon dial")
    assert f"from {grid[0]:g} to {grid[-1]:g}" in card.blurb  # it said 0.01 to 20 while the dial went to 70
    at = app_test()
    at.switch_page("pages/explore.py").run()
    dial = at.select_slider(key="w:eps")
    assert "◆ = a published ε" in dial.label  # visible, not only in the tooltip
    assert any("◆" in controls._eps_label(v) for v in grid)
    present = app_test(present="true")
    present.switch_page("pages/explore.py").run()
    assert "◆ = a published ε" in present.select_slider(key="w:eps_presenter").label


def test_lesson_step_one_highlights_the_three_directions_it_names(app_test):
    import json

    from ui.gallery import LESSON

    assert "three directions stand out" in LESSON[0].blurb
    at = app_test(step=1)
    at.switch_page("pages/lesson.py").run()
    assert_clean(at)
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    colours = chart["data"][0]["marker"]["color"]
    assert colours.count(colours[0]) == 3 and colours[3] != colours[0]  # three bars highlighted, as the words say


def test_the_lesson_step_and_the_presenter_page_buttons_are_told_apart(app_test):
    at = app_test(present="true", step=2)
    at.switch_page("pages/lesson.py").run()
    assert_clean(at)
    page_next, step_next = at.button(key="present_next"), at.button(key="lesson_next")
    assert "page" in page_next.label and "step" not in page_next.label.lower()
    assert "step" in step_next.label.lower() and "page" not in step_next.label
    assert step_next.proto.type != page_next.proto.type  # a primary button for the lesson's step


def test_units_far_apart_are_flagged_as_soon_as_the_table_is_read(app_test):
    """The warning came only after R was set (it read the clipped Gram); it now reads the columns' cells at once."""
    import numpy as np

    from dppca_core.pipeline import experiments
    from tests.messy import messy_csv

    X = np.array([[4000.0, 17.0, np.nan], [4400.0, np.nan, 0.0], [3800.0, 19.0, 0.0]])
    top, low, spread = experiments.unit_spread(X)
    assert (top, low) == (0, 1) and spread == pytest.approx(
        np.sqrt(np.mean(X[:, 0] ** 2)) / np.sqrt(np.mean([17.0**2, 19.0**2]))
    )
    assert experiments.unit_spread(np.array([[1.0, 20.0], [2.0, 25.0]])) is None  # 15x: mean squares 225x apart
    at = app_test(src="upload", mechs="analyze_gauss", reps="1")  # R left at its default
    at.session_state["upload"] = {"name": "penguins.csv", "bytes": messy_csv()}
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    warned = [w.value for w in at.warning if "very different scales" in w.value]
    assert len(warned) == 1 and "body\\_mass\\_g" in warned[0] and "not private" in warned[0]
    iris = app_test(src="sample:iris")  # centimetres beside centimetres
    iris.switch_page("pages/data.py").run()
    assert not [w for w in iris.warning if "very different scales" in w.value]

"""The Lesson page under AppTest: every step draws its figure and link, Next/Back move the step kept in the
scenario (so in the address), and a link's step is honoured (out of range: clamped, with a notice)."""
import pytest

from tests.test_app_pages import assert_clean
from ui.gallery import LESSON
from ui.lesson import FIGURES, step_figure, step_scenario


def _lesson(app_test, **query):
    at = app_test(**query)
    at.run()
    at.switch_page("pages/lesson.py").run()
    assert_clean(at)
    return at


def _heading(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("## Step"))


def test_next_and_back_walk_every_step_and_keep_it_in_the_scenario(app_test):
    at = _lesson(app_test)
    for number, card in enumerate(LESSON, start=1):
        assert _heading(at).startswith(f"## Step {number} of {len(LESSON)}")
        assert len(at.get("plotly_chart")) == 1
        assert any("Open this scenario on Explore" in m.value and f"]({'/' + card.page}" in m.value
                   for m in at.markdown)
        assert at.session_state["scenario"]["step"] == number
        if number < len(LESSON):
            at.button(key="lesson_next").click().run()
            assert_clean(at)
    assert at.button(key="lesson_next").disabled
    at.button(key="lesson_back").click().run()
    assert _heading(at).startswith(f"## Step {len(LESSON) - 1} of")


def test_a_shared_step_opens_on_that_step(app_test):
    at = _lesson(app_test, step="4")
    assert _heading(at).startswith("## Step 4 of") and at.query_params["step"] in ("4", ["4"])
    at = _lesson(app_test, step="99")  # beyond the field's range: the default, and the user is told
    assert _heading(at).startswith("## Step 1 of")


@pytest.mark.parametrize("number", range(1, len(LESSON) + 1))
def test_each_step_scenario_is_valid_and_draws(number):
    card = LESSON[number - 1]
    assert card.figure in FIGURES and card.try_this and card.page == "explore"
    assert 2 <= card.blurb.count(". ") + 1 <= 3  # two or three sentences
    vals = step_scenario(card, step=number)
    assert vals["step"] == number
    fig, headline = step_figure(card, vals)
    assert fig.data and headline

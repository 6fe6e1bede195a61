"""The Lesson page under AppTest: every step draws its figure and link, Next/Back move the step kept in the
scenario (so in the address), and a link's step is honoured (out of range: clamped, with a notice)."""

import pytest

from tests.support.app import assert_clean
from ui.gallery import LESSON, LESSON_FILE, load_lesson
from ui.lesson import FIGURES, PAGE_NAMES, link_words, step_figure, step_scenario


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
        assert any(link_words(card) in m.value and f"]({'/' + card.page}" in m.value for m in at.markdown)
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
    assert card.figure in FIGURES and card.try_this and card.page in PAGE_NAMES
    assert 2 <= card.blurb.count(". ") + 1 <= 3  # two or three sentences
    vals = step_scenario(card, step=number)
    assert vals["step"] == number
    fig, headline = step_figure(card, vals)
    assert fig.data and headline


#: a step as the file writes it, and what a teacher's slip in it is answered with (the step and the key named)
GOOD_STEP = """[[step]]
title = "The exact PCA"
page = "explore"
figure = "scree"
text = \"\"\"
Two lines of text,
read as one.
\"\"\"
try_this = "Look."
[step.scenario]
mechs = "non_private"
k = 3
"""
SLIPS = {
    "unknown key": (GOOD_STEP.replace("try_this", "try_ths"), "step 1 ('The exact PCA'): unknown key try_ths; missing"),
    "missing key": (GOOD_STEP.replace('figure = "scree"\n', ""), "step 1 ('The exact PCA'): missing key figure"),
    "a page": (GOOD_STEP.replace('"explore"', '"explorer"'), "step 1 ('The exact PCA'): page 'explorer' is not a page"),
    "a setting": (
        GOOD_STEP.replace("k = 3", "k = 0"),
        "step 1 ('The exact PCA'): scenario setting k = 0 cannot be used: outside [1, 50]",
    ),
    "an unknown setting": (
        GOOD_STEP.replace("k = 3", "kk = 3"),
        "scenario setting kk = 3 cannot be used: unknown setting",
    ),
    "no text": (GOOD_STEP.replace('"Look."', "3"), "step 1 ('The exact PCA'): try_this must be text in quotes"),
    "not toml": (GOOD_STEP.replace("k = 3", "k = "), "is not a TOML file the lesson can read"),
    "no step": ("title = 'x'", "holds steps only, each a [[step]] table (found title)"),
    "a step not a table": ("step = [1, 2]", "holds steps only, each a [[step]] table (found step)"),
}


def test_the_lesson_file_is_read_as_written(tmp_path):
    """The steps live in ui/lesson.toml (content a teacher edits without Python): a line break in a text is a space,
    the scenario's settings are kept as written, and the shipped file gives the ten steps the page walks."""
    path = tmp_path / "lesson.toml"
    path.write_text(GOOD_STEP + GOOD_STEP.replace("The exact PCA", "Again"), encoding="utf-8")
    first, second = load_lesson(path)
    assert (first.title, first.blurb, first.try_this, first.notes) == (
        "The exact PCA",
        "Two lines of text, read as one.",
        "Look.",
        "",
    )
    assert first.fields == {"mechs": "non_private", "k": 3} and second.title == "Again"
    assert LESSON_FILE.parent.name == "ui" and load_lesson() == LESSON and len(LESSON) == 10


@pytest.mark.parametrize("slip", SLIPS)
def test_a_slip_in_the_lesson_file_is_named_by_step_and_key(tmp_path, slip):
    text, said = SLIPS[slip]
    path = tmp_path / "lesson.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        load_lesson(path)
    assert str(error.value).startswith("lesson.toml") and said in str(error.value)


def test_the_planning_step_answers_what_epsilon_a_target_needs_and_opens_the_planner(app_test):
    """Issue 37's step: "what ε do I need for distance ≤ 0.3 in 90% of releases?", answered on the law of the step's
    synthetic data (public), with the frontier drawn and the link opening Trade-offs, where the planner asks the same."""
    number = next(i for i, card in enumerate(LESSON, start=1) if card.figure == "plan")
    at = _lesson(app_test, step=str(number))
    headline = " ".join(m.value.replace("\\", "") for m in at.markdown if m.value.startswith("**For "))
    assert "subspace distance ≤ 0.3 in 90% of releases" in headline and " at ε = " in headline
    link = next(m.value for m in at.markdown if "Open this scenario on Trade-offs" in m.value)
    address = link.split("](", 1)[1].rstrip(")")
    assert address.split("?")[0] == "/tradeoffs"  # the step's question is the planner's default one: no query needed
    query = address.split("?", 1)[1] if "?" in address else ""
    trade = app_test(**dict(pair.split("=", 1) for pair in query.split("&") if pair))
    trade.run()
    trade.switch_page("pages/tradeoffs.py").run()
    assert_clean(trade)
    assert trade.number_input(key="plan_t_subspace_distance").value == pytest.approx(0.3)
    assert trade.slider(key="plan_confidence").value == pytest.approx(0.9)


def test_the_last_step_opens_a_room_on_the_class_page(app_test, monkeypatch, tmp_path):
    """Issue 61's step: the bound of the class game at the step's ε with a simulated room under it, and a link that
    opens the Class page, where the teacher opens a room."""
    monkeypatch.setenv("DPPCA_ROOMS", str(tmp_path / "rooms.sqlite"))
    number = next(i for i, card in enumerate(LESSON, start=1) if card.figure == "class")
    assert number == len(LESSON)
    at = _lesson(app_test, step=str(number))
    said = [m.value.replace("\\", "") for m in at.markdown]
    headline = " ".join(text for text in said if text.startswith("**At ε = 2 no room"))
    assert "right more than" in headline and "this simulated room was right" in headline
    link = next(m.value for m in at.markdown if "Open a room on Class ↗" in m.value)
    address = link.split("](", 1)[1].rstrip(")")
    assert address.split("?")[0] == "/class"
    query = address.split("?", 1)[1] if "?" in address else ""
    room = app_test(**dict(pair.split("=", 1) for pair in query.split("&") if pair))
    room.run()
    room.switch_page("pages/class.py").run()
    assert_clean(room)
    assert room.button(key="class_open") is not None


def test_the_lesson_deck_links_to_the_public_address_or_relatively(monkeypatch):
    """Every "Open this scenario" link of the lesson's slides named the address the teacher's browser used
    (http://127.0.0.1:<port>/...), dead for the students (issue 57): the links are relative, or start with the
    operator's DPPCA_PUBLIC_URL."""
    import re

    from ui import lesson, report

    monkeypatch.delenv(report.PUBLIC_URL_ENV, raising=False)
    relative = re.findall(r"class='link'>[^<]*<a href='([^']*)'", lesson.deck().decode())
    assert len(relative) == len(LESSON) + 1 and all(
        link.startswith(("/explore", "/tradeoffs", "/lesson", "/class")) for link in relative
    )
    monkeypatch.setenv(report.PUBLIC_URL_ENV, "https://dppca.example.org/")
    public = re.findall(r"class='link'>[^<]*<a href='([^']*)'", lesson.deck().decode())
    assert public == ["https://dppca.example.org" + link for link in relative]

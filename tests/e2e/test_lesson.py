"""Issue 26 in a real browser: the whole lesson walked with the keyboard in presenter mode (each step's figure and
link to its page on one screen at 1280x720 and 1920x1080, the step in the address, kept on reload, the last step's
link opening the Class page, where a teacher opens a room), and the Lesson's slide deck downloaded and opened in Chromium with the
network cut (the Report's decks: test_handout.py). The docs' screenshots are taken when
DPPCA_SCREENSHOTS names their folder (docs/screenshots)."""

from pathlib import Path

from tests.e2e.helpers import (
    LARGE,
    SHOTS,
    TAKE_SHOTS,
    shoot,
    download,
    assert_no_error,
    assert_text_fits,
    in_viewport,
    query,
    resize,
    settle,
)
from ui import report
from ui.gallery import LESSON

FIGURE = '[data-testid="stMain"] .js-plotly-plot'
LINK = '[data-testid="stMain"] a[href*="/{page}?"]'
HEADING = ".st-key-lesson_nav h2"
#: the focused button's text ('' when the focus is not on a button: the main region's text holds every label)
FOCUSED_TEXT = (
    "() => document.activeElement && document.activeElement.tagName === 'BUTTON' "
    "? document.activeElement.innerText : ''"
)


def _wait_step(page, number: int) -> None:
    try:
        page.wait_for_selector(HEADING, timeout=120_000)
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"failed_lesson_step_{number}.png"))
        raise
    page.wait_for_function(
        f"() => {{ const h = document.querySelector('{HEADING}');"
        f" return h && h.innerText.startsWith('Step {number} of'); }}",
        timeout=120_000,
    )
    page.wait_for_selector(FIGURE, timeout=120_000)
    settle(page)


def _check_step(page, number: int) -> None:
    card = LESSON[number - 1]
    assert_no_error(page, f"lesson step {number}")
    assert card.title in page.inner_text(HEADING)
    figure = page.evaluate(f"() => document.querySelector('{FIGURE}').data.length")
    assert figure > 0, f"step {number}: an empty figure"
    link = LINK.format(page=card.page)
    href = page.get_attribute(link, "href")
    assert href.startswith(f"/{card.page}?") and "present=true" in href, href
    assert query(page).get("step", "1") == str(number)
    for part in (HEADING, FIGURE, link, ".st-key-lesson_next button"):
        assert in_viewport(page, part), (number, part)  # the step fits the screen: nothing to scroll to
    assert_text_fits(page, f"lesson step {number}")  # no text clipped, no chart label over another (issue 35)


def _press_next_with_the_keyboard(page) -> None:
    """Tab from wherever the focus is until the Next button has it, then press Enter."""
    for _ in range(40):
        page.keyboard.press("Tab")
        if "Next step" in page.evaluate(FOCUSED_TEXT):
            page.keyboard.press("Enter")
            return
    raise AssertionError("the Next step button was not reached with Tab")


def test_the_whole_lesson_with_the_keyboard_in_presenter_mode(server, tabs):
    """Every step reached with Tab and Enter, each checked on a 1280x720 screen and again on a 1920x1080 one; from
    the last step, on the large screen, its link opens the Class page in a new tab (issue 61's step)."""
    small = {"width": 1280, "height": 720}
    page = tabs.open(small)
    page.goto(f"{server}/lesson?present=true")
    _wait_step(page, 1)
    for number in range(1, len(LESSON) + 1):
        _check_step(page, number)
        resize(page, LARGE)
        _check_step(page, number)
        if number == 3:
            shoot(page, "lesson_presenter_1920x1080.png")
        if number == len(LESSON):
            break  # the last step stays on the large screen
        resize(page, small)
        if number == 3:
            shoot(page, "lesson_presenter_1280x720.png")
        if number == 4:  # a shared "step 4" survives a reload
            page.reload()
            _wait_step(page, 4)
            _check_step(page, 4)
        _press_next_with_the_keyboard(page)
        _wait_step(page, number + 1)
    assert page.locator(".st-key-lesson_next button").is_disabled()
    with page.expect_popup(timeout=60_000) as popup:
        page.click(LINK.format(page=LESSON[-1].page))  # the last step opens the Class page in a new tab
    room = popup.value
    room.wait_for_selector(".st-key-class_open button", timeout=120_000)
    settle(room)
    assert "/class" in room.url and query(room).get("present") == "true"
    assert_no_error(room, "the lesson's last step opened on Class")


def _open_offline(browser, path: str, slides: int, figures: int, shot: str | None = None):
    """Open a deck from disk with every network request refused; count its slides and drawn figures."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    asked = []
    context.route("http*://**", lambda route: (asked.append(route.request.url), route.abort()))
    page = context.new_page()
    page.goto(f"file://{path}")
    page.wait_for_function(
        f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {figures}", timeout=60_000
    )
    assert page.locator("section.slide").count() == slides
    assert page.locator(".js-plotly-plot").count() == figures
    cut = page.evaluate("""() => [...document.querySelectorAll('section.slide')].filter(s => {
        s.scrollIntoView(); return s.scrollHeight > s.clientHeight + 1; }).map(s => s.querySelector('h2, h1').innerText)""")
    assert not cut, f"slides cut at the bottom: {cut}"  # every table fits or continues (issue 57)
    assert not asked, asked  # opens without a network
    if shot and TAKE_SHOTS:
        page.keyboard.press("ArrowRight")  # the first figure slide, as it is shown
        page.wait_for_timeout(400)
        shoot(page, shot)
    text = page.inner_text("body")
    context.close()
    return text


def test_the_lesson_deck_opens_offline_with_one_slide_per_step(server, browser, tabs, tmp_path):
    page = tabs.open({"width": 1280, "height": 900})
    page.goto(f"{server}/lesson")
    _wait_step(page, 1)
    lesson_deck = download(page, "download_lesson_slides", tmp_path)
    # a title slide, one slide per step, and the numbers of the steps whose figures have more than fit beside them
    numbers = Path(lesson_deck).read_text(encoding="utf-8").count(" (its numbers")  # "(its numbers, continued)" too
    text = _open_offline(
        browser, lesson_deck, slides=len(LESSON) + 1 + numbers, figures=len(LESSON), shot="slide_deck.png"
    )
    assert report.PUBLIC_RECORD in text and all(card.title in text for card in LESSON)
    # each step's link, whole and relative: never the address this browser used (issue 57)
    assert "/explore?" in text and "/tradeoffs" in text and server not in text
    # the Report's deck, opened offline the same way: test_handout.py

"""WCAG 2.1 AA in the browser: axe-core (axe-playwright-python) on every page in presenter mode finds no serious
or critical violation (in normal mode, each page is scanned on its visit in test_browser.py), and the controls of
a page are reached and used with the keyboard alone."""
import pytest

from tests.e2e.helpers import PAGES, axe_violations, open_page, query, settle

pytestmark = pytest.mark.e2e


def test_no_serious_or_critical_violation_on_any_page_in_presenter_mode(server, browser):
    # normal mode: every page is scanned by test_browser.test_every_page_and_the_epsilon_dial on its visit
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    problems = {}
    for name in PAGES:
        open_page(page, server, name, "present=true")
        found = axe_violations(page)
        if found:
            problems[name] = found
    page.close()
    assert not problems, problems


FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const label = e.getAttribute('aria-label') || e.innerText || e.value || '';
  return [e.tagName.toLowerCase(), e.getAttribute('role') || e.getAttribute('type') || '',
          label.trim().slice(0, 60)]; }"""


def test_explore_is_usable_with_the_keyboard_alone(server, browser):
    """Tab from the top reaches the page links, the mechanism picker, the ε slider, the presenter toggle and a
    chart's numbers; arrow keys on the focused slider change ε (the address follows)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/explore")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    settle(page)
    seen, slider_at = [], None
    for i in range(120):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:
            continue
        seen.append(focused)
        if focused[1] in ("slider", "range") and slider_at is None:
            slider_at = i
            before = query(page).get("eps", "1.0")
            page.keyboard.press("ArrowRight")
            page.wait_for_function("b => new URLSearchParams(location.search).get('eps') !== b", arg=before,
                                   timeout=60_000)
            settle(page)
            assert float(query(page)["eps"]) > float(before)
            page.keyboard.press("Tab")  # after the rerun, go on from the slider
    labels = " | ".join(f"{tag}/{role}: {label}" for tag, role, label in seen)
    assert slider_at is not None, labels
    for wanted in ("Lesson", "Explore", "Presenter mode", "Show the numbers"):
        assert wanted in labels, (wanted, labels)
    assert any(tag == "input" and role == "combobox" for tag, role, _ in seen), seen  # the mechanism picker
    page.close()

"""WCAG 2.1 AA in the browser: axe-core (axe-playwright-python) on every page in presenter mode finds no serious
or critical violation and no text is clipped or overlaps (in normal mode, each page is scanned on its visit in
test_browser.py), the check of clipped text finds what it looks for, and the controls of a page are reached and used
with the keyboard alone."""

from tests.e2e.helpers import (
    FIGURE_PAGES,
    FIRST_FIGURE,
    SCREEN,
    TEXT_PROBLEMS,
    TOOLTIPS,
    axe_violations,
    diabetes_csv,
    every_page,
    figure_on_first_screen,
    long_numbers,
    offline,
    query,
    settle,
    text_problems,
    upload_then_home,
)


def test_no_serious_or_critical_violation_on_any_page_in_presenter_mode(server, tabs, tmp_path):
    """On every page in presenter mode at 1280x720, offline, with a real table uploaded (test_browser.py's walk, in
    this mode): no serious or critical WCAG violation, no text clipped or overlapping (issue 35), no number of more
    than six significant digits, no tooltip left over the page after the move, and each page's main figure on the
    first screen (issue 57: Data, Tensor and Reproduce drew it at 929-1021 px). Normal mode: every page is scanned
    by test_browser.test_every_page_and_the_epsilon_dial."""
    page = tabs.open(SCREEN)
    foreign = offline(page, server)
    csv = diabetes_csv(tmp_path / "diabetes.csv")
    problems = {}
    # as a presenter moves: the bar's "next page" button
    for name in every_page(page, server, present=True, start=upload_then_home(server, csv, present=True)):
        found = axe_violations(page) + text_problems(page)
        found += [f"long number {number} in '…{around}…'" for number, around in long_numbers(page)]
        found += [f"tooltip left on: {tip}" for tip in page.evaluate(TOOLTIPS)]
        if name in FIGURE_PAGES and not figure_on_first_screen(page):
            found.append(f"main figure below the first screen: {page.evaluate(FIRST_FIGURE)}")
        if found:
            problems[name] = found
    assert not problems, problems
    assert not foreign, f"requests to another host: {sorted(set(foreign))}"


FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const label = e.getAttribute('aria-label') || e.innerText || e.value || '';
  return [e.tagName.toLowerCase(), e.getAttribute('role') || e.getAttribute('type') || '',
          label.trim().slice(0, 60)]; }"""


def test_explore_is_usable_with_the_keyboard_alone(server, tabs):
    """Tab from the top reaches the page links, the mechanism picker, the ε slider, the presenter toggle and a
    chart's numbers; arrow keys on the focused slider change ε (the address follows)."""
    page = tabs.visit("explore", ".js-plotly-plot", viewport={"width": 1280, "height": 900}, timeout=120_000)
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
            page.wait_for_function(
                "b => new URLSearchParams(location.search).get('eps') !== b", arg=before, timeout=60_000
            )
            settle(page)
            assert float(query(page)["eps"]) > float(before)
            page.keyboard.press("Tab")  # after the rerun, go on from the slider
    labels = " | ".join(f"{tag}/{role}: {label}" for tag, role, label in seen)
    assert slider_at is not None, labels
    for wanted in ("Lesson", "Explore", "Presenter mode", "Show the numbers"):
        assert wanted in labels, (wanted, labels)
    assert any(tag == "input" and role == "combobox" for tag, role, _ in seen), seen  # the mechanism picker


def test_the_text_check_finds_clipped_and_overlapping_text(tabs):
    """The check of every page can fail: a cut label, a cut button and a chart whose tick labels overlap (plotly's
    own drawing, its labels forced onto one another), and passes on the same page laid out to fit."""
    import plotly.graph_objects as go
    from plotly.offline import get_plotlyjs

    fig = go.Figure(go.Scatter(x=[1, 1.01, 1.02], y=[1, 2, 3]))
    fig.update_xaxes(
        tickvals=[1, 1.01, 1.02], ticktext=["a long label", "another long one", "and a third"], tickangle=0
    )
    fig.update_layout(width=300, height=250, title="A title")
    spec = fig.to_json()
    page = tabs.open({"width": 1280, "height": 720})
    page.set_content(f"""<html><head><script>{get_plotlyjs()}</script></head><body>
        <p id="cut" style="width:60px; white-space:nowrap; overflow:hidden; text-overflow:ellipsis">a label too long
        </p><button id="b" style="width:40px; white-space:nowrap; overflow:hidden">Next step ▶</button>
        <div id="chart"></div><script>const f = {spec}; Plotly.newPlot('chart', f.data, f.layout);</script>
        </body></html>""")
    page.wait_for_selector(".js-plotly-plot .xtick text")
    found = page.evaluate(TEXT_PROBLEMS)
    assert any(f.startswith("clipped: a label too long") for f in found), found
    assert any(f.startswith("clipped: Next step") for f in found), found
    assert any(f.startswith("overlap:") and "long" in f for f in found), found
    page.evaluate("""() => { document.getElementById('cut').style.width = '400px';
        document.getElementById('b').style.width = '200px';
        Plotly.relayout('chart', {'xaxis.ticktext': ['a', 'b', 'c'], 'xaxis.range': [0.9, 1.1], width: 900}); }""")
    page.wait_for_timeout(300)
    assert page.evaluate(TEXT_PROBLEMS) == [], page.evaluate(TEXT_PROBLEMS)

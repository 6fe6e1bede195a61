"""End-to-end (issues 27 and 35): the private score plot by group on the wine sample. At epsilon = 1 the groups found
privately do not pass their threshold: the page says why in one line and keeps every result; one click declares the
label column's values public and every cultivar gets its panels; the frame and the noise switched in the sidebar,
each time one panel per cultivar beside the exact ones, and the one-line reading under it."""

from tests.e2e.helpers import assert_no_error, eventually, settle


CULTIVARS = ("class_0", "class_1", "class_2")


def _pick(page, option, key: str, value: str) -> None:
    """Click the sidebar's ``option`` until the address records ``key=value`` (at most three clicks, each given 30 s),
    then wait for the run to settle. Under load a click on a radio in a sidebar that has just redrawn was lost twice
    in full runs (the address unchanged for 60 s); a second click on the same option is harmless."""
    from playwright.sync_api import TimeoutError as NotYet

    recorded = f"() => new URLSearchParams(location.search).get('{key}') === '{value}'"
    for _ in range(3):
        option.click()
        try:
            page.wait_for_function(recorded, timeout=30_000)
            break
        except NotYet:
            settle(page, timeout=120_000)
    else:
        raise AssertionError(f"three clicks on the sidebar did not set {key}={value}")
    settle(page, timeout=120_000)


def _panel_titles(page) -> list:
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].some("
        "t => t.textContent.startsWith('Score plot'))",
        timeout=120_000,
    )
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => "
        "(p.querySelector('.gtitle') || {}).textContent?.startsWith('Score plot'))"
        ".flatMap(p => [...p.querySelectorAll('.annotation-text')].map(a => a.textContent))"
    )


def _has_text(page, text: str) -> None:
    assert page.get_by_text(text).count() == 1, text


def _same(titles: list, expected: list) -> None:
    assert sorted(titles) == sorted(expected), titles


def test_score_plot_by_group_declared_in_one_click_with_frame_and_noise_switched(server, tabs):
    page = tabs.open({"width": 1400, "height": 1800})
    page.goto(
        f"{server}/explore?src=sample:wine&R=2000.0&mechs=analyze_gauss&reps=2&eps=1.0&view=scores"
        "&bscores=0.1&sgroup=true"
    )
    page.wait_for_selector("h1", timeout=60_000)
    settle(page, timeout=120_000)
    assert_no_error(page, "score plot by group, groups found privately at epsilon 1")
    eventually(page, lambda: _has_text(page, "no group passed the privacy threshold"))
    assert page.locator("h4", has_text="Analyze Gauss").count() == 1  # the mechanism's results stay
    page.get_by_role("button", name="Declare these 3 groups public").click()
    page.wait_for_function("() => new URLSearchParams(location.search).has('slabels')", timeout=60_000)
    settle(page, timeout=120_000)
    expected = [f"exact: {c}" for c in CULTIVARS] + [f"Analyze Gauss: {c}" for c in CULTIVARS]
    eventually(page, lambda: _same(_panel_titles(page), expected))
    eventually(page, lambda: _has_text(page, "Score plot from scores 10% + frame 5% of each release"))
    eventually(page, lambda: _has_text(page, "groups declared public: class_0, class_1, class_2"))
    sidebar = page.locator('[data-testid="stSidebar"]')
    if not sidebar.get_by_text("fitted: private quantiles (5%)").is_visible():
        sidebar.get_by_text("Budget split of one release").click()
    assert sidebar.get_by_text("Groups declared public (3)").count() == 1
    eventually(page, lambda: _has_text(page, "frame fitted to private quantiles"))  # the default (issue 57)
    fixed = sidebar.get_by_text("fixed: [−1, 1]²")
    fixed.wait_for(state="visible", timeout=60_000)  # the expander may still be opening
    settle(page, timeout=120_000)  # and no run in flight: a click during one was lost once on a clean clone (CI=true)
    _pick(page, fixed, "sframe", "public")
    eventually(page, lambda: _has_text(page, "frame fixed to [−1, 1]²"))
    settle(page, timeout=120_000)
    _pick(page, sidebar.get_by_text("on occupied cells only"), "skind", "sparse")
    eventually(page, lambda: _has_text(page, "noise on occupied cells only"))
    eventually(page, lambda: _same(_panel_titles(page), expected))  # declared: every cultivar keeps its panel
    assert_no_error(page, "score plot by group")

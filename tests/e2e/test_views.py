"""End-to-end: the views of Explore in a real browser (presenter mode on a projector-sized screen, the risk view,
the Reproduce view, the budget split and the guarantee card). The page sweep and the scenario's way through
navigation, reload, links and uploads are in test_browser.py; the two modules run on separate test workers."""

import pytest

from tests.e2e.helpers import (
    LARGE,
    METRIC,
    resize,
    wait_first_metric_changes,
    SHOTS,
    shoot,
    assert_no_error,
    assert_text_fits,
    eventually,
    go_to,
    metric_values,
    query,
    settle,
    wait_metrics,
)


def test_presenter_mode_fits_the_screen(server, tabs):
    """Presenter mode on a projector-sized screen, 1280x720 then 1920x1080: nothing wider than the window, no label
    cut off."""
    address = "explore?present=true&view=risk&mechs=analyze_gauss,ppca_exponential&reps=4"
    page = tabs.visit(address, METRIC, ".js-plotly-plot", viewport={"width": 1280, "height": 720})
    assert_no_error(page, "presenter mode")
    assert page.locator('[data-testid="stSidebar"]').is_hidden()
    for size in ({"width": 1280, "height": 720}, LARGE):
        resize(page, size)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        where = f"presenter mode at {size['width']}x{size['height']}"
        assert_text_fits(page, where)
        shoot(page, f"presenter_risk_{size['width']}x{size['height']}.png")
    # the big dial moves the numbers, and next goes to the next page
    before = metric_values(page)
    dial = page.locator('[data-testid="stSlider"] input[type="range"]').first
    dial.focus()
    dial.press("ArrowRight")
    wait_first_metric_changes(page, before[0])
    page.locator("button", has_text="next").first.click()
    page.wait_for_function(
        "() => document.querySelector('.st-key-presenter_bar') && document.querySelector("
        "'.st-key-presenter_bar').innerText.includes('Trade-offs · page')",
        timeout=60_000,
    )


def test_risk_view_follows_the_dial(server, tabs):
    """The disclosure-risk view changes with epsilon together with the utility numbers."""
    address = "explore?view=risk&mechs=analyze_gauss,ppca_exponential&reps=4"
    page = tabs.visit(address, METRIC, "text=An attacker who was 10% sure", viewport={"width": 1400, "height": 2200})

    def sentences():
        return [t for t in page.locator("li").all_inner_texts() if "10% sure" in t]

    before, numbers = sentences(), metric_values(page)
    assert len(before) == 2 and "23.2%" in before[1]  # pure epsilon = 1 (PPCA): 10% -> at most 23.2%
    # the teaching example: a simulated audit of the first guarantee, drawn as the Audit page's curve, with its reading
    teaching = page.locator(".st-key-risk_audit_curve")
    teaching.locator(".js-plotly-plot .legend").first.wait_for(timeout=60_000)
    legend = teaching.inner_text()
    assert "band, all" in legend and "claim:" in legend
    body = page.inner_text("body")
    assert "What an audit of this guarantee would see" in body
    assert "The best attack we found does no better than" in body
    shoot(page, "risk.png", full_page=True)
    thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowLeft")
    page.wait_for_function(
        "old => ![...document.querySelectorAll('li')].some(e => e.innerText === old)", arg=before[1], timeout=60_000
    )
    settle(page)
    after = sentences()
    assert after != before and metric_values(page) != numbers
    assert_no_error(page, "risk view after moving epsilon")


#: the seed papers in the order visited: the last (its shipped run took 3.6 CPU s) is then run live
SEED_PAPERS = ("wang_xu", "ge", "liu", "imtiaz_2018", "imtiaz_2016")


def _reproduction_drawn(page, paper: str, shipped: bool) -> None:
    """The paper's view is drawn: its heading, a figure, no error, what the paper reports beside it, and whether it is
    the shipped run or one computed here."""
    from dppca_core import reproduce as rp

    page.wait_for_function(
        "t => [...document.querySelectorAll('h2')].some(h => h.innerText.includes(t))",
        arg=rp.PAPERS[paper].title,
        timeout=240_000,
    )
    settle(page, timeout=240_000)
    page.wait_for_selector(".js-plotly-plot", timeout=240_000)
    assert_no_error(page, f"reproduce {paper}")
    body = page.inner_text("body")
    assert "paper reports" in body.lower(), paper
    assert ("the run shipped with the app" in body) == shipped, (paper, shipped)


def test_reproduce_view_renders_each_paper(server, tabs):
    """Each seed paper's reproduction, chosen in the sidebar as a user does, draws its shipped figure beside what the
    paper reports; one paper run live on request draws the figure computed here (the computation is the library's,
    tested in test_reproduce.py; here, that the browser draws what the page sends)."""
    from dppca_core import reproduce as rp

    page = tabs.open({"width": 1400, "height": 1600})
    page.goto(f"{server}/reproduce?rpaper={SEED_PAPERS[0]}")
    for number, paper in enumerate(SEED_PAPERS):
        if number:
            page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
            page.get_by_role("option", name=rp.PAPERS[paper].title, exact=True).click()
        _reproduction_drawn(page, paper, shipped=True)
        assert query(page).get("rpaper", SEED_PAPERS[0]) == paper, query(page)  # the default stays out of links
    page.get_by_role("button", name="Run live", exact=True).click()  # the last paper computed here
    page.wait_for_function(
        "() => !document.body.innerText.includes('the run shipped with the app')"
        " && document.body.innerText.includes('cached tasks are instant')",
        timeout=240_000,
    )
    _reproduction_drawn(page, SEED_PAPERS[-1], shipped=False)


SCREE_WIDTHS = """() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  if (!gd || !gd._fullData) return null;
  return gd._fullData.filter(t => t.error_y && t.error_y.visible && t.error_y.array)
                     .map(t => Array.from(t.error_y.array));
}"""


def test_budget_split_changes_the_private_scree(server, tabs):
    """Moving the eigenvalues' share of the budget, as a user does, narrows the private scree's intervals."""
    page = tabs.visit(
        "explore?view=scree&mechs=private_power&beig=0.05&k=3&reps=2", METRIC, viewport={"width": 1400, "height": 1600}
    )
    page.wait_for_function(f"() => {{ const w = ({SCREE_WIDTHS})(); return w && w.length === 1; }}", timeout=60_000)
    (before,) = page.evaluate(SCREE_WIDTHS)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator('[data-testid="stExpander"]', has_text="Budget split").locator("summary").first.click()
    for target in (0.10, 0.15, 0.20):  # 0.05 -> 0.20 of the budget, one step at a time, each run finished
        thumb = sidebar.locator('[data-testid="stSlider"]', has_text="eigenvalues").locator('input[type="range"]').first
        thumb.wait_for(state="visible", timeout=60_000)
        thumb.focus()
        thumb.press("ArrowRight")
        page.wait_for_function(
            """t => Math.abs(parseFloat(new URLSearchParams(location.search).get('beig')) - t)
                                  < 1e-9""",
            arg=target,
            timeout=60_000,
        )
        settle(page)
    page.wait_for_function(
        f"old => {{ const w = ({SCREE_WIDTHS})(); return w && w.length === 1 && w[0][0] !== old; }}",
        arg=before[0],
        timeout=60_000,
    )
    settle(page)
    (after,) = page.evaluate(SCREE_WIDTHS)
    # Gaussian shares split mu^2: four times the share gives half the noise on the eigenvalues (the private total
    # that divides them moves a little too, so the ratio is near, not exactly, 1/2)
    assert len(after) == len(before) == 3
    assert all(0.35 < a / b < 0.65 for a, b in zip(after, before)), (before, after)
    assert_no_error(page, "private scree after moving the budget split")


def _card_numbers(page, mechanism):
    """(the card's three numbers: claimed, exact and audited epsilon; its text), once the card shows all three (on a
    busy machine the card can be drawn a moment before its numbers)."""
    card = page.locator(f".st-key-guarantee_{mechanism}")
    card.wait_for(timeout=120_000)
    card.locator('[data-testid="stMetricValue"]').nth(2).wait_for(timeout=120_000)
    return card.locator('[data-testid="stMetricValue"]').all_inner_texts(), card.inner_text()


def test_guarantee_card_shows_claimed_exact_and_audited_epsilon(server, tabs):
    # Explore: each mechanism's card shows the claimed epsilon, the exact epsilon of its noise at the same delta
    # and the audited bound of this setting; the numbers follow the epsilon control.
    page = tabs.open({"width": 1400, "height": 1800})
    page.goto(f"{server}/explore?eps=1.0&delta=1e-05&k=1&mechs=analyze_gauss,mod_sulq&reps=2&nb=replace")
    page.wait_for_selector(".st-key-guarantee_mod_sulq", timeout=240_000)
    wait_metrics(page)
    ag, _ = _card_numbers(page, "analyze_gauss")
    sulq, sulq_text = _card_numbers(page, "mod_sulq")
    assert ag[0] == "1" and float(ag[1]) == 1.0 and ag[2] == "not run"  # Analyze Gauss: exact = claim
    assert sulq[0] == "1" and 0 < float(sulq[1]) < 0.5  # MOD-SuLQ adds far more noise than its claim needs
    assert "less privacy than it claims" in sulq_text
    settle(page, timeout=240_000)
    thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    for _ in range(4):
        thumb.press("ArrowRight")
    try:
        page.wait_for_function(
            "() => parseFloat(new URLSearchParams(location.search).get('eps')) > 1.0", timeout=120_000
        )
    except Exception:
        page.screenshot(path=str(SHOTS / "failed_guarantee_eps.png"), full_page=True)
        raise
    page.wait_for_function(
        "v => { const c = document.querySelector('.st-key-guarantee_analyze_gauss [data-testid=\"stMetricValue\"]');"
        " return c && c.innerText !== v; }",
        arg=ag[0],
        timeout=120_000,
    )
    settle(page, timeout=240_000)

    def cards_follow_the_address() -> float:
        # the four presses rerun the page more than once: the app can be idle between two of those runs, so the
        # address and the cards are read together until they agree (an address that lags for good still fails)
        eps = float(query(page)["eps"])
        ag_after, _ = _card_numbers(page, "analyze_gauss")
        sulq_after, _ = _card_numbers(page, "mod_sulq")
        assert eps > 1.0 and float(ag_after[0]) == pytest.approx(eps, rel=1e-2)
        assert float(ag_after[1]) == pytest.approx(eps, rel=1e-2) and float(sulq_after[1]) > float(sulq[1])
        return eps

    eps = eventually(page, cards_follow_the_address)
    settle(page)
    # an audit of Analyze Gauss at this setting fills in the third number on Explore
    go_to(page, "Audit")
    page.locator('[data-testid="stMain"] [data-testid="stNumberInput"] input').first.fill(str(eps))
    page.keyboard.press("Enter")
    settle(page)
    page.get_by_role("button", name="Run the audit").click()
    page.locator(".st-key-audit_guarantee").wait_for(timeout=120_000)
    settle(page)
    audited = page.locator(".st-key-audit_guarantee [data-testid='stMetricValue']").all_inner_texts()
    assert float(audited[0]) == pytest.approx(eps, rel=1e-2) and 0 <= float(audited[2]) <= eps
    go_to(page, "Explore")
    wait_metrics(page)
    ag_audited, _ = _card_numbers(page, "analyze_gauss")
    assert ag_audited[2] == audited[2]
    assert_no_error(page, "explore guarantee cards")
    shoot(page, "explore_guarantee_cards.png", full_page=True)

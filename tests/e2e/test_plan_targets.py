"""End-to-end (issue 37): on Trade-offs a user states the error they accept, presses Plan, reads the ε, mechanism and
split with the stand-in caveat and the frontier figure, uses the plan, and finds on the Report what it was planned
for. And (issue 39) the frontier of the sweep of ε: the best mechanism at each ε, each line's audit verdict, the
numbers behind it."""

import pytest

from tests.e2e.helpers import (
    shoot,
    assert_no_error,
    assert_text_fits,
    axe_violations,
    go_to,
    metric_values,
    open_page,
    query,
    settle,
)


def test_plan_from_a_target_use_it_and_read_it_on_the_report(server, tabs):
    page = tabs.open({"width": 1400, "height": 1600})
    open_page(page, server, "tradeoffs", "mechs=analyze_gauss&sreps=2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.wait_for_selector('text="Use this plan"', timeout=180_000)
    settle(page, timeout=180_000)
    assert_no_error(page, "trade-offs after a plan")
    body = page.inner_text("body")
    assert "Planned on a stand-in, not on your rows" in body
    assert "Planned for subspace distance ≤ 0.3 in 90% of releases" in body
    assert page.locator(".js-plotly-plot", has_text="Chance of meeting every target").count() == 1
    shown = metric_values(page)
    eps = float(shown[0])
    page.get_by_role("button", name="Use this plan").click()
    page.wait_for_selector("text=/Planned for: subspace distance/", timeout=60_000)
    settle(page)
    assert float(query(page).get("eps", "1.0")) == pytest.approx(eps, rel=1e-3)  # the default ε is left out of links
    go_to(page, "Report")
    page.wait_for_selector('text="Summary"', timeout=120_000)
    settle(page, timeout=120_000)
    assert "Planned for: subspace distance ≤ 0.3" in page.inner_text("body")
    assert_no_error(page, "report after using a plan")


def test_the_frontier_shows_the_best_at_each_epsilon_and_each_audit_verdict(server, tabs):
    page = tabs.open({"width": 1400, "height": 1600})
    open_page(page, server, "tradeoffs", "mechs=analyze_gauss,coinpress,non_private&sreps=2")
    chart = page.locator(".js-plotly-plot", has_text="Which mechanism wins at each ε")
    chart.wait_for(timeout=240_000)
    chart.locator(".legendtext", has_text="best private median at this ε").wait_for(timeout=60_000)  # drawn
    settle(page)
    assert_no_error(page, "trade-offs with the frontier")
    legend = chart.locator(".legendtext").evaluate_all("els => els.map(e => e.textContent)")  # SVG: no innerText
    assert "Analyze Gauss · audit: not refuted" in legend and "CoinPress · audit: not refuted" in legend
    assert "Non-private PCA · audit: refuted" in legend and "best private median at this ε" in legend
    body = page.inner_text("body")
    assert "not a test on your data" in body
    assert "Best median of a private mechanism on your data (Subspace distance" in body
    found = axe_violations(page)
    assert not found, f"trade-offs with the frontier: {found}"
    assert_text_fits(page, "trade-offs with the frontier")
    shoot(chart, "tradeoffs_frontier.png")
    # in presenter mode on a projector-sized screen: larger text, nothing cut off or drawn over another label
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/tradeoffs?present=true&mechs=analyze_gauss,coinpress,non_private&sreps=2")
    chart = page.locator(".js-plotly-plot", has_text="Which mechanism wins at each ε")
    chart.locator(".legendtext", has_text="best private median at this ε").wait_for(timeout=240_000)
    settle(page)
    assert_no_error(page, "trade-offs with the frontier, presenter mode")
    assert_text_fits(page, "trade-offs with the frontier in presenter mode at 1280x720")
    shoot(chart, "tradeoffs_frontier_presenter.png")

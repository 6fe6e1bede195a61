"""End-to-end: the Audit page draws the attack's whole trade-off curve with its band, its reading in words and its
numbers (the figure's text alternative)."""

from tests.e2e.helpers import SHOTS, assert_no_error, settle, shoot


def test_audit_curve_figure_reading_and_numbers(server, tabs):
    page = tabs.visit("audit?afactor=3", ".st-key-run_audit", viewport={"width": 1400, "height": 2400}, timeout=120_000)
    try:
        page.get_by_role("button", name="Run the audit").click()
        chart = page.locator(".st-key-audit_curve")
        chart.wait_for(timeout=180_000)
        settle(page, timeout=180_000)
        # the container shows before plotly has drawn the figure in it: wait for its legend
        chart.locator(".js-plotly-plot .legend").first.wait_for(timeout=60_000)
        legend = chart.inner_text()
        assert "band, all" in legend and "claim:" in legend and "beyond the claim" in legend
        body = page.inner_text("body")
        assert "The best attack we found does better than the claim allows" in body
        assert "Bonferroni" in body
        # the text alternative under the chart: its numbers open in a table
        expander = page.locator('[data-testid="stExpander"]').filter(has_text="Show the numbers")
        assert expander.count() >= 2  # the curve and the statistic's histogram
        assert "Attack vs claim" not in body  # the old one-threshold figure is gone: the curve carries its summary
        assert_no_error(page, "audit curve")
        shoot(page, "audit_curve.png", full_page=True)
    except Exception:
        page.screenshot(path=str(SHOTS / "failed_audit_curve.png"), full_page=True)
        raise

"""End-to-end: the Audit page audits another library's PCA and compares libraries on the current data."""

from tests.e2e.helpers import SHOTS, assert_no_error, eventually, settle


def _pick(page, key: str, option: str) -> None:
    page.locator(f".st-key-{key} [data-testid='stSelectbox']").click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def test_external_audit_and_library_comparison(server, tabs):
    page = tabs.visit("audit", ".st-key-xa_run", viewport={"width": 1400, "height": 2400}, timeout=120_000)
    try:
        _pick(page, "xa_lib", "scikit-learn PCA (not private)")
        page.get_by_role("button", name="Audit this library").click()
        page.locator(".st-key-external_guarantee").wait_for(timeout=180_000)
        settle(page, timeout=180_000)
        body = page.inner_text("body")
        assert "scikit-learn PCA (not private): claim contradicted." in body and "carries no noise" in body
        reps = page.locator(".st-key-cmp_reps input")
        reps.fill("2")
        reps.press("Enter")
        settle(page)
        budget = page.locator(".st-key-cmp_budget input")  # OpenDP does not finish on the spiked data: 3 s, not 60
        budget.fill("3")
        budget.press("Enter")
        settle(page)
        page.get_by_role("button", name="Compare", exact=True).click()
        page.locator(".st-key-compare_table").wait_for(timeout=300_000)
        settle(page, timeout=300_000)
        table = page.locator(".st-key-compare_table").inner_text()
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "failed_libraries.png"), full_page=True)
        raise
    assert_no_error(page, "audit page, other libraries")
    assert page.locator(".st-key-compare_table [data-testid='stDataFrame']").count() == 1
    # the table is drawn on a canvas: read its rows through the grid's accessible cells, which a busy browser may
    # fill a moment after the table appears (seen empty once in a full run)
    names = ("OpenDP PCA", "scikit-learn PCA (not private)", "ours: Analyze Gauss")

    def shown() -> str:
        return table + page.locator(".st-key-compare_table").evaluate("e => e.textContent")

    eventually(page, lambda: _check_libraries(shown(), names), timeout=60)


def _check_libraries(shown: str, names) -> None:
    assert len([name for name in names if name in shown]) >= 2, shown[:500]

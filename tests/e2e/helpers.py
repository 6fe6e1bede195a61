"""Reading and driving the Streamlit page in the browser (selectors of Streamlit's own test ids)."""
import os
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: screenshots go to an ignored folder unless DPPCA_SCREENSHOTS names another (e.g. docs/screenshots to refresh them)
SHOTS = ROOT / os.environ.get("DPPCA_SCREENSHOTS", "artifacts/screenshots")


def settle(page, timeout=60_000):
    """Wait until the app has finished its script run (the 'Running' status is gone)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')
                 || !document.querySelector('[data-testid="stStatusWidget"]').innerText.includes('Running')""",
        timeout=timeout)
    page.wait_for_timeout(300)


def assert_no_error(page, name):
    body = page.inner_text("body")
    assert "Traceback" not in body, f"{name}: a traceback reached the page"
    assert page.locator('[data-testid="stException"]').count() == 0, f"{name}: an exception box is shown"
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, f"{name}: an error message is shown: {errors.first.inner_text()}"


def metric_values(page):
    return page.locator('[data-testid="stMetricValue"]').all_inner_texts()


def wait_metrics(page, timeout=60_000):
    page.wait_for_selector('[data-testid="stMetricValue"]', timeout=timeout)
    settle(page)


def query(page) -> dict:
    return {k: v[0] for k, v in urllib.parse.parse_qs(page.evaluate("location.search").lstrip("?")).items()}


def slider_values(page):
    """Displayed values of the sidebar's sliders (epsilon first, then delta), once they are drawn."""
    page.wait_for_function("""() => document.querySelectorAll(
        '[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').length >= 2""", timeout=60_000)
    return page.locator('[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').all_inner_texts()


def sidebar_numbers(page):
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stNumberInput"] input', timeout=60_000)
    return [i.input_value() for i in page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"] input').all()]


def sidebar_mechanisms(page) -> str:
    return page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').first.inner_text()


HEADINGS = {"Home": "DP-PCA Explorer"}


def go_to(page, title: str):
    """Click a page in the sidebar navigation, as a user does, and wait for it to be drawn with its address."""
    try:
        page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first.click(timeout=10_000)
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"failed_go_to_{title}.png"))
        print(page.evaluate("[...document.querySelectorAll('[inert]')].map(e=>e.outerHTML.slice(0,300))"))
        raise
    heading = HEADINGS.get(title, title)
    page.wait_for_function(f"() => document.querySelector('h1') && document.querySelector('h1').innerText.includes({heading!r})",
                           timeout=60_000)
    settle(page)
    page.wait_for_function("() => location.search.includes('eps=')", timeout=60_000)

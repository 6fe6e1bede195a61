"""The real Streamlit server and headless Debian Chromium (driven by Playwright), shared by the browser tests.

Skips (with the reason) only when Chromium is absent and CI is not set; in CI a missing browser fails.
"""

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import SCREEN, settle
from tests.support.server import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, wait_healthy


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _require_browser():
    missing = None
    if not Path(CHROMIUM).exists():
        missing = f"Chromium not found at {CHROMIUM} (install it with scripts/install_browser.sh)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "the playwright Python package is not installed (pip install -r requirements-dev.txt)"
    if missing:
        if _in_ci():
            pytest.fail(f"CI is set but the browser test cannot run: {missing}")
        pytest.skip(missing)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the marks
def pytest_collection_modifyitems(items):
    """Every test of this folder drives the real server in the browser: marked ``e2e`` here, once for all."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server():
    _require_browser()
    port = free_port()
    proc = start_server(port)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def driver(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(driver):
    b = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()


#: where a tab goes between tests: a page of the app's own server (so the tab keeps its renderer) that is not the
#: app (so its Streamlit session ends)
PARKED = "/_stcore/health"


class TabPool:
    """Browser tabs for the app, kept from test to test on one test worker.

    A new tab costs Chromium a renderer of its own that compiles the app's scripts again: 5.7-6.6 CPU s to show
    Explore on this machine, against 2.2-2.8 CPU s for a tab that showed the app before (measured 2026-11-28,
    the CPU of every Chromium process). A test takes tabs with :meth:`open`; they come back when it ends, parked
    on a page of the server that is not the app (its Streamlit session ends there), their cookies and storage
    cleared, so the next test starts from a fresh session as in a new tab. A test that needs a second browser
    profile (a shared link, two sessions side by side) still makes a context of its own.

    The tabs live in a Chromium of their own with a profile on disk (``profile``, a temporary folder of the worker),
    not in an incognito context: its disk cache keeps the app's scripts and the code V8 compiled from them from one
    page load to the next, so a page opened again is not compiled again. test_views.py and test_browser.py together:
    Chromium 99.2 CPU s with an incognito context, 81.2 with the profile; 98.8 s against 85.8 s wall (measured
    2026-12-07, one run each, ``-n 0``, the CPU of every process of the run).

    A tab taken from the pool is brought to the front of its window first. Without it, after the classroom test
    had used three tabs at once (the projector and two phones), later tests drew their frames slowly once the app
    was on the tab: two animation frames took 2.6 s and Playwright waited about 2 s per click for the element to be
    stable, the machine idle meanwhile (Playwright's API log, a late test). Why a tab not in front does so is not
    proven (when it is taken, on the parking page, it draws 61 frames a second either way); bringing it to the
    front removed the waits. Every browser module, ``-n 0``: 368 s -> 273 s of wall time for the same CPU (one run
    each, 2026-12-07); the Reproduce walk 49.7 s -> 12.5 s, the guarantee card 27.6 s -> 7.7 s.
    """

    def __init__(self, driver, server: str, profile):
        self.server = server
        self.context = driver.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=SCREEN,
            accept_downloads=True,
        )
        self.idle: list = []

    def open(self, viewport: dict | None = None):
        """A tab at ``viewport`` (default 1280x720), on no page of the app yet: the test goes where it wants."""
        page = self.idle.pop() if self.idle else self.context.new_page()
        page.set_viewport_size(viewport or SCREEN)
        page.bring_to_front()  # a tab not in front drew slowly: see the class's docstring
        return page

    def give_back(self, pages: list) -> None:
        """Park the tabs a test used and keep those still open; close any other tab the test's pages opened."""
        for page in pages:
            if page.is_closed():
                continue
            try:
                page.unroute_all(behavior="ignoreErrors")  # a test's routes (an offline walk) end with the test
                page.goto(self.server + PARKED, timeout=30_000)
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            except Exception:  # a tab the test left broken is closed, not reused
                page.close()
                continue
            self.idle.append(page)
        self.context.clear_cookies()
        for page in self.context.pages:
            if page not in self.idle:
                page.close()

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="session")
def tab_pool(driver, server, tmp_path_factory):
    pool = TabPool(driver, server, tmp_path_factory.mktemp("profile"))
    yield pool
    pool.close()


class Tabs:
    """The tabs of one test (:class:`TabPool`)."""

    def __init__(self, pool: TabPool):
        self.pool, self.taken = pool, []

    def open(self, viewport: dict | None = None):
        page = self.pool.open(viewport)
        self.taken.append(page)
        return page

    def visit(self, address: str, *ready: str, viewport: dict | None = None, timeout: int = 60_000):
        """A tab (:meth:`open`) at the app's ``address`` (a path and its query, e.g. ``"audit?afactor=3"``), once
        each selector of ``ready`` (default: the page's heading) is on it in turn and the run has settled, each
        waited for up to ``timeout`` ms."""
        page = self.open(viewport)
        page.goto(f"{self.pool.server}/{address}")
        for selector in ready or ("h1",):
            page.wait_for_selector(selector, timeout=timeout)
        settle(page, timeout=timeout)
        return page


@pytest.fixture
def tabs(tab_pool):
    """``tabs.open(viewport)``: a tab for this test (a warm one when the worker has one), given back when it ends."""
    mine = Tabs(tab_pool)
    yield mine
    tab_pool.give_back(mine.taken)

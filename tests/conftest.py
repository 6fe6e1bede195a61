"""Shared pytest fixtures (shared file: add fixtures, keep existing ones)."""

import functools
import gc
import os
import sys
from pathlib import Path

# Python's byte-code caches (__pycache__, ignored by git) are written by the test run even where
# PYTHONDONTWRITEBYTECODE is set (as on this machine): pytest then keeps the test modules it rewrote for their asserts,
# and a worker's collection costs about 5.5 CPU s instead of 12 from the second run on (`pytest --collect-only -n 0`,
# measured 2026-12-07; three workers collect). Nothing tracked is written.
sys.dont_write_bytecode = False

# One BLAS thread per test process (before numpy loads): the suite runs on three workers (pyproject's addopts), and
# on a 2-core machine two workers with two spinning BLAS threads each (plus the browser tests' server) ran the
# suite 15% slower than one thread each. The app server of the browser tests inherits it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _has_avx512() -> bool:
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


# OpenBLAS's AVX2 kernels on a processor with AVX-512 too: there it picks its AVX-512 ones, whose rounding differs,
# and the tensor decompositions of the capeAGN reproduction, whose restarts it can reorder, then move points of the
# files in docs/reproduce/ (made with the AVX2 kernels; docs/reproduce.md) beyond their tolerance (measured on an
# AVX-512 machine: one point of the conventional series is 0.968 in the file and with the AVX2 kernels, 0.887 with
# the AVX-512 ones)
if _has_avx512():
    os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")

# the budget book (ui/book.py) of this test process: a file of its own, never the user's state folder; the app's
# tests each get a fresh one (app_test), the browser tests' server one of its own (tests/e2e/conftest.py)
import tempfile  # noqa: E402

os.environ.setdefault("DPPCA_LEDGER", str(Path(tempfile.mkdtemp(prefix="dppca-book-")) / "book.sqlite"))

import pytest

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _component_manifests(scan) -> list:
    """Streamlit's components found in the installed packages, by ``scan`` (its own scanner), once per test process.

    Every new AppTest scans the metadata of every installed package for them on its first run (0.12 CPU s here, for
    none found); the packages do not change while the tests run. test_app_classroom, test_app_pages and
    test_app_hostile, ``-n 0``: 23.9 -> 14.2 CPU s (medians of 3 paired runs, farm-bench, 2026-12-07)."""
    return scan()


@pytest.fixture
def app_test(monkeypatch, tmp_path):
    """Factory: an AppTest of the dashboard, optionally opened with URL query parameters.

    A real server switches Streamlit to ``st.navigation`` mode for good once app.py has run (ui/shell.py); AppTest
    resets that process-wide flag before every run, so each run would first execute the page file alone and
    consume one-shot events (button clicks). The patched PagesManager keeps the server's behaviour.
    """
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.components.v2 import manifest_scanner
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    class NavigationPagesManager(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(app_test_module, "PagesManager", NavigationPagesManager)
    scan = manifest_scanner.scan_component_manifests
    monkeypatch.setattr(
        manifest_scanner, "scan_component_manifests", lambda max_workers=None: _component_manifests(scan)
    )
    monkeypatch.setenv("DPPCA_LEDGER", str(tmp_path / "book.sqlite"))  # a budget book of this test's own

    def make(**query):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        for key, value in query.items():
            at.query_params[key] = str(value)
        return at

    return make


@pytest.fixture
def downloads(monkeypatch):
    """{file id: bytes, or the callable that builds them} of every file a download button offered during the test
    (tests/support/downloads.py: ``offered(at, downloads)`` reads them by their buttons' labels)."""
    from tests.support.downloads import remember_downloads

    return remember_downloads(monkeypatch)


# Property tests: random exploration on developer machines, a fixed example sequence in CI so a run is
# reproducible (bugs found locally become explicit regression tests).
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        _hyp_settings.load_profile("ci")
except ImportError:  # pragma: no cover
    pass


#: young objects allocated before Python's collector runs (its default: 700)
GC_YOUNG = 20_000


def pytest_collection_finish(session):
    """A test process keeps the objects of everything imported by the end of collection (numpy, scipy, pandas,
    plotly, Streamlit: hundreds of thousands) until it ends: they are moved out of the collector's reach
    (``gc.freeze``), so a full collection no longer walks them, and the collector runs after 20,000 new objects
    rather than 700. Cyclic garbage is still collected, later. test_app_classroom, test_app_pages, test_exports and
    test_rates, ``-n 0``: 36.3 -> 33.9 CPU s, peak memory unchanged (farm-bench, medians of 3 paired runs, the older
    generations' thresholds then at 20 rather than Python's 10 kept here); the README's test command 362 -> 343 s
    (one run each); 100,000 young objects gained nothing more (2026-12-07)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def pytest_collection_modifyitems(items):
    """The browser tests (tests/e2e/) first, then the slow modules, slowest first, the rest in collection order
    (tests/support/schedule.py): the long units start early and the short ones fill the end."""
    from tests.support.schedule import dealing_order

    items.sort(key=lambda item: dealing_order(item.nodeid))


#: how many groups the browser modules are dealt in (tests/support/schedule.py): one app server and one Chromium each
BROWSER_GROUPS = 2


def pytest_xdist_make_scheduler(config, log):
    """pyproject's ``--dist loadscope``, with the browser modules in :data:`BROWSER_GROUPS` units."""
    if config.getoption("dist") != "loadscope":
        return None
    from tests.support.schedule import BrowserGroupScheduling

    return BrowserGroupScheduling(config, log, groups=BROWSER_GROUPS)

"""Shared plumbing of the browser benchmarks: start the app, wait until it answers, watch its runs.

Used by browser_latency.py and load.py. The server runs headless without a file watcher (the watcher's CPU
would be measured too); the browser is Debian's Chromium launched through Playwright.
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def app_server(timeout: float = 60.0):
    """Yield (base URL, psutil.Process of the server) once /_stcore/health answers; stop the server after."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--browser.gatherUsageStats", "false",
                               "--server.fileWatcherType", "none"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the app did not answer on {url} within {timeout:.0f} s") from None
                time.sleep(0.5)
        yield url, psutil.Process(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


def launch_chromium(playwright):
    """Headless Debian Chromium (Playwright's own browser download is not used)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def running(page) -> bool:
    """True while Streamlit's status widget says the script is running."""
    return page.evaluate("""() => { const s = document.querySelector('[data-testid="stStatusWidget"]');
                                    return !!s && s.innerText.includes('Running'); }""")


def cpu_seconds(proc) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def percentile(xs, p: float) -> float:
    """Nearest-rank percentile (p in [0, 1]); nan for no values."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")

"""The app's real server and headless Debian Chromium, started one way by the browser tests (tests/e2e/conftest.py),
the download tests and the browser benchmarks (benchmarks/_app_server.py)."""

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from tests.support import ROOT

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(port: int, *options: str) -> list[str]:
    """The command line of the app's server on ``port`` of 127.0.0.1, headless, without usage statistics or a file
    watcher (its CPU would be measured too), with ``options`` (more of Streamlit's, e.g. "--runner.postScriptGC=true")
    last. Run it from the repository's root (``cwd=ROOT``)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
        *options,
    ]


def start_server(port: int, *options: str, **popen) -> subprocess.Popen:
    """The app's server (:func:`server_command`); its output goes to a temporary file (``proc.log``), never to a pipe
    nobody reads: a full pipe blocks every process writing to it (the server, and a worker child it started)."""
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        server_command(port, *options), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True, **popen
    )
    proc.log = log
    return proc


def server_output(proc: subprocess.Popen, last: int = 5000) -> str:
    """The last ``last`` characters the server printed."""
    log = getattr(proc, "log", None)
    if log is None:
        return ""
    log.flush()
    log.seek(0)
    return log.read()[-last:]


def answers(url: str, timeout: float, alive=lambda: True) -> bool:
    """Whether the server at ``url`` answers its health check within ``timeout`` seconds (False as soon as
    ``alive()`` is False: the server has stopped)."""
    deadline = time.monotonic() + timeout
    while alive() and time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return True
        except OSError:
            time.sleep(0.3)
    return False


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    """Wait until the server ``proc`` at ``url`` answers; the test fails, with what it printed, if it does not."""
    import pytest

    if not answers(url, timeout, alive=lambda: proc.poll() is None):
        proc.kill()
        pytest.fail("the Streamlit server did not start in time:\n" + server_output(proc))

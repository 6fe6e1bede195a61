"""End-to-end (issue 42): while hostile files are uploaded and read, the server's health check keeps answering, the
page says what is wrong in plain words, and the server's memory stays bounded.

Before the fix a 108 KB CSV whose first line is ``-"a-"a...`` blocked /_stcore/health for 34 s (csv.Sniffer's
quadratic regular expression, holding the GIL) and an 876 KB Parquet file took 3.5 GB."""

import threading
import time
import urllib.request
from urllib.parse import urlparse

import psutil

from tests.e2e.helpers import settle
from tests.support.hostile import HOSTILE_LINES, hostile_csv, parquet_bomb

#: seconds one health request may wait for its answer (a blocked server made it wait 34 s)
HEALTH_TIMEOUT = 10
#: the server's resident memory (its own and its workers') may grow by less than this over the three uploads
RSS_GROWTH = 400 * 2**20


class HealthWatch(threading.Thread):
    """Asks /_stcore/health every 0.2 s until stopped; ``answers`` are (perf_counter, True if "ok")."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.answers, self._stop_event = url + "/_stcore/health", [], threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            try:
                ok = urllib.request.urlopen(self.url, timeout=HEALTH_TIMEOUT).read() == b"ok"
            except OSError:
                ok = False
            self.answers.append((time.perf_counter(), ok))
            self._stop_event.wait(0.2)

    def stop(self):
        self._stop_event.set()
        self.join()


def _server_rss(url: str) -> int:
    """Resident memory of the process listening at ``url`` and of its children (the parse workers), in bytes."""
    port = urlparse(url).port
    (pid,) = {
        c.pid
        for c in psutil.net_connections("tcp")
        if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN
    }
    server = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [server, *server.children(recursive=True)])


def _cells_file(path) -> None:
    """44 MB of 10 tiny columns, 2.2 M rows: 22 M cells, over the 20 M limit; reading up to the limit takes seconds."""
    path.write_bytes(b"a,b,c,d,e,f,g,h,i,j\n" + b"0,1,0,1,0,1,0,1,0,1\n" * 2_200_000)


def test_health_answers_while_hostile_uploads_are_read(server, tabs, tmp_path):
    (tmp_path / "quote-dash.csv").write_bytes(hostile_csv(HOSTILE_LINES["quote-dash"]))
    _cells_file(tmp_path / "many-cells.csv")
    parquet_bomb(tmp_path / "bomb.parquet")
    page = tabs.open({"width": 1400, "height": 1200})
    page.goto(f"{server}/data")
    page.wait_for_selector("h1", timeout=60_000)
    settle(page)
    page.get_by_text("Upload CSV / Parquet").click()
    settle(page)
    rss_before = _server_rss(server)
    for name, words in (
        ("quote-dash.csv", "column name is longer"),
        ("many-cells.csv", "over the limit of 20,000,000"),
        ("bomb.parquet", "over the limit of 20,000,000"),
    ):
        watch = HealthWatch(server)
        watch.start()
        started = time.perf_counter()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(tmp_path / name))
        page.wait_for_function(
            """([name, words]) => [...document.querySelectorAll(
                                  '[data-testid="stAlertContentError"]')].some(
                                  e => e.innerText.includes(name) && e.innerText.includes(words))""",
            arg=[name, words],
            timeout=240_000,
        )
        answered = time.perf_counter()
        settle(page)
        watch.stop()
        during = [ok for t, ok in watch.answers if started <= t <= answered]
        assert all(ok for _, ok in watch.answers), f"{name}: the health check failed while the file was read"
        assert during, f"{name}: no health request was answered while the file was read"
    assert _server_rss(server) - rss_before < RSS_GROWTH
    assert page.locator('[data-testid="stException"]').count() == 0

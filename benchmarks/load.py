"""Many users at once, acting at the same time: N concurrent browser sessions on one server.

    python benchmarks/load.py --clients 30 --burst               # a class arrives; writes docs/load.md
    python benchmarks/load.py --clients 8 --minutes 5 --out -    # steady use, each session on its own
    python benchmarks/load.py --clients 30 --burst --post-script-gc --append   # the same with Streamlit's per-run GC
    python benchmarks/load.py --clients 30 --burst --url http://127.0.0.1:8501 --out -   # a server already running
    python benchmarks/load.py --soak --clients 10 --minutes 10   # a class for a lesson, with hostile uploads and attacks

Starts the app (headless Streamlit, no file watcher) and N sessions in Debian's Chromium through Playwright's
async API (one browser, one context per session: separate cookies and sessions), all driven concurrently.

* ``--burst`` (a class): every session opens the teacher's link at the same moment (``--link``, default the
  Explore page of the default scenario), then, in ``--rounds`` rounds, every session moves the epsilon dial at
  the same moment, as students do when told to.
* steady (default): for ``--minutes``, each session on its own opens a page of a random scenario and then
  moves the epsilon dial, switches the detail view or opens another page, with 1-3 s between actions.
* ``--soak`` (a lesson, with a hostile visitor): first one session uploads a legitimate 2,000 x 5,000 table
  (46 MB); then for ``--minutes`` each session visits every page, moves the dial, switches views and uploads
  tables of its own, and every minute (``--hostile-every``) one session (in turn) uploads a hostile file (a Parquet
  bomb, a 1 MB quote-dash header, Parquet dictionary bombs, a one-line file of 2.5 M columns, 22 M cells), then a
  proper file, or opens a hostile scenario file on Home (benchmarks/scenario_files.py: a long dotted key, a deep
  header with many keys, 80 KB of dotted keys, huge numbers, files at the pre-scan's limits). The health check is
  asked every second. The
  server's RSS (and its parse workers') is written every 10 s to ``--rss-out`` (CSV) and drawn as an SVG beside
  it; the report gives the ceiling, the p95 of each action, and each action that did not finish with its cause.
  Then the sessions close and the server is watched idle for ``--idle-minutes``. The report replaces its own
  section of ``--out`` (docs/load.md): run it after a burst, which rewrites the whole file. Among the class run the
  attacks of ``load_attacks.py`` (a large upload explored at 8 values of R, a reproduce link opened in several tabs,
  another session's download asked for by its content; ``--no-attacks`` leaves them out): the report adds the
  class's p95 and the server's peak and settled memory against the ceiling the budgets allow.

An action's time runs from the click or key press (for a link, from the navigation) until the server has
finished the runs it caused: the driver reads Streamlit's own messages on each session's websocket (a run
starts with "script is running" and ends with "script finished"; a run that ends by starting another, or
another run starting within 0.3 s, keeps the clock going). Streamlit's status widget is no use here: it
appears only after a run has taken 0.5 s. After each phase the driver counts error and exception boxes on
every page. In the background it samples the server's resident memory and CPU time; CPU seconds per session
are the server's CPU time over a phase divided by the sessions. The browser runs at the lowest scheduling
priority (nice 19), so the server gets the 2 cores first, as when each visitor's browser runs on their own
computer; the times until a page shows in the browser include that browser's slow drawing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

from _app_server import CHROMIUM_ARGS, ROOT, app_server, cpu_seconds, generated_by, niced_chromium, percentile, publish

sys.path.insert(0, str(ROOT))
from ui.page_titles import PAGE_TITLES  # noqa: E402

SCENARIOS = [
    "",
    "mechs=analyze_gauss,ppca_exponential&k=2",
    "src=sample:wine&R=2000&mechs=analyze_gauss",
    "mechs=cape_pca,dist_conventional&n=5000",
    "view=risk",
    "center=private&beig=0.2&bscores=0.1",
]
VIEWS = ["Spread", "Loadings", "Privacy risk", "Principal angles"]
PAGES = ["Explore", "Data", "Report", "Home"]
ERROR_BOXES = '[data-testid="stException"], [data-testid="stAlertContentError"]'
SLIDER = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'
#: a run that starts within this many seconds of the previous one's end belongs to the same action (st.rerun)
GRACE = 0.3
#: an action after which the page has started no run for this many seconds caused none (generous: the browser
#: runs at the lowest priority and may take minutes to send a key press on a busy machine)
NO_RUN = 300.0


class RunWatch:
    """The script runs of one session, read from the messages the server sends on the session's websocket."""

    def __init__(self, page):
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._message, self._back = ForwardMsg, BackMsg
        self._early = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
        self.started = 0  # runs started so far
        self.running = False
        self.last_end = 0.0  # perf_counter of the last run's end
        self.requests = []  # perf_counter of each rerun request the page sent
        self._changed = asyncio.Event()
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        ws.on("framereceived", self._frame)
        ws.on("framesent", self._sent)

    def _sent(self, payload) -> None:
        if isinstance(payload, str):
            return
        msg = self._back()
        msg.ParseFromString(payload)
        if msg.WhichOneof("type") == "rerun_script":
            self.requests.append(time.perf_counter())

    def _frame(self, payload) -> None:
        if isinstance(payload, str) or len(payload) > 128:  # run-state messages are a few bytes: skip the rest
            return
        msg = self._message()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "session_status_changed" and msg.session_status_changed.script_is_running and not self.running:
            self.running, self.started = True, self.started + 1
        elif kind == "script_finished" and msg.script_finished != self._early:
            self.running, self.last_end = False, time.perf_counter()
        else:
            return
        self._changed.set()

    async def settle(self, t0: float, started_before: int, acted: float, timeout: float = 900.0):
        """(seconds from ``t0``, seconds from the page's first rerun request after ``t0``) until the runs caused
        since then have finished (no new run within GRACE); ``acted`` is when the action itself returned.

        The action caused a run when a run started after ``t0``, or when the page sent a rerun request and a run
        finished after it: a request that arrives while an earlier run is still going stops that run ("finished
        early for a rerun") and the server goes straight on to the new run, with no new "running" message."""
        while True:
            now = time.perf_counter()
            sent = next((r for r in self.requests if r >= t0), None)
            caused = self.started > started_before or (sent is not None and self.last_end > sent)
            if caused and not self.running and now - self.last_end >= GRACE:
                return self.last_end - t0, self.last_end - (t0 if sent is None else sent)
            if now - t0 > timeout or (not caused and not self.running and now - acted > NO_RUN):
                why = (
                    ""
                    if caused
                    else " (no run started: the server never got the request)"
                    if sent is None
                    else " (the page sent its request; no run started)"
                )
                raise TimeoutError(f"no finished run {now - t0:.0f} s after the action{why}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), GRACE / 3)
            except asyncio.TimeoutError:
                pass


class Session:
    def __init__(self, page, index: int):
        self.page, self.index, self.watch = page, index, RunWatch(page)

    async def timed(self, action) -> tuple[float, float]:
        """Run ``action`` (a coroutine function); (seconds from the action, seconds from the page's request to
        the server) until the runs it caused have finished."""
        before, t0 = self.watch.started, time.perf_counter()
        await action()
        return await self.watch.settle(t0, before, time.perf_counter())

    async def open(self, url: str) -> tuple[float, float, float]:
        """:meth:`timed` of the navigation, and the seconds until the epsilon dial shows in the browser."""
        t0 = time.perf_counter()
        done = await self.timed(lambda: self.page.goto(url, timeout=300_000))
        await self.page.locator(SLIDER).first.wait_for(timeout=300_000)
        return (*done, time.perf_counter() - t0)

    async def move_epsilon(self, key: str) -> tuple[float, float]:
        thumb = self.page.locator(SLIDER).first
        await thumb.wait_for(timeout=300_000)  # not timed: the browser may still be drawing the last run
        await thumb.focus()
        return await self.timed(lambda: thumb.press(key))

    async def errors(self) -> int:
        return await self.page.locator(ERROR_BOXES).count()

    async def title(self) -> str:
        heading = self.page.locator("h1")
        return (await heading.first.inner_text()).strip() if await heading.count() else ""

    def where(self) -> str:
        """The sidebar name of the page open now, from its address (Home's heading is the app's name)."""
        from urllib.parse import urlparse

        path = urlparse(self.page.url).path.strip("/").split("/")[-1]
        return PAGE_TITLES.get(path, PAGE_TITLES["home"])

    async def epsilon_key(self) -> str | None:
        """The arrow key that changes the epsilon dial (it has two ends), or None without a dial."""
        thumb = self.page.locator(SLIDER).first
        if not await thumb.count():
            return None
        value, top = await thumb.evaluate("e => [Number(e.value), Number(e.max)]")
        return "ArrowLeft" if value >= top else "ArrowRight"

    async def state(self) -> str:
        """What the page shows now, for the cause of an action that did not finish."""
        status = self.page.locator('[data-testid="stStatusWidget"]')
        shown = (await status.inner_text()).strip() if await status.count() else "no status"
        return (
            f"at {self.page.url.split('?')[0]} (heading {await self.title()!r}), status widget: "
            f"{shown or 'idle'}, runs started {self.watch.started}"
        )


class Monitor:
    """Samples the server's RSS (MB) every 0.5 s in the background; ``cpu()`` reads its CPU seconds. ``workers``
    holds the RSS of its child processes (the fork server and the parse workers) at the same moments."""

    def __init__(self, proc):
        self.proc, self.rss, self.workers, self._task = proc, [], [], None

    async def _sample(self):
        while True:
            self.rss.append(self.proc.memory_info().rss / 2**20)
            self.workers.append(_children_rss(self.proc))
            await asyncio.sleep(0.5)

    def __enter__(self):
        self._task = asyncio.get_running_loop().create_task(self._sample())
        return self

    def __exit__(self, *exc):
        self._task.cancel()

    def cpu(self) -> float:
        return cpu_seconds(self.proc)


#: every page a soak session visits, by its sidebar link
SOAK_PAGES = list(PAGE_TITLES.values())
#: seconds between two samples of the soak's RSS timeline, and between two hostile uploads
SOAK_SAMPLE = 10.0
HOSTILE_EVERY = 60.0
DROPZONE = '[data-testid="stFileUploaderDropzoneInput"]'


#: Streamlit's default, which .streamlit/config.toml turns off: a full garbage collection after every script run
POST_SCRIPT_GC = ("--runner.postScriptGC", "true")


@contextlib.contextmanager
def _server(url: str | None, options: tuple = ()):
    """(base URL, psutil.Process): a new app server (with extra Streamlit ``options``), or the one already
    listening at ``url`` (e.g. under a profiler), found by its port."""
    if url is None:
        with app_server(timeout=120, options=options) as started:
            yield started
        return
    import psutil
    from urllib.parse import urlparse

    port = urlparse(url).port
    pids = {
        c.pid
        for c in psutil.net_connections("tcp")
        if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN
    }
    if len(pids) != 1:
        raise SystemExit(f"no single process listens on port {port} (found {sorted(pids)}); start the app first.")
    yield url.rstrip("/"), psutil.Process(pids.pop())


async def _sessions(pw, clients: int):
    browser = await pw.chromium.launch(executable_path=niced_chromium(), headless=True, args=CHROMIUM_ARGS)
    sessions = []
    for i in range(clients):
        context = await browser.new_context(viewport={"width": 1300, "height": 1000})
        context.set_default_timeout(300_000)  # the browser draws at the lowest priority: waits can be long
        sessions.append(Session(await context.new_page(), i))
    return browser, sessions


async def _phase(name: str, sessions, make, monitor, result) -> None:
    """Run ``make(session)`` in every session at the same moment; record times, failures, errors and CPU."""
    cpu0 = monitor.cpu()
    outcomes = await asyncio.gather(*(make(s) for s in sessions), return_exceptions=True)
    cpu = monitor.cpu() - cpu0
    done = [o for o in outcomes if not isinstance(o, BaseException)]
    failed = [f"{type(o).__name__}: {str(o).splitlines()[0][:100]}" for o in outcomes if isinstance(o, BaseException)]
    errors = sum(await asyncio.gather(*(s.errors() for s in sessions)))
    result["phases"].append(
        {
            "name": name,
            "times": [o[0] for o in done],
            "server": [o[1] for o in done],
            "failed": failed,
            "errors": errors,
            "cpu_per_session": cpu / len(sessions),
            "rss": monitor.rss[-1] if monitor.rss else None,
        }
    )
    if done and len(done[0]) > 2:  # the time until the page shows in the browser as well
        result["phases"].append(
            {
                "name": f"{name}: the dial shows in the browser",
                "times": [o[2] for o in done],
                "server": None,
                "failed": [],
                "errors": "",
                "cpu_per_session": None,
                "rss": None,
            }
        )


async def burst(clients: int, rounds: int, link: str, server: str | None = None, options: tuple = ()) -> dict:
    from playwright.async_api import async_playwright

    result = {"profile": "burst", "clients": clients, "rounds": rounds, "link": link, "phases": [], "options": options}
    with _server(server, options) as (url, proc):
        async with async_playwright() as pw:
            browser, sessions = await _sessions(pw, clients)
            with Monitor(proc) as monitor:
                await asyncio.sleep(1.0)
                result["rss_start"], result["load_start"] = monitor.rss[-1], _load_average()
                await _phase("open the link", sessions, lambda s: s.open(f"{url}/{link}"), monitor, result)
                for r in range(rounds):
                    await asyncio.sleep(2.0)  # "now move epsilon one step"
                    key = "ArrowRight" if r % 2 == 0 else "ArrowLeft"
                    await _phase(
                        f"move epsilon, round {r + 1}", sessions, lambda s, k=key: s.move_epsilon(k), monitor, result
                    )
                result["rss_peak"], result["rss_end"] = max(monitor.rss), monitor.rss[-1]
                result["load_end"] = _load_average()
            await browser.close()
    return result


def _load_average() -> float:
    """The machine's 1-minute load average (runnable processes; 2 means both cores busy)."""
    import os

    return os.getloadavg()[0]


async def _steady_session(
    session: Session, url: str, until: float, rng: random.Random, times: dict, failed: list
) -> None:
    async def act():
        page = session.page
        title = (await page.locator("h1").first.inner_text()).strip() if await page.locator("h1").count() else ""
        choice = rng.random()
        if title == "Explore" and choice < 0.6:
            return "epsilon", await session.move_epsilon(rng.choice(["ArrowRight", "ArrowLeft"]))
        if title == "Explore" and choice < 0.8:
            button = page.locator('[data-testid="stButtonGroup"] button', has_text=rng.choice(VIEWS)).first
            return "view", await session.timed(lambda: button.click(timeout=20_000))
        link = page.locator('[data-testid="stSidebarNavLink"]', has_text=rng.choice(PAGES)).first
        return "page", await session.timed(lambda: link.click(timeout=20_000))

    try:
        times["load"].append((await session.open(f"{url}/explore?{rng.choice(SCENARIOS)}&seed={session.index}"))[:2])
    except Exception as exc:  # noqa: BLE001 - a stuck session is a result, not a crash
        failed.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
        return
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(1.0, 3.0))
        try:
            what, seconds = await act()
            times[what].append(seconds)
        except Exception as exc:  # noqa: BLE001
            failed.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}")


async def steady(clients: int, minutes: float, seed: int = 0, server: str | None = None) -> dict:
    from playwright.async_api import async_playwright

    rng = random.Random(seed)
    times: dict = {"load": [], "epsilon": [], "view": [], "page": []}
    failed: list = []
    with _server(server) as (url, proc):
        async with async_playwright() as pw:
            browser, sessions = await _sessions(pw, clients)
            with Monitor(proc) as monitor:
                await asyncio.sleep(1.0)
                rss_start, cpu0 = monitor.rss[-1], monitor.cpu()
                until = time.monotonic() + minutes * 60
                await asyncio.gather(
                    *(_steady_session(s, url, until, random.Random(rng.random()), times, failed) for s in sessions)
                )
                cpu = monitor.cpu() - cpu0
                errors = sum(await asyncio.gather(*(s.errors() for s in sessions)))
                rss_peak, rss_end = max(monitor.rss), monitor.rss[-1]
            await browser.close()
    phases = [
        {
            "name": name,
            "times": [x[0] for x in xs],
            "server": [x[1] for x in xs],
            "failed": [],
            "errors": None,
            "cpu_per_session": None,
            "rss": None,
        }
        for name, xs in times.items()
    ]
    return {
        "profile": "steady",
        "clients": clients,
        "minutes": minutes,
        "phases": phases,
        "failed": failed,
        "errors": errors,
        "cpu_per_session": cpu / clients,
        "rss_start": rss_start,
        "rss_peak": rss_peak,
        "rss_end": rss_end,
    }


def _children_rss(proc) -> float:
    """RSS (MB) of a process's children (the fork server and the parse workers of the app)."""
    import psutil

    total = 0
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            total += child.memory_info().rss
    return total / 2**20


def soak_files(folder, clients: int) -> tuple[dict, list]:
    """({session: its own legitimate table}, [(name, path) of the hostile files, in turn]) written to ``folder``;
    the big legitimate table is ``folder/big.csv``."""

    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(ROOT))
    from tests.support.hostile import HOSTILE_LINES, hostile_csv, parquet_bomb

    rng = np.random.default_rng(0)
    pd.DataFrame(rng.integers(0, 3000, size=(5000, 2000)), columns=[f"c{j}" for j in range(2000)]).to_csv(
        folder / "big.csv", index=False
    )
    own = {}
    for i in range(clients):
        frame = pd.DataFrame(rng.normal(size=(3000, 12)) * ([1, 10, 100] * 4), columns=[f"x{j}" for j in range(12)])
        frame["group"] = rng.integers(0, 3, size=3000)
        own[i] = folder / f"class-{i}.csv"
        frame.to_csv(own[i], index=False, float_format="%.4f")
    (folder / "quote-dash.csv").write_bytes(hostile_csv(HOSTILE_LINES["quote-dash"]))
    (folder / "one-line.csv").write_bytes(b"1," * 2_500_000 + b"1")
    (folder / "many-cells.csv").write_bytes(b"a,b,c,d,e,f,g,h,i,j\n" + b"0,1,0,1,0,1,0,1,0,1\n" * 2_200_000)
    parquet_bomb(folder / "bomb.parquet")
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(3_000, dtype=np.int32)), pa.array(["z" * 10**6]))
    pq.write_table(
        pa.table({"x": pa.array(np.arange(3_000.0)), "z": column}),
        folder / "dictionary-bomb.parquet",
        store_schema=False,
    )
    from scenario_files import hostile_files
    from tests.support.hostile import dictionary_bomb

    (folder / "text-bomb-600mb.parquet").write_bytes(dictionary_bomb(10_000_000, 60))
    (folder / "text-bomb-1gb.parquet").write_bytes(dictionary_bomb(5_000_000, 200))
    uploads = ["bomb.parquet", "quote-dash.csv", "dictionary-bomb.parquet", "one-line.csv", "many-cells.csv"]
    uploads += ["text-bomb-600mb.parquet", "text-bomb-1gb.parquet"]
    scenarios = []
    for name, raw in hostile_files().items():
        (folder / name).write_bytes(raw)
        scenarios.append(name)
    turns = [name for pair in itertools.zip_longest(uploads, scenarios) for name in pair if name]
    return own, [(name, folder / name) for name in turns]


async def _to_page(session: Session, name: str) -> tuple[float, float]:
    link = session.page.locator('[data-testid="stSidebarNavLink"]', has_text=name).first
    return await session.timed(lambda: link.click(timeout=300_000))


async def _upload(session: Session, path) -> tuple[float, float]:
    """Open the Data page's uploader (not timed) and upload ``path``: seconds until the runs it caused finished."""
    page = session.page
    if session.where() != "Data":
        await _to_page(session, "Data")
    if not await page.locator(DROPZONE).count():
        await session.timed(lambda: page.get_by_text("Upload CSV / Parquet").click(timeout=300_000))
    dropzone = page.locator(DROPZONE)
    await dropzone.wait_for(state="attached", timeout=300_000)
    if getattr(session, "last_upload", None) == str(path):  # the file it holds already: the browser sends nothing
        again = Path(path).with_name(f"again-{Path(path).name}")
        if not again.exists():
            again.write_bytes(Path(path).read_bytes())
        path = again
    session.last_upload = str(path)
    return await session.timed(lambda: dropzone.set_input_files(str(path)))


async def _refused(session: Session, name: str) -> bool:
    """Whether an error box on the page names the uploaded file (the plain message a hostile file gets)."""
    boxes = await session.page.locator('[data-testid="stAlertContentError"]').all_inner_texts()
    return any(name in box for box in boxes)


async def _open_scenario(session: Session, path) -> tuple[float, float]:
    """Open Home (not timed) and drop ``path`` on its scenario-file box: seconds until the runs it caused finished."""
    if session.where() != "Home":
        await _to_page(session, "Home")
    dropzone = session.page.locator(DROPZONE)
    await dropzone.wait_for(state="attached", timeout=300_000)
    return await session.timed(lambda: dropzone.set_input_files(str(path)))


async def _answered_scenario(session: Session) -> bool:
    """Whether Home answered the scenario file in words: opened (with notices), or refused in an error box."""
    boxes = await session.page.locator('[data-testid="stAlert"]').all_inner_texts()
    return any("could not be opened" in box or "Scenario opened" in box for box in boxes)


async def _health(url: str, checks: list, until) -> None:
    """Ask the server's health check every second while ``until()`` is true: (seconds to answer, or None when it
    did not answer "ok" within 5 s)."""
    import urllib.request

    def ask():
        t0 = time.perf_counter()
        try:
            ok = urllib.request.urlopen(url + "/_stcore/health", timeout=5).read() == b"ok"
        except OSError:
            ok = False
        return time.perf_counter() - t0 if ok else None

    while until():
        checks.append(await asyncio.to_thread(ask))
        await asyncio.sleep(1.0)


async def _soak_session(
    session: Session,
    url: str,
    until: float,
    rng: random.Random,
    own,
    hostile: list,
    times: dict,
    failed: list,
    refused: list,
) -> None:
    """One visitor for the soak: every page, the dial, the views, its own uploads, and a hostile file when it is its
    turn (``hostile`` holds the files queued for this session), followed by a proper file again."""

    async def record(kind: str, action, target: str = "") -> None:
        try:
            times.setdefault(kind, []).append(await action())
        except Exception as exc:  # noqa: BLE001 - an unfinished action is a result
            failed.append(
                (
                    kind,
                    f"session {session.index}{' to ' + target if target else ''}: {type(exc).__name__}: "
                    f"{str(exc).splitlines()[0][:120]}; {await session.state()}",
                )
            )

    await record("load", lambda: session.open(f"{url}/explore?seed={session.index}"))
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(1.0, 3.0))
        if hostile and hostile[0][0].endswith(".toml"):
            name, path = hostile.pop(0)
            await record("hostile scenario file", lambda: _open_scenario(session, path))
            refused.append((name, await _answered_scenario(session)))
            continue
        if hostile:
            name, path = hostile.pop(0)
            await record("hostile upload", lambda: _upload(session, path))
            refused.append((name, await _refused(session, name)))
            await record("upload", lambda: _upload(session, own))
            continue
        here, choice = session.where(), rng.random()
        if here == "Explore" and await session.title() != "Explore":  # the address changes before the page does
            here = ""
        if here == "Explore" and choice < 0.45:
            key = await session.epsilon_key()
            if key:
                await record("epsilon", lambda: session.move_epsilon(key))
                continue
        if here == "Explore" and choice < 0.6:
            current = await session.page.locator(
                '[data-testid="stButtonGroup"] button[aria-checked="true"]'
            ).all_inner_texts()
            view = rng.choice([v for v in VIEWS if v not in current])
            button = session.page.locator('[data-testid="stButtonGroup"] button', has_text=view).first
            await record("view", lambda: session.timed(lambda: button.click(timeout=300_000)))
            continue
        if choice < 0.1:
            await record("upload", lambda: _upload(session, own))
            continue
        target = rng.choice([p for p in SOAK_PAGES if p != here])  # the page already open causes no run
        await record(f"page: {target}", lambda: _to_page(session, target), target)


async def _timeline(proc, samples: list, t0: float) -> None:
    """(seconds, server RSS MB, workers RSS MB) every SOAK_SAMPLE seconds."""
    while True:
        samples.append((time.perf_counter() - t0, proc.memory_info().rss / 2**20, _children_rss(proc)))
        await asyncio.sleep(SOAK_SAMPLE)


def _attack_recorder(times: dict, failed: list):
    """``record(kind, action)`` for the attacks (load_attacks.py): the action's time under ``kind``, or its failure."""

    async def record(kind: str, action) -> None:
        try:
            times.setdefault(kind, []).append(await action())
        except Exception as exc:  # noqa: BLE001 - an unfinished action is a result
            failed.append((kind, f"the attacker: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"))

    return record


async def _attacks(browser, url: str, until: float, folder, attacks: dict, times, failed, monitor, result) -> None:
    """The attacks of load_attacks.py among the class, each in sessions of its own."""
    import load_attacks

    async def make_session(index: int) -> Session:
        context = await browser.new_context(viewport={"width": 1300, "height": 1000})
        context.set_default_timeout(300_000)
        return Session(await context.new_page(), index)

    helpers = {"upload": _upload, "to_page": _to_page}
    await load_attacks.run(
        await make_session(99),
        make_session,
        url,
        until,
        folder,
        attacks,
        helpers,
        _attack_recorder(times, failed),
        monitor,
        result,
    )


async def soak(
    clients: int,
    minutes: float,
    idle_minutes: float,
    seed: int = 0,
    server: str | None = None,
    hostile_every: float = HOSTILE_EVERY,
    attacks: dict | None = None,
) -> dict:
    import tempfile
    from pathlib import Path

    from playwright.async_api import async_playwright

    rng = random.Random(seed)
    times: dict = {k: [] for k in ("load", "epsilon", "view", "upload", "hostile upload", "hostile scenario file")}
    failed, refused, samples, hostile_at, health = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp, _server(server) as (url, proc):
        own, hostile = soak_files(Path(tmp), clients)
        queues = [[] for _ in range(clients)]
        async with async_playwright() as pw:
            browser, sessions = await _sessions(pw, clients)
            with Monitor(proc) as monitor:
                t0 = time.perf_counter()
                clock = asyncio.get_running_loop().create_task(_timeline(proc, samples, t0))
                await asyncio.sleep(1.0)
                result = {
                    "rss_start": monitor.rss[-1],
                    "workers_start": monitor.workers[-1],
                    "load_start": _load_average(),
                }
                first = sessions[0]  # a legitimate large table, alone: what it costs and what stays
                await first.open(f"{url}/explore?seed=0")
                mark = len(monitor.rss)
                big = await _upload(first, Path(tmp) / "big.csv")
                await asyncio.sleep(SOAK_SAMPLE)
                result["big"] = {
                    "seconds": big[0],
                    "peak": max(monitor.rss[mark:]),
                    "workers_peak": max(monitor.workers[mark:]),
                    "after": monitor.rss[-1],
                    "errors": await first.errors(),
                }
                await _upload(first, own[0])  # then it works on a class-sized table like the others
                cpu0, start = monitor.cpu(), time.monotonic()
                until = start + minutes * 60

                async def hostile_turns():
                    turn = 0
                    while time.monotonic() + hostile_every < until:
                        await asyncio.sleep(hostile_every)
                        queues[turn % clients].append(hostile[turn % len(hostile)])
                        hostile_at.append(time.perf_counter() - t0)
                        turn += 1

                turns = asyncio.get_running_loop().create_task(hostile_turns())
                checks = asyncio.get_running_loop().create_task(_health(url, health, lambda: not turns.done()))
                if attacks:  # the attacks of load_attacks.py, among the class
                    result["attack"] = attacks
                    attacking = _attacks(browser, url, until, Path(tmp), attacks, times, failed, monitor, result)
                else:
                    attacking = asyncio.sleep(0)
                await asyncio.gather(
                    attacking,
                    *(
                        _soak_session(
                            s,
                            url,
                            until,
                            random.Random(rng.random()),
                            own[s.index],
                            queues[s.index],
                            times,
                            failed,
                            refused,
                        )
                        for s in sessions
                    ),
                )
                turns.cancel()
                await checks
                result["cpu_per_session"] = (monitor.cpu() - cpu0) / clients
                result["errors"] = sum(await asyncio.gather(*(s.errors() for s in sessions)))
                result["soak_end"] = time.perf_counter() - t0
                result["rss_peak"], result["workers_peak"] = max(monitor.rss), max(monitor.workers)
                result["total_peak"] = max(r + w for r, w in zip(monitor.rss, monitor.workers))
                result["rss_end"] = monitor.rss[-1]
                await browser.close()  # the visitors leave; Streamlit drops their sessions after disconnectedSessionTTL
                await asyncio.sleep(idle_minutes * 60)
                result["rss_idle"], result["workers_idle"] = monitor.rss[-1], monitor.workers[-1]
                result["load_end"] = _load_average()
                clock.cancel()
    result.update(
        {
            "profile": "soak",
            "clients": clients,
            "minutes": minutes,
            "idle_minutes": idle_minutes,
            "times": times,
            "failed": failed,
            "refused": refused,
            "samples": samples,
            "hostile_at": hostile_at,
            "hostile_every": hostile_every,
            "health": health,
        }
    )
    return result


def rss_svg(samples: list, marks: list, soak_end: float) -> str:
    """An SVG line chart of the RSS timeline: the server, and the server with its parse workers; ticks below mark
    the hostile uploads, a line the end of the soak (the sessions close)."""
    width, height, left, bottom, top, right = 760, 320, 60, 40, 20, 20
    t_max = max(s[0] for s in samples) or 1.0
    y_max = max(s[1] + s[2] for s in samples) * 1.1 or 1.0
    step = next(v for v in (50, 100, 200, 250, 500, 1000, 2000) if y_max / v <= 8)

    def x(t):
        return left + (width - left - right) * t / t_max

    def y(mb):
        return height - bottom - (height - bottom - top) * mb / y_max

    def line(values, colour, dash=""):
        points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in values)
        return f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{points}"/>'

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="12"><rect width="{width}" height="{height}" fill="white"/>'
    ]
    for mb in range(0, int(y_max) + 1, step):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(mb):.1f}" y2="{y(mb):.1f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y(mb) + 4:.1f}" text-anchor="end">{mb}</text>'
        )
    for minute in range(0, int(t_max // 60) + 1, max(1, int(t_max // 600))):
        parts.append(f'<text x="{x(minute * 60):.1f}" y="{height - bottom + 16}" text-anchor="middle">{minute}</text>')
    parts += [
        f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{height - bottom}" y2="{height - bottom - 8}" '
        'stroke="#c0392b" stroke-width="2"/>'
        for t in marks
    ]
    parts.append(
        f'<line x1="{x(soak_end):.1f}" x2="{x(soak_end):.1f}" y1="{top}" y2="{height - bottom}" '
        'stroke="#555" stroke-dasharray="4 3"/>'
    )
    parts.append(line([(t, r + w) for t, r, w in samples], "#1f5fa8", ' stroke-dasharray="6 3"'))
    parts.append(line([(t, r) for t, r, _ in samples], "#1f5fa8"))
    parts.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle">minutes</text>'
        f'<text x="14" y="{top + 4}" >MB</text>'
        f'<text x="{left + 10}" y="{top + 14}">solid: server RSS; dashed: with its parse workers; red ticks: '
        "hostile uploads; grey line: the sessions close</text></svg>"
    )
    return "\n".join(parts) + "\n"


def _changed_limits() -> list:
    """The budgets (ui/limits.py) set in the environment, as "VARIABLE=value"."""
    import os

    sys.path.insert(0, str(ROOT))
    from ui.limits import SETTINGS

    return [f"{var}={os.environ[var]}" for var, *_ in SETTINGS if os.environ.get(var, "").strip()]


def _shown_path(path: str) -> str:
    """``path`` relative to the repository when it lies inside it (a report names no path of this machine)."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else Path(path).name


SOAK_TITLE = "Soak: a lesson with uploads and a hostile visitor"


def _hostile_lines(result: dict) -> list:
    """The hostile files' answers, the class's p95 (every action but the hostile ones) and the health check."""
    uploads = [(name, ok) for name, ok in result["refused"] if not name.endswith(".toml")]
    files = [(name, ok) for name, ok in result["refused"] if name.endswith(".toml")]
    lines = [
        f"Hostile uploads: {len(uploads)}, {sum(ok for _, ok in uploads)} answered with a message naming the file "
        f"({', '.join(sorted({name for name, _ in uploads})) or 'none'})."
    ]
    if files:
        lines.append(
            f"Hostile scenario files opened on Home: {len(files)}, {sum(ok for _, ok in files)} answered in words "
            f"(opened with notices, or refused) ({', '.join(sorted({name for name, _ in files}))})."
        )
    kept = [x[0] for kind, xs in result["times"].items() if not kind.startswith("hostile") for x in xs]
    lines.append(
        f"The class (every action but the hostile ones): {len(kept)} actions, p95 {percentile(kept, 0.95):.2f} s."
    )
    health = result.get("health")
    if health:
        answers = [h for h in health if h is not None]
        lines.append(
            f"Health check: asked {len(health)} times during the soak, {len(health) - len(answers)} not answered "
            f"within 5 s, slowest answer {max(answers, default=float('nan')):.2f} s."
        )
    return lines


def soak_report(result: dict, rss_out: str, title: str = "") -> str:
    n, minutes = result["clients"], result["minutes"]
    every = result.get("hostile_every", HOSTILE_EVERY)
    command = (
        f"python benchmarks/load.py --soak --clients {n} --minutes {minutes:g}"
        + (f" --idle-minutes {result['idle_minutes']:g}" if result["idle_minutes"] != 3 else "")
        + (f" --hostile-every {every:g}" if every != HOSTILE_EVERY else "")
        + (f' --section "{title}" --rss-out {_shown_path(rss_out)}' if title and title != SOAK_TITLE else "")
    )
    if "attack" in result:
        command += " --attack-rows {rows} --attack-cols {cols} --attack-tabs {tabs}".format(**result["attack"])
    big, failed = result["big"], result["failed"]
    lines = [
        generated_by(command),
        f"{n} sessions for {minutes:g} min on one server (the browser shares the 2 cores at nice 19), each "
        "visiting every page, moving the epsilon dial, switching the detail view and uploading a table of its "
        f"own; every {'minute' if every == 60 else f'{every:g} s'} one session in turn uploads a hostile file, then "
        f"a proper one{', or opens a hostile scenario file on Home' if result.get('health') is not None else ''}. "
        "Machine load "
        f"average (1 min, all processes): {result['load_start']:.0f} at the start, {result['load_end']:.0f} at "
        "the end.",
        "",
        f"A legitimate 2,000 x 5,000 table (46 MB CSV) uploaded first, alone: {big['seconds']:.1f} s, server "
        f"RSS {result['rss_start']:.0f} MB before, {big['peak']:.0f} MB at the peak (its parse worker "
        f"{big['workers_peak']:.0f} MB with the fork server), {big['after']:.0f} MB after; then that session "
        "uploads a class-sized table (3,000 x 13) like the others.",
        "",
        "Seconds until the server finished the runs an action caused (from the click, key press or upload), "
        "p50 / p95 / max:",
        "",
        "| action | count | p50 | p95 | max | not finished |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, xs in sorted(result["times"].items(), key=lambda item: (item[0].startswith("page"), item[0])):
        lines.append(
            f"| {kind} | {len(xs)} | "
            + " | ".join(_spread([x[0] for x in xs]))
            + f" | {sum(k == kind for k, _ in failed)} |"
        )
    lines += [
        "",
        *_hostile_lines(result),
        f"Error boxes on the pages at the end: {result['errors']}. Server CPU {result['cpu_per_session']:.1f} s per "
        "session.",
        "",
        f"Memory (RSS): server {result['rss_start']:.0f} MB at the start (its fork server and workers "
        f"{result['workers_start']:.0f} MB), ceiling {result['rss_peak']:.0f} MB (with the workers "
        f"{result['total_peak']:.0f} MB), {result['rss_end']:.0f} MB when the soak ended, "
        f"{result['rss_idle']:.0f} MB (workers {result['workers_idle']:.0f} MB) after "
        f"{result['idle_minutes']:g} min with no session. Every {SOAK_SAMPLE:.0f} s in `{_shown_path(rss_out)}`:",
        "",
        f"![Server RSS during the soak]({Path(rss_out).with_suffix('.svg').name})",
        "",
    ]
    if failed:
        lines += ["Actions that did not finish, with their cause (the driver's timeout, not an app error box):", ""]
        lines += [f"* {kind}: {cause}" for kind, cause in failed[:20]]
    else:
        lines.append("Every action finished.")
    if "attack" in result:
        import load_attacks

        cells = max(2_000 * 5_000, result["attack"]["rows"] * result["attack"]["cols"])  # big.csv, the attack's
        ceiling = load_attacks.ceiling_mb(result, cells, max(2_000, result["attack"]["cols"]))
        lines += load_attacks.report_lines(result, result["times"], ceiling)
    changed = _changed_limits()
    lines += [
        "",
        "Budgets: "
        + (
            "the defaults (section above)."
            if not changed
            else "the defaults (section above) except " + ", ".join(changed) + "."
        ),
    ]
    return "\n".join(lines) + "\n"


def write_timeline(result: dict, rss_out: str) -> None:
    rows = ["seconds,server_rss_mb,workers_rss_mb"] + [f"{t:.0f},{r:.1f},{w:.1f}" for t, r, w in result["samples"]]
    Path(rss_out).write_text("\n".join(rows) + "\n")
    Path(rss_out).with_suffix(".svg").write_text(rss_svg(result["samples"], result["hostile_at"], result["soak_end"]))
    print(f"wrote {rss_out} and its .svg")


def _spread(xs) -> list:
    """p50, p95 and max of ``xs`` as table cells ("" when there are none)."""
    if not xs:
        return ["", "", ""]
    return [f"{statistics.median(xs):.2f}", f"{percentile(xs, 0.95):.2f}", f"{max(xs):.2f}"]


def _row(phase: dict) -> str:
    xs = phase["times"]
    cells = [phase["name"], str(len(xs)), *_spread(xs), *_spread(phase["server"] or [])]
    if phase["cpu_per_session"] is not None:
        cells += [
            str(len(phase["failed"])),
            str(phase["errors"]),
            f"{phase['cpu_per_session']:.2f}",
            f"{phase['rss']:.0f}",
        ]
    elif phase["errors"] is not None:  # a browser-side row of a burst phase
        cells += ["", "", "", ""]
    return "| " + " | ".join(cells) + " |"


def report(result: dict) -> str:
    n = result["clients"]
    if result["profile"] == "burst":
        gc_on = result["options"] == POST_SCRIPT_GC
        command = (
            f"python benchmarks/load.py --clients {n} --burst --rounds {result['rounds']}"
            + (f' --link "{result["link"]}"' if result["link"] != "explore" else "")
            + (" --post-script-gc --append" if gc_on else "")
        )
        lines = [generated_by(command)]
        if gc_on:
            lines.append(
                "The same burst with Streamlit's default runner.postScriptGC = true, which "
                ".streamlit/config.toml turns off: a full garbage collection (gc.collect(2)) after every "
                "script run. With this app's imports one costs more CPU than the run itself, and it holds "
                "the GIL; a py-spy profile of the server (--gil) put 44% of its Python time there.\n"
            )
        lines += [
            f"A class arrives: {n} sessions open /{result['link']} at the same moment, then move the epsilon "
            f"dial together, {result['rounds']} times. The server and the {n} browser pages share the 2 "
            "cores; the browser runs at the lowest priority (nice 19). Seconds until the server finished the "
            "runs the action caused, p50 / p95 / max over the sessions, counted from the navigation or key "
            "press (what a visitor waits, including this overloaded browser's delay in sending it) and from "
            "the moment the page sent its request to the server. CPU: the server's CPU seconds in the phase "
            "divided by the sessions.",
            "",
            "| action | sessions | from the action: p50 | p95 | max | from the request: p50 | p95 | max | "
            "not finished | error boxes | server CPU s per session | server RSS after (MB) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [_row(p) for p in result["phases"]]
        failed = [f for p in result["phases"] for f in p["failed"]]
    else:
        command = f"python benchmarks/load.py --clients {n} --minutes {result['minutes']:g}"
        lines = [
            generated_by(command),
            f"{n} sessions for {result['minutes']:g} min, each acting on its own (1-3 s between actions), all "
            "at once, on one server (the browser shares the 2 cores at nice 19): "
            f"{result['errors']} error boxes at the end, {len(result['failed'])} actions not finished, server "
            f"CPU {result['cpu_per_session']:.1f} s per session. Seconds until the server finished the runs "
            "an action caused, from the action and from the page's request.",
            "",
            "| action | count | from the action: p50 | p95 | max | from the request: p50 | p95 | max |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [_row(p) for p in result["phases"]]
        failed = result["failed"]
    if "load_start" in result:
        lines += [
            "",
            f"Machine load average (1 min, all processes on the 2 cores, other users' included): "
            f"{result['load_start']:.0f} at the start, {result['load_end']:.0f} at the end. The server's CPU "
            "seconds per session depend little on it; the waits depend on it directly.",
        ]
    lines += [
        "",
        f"Server RSS: {result['rss_start']:.0f} MB before the sessions, {result['rss_peak']:.0f} MB at the "
        f"peak, {result['rss_end']:.0f} MB at the end ({(result['rss_peak'] - result['rss_start']) / n:.0f} "
        "MB per session at the peak).",
    ]
    if failed:
        lines += ["", "Actions that did not finish (the driver's timeout, not an app error box):", ""]
        lines += [f"* {what}" for what in sorted(set(failed))[:10]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--burst", action="store_true", help="everyone opens the link, then moves epsilon together")
    parser.add_argument("--rounds", type=int, default=3, help="burst: rounds of everyone moving epsilon")
    parser.add_argument("--link", default="explore", help="burst: the page and query the class opens")
    parser.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="steady and soak: how long the sessions act (default 5 steady, 10 soak)",
    )
    parser.add_argument(
        "--soak",
        action="store_true",
        help="a lesson with uploads and a hostile upload every minute; RSS every 10 s to --rss-out",
    )
    parser.add_argument(
        "--idle-minutes", type=float, default=3.0, help="soak: minutes watched after the sessions close"
    )
    parser.add_argument(
        "--hostile-every", type=float, default=HOSTILE_EVERY, help="soak: seconds between two hostile turns"
    )
    parser.add_argument("--section", default=SOAK_TITLE, help="soak: the section of --out the report replaces")
    parser.add_argument(
        "--rss-out",
        default=str(ROOT / "docs" / "load-soak-rss.csv"),
        help="soak: the RSS timeline (CSV; an SVG chart is written beside it)",
    )
    parser.add_argument(
        "--no-attacks", action="store_true", help="soak: without the attacks of load_attacks.py (issue 63)"
    )
    parser.add_argument("--attack-rows", type=int, default=50_000, help="soak: rows of the attack's large upload")
    parser.add_argument("--attack-cols", type=int, default=100, help="soak: columns of the attack's large upload")
    parser.add_argument("--attack-tabs", type=int, default=3, help="soak: tabs opening the reproduce link at once")
    parser.add_argument("--url", default=None, help="drive the app already running at this address instead")
    parser.add_argument(
        "--post-script-gc",
        action="store_true",
        help="burst: start the server with Streamlit's default full garbage collection after every "
        "run (the app's configuration turns it off), to measure what that costs",
    )
    parser.add_argument("--out", default=str(ROOT / "docs" / "load.md"), help="markdown file, or - to print only")
    parser.add_argument("--append", action="store_true", help="add the report to the end of --out as a section")
    args = parser.parse_args(argv)
    options = POST_SCRIPT_GC if args.post_script_gc else ()
    if args.soak:
        attacks = (
            None if args.no_attacks else {"rows": args.attack_rows, "cols": args.attack_cols, "tabs": args.attack_tabs}
        )
        result = asyncio.run(
            soak(
                args.clients,
                args.minutes or 10.0,
                args.idle_minutes,
                server=args.url,
                hostile_every=args.hostile_every,
                attacks=attacks,
            )
        )
        text = soak_report(result, args.rss_out, args.section)
        if args.out != "-":
            write_timeline(result, args.rss_out)
        publish(text, args.out, args.section, section=True)
        return
    result = (
        asyncio.run(burst(args.clients, args.rounds, args.link, args.url, options))
        if args.burst
        else asyncio.run(steady(args.clients, args.minutes or 5.0, server=args.url))
    )
    title = "Load: many sessions at once on one server"
    if args.append:
        title = "Before: a full garbage collection after every run" if options else "Another run"
    publish(report(result), args.out, title, append=args.append)


if __name__ == "__main__":
    main()

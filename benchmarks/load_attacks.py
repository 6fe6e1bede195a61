"""The soak's attacks on the server and on other visitors' files (issue 63.2, 63.4, 63.5), run among the normal
sessions of ``benchmarks/load.py --soak``:

* **a large upload explored at 8 values of R**: one visitor uploads a table (``--attack-rows`` x ``--attack-cols``),
  has each release scale its columns privately (a scenario file dropped on Home) and opens Explore at 8 values of R,
  one after the other: each value was a privately scaled input kept with no expiry (8 x 382 MB at the cell limit);
* **a reproduce link opened in several tabs**: ``reproduce?rgrid=full&rreps=50&rseed=7`` in ``--attack-tabs`` new
  sessions at once (it used to compute on opening: two tabs used 101 CPU s in two minutes); then one of them
  presses **Run live** and runs until its session's CPU budget is spent;
* **fetching another session's download**: a scripted client (no browser) reads the reproduce page's CSV in a
  session of its own, leaves, and every 10 s asks for that file by the hash of its content (the address any
  session's copy had) and by its own old address, while the class's sessions hold the same file.

Driven by :func:`run`; :func:`report_lines` gives the report's section and :func:`ceiling_mb` the memory ceiling the
budgets of ui/limits.py allow for the soak's tables.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from _app_server import ROOT

ATTACK_LINK = "reproduce?rgrid=full&rreps=50&rseed=7"
R_VALUES = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
#: seconds between two probes of another session's file
PROBE_EVERY = 10.0
DROPZONE = '[data-testid="stFileUploaderDropzoneInput"]'
#: the bytes an uploaded cell takes in the caches (ui/data.py: raw columns and their numbers, then the dataset)
UPLOAD_BYTES_PER_CELL = 24


def attack_table(folder: Path, rows: int, cols: int) -> Path:
    """A numeric table of ``rows`` x ``cols`` (CSV), every value within [-10, 10] (the public bound the attack
    declares)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(63)
    frame = pd.DataFrame(np.clip(rng.normal(size=(rows, cols)) * 3, -10, 10), columns=[f"a{j}" for j in range(cols)])
    path = folder / "attack.csv"
    frame.to_csv(path, index=False, float_format="%.3f")
    return path


def scenario_files(folder: Path, cols: int) -> list[Path]:
    """One scenario file per value of R: the uploaded table, each column scaled privately with the public bound
    10."""
    import sys

    sys.path.insert(0, str(ROOT))
    from dppca_core.scenario import to_toml
    from ui.scenario import DEFAULTS

    paths = []
    for i, R in enumerate(R_VALUES):
        vals = {
            **DEFAULTS,
            "src": "upload",
            "scale": "private",
            "bounds": ",".join(["10.0"] * cols),
            "sfrom": "public",
            "R": R,
            "rfrom": "public",
            "reps": 2,
        }
        paths.append(folder / f"attack-R{i}.toml")
        paths[-1].write_text(to_toml(vals), encoding="utf-8")
    return paths


async def _scaled_r(session, url: str, table: Path, files: list, upload, to_page, record, monitor, result) -> None:
    """The visitor who explores one upload at 8 values of R; the server's RSS before and after."""
    await record("attack: open", lambda: session.open(f"{url}/explore?seed=63"))
    await record("attack: large upload", lambda: upload(session, table))
    result["scaled_rss_before"] = monitor.rss[-1]
    for path in files:
        await to_page(session, "Home")
        dropzone = session.page.locator(DROPZONE).first
        await dropzone.wait_for(state="attached", timeout=300_000)
        await record(
            "attack: open a scenario file", lambda p=path: session.timed(lambda: dropzone.set_input_files(str(p)))
        )
        await record("attack: Explore at another R", lambda: to_page(session, "Explore"))
    result["scaled_rss_after"] = monitor.rss[-1]
    result["scaled_errors"] = await session.errors()


async def _reproduce_tabs(make_session, url: str, tabs: int, record, result) -> None:
    """Tabs opening the reproduce link at once; what each shows; then one presses Run live."""
    sessions = [await make_session(100 + i) for i in range(tabs)]
    await asyncio.gather(
        *(
            record("attack: reproduce link", lambda s=s: s.timed(lambda: s.page.goto(f"{url}/{ATTACK_LINK}")))
            for s in sessions
        )
    )
    waiting = 0
    for s in sessions:
        body = await s.page.inner_text("body")
        waiting += (
            "Nothing runs until you press" in body and not await s.page.locator('[data-testid="stProgress"]').count()
        )
    result["link_tabs"], result["link_waiting"] = tabs, waiting
    first = sessions[0]
    button = first.page.get_by_role("button", name="Run live", exact=True)
    if await button.count():
        await record("attack: Run live until the budget is spent", lambda: first.timed(lambda: button.click()))
    body = await first.page.inner_text("body")
    result["link_budget_message"] = "used its CPU time" in body
    result["link_errors"] = sum([await s.errors() for s in sessions])
    for s in sessions:
        await s.page.context.close()


async def _probes(url: str, until: float, result) -> None:
    """Another session's download asked for by its content's hash and by a left session's address, every 10 s."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.support.sessions import CSV, Session, content_address, fetch, file_name, get

    own = await Session.open(url, "reproduce")
    mine = own.downloads[CSV]
    status, data, headers = await asyncio.to_thread(get, url + mine)
    guess = await asyncio.to_thread(content_address, data, "text/csv", file_name(headers))
    await own.ws.close()
    probes = []
    while time.monotonic() + PROBE_EVERY < until:
        await asyncio.sleep(PROBE_EVERY)
        probes.append(
            ((await asyncio.to_thread(fetch, url + guess))[0], (await asyncio.to_thread(fetch, url + mine))[0])
        )
    result["probes"] = probes
    result["probe_own_status"] = status


async def run(
    browser_session,
    make_session,
    url: str,
    until: float,
    folder: Path,
    options: dict,
    helpers: dict,
    record,
    monitor,
    result,
) -> None:
    """Every attack, spread over the soak: the probes throughout, the 8 values of R after a fifth of it, the reproduce
    tabs at half of it. ``helpers``: load.py's ``upload`` and ``to_page``."""
    table = attack_table(folder, options["rows"], options["cols"])
    files = scenario_files(folder, options["cols"])
    start = time.monotonic()
    span = max(until - start, 60.0)

    async def later(fraction, coroutine):
        await asyncio.sleep(fraction * span)
        await coroutine

    await asyncio.gather(
        _probes(url, until, result),
        later(
            0.2,
            _scaled_r(
                browser_session, url, table, files, helpers["upload"], helpers["to_page"], record, monitor, result
            ),
        ),
        later(0.5, _reproduce_tabs(make_session, url, options["tabs"], record, result)),
    )
    result["attack"] = {"rows": options["rows"], "cols": options["cols"], "tabs": options["tabs"]}


def ceiling_mb(result: dict, largest_cells: int, largest_cols: int) -> float:
    """The server's memory the budgets of ui/limits.py allow for the soak's tables (MB): its RSS at the start, the
    upload caches full of the largest table, the prepared inputs of it, the privately scaled inputs of the attack's
    table, and every result cached as copies (server.maxCacheDataSize, 300 MB)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from ui import limits

    attack = result["attack"]
    scaled = min(
        limits.SCALED_CACHE_BYTES,
        limits.SCALED_CACHE_ENTRIES * limits.scaled_entry_bytes(attack["rows"], attack["cols"]),
    )
    prepared = limits.PREPARED_CACHE_ENTRIES * 8 * (largest_cells + 2 * largest_cols**2)
    uploads = limits.UPLOAD_CACHE_ENTRIES * UPLOAD_BYTES_PER_CELL * largest_cells
    return result["rss_start"] + (uploads + prepared + scaled + 300 * 10**6) / 2**20


def report_lines(result: dict, class_times: dict, ceiling: float) -> list:
    """The attacks' part of the soak's report (Markdown lines)."""
    from _app_server import percentile

    attack, probes = result["attack"], result.get("probes", [])
    everyone = [x[0] for kind, xs in class_times.items() if not kind.startswith("attack") for x in xs]
    by_content = sum(status == 200 for status, _ in probes)
    by_old = sum(own == 200 for _, own in probes)
    lines = [
        "",
        "### The attacks among the class",
        "",
        f"The class's actions (every row above that is not an attack): {len(everyone)}, p95 "
        f"{percentile(everyone, 0.95):.2f} s.",
        "",
        f"* **A large upload explored at 8 values of R** ({attack['rows']:,} x {attack['cols']} table, each column "
        "scaled privately): server RSS "
        f"{result.get('scaled_rss_before', float('nan')):.0f} MB before the 8 values, "
        f"{result.get('scaled_rss_after', float('nan')):.0f} MB after them; error boxes on that page: "
        f"{result.get('scaled_errors', 'not reached')}.",
        f"* **The reproduce link in {attack['tabs']} tabs at once** (`{ATTACK_LINK}`): "
        f"{result.get('link_waiting', 0)} of {result.get('link_tabs', attack['tabs'])} showed what a live run costs "
        "and computed nothing; one then pressed Run live: "
        + (
            "it stopped when its session's CPU budget was spent and said so"
            if result.get("link_budget_message")
            else "no budget message was shown"
        )
        + f"; error boxes: {result.get('link_errors', 'not reached')}.",
        f"* **Another session's download**: {len(probes)} probes while the class's sessions held the same file; "
        f"asked for by its content's hash, {by_content} answered 200 (the file); by the address a left session had, "
        f"{by_old}.",
        "",
        f"Memory against its ceiling: {ceiling:.0f} MB, what the budgets of ui/limits.py allow for this soak's tables "
        "(the RSS at the start, two parsed uploads and four prepared inputs of the largest table, the privately "
        "scaled inputs of the attack's table, 300 MB of results cached as copies); the server's peak "
        f"{result['rss_peak']:.0f} MB, {result['rss_idle']:.0f} MB settled after {result['idle_minutes']:g} min "
        f"with no session: {'under' if result['rss_idle'] <= ceiling else 'OVER'} the ceiling.",
    ]
    return lines

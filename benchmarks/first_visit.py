"""What does the first visit of a heavy page cost a fresh server? Measured in a real browser.

    python benchmarks/first_visit.py                          # Reproduce and Tensor, appends to docs/latency.md
    python benchmarks/first_visit.py --pages reproduce --out -
    python benchmarks/first_visit.py --warm             # a warm load of every page, one server; writes its section

For each page, starts a fresh app (headless Streamlit, no file watcher: nothing is cached yet), opens Home and
waits until the server is idle, then opens the page in Debian's Chromium through Playwright and waits until the
page shows a chart and the server has used no CPU for a second. It reports the server's CPU time and the growth
of its resident memory from the navigation to that point, and the wall time until the first chart appeared;
then it reloads the page in the same session (a warm visit: everything the first visit cached is reused) and
reports its CPU time too.

With ``--warm``, one server serves every page of the app in turn (in the navigation's order, the default scenario):
each page is visited once (filling the caches its first visit fills), then reloaded ``--reloads`` times. A reload is
a new session (the scenario comes from the address), so it runs the entry script and the page from the top with
every cache warm: what a visitor who opens a link pays once the server has served that view before. It reports the
median server CPU per reload, with its range, and the page's first visit beside it; the load average of the machine
before and after the run goes into the report.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _app_server import ROOT, app_server, cpu_seconds, generated_by, launch_chromium, publish

CHART = '[data-testid="stPlotlyChart"]'
#: every page of the app, in the navigation's order (app.py's PAGES), by its address ("" is Home, at the root)
EVERY_PAGE = {
    "home": "",
    "lesson": "lesson",
    "data": "data",
    "explore": "explore",
    "tradeoffs": "tradeoffs",
    "distributed": "distributed",
    "tensor": "tensor",
    "reproduce": "reproduce",
    "audit": "audit",
    "report": "report",
}
#: a page has been drawn once its title is there (then the server is waited on until it is idle)
TITLE = '[data-testid="stMain"] h1'


def _settle(proc, quiet: float = 1.0, timeout: float = 600.0) -> float:
    """Wait until the server has used (almost) no CPU for ``quiet`` seconds; return its CPU time when that quiet
    second began (what the work cost, without the idle second that shows it is over)."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(proc)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(proc)
        if now - last < 0.02 * quiet:
            return last
        last = now
    raise RuntimeError("the server did not become idle")


def visit(page_path: str) -> dict:
    from playwright.sync_api import sync_playwright

    with app_server() as (url, proc):
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(url)
            page.wait_for_selector('[data-testid="stSidebar"]', timeout=120_000)
            _settle(proc)
            cpu0, rss0, t0 = cpu_seconds(proc), proc.memory_info().rss, time.monotonic()
            page.goto(f"{url}/{page_path}")
            page.wait_for_selector(CHART, timeout=600_000)
            shown = time.monotonic() - t0
            _settle(proc)
            cold = {"cpu": cpu_seconds(proc) - cpu0, "rss_mb": (proc.memory_info().rss - rss0) / 2**20, "shown": shown}
            cpu1 = cpu_seconds(proc)
            page.reload()
            page.wait_for_selector(CHART, timeout=600_000)
            _settle(proc)
            cold["warm_cpu"] = cpu_seconds(proc) - cpu1
            browser.close()
    return cold


def warm_loads(pages: dict, reloads: int) -> dict:
    """{page: {"first": server CPU of its first visit, "warm": [server CPU of each reload]}}, every page served by one
    server (the caches one page fills, another may use, as for a real visitor walking through the app)."""
    from playwright.sync_api import sync_playwright

    out = {}
    with app_server() as (url, proc):
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(url)
            page.wait_for_selector(TITLE, timeout=120_000)
            _settle(proc)
            for name, path in pages.items():
                cpu0 = cpu_seconds(proc)
                page.goto(f"{url}/{path}")
                page.wait_for_selector(TITLE, timeout=600_000)
                first = _settle(proc) - cpu0
                warm = []
                for _ in range(reloads):
                    cpu0 = cpu_seconds(proc)
                    page.reload()
                    page.wait_for_selector(TITLE, timeout=600_000)
                    warm.append(_settle(proc) - cpu0)
                out[name] = {"first": first, "warm": warm}
                print(f"{name}: first visit {first:.2f} s, reloads {' '.join(f'{w:.2f}' for w in warm)}", flush=True)
            browser.close()
    return out


def warm_report(results: dict, command: str, load: tuple) -> str:
    target = 0.4
    lines = [
        generated_by(command),
        "One server (headless, no file watcher) serves every page in turn, the default scenario, in headless "
        "Chromium on the same 2 cores: each page is visited once, then reloaded; a reload is a new session that "
        "runs the entry script and the page from the top with the server's caches warm. Server CPU per load, "
        "counted from the navigation until the server is idle (the idle second that shows it is over not "
        f"counted). Target: under {target} CPU s on every page. Load average of the machine (1 min): "
        f"{load[0]:.1f} before the run, {load[1]:.1f} after.",
        "",
        "| page | warm load: server CPU (s), median | range | first visit (s) |",
        "|---|---:|---:|---:|",
    ]
    for name, r in results.items():
        med = statistics.median(r["warm"])
        mark = "" if med < target else " (over)"
        lines.append(f"| {name} | {med:.3f}{mark} | {min(r['warm']):.3f}–{max(r['warm']):.3f} | {r['first']:.2f} |")
    return "\n".join(lines) + "\n"


def report(results: dict, command: str) -> str:
    lines = [
        generated_by(command),
        "A fresh server (nothing cached), Home opened first; then the page, in headless Chromium on the same "
        "2 cores. CPU and memory are the server process's, from the navigation until it is idle; 'first chart' "
        "is the wall time until a chart is on the page; 'warm' is a reload of the same page afterwards.",
        "",
        "| page | first visit: server CPU (s) | first visit: memory growth (MB) | first chart (s) | warm reload: "
        "server CPU (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        lines.append(f"| {name} | {r['cpu']:.2f} | {r['rss_mb']:.0f} | {r['shown']:.1f} | {r['warm_cpu']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--pages",
        nargs="+",
        default=None,
        help="pages to measure (default: reproduce and tensor; with --warm, every page)",
    )
    parser.add_argument(
        "--out",
        default=str(ROOT / "docs" / "latency.md"),
        help="markdown file to append a section to, or - to print only",
    )
    parser.add_argument("--warm", action="store_true", help="a warm load of every page instead (one server)")
    parser.add_argument("--reloads", type=int, default=5, help="with --warm: reloads per page (default 5)")
    args = parser.parse_args(argv)
    if args.warm:
        pages = EVERY_PAGE if args.pages is None else {p: EVERY_PAGE[p] for p in args.pages}
        before = os.getloadavg()[0]
        results = warm_loads(pages, args.reloads)
        command = (
            "python benchmarks/first_visit.py --warm"
            + (f" --reloads {args.reloads}" if args.reloads != 5 else "")
            + (f" --pages {' '.join(args.pages)}" if args.pages else "")
        )
        publish(
            warm_report(results, command, (before, os.getloadavg()[0])),
            args.out,
            "Warm loads of every page",
            section=True,
        )
        return
    args.pages = args.pages or ["reproduce", "tensor"]
    results = {name: visit(name) for name in args.pages}
    command = "python benchmarks/first_visit.py" + (
        f" --pages {' '.join(args.pages)}" if args.pages != ["reproduce", "tensor"] else ""
    )
    publish(report(results, command), args.out, "First visits of the heavy pages", append=True)


if __name__ == "__main__":
    main()

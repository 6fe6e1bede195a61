"""What does the first visit of a heavy page cost a fresh server? Measured in a real browser.

    python benchmarks/first_visit.py                          # Reproduce and Tensor, appends to docs/latency.md
    python benchmarks/first_visit.py --pages reproduce --out -

For each page, starts a fresh app (headless Streamlit, no file watcher: nothing is cached yet), opens Home and
waits until the server is idle, then opens the page in Debian's Chromium through Playwright and waits until the
page shows a chart and the server has used no CPU for a second. It reports the server's CPU time and the growth
of its resident memory from the navigation to that point, and the wall time until the first chart appeared;
then it reloads the page in the same session (a warm visit: everything the first visit cached is reused) and
reports its CPU time too.
"""
from __future__ import annotations

import argparse
import time

from _app_server import ROOT, app_server, cpu_seconds, generated_by, launch_chromium, publish

CHART = '[data-testid="stPlotlyChart"]'


def _settle(proc, quiet: float = 1.0, timeout: float = 600.0) -> None:
    """Wait until the server has used (almost) no CPU for ``quiet`` seconds."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(proc)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(proc)
        if now - last < 0.02 * quiet:
            return
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
            cold = {"cpu": cpu_seconds(proc) - cpu0, "rss_mb": (proc.memory_info().rss - rss0) / 2**20,
                    "shown": shown}
            cpu1 = cpu_seconds(proc)
            page.reload()
            page.wait_for_selector(CHART, timeout=600_000)
            _settle(proc)
            cold["warm_cpu"] = cpu_seconds(proc) - cpu1
            browser.close()
    return cold


def report(results: dict, command: str) -> str:
    lines = [generated_by(command),
             "A fresh server (nothing cached), Home opened first; then the page, in headless Chromium on the same "
             "2 cores. CPU and memory are the server process's, from the navigation until it is idle; 'first chart' "
             "is the wall time until a chart is on the page; 'warm' is a reload of the same page afterwards.", "",
             "| page | first visit: server CPU (s) | first visit: memory growth (MB) | first chart (s) | warm reload: "
             "server CPU (s) |", "|---|---:|---:|---:|---:|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['cpu']:.2f} | {r['rss_mb']:.0f} | {r['shown']:.1f} | {r['warm_cpu']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="+", default=["reproduce", "tensor"])
    parser.add_argument("--out", default=str(ROOT / "docs" / "latency.md"),
                        help="markdown file to append a section to, or - to print only")
    args = parser.parse_args(argv)
    results = {name: visit(name) for name in args.pages}
    command = "python benchmarks/first_visit.py" + (f" --pages {' '.join(args.pages)}"
                                                    if args.pages != ["reproduce", "tensor"] else "")
    publish(report(results, command), args.out, "First visits of the heavy pages", append=True)


if __name__ == "__main__":
    main()

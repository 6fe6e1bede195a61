"""Many users at once: N browser sessions on one server for M minutes. Errors, rerun latency, server memory.

    python benchmarks/load.py --clients 8 --minutes 5          # writes docs/load.md
    python benchmarks/load.py --clients 2 --minutes 1 --out -  # quick look, print only

Starts the app (headless Streamlit, no file watcher) and N sessions in Debian's Chromium through Playwright
(one browser, one context per session: separate cookies and sessions). Each session opens a page of a random
scenario and then, in turn, moves the epsilon dial on Explore, switches the detail view, or opens another page.
For each action it records the time until the run finishes (the status widget stops saying "Running") and
whether an error or exception box shows. Every few seconds it samples the server's resident memory (RSS).
The browser shares the 2 cores with the server, so the figures are pessimistic.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from _app_server import ROOT, app_server, generated_by, launch_chromium, percentile, publish, running

SCENARIOS = ["", "mechs=analyze_gauss,ppca_exponential&k=2", "src=sample:wine&R=2000&mechs=analyze_gauss",
             "mechs=cape_pca,dist_conventional&n=5000", "view=risk", "center=private&beig=0.2&bscores=0.1"]
VIEWS = ["Spread", "Loadings", "Privacy risk", "Principal angles"]
PAGES = ["Explore", "Data", "Report", "Home"]


def _settle(page, timeout=120.0) -> float:
    start = time.perf_counter()
    page.wait_for_timeout(60)
    while running(page) and time.perf_counter() - start < timeout:
        page.wait_for_timeout(25)
    return time.perf_counter() - start


def _errors(page) -> int:
    return page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]').count()


def _act(page, rng) -> tuple[str, float]:
    """One user action; returns (what, seconds until the run finished)."""
    title = page.locator("h1").first.inner_text().strip() if page.locator("h1").count() else ""
    on_explore = title == "Explore"  # exact: Home's heading "DP-PCA Explorer" contains the word too
    choice = rng.random()
    t0 = time.perf_counter()
    if on_explore and choice < 0.6:
        thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
        thumb.focus()
        thumb.press(rng.choice(["ArrowRight", "ArrowLeft"]))
        return "epsilon", time.perf_counter() - t0 + _settle(page)
    if on_explore and choice < 0.8:
        page.locator('[data-testid="stButtonGroup"] button', has_text=rng.choice(VIEWS)).first.click(timeout=20_000)
        return "view", time.perf_counter() - t0 + _settle(page)
    target = rng.choice(PAGES)
    page.locator('[data-testid="stSidebarNavLink"]', has_text=target).first.click(timeout=20_000)
    page.wait_for_timeout(100)
    return "page", time.perf_counter() - t0 + _settle(page)


def run(clients: int, minutes: float, seed: int = 0) -> dict:
    from playwright.sync_api import sync_playwright

    rng = random.Random(seed)
    times: dict = {"epsilon": [], "view": [], "page": [], "load": []}
    errors, rss, stuck = 0, [], []
    with app_server() as (url, proc):
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            pages = []
            for i in range(clients):
                page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
                t0 = time.perf_counter()
                page.goto(f"{url}/explore?{rng.choice(SCENARIOS)}&seed={i}")
                page.wait_for_selector("h1", timeout=180_000)
                times["load"].append(time.perf_counter() - t0 + _settle(page))
                pages.append(page)
            start = time.monotonic()
            next_sample = start
            while time.monotonic() - start < minutes * 60:
                for page in pages:  # round robin: every session acts in turn
                    try:
                        what, seconds = _act(page, rng)
                    except Exception as exc:  # noqa: BLE001 - a stuck page is a result, not a crash
                        stuck.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
                        continue
                    times[what].append(seconds)
                    errors += _errors(page)
                    if time.monotonic() >= next_sample:
                        rss.append((time.monotonic() - start, proc.memory_info().rss / 2**20))
                        next_sample += 10
            browser.close()
    return {"clients": clients, "minutes": minutes, "times": times, "errors": errors, "rss": rss, "stuck": stuck}


def report(result: dict) -> str:
    lines = [generated_by(f"python benchmarks/load.py --clients {result['clients']} --minutes {result['minutes']:g}"),
             f"{result['clients']} sessions for {result['minutes']:g} min on one server (the browser shares the 2 "
             f"cores): {sum(len(v) for v in result['times'].values())} actions, {result['errors']} error boxes, "
             f"{len(result['stuck'])} actions the driver could not complete.",
             "", "| action | count | p50 (s) | p95 (s) |", "|---|---:|---:|---:|"]
    for what, xs in result["times"].items():
        lines.append(f"| {what} | {len(xs)} | {statistics.median(xs) if xs else float('nan'):.2f} | "
                     f"{percentile(xs, 0.95):.2f} |")
    if result["stuck"]:
        lines += ["", "Actions the driver could not complete (a locator timed out; not an app error box):", ""]
        lines += [f"* {count} x {what}" for what, count in Counter(result["stuck"]).most_common()]
    if result["rss"]:
        warm = [m for t, m in result["rss"] if t >= 60] or [m for _, m in result["rss"]]
        lines += ["", f"Server RSS: {result['rss'][0][1]:.0f} MB at the start, {min(warm):.0f}-{max(warm):.0f} MB "
                      f"after the first minute, {result['rss'][-1][1]:.0f} MB at the end.",
                  "", "| minute | RSS (MB) |", "|---:|---:|"]
        lines += [f"| {t / 60:.1f} | {m:.0f} |" for t, m in result["rss"][::3]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "load.md"), help="markdown file, or - to print only")
    args = parser.parse_args(argv)
    publish(report(run(args.clients, args.minutes)), args.out, "Load: many sessions on one server")


if __name__ == "__main__":
    main()

"""How fast does a number change after the epsilon dial moves? Measured in a real browser.

    python benchmarks/browser_latency.py            # 12 moves on the default Explore scenario
    python benchmarks/browser_latency.py --moves 30 --query "mechs=analyze_gauss&view=risk"

Starts the app (headless Streamlit) and Debian's Chromium through Playwright, opens /explore, then moves the
epsilon slider one step at a time with the keyboard. For each move it records, in the page's own clock
(performance.now), the time from the key press to the first change of the first metric card, and to the end
of the run (the status widget stops saying "Running"). Prints the median and the 90th percentile of both, and
the server process's CPU time per move. Target: a new number within 0.5 s of the move on the default scenario.
"""
from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

WATCH = """() => {
  window.__changes = [];
  const first = () => { const m = document.querySelector('[data-testid="stMetricValue"]'); return m ? m.innerText : ''; };
  let last = first();
  new MutationObserver(() => { const v = first(); if (v !== last) { last = v; window.__changes.push(performance.now()); } })
    .observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _running(page) -> bool:
    return page.evaluate("""() => { const s = document.querySelector('[data-testid="stStatusWidget"]');
                                    return !!s && s.innerText.includes('Running'); }""")


def measure(moves: int, query: str) -> dict:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--browser.gatherUsageStats", "false",
                               "--server.fileWatcherType", "none"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        proc = psutil.Process(server.pid)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(f"{url}/explore?{query}")
            page.wait_for_selector('[data-testid="stMetricValue"]', timeout=120_000)
            page.wait_for_timeout(1500)
            thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
            thumb.focus()
            page.evaluate(WATCH)
            first, idle, cpu = [], [], []
            for i in range(moves):
                key = "ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft"
                page.evaluate("window.__changes = []")
                cpu0 = proc.cpu_times()
                t0 = page.evaluate("performance.now()")
                thumb.press(key)
                page.wait_for_function("() => window.__changes.length > 0", timeout=60_000)
                first.append((page.evaluate("window.__changes[0]") - t0) / 1000)
                page.wait_for_timeout(50)
                while _running(page):
                    page.wait_for_timeout(20)
                idle.append((page.evaluate("performance.now()") - t0) / 1000)
                cpu1 = proc.cpu_times()
                cpu.append((cpu1.user + cpu1.system) - (cpu0.user + cpu0.system))
                page.wait_for_timeout(300)
            browser.close()
    finally:
        server.terminate()
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    return {"moves": moves, "first_median": statistics.median(first), "first_p90": q(first, 0.9),
            "idle_median": statistics.median(idle), "idle_p90": q(idle, 0.9), "cpu_median": statistics.median(cpu)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--query", default="", help="scenario query string (default: the app's default scenario)")
    args = parser.parse_args(argv)
    r = measure(args.moves, args.query)
    print(f"epsilon dial on /explore?{args.query} ({r['moves']} moves, browser-timed)")
    print("| measure | median (s) | 90th percentile (s) |\n|---|---:|---:|")
    print(f"| key press -> first new number | {r['first_median']:.3f} | {r['first_p90']:.3f} |")
    print(f"| key press -> run finished | {r['idle_median']:.3f} | {r['idle_p90']:.3f} |")
    print(f"server CPU per move (median): {r['cpu_median']:.3f} s")


if __name__ == "__main__":
    main()

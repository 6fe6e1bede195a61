"""How fast does a number change after the epsilon dial moves? Measured in a real browser.

    python benchmarks/browser_latency.py            # 12 moves on the default Explore scenario, writes docs/latency.md
    python benchmarks/browser_latency.py --moves 30 --query "mechs=analyze_gauss&view=risk" --out -

Starts the app (headless Streamlit) and Debian's Chromium through Playwright, opens /explore, then moves the
epsilon slider one step at a time with the keyboard. For each move it records, in the page's own clock
(performance.now), the time from the key press to the first change of the first metric card, and to the end
of the run (the status widget stops saying "Running"). Prints the median and the 90th percentile of both, and
the server process's CPU time per move. Target: a new number within 0.5 s of the move on the default scenario.
"""
from __future__ import annotations

import argparse
import statistics

from _app_server import ROOT, app_server, cpu_seconds, generated_by, launch_chromium, percentile, publish, running

WATCH = """() => {
  window.__changes = [];
  const first = () => { const m = document.querySelector('[data-testid="stMetricValue"]'); return m ? m.innerText : ''; };
  let last = first();
  new MutationObserver(() => { const v = first(); if (v !== last) { last = v; window.__changes.push(performance.now()); } })
    .observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def measure(moves: int, query: str) -> dict:
    from playwright.sync_api import sync_playwright

    with app_server() as (url, proc):
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
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
                cpu0 = cpu_seconds(proc)
                t0 = page.evaluate("performance.now()")
                thumb.press(key)
                page.wait_for_function("() => window.__changes.length > 0", timeout=60_000)
                first.append((page.evaluate("window.__changes[0]") - t0) / 1000)
                page.wait_for_timeout(50)
                while running(page):
                    page.wait_for_timeout(20)
                idle.append((page.evaluate("performance.now()") - t0) / 1000)
                cpu.append(cpu_seconds(proc) - cpu0)
                page.wait_for_timeout(300)
            browser.close()
    return {"moves": moves, "first_median": statistics.median(first), "first_p90": percentile(first, 0.9),
            "idle_median": statistics.median(idle), "idle_p90": percentile(idle, 0.9),
            "cpu_median": statistics.median(cpu)}


def report(r: dict, query: str) -> str:
    return "\n".join([
        generated_by(f"python benchmarks/browser_latency.py --moves {r['moves']}"
                     + (f' --query "{query}"' if query else "")),
        f"Epsilon dial on /explore?{query} ({r['moves']} moves, timed in the browser's own clock; the browser and "
        "the server share the 2 cores). Target: a new number within 0.5 s of the move.", "",
        "| measure | median (s) | 90th percentile (s) |", "|---|---:|---:|",
        f"| key press -> first new number | {r['first_median']:.3f} | {r['first_p90']:.3f} |",
        f"| key press -> run finished | {r['idle_median']:.3f} | {r['idle_p90']:.3f} |", "",
        f"Server CPU per move (median): {r['cpu_median']:.3f} s.", ""])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--query", default="", help="scenario query string (default: the app's default scenario)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "latency.md"), help="markdown file, or - to print only")
    args = parser.parse_args(argv)
    publish(report(measure(args.moves, args.query), args.query), args.out,
            "Latency: the epsilon dial in a real browser")


if __name__ == "__main__":
    main()

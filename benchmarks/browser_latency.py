"""How fast does a number change after the epsilon dial moves? Measured in a real browser.

    python benchmarks/browser_latency.py            # 12 moves on the default Explore scenario, writes docs/latency.md
    python benchmarks/browser_latency.py --moves 30 --query "mechs=analyze_gauss&view=risk" --out -
    python benchmarks/browser_latency.py --page report --moves 20 --out -   # the Report page: CPU and memory only

Starts the app (headless Streamlit) and Debian's Chromium through Playwright, opens /explore, then moves the
epsilon slider one step at a time with the keyboard. For each move it records, in the page's own clock
(performance.now), the time from the key press to the first change of the first metric card, and to the end
of the run (the app root's script state, which Streamlit sets on every run, turns back to "notRunning"). Prints the median and the 90th percentile of both, and
the server process's CPU time per move. Target: a new number within 0.5 s of the move on the default scenario.

With ``--page`` another page (e.g. report, which has no metric card) is measured the same way, from the key press to
the end of its run; every page's report adds the server's resident memory (RSS) before the first and after the last
move, so that memory a rerun keeps shows up. ``--press KEY`` also presses a download button after every move (e.g.
download_html, the Report's HTML record), so that memory a build keeps shows up.
"""

from __future__ import annotations

import argparse
import statistics

from _app_server import ROOT, app_server, cpu_seconds, generated_by, launch_chromium, percentile, publish

WATCH = """() => {
  window.__changes = [];
  const first = () => { const m = document.querySelector('[data-testid="stMetricValue"]'); return m ? m.innerText : ''; };
  let last = first();
  new MutationObserver(() => { const v = first(); if (v !== last) { last = v; window.__changes.push(performance.now()); } })
    .observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

#: Streamlit marks its app root with the script's state on every run ("running", then "notRunning"); the observer
#: records, in the page's clock, each time a run ends, so that a run too short to show the status widget is timed too.
RUN_ENDS = """() => {
  window.__runEnds = [];
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => { if (app.getAttribute('data-test-script-state') === 'notRunning')
                                 window.__runEnds.push(performance.now()); })
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


def measure(moves: int, query: str, page_name: str = "explore", press: str = "") -> dict:
    from playwright.sync_api import sync_playwright

    with app_server() as (url, proc):
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
            page.goto(f"{url}/{page_name}?{query}")
            metric = page_name == "explore"  # only Explore has the metric card whose first change is timed
            page.wait_for_selector('[data-testid="stMetricValue"]' if metric else "h1", timeout=120_000)
            page.wait_for_timeout(1500)
            page.wait_for_selector(IDLE, state="attached", timeout=240_000)
            thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
            thumb.wait_for(timeout=240_000)
            thumb.focus()
            page.evaluate(WATCH)
            page.evaluate(RUN_ENDS)
            first, idle, cpu = [], [], []
            rss_before = proc.memory_info().rss
            for i in range(moves):
                key = "ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft"
                page.evaluate("window.__changes = []; window.__runEnds = []")
                cpu0 = cpu_seconds(proc)
                t0 = page.evaluate("performance.now()")
                thumb.press(key)
                if metric:
                    page.wait_for_function("() => window.__changes.length > 0", timeout=60_000)
                    first.append((page.evaluate("window.__changes[0]") - t0) / 1000)
                page.wait_for_function("() => window.__runEnds.length > 0", timeout=120_000)  # the move's run ended
                idle.append((page.evaluate("window.__runEnds[0]") - t0) / 1000)
                cpu.append(cpu_seconds(proc) - cpu0)
                if press:  # build a download after the move (its CPU is not counted in the move's)
                    with page.expect_download(timeout=240_000) as got:
                        page.locator(f".st-key-{press} button").first.click()
                    got.value.path()  # wait until the whole file has arrived
                    thumb.focus()
                page.wait_for_timeout(300)
            rss_after = proc.memory_info().rss
            browser.close()
    return {
        "moves": moves,
        "page": page_name,
        "press": press,
        "first_median": statistics.median(first) if first else None,
        "first_p90": percentile(first, 0.9) if first else None,
        "idle_median": statistics.median(idle),
        "idle_p90": percentile(idle, 0.9),
        "cpu_median": statistics.median(cpu),
        "rss_before": rss_before / 2**20,
        "rss_after": rss_after / 2**20,
    }


def report(r: dict, query: str) -> str:
    page = r.get("page", "explore")
    first = (
        [f"| key press -> first new number | {r['first_median']:.3f} | {r['first_p90']:.3f} |"]
        if r.get("first_median") is not None
        else []
    )
    return "\n".join(
        [
            generated_by(
                f"python benchmarks/browser_latency.py --moves {r['moves']}"
                + (f" --page {page}" if page != "explore" else "")
                + (f' --query "{query}"' if query else "")
                + (f" --press {r['press']}" if r.get("press") else "")
            ),
            f"Epsilon dial on /{page}?{query} ({r['moves']} moves, timed in the browser's own clock; the browser and "
            "the server share the 2 cores). Target: a new number within 0.5 s of the move.",
            "",
            "| measure | median (s) | 90th percentile (s) |",
            "|---|---:|---:|",
            *first,
            f"| key press -> run finished | {r['idle_median']:.3f} | {r['idle_p90']:.3f} |",
            "",
            f"Server CPU per move (median): {r['cpu_median']:.3f} s. Server memory (RSS): {r['rss_before']:.0f} MB before "
            f"the first move, {r['rss_after']:.0f} MB after the last"
            + (f" (the download button {r['press']} pressed after every move)." if r.get("press") else "."),
            "",
        ]
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--query", default="", help="scenario query string (default: the app's default scenario)")
    parser.add_argument("--page", default="explore", help="the page to measure (default: explore)")
    parser.add_argument("--append", action="store_true", help="add the report to the end of --out")
    parser.add_argument(
        "--press",
        default="",
        help="the key of a download button to press after every move "
        "(e.g. download_html on the report page): memory after builds",
    )
    parser.add_argument("--out", default=str(ROOT / "docs" / "latency.md"), help="markdown file, or - to print only")
    args = parser.parse_args(argv)
    title = (
        "Latency: the epsilon dial in a real browser"
        if args.page == "explore"
        else f"The epsilon dial on the {args.page.capitalize()} page"
    )
    publish(
        report(measure(args.moves, args.query, args.page, args.press), args.query), args.out, title, append=args.append
    )


if __name__ == "__main__":
    main()

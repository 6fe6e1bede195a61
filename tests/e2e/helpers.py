"""Reading and driving the Streamlit page in the browser (selectors of Streamlit's own test ids)."""

import os
import urllib.parse
from pathlib import Path

from ui.page_titles import PAGE_TITLES

ROOT = Path(__file__).resolve().parents[2]
#: where screenshots go: those of a failing step (failed_*.png) to an ignored folder, unless DPPCA_SCREENSHOTS names
#: another (docs/screenshots to refresh the docs' pictures)
SHOTS = ROOT / os.environ.get("DPPCA_SCREENSHOTS", "artifacts/screenshots")
#: the docs' pictures (docs/screenshots/, docs/README.md) are taken only when DPPCA_SCREENSHOTS names their folder: no
#: test reads them, and each costs Chromium a drawing of the page (a full page: all of it) and a PNG
TAKE_SHOTS = bool(os.environ.get("DPPCA_SCREENSHOTS"))


def shoot(target, name: str, **options) -> None:
    """Save a picture of ``target`` (a page or an element; ``options`` of Playwright's ``screenshot``, e.g.
    ``full_page=True``) as ``SHOTS/name``, when :data:`TAKE_SHOTS`."""
    if TAKE_SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(SHOTS / name), **options)


def eventually(page, check, timeout: float = 60.0):
    """``check()`` (which asserts) retried every 250 ms until it passes or ``timeout`` seconds have gone, then once
    more with its own failure: a rerun the page has not started or finished yet (a busy machine: the status widget
    shows late, old elements stay until the new run replaces them) is waited for, not read half-way."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return check()
        except (AssertionError, IndexError, KeyError):  # a widget or a value not drawn yet
            page.wait_for_timeout(250)
    return check()


#: Streamlit's own record of its run on the app's root element (the attributes its end-to-end tests wait on): the
#: page is connected and no script run is going on or asked for
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"]' '[data-test-script-state="notRunning"]'


#: the app's root element while a script run goes on or is asked for
BUSY = '[data-testid="stApp"]:is([data-test-script-state="running"], [data-test-script-state="rerunRequested"])'
#: resolves once the browser has drawn two frames (what the last run sent is on the screen)
DRAWN = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def settle(page, timeout=60_000):
    """Wait until the app has finished its script run. A rerun asked by the action just taken may not have reached
    the server yet (the page still says "not running" for a moment): the run is waited for as it starts, for up to
    200 ms (an action that asks no rerun costs that wait), then until the app is idle, then until the browser has
    drawn what the run sent last."""
    from playwright.sync_api import TimeoutError as NoRun

    try:
        page.wait_for_selector(BUSY, state="attached", timeout=200)
    except NoRun:  # no run started, or it ended already
        pass
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)
    page.evaluate(DRAWN)


#: every page of the app, by its address, in the app's order
PAGES = tuple(PAGE_TITLES)
#: pages that draw a figure: a visit waits for it, so checks see the page as a user does
FIGURE_PAGES = ("lesson", "data", "explore", "tradeoffs", "distributed", "tensor", "reproduce")


def open_page(page, server: str, name: str, query_string: str = "") -> None:
    """Open a page by its address and wait until it is drawn: its heading, its figure if it has one, no run left."""
    page.goto(f"{server}/{name}" + (f"?{query_string}" if query_string else ""))
    page.wait_for_selector(".st-key-presenter_bar" if "present=true" in query_string else "h1", timeout=60_000)
    if name in FIGURE_PAGES:
        page.wait_for_selector(".js-plotly-plot", timeout=240_000)
    settle(page, timeout=240_000)


def every_page(page, server: str, present: bool = False, start=None):
    """Yield each page of :data:`PAGES` once it is drawn, visited as a user moves through the app: the first opened
    by its address (or by ``start(page)``, which leaves the tab on Home in the mode asked, e.g. after an upload:
    :func:`upload_then_home`), each next one reached without reloading the app (a sidebar link, or in presenter mode
    the bar's "next page" button), so the browser boots the app once and not once per page (a load costs Chromium
    about 1.5 CPU s more than a move on this machine)."""
    for number, name in enumerate(PAGES, start=1):
        if number == 1 and start is not None:
            start(page)
        elif number == 1:
            open_page(page, server, name, "present=true" if present else "")
        else:
            if present:
                bar = page.locator(".st-key-presenter_bar")
                bar.get_by_role("button", name="next page ▶", exact=True).click(timeout=60_000)
                page.wait_for_function(
                    "t => { const b = document.querySelector('.st-key-presenter_bar');"
                    " return b && b.innerText.includes(t); }",
                    arg=f"page {number} of {len(PAGES)}",
                    timeout=120_000,
                )
                settle(page, timeout=240_000)
            else:
                go_to(page, PAGE_TITLES[name])
            if name in FIGURE_PAGES:
                page.wait_for_selector(".js-plotly-plot", timeout=240_000)
                settle(page, timeout=240_000)
            path = page.evaluate("location.pathname")
            assert path.rstrip("/").endswith(f"/{name}"), (name, path)  # the address follows the move
        yield name


#: axe-core's rules for WCAG 2.1 levels A and AA (the standard the app is held to), not its best-practice advice:
#: a third less work per page than every rule
WCAG_21_AA = {
    "resultTypes": ["violations"],
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
}


def axe_violations(page) -> list[str]:
    """Serious and critical WCAG 2.1 A and AA violations axe-core finds on the page as it is drawn now."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options=WCAG_21_AA).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


#: the error box a retracted mechanism's results carry on purpose (a walk that compares one expects it)
RETRACTED_BOX = "This mechanism's privacy claim is false"


def assert_no_error(page, name, allowed: tuple = ()):
    """No traceback, no exception box and no error message on the page, except those that say one of ``allowed``
    (e.g. :data:`RETRACTED_BOX` beside a retracted mechanism's results)."""
    body = page.inner_text("body")
    assert "Traceback" not in body, f"{name}: a traceback reached the page"
    assert page.locator('[data-testid="stException"]').count() == 0, f"{name}: an exception box is shown"
    errors = [e for e in page.locator('[data-testid="stAlertContentError"]').all_inner_texts()]
    errors = [e for e in errors if not any(phrase in e for phrase in allowed)]
    assert not errors, f"{name}: an error message is shown: {errors[0]}"


#: a metric card's number
METRIC = '[data-testid="stMetricValue"]'


def metric_values(page):
    return page.locator(METRIC).all_inner_texts()


def wait_metrics(page, timeout=60_000):
    page.wait_for_selector(METRIC, timeout=timeout)
    settle(page)


def wait_first_metric_changes(page, before: str, timeout=60_000) -> None:
    """Wait until the page's first metric card shows another number than ``before`` (a rerun after a move of a
    control has landed), then until the run is over. A number: in a full run under load the first card was once
    read while the rerun had replaced the page's cards only in part (the guarantee card's "not run" first)."""
    page.wait_for_function(
        "before => { const v = [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')].map(e => e.innerText);"
        " return v.length > 0 && v[0] !== before && Number.isFinite(parseFloat(v[0])); }",
        arg=before,
        timeout=timeout,
    )
    settle(page)


def query(page) -> dict:
    return {k: v[0] for k, v in urllib.parse.parse_qs(page.evaluate("location.search").lstrip("?")).items()}


def slider_values(page):
    """Displayed values of the sidebar's sliders (epsilon first, then delta), once they are drawn."""
    page.wait_for_function(
        """() => document.querySelectorAll(
        '[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').length >= 2""",
        timeout=60_000,
    )
    return page.locator('[data-testid="stSidebar"] [data-testid="stSliderThumbValue"]').all_inner_texts()


def sidebar_numbers(page):
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stNumberInput"] input', timeout=60_000)
    return [
        i.input_value() for i in page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"] input').all()
    ]


def sidebar_mechanisms(page) -> str:
    return page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').first.inner_text()


HEADINGS = {"Home": "DP-PCA Explorer"}


def go_to(page, title: str):
    """Click a page in the sidebar navigation, as a user does, and wait for it to be drawn with its address."""
    try:
        page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first.click(timeout=10_000)
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"failed_go_to_{title}.png"))
        print(page.evaluate("[...document.querySelectorAll('[inert]')].map(e=>e.outerHTML.slice(0,300))"))
        raise
    heading = HEADINGS.get(title, title)
    page.wait_for_function(
        f"() => document.querySelector('h1') && document.querySelector('h1').innerText.includes({heading!r})",
        timeout=60_000,
    )
    settle(page)


#: Text elements whose content must never be cut with an ellipsis or clipped: buttons, metric labels, widget labels,
#: the mechanism chips of a multiselect, the value a select box shows.
TRUNCATED = """() => [...document.querySelectorAll(
    'button, [data-testid="stMetricLabel"] p, .stMarkdownEllipsis, [data-testid="stWidgetLabel"] p, [data-tag] > span, '
    + '[data-testid="stSelectbox"] input[role="combobox"]')]
    .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText || e.value)"""

#: Chart labels drawn over one another, per chart: a legend over tick labels, axis titles or the title; the title
#: over an axis title (a long rotated title runs up into it); an axis title over its own tick labels.
COVERED = """() => {
  const out = [];
  const overlap = (a, b) => !(a.right <= b.left + 1 || a.left >= b.right - 1 || a.bottom <= b.top + 1
                              || a.top >= b.bottom - 1);
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const boxes = sel => [...gd.querySelectorAll(sel)].map(e => [e.textContent, e.getBoundingClientRect()])
                                                       .filter(([t, r]) => r.width > 0 && t.trim());
    const legend = gd.querySelector('.legend');
    const pairs = [['.gtitle', '.g-xtitle text, .g-ytitle text'], ['.g-ytitle text', '.ytick text'],
                   ['.g-xtitle text', '.xtick text']];
    for (const [first, second] of pairs)
      for (const [ta, a] of boxes(first)) for (const [tb, b] of boxes(second))
        if (overlap(a, b)) out.push(ta + ' / ' + tb);
    if (!legend) continue;
    const L = legend.getBoundingClientRect();
    for (const [t, r] of boxes('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .gtitle'))
      if (overlap(r, L)) out.push('legend / ' + t);
  }
  return out;
}"""

#: Font size (px) and colour of every tick label of the charts on the page.
TICK_STYLES = """() => [...document.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text')]
    .map(t => [parseFloat(getComputedStyle(t).fontSize), getComputedStyle(t).fill])"""


def luminance(css_colour: str) -> float:
    """Relative luminance (0 black, 1 white) of an ``rgb(r, g, b)`` colour."""
    r, g, b = (int(v) / 255 for v in css_colour[css_colour.index("(") + 1 : css_colour.index(")")].split(",")[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def download(page, key: str, folder) -> str:
    """Press a download button once the page has finished its run; the file, saved under its suggested name (a
    browser opens .html as a page). A press that brings no download in 90 s is made once more (a lost press was seen
    in full runs, never alone, while the buttons still reran the page; they no longer do); a button that never
    downloads still fails, with what the button said."""
    from playwright.sync_api import TimeoutError as NoDownload

    for attempt in (1, 2):
        button = page.locator(f".st-key-{key} button").first
        button.wait_for(timeout=240_000)
        settle(page, timeout=240_000)
        try:
            with page.expect_download(timeout=90_000) as got:
                button.click(timeout=240_000)  # a busy server's page may disable its buttons until it reconnects
            break
        except NoDownload as exc:
            said = page.locator(f".st-key-{key} [data-testid='stDownloadButtonError']").all_inner_texts()
            if attempt == 2:
                raise AssertionError(f"no download from {key!r} after two presses; the button said {said}") from exc
    path = folder / got.value.suggested_filename
    got.value.save_as(path)
    return str(path)


#: the laptop screen the app must fit (issue 31) and the window a test's tab opens at unless it asks for another
SCREEN = {"width": 1280, "height": 720}
#: a projector's screen, on which every step is checked as well (the walk itself is at 1280x720)
LARGE = {"width": 1920, "height": 1080}
#: True once every figure is drawn at its container's width (after a change of the window's size)
FIGURES_FIT = """() => [...document.querySelectorAll('.js-plotly-plot')].every(p => {
  const svg = p.querySelector('.main-svg'); return svg && Math.abs(svg.getBoundingClientRect().width - p.clientWidth) <= 1; })"""


def resize(page, size: dict) -> None:
    """The window at ``size``, once the figures are redrawn at their new width (Streamlit reruns nothing on a
    resize: the layout and the figures follow the window in the browser)."""
    page.set_viewport_size(size)
    page.wait_for_timeout(300)
    page.wait_for_function(FIGURES_FIT, timeout=30_000)
    page.wait_for_timeout(200)


def in_viewport(page, selector: str) -> bool:
    """True when the first element matching ``selector`` lies wholly inside the window, as drawn now."""
    return page.evaluate(
        """sel => { const e = document.querySelector(sel); if (!e) return false;
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth; }""",
        selector,
    )


def people_csv(path, rows: int = 200):
    """A small table of four numeric columns (a stand-in for a user's file), written to ``path``."""
    lines = ["height,weight,age,income"] + [
        f"{1.5 + 0.01 * (i % 40)},{50 + i % 30},{20 + i % 50},{i % 17}" for i in range(rows)
    ]
    path.write_text("\n".join(lines))
    return path


def upload_on_data_page(page, server: str, csv, query_string: str = "", declare: bool = True):
    """Open the Data page (with ``query_string``), upload ``csv`` as a user does, and wait for its summary;
    ``declare``: then press "Declare this schema" as a user does before publishing (issue 54), and wait for the
    declared columns in the address."""
    page.goto(f"{server}/data?{query_string}")
    page.wait_for_selector("h1", timeout=60_000)
    settle(page)
    page.get_by_text("Upload CSV / Parquet").click()
    settle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(csv))
    page.wait_for_selector('[data-testid="stMetricValue"]', timeout=60_000)
    settle(page)
    if declare and page.locator(".st-key-declare_schema button").count():
        page.get_by_role("button", name="Declare this schema").first.click()
        page.wait_for_function("() => new URLSearchParams(location.search).has('cols')", timeout=60_000)
        settle(page)


#: Every visible piece of text that is clipped or drawn over another (issue 35), as "what: text" strings:
#: - "clipped": a visible element whose text is wider than its box (scrollWidth over clientWidth) where the box cuts
#:   it: an ellipsis, or overflow hidden or clip on a button or on an element holding text of its own; also the
#:   value a select box shows (an input);
#: - "overlap": two label boxes of one chart intersecting (plotly's SVG text: tick labels, axis titles, the title,
#:   legend entries, annotations, text beside points), each box as drawn (a rotated label's tilted rectangle), or
#:   one reaching past the chart's edge (cut there).
TEXT_PROBLEMS = """() => {
  const out = [];
  const shown = e => { if (!e.getClientRects().length) return false;
    const s = getComputedStyle(e); return s.visibility !== 'hidden' && s.display !== 'none' && +s.opacity !== 0; };
  const ownText = e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, [data-testid="stDataFrameResizable"], [role="tooltip"]') || !e.textContent.trim()
        || !shown(e)) continue;
    const box = e.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2) continue;  // visually hidden for screen readers (a skip link)
    const s = getComputedStyle(e);
    // text cut on purpose (an ellipsis), a box of its own text or a button that hides what overflows it
    const cuts = s.textOverflow === 'ellipsis'
      || (['hidden', 'clip'].includes(s.overflowX) && (ownText(e) || e.tagName === 'BUTTON'));
    if (cuts && e.scrollWidth > e.clientWidth + 1) out.push('clipped: ' + e.textContent.trim().slice(0, 80));
  }
  for (const e of document.querySelectorAll('[data-testid="stSelectbox"] input[role="combobox"]'))
    if (shown(e) && e.scrollWidth > e.clientWidth + 1) out.push('clipped: ' + e.value.slice(0, 80));
  // a label's box as drawn: the four corners of its own box (getBBox) through its transform to the screen, so a
  // rotated tick label is its tilted rectangle, not the larger upright box around it
  const corners = e => { const b = e.getBBox(), m = e.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]); };
  const edges = q => [[q[1][0] - q[0][0], q[1][1] - q[0][1]], [q[3][0] - q[0][0], q[3][1] - q[0][1]]];
  const overlap = (p, q) => ![...edges(p), ...edges(q)].some(([ax, ay]) => {  // no separating axis (SAT)
    const n = Math.hypot(ax, ay) || 1, along = r => r.map(([x, y]) => (x * ax + y * ay) / n);
    const a = along(p), b = along(q);
    return Math.max(...a) <= Math.min(...b) + 1 || Math.max(...b) <= Math.min(...a) + 1; });
  const LABELS = '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .gtitle, .legendtext, .annotation-text, '
                 + '.textpoint text';
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    if (!shown(gd)) continue;
    const boxes = [...gd.querySelectorAll(LABELS)].filter(e => e.textContent.trim() && shown(e))
      .filter(e => e.getBBox().width > 0 && e.getBBox().height > 0).map(e => [e.textContent.trim(), corners(e)]);
    const edge = gd.querySelector('.main-svg').getBoundingClientRect();
    for (const [t, q] of boxes)
      if (q.some(([x, y]) => x < edge.left - 1 || x > edge.right + 1 || y < edge.top - 1 || y > edge.bottom + 1))
        out.push('cut at the chart edge: ' + t);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        if (overlap(boxes[i][1], boxes[j][1])) out.push('overlap: ' + boxes[i][0] + ' / ' + boxes[j][0]);
  }
  return [...new Set(out)];
}"""


def text_problems(page) -> list[str]:
    """Visible text clipped or drawn over other text on the page as drawn now (:data:`TEXT_PROBLEMS`)."""
    return page.evaluate(TEXT_PROBLEMS)


def assert_text_fits(page, where: str) -> None:
    """No visible text is clipped and no chart label overlaps another (at the page's own window size)."""
    found = text_problems(page)
    assert not found, f"{where}: text clipped or overlapping: {found}"


def draw_releases(page) -> None:
    """Draw releases to publish on the Report as a user does: tick the box that confirms the spend the page states
    (issue 55), wait until the button is enabled, press it."""
    page.get_by_text("Spend this budget on these data").click()
    button = page.locator(".st-key-draw_releases button")
    page.wait_for_function(
        "() => { const b = document.querySelector('.st-key-draw_releases button'); return b && !b.disabled; }",
        timeout=60_000,
    )
    button.click()


def diabetes_csv(path):
    """A real public table the suite uses nowhere else (issue 57): scikit-learn's bundled diabetes data (B. Efron,
    T. Hastie, I. Johnstone and R. Tibshirani, "Least Angle Regression", Annals of Statistics 32(2), 2004; shipped
    with scikit-learn, BSD-3-Clause) in its original units: 442 patients, age, sex, body-mass index, blood pressure,
    six blood serum measurements and the disease's progression a year later ("target"), with a text column added
    (the sex in words) as an analyst's own file has. Written to ``path`` from the installed scikit-learn (no
    network)."""
    from sklearn.datasets import load_diabetes

    table = load_diabetes(as_frame=True, scaled=False).frame
    table.insert(1, "sex_words", table["sex"].map({1.0: "group one", 2.0: "group two"}))
    table.to_csv(path, index=False)
    return path


#: the scenario of the walks with an uploaded table: three mechanisms, one retracted (its chip in the sidebar, its
#: panel of the score plot), the score plot shown on Explore, few repetitions
UPLOAD_WALK = "mechs=analyze_gauss,wishart_sn,mod_sulq&reps=2&sreps=2&view=scores&bscores=0.1"


def upload_then_home(server: str, csv, query_string: str = UPLOAD_WALK, present: bool = False):
    """A ``start`` for :func:`every_page`: upload ``csv`` on the Data page (its schema declared), switch presenter
    mode on when asked (the sidebar's toggle), and move to Home without reloading the app (the upload lives in the
    session)."""

    def start(page):
        upload_on_data_page(page, server, csv, query_string)
        if not present:
            go_to(page, "Home")
            return
        page.locator('[data-testid="stSidebar"]').get_by_text("Presenter mode").click()
        page.wait_for_selector(".st-key-presenter_bar", timeout=60_000)
        settle(page)
        for _ in range(PAGES.index("data")):
            page.locator(".st-key-presenter_bar").get_by_role("button", name="◀ back", exact=True).click()
            settle(page, timeout=240_000)
        page.wait_for_function(
            "() => document.querySelector('.st-key-presenter_bar').innerText.includes('page 1 of')", timeout=60_000
        )

    return start


def offline(page, server: str) -> list:
    """Make ``page`` offline as a classroom without internet is: every request to another host than ``server`` is
    refused (and recorded in the list returned, which a test asserts empty); the app's own requests go through."""
    foreign = []

    def refuse(route):
        foreign.append(route.request.url)
        route.abort("internetdisconnected")

    page.route(lambda url: not url.startswith((server, "data:", "blob:")), refuse)
    return foreign


#: numbers in the text a person sees (the page's text, the values of visible inputs, the charts' labels) with more
#: than six significant digits: ``[number, its surroundings]`` (issue 57: R = 2.449489742783178)
LONG_NUMBERS = """() => {
  const texts = [document.body.innerText];
  for (const e of document.querySelectorAll('input')) if (e.offsetParent && e.value) texts.push(e.value);
  for (const t of document.querySelectorAll('.js-plotly-plot text')) texts.push(t.textContent);
  const out = [];
  for (const text of texts)
    for (const m of text.matchAll(/\\d[\\d,]*(?:\\.\\d+)?(?:e[-+]?\\d+)?/gi)) {
      const mantissa = m[0].replace(/,/g, '').split(/e/i)[0];
      const digits = mantissa.includes('.') ? mantissa.replace('.', '').replace(/^0+/, '')
                                            : mantissa.replace(/^0+/, '').replace(/0+$/, '');
      if (digits.length > 6) out.push([m[0], text.slice(Math.max(m.index - 30, 0), m.index + m[0].length + 10)]);
    }
  return out;
}"""


def long_numbers(page) -> list:
    return page.evaluate(LONG_NUMBERS)


#: the first figure of the page as drawn now: [top, bottom] in the window, and the window's height (None: no figure)
FIRST_FIGURE = """() => { const f = [...document.querySelectorAll('.js-plotly-plot')].find(e => e.offsetParent);
  if (!f) return null; const r = f.getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]; }"""


def figure_on_first_screen(page) -> bool:
    """True when the page's first figure shows on the first screen, the page scrolled to its top: at least 250 px of it
    (or three fifths of a shorter one) inside the window."""
    page.evaluate(
        "() => { for (const e of document.querySelectorAll('[data-testid=\"stMain\"], html')) e.scrollTo(0, 0); }"
    )
    found = page.evaluate(FIRST_FIGURE)
    if found is None:
        return False
    top, bottom, height = found
    shown = min(bottom, height) - max(top, 0)
    return shown >= min(250, 0.6 * (bottom - top))


#: tooltips shown now (a hover-only help that stays on after a click sits over what the next page draws)
TOOLTIPS = """() => [...document.querySelectorAll('[data-testid="stTooltipContent"], [role="tooltip"]')]
    .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden').map(e => e.innerText)"""

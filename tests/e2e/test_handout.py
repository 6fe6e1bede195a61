"""Issue 36 in a real browser: a presenter on the Report of a table the app did not make (the wine sample, scaled by
public column bounds, centred privately, three mechanisms one of which has no guarantee) downloads the exploration
record's slides and, after drawing releases to publish, the publishable JSON, brief and slides, and opens each from
disk with the network cut. The handout says on its first line that it is publishable, holds no localhost, no seed
and no word of the non-private diagnostics, and every number in it is a number of the JSON; neither deck nor the
brief has a clipped or overlapping element at 1280x720 or printed. The docs' screenshots are taken when
DPPCA_SCREENSHOTS names their folder (docs/screenshots)."""

import json
import re

from tests.e2e.helpers import TAKE_SHOTS, draw_releases, assert_no_error, download, settle, shoot
from tests.support.handout import DIAGNOSTIC_WORDS, stray_numbers
from dppca_core.handout import brief
from ui import report

BOUNDS = "15,6,4,30,170,4,6,1,4,14,2,4,1700"
SCENARIO = (
    f"src=sample:wine&k=2&mechs=analyze_gauss,private_power,non_private&center=private&bmean=0.1&beig=0.1"
    f"&scale=bounds&bounds={BOUNDS}&R=3.61&reps=3"
)

#: every clipped or overlapping element of the page as it is laid out now: a slide (or the body) taller or wider than
#: its box, a text element wider than its box, a figure's text outside the figure, two labels of a figure on top of
#: each other
LAYOUT_PROBLEMS = """() => {
  const bad = [];
  const boxes = document.querySelectorAll('section.slide').length ? [...document.querySelectorAll('section.slide')]
                                                                   : [document.body];
  for (const box of boxes) {
    const name = box.getAttribute('aria-label') || 'page';
    if (box.tagName === 'SECTION' && box.scrollHeight > box.clientHeight + 1) bad.push(name + ': content taller than the slide');
    if (box.scrollWidth > box.clientWidth + 1) bad.push(name + ': content wider than the box');
    for (const e of box.querySelectorAll('p, h1, h2, li, td, th, .side, .numbers, .bar span, .meter span')) {
      if (e.scrollWidth > e.clientWidth + 1) bad.push(name + ': ' + e.tagName + ' cut: ' + e.textContent.slice(0, 50));
    }
    for (const plot of box.querySelectorAll('.js-plotly-plot')) {
      const frame = plot.getBoundingClientRect();
      const labels = [...plot.querySelectorAll('.gtitle, .legendtext, .xtitle, .ytitle, .annotation-text, '
                                               + '.textpoint text, .bartext, .xtick text, .ytick text')]
        .map(t => [t, t.getBoundingClientRect()]).filter(([t, r]) => r.width > 0 && r.height > 0);
      for (const [t, r] of labels) {
        if (r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1 || r.bottom > frame.bottom + 1)
          bad.push(name + ': figure text outside its figure: ' + t.textContent.slice(0, 50));
      }
      const free = labels.filter(([t]) => !t.closest('.xtick, .ytick'));
      for (let i = 0; i < free.length; i++) for (let j = i + 1; j < free.length; j++) {
        const [a, ra] = free[i], [b, rb] = free[j];
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 2 && h > 2) bad.push(name + ': labels overlap: ' + a.textContent.slice(0, 30) + ' / ' + b.textContent.slice(0, 30));
      }
    }
  }
  return bad;
}"""


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


WITHOUT_FIGURES = """() => {
    const figures = [...document.querySelectorAll('svg')];
    figures.forEach(f => f.style.setProperty('display', 'none'));
    const text = document.body.innerText;
    figures.forEach(f => f.style.removeProperty('display'));
    return text;
}"""


def _open_offline(browser, path: str, shots: dict):
    """Open a file from disk with every network request refused; (its visible text, its HTML, layout problems on
    screen and printed, the printed PDF's page count, its number of slides, its figures and how many of them are
    drawn). ``shots``: {slide heading: screenshot file}, or {"": file} for the whole page."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    asked = []
    context.route("http*://**", lambda route: (asked.append(route.request.url), route.abort()))
    page = context.new_page()
    page.goto(f"file://{path}")
    page.wait_for_load_state("load")
    if page.locator(".js-plotly-plot").count():
        page.wait_for_function(
            "() => [...document.querySelectorAll('.js-plotly-plot')].every(" "p => p.querySelector('.main-svg'))",
            timeout=60_000,
        )
    page.wait_for_timeout(500)
    assert not asked, asked  # opens without a network
    screen = page.evaluate(LAYOUT_PROBLEMS)
    for heading, shot in shots.items() if TAKE_SHOTS else ():
        if heading:
            page.locator("section.slide", has=page.locator("h2", has_text=heading)).first.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            shoot(page, shot)
        else:
            shoot(page, shot, full_page=True)
    # the text a reader is shown, figures left out as in tests/test_handout.shown_text: a figure's numbers are in the
    # table beside it, and its axis ticks are a scale, not a released number
    text, doc = page.evaluate(WITHOUT_FIGURES), page.content()
    page.emulate_media(media="print")
    page.evaluate("() => window.fitSlides && window.fitSlides()")  # as the browser's beforeprint does
    page.wait_for_timeout(300)
    printed = page.evaluate(LAYOUT_PROBLEMS)
    slides = page.locator("section.slide").count()
    figures = (page.locator(".plotly-graph-div").count(), page.locator(".plotly-graph-div.js-plotly-plot").count())
    pdf = page.pdf(width="1280px", height="720px", print_background=True) if slides else page.pdf(format="A4")
    context.close()
    return text, doc, screen, printed, _pages(pdf), slides, figures


def test_the_handout_and_the_record_open_offline_honest_and_unclipped(server, browser, tabs, tmp_path):
    page = tabs.open({"width": 1280, "height": 900})
    page.goto(f"{server}/report?{SCENARIO}")
    page.wait_for_selector(".st-key-download_slides button", timeout=240_000)
    settle(page, timeout=240_000)
    assert_no_error(page, "the report")
    body = page.inner_text("body")
    assert "Left out of the publishable file" in body and "Non-private PCA" in body

    # the exploration record's deck: its role kept, no address of the server, nothing clipped
    record = download(page, "download_slides", tmp_path)
    text, doc, screen, printed, pdf_pages, slides, figures = _open_offline(
        browser,
        record,
        {
            "The guarantee in words": "report_slides_guarantee.png",
            "How the budget is split": "report_slides_budget.png",
        },
    )
    assert report.PRIVATE_RECORD in text
    # title, what we found, the scenario, the guarantee, utility, risk, budget split, loadings, scree and more: every
    # figure drawn without a network
    assert slides >= 9 and figures[0] >= 4 and figures[1] == figures[0], (slides, figures)
    assert "localhost" not in doc and "127.0.0.1" not in doc and server not in doc
    assert "/report?" in doc  # the scenario's link, relative
    said = re.search(r"<h2>The guarantee in words</h2>(.*?)</section>", doc, flags=re.S).group(1)
    assert "could move from 50% to at most" in said and "e^" not in said and "Gaussian DP" not in said
    assert not screen, screen
    assert not printed, printed
    assert pdf_pages == slides

    # the publishable file and the handout made from it
    draw_releases(page)
    page.wait_for_selector(".st-key-download_brief button", timeout=240_000)
    settle(page, timeout=240_000)
    file = json.loads(open(download(page, "download_releases", tmp_path), encoding="utf-8").read())
    assert list(file["releases"]) == ["analyze_gauss", "private_power"]
    assert [m["mechanism"] for m in file["left_out"]] == ["non_private"]
    assert file["settings"]["scaling"]["bounds"] == [float(b) for b in BOUNDS.split(",")]
    assert file["schema"]["columns"][0] == "alcohol" and len(file["schema"]["columns"]) == 13
    for key, first, shots in (
        ("download_brief", brief.BRIEF_LINE, {"": "publishable_brief.png"}),
        (
            "download_publishable_slides",
            brief.DECK_LINE,
            {
                "The guarantee in words": "publishable_slides.png",
                "How the budget is split": "publishable_slides_budget.png",
            },
        ),
    ):
        path = download(page, key, tmp_path)
        text, doc, screen, printed, pdf_pages, slides, _ = _open_offline(browser, path, shots)
        lines = [line for line in text.splitlines() if line.strip()]
        assert lines[0] == first, lines[0]
        lowered = text.lower()
        assert not [w for w in DIAGNOSTIC_WORDS if w in lowered], key
        assert "localhost" not in doc and "127.0.0.1" not in doc and "http://" not in doc
        counters = re.compile(r"^\d+ / \d+$")
        shown = "\n".join(line for line in lines if not counters.match(line.strip()))
        assert not stray_numbers(shown, file), (key, stray_numbers(shown, file))
        assert not screen, (key, screen)
        assert not printed, (key, printed)
        assert pdf_pages == (slides if slides else pdf_pages) and pdf_pages >= 1

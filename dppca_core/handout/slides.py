"""Slides from any scenario: one self-contained HTML file that opens offline in any browser, one slide per screen
(arrow keys, Page Up/Down or scrolling), and prints one slide per page (plotly.js embedded once when a slide has a
figure, no network).

HTML rather than a PDF rendered by headless Chromium: the server needs no browser, the charts stay interactive
and their numbers stay real text (a screen reader reads them), and any browser prints the deck to PDF.

Two kinds of deck, never mixed (ui/report.py): the Report's deck is an exploration record, whose title slide carries
the record's first line (for data the app did not synthesise: it describes the raw data and stays with the data
owner); the publishable deck (dppca_core/handout/brief.py) is built from the publishable file alone. A slide's text shrinks to fit
its 1280x720 screen or printed page (a small script, :data:`FIT_JS`), and long tables continue on the next slide, so
nothing is clipped. Pure functions (no Streamlit calls); every string is HTML-escaped.
"""

from __future__ import annotations

import datetime as _dt
import html
from dataclasses import dataclass, field, replace

from typing import TYPE_CHECKING

import pandas as pd

from ..version import __version__
from dppca_core.reading import number

if TYPE_CHECKING:  # plotly is imported where a figure is drawn: the publishable brief and deck are made without it
    import plotly.graph_objects as go

#: rows of numbers beside a figure (a slide has room for about this many under its lines at a readable size): a
#: longer table goes whole onto the slides that follow the figure (:func:`paginate`)
TABLE_ROWS = 8
#: rows of a table on a slide of its own; a longer table continues on the next slide
SLIDE_TABLE_ROWS = 9
#: rows of a figure's numbers on a slide of their own (short cells: twice a table slide's rows fit at 16 px)
NUMBER_SLIDE_ROWS = 18
#: a figure's numbers are shown whole up to two slides' worth; a longer table (a curve of 400 points) shows one
#: slide of rows evenly spaced along it
WHOLE_ROWS = 2 * NUMBER_SLIDE_ROWS
#: a figure's height on a slide (px): it takes the left two thirds of a 1280x720 screen, under the title
FIGURE_HEIGHT = 500
#: the budget bar and the utility meters of the publishable brief and deck (sizes in em: they follow the text)
BARS_CSS = """
.bar{display:flex;width:100%;height:2.3em;border-radius:4px;overflow:hidden;margin:.4em 0 .8em}
.bar span{display:flex;align-items:center;justify-content:center;color:#fff;font-weight:600;font-size:1em;
  overflow:hidden;white-space:nowrap;min-width:0}
.meter{display:grid;grid-template-columns:minmax(0,13em) minmax(0,1fr) 9em;gap:.3em .8em;align-items:center;
  margin:.4em 0} .meter .track{background:#eee;height:1.2em;border-radius:3px;overflow:hidden}
.meter span:last-child{white-space:nowrap}
.meter .fill{height:100%} .key{display:inline-block;width:.9em;height:.9em;border-radius:2px;margin-right:.35em;
  vertical-align:-.1em}
@media print{.bar span,.key,.meter .fill{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"""
DECK_CSS = (
    BARS_CSS
    + """
html{scroll-snap-type:y mandatory} body{margin:0;font-family:system-ui,sans-serif;color:#111;background:#fff}
section.slide{box-sizing:border-box;height:100vh;min-height:600px;padding:2rem 3rem 1.2rem;scroll-snap-align:start;
  border-bottom:1px solid #ccc;display:flex;flex-direction:column;overflow:hidden;font-size:16px}
h1{font-size:2.4em;margin:.2em 0 .8em} h2{font-size:1.8em;margin:0 0 .6em;overflow-wrap:anywhere}
p,li{font-size:1.15em;line-height:1.4;margin:.3em 0 .5em;overflow-wrap:anywhere}
.body{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:1.5em;flex:1;min-height:0}
.figure{min-width:0} .side{min-width:0;overflow:hidden} .side p{font-size:1em}
.figure svg{max-width:100%!important;max-height:500px!important}
.numbers{font-size:.9em} .numbers table{border-collapse:collapse;width:100%;table-layout:auto}
.numbers td,.numbers th{padding:.2em .4em;border-bottom:1px solid #ddd;text-align:left;overflow-wrap:break-word;
  vertical-align:top} .summary{color:#333;font-size:1em}
.record{border:2px solid #8a6d00;background:#fff8e1;padding:.5em .8em;font-weight:600;font-size:1.1em}
.publishable{border:2px solid #1b5e20;background:#e8f5e9;padding:.5em .8em;font-weight:600;font-size:1.1em}
.link{overflow-wrap:anywhere;font-size:1em} .counter{margin-top:auto;color:#444;font-size:.9em}
@media print{@page{size:1280px 720px;margin:0} html{scroll-snap-type:none}
  section.slide{height:720px;min-height:0;page-break-after:always;break-after:page;border:0}
  section.slide:last-of-type{page-break-after:auto;break-after:auto}}
"""
)
#: shrinks a slide's text until the slide fits its screen (or printed page): each slide's font size steps down from
#: 16 px to at most 9 px while its content is taller or wider than the slide; run on load, resize and print
FIT_JS = """<script>
function fitSlides() {
  for (const s of document.querySelectorAll('section.slide')) {
    let size = 16;
    s.style.fontSize = size + 'px';
    const over = () => s.scrollHeight > s.clientHeight + 1 || s.scrollWidth > s.clientWidth + 1 ||
      [...s.querySelectorAll('.side, .numbers, td, th, p, h2')].some(e => e.scrollWidth > e.clientWidth + 1) ||
      [...s.querySelectorAll('.side')].some(e => e.scrollHeight > e.clientHeight + 1);
    while (over() && size > 9) { size -= 0.5; s.style.fontSize = size + 'px'; }
  }
}
window.addEventListener('load', fitSlides);
window.addEventListener('resize', fitSlides);
window.addEventListener('beforeprint', fitSlides);
window.matchMedia('print').addEventListener('change', fitSlides);
fitSlides();
</script>"""
#: arrow keys and Page Up/Down move one slide (plain JavaScript, no library)
DECK_JS = """<script>
document.addEventListener('keydown', e => {
  const slides = [...document.querySelectorAll('section.slide')];
  const now = slides.findIndex(s => s.getBoundingClientRect().top > -window.innerHeight / 2);
  const step = {ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, ArrowLeft: -1, ArrowUp: -1, PageUp: -1}[e.key];
  if (step === undefined) return;
  e.preventDefault();
  const next = slides[Math.min(Math.max(now + step, 0), slides.length - 1)];
  if (next) next.scrollIntoView();
});
</script>"""


@dataclass
class Slide:
    """One slide: a title, a few short lines, and optionally a figure with its numbers beside it (``table``, or
    the figure's own numbers when None), a table, or ``html`` (trusted markup built by this project, every string in
    it already escaped: the publishable deck's bars). ``figure_html``: a figure as trusted markup (the publishable
    deck's inline SVG, :mod:`dppca_core.handout.svg`), laid out as a figure, with ``table`` beside it whole."""

    title: str
    lines: list = field(default_factory=list)
    figure: go.Figure | None = None
    table: pd.DataFrame | None = None
    link: str = ""
    html: str = ""
    figure_html: str = ""
    numbers_after: bool = False  # a figure whose numbers are on the slides after it (too many to sit beside it)
    table_rows: int = 0  # rows of ``table`` a slide of its own holds before it continues (0: SLIDE_TABLE_ROWS)


def _table_html(table: pd.DataFrame, rows: int = TABLE_ROWS) -> str:
    shown = table.head(rows)
    more = f"<p class='summary'>First {rows} of {len(table)} rows.</p>" if len(table) > rows else ""
    return shown.to_html(index=False, border=0, escape=True, float_format=number) + more


def deck_figure(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` laid out for a slide: its height, the legend below, no title of its own (the slide's heading
    and the summary beside it say it), and labels drawn beside points moved to the numbers table beside the figure
    (on a slide they overlapped one another or ran out of the plot)."""
    import plotly.graph_objects as go

    from dppca_core.figures.base import LEGEND_BELOW

    fig = go.Figure(fig)  # a copy: the page's figure keeps its own size
    # the slide's heading and the summary beside the figure carry its title: a long plotly title would run out
    fig.update_layout(height=FIGURE_HEIGHT, autosize=True, legend=LEGEND_BELOW, title=None, margin=dict(t=20))
    for trace in fig.data:
        mode = getattr(trace, "mode", None)
        if mode and "text" in mode and getattr(trace, "type", "") == "scatter":
            trace.mode = mode.replace("+text", "").replace("text+", "") if mode != "text" else "markers"
    return fig


def _figure_html(fig: go.Figure, first: bool) -> str:
    return deck_figure(fig).to_html(
        full_html=False,
        include_plotlyjs=True if first else False,
        default_width="100%",
        config={"displaylogo": False, "responsive": True},
    )


def _slide_html(slide: Slide, number: int, total: int, first_figure: bool) -> str:
    """A slide: its title; with a figure, the figure on the left and, beside it, the lines, the figure's summary
    and its numbers; without one, the lines, the trusted markup and the table."""
    lines = "".join(f"<p>{html.escape(str(line))}</p>" for line in slide.lines)
    link = (
        f"<p class='link'>Open this scenario: <a href='{html.escape(slide.link, quote=True)}'>"
        f"{html.escape(slide.link)}</a></p>"
        if slide.link
        else ""
    )
    if slide.figure is not None:
        from dppca_core.figures.alt import figure_summary, figure_table

        table = figure_table(slide.figure) if slide.table is None else slide.table
        numbers = (
            "<p class='summary'>Its numbers: on the next slide.</p>"
            if slide.numbers_after
            else f"<div class='numbers'>{_table_html(table)}</div>"
        )
        body = (
            f"<div class='body'><div class='figure'>{_figure_html(slide.figure, first_figure)}</div>"
            f"<div class='side'>{lines}<p class='summary'>{html.escape(figure_summary(slide.figure))}</p>"
            f"{numbers}</div></div>"
        )
    elif slide.figure_html:
        numbers = (
            "" if slide.table is None else f"<div class='numbers'>{_table_html(slide.table, len(slide.table))}</div>"
        )
        body = (
            f"<div class='body'><div class='figure'>{slide.figure_html}</div>"
            f"<div class='side'>{lines}{numbers}</div></div>"
        )
    else:
        body = (
            lines
            + slide.html
            + (
                f"<div class='numbers'>{_table_html(slide.table, slide.table_rows or SLIDE_TABLE_ROWS)}</div>"
                if slide.table is not None
                else ""
            )
        )
    return (
        f"<section class='slide' aria-label='slide {number} of {total}'><h2>{html.escape(slide.title)}</h2>"
        f"{body}{link}<p class='counter'>{number} / {total}</p></section>"
    )


def _numbers_slides(title: str, table: pd.DataFrame) -> list[Slide]:
    """The numbers of a figure on slides of their own: every row up to :data:`WHOLE_ROWS` (continued on a second
    slide when long), else :data:`NUMBER_SLIDE_ROWS` rows evenly spaced along it and a line that says so (the
    figure itself and the app's "Show the numbers" hold them all)."""
    lines = []
    if len(table) > WHOLE_ROWS:
        rows = sorted({round(i * (len(table) - 1) / (NUMBER_SLIDE_ROWS - 1)) for i in range(NUMBER_SLIDE_ROWS)})
        lines = [
            f"{len(rows)} of its {len(table):,} rows, evenly spaced (hover the figure, or open Show the numbers "
            "in the app, for every row)."
        ]
        table = table.iloc[rows]
    return [
        Slide(
            title + (" (its numbers)" if start == 0 else " (its numbers, continued)"),
            lines if start == 0 else [],
            table=table.iloc[start : start + NUMBER_SLIDE_ROWS],
            table_rows=NUMBER_SLIDE_ROWS,
        )
        for start in range(0, len(table), NUMBER_SLIDE_ROWS)
    ]


def paginate(slides: list[Slide]) -> list[Slide]:
    """Every table slide longer than :data:`SLIDE_TABLE_ROWS` rows split into slides of that many, titled
    "(continued)" after the first, so that no row is cut off; a figure whose numbers are more than
    :data:`TABLE_ROWS` rows keeps its slide, and its numbers follow it whole on slides of their own ("(its
    numbers)")."""
    out = []
    for slide in slides:
        if slide.figure is not None and not slide.numbers_after:
            from dppca_core.figures.alt import figure_table

            table = figure_table(slide.figure) if slide.table is None else slide.table
            if len(table) > TABLE_ROWS:
                out += [replace(slide, numbers_after=True), *_numbers_slides(slide.title, table)]
                continue
        if (
            slide.figure is not None
            or slide.figure_html
            or slide.table is None
            or len(slide.table) <= (slide.table_rows or SLIDE_TABLE_ROWS)
        ):
            out.append(slide)
            continue
        for start in range(0, len(slide.table), SLIDE_TABLE_ROWS):
            first = start == 0
            out.append(
                Slide(
                    slide.title + ("" if first else " (continued)"),
                    slide.lines if first else [],
                    table=slide.table.iloc[start : start + SLIDE_TABLE_ROWS],
                    link=slide.link if first else "",
                    html=slide.html if first else "",
                )
            )
    return out


def build_deck(
    title: str,
    record: str,
    slides: list[Slide],
    link: str = "",
    data_note: str = "",
    kind: str = "exploration record",
    record_class: str = "record",
) -> str:
    """The deck as one HTML document: a title slide (first the line saying what kind of export it is, as every
    export's first line, then the deck's title, the data and, when given, the scenario's link), then ``slides``
    (long tables continued over several slides, :func:`paginate`). ``kind`` names the deck in its title;
    ``record_class`` styles its first line ("record", or "publishable" for a deck that may be handed out)."""
    slides = paginate(slides)
    total = len(slides) + 1
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    first = (
        f"<section class='slide' aria-label='slide 1 of {total}'><p class='{record_class}'>{html.escape(record)}"
        f"</p><h1>{html.escape(title)}</h1>"
        + (f"<p>Data: {html.escape(data_note)}</p>" if data_note else "")
        + (
            f"<p>Made with DP-PCA Explorer {__version__} on {stamp}.</p>"
            if record_class == "record"
            else f"<p>Made with DP-PCA Explorer {__version__}.</p>"
        )
        + (
            f"<p class='link'>The scenario: <a href='{html.escape(link, quote=True)}'>{html.escape(link)}</a></p>"
            if link
            else ""
        )
        + f"<p class='counter'>1 / {total}</p></section>"
    )
    parts, seen_figure = [first], False
    for i, slide in enumerate(slides, start=2):
        parts.append(_slide_html(slide, i, total, first_figure=slide.figure is not None and not seen_figure))
        seen_figure = seen_figure or slide.figure is not None
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}: slides "
        f"({html.escape(kind)})</title>"
        f"<meta name='viewport' content='width=device-width'><style>{DECK_CSS}</style></head>"
        f"<body><main>{''.join(parts)}</main>{DECK_JS}{FIT_JS}</body></html>"
    )


def report_slides(
    results: dict,
    summary: list,
    settings: pd.DataFrame,
    utility: go.Figure,
    table: pd.DataFrame,
    shares: pd.DataFrame | None,
    risk_sentences: dict,
    posterior: go.Figure | None,
    more_figures: list,
    guarantees: list | None = None,
    budget_words: list | None = None,
) -> list[Slide]:
    """The Report's slides: the summary, the scenario, the guarantee in words (``guarantees``: the odds and the
    attacker's best test, :func:`ui.report.guarantee_words`), the utility numbers with their spread (the dotplot
    beside the mean and 95% band of each diagnostic), the risk view, the budget split in units that add up
    (``shares`` and ``budget_words``, :func:`ui.report.budget_table`), then one slide per further figure (loadings,
    scree, the last sweep)."""
    from dppca_core.registry import display_name

    words = (
        guarantees if guarantees is not None else [f"{display_name(m)}: {r.guarantee_text}" for m, r in results.items()]
    )
    slides = [
        Slide("What we found", list(summary)),
        Slide("The scenario", [], table=settings.rename(columns=str.capitalize)),
        Slide("The guarantee in words", list(words)),
        Slide(
            "Utility: how close to the exact PCA",
            [
                "Diagnostics computed with the raw data as reference "
                "(not private): mean and 95% band over repetitions."
            ],
            figure=utility,
            table=table,
        ),
    ]
    if posterior is not None:
        slides.append(
            Slide(
                "What the guarantee means for one person",
                [f"{display_name(m)}: {s[0]}" for m, s in risk_sentences.items()],
                figure=posterior,
            )
        )
    if shares is not None:
        slides.append(Slide("How the budget is split", list(budget_words or []), table=shares))
    else:
        slides.append(
            Slide("How the budget is split", ["The whole budget goes to the components: nothing else is " "published."])
        )
    slides += [Slide(figure_title(fig), [], figure=fig) for fig in more_figures]
    return slides


def figure_title(fig: go.Figure) -> str:
    from dppca_core.figures.alt import plain

    return plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else "Figure"

"""Slides from any scenario: one self-contained HTML file (plotly.js embedded once, no network) that opens offline
in any browser, one slide per screen (arrow keys, Page Up/Down or scrolling), and prints one slide per page.

HTML rather than a PDF rendered by headless Chromium: the server needs no browser, the charts stay interactive
and their numbers stay real text (a screen reader reads them), and any browser prints the deck to PDF.

The deck is an export of the same kind as the Report's HTML (ui/report.py): an exploration record, whose title
slide carries the record's first line (for data the app did not synthesise: it describes the raw data and stays
with the data owner). Pure functions (no Streamlit calls); every string is HTML-escaped.
"""
from __future__ import annotations

import datetime as _dt
import html
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from dppca_core.figures.alt import figure_summary, figure_table

#: rows of numbers beside a figure (a slide has room for about this many)
TABLE_ROWS = 12
#: a figure's height on a slide (px): it takes the left two thirds of a 1280x720 screen, under the title
FIGURE_HEIGHT = 500
DECK_CSS = """
html{scroll-snap-type:y mandatory} body{margin:0;font-family:system-ui,sans-serif;color:#111;background:#fff}
section.slide{box-sizing:border-box;height:100vh;min-height:600px;padding:2.2rem 3rem;scroll-snap-align:start;
  border-bottom:1px solid #ccc;display:flex;flex-direction:column;overflow:hidden}
h1{font-size:2.4rem;margin:.2rem 0 1rem} h2{font-size:1.8rem;margin:0 0 .8rem}
p,li{font-size:1.15rem;line-height:1.45} .body{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);
  gap:1.5rem;flex:1;min-height:0} .figure{min-width:0} .side{min-width:0;overflow:auto}
.side p{font-size:1rem;margin:.2rem 0 .6rem} .numbers{font-size:.9rem}
.numbers table{border-collapse:collapse;width:100%} .numbers td,.numbers th{padding:.2rem .4rem;
  border-bottom:1px solid #ddd;text-align:left} .summary{color:#333;font-size:1rem}
.record{border:2px solid #8a6d00;background:#fff8e1;padding:.6rem .8rem;font-weight:600;font-size:1.15rem}
.link{overflow-wrap:anywhere;font-size:1rem} .counter{margin-top:auto;color:#444;font-size:.9rem}
@media print{@page{size:1280px 720px;margin:0} html{scroll-snap-type:none}
  section.slide{height:720px;page-break-after:always;border:0}}
"""
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
    the figure's own numbers when None)."""

    title: str
    lines: list = field(default_factory=list)
    figure: go.Figure | None = None
    table: pd.DataFrame | None = None
    link: str = ""


def _table_html(table: pd.DataFrame) -> str:
    shown = table.head(TABLE_ROWS)
    more = (f"<p class='summary'>First {TABLE_ROWS} of {len(table)} rows.</p>" if len(table) > TABLE_ROWS else "")
    return shown.to_html(index=False, border=0, escape=True, float_format=lambda v: f"{v:.4g}") + more


def _figure_html(fig: go.Figure, first: bool) -> str:
    fig = go.Figure(fig)  # a copy: the page's figure keeps its own size
    fig.update_layout(height=FIGURE_HEIGHT, autosize=True)
    return fig.to_html(full_html=False, include_plotlyjs=True if first else False, default_width="100%",
                       config={"displaylogo": False, "responsive": True})


def _slide_html(slide: Slide, number: int, total: int, first_figure: bool) -> str:
    """A slide: its title; with a figure, the figure on the left and, beside it, the lines, the figure's summary
    and its numbers; without one, the lines and the table."""
    lines = "".join(f"<p>{html.escape(str(line))}</p>" for line in slide.lines)
    link = (f"<p class='link'>Open this scenario: <a href='{html.escape(slide.link, quote=True)}'>"
            f"{html.escape(slide.link)}</a></p>" if slide.link else "")
    if slide.figure is not None:
        table = figure_table(slide.figure) if slide.table is None else slide.table
        body = (f"<div class='body'><div class='figure'>{_figure_html(slide.figure, first_figure)}</div>"
                f"<div class='side'>{lines}<p class='summary'>{html.escape(figure_summary(slide.figure))}</p>"
                f"<div class='numbers'>{_table_html(table)}</div></div></div>")
    else:
        body = lines + (f"<div class='numbers'>{_table_html(slide.table)}</div>" if slide.table is not None else "")
    return (f"<section class='slide' aria-label='slide {number} of {total}'><h2>{html.escape(slide.title)}</h2>"
            f"{body}{link}<p class='counter'>{number} / {total}</p></section>")


def build_deck(title: str, record: str, slides: list[Slide], link: str, data_note: str = "") -> str:
    """The deck as one HTML document: a title slide (first the record line saying what kind of export it is, as
    every export's first line, then the deck's title, the data, the scenario's link), then ``slides``."""
    total = len(slides) + 1
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    first = (f"<section class='slide' aria-label='slide 1 of {total}'><p class='record'>{html.escape(record)}</p>"
             f"<h1>{html.escape(title)}</h1>"
             + (f"<p>Data: {html.escape(data_note)}</p>" if data_note else "")
             + f"<p>Made with DP-PCA Explorer on {stamp}.</p><p class='link'>The scenario: <a href='"
             f"{html.escape(link, quote=True)}'>{html.escape(link)}</a></p>"
             f"<p class='counter'>1 / {total}</p></section>")
    parts, seen_figure = [first], False
    for i, slide in enumerate(slides, start=2):
        parts.append(_slide_html(slide, i, total, first_figure=slide.figure is not None and not seen_figure))
        seen_figure = seen_figure or slide.figure is not None
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}: slides "
            f"(exploration record)</title>"
            f"<meta name='viewport' content='width=device-width'><style>{DECK_CSS}</style></head>"
            f"<body><main>{''.join(parts)}</main>{DECK_JS}</body></html>")


def report_slides(results: dict, summary: list, settings: pd.DataFrame, utility: go.Figure, table: pd.DataFrame,
                  shares: pd.DataFrame | None, risk_sentences: dict, posterior: go.Figure | None,
                  more_figures: list) -> list[Slide]:
    """The Report's slides: the summary, the scenario, the guarantee in words, the utility numbers with their spread
    (the dotplot beside the mean and 95% band of each diagnostic), the risk view, the budget split, then one slide
    per further figure (loadings, scree, the last sweep)."""
    from dppca_core.registry import display_name

    slides = [Slide("What we found", list(summary)),
              Slide("The scenario", [], table=settings.rename(columns=str.capitalize)),
              Slide("The guarantee in words", [f"{display_name(m)}: {r.guarantee_text}"
                                               + (" RETRACTED: not private." if r.guarantee == "retracted" else "")
                                               for m, r in results.items()]),
              Slide("Utility: how close to the exact PCA", ["Diagnostics computed with the raw data as reference "
                                                            "(not private): mean and 95% band over repetitions."],
                    figure=utility, table=table)]
    if posterior is not None:
        slides.append(Slide("What the guarantee means for one person",
                            [f"{display_name(m)}: {s[0]}" for m, s in risk_sentences.items()], figure=posterior))
    if shares is not None:
        slides.append(Slide("How the budget is split", ["Each published part spends a share of ε; the shares add up "
                                                        "to the total the guarantee states."], table=shares))
    else:
        slides.append(Slide("How the budget is split", ["The whole budget goes to the components: nothing else is "
                                                        "published."]))
    slides += [Slide(figure_title(fig), [], figure=fig) for fig in more_figures]
    return slides


def figure_title(fig: go.Figure) -> str:
    from dppca_core.figures.alt import plain

    return plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else "Figure"

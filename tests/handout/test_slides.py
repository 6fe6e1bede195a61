"""The slide deck: one self-contained HTML file, a title slide plus one per slide given, plotly.js once, each figure
with its numbers beside it, every string escaped."""

import re

import pandas as pd
import plotly.graph_objects as go

from ui import report
from dppca_core.handout.slides import TABLE_ROWS, Slide, build_deck

HOSTILE = "<script>alert(1)</script>"


def _fig(title, n=3):
    return go.Figure(
        go.Scatter(x=list(range(n)), y=[v / 10 for v in range(n)], name="Analyze Gauss"),
        layout=dict(title=title, xaxis_title="ε", yaxis_title="distance"),
    )


def test_a_deck_has_a_title_slide_and_one_slide_each_with_plotly_once():
    slides = [
        Slide("Utility", ["one line"], figure=_fig("first")),
        Slide("Words only", ["a", "b"]),
        Slide("Budget", [], table=pd.DataFrame({"part": ["subspace", "mean"], "share": ["90%", "10%"]})),
        Slide("Second figure", [], figure=_fig("second", n=40), link="http://x/explore?eps=2"),
    ]
    deck = build_deck("Deck", report.PUBLIC_RECORD, slides, "http://x/report?eps=2", "synthetic data")
    assert deck.count("<section class='slide'") == len(slides) + 2  # the title slide, and the 40 numbers' own
    assert "slide 1 of 6" in deck and "6 / 6" in deck
    assert len(re.findall(r"plotly\.js v\d", deck)) == 1  # the library's banner: embedded once
    assert deck.count("Plotly.newPlot") == 2 and "cdn" not in deck.lower().split("</head>")[0]
    assert report.PUBLIC_RECORD in deck.split("</section>")[0]  # on the title slide
    assert "<td>0.2</td>" in deck  # the first figure's numbers beside it
    assert "Its numbers: on the next slide." in deck  # the second's 40 rows do not fit beside it (issue 57)
    assert "href='http://x/explore?eps=2'" in deck


def test_every_user_string_is_escaped():
    deck = build_deck(
        HOSTILE,
        report.PRIVATE_RECORD,
        [Slide(HOSTILE, [HOSTILE], figure=_fig("ok"), table=pd.DataFrame({HOSTILE: [HOSTILE]}), link=HOSTILE)],
        HOSTILE,
        HOSTILE,
    )
    assert HOSTILE not in deck and "&lt;script&gt;" in deck
    assert report.PRIVATE_RECORD in deck


def test_a_long_table_continues_on_the_next_slide_and_no_slide_needs_a_link():
    """The scenario's table was cut at the bottom of its slide (issue 36): a table longer than a slide holds continues
    on further slides, every row shown once."""
    from dppca_core.handout.slides import SLIDE_TABLE_ROWS

    rows = 2 * SLIDE_TABLE_ROWS + 1
    table = pd.DataFrame({"setting": [f"s{i}" for i in range(rows)], "value": [f"v{i}" for i in range(rows)]})
    deck = build_deck("Deck", report.PUBLIC_RECORD, [Slide("The scenario", ["first"], table=table)])
    assert deck.count("<h2>The scenario</h2>") == 1 and deck.count("<h2>The scenario (continued)</h2>") == 2
    assert all(deck.count(f"<td>s{i}</td>") == 1 for i in range(rows)) and "First " not in deck
    assert "The scenario: <a" not in deck and "href" not in deck  # no link given, none shown
    assert "function fitSlides" in deck  # the text of a slide shrinks until it fits


def test_a_slide_figure_has_no_title_or_point_labels_of_its_own():
    """Slide 6's point labels overlapped or were cut ("50% → more th…"): on a slide the numbers stand in the table
    beside the figure, and the heading carries the title."""
    from dppca_core.handout.slides import FIGURE_HEIGHT, deck_figure

    fig = _fig("A very long title that would run out of the figure on a slide")
    fig.add_scatter(x=[1, 2], y=[0.5, 0.9], mode="markers+text", text=["50% → 90%", "50% → more than 99.99%"])
    shown = deck_figure(fig)
    assert shown.layout.title.text is None and shown.layout.height == FIGURE_HEIGHT
    assert [t.mode for t in shown.data] == [None, "markers"]
    assert fig.data[1].mode == "markers+text" and fig.layout.title.text  # the page's figure is untouched


def _numbers_on(deck: str, title: str) -> list[str]:
    """The cells of the tables on the slides whose heading starts with ``title``, in order."""
    cells = []
    for slide in deck.split("<section")[1:]:
        if f"<h2>{title}" in slide:
            cells += re.findall(r"<td>([^<]*)</td>", slide)
    return cells


def test_a_figure_whose_numbers_do_not_fit_beside_it_has_them_all_on_the_next_slides():
    """The lesson deck's "Show the numbers" tables were cut at the bottom of their slide (9 of 20 rows) and their first
    column read "series: bar" (issue 57): a figure with more than TABLE_ROWS points keeps its slide and its numbers
    follow whole, without a series column when the figure names no series, each cell at most four digits."""
    from dppca_core.handout.slides import NUMBER_SLIDE_ROWS

    values = [1 / (i + 3) for i in range(20)]
    fig = go.Figure(go.Bar(x=list(range(1, 21)), y=values), layout=dict(xaxis_title="component", yaxis_title="share"))
    deck = build_deck("Deck", report.PUBLIC_RECORD, [Slide("Scree", ["a line"], figure=fig)])
    assert "Its numbers: on the next slide." in deck and "First 8 of" not in deck
    assert deck.count("<h2>Scree (its numbers)</h2>") == 1 and deck.count("(its numbers, continued)") == 1
    cells = _numbers_on(deck, "Scree (its numbers")
    assert cells[::2] == [str(i) for i in range(1, 21)] and cells[1] == "0.3333"  # every row, once, in order
    assert "series" not in deck.split("Scree (its numbers)")[1] and ">bar<" not in deck
    assert 20 > NUMBER_SLIDE_ROWS > TABLE_ROWS


def test_a_figure_with_hundreds_of_points_shows_evenly_spaced_rows_and_says_so():
    from dppca_core.handout.slides import NUMBER_SLIDE_ROWS

    fig = _fig("curve", n=400)
    deck = build_deck("Deck", report.PUBLIC_RECORD, [Slide("Curve", [], figure=fig)])
    cells = _numbers_on(deck, "Curve (its numbers")
    assert len(cells) == 3 * NUMBER_SLIDE_ROWS and "(its numbers, continued)" not in deck  # series, x and y
    assert cells[1] == "0" and cells[-2] == "399"  # the first and the last point among them
    assert f"{NUMBER_SLIDE_ROWS} of its 400 rows, evenly spaced" in deck

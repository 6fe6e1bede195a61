"""The slide deck: one self-contained HTML file, a title slide plus one per slide given, plotly.js once, each figure
with its numbers beside it, every string escaped."""
import re

import pandas as pd
import plotly.graph_objects as go

from ui import report
from ui.slides import TABLE_ROWS, Slide, build_deck

HOSTILE = "<script>alert(1)</script>"


def _fig(title, n=3):
    return go.Figure(go.Scatter(x=list(range(n)), y=[v / 10 for v in range(n)], name="Analyze Gauss"),
                     layout=dict(title=title, xaxis_title="ε", yaxis_title="distance"))


def test_a_deck_has_a_title_slide_and_one_slide_each_with_plotly_once():
    slides = [Slide("Utility", ["one line"], figure=_fig("first")), Slide("Words only", ["a", "b"]),
              Slide("Budget", [], table=pd.DataFrame({"part": ["subspace", "mean"], "share": ["90%", "10%"]})),
              Slide("Second figure", [], figure=_fig("second", n=40), link="http://x/explore?eps=2")]
    deck = build_deck("Deck", report.PUBLIC_RECORD, slides, "http://x/report?eps=2", "synthetic data")
    assert deck.count("<section class='slide'") == len(slides) + 1
    assert "slide 1 of 5" in deck and "5 / 5" in deck
    assert len(re.findall(r"plotly\.js v\d", deck)) == 1  # the library's banner: embedded once
    assert deck.count("Plotly.newPlot") == 2 and "cdn" not in deck.lower().split("</head>")[0]
    assert report.PUBLIC_RECORD in deck.split("</section>")[0]  # on the title slide
    assert "<td>0.2</td>" in deck  # the first figure's numbers beside it
    assert f"First {TABLE_ROWS} of 40 rows." in deck
    assert "href='http://x/explore?eps=2'" in deck


def test_every_user_string_is_escaped():
    deck = build_deck(HOSTILE, report.PRIVATE_RECORD, [Slide(HOSTILE, [HOSTILE], figure=_fig("ok"),
                                                             table=pd.DataFrame({HOSTILE: [HOSTILE]}), link=HOSTILE)],
                      HOSTILE, HOSTILE)
    assert HOSTILE not in deck and "&lt;script&gt;" in deck
    assert report.PRIVATE_RECORD in deck

"""Shared pieces of every figure: one colour per mechanism, the layout, and escaping of user text."""

from __future__ import annotations

import copy
import functools
import html

import numpy as np
import plotly.graph_objects as go

from ..registry import display_name, get_mechanism, mechanism_names

#: the colours the mechanisms declare (registry ``color``), one per mechanism of a task, told apart by everyone: the
#: seven Okabe-Ito colours (Okabe & Ito 2008, made for colour-vision deficiencies; their yellow left out, too light
#: on white) and eleven more, each chosen greedily on an 18-level sRGB grid to maximise the smallest CIELAB distance
#: to those before it with normal vision and after simulating protanopia, deuteranopia and tritanopia (Machado et
#: al. 2009, severity 1), lightness 25-72 so that lines stand out on white. Smallest pairwise ΔE*ab over the first
#: 15: 21 normal, 19.5 protan, 17.9 deutan, 16.1 tritan; the last three (for the mechanisms of issue 39) are at
#: least 18.4, 17.1 and 15.8 from every colour before them under all four (tests/figures/test_palette.py checks it for every
#: task's mechanisms). The PCA mechanisms declare them in this order, the tensor ones the second to seventh; a
#: mechanism that declares none gets the first colour no mechanism of its task declares.
PALETTE = [
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#000000",
    "#8700f0",
    "#692d0f",
    "#4b3c5a",
    "#9678ff",
    "#b4b469",
    "#2d2da5",
    "#a55a2d",
    "#690f78",
    "#3c5a4b",
    "#d2a5a5",
    "#d20fb4",
]
#: plotly config for every chart the app draws (no logo, PNG export at double resolution)
PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def mechanism_color(name: str) -> str:
    """The one colour of a mechanism: the one it declares (registry ``color``), else a palette colour no
    mechanism of its task declares (the undeclared ones take them in registration order; the palette repeats
    when none is left)."""
    if name not in mechanism_names():
        raise ValueError(f"unknown mechanism {name!r}; no colour assigned.")
    spec = get_mechanism(name)
    if spec.color:
        return spec.color
    specs = [get_mechanism(other) for other in mechanism_names(spec.task)]
    free = [c for c in PALETTE if c not in {s.color for s in specs}] or PALETTE
    undeclared = [s.name for s in specs if not s.color]
    return free[undeclared.index(name) % len(free)]


def color_or_grey(name: str) -> str:
    """A mechanism's colour, or grey for anything else (e.g. a reference line)."""
    return mechanism_color(name) if name in mechanism_names() else "#888"


def text(value) -> str:
    """A user-provided string (column name, file name, label) made safe for plotly, which renders a subset of
    HTML (links included) in titles, axis labels, legends and hover text: every tag is shown as text."""
    return html.escape(str(value), quote=False)


def name(label) -> str:
    """A trace or tick label: a mechanism's display name (never its registry id; a retracted one is marked), any
    other label as given; escaped for plotly (:func:`text`)."""
    return text(display_name(str(label)))


#: legends sit at the bottom of the figure, below the axis titles: anchored to the container, plotly reserves their
#: height before it places tick labels and titles, so a legend never covers them (one anchored to the plot area
#: covered long rotated tick labels, such as feature names)
LEGEND_BELOW = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0)


#: every figure's plotly template
TEMPLATE = "plotly_white"


@functools.cache
def _template_props() -> dict:
    """The template's properties as validation leaves them (plotly's order of keys), computed once per process."""
    return go.Layout(template=TEMPLATE).template.to_plotly_json()


def white_template(fig: go.Figure) -> go.Figure:
    """Give ``fig`` the app's template, exactly as ``fig.update_layout(template="plotly_white")`` does (the same
    properties in the same order, so the same JSON), without validating the template again: that validation deep-copies
    plotly's template object, about 30 ms a figure, most of the CPU of a page's rerun. The properties are validated
    once per process; each figure gets its own copy of them, set the way plotly sets its default template
    (``BaseFigure._initialize_layout_template``: validation off for that one assignment)."""
    fig.layout._validate = False
    try:
        fig.layout.template = copy.deepcopy(_template_props())
    finally:
        fig.layout._validate = fig._validate
    return fig


def layout(fig: go.Figure, title: str, x: str | None = None, y: str | None = None, height: int = 340) -> go.Figure:
    white_template(fig)
    fig.update_layout(title=title, height=height, margin=dict(l=50, r=20, t=50, b=45), legend=LEGEND_BELOW)
    fig.update_xaxes(automargin=True)  # long tick labels (feature names) push the margin instead of being cut
    fig.update_yaxes(automargin=True)
    if x is not None:
        fig.update_xaxes(title=x)
    if y is not None:
        fig.update_yaxes(title=y)
    return fig


def nonempty(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a non-empty array of finite numbers.")
    return arr


def swept_axis(fig: go.Figure, values, title: str, log: bool, most: int = 9) -> go.Figure:
    """x axis of a sweep: ticks at the swept values written out in full (a log axis otherwise labels its minor
    ticks with bare leading digits, so 0.05 reads "5" and 2000 reads "2"); every other value, and so on, when
    there are more than ``most``."""
    grid = np.unique(np.asarray(values, dtype=float))
    ticks = [float(v) for v in grid[:: -(-len(grid) // most)]] if grid.size else []
    fig.update_xaxes(
        title=text(title), type="log" if log else "linear", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks]
    )
    return fig


def band(x, lo, hi, colour: str, opacity: float) -> go.Scatter:
    """The shaded band from ``lo`` to ``hi`` over ``x`` (a curve's 95% band): one closed outline filled in
    ``colour``, with no line, out of the legend and the hover."""
    return go.Scatter(
        x=np.r_[x, np.asarray(x)[::-1]],
        y=np.r_[hi, np.asarray(lo)[::-1]],
        fill="toself",
        mode="lines",
        fillcolor=colour,
        opacity=opacity,
        line=dict(width=0),
        showlegend=False,
        hoverinfo="skip",
    )

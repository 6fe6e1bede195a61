"""Shared pieces of every figure: a colour per family of mechanisms and a mark per member, the layout, and escaping
of user text."""

from __future__ import annotations

import copy
import functools
import html

import numpy as np
import plotly.graph_objects as go

from ..registry import display_name, get_mechanism, mechanism_names

#: one colour per family of mechanisms (:attr:`dppca_core.registry.MechanismSpec.family_name`), the i-th family of a
#: task (in registration order) taking the i-th colour: the seven Okabe-Ito colours (Okabe & Ito 2008, made for
#: colour-vision deficiencies; their yellow left out, too light on white) and eleven more, each chosen greedily on an
#: 18-level sRGB grid to maximise the smallest CIELAB distance to those before it with normal vision and after
#: simulating protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1), lightness 25-72. Any two of
#: them are at least ΔE*ab 15.8 apart under all four. The fourteen that reach a contrast of 3:1 against the charts'
#: white (WCAG 2.1, 1.4.11, for graphical objects) come first, the four lighter ones last. tests/figures/test_palette.py checks
#: the families of every task as they are registered. The members of a family share its colour and are told apart by
#: their marker (:data:`SYMBOLS`), their bars' pattern (:data:`PATTERNS`) or their line's dash (:data:`DASHES`).
PALETTE = [
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#000000",
    "#8700f0",
    "#692d0f",
    "#4b3c5a",
    "#9678ff",
    "#2d2da5",
    "#a55a2d",
    "#690f78",
    "#3c5a4b",
    "#d20fb4",
    "#e69f00",
    "#56b4e9",
    "#b4b469",
    "#d2a5a5",
]
#: the j-th member of a family (in registration order) is drawn with the j-th marker (diamonds and stars are left out:
#: the figures mark extrapolated points and a plan's pick with them)
SYMBOLS = ("circle", "square", "triangle-up", "x", "cross", "triangle-down", "pentagon", "hexagon")
#: and its bars with the j-th fill pattern (the first plain), and its line with the j-th dash where a figure's markers
#: already say something else (an audit's verdict on the frontier)
PATTERNS = ("", "/", ".", "x", "\\", "-", "|", "+")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
#: plotly config for every chart the app draws (no logo, PNG export at double resolution)
PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
#: what a label that is no mechanism (a reference, a baseline) is drawn in
GREY = "#888"


def _place(name: str) -> tuple[int, int]:
    """(the index of the mechanism's family among its task's families, its own index among that family's members),
    both in registration order."""
    if name not in mechanism_names():
        raise ValueError(f"unknown mechanism {name!r}; no colour assigned.")
    spec = get_mechanism(name)
    kin = [get_mechanism(other).family_name for other in mechanism_names(spec.task)]
    families = list(dict.fromkeys(kin))
    members = [other for other, family in zip(mechanism_names(spec.task), kin) if family == spec.family_name]
    return families.index(spec.family_name), members.index(name)


def mechanism_color(name: str) -> str:
    """The colour of a mechanism's family: the i-th :data:`PALETTE` colour for the i-th family of its task (the palette
    repeats past its end, which tests/figures/test_palette.py refuses)."""
    family, _ = _place(name)
    return PALETTE[family % len(PALETTE)]


def mechanism_symbol(name: str) -> str:
    """The marker of a mechanism among its family's: the j-th of :data:`SYMBOLS` for the j-th member."""
    return SYMBOLS[_place(name)[1] % len(SYMBOLS)]


def mechanism_pattern(name: str) -> str:
    """The bar pattern of a mechanism among its family's: the j-th of :data:`PATTERNS` for the j-th member."""
    return PATTERNS[_place(name)[1] % len(PATTERNS)]


def mechanism_dash(name: str) -> str:
    """The line dash of a mechanism among its family's: the j-th of :data:`DASHES` for the j-th member."""
    return DASHES[_place(name)[1] % len(DASHES)]


def color_or_grey(name: str) -> str:
    """A mechanism's colour, or grey for anything else (e.g. a reference line)."""
    return mechanism_color(name) if name in mechanism_names() else GREY


def marker_of(name: str, open_: bool = False) -> dict:
    """A scatter marker's colour and symbol: the mechanism's (:func:`mechanism_color`, :func:`mechanism_symbol`; open
    with ``open_``), a grey circle for anything else."""
    symbol = mechanism_symbol(name) if name in mechanism_names() else "circle"
    return dict(color=color_or_grey(name), symbol=f"{symbol}-open" if open_ else symbol)


def line_of(name: str) -> dict:
    """A line's colour and dash: the mechanism's (:func:`mechanism_color`, :func:`mechanism_dash`), solid grey for
    anything else (for figures whose markers say something else)."""
    return dict(color=color_or_grey(name), dash=mechanism_dash(name) if name in mechanism_names() else "solid")


def bar_marker(name: str) -> dict:
    """A bar's colour and fill pattern: the mechanism's (:func:`mechanism_color`, :func:`mechanism_pattern`), plain
    grey for anything else."""
    pattern = mechanism_pattern(name) if name in mechanism_names() else ""
    return dict(color=color_or_grey(name), pattern=dict(shape=pattern))


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

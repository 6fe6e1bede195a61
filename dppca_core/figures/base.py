"""Shared pieces of every figure: one colour per mechanism, the layout, and escaping of user text."""
from __future__ import annotations

import html

import numpy as np
import plotly.express as px
import plotly.graph_objects as go

from ..registry import mechanism_names

PALETTE = px.colors.qualitative.Safe + px.colors.qualitative.Vivid
#: plotly config for every chart the app draws (no logo, PNG export at double resolution)
PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def mechanism_color(name: str) -> str:
    """The one colour of a mechanism: its position in the registry picks a palette entry."""
    names = mechanism_names()
    if name not in names:
        raise ValueError(f"unknown mechanism {name!r}; no colour assigned.")
    return PALETTE[names.index(name) % len(PALETTE)]


def color_or_grey(name: str) -> str:
    """A mechanism's colour, or grey for anything else (e.g. a reference line)."""
    return mechanism_color(name) if name in mechanism_names() else "#888"


def text(value) -> str:
    """A user-provided string (column name, file name, label) made safe for plotly, which renders a subset of
    HTML (links included) in titles, axis labels, legends and hover text: every tag is shown as text."""
    return html.escape(str(value), quote=False)


def layout(fig: go.Figure, title: str, x: str | None = None, y: str | None = None, height: int = 340) -> go.Figure:
    fig.update_layout(title=title, height=height, margin=dict(l=50, r=20, t=50, b=45), template="plotly_white",
                      legend=dict(orientation="h", y=-0.25))
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

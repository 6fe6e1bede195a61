"""Text alternatives of a figure (WCAG 2.1 success criterion 1.1.1): a one-line summary of what it shows and the
numbers it is drawn from, as a table. Pure functions of a plotly figure, so every chart gets them the same way
(the app shows them under each chart; the slide deck beside each figure)."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..reading import span

#: rows of the numbers table at most (a heat map of 200 features has 40,000 cells; the first rows say what it holds)
MAX_ROWS = 400
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")


def plain(label) -> str:
    """A plotly label as plain text: tags (``<br>``, ``<b>``) removed, entities decoded."""
    text = _TAG.sub("", _BREAK.sub(" ", str(label or "")))
    return " ".join(html.unescape(text).split())


def _title(fig: go.Figure) -> str:
    return plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else ""


def _axis_title(axis) -> str:
    return plain(axis.title.text) if axis is not None and axis.title and axis.title.text else ""


def _values(arr) -> list:
    if arr is None:
        return []
    return [v.item() if isinstance(v, np.generic) else v for v in np.asarray(arr, dtype=object).ravel()]


def _trace_rows(trace, x_name: str, y_name: str, series: str) -> list[dict]:
    z = getattr(trace, "z", None)
    if z is not None:  # heat map: one row per cell
        grid = np.asarray(z, dtype=object)
        xs = _values(getattr(trace, "x", None)) or list(range(grid.shape[1] if grid.ndim > 1 else 1))
        ys = _values(getattr(trace, "y", None)) or list(range(grid.shape[0]))
        grid = grid.reshape(len(ys), -1) if grid.ndim == 1 else grid
        return [
            {
                "series": series,
                x_name: xs[j] if j < len(xs) else j,
                y_name: ys[i] if i < len(ys) else i,
                "value": grid[i, j],
            }
            for i in range(grid.shape[0])
            for j in range(grid.shape[1])
        ]
    xs, ys = _values(getattr(trace, "x", None)), _values(getattr(trace, "y", None))
    if not xs and not ys:
        return []
    if not xs:
        xs = list(range(len(ys)))
    if not ys:  # a histogram of raw values: the values themselves
        return [{"series": series, x_name: x} for x in xs]
    return [{"series": series, x_name: x, y_name: y} for x, y in zip(xs, ys)]


def figure_table(fig: go.Figure, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """The numbers a figure draws, one row per point (per cell of a heat map): its series (legend name), x and y
    under the axis titles, and ``value`` for heat maps; the first ``max_rows`` rows. A figure whose traces have no
    names has no series column (its first column would only repeat the trace's kind, "bar"); unnamed traces beside
    named ones are "series 2", "series 3"..."""
    x_name = _axis_title(fig.layout.xaxis) or "x"
    y_name = _axis_title(fig.layout.yaxis) or "y"
    if y_name == x_name:
        y_name = f"{y_name} (y)"
    named = any(plain(trace.name) for trace in fig.data)
    rows: list[dict] = []
    for i, trace in enumerate(fig.data):
        rows.extend(_trace_rows(trace, x_name, y_name, plain(trace.name) or f"series {i + 1}"))
        if len(rows) >= max_rows:
            break
    table = pd.DataFrame(rows[:max_rows])
    return table if named or table.empty else table.drop(columns="series")


def _span(values) -> str:
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    if numbers.empty:
        return ""
    return span(numbers.min(), numbers.max(), 3)


def figure_summary(fig: go.Figure) -> str:
    """One sentence saying what the figure shows: its title, its series and the range of its values."""
    table = figure_table(fig, max_rows=100_000)
    names = [n for n in dict.fromkeys(plain(t.name) for t in fig.data) if n]
    title = _title(fig) or "Chart"
    if table.empty:
        return f"{title}: no data."
    columns = [c for c in table.columns if c != "series"]
    x_name, y_name = columns[0], columns[1] if len(columns) > 1 else None
    parts = [
        f"{title}: {len(names) or len(fig.data)} series"
        + (f" ({', '.join(names[:6])}" + (", ..." if len(names) > 6 else "") + ")" if names else "")
    ]
    if "value" in table:
        parts.append(f"values {_span(table['value'])} over {x_name} and {y_name}")
    elif y_name is not None:
        parts.append(f"{y_name} {_span(table[y_name])} over {x_name} {_span(table[x_name])}".replace("  ", " "))
    else:
        parts.append(f"{len(table)} values of {x_name}, {_span(table[x_name])}")
    return "; ".join(parts) + "."

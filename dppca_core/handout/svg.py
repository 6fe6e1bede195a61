"""The handout's figures as inline SVG: no figure library, no script, printable, read by a screen reader (each
figure has a title and its numbers in a table beside it). Pure functions returning markup; every label escaped."""

from __future__ import annotations

import html

#: colours: positive and negative loadings, the scree's bars and its intervals, the score plot's darkest cell
POSITIVE, NEGATIVE, BAR, WHISKER, CELL = "#1f4e8c", "#b2182b", "#1f4e8c", "#111", (31, 78, 140)
FONT = "font-family='system-ui,sans-serif' font-size='12'"


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f"<svg class='figure' role='img' viewBox='0 0 {width:.0f} {height:.0f}' width='100%' "
        f"style='max-width:{width:.0f}px;max-height:30em' {FONT}>"
        f"<title>{_esc(title)}</title>{''.join(body)}</svg>"
    )


def _label(text: str, limit: int = 22) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def loadings_svg(columns: list, components: list, names: list, title: str) -> str:
    """Horizontal bars of each component's loadings (``components``: one list of d loadings per component, named by
    ``names``), one panel per component side by side, the columns named on the left, an axis from -1 to 1."""
    d = len(columns)
    row, left, panel, gap, top = 18, 160, 170, 44, 34
    width = left + len(components) * (panel + gap)
    height = top + d * row + 24
    body = []
    for j, column in enumerate(columns):
        y = top + j * row + row / 2 + 4
        body.append(f"<text x='{left - 6}' y='{y:.1f}' text-anchor='end'>{_esc(_label(column))}</text>")
    for c, (name, values) in enumerate(zip(names, components)):
        x0 = left + c * (panel + gap)
        mid = x0 + panel / 2
        body.append(f"<text x='{mid:.1f}' y='{top - 14}' text-anchor='middle' font-weight='600'>{_esc(name)}</text>")
        body.append(f"<line x1='{mid:.1f}' x2='{mid:.1f}' y1='{top - 4}' y2='{top + d * row}' stroke='#999'/>")
        for j, v in enumerate(values):
            v = max(min(float(v), 1.0), -1.0)
            w = abs(v) * panel / 2
            x = mid if v >= 0 else mid - w
            colour = POSITIVE if v >= 0 else NEGATIVE
            body.append(
                f"<rect x='{x:.1f}' y='{top + j * row + 3:.1f}' width='{w:.1f}' height='{row - 6}' "
                f"fill='{colour}'><title>{_esc(columns[j])}: {float(values[j]):.3f}</title></rect>"
            )
        for tick in (-1, 0, 1):
            body.append(
                f"<text x='{mid + tick * panel / 2:.1f}' y='{top + d * row + 16}' text-anchor='middle' "
                f"fill='#444'>{tick:g}</text>"
            )
    return _svg(width, height, title, body)


def scree_svg(names: list, shares: list, low: list, high: list, title: str) -> str:
    """Vertical bars of the shares of variance (0 to 100%) with their 95% intervals as whiskers."""
    k = len(shares)
    bar, gap, left, top, plot = 46, 22, 48, 14, 200
    width = left + k * (bar + gap) + gap
    height = top + plot + 34
    ceiling = min(1.0, max([*high, *shares, 0.05]) * 1.1)
    y = lambda v: top + plot * (1.0 - v / ceiling)  # noqa: E731
    body = [f"<line x1='{left}' x2='{width}' y1='{y(0):.1f}' y2='{y(0):.1f}' stroke='#999'/>"]
    for tick in range(0, 101, 10 if ceiling > 0.3 else 5):
        if tick / 100 <= ceiling + 1e-9:
            body.append(
                f"<text x='{left - 6}' y='{y(tick / 100) + 4:.1f}' text-anchor='end' fill='#444'>{tick}%</text>"
            )
    for i, (name, v, lo, hi) in enumerate(zip(names, shares, low, high)):
        x = left + gap + i * (bar + gap)
        body.append(
            f"<rect x='{x}' y='{y(v):.1f}' width='{bar}' height='{y(0) - y(v):.1f}' fill='{BAR}'>"
            f"<title>{_esc(name)}: {100 * v:.1f}% (95%: {100 * lo:.1f}% to {100 * hi:.1f}%)</title></rect>"
        )
        cx = x + bar / 2
        body.append(
            f"<path d='M{cx:.1f},{y(lo):.1f}V{y(hi):.1f}M{cx - 8:.1f},{y(lo):.1f}h16M{cx - 8:.1f},{y(hi):.1f}h16' "
            f"stroke='{WHISKER}' stroke-width='1.5' fill='none'/>"
        )
        body.append(f"<text x='{cx:.1f}' y='{top + plot + 18}' text-anchor='middle'>{_esc(name)}</text>")
    return _svg(width, height, title, body)


def _shade(value: float, top: float) -> str:
    t = 0.0 if top <= 0 else min(max(value / top, 0.0), 1.0)
    r, g, b = (round(255 - t * (255 - c)) for c in CELL)
    return f"rgb({r},{g},{b})"


def scores_svg(panels: dict, x_edges: list, y_edges: list | None, title: str) -> str:
    """The score plot: one panel per group (or every row), a grid of cells shaded by their count (two components)
    or bars over the first component (one), every panel on the same scale."""
    size, gap, left, top = 180, 26, 34, 22
    width = left + len(panels) * (size + gap)
    height = top + size + 30
    largest = max((max(_flat(c), default=0.0) for c in panels.values()), default=0.0)
    body = []
    for p, (name, counts) in enumerate(panels.items()):
        x0 = left + p * (size + gap)
        body.append(
            f"<text x='{x0 + size / 2:.1f}' y='{top - 8}' text-anchor='middle' font-weight='600'>{_esc(name)}</text>"
        )
        body.append(f"<rect x='{x0}' y='{top}' width='{size}' height='{size}' fill='none' stroke='#999'/>")
        if y_edges is None:
            w = size / max(len(counts), 1)
            for i, c in enumerate(counts):
                h = 0 if largest <= 0 else size * c / largest
                body.append(
                    f"<rect x='{x0 + i * w:.1f}' y='{top + size - h:.1f}' width='{w:.1f}' height='{h:.1f}' "
                    f"fill='{BAR}'><title>cell {i + 1}: {c:g}</title></rect>"
                )
            continue
        nx, ny = len(counts), len(counts[0]) if counts else 0
        w, h = size / max(nx, 1), size / max(ny, 1)
        for i in range(nx):
            for j in range(ny):  # component 2 upwards
                body.append(
                    f"<rect x='{x0 + i * w:.1f}' y='{top + size - (j + 1) * h:.1f}' width='{w + 0.3:.1f}' "
                    f"height='{h + 0.3:.1f}' fill='{_shade(counts[i][j], largest)}'><title>{counts[i][j]:g}</title>"
                    "</rect>"
                )
        body.append(f"<text x='{x0 + size / 2:.1f}' y='{top + size + 16}' text-anchor='middle'>component 1</text>")
    if y_edges is not None:
        body.append(
            f"<text x='12' y='{top + size / 2:.1f}' text-anchor='middle' transform='rotate(-90 12 "
            f"{top + size / 2:.1f})'>component 2</text>"
        )
    return _svg(width, height, title, body)


def _flat(counts) -> list:
    return [x for c in counts for x in _flat(c)] if isinstance(counts, list) else [float(counts)]

"""One student's release drawn simply, as inline SVG (small enough for a phone, no script, read by a screen reader
from its title): what the release would be without noise with Alice and without her, which the attacker knows, and
the release itself. Nothing here depends on whether Alice was in beyond the release itself."""

from __future__ import annotations

import html
import math

import numpy as np

from .game import GameSettings, angle, noise_scale, noiseless, pc1_table

#: colours: with Alice, without her, the release
WITH, WITHOUT, RELEASE = "#b34700", "#005a8c", "#111111"
FONT = "font-family='system-ui,sans-serif' font-size='13'"
#: hours either side of the middle of the two noiseless means that the number line shows
HALF_WIDTH = 2.1


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f"<svg role='img' viewBox='0 0 {width} {height}' width='100%' style='max-width:{width}px' {FONT}>"
        f"<title>{html.escape(title)}</title>{''.join(body)}</svg>"
    )


def describe(settings: GameSettings, release: dict) -> str:
    """The release and the two noiseless values in one sentence (the figure's title, and the words beside it)."""
    known = noiseless(settings.mechanism)
    if settings.mechanism == "mean":
        return (
            f"The release: {release['value']:.2f} hours. Without noise the average would be {known['out']:.2f} hours "
            f"without Alice and {known['in']:.2f} with her."
        )
    return (
        f"The release: a direction at {angle(release['direction']):.0f}°. Without noise it would be at "
        f"{angle(known['out']):.0f}° without Alice and at {angle(known['in']):.0f}° with her."
    )


def release_svg(settings: GameSettings, release: dict) -> str:
    """The student's release drawn with the two noiseless answers (:func:`describe` is its title)."""
    if settings.mechanism == "mean":
        return _mean_svg(settings, float(release["value"]))
    return _direction_svg(release["direction"], describe(settings, release))


def _bell(xs: np.ndarray, centre: float, sigma: float) -> np.ndarray:
    return np.exp(-0.5 * ((xs - centre) / sigma) ** 2) / sigma


def _mean_svg(settings: GameSettings, value: float) -> str:
    known = noiseless("mean")
    sigma = noise_scale(settings)
    width, height, left, right, base = 360, 170, 20, 340, 120
    middle = (known["in"] + known["out"]) / 2
    low, high = middle - HALF_WIDTH, middle + HALF_WIDTH

    def x_of(hours: float) -> float:
        return left + (min(max(hours, low), high) - low) / (high - low) * (right - left)

    xs = np.linspace(low, high, 121)
    top = max(_bell(xs, known["in"], sigma).max(), _bell(xs, known["out"], sigma).max())
    body = [f"<line x1='{left}' y1='{base}' x2='{right}' y2='{base}' stroke='#444'/>"]
    for hours in range(math.ceil(low), math.floor(high) + 1):
        x = x_of(hours)
        body.append(f"<line x1='{x:.1f}' y1='{base}' x2='{x:.1f}' y2='{base + 5}' stroke='#444'/>")
        body.append(f"<text x='{x:.1f}' y='{base + 19}' text-anchor='middle'>{hours} h</text>")
    for key, colour, label, anchor in (("out", WITHOUT, "without Alice", "end"), ("in", WITH, "with Alice", "start")):
        ys = base - 70 * _bell(xs, known[key], sigma) / top
        points = " ".join(f"{x_of(x):.1f},{y:.1f}" for x, y in zip(xs, ys))
        body.append(f"<polyline points='{points}' fill='none' stroke='{colour}' stroke-width='2'/>")
        x = x_of(known[key])
        body.append(
            f"<line x1='{x:.1f}' y1='{base - 78}' x2='{x:.1f}' y2='{base}' stroke='{colour}' stroke-dasharray='4 3'/>"
        )
        shift = -4 if anchor == "end" else 4
        body.append(f"<text x='{x + shift:.1f}' y='{base - 82}' text-anchor='{anchor}' fill='{colour}'>{label}</text>")
    x = x_of(value)
    off = value < low or value > high
    body.append(f"<circle cx='{x:.1f}' cy='{base}' r='7' fill='{RELEASE}'/>")
    words = f"release {value:.2f} h" + (" (off the scale)" if off else "")
    anchor = "start" if x < (left + right) / 2 else "end"
    body.append(f"<text x='{x:.1f}' y='{base + 40}' text-anchor='{anchor}' font-weight='bold'>{words}</text>")
    return _svg(width, height, describe(settings, {"value": value}), body)


def _direction_svg(direction, title: str) -> str:
    rows, alice = pc1_table()
    known = noiseless("pc1")
    size, pad = 300, 20
    width, height = size + 2 * pad, size + 2 * pad

    def point(x: float, y: float) -> tuple[float, float]:
        return pad + (x + 1) / 2 * size, pad + (1 - y) / 2 * size

    body = [
        f"<rect x='{pad}' y='{pad}' width='{size}' height='{size}' fill='none' stroke='#ccc'/>",
        f"<line x1='{pad}' y1='{pad + size / 2}' x2='{pad + size}' y2='{pad + size / 2}' stroke='#eee'/>",
        f"<line x1='{pad + size / 2}' y1='{pad}' x2='{pad + size / 2}' y2='{pad + size}' stroke='#eee'/>",
    ]
    lines = (
        (known["out"], WITHOUT, "4 3", 2, "without Alice"),
        (known["in"], WITH, "4 3", 2, "with Alice"),
        (direction, RELEASE, "", 4, "release"),
    )
    for vector, colour, dash, stroke, label in lines:
        (x1, y1), (x2, y2) = point(-vector[0], -vector[1]), point(vector[0], vector[1])
        body.append(
            f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{colour}' stroke-width='{stroke}' "
            f"stroke-dasharray='{dash}'/>"
        )
        tx, ty = point(0.78 * vector[0], 0.78 * vector[1])
        body.append(
            f"<text x='{tx + 6:.1f}' y='{ty:.1f}' fill='{colour}' font-weight='{'bold' if stroke > 2 else 'normal'}'>"
            f"{label}</text>"
        )
    for x, y in rows:
        cx, cy = point(x, y)
        body.append(f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='5' fill='#777'/>")
    ax, ay = point(*alice)
    body.append(f"<circle cx='{ax:.1f}' cy='{ay:.1f}' r='7' fill='none' stroke='{WITH}' stroke-width='2'/>")
    body.append(f"<text x='{ax + 10:.1f}' y='{ay + 4:.1f}' fill='{WITH}'>Alice's row</text>")
    return _svg(width, height, title, body)

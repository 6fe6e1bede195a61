"""The results a publishable file holds, for its brief and its deck: per release, its loadings by column name
(figure and table), its private scree with its 95% intervals, its score plot, and the R, scales and mean it used.

Every number comes from the file: the released components and score counts, and what the file's ``in_words`` says
of each release (:func:`dppca_core.reading.shares`, :func:`dppca_core.reading.used`, post-processing of published
values). Figures are inline SVG (:mod:`.svg`), each beside a table of its numbers. Pure functions; every string
escaped.
"""

from __future__ import annotations

import html

import pandas as pd

from dppca_core import reading
from dppca_core.reading import number

from .slides import Slide
from .svg import loadings_svg, scores_svg, scree_svg

#: at most this many components in a loadings figure (the table beside it lists them all)
FIGURE_COMPONENTS = 4

LOADINGS_NOTE = (
    "Each component is a direction across the columns; a column's loading is its weight in that direction (the "
    "squares of one component's loadings add up to 1). A component's sign means nothing: flipping every loading's "
    "sign describes the same direction."
)
SCORES_NOTE = (
    "How many rows fall in each cell when every row is projected on the first components (rows divided by R), "
    "counted with noise: a noisy count below 0 is shown as 0. Darker cells hold more rows."
)


def _esc(value) -> str:
    return html.escape(str(value))


def _names(k: int) -> list[str]:
    return [f"PC{i + 1}" for i in range(k)]


def columns_of(file: dict, rel: dict) -> list[str]:
    """The column names of a release's rows: the public schema's, or "feature j" when the file names none."""
    return list(file["schema"].get("columns") or [f"feature {j + 1}" for j in range(len(rel["components"]))])


def loadings_table(file: dict, mech: str) -> pd.DataFrame:
    """One row per column: its loading on each released component (as released)."""
    rel = file["releases"][mech]
    k = len(rel["components"][0]) if rel["components"] else 0
    frame = pd.DataFrame(rel["components"], columns=_names(k))
    frame.insert(0, "column", columns_of(file, rel))
    return frame.round(3)


def loadings_figure(file: dict, mech: str) -> str:
    rel = file["releases"][mech]
    table = loadings_table(file, mech)
    shown = _names(min(len(table.columns) - 1, FIGURE_COMPONENTS))
    return loadings_svg(
        list(table["column"]),
        [[float(v) for v in rel_column] for rel_column in zip(*rel["components"])][: len(shown)],
        shown,
        f"Loadings of {rel['title']}'s components, by column",
    )


def shares_table(shares: dict) -> pd.DataFrame | None:
    if shares["shares"] is None:
        return None
    return pd.DataFrame(
        {
            "component": _names(len(shares["shares"])),
            "share of variance": [f"{100 * v:.1f}%" for v in shares["shares"]],
            "95% from": [f"{100 * v:.1f}%" for v in shares["low"]],
            "95% to": [f"{100 * v:.1f}%" for v in shares["high"]],
        }
    )


def scree_parts(file: dict, mech: str) -> tuple[str, str, pd.DataFrame | None]:
    """(a sentence, the figure or "", its table or None) of a release's private scree: shown only when the release
    measured its shares honestly (its own eigenvalue share); otherwise the sentence says why not."""
    shares = file["in_words"][mech].get("shares") or reading.shares(file["releases"][mech])  # a file made before them
    if shares["measured"] != "yes":
        why = (
            shares["sentence"]
            if shares["measured"] == "too noisy"
            else "No private scree: the budget split gave the eigenvalues no share, so this release measured no share "
            "of variance it can vouch for."
        )
        return why, "", None
    figure = scree_svg(
        _names(len(shares["shares"])),
        shares["shares"],
        shares["low"],
        shares["high"],
        f"Private scree of {file['releases'][mech]['title']}",
    )
    total = f" Together they hold {100 * shares['total']:.1f}% of the variance." if shares["total"] is not None else ""
    return shares["sentence"] + total, figure, shares_table(shares)


def score_parts(file: dict, mech: str) -> tuple[str, str]:
    """(a sentence, the figure) of a release's score plot, or ("", "") when it published none."""
    panels = reading.score_panels(file["releases"][mech])
    if panels is None:
        return "", ""
    ex, ey = panels["edges"]
    groups = list(panels["panels"])
    by = f" One panel per group: {', '.join(groups)}." if groups != ["every row"] else ""
    title = f"Score plot of {file['releases'][mech]['title']}"
    return SCORES_NOTE + by, scores_svg(panels["panels"], ex, ey, title)


def used_parts(file: dict, mech: str) -> tuple[str, pd.DataFrame]:
    """(a sentence on R, the scaling and the centring, a table per column: divided by, mean) of what a release
    used."""
    used = file["in_words"][mech].get("used") or reading.used(
        file["releases"][mech], file["settings"], file["schema"].get("columns")
    )
    R = (
        ""
        if used["radius"] is None
        else f"Clipping radius R = {number(used['radius'])} ({used['radius_rule']}): every longer row was shortened to "
        "length R. "
    )
    sentence = (
        R
        + f"Scaling: {used['scale_rule']}. "
        + (
            "Centred with the release's private mean (in each column's own unit below)."
            if used["centred"]
            else "Not centred."
        )
    )
    table = pd.DataFrame(used["columns"])
    table["divided by"] = [number(v) for v in table["divided by"]]
    if used["centred"]:
        table["mean"] = [number(v) for v in table["mean"]]
    else:
        table = table.drop(columns="mean")
    return sentence, table


def table_html(table: pd.DataFrame) -> str:
    return table.to_html(index=False, border=0, escape=True)


def release_html(file: dict, mech: str) -> str:
    """One release's results for the brief: loadings, private scree, score plot, what it used."""
    rel = file["releases"][mech]
    scree_words, scree_figure, scree_table = scree_parts(file, mech)
    score_words, score_figure = score_parts(file, mech)
    used_words, used_table = used_parts(file, mech)
    parts = [
        f"<h3>{_esc(rel['title'])}</h3>",
        "<h4>Loadings by column</h4>",
        f"<div class='fig'>{loadings_figure(file, mech)}</div>",
        f"<p class='note'>{_esc(LOADINGS_NOTE)}</p>",
        table_html(loadings_table(file, mech)),
        "<h4>Private scree</h4>",
        (f"<div class='fig'>{scree_figure}</div>" if scree_figure else ""),
        f"<p class='note'>{_esc(scree_words)}</p>",
        table_html(scree_table) if scree_table is not None else "",
    ]
    if score_figure:
        parts += [
            "<h4>Score plot</h4>",
            f"<div class='fig'>{score_figure}</div>",
            f"<p class='note'>{_esc(score_words)}</p>",
        ]
    parts += ["<h4>What it used: R, scales, mean</h4>", f"<p>{_esc(used_words)}</p>", table_html(used_table)]
    return "".join(parts)


def results_html(file: dict) -> str:
    """The brief's results: every release's, in the file's order."""
    return "".join(release_html(file, mech) for mech in file["releases"])


def release_slides(file: dict, mech: str) -> list:
    """One release's results as slides: loadings, private scree, score plot (when published), what it used."""
    title = file["releases"][mech]["title"]
    scree_words, scree_figure, scree_table = scree_parts(file, mech)
    score_words, score_figure = score_parts(file, mech)
    used_words, used_table = used_parts(file, mech)
    out = [
        Slide(
            f"Loadings by column: {title}",
            [LOADINGS_NOTE],
            table=loadings_table(file, mech),
            figure_html=loadings_figure(file, mech),
        ),
        Slide(f"Private scree: {title}", [scree_words], table=scree_table, figure_html=scree_figure),
    ]
    if score_figure:
        out.append(Slide(f"Score plot: {title}", [score_words], figure_html=score_figure))
    out.append(Slide(f"What it used: {title}", [used_words], table=used_table))
    return out

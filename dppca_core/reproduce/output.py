"""What a reproduction shows: its plotly figure (:func:`figure`), the HTML pages, CSV files and PNG images the
command writes (:func:`write`, :func:`render_png`) and its section of docs/reproduce.md (:func:`to_markdown`)."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import pandas as pd

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..figures.base import PALETTE, PLOTLY_CONFIG, color_or_grey, marker_of
from .core import NON_PRIVATE, PAPERS, RANDOM, Panel, Reproduction, assemble, config


# --------------------------------------------------------------------------------------------- figure


_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")


def _style(mechanism: str, series: str, index: int, used: dict) -> dict:
    """Line colour and dash of a series: references grey/black, mechanisms their registry colour; curves of one
    mechanism at several settings get palette colours (labels 'ε = …', 'δ = …') or, otherwise, other dashes."""
    if mechanism == RANDOM:
        return dict(color="#999", dash="dot")
    if mechanism in (NON_PRIVATE, "otd_non_private"):
        return dict(color="#333", dash="dash")
    n = used.get(mechanism, 0)
    used[mechanism] = n + 1
    if series.startswith(("ε", "δ")):
        return dict(color=PALETTE[index % len(PALETTE)], dash="solid")
    base = color_or_grey(mechanism)
    return dict(color=PALETTE[index % len(PALETTE)] if base == "#888" else base, dash=_DASHES[n % len(_DASHES)])


def _log_ticks(values) -> dict:
    """Decades only when a log axis spans more than ~1.5 decades (no crowded 2-5 labels), else plotly's own."""
    v = np.asarray([x for x in values if x > 0], dtype=float)
    return dict(dtick=1) if v.size and v.max() / v.min() > 30 else {}


_SYMBOLS = ("circle", "circle-open", "diamond-open", "x", "square-open", "triangle-up-open", "cross")


def _symbols(summary) -> dict:
    """A marker symbol for each algorithm that shares a series with another (a fallback, a run with the paper's
    noise that is private at some points and not at others); every other point keeps the filled circle."""
    mixed = []
    for _, g in summary.groupby("series", sort=False):
        algos = list(dict.fromkeys(g.algorithm))
        if len(algos) > 1:
            mixed += [a for a in algos if a not in mixed]
    # the paper's algorithm (or noise private as stated) keeps the filled circle; fallbacks get the open ones
    mixed.sort(key=lambda a: ("fallback" in a or "not private" in a))
    return {algo: _SYMBOLS[i % len(_SYMBOLS)] for i, algo in enumerate(mixed)}


def _mark(fig, panel: Panel, panel_rows, x: float, text: str, r: int, c: int, level: int) -> None:
    """A dotted vertical line at ``x`` across the panel's values (a threshold) and its text at the top of the
    panel (``level``: how many marks of the panel are above it, so that texts do not overlap)."""
    lo, hi = float(np.nanmin(panel_rows["lo"])), float(np.nanmax(panel_rows["hi"]))
    fig.add_trace(
        go.Scatter(
            x=[x, x],
            y=[lo, hi],
            mode="lines",
            line=dict(color="#777", dash="dot", width=1),
            showlegend=False,
            name=html.escape(text),
            hovertemplate=html.escape(text) + "<extra></extra>",
        ),
        row=r,
        col=c,
    )
    # annotations on a log axis take the decimal logarithm of the position
    fig.add_annotation(
        x=math.log10(x) if panel.log_x else x,
        y=1.0 - 0.07 * level,
        yref="y domain",
        text=html.escape(text.split(";")[0]),
        showarrow=False,
        xanchor="left",
        font=dict(size=10, color="#555"),
        row=r,
        col=c,
    )


def figure(rep: Reproduction, title: bool = True) -> go.Figure:
    """Mean and 95% band over repetitions per series, one subplot per panel; reference lines dotted/dashed.
    Where a series mixes algorithms (a fallback below a threshold, a paper's noise that is private only at some
    points) each point's marker names its algorithm (legend entries 'marker: …'; the algorithm on hover), and
    the reproduction's ``marks`` draw dotted vertical lines (thresholds).
    ``title=False`` leaves the reproduction's name out (for a page that shows it as a heading)."""
    summary = rep.summary
    symbols = _symbols(summary)
    panels = [p for p in rep.panels if p.name in set(summary.panel)]
    if not panels:
        raise ValueError("no panel has results to draw.")
    cols = max(1, min(rep.cols, len(panels)))
    nrows = math.ceil(len(panels) / cols)
    fig = make_subplots(
        rows=nrows,
        cols=cols,
        subplot_titles=[html.escape(p.name) for p in panels],
        horizontal_spacing=0.08 if cols > 1 else 0.02,
        vertical_spacing=0.16 if nrows > 1 else 0.1,
    )
    shown: set = set()
    for i, panel in enumerate(panels):
        r, c = i // cols + 1, i % cols + 1
        s = summary[summary.panel == panel.name]
        _add_series(fig, rep, s, symbols, shown, r, c)
        for level, (_, x, text) in enumerate(m for m in rep.marks if m[0] == panel.name):
            _mark(fig, panel, s, x, text, r, c, level)
        for update, axis_title, log, values in (
            (fig.update_xaxes, panel.x_title, panel.log_x, s.x),
            (fig.update_yaxes, panel.y_title, panel.log_y, np.r_[s["lo"], s["hi"]]),
        ):
            ticks = _log_ticks(values) if log else {}
            update(
                title_text=html.escape(axis_title),
                type="log" if log else "linear",
                exponentformat="power",
                row=r,
                col=c,
                **ticks,
            )
    for algo, symbol in symbols.items():  # a legend entry per marker: which algorithm produced the point
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=html.escape(f"marker: {algo}"),
                marker=dict(symbol=symbol, size=9, color="#555", line=dict(width=1.5)),
                hoverinfo="skip",
            ),
            row=1,
            col=1,
        )
    fig.update_layout(
        template="plotly_white",
        height=380 * nrows + 110,
        margin=dict(l=60, r=20, t=70, b=50),
        title=dict(
            text=(html.escape(rep.title) + " — m" if title else "M") + "ean and 95% band over "
            f"{rep.reps} repetition{'s' * (rep.reps != 1)}",
            font=dict(size=15),
        ),
        legend=dict(orientation="h", y=-0.2 if nrows == 1 else -0.09, yanchor="top"),
    )
    for ann in fig.layout.annotations:
        if ann.yref == "paper":  # the subplot titles (the marks' texts keep their own size)
            ann.font = dict(size=12)
    return fig


def _add_series(fig: go.Figure, rep: Reproduction, s, symbols: dict, shown: set, r: int, c: int) -> None:
    """One panel's series of :func:`figure` in subplot (r, c): each one's 95% band (when it has width) and its
    mean, the markers naming the algorithm of each point when ``symbols`` has them; a series' name enters the legend
    once (``shown``)."""
    used: dict = {}
    for j, (series, g) in enumerate(s.groupby("series", sort=False)):
        g = g.sort_values("x")
        style = {**_style(str(g.mechanism.iloc[0]), str(series), j, used), **rep.styles.get(series, {})}
        name = html.escape(str(series))
        band = g["hi"].to_numpy() - g["lo"].to_numpy()
        if np.any(band > 1e-12):
            fig.add_trace(
                go.Scatter(
                    x=np.r_[g.x, g.x[::-1]],
                    y=np.r_[g["hi"], g["lo"][::-1]],
                    fill="toself",
                    mode="lines",
                    fillcolor=style["color"],
                    opacity=0.18,
                    line=dict(width=0),
                    showlegend=False,
                    hoverinfo="skip",
                    legendgroup=name,
                ),
                row=r,
                col=c,
            )
        marker = dict(size=6, symbol=marker_of(str(g.mechanism.iloc[0]))["symbol"])  # a family's members told apart
        if symbols and set(g.algorithm) & set(symbols):
            marker = dict(size=8, symbol=[symbols.get(a, "circle") for a in g.algorithm], line=dict(width=1.5))
        fig.add_trace(
            go.Scatter(
                x=g.x,
                y=g["mean"],
                mode="lines+markers",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
                line=dict(color=style["color"], dash=style["dash"]),
                marker=marker,
                customdata=[html.escape(a) for a in g.algorithm],
                hovertemplate="%{x:g}: %{y:.4g}<br>%{customdata}<extra>" + name + "</extra>",
            ),
            row=r,
            col=c,
        )
        shown.add(name)


# --------------------------------------------------------------------------------------------- output


def refs_markdown(rep: Reproduction, base: str = "../papers.md") -> str:
    return ", ".join(f"[{label}]({base}#{anchor})" for label, anchor in rep.refs)


def _html_block(rep: Reproduction, fig_html: str, base: str, csv_name: str | None) -> str:
    esc = html.escape
    refs = ", ".join(f'<a href="{esc(base)}#{esc(a)}">{esc(label)}</a>' for label, a in rep.refs)
    paper = PAPERS[rep.paper]
    shown = "".join(f"<li>{esc(line)}</li>" for line in rep.paper_figure)
    csv = f' · <a href="{esc(csv_name)}">data (CSV)</a>' if csv_name else ""
    took = f" · computed in {rep.seconds:.1f} s" if math.isfinite(rep.seconds) else ""
    return (
        f'<section id="{esc(rep.key)}"><h2>{esc(rep.title)}</h2>'
        f'<p class="cite">{esc(paper.citation)}</p>'
        f'<p class="settings">{esc(rep.settings)}{took}{csv}</p>{fig_html}'
        f'<div class="texts"><div><h3>What the paper reports</h3><p>{esc(rep.claim)}</p>'
        f"<p><b>The paper's figure:</b></p><ul>{shown}</ul></div>"
        f"<div><h3>What we find</h3><p>{esc(rep.finding)}</p></div>"
        f"<div><h3>Where ours differs, and why</h3><p>{esc(rep.difference)}</p>"
        f'<p class="refs">Details: {refs}</p></div></div>'
        f'<h3>Which algorithm produced each point</h3><ul class="algos">{_items(rep.algorithms)}</ul>'
        f"{_claims_html(rep)}</section>"
    )


def _items(lines) -> str:
    return "".join(f"<li>{html.escape(line)}</li>" for line in lines)


def _claims_html(rep: Reproduction) -> str:
    if not rep.claims:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(c.claim)}</td><td>{html.escape(c.status)}</td>" f"<td>{html.escape(c.why)}</td></tr>"
        for c in rep.claims
    )
    return (
        "<h3>The paper's claims</h3><table><tr><th>claim</th><th>here</th><th>why, and the measurement</th></tr>"
        + rows
        + "</table>"
    )


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1300px;margin:auto;padding:1em;color:#222}"
    ".texts{display:grid;grid-template-columns:repeat(3,1fr);gap:1.2em;font-size:.92em}"
    ".cite,.settings,.refs{color:#555;font-size:.9em}h2{margin-top:2em;border-top:1px solid #ddd;padding-top:1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.3em .6em;text-align:left}"
)


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>{body}</body></html>"
    )


def _fig_html(rep: Reproduction, include_plotlyjs) -> str:
    return figure(rep).to_html(
        full_html=False, include_plotlyjs=include_plotlyjs, config=PLOTLY_CONFIG, default_width="100%"
    )


def _index_table(reps: list[Reproduction], links: bool) -> str:
    rows = []
    for rep in reps:
        name = (
            f'<a href="{rep.key}.html">{html.escape(rep.title)}</a>'
            if links
            else f'<a href="#{rep.key}">{html.escape(rep.title)}</a>'
        )
        took = f"{rep.seconds:.1f}" if math.isfinite(rep.seconds) else "—"
        rows.append(
            f"<tr><td>{html.escape(PAPERS[rep.paper].title)}</td><td>{name}</td>"
            f'<td><a href="{rep.key}.csv">{rep.key}.csv</a></td><td>{took}</td></tr>'
        )
    return (
        "<table><tr><th>paper</th><th>reproduction</th><th>data</th><th>seconds</th></tr>" + "".join(rows) + "</table>"
    )


def write(
    reproductions: list[Reproduction],
    out: str | Path,
    combined: bool = False,
    png: bool = False,
    papers_link: str = "../papers.md",
) -> list[Path]:
    """Write each reproduction's CSV, its HTML (one standalone page each, or all in ``index.html`` when
    ``combined``) and ``index.html`` into ``out``; with ``png`` also ``<key>.png`` (needs Playwright and Chromium).
    Returns the paths written."""
    if not reproductions:
        raise ValueError("nothing to write: give at least one reproduction.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for rep in reproductions:
        path = out / f"{rep.key}.csv"
        rep.frame.to_csv(path, index=False)
        written.append(path)
    head = (
        "<h1>Reproductions of the seed papers</h1><p>Each figure re-runs a paper's synthetic experiment with "
        "this library's mechanisms: mean and 95% band over repetitions. Errors are diagnostics against the "
        "planted truth, not private releases. Made by <code>python -m dppca_core.reproduce</code>.</p>"
    )
    if combined:
        blocks = [
            _html_block(rep, _fig_html(rep, i == 0), papers_link, f"{rep.key}.csv")
            for i, rep in enumerate(reproductions)
        ]
        path = out / "index.html"
        path.write_text(
            _page("Reproductions", head + _index_table(reproductions, links=False) + "".join(blocks)), encoding="utf-8"
        )
        written.append(path)
    else:
        for rep in reproductions:
            path = out / f"{rep.key}.html"
            body = '<p><a href="index.html">All reproductions</a></p>' + _html_block(
                rep, _fig_html(rep, True), papers_link, f"{rep.key}.csv"
            )
            path.write_text(_page(rep.title, body), encoding="utf-8")
            written.append(path)
        path = out / "index.html"
        path.write_text(_page("Reproductions", head + _index_table(reproductions, links=True)), encoding="utf-8")
        written.append(path)
    written.append(_write_manifest(reproductions, out))
    if png:
        written += render_png(reproductions, out)
    return written


MANIFEST = "manifest.json"


def _plain(value):
    """JSON's view of a setting (tuples become lists), for comparing a manifest with the current grids."""
    return json.loads(json.dumps(value))


def _write_manifest(reproductions: list[Reproduction], out: Path) -> Path:
    """``manifest.json``: per reproduction the grid, repetitions, seed, settings and times of the run whose CSV
    sits beside it, merged into an existing manifest (so one reproduction can be re-run on its own)."""
    path = out / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for rep in reproductions:
        manifest[rep.key] = {
            "grid": rep.grid,
            "reps": rep.reps,
            "seed": rep.seed,
            "config": _plain(rep.config),
            "seconds": round(rep.seconds, 2) if math.isfinite(rep.seconds) else None,
            "cpu_seconds": round(rep.cpu_seconds, 2) if math.isfinite(rep.cpu_seconds) else None,
        }
    path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    return path


def load(key: str, folder: str | Path, grid: str = "default", reps: int | None = None, seed: int = 0):
    """The reproduction ``key`` from the files :func:`write` left in ``folder`` (its CSV and ``manifest.json``),
    assembled without re-running anything; None when they are missing or were made with other settings than
    (``grid``, ``reps`` (None: the grid's own), ``seed``) on the current grid."""
    folder = Path(folder)
    try:
        entry = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))[key]
        frame = pd.read_csv(folder / f"{key}.csv", keep_default_na=False, na_values=[""])
    except (OSError, KeyError, ValueError):
        return None
    cfg = config(key, grid)
    wanted = int(cfg["reps"]) if reps is None else int(reps)
    if (
        (entry.get("grid"), entry.get("reps"), entry.get("seed")) != (grid, wanted, seed)
        or entry.get("config") != _plain(cfg)
        or "algorithm" not in frame
    ):
        return None
    seconds = entry.get("seconds")
    cpu = entry.get("cpu_seconds")
    return assemble(
        key,
        frame.to_dict("records"),
        grid,
        wanted,
        seed,
        math.nan if seconds is None else seconds,
        cpu_seconds=math.nan if cpu is None else cpu,
    )


def render_png(
    reproductions: list[Reproduction], out: str | Path, chromium: str = "/usr/bin/chromium", width: int = 1300
) -> list[Path]:
    """Each reproduction's figure as ``<key>.png``, rendered by a headless Chromium through Playwright.

    Playwright's synchronous API refuses to start in a thread whose asyncio loop is running (a Jupyter
    kernel, or another open Playwright session); the rendering then runs in a worker thread of its own.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _render_png(reproductions, out, chromium, width)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_render_png, reproductions, out, chromium, width).result()


def _render_png(reproductions: list[Reproduction], out: str | Path, chromium: str, width: int) -> list[Path]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ValueError("PNG output needs Playwright (pip install playwright) and a Chromium; or drop --png.") from exc
    import plotly

    js = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")
    out = Path(out)
    paths = []
    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": width, "height": 900}, device_scale_factor=1.5)
        for rep in reproductions:
            fig = figure(rep)
            fig.update_layout(width=width - 40)
            body = fig.to_html(full_html=False, include_plotlyjs=False, config={"staticPlot": True})
            page.set_content(f"<html><head><script>{js}</script></head><body style='margin:0'>{body}</body></html>")
            page.wait_for_selector(".main-svg", timeout=60_000)
            path = out / f"{rep.key}.png"
            page.locator(".js-plotly-plot").first.screenshot(path=str(path))
            paths.append(path)
        browser.close()
    finally:
        pw.stop()
    return paths


def to_markdown(rep: Reproduction, image: str | None = None, papers_link: str = "papers.md") -> str:
    """A section of docs/reproduce.md for one reproduction."""
    paper = PAPERS[rep.paper]
    lines = [f"### {rep.title}", "", f"*{paper.citation}.* {rep.settings}", ""]
    if image:
        lines += [f"![{rep.title}]({image})", ""]
    lines += [
        f"**What the paper reports.** {rep.claim}",
        "",
        "**The paper's figure.** " + " ".join(rep.paper_figure),
        "",
        f"**What we find.** {rep.finding}",
        "",
        f"**Where ours differs, and why.** {rep.difference} (Details: {refs_markdown(rep, papers_link)}.)",
        "",
        "**Which algorithm produced each point.**",
        "",
    ]
    lines += [f"* {line}" for line in rep.algorithms] + [""]
    if rep.claims:
        lines += ["**The paper's claims, one by one.**", ""] + claims_markdown(rep.claims) + [""]
    return "\n".join(lines)


def update_docs(reproductions: list[Reproduction], docs: str | Path, images: str = "reproduce") -> list[Path]:
    """Rewrite the generated parts of ``docs``/reproduce.md (everything from its heading 'The reproductions' on)
    and of ``docs``/papers.md (between the lines ``<!-- claims:start -->`` and ``<!-- claims:end -->``) from
    these reproductions. Returns the paths written."""
    docs = Path(docs)
    page = docs / "reproduce.md"
    text = page.read_text(encoding="utf-8")
    head = text[: text.index(_SECTIONS)] if _SECTIONS in text else text.rstrip() + "\n\n"
    body = [_SECTIONS, ""]
    for rep in reproductions:
        body += [f'<a id="{rep.key}"></a>', "", to_markdown(rep, image=f"{images}/{rep.key}.png")]
    page.write_text(head + "\n".join(body).rstrip() + "\n", encoding="utf-8")
    papers = docs / "papers.md"
    text = papers.read_text(encoding="utf-8")
    start, end = text.index(_CLAIMS_START), text.index(_CLAIMS_END)
    papers.write_text(
        text[: start + len(_CLAIMS_START)] + "\n" + "\n".join(papers_claims(reproductions)) + "\n" + text[end:],
        encoding="utf-8",
    )
    return [page, papers]


_SECTIONS = "## The reproductions"
_CLAIMS_START, _CLAIMS_END = "<!-- claims:start -->", "<!-- claims:end -->"


def papers_claims(reproductions: list[Reproduction]) -> list[str]:
    """Per paper, each claim we reproduce, each we do not, and why, with the command that measures it."""
    lines = []
    for paper, group in pd.Series(reproductions, dtype=object).groupby([r.paper for r in reproductions], sort=False):
        lines += ["", f"#### {PAPERS[paper].title}", ""]
        for rep in group:
            lines += [
                f"*{rep.title}* ([figure and texts](reproduce.md#{rep.key})), measured by "
                f"`python -m dppca_core.reproduce --only {rep.key} --out DIR` ({rep.grid} grid, {rep.reps} "
                f"repetitions, seed {rep.seed}):",
                "",
            ]
            lines += claims_markdown(rep.claims) + [""]
    return lines


def claims_markdown(claims) -> list[str]:
    """The paper's claims as a markdown table (claim, what we find, why with the measurement)."""
    out = ["| the paper's claim | here | why, and the measurement |", "|---|---|---|"]
    return out + [f"| {c.claim} | {c.status} | {c.why} |".replace("\n", " ") for c in claims]

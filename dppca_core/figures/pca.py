"""Figures of the PCA views: spectra, loadings, spread over repetitions, sweeps, convergence, support.

Pure functions: arrays in, plotly figures out. User-provided names (columns, labels) go through
:func:`dppca_core.figures.base.text`, so plotly shows any HTML in them as text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .base import band, bar_marker, color_or_grey, layout, marker_of, name, nonempty, swept_axis, text, white_template
from .release import (
    BUDGET_LABEL_PX as BUDGET_LABEL_PX,
    BUDGET_PARTS as BUDGET_PARTS,
    SCORE_TITLES as SCORE_TITLES,
    axis_edges as axis_edges,
    budget_bar as budget_bar,
    private_scree as private_scree,
    score_heatmaps as score_heatmaps,
)


def scree(eigenvalues: np.ndarray, k: int, top: int = 30) -> go.Figure:
    vals = np.asarray(eigenvalues)[:top]
    share = 100 * vals / max(np.sum(eigenvalues), 1e-300)
    fig = go.Figure(
        go.Bar(
            x=np.arange(1, len(vals) + 1),
            y=share,
            marker_color=["#1f77b4" if i < k else "#b0c4de" for i in range(len(vals))],
        )
    )
    fig.update_xaxes(title="component")
    fig.update_yaxes(title="% of total energy")
    return layout(fig, f"Scree plot (first {k} highlighted)")


def loadings(V: np.ndarray, columns: list, title: str = "Leading loadings") -> go.Figure:
    V = np.asarray(V)
    fig = go.Figure(
        go.Heatmap(
            z=V.T,
            x=[text(c) for c in columns],
            y=[f"PC{i + 1}" for i in range(V.shape[1])],
            colorscale="RdBu",
            zmid=0,
            zmin=-1,
            zmax=1,
        )
    )
    fig.update_yaxes(autorange="reversed")
    longest = max((len(str(c)) for c in columns), default=1)  # rotated feature names below the cells
    return layout(fig, title, height=min(140 + 40 * V.shape[1] + 7 * longest, 640))


def loadings_compare(reference: np.ndarray, private: dict, columns: list, component: int = 0) -> go.Figure:
    """Loadings of one component: non-private reference vs each mechanism (aligned by Procrustes)."""
    fig = go.Figure()
    x = [text(c) for c in columns]
    fig.add_trace(go.Bar(x=x, y=reference[:, component], name="non-private", marker_color="#444"))
    for mech, V in private.items():
        fig.add_trace(go.Bar(x=x, y=V[:, component], name=name(mech), marker=bar_marker(mech)))
    fig.update_layout(barmode="group")
    return layout(fig, f"Loadings of component {component + 1}: true vs private (aligned)", height=460)


#: the quantile dot plot's geometry, in units of one mechanism's row (rows at 0, 1, ...; each owns [r - 0.5, r + 0.5]):
#: a stack starts at r + DOT_BASE and its top dot's centre is at most at r + DOT_TOP; DOT_STEP is the largest step
DOT_BASE, DOT_TOP, DOT_STEP = -0.3, 0.38, 0.1
#: pixels of the figure's height outside the plotting area (title, margins, axis title, legend), at most
DOT_FRAME_PX = 150
DOT_MAX_SIZE, DOT_MIN_SIZE = 10, 3


def dot_stacks(q: np.ndarray, width: float) -> np.ndarray:
    """The height (0, 1, 2, ...) of each quantile in its stack: quantiles closer than ``width`` share a bin."""
    bins = np.round(np.asarray(q, dtype=float) / width).astype(int)
    stack = np.zeros(len(bins))
    seen: dict = {}
    for i, b in enumerate(bins):
        stack[i] = seen.get(b, 0)
        seen[b] = stack[i] + 1
    return stack


def dot_geometry(tallest: int, rows: int, height: int) -> tuple[float, float]:
    """(step between stacked dots in row units, marker diameter in px) so that a stack of ``tallest`` dots stays
    inside its row's band at a figure ``height`` px tall: the step shrinks for tall stacks (every repetition at the
    same value, e.g. at large ε) and the dots with it, never below DOT_MIN_SIZE px."""
    step = min(DOT_STEP, (DOT_TOP - DOT_BASE) / max(tallest - 1, 1))
    px_per_row = max(height - DOT_FRAME_PX, 40) / max(rows, 1)
    size = float(np.clip(step * px_per_row * 1.2, DOT_MIN_SIZE, DOT_MAX_SIZE))
    # the dot's radius must also fit between the band's edges and the stack's first and last centres
    room = min(DOT_BASE + 0.5, 0.5 - DOT_TOP) * px_per_row * 2
    return step, min(size, max(room, DOT_MIN_SIZE))


def quantile_dotplot(
    values: dict, metric_label: str, n_dots: int = 20, x_range: tuple | None = None, reference: float | None = None
) -> go.Figure:
    """Quantile dotplot: ``n_dots`` quantiles of each mechanism's metric, stacked into dots.

    ``x_range`` fixes the axis (so a change of epsilon moves the dots, not the axis); dots closer than 1/60 of
    the axis stack, each stack inside its mechanism's row (:func:`dot_geometry`). ``reference`` draws the
    no-information level (a random subspace) as a dotted line.
    """
    fig = go.Figure()
    lo_hi = x_range or (min(float(np.min(v)) for v in values.values()), max(float(np.max(v)) for v in values.values()))
    width = max(lo_hi[1] - lo_hi[0], 1e-9) / 60.0
    quantiles = {
        mech: np.quantile(np.asarray(v, dtype=float), (np.arange(n_dots) + 0.5) / n_dots) for mech, v in values.items()
    }
    stacks = {mech: dot_stacks(q, width) for mech, q in quantiles.items()}
    height = 180 + 70 * len(values)
    tallest = int(max((s.max() for s in stacks.values()), default=0)) + 1
    step, size = dot_geometry(tallest, len(values), height)
    for row, mech in enumerate(values):
        fig.add_trace(
            go.Scatter(
                x=quantiles[mech],
                y=row + DOT_BASE + step * stacks[mech],
                mode="markers",
                name=name(mech),
                showlegend=False,
                marker=dict(size=size, **marker_of(mech)),
                hovertemplate="%{x:.3g}<extra>" + name(mech) + "</extra>",
            )
        )
    if reference is not None:
        fig.add_trace(
            go.Scatter(
                x=[reference, reference],
                y=[-0.5, len(values) - 0.5],
                mode="lines",
                name="random subspace (no information)",
                line=dict(dash="dot", color="#999"),
            )
        )
    fig.update_yaxes(
        tickvals=[row + DOT_BASE for row in range(len(values))],
        ticktext=[name(m) for m in values],
        title=None,
        range=[-0.5, len(values) - 0.5],
        showgrid=False,
        zeroline=False,
    )
    fig.update_xaxes(title=metric_label, range=list(x_range) if x_range else None)
    return layout(fig, f"Quantile dotplot over repetitions ({n_dots} dots = {100 // n_dots}% each)", height=height)


def projection(Xs: np.ndarray, reference: np.ndarray, private: dict, labels=None, max_points: int = 600) -> go.Figure:
    """Data projected on the first two non-private vs private components (private aligned to reference)."""
    idx = np.linspace(0, Xs.shape[0] - 1, min(max_points, Xs.shape[0])).astype(int)
    X = Xs[idx]
    fig = go.Figure()
    series = [("non-private", reference, dict(color="#444"))]
    series += [(name(mech), V, marker_of(mech)) for mech, V in private.items()]
    for label, V, marker in series:
        P = X @ V[:, :2]
        fig.add_trace(
            go.Scatter(
                x=P[:, 0],
                y=P[:, 1] if P.shape[1] > 1 else np.zeros(len(P)),
                mode="markers",
                name=label,
                marker=dict(size=5, opacity=0.5, **marker),
            )
        )
    fig.update_xaxes(title="component 1")
    fig.update_yaxes(title="component 2")
    return layout(fig, "Data projected on non-private vs private components", height=380)


def principal_angles(angles: dict) -> go.Figure:
    fig = go.Figure()
    for mech, a in angles.items():
        fig.add_trace(
            go.Bar(
                x=[f"θ{i + 1}" for i in range(len(a))],
                y=np.degrees(a),
                name=name(mech),
                marker=bar_marker(mech),
            )
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="degrees", range=[0, 90])
    return layout(fig, "Principal angles to the non-private subspace (0° = same, 90° = orthogonal)")


def sweep(
    frame,
    x: str,
    metric: str,
    metric_label: str,
    log_x: bool = True,
    theory=None,
    log_y: bool = False,
    random_level: float | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    variants: dict | None = None,
    extrapolated: dict | None = None,
) -> go.Figure:
    """Mean with a 95% band per mechanism; optional theory rates (dashed, labelled 'rate') and the
    no-information level of a uniformly random subspace (dotted, in the legend so it never covers a curve).

    ``theory`` maps a mechanism to (xs, ys) or (xs, ys, legend name). ``variants`` maps a label to another frame of
    the same shape (e.g. the same mechanisms with an oracle choice): each is drawn in its mechanism's colour with a
    long-dash line and open markers, named "mechanism · label". ``extrapolated`` maps a mechanism to (xs, ys) beyond
    the measured points (a fitted rate carried past them), or to (xs, mean, lo, hi), a what-if with its 95% band
    (simulated, not measured): dotted, open diamonds, named "extrapolated: mechanism"."""
    fig = go.Figure()
    _add_bands(fig, x, [(frame, None)] + [(f, label) for label, f in (variants or {}).items()])
    for mech, line in (theory or {}).items():
        xs, ys, label = line if len(line) == 3 else (*line, None)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name=f"rate: {name(mech)}" if label is None else text(label),
                line=dict(dash="dash", width=1.5, color=color_or_grey(mech)),
            )
        )
    _add_extrapolated(fig, frame, x, extrapolated or {})
    grid = np.sort(
        np.unique(
            np.r_[
                frame[x].to_numpy(),
                *[f[x].to_numpy() for f in (variants or {}).values()],
                *[np.asarray(points[0], dtype=float) for points in (extrapolated or {}).values()],
            ]
        )
    )
    if random_level is not None:
        fig.add_trace(
            go.Scatter(
                x=[grid[0], grid[-1]],
                y=[random_level, random_level],
                mode="lines",
                name="random subspace (no information)",
                line=dict(dash="dot", color="#999"),
            )
        )
    swept_axis(fig, grid, x_title or x, log_x)
    # "label (unit), lower is better": the title names the metric and its direction; the vertical axis a short
    # ``y_title`` (its symbol or unit: a long rotated axis title runs past the plot into the title)
    label, _, direction = metric_label.partition(", ")
    fig.update_yaxes(
        title=y_title or label,
        type="log" if log_y else "linear",
        nticks=6,
        range=_data_range(
            pd.concat([frame, *(variants or {}).values()]),
            random_level,
            log_y,
            [y for points in (extrapolated or {}).values() for ys in points[1:] for y in ys],
        ),
    )
    note = f"{direction}; mean and 95% band over repetitions" if direction else "mean and 95% band over repetitions"
    return layout(fig, f"{label} against {x_title or x} ({note})", height=440)


def _add_bands(fig: go.Figure, x: str, frames: list) -> None:
    """Each (frame, label) of :func:`sweep`: per mechanism its 95% band and its mean; the measured frame (label
    None) with solid lines and each mechanism's marker filled, each variant long-dashed with it open."""
    for data, label in frames:
        dash = dict() if label is None else dict(dash="longdash")
        for mech, g in data.groupby("mechanism", sort=False):
            g = g.sort_values(x)
            c = color_or_grey(mech)
            fig.add_trace(band(g[x], g["lo"], g["hi"], c, 0.2 if label is None else 0.1))
            fig.add_trace(
                go.Scatter(
                    x=g[x],
                    y=g["mean"],
                    mode="lines+markers",
                    name=name(mech) if label is None else f"{name(mech)} · {text(label)}",
                    line=dict(color=c, **dash),
                    marker=dict(size=8, **marker_of(mech, open_=label is not None)),
                )
            )


def _add_extrapolated(fig: go.Figure, frame, x: str, extrapolated: dict) -> None:
    """Each mechanism's extrapolated points of :func:`sweep`: dotted on from its last measured mean, open
    diamonds on the extrapolated points only; a what-if (xs, mean, lo, hi) as its own dotted curve of open diamonds
    over its band, lighter than the measured ones."""
    for mech, points in extrapolated.items():
        if len(points) == 4:
            _add_what_if(fig, mech, *(np.asarray(p, dtype=float) for p in points))
            continue
        xs, ys = points
        last = frame[frame["mechanism"] == mech].sort_values(x).tail(1)  # the dotted line goes on from the curve
        sizes = [0] * len(last) + [10] * len(xs)  # a marker on the extrapolated points only
        xs, ys = np.r_[last[x].to_numpy(float), xs], np.r_[last["mean"].to_numpy(float), ys]
        fig.add_trace(_dotted(xs, ys, f"extrapolated: {name(mech)}", color_or_grey(mech), sizes))


def _add_what_if(fig: go.Figure, mech: str, xs, ys, lo, hi) -> None:
    """One mechanism's what-if of :func:`sweep`: its 95% band (light), its mean dotted with open diamonds."""
    c = color_or_grey(mech)
    fig.add_trace(band(xs, lo, hi, c, 0.1))
    fig.add_trace(_dotted(xs, ys, f"extrapolated (what-if): {name(mech)}", c, 10))


def _dotted(xs, ys, label: str, colour: str, sizes) -> go.Scatter:
    """An extrapolated curve of :func:`sweep`: dotted, with open diamonds of ``sizes`` (one, or one per point)."""
    line = dict(dash="dot", width=2, color=colour)
    return go.Scatter(
        x=xs, y=ys, mode="lines+markers", name=label, line=line, marker=dict(symbol="diamond-open", size=sizes)
    )


def _data_range(frame, random_level: float | None, log_y: bool, extra=()):
    """y-axis range framing the measured bands, the random level and ``extra`` values (extrapolated points), so
    that a theory rate (drawn to show a slope) leaves the plot where it overshoots instead of squeezing the
    measurements into a strip."""
    values = np.r_[
        frame["lo"].to_numpy(float),
        frame["hi"].to_numpy(float),
        frame["mean"].to_numpy(float),
        [] if random_level is None else [random_level],
        np.asarray(extra, dtype=float),
    ]
    values = values[np.isfinite(values)]
    if log_y:
        values = values[values > 0]
        if values.size == 0:
            return None
        lo, hi = np.log10(values.min()), np.log10(values.max())
        pad = 0.05 * max(hi - lo, 0.5)
        return [lo - pad, hi + pad]
    if values.size == 0:
        return None
    lo, hi = min(0.0, float(values.min())), float(values.max())
    return [lo, hi + 0.08 * max(hi - lo, 1e-12)]


def eps_ruler(current: float, references: list) -> go.Figure:
    """A log-scale ruler of epsilon with the reference points (hover for the source) and the current value."""
    xs = [v for v, _, _ in references]
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=[0] * len(xs),
            mode="markers+text",
            text=[l for _, l, _ in references],
            textposition="top center",
            marker=dict(symbol="diamond", size=9, color="#888"),
            hovertext=[s for _, _, s in references],
            hoverinfo="text",
            showlegend=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[current],
            y=[0],
            mode="markers",
            marker=dict(size=16, color="#d62728"),
            name="your ε",
            hovertext=f"your ε = {current:g}",
            hoverinfo="text",
            showlegend=False,
        )
    )
    fig.update_xaxes(type="log", range=[-2.1, 2], showgrid=False)
    fig.update_yaxes(visible=False, range=[-0.5, 1.2])
    fig.update_layout(height=110, margin=dict(l=10, r=10, t=10, b=25))
    return white_template(fig)


def animation(reference: np.ndarray, components: dict, columns: list, component: int = 0) -> go.Figure:
    """Play/stop animation of one private component across repetitions (fresh noise draws), aligned."""
    from dppca_core.metrics import align_components

    x = [text(c) for c in columns]
    reps = min(len(v) for v in components.values())
    aligned = {m: [align_components(V[r], reference)[:, component] for r in range(reps)] for m, V in components.items()}

    def traces(r):
        out = [go.Bar(x=x, y=reference[:, component], name="non-private", marker_color="#444")]
        out += [go.Bar(x=x, y=aligned[m][r], name=name(m), marker=bar_marker(m)) for m in aligned]
        return out

    fig = go.Figure(data=traces(0), frames=[go.Frame(data=traces(r), name=str(r)) for r in range(reps)])
    fig.update_layout(
        barmode="group",
        yaxis=dict(range=[-1, 1]),
        updatemenus=[
            dict(
                type="buttons",
                direction="left",
                x=0,
                y=1.15,
                showactive=False,
                buttons=[
                    dict(
                        label="▶ play",
                        method="animate",
                        args=[None, dict(frame=dict(duration=600, redraw=True), fromcurrent=True, mode="immediate")],
                    ),
                    dict(
                        label="■ stop",
                        method="animate",
                        args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate")],
                    ),
                ],
            )
        ],
        sliders=[
            dict(
                steps=[
                    dict(
                        method="animate",
                        label=str(r + 1),
                        args=[[str(r)], dict(mode="immediate", frame=dict(duration=0, redraw=True))],
                    )
                    for r in range(reps)
                ],
                currentvalue=dict(prefix="draw "),
            )
        ],
    )
    return layout(fig, f"Component {component + 1} across fresh noise draws", height=420)


def convergence_traces(traces: dict, random_level: float | None = None) -> go.Figure:
    """Error per iteration, one line per label (e.g. per epsilon)."""
    if not traces:
        raise ValueError("no traces to draw.")
    fig = go.Figure()
    for label, errors in traces.items():
        errs = nonempty(errors, f"trace {label}")
        fig.add_scatter(x=np.arange(errs.size), y=errs, mode="lines+markers", name=name(label))
    if random_level is not None:
        fig.add_hline(y=random_level, line_dash="dot", annotation_text="random subspace")
    return layout(fig, "Convergence: subspace error per iteration", "iteration", "‖sin Θ‖_F to the truth")


def support_heatmap(selected: dict, truth, d: int, columns=None) -> go.Figure:
    """Rows selected by each mechanism (1) against the true support (first row); ``columns``: the features' names
    (default: their numbers)."""
    if d < 1 or not selected:
        raise ValueError("need d >= 1 and at least one mechanism's selection.")
    labels = ["truth"] + [name(m) for m in selected]
    grid = np.zeros((len(labels), d))
    grid[0, np.asarray(truth, dtype=int)] = 1
    for i, rows in enumerate(selected.values(), start=1):
        grid[i, np.asarray(rows, dtype=int)] = 1
    fig = go.Figure(
        go.Heatmap(
            z=grid,
            y=labels,
            x=np.arange(d) if columns is None else [text(c) for c in columns],
            colorscale=[[0, "#f4f4f4"], [1, "#2a6f97"]],
            showscale=False,
            hovertemplate="%{x}: %{z}<extra>%{y}</extra>",
        )
    )
    fig.update_xaxes(type="category")
    return layout(
        fig, "Selected features (dark) against the true support", "feature", "", height=120 + 35 * len(labels)
    )


def communication_bar(costs: dict) -> go.Figure:
    """Numbers sent per mechanism (communication cost)."""
    if not costs:
        raise ValueError("no communication costs to draw.")
    names = list(costs)
    fig = go.Figure(
        go.Bar(x=[name(n) for n in names], y=[costs[n] for n in names], marker_color=[color_or_grey(n) for n in names])
    )
    return layout(fig, "Communication: numbers sent", "mechanism", "numbers")

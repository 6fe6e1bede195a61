"""The dashboard's figure builders are pure: arrays in, plotly figures out (no Streamlit, no browser)."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dppca_core import figures


rng = np.random.default_rng(0)
V = np.linalg.qr(rng.normal(size=(6, 2)))[0]
W = np.linalg.qr(rng.normal(size=(6, 2)))[0]


def test_user_text_is_escaped_in_figures():
    cols = ['<a href="http://x">x</a>', "b", "c", "d", "e", "f"]
    fig = figures.loadings_compare(V, {"analyze_gauss": W}, cols)
    assert "<a" not in "".join(map(str, fig.data[0].x)) and "&lt;a" in fig.data[0].x[0]


def test_builders_return_figures_with_expected_traces():
    assert len(figures.scree(np.array([3.0, 2, 1, 0.5]), 2).data) == 1
    assert isinstance(figures.loadings(V, list("abcdef")), go.Figure)
    cmp = figures.loadings_compare(V, {"analyze_gauss": W}, list("abcdef"))
    assert [t.name for t in cmp.data] == ["non-private", "Analyze Gauss"]
    assert cmp.data[1].marker.color == figures.mechanism_color("analyze_gauss")
    dots = figures.quantile_dotplot({"analyze_gauss": rng.random(10), "mod_sulq": rng.random(10)}, "x", n_dots=20)
    assert len(dots.data) == 2 and len(dots.data[0].x) == 20
    proj = figures.projection(rng.normal(size=(50, 6)), V, {"analyze_gauss": W})
    assert len(proj.data) == 2 and len(proj.data[0].x) == 50
    assert isinstance(figures.principal_angles({"analyze_gauss": np.array([0.1, 0.3])}), go.Figure)
    frame = pd.DataFrame(
        {
            "mechanism": ["analyze_gauss"] * 3,
            "eps": [0.1, 1, 10],
            "mean": [1.0, 0.5, 0.1],
            "lo": [0.9, 0.4, 0.05],
            "hi": [1.1, 0.6, 0.15],
        }
    )
    sweep = figures.sweep(frame, "eps", "mean", "distance", theory={"analyze_gauss": ([0.1, 10], [1.0, 0.01])})
    assert [t.name for t in sweep.data][-1] == "rate: Analyze Gauss"
    anim = figures.animation(V, {"analyze_gauss": np.stack([W, V])}, list("abcdef"))
    assert anim.frames and anim.layout.updatemenus


def test_sweep_frames_the_measurements_and_labels_the_swept_values():
    # a theory rate that overshoots (10 where the data stop at 1.4) leaves the plot instead of squeezing the
    # curves; the x ticks are the swept values written out (0.05, not a bare minor-tick "5")
    grid = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]
    frame = pd.DataFrame(
        {
            "mechanism": "analyze_gauss",
            "eps": grid,
            "mean": np.linspace(1.3, 0.05, 8),
            "lo": np.linspace(1.2, 0.03, 8),
            "hi": np.linspace(1.37, 0.08, 8),
        }
    )
    fig = figures.sweep(
        frame, "eps", "mean", "distance", theory={"analyze_gauss": (grid, 0.5 / np.array(grid))}, random_level=2**0.5
    )
    low, high = fig.layout.yaxis.range
    assert low == 0 and 2**0.5 < high < 1.6
    assert list(fig.layout.xaxis.ticktext) == ["0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10"]
    logged = figures.sweep(frame, "eps", "mean", "distance", log_y=True)
    assert logged.layout.yaxis.range[0] < np.log10(0.03) and logged.layout.yaxis.range[1] > np.log10(1.37)
    many = pd.concat([frame.assign(eps=frame.eps * f) for f in (1, 100)])
    assert len(figures.sweep(many, "eps", "mean", "distance").layout.xaxis.tickvals) <= 9


def test_charts_name_mechanisms_by_display_name_and_mark_the_retracted_one():
    """Legends, ticks and panel titles never show a registry id; the retracted Wishart mechanism is marked."""
    from dppca_core.privacy import PrivacyCurve
    from dppca_core.figures import risk as risk_figures
    from dppca_core.registry import RETRACTED_MARK

    values = {"wishart_sn": rng.random(10), "private_power": rng.random(10)}
    frame = pd.DataFrame(
        [{"mechanism": m, "eps": e, "mean": 0.5, "lo": 0.4, "hi": 0.6} for m in values for e in (0.1, 1.0)]
    )
    built = [
        figures.quantile_dotplot(values, "x"),
        figures.loadings_compare(V, {m: W for m in values}, list("abcdef")),
        figures.principal_angles({m: np.array([0.1, 0.2]) for m in values}),
        figures.sweep(frame, "eps", "energy", "x", theory={m: ([0.1, 1.0], [1.0, 0.1]) for m in values}),
        figures.convergence_traces({m: [1.0, 0.5] for m in values}),
        figures.support_heatmap({m: [0, 1] for m in values}, [0, 1], 6),
        figures.private_scree([0.5, 0.3], {m: ([0.5, 0.3], [0.1, 0.1]) for m in values}),
        risk_figures.tradeoff_figure({m: PrivacyCurve.gdp(0.5) for m in values}),
        risk_figures.posterior_figure({m: PrivacyCurve.gdp(0.5) for m in values}),
    ]
    for fig in built:
        shown = str(fig.to_plotly_json()["data"]) + str(fig.layout.yaxis.ticktext)
        assert "wishart_sn" not in shown and "private_power" not in shown, shown[:300]
        assert RETRACTED_MARK in shown and "Private power method" in shown


def _dot_extents(fig):
    """Per trace of dots: (lowest, highest) edge of its markers in row units, from the figure's own height."""
    from dppca_core.figures.pca import DOT_FRAME_PX

    rows = len(fig.layout.yaxis.tickvals)
    px_per_row = (fig.layout.height - DOT_FRAME_PX) / rows
    out = []
    for trace in fig.data:
        if trace.mode != "markers":
            continue
        radius = trace.marker.size / 2 / px_per_row
        out.append((min(trace.y) - radius, max(trace.y) + radius))
    return out


def test_dot_stacks_stay_inside_their_mechanism_row():
    """Issue 35 item 5: at large ε every repetition lands on about the same value, so all 20 dots stack in one bin;
    the stack climbed 0.08 per dot (1.5 rows) into the next mechanism's row. Each row owns [r - 0.5, r + 0.5]."""
    tight = {
        "analyze_gauss": np.full(50, 0.011),
        "private_power": 0.02 + 1e-4 * rng.random(50),
        "mod_sulq": rng.random(50),
        "dp_pca": np.r_[np.zeros(25), np.ones(25)],
    }
    for count in (1, 2, 4):
        values = dict(list(tight.items())[:count])
        for x_range in ((0.0, 1.5), None):
            fig = figures.quantile_dotplot(values, "distance", x_range=x_range)
            extents = _dot_extents(fig)
            assert len(extents) == count
            for row, (low, high) in enumerate(extents):
                assert row - 0.5 < low and high < row + 0.5, (count, row, low, high)
            assert list(fig.layout.yaxis.range) == [-0.5, count - 0.5]
    # a stack of 20 still stacks (the dots are told apart upwards), and a spread-out mechanism keeps full-size dots
    fig = figures.quantile_dotplot({"analyze_gauss": np.full(50, 0.01)}, "distance", x_range=(0.0, 1.5))
    assert len(set(np.round(fig.data[0].y, 9))) == 20
    spread = figures.quantile_dotplot({"mod_sulq": np.linspace(0, 1.4, 50)}, "distance", x_range=(0.0, 1.5))
    assert spread.data[0].marker.size == 10

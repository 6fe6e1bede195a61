"""Plotly figure builders: pure functions (arrays in, figures out), no Streamlit.

One colour per family of mechanisms everywhere (:func:`mechanism_color`) and a mark per member (:func:`marker_of`,
:func:`bar_marker`, :func:`line_of`); user-provided names are escaped
(:func:`text`) because plotly renders HTML, links included, in labels. Grouped by view:
:mod:`.pca` (spectra, loadings, spread, sweeps, convergence, support), :mod:`.release` (a release's budget
split, private spectrum and score plot), :mod:`.audit`.
"""

from .audit import audit_histograms
from .base import (
    DASHES,
    PALETTE,
    PATTERNS,
    PLOTLY_CONFIG,
    SYMBOLS,
    bar_marker,
    color_or_grey,
    layout,
    line_of,
    marker_of,
    mechanism_color,
    mechanism_dash,
    mechanism_pattern,
    mechanism_symbol,
    text,
)
from .frontier import frontier
from .pca import (
    animation,
    communication_bar,
    convergence_traces,
    eps_ruler,
    loadings,
    loadings_compare,
    principal_angles,
    projection,
    quantile_dotplot,
    scree,
    support_heatmap,
    sweep,
)
from .release import BUDGET_PARTS, axis_edges, budget_bar, private_scree, score_heatmaps

__all__ = [
    "BUDGET_PARTS",
    "DASHES",
    "PALETTE",
    "PATTERNS",
    "SYMBOLS",
    "budget_bar",
    "PLOTLY_CONFIG",
    "animation",
    "axis_edges",
    "bar_marker",
    "audit_histograms",
    "color_or_grey",
    "communication_bar",
    "convergence_traces",
    "eps_ruler",
    "frontier",
    "layout",
    "line_of",
    "loadings",
    "loadings_compare",
    "marker_of",
    "mechanism_color",
    "mechanism_dash",
    "mechanism_pattern",
    "mechanism_symbol",
    "principal_angles",
    "private_scree",
    "projection",
    "quantile_dotplot",
    "score_heatmaps",
    "scree",
    "support_heatmap",
    "sweep",
    "text",
]

"""Plotly figure builders: pure functions (arrays in, figures out), no Streamlit.

One colour per mechanism everywhere (:func:`mechanism_color`); user-provided names are escaped
(:func:`text`) because plotly renders HTML, links included, in labels. Grouped by view:
:mod:`.pca` (spectra, loadings, spread, sweeps, convergence, support), :mod:`.audit`.
"""
from .audit import audit_histograms
from .base import PALETTE, PLOTLY_CONFIG, color_or_grey, layout, mechanism_color, text
from .frontier import frontier
from .pca import (BUDGET_PARTS, animation, axis_edges, budget_bar, communication_bar, convergence_traces, eps_ruler, loadings, loadings_compare,
                  principal_angles, private_scree, projection, quantile_dotplot, score_heatmaps, scree,
                  support_heatmap, sweep)

__all__ = ["BUDGET_PARTS", "PALETTE", "budget_bar", "PLOTLY_CONFIG", "animation", "axis_edges", "audit_histograms", "color_or_grey",
           "communication_bar", "convergence_traces", "eps_ruler", "frontier", "layout", "loadings", "loadings_compare",
           "mechanism_color", "principal_angles", "private_scree", "projection", "quantile_dotplot", "score_heatmaps",
           "scree", "support_heatmap",
           "sweep", "text"]

"""Warnings about the data read from the cells (non-private hints for the data owner), shown on the Data and Explore
pages: columns on very different scales, one column holding most of the variance, most rows clipped at a public R."""

from __future__ import annotations

import streamlit as st

from dppca_core.pipeline import experiments
from dppca_core.reading import number

from . import scenario
from .report_words import clipping_words
from .text import literal, md_escape


def units_warning(columns: list, X) -> bool:
    """Warn as soon as a table is read when its columns' scales are far apart (:func:`dppca_core.pipeline.experiments.
    unit_spread`: mean squares 1000 times apart or more), whatever R is: the largest columns would make the first
    components alone. Read from the cells: a non-private hint for the data owner. Returns True when it warned."""
    found = experiments.unit_spread(X)
    if found is None:
        return False
    top, low, spread = found
    st.warning(
        f"The columns are on very different scales: **{literal(columns[top], 60)}** is about {number(spread, 3)} "
        f"times larger than **{literal(columns[low], 60)}** (root-mean-squares), so a PCA, which adds up "
        f"squares, weighs it about {number(spread**2, 3)} times more: unless their units are comparable, the first "
        "components follow the largest columns alone. Divide each column by a public bound on its values, or "
        "scale each column privately (Preprocessing: *Public per-column bounds*). A hint read from the "
        "cells: not private, for you only.",
        icon=":material/straighten:",
    )
    return True


def clipping_warning(prep) -> bool:
    """Above the metric cards: when most rows are clipped at a public R, the headline numbers compare with the PCA
    of distorted rows (:func:`ui.report_words.clipping_words`). Returns True when it warned."""
    words = clipping_words(scenario.values(), prep)
    if words:
        st.warning(md_escape(words), icon=":material/content_cut:")
    return bool(words)


def dominant_feature_warning(ds, prep, data_page=None) -> bool:
    """Warn when one column holds most of the variance (its units, not the data's structure): the first component
    would be that column alone. Offers the public per-column scaling (on the Data page; ``data_page`` is that page,
    for a button that goes there). Returns True when it warned. The check reads the data: a non-private hint."""
    found = experiments.dominant_feature(prep.ref.gram)
    if found is None:
        return False
    column, share = found
    st.warning(
        f"One column, **{literal(ds.columns[column], 60)}**, holds {share:.1%} of the variance: its values "
        "are on a far larger scale than the others' (its units), so the first component is that column "
        "alone and says nothing about how the features vary together. Divide each column by a public bound "
        "on its values, or scale each column privately (Data page, Preprocessing: *Public per-column "
        "bounds*). A hint read from the data: not private.",
        icon=":material/balance:",
    )
    if data_page is not None and st.button(
        "Scale by public per-column bounds", key="goto_scaling", icon=":material/calculate:"
    ):
        st.switch_page(data_page)
    return True

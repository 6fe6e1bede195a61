"""Home: what DP-PCA is, and a gallery of ready scenarios."""

import streamlit as st

from ui import gallery, scenario, scenario_file, session
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

st.title("DP-PCA Explorer")
st.markdown(
    """
**Principal component analysis (PCA)** finds the few directions along which a dataset varies most.
Those directions are computed from everyone's data, so they can leak information about individuals.
**Differential privacy (DP)** adds carefully calibrated randomness so that the released directions would be
almost equally likely whether or not any one person's row was in the data: **ε** bounds that change
(smaller is more private) and **δ** is the small probability with which the bound may fail.

The price is accuracy. This app shows, live, how far private components are from the exact ones
(subspace distance), how much of the variance they still capture, and whether they find the right
features, for the mechanisms in the literature, and for the neighbouring relation you choose.
"""
)
st.info(
    "Every number in this app is a **diagnostic computed with the raw data as reference** "
    "(to show what privacy costs), not a private release.",
    icon=":material/info:",
)

st.subheader("Open a scenario file")
with boundary("the scenario file"):
    scenario_file.open_box()

st.subheader("Start from a ready scenario")
with boundary("the gallery"):
    entries = [e for e in gallery.GALLERY if gallery.available(e)]
    cols = st.columns(min(3, len(entries)) or 1)
    for i, entry in enumerate(entries):
        with cols[i % len(cols)].container(border=True):
            st.markdown(f"**{entry.title}**")
            st.caption(entry.blurb)
            if st.button("Open", key=f"gallery:{i}", icon=":material/play_arrow:"):
                scenario.load(entry.fields)
                st.switch_page(session.page(entry.page))

st.subheader("How to use it")
st.markdown(
    """
1. **Data**: keep the synthetic default, pick a paper's setting or a shipped dataset, or upload a table.
   Choose the public clipping radius R.
2. **Explore**: pick mechanisms and move the ε dial; read the metric cards and the guarantee in plain words.
3. **Trade-offs**: sweep ε (or n, d, δ, k, s) with repetitions; the budget planner finds the smallest ε that meets a target.
4. **Report**: a summary in words; download an exploration record (an offline HTML report and a Python script that
   reproduces it), or draw releases to publish.

The address bar holds every setting that differs from the defaults, seeds included: copy it to share exactly this
view. Presenter mode (sidebar) stays on through the gallery, the pages and shared links.
"""
)

"""Page bootstrap: make sure every page runs inside app.py's st.navigation.

Streamlit treats an app with a ``pages/`` folder as a v1 multipage app until the entry script
calls ``st.navigation``; a first visit straight to ``/explore`` would then run the page file without
app.py (no page config, v1 sidebar). Each page calls :func:`ensure_navigation` first: it switches
Streamlit to the st.navigation behaviour and reruns through app.py.
"""
from __future__ import annotations

import streamlit as st


def ensure_navigation() -> None:
    if "_pages" in st.session_state:
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - other streamlit layout
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()

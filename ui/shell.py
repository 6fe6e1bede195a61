"""Page bootstrap: make sure every page runs inside app.py's ``st.navigation``.

Streamlit treats an app with a ``pages/`` folder as a folder-based multipage app until the entry script calls
``st.navigation``; a first visit straight to ``/explore`` (or AppTest's ``switch_page``) would then run the
page file alone, without the entry script's settings, shared controls and URL handling. The entry script marks
the runs it drives; a page run without that mark switches Streamlit to ``st.navigation`` and reruns, this time
through app.py.
"""

from __future__ import annotations

import streamlit as st

from .session import IN_ENTRY_KEY  # app.py sets it while it runs the page


def ensure_navigation() -> None:
    if st.session_state.get(IN_ENTRY_KEY):
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - other streamlit layout
        return
    PagesManager.uses_pages_directory = False
    st.rerun()

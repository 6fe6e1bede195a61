"""How things are shown: charts at the right size, the presenter bar, and the share link.

Presenter mode (setting ``present``) hides the sidebar and the toolbar, enlarges type and plot fonts, and puts
previous/next page buttons and a large epsilon dial in the main area, on every page.
"""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dppca_core.figures import PLOTLY_CONFIG

from . import scenario

PRESENTER_FONT = 20
PRESENTER_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"] {display: none;}
html {font-size: 20px !important;}
[data-testid="stAppViewContainer"] p, [data-testid="stAppViewContainer"] li {font-size: 1.05rem;}
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p {font-size: 2.4rem !important;}
.block-container {max-width: 100%; padding: 1rem 2rem 2rem 2rem;}
</style>"""
#: pages whose numbers follow epsilon: presenter mode shows the large dial there
DIAL_PAGES = ("explore", "tradeoffs", "report")


def presenting() -> bool:
    return bool(scenario.values().get("present"))


def chart(fig: go.Figure, container=st, key: str | None = None) -> None:
    """Draw a plotly figure full width, with larger fonts in presenter mode."""
    if presenting():
        fig.update_layout(font=dict(size=PRESENTER_FONT), title_font=dict(size=PRESENTER_FONT + 4),
                          legend=dict(font=dict(size=PRESENTER_FONT - 2)))
        if fig.layout.height:
            fig.update_layout(height=int(fig.layout.height * 1.25))
    container.plotly_chart(fig, config=PLOTLY_CONFIG, width="stretch", key=key)


def presenter_bar(pages: dict, here: str) -> None:
    """Previous / next page, exit, and (where numbers follow epsilon) a large epsilon dial."""
    from .controls import epsilon_slider  # local import: controls imports this module's siblings

    st.markdown(PRESENTER_CSS, unsafe_allow_html=True)
    order = list(pages)
    i = order.index(here)
    cols = st.columns([1, 1, 3, 1])
    if cols[0].button("◀ back", disabled=i == 0, key="present_prev", width="stretch",
                      help=f"previous page: {pages[order[i - 1]].title}" if i else None):
        st.switch_page(pages[order[i - 1]])
    if cols[1].button("next ▶", disabled=i == len(order) - 1, key="present_next", width="stretch",
                      help=f"next page: {pages[order[i + 1]].title}" if i < len(order) - 1 else None):
        st.switch_page(pages[order[i + 1]])
    cols[2].markdown(f"**{pages[here].title}** · page {i + 1} of {len(order)}")
    if cols[3].button("Exit", icon=":material/close_fullscreen:", key="present_exit", width="stretch",
                      help="Leave presenter mode"):
        scenario.set_value("present", False)
        st.rerun()
    if here in DIAL_PAGES:
        epsilon_slider(st, key="w:eps_presenter", label="ε — privacy budget (drag; smaller is more private)")


def sidebar_footer(url_path: str) -> None:
    """Presenter toggle and the full share link, on every page (``url_path`` of the page shown)."""
    with st.sidebar:
        st.divider()
        st.toggle("Presenter mode", help="Large type, no sidebar, a big ε dial and previous/next page buttons.",
                  **scenario.bind("present"))
        with st.popover("Copy link", icon=":material/link:", width="stretch"):
            st.caption("This address holds every setting of the view, seeds included (an uploaded file is not "
                       "included). Copy it with the button on the right of the box.")
            st.code(scenario.share_link(url_path), language=None, wrap_lines=True)

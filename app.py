"""DP-PCA Explorer: entry point. Run with ``python -m streamlit run app.py``."""
import streamlit as st

from ui import state

st.set_page_config(page_title="DP-PCA Explorer", page_icon=":material/blur_on:", layout="wide")

PAGES = {
    "home": st.Page("pages/home.py", title="Home", icon=":material/home:", default=True, url_path="home"),
    "data": st.Page("pages/data.py", title="Data", icon=":material/table_chart:", url_path="data"),
    "explore": st.Page("pages/explore.py", title="Explore", icon=":material/tune:", url_path="explore"),
    "tradeoffs": st.Page("pages/tradeoffs.py", title="Trade-offs", icon=":material/ssid_chart:", url_path="tradeoffs"),
    "distributed": st.Page("pages/distributed.py", title="Distributed", icon=":material/hub:",
                           url_path="distributed"),
    "audit": st.Page("pages/audit.py", title="Audit", icon=":material/policy:", url_path="audit"),
    "report": st.Page("pages/report.py", title="Report", icon=":material/description:", url_path="report"),
}
st.session_state["_pages"] = PAGES

scn = state.scenario()
if scn.get("present"):
    # Presentation mode: wide, large type, controls (sidebar, toolbar) hidden.
    st.markdown(
        """<style>
        section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"] {display: none;}
        html, body, [data-testid="stAppViewContainer"] {font-size: 22px;}
        [data-testid="stMetricValue"] {font-size: 3rem;}
        .block-container {max-width: 100%; padding-top: 1rem;}
        </style>""",
        unsafe_allow_html=True,
    )

    if st.button("Exit presentation mode", icon=":material/close_fullscreen:"):
        scn["present"] = False
        st.rerun()

page = st.navigation(list(PAGES.values()), position="hidden" if scn.get("present") else "sidebar")
page.run()

"""DP-PCA Explorer: entry point. Run with ``python -m streamlit run app.py``.

The entry script runs on every page: it reads the scenario (from the link on a session's first run), draws
the controls shared by the pages that compute releases (the same widgets in every run, so switching pages
cannot reset them), the presenter bar, and the share link, then runs the page and writes the address back.
"""

import streamlit as st

from ui import controls, scenario, scenario_file, session, show
from ui.session import IN_ENTRY_KEY

st.set_page_config(page_title="DP-PCA Explorer", page_icon=":material/blur_on:", layout="wide")

PAGES = {
    # the default page is served at the root; its url_path only names it (Streamlit cannot route it): /home is
    # HOME_ALIAS below
    "home": st.Page("pages/home.py", title="Home", icon=":material/home:", default=True, url_path="start"),
    "lesson": st.Page("pages/lesson.py", title="Lesson", icon=":material/school:", url_path="lesson"),
    "data": st.Page("pages/data.py", title="Data", icon=":material/table_chart:", url_path="data"),
    "explore": st.Page("pages/explore.py", title="Explore", icon=":material/tune:", url_path="explore"),
    "tradeoffs": st.Page("pages/tradeoffs.py", title="Trade-offs", icon=":material/ssid_chart:", url_path="tradeoffs"),
    "distributed": st.Page("pages/distributed.py", title="Distributed", icon=":material/hub:", url_path="distributed"),
    "tensor": st.Page("pages/tensor.py", title="Tensor", icon=":material/deployed_code:", url_path="tensor"),
    "reproduce": st.Page("pages/reproduce.py", title="Reproduce", icon=":material/science:", url_path="reproduce"),
    "audit": st.Page("pages/audit.py", title="Audit", icon=":material/policy:", url_path="audit"),
    "report": st.Page("pages/report.py", title="Report", icon=":material/description:", url_path="report"),
}
#: Home at its own address too (a page's url_path is its address, except the default page's): hidden from the menu
HOME_ALIAS = st.Page("pages/home.py", title="Home", icon=":material/home:", url_path="home", visibility="hidden")
#: pages that compute releases from the shared settings, and the repetitions field each one uses
SHARED_CONTROLS = {"explore": "reps", "tradeoffs": "sreps", "report": "reps"}
st.session_state[session.PAGES_KEY] = PAGES  # for st.switch_page from pages (gallery, presenter bar)

show.app_style()
vals = scenario.values()
present = vals["present"]
page = st.navigation([*PAGES.values(), HOME_ALIAS], position="hidden" if present else "sidebar")
here = next((key for key, p in PAGES.items() if p.url_path == page.url_path), "home")  # the alias is Home

if present:
    show.presenter_bar(PAGES, here)
else:
    if here in SHARED_CONTROLS:
        controls.shared_sidebar(SHARED_CONTROLS[here])
    show.sidebar_footer(page.url_path)  # "" for the default page (Home lives at the root)
    scenario_file.download_button()
scenario.notice_box()

scenario.sync_url()  # the address holds the scenario from the start, even while a slow page computes
st.session_state[IN_ENTRY_KEY] = True
try:
    page.run()
finally:
    st.session_state[IN_ENTRY_KEY] = False
    scenario.sync_url()

"""DP-PCA Explorer: entry point. Run with ``python -m streamlit run app.py``.

The entry script runs on every page: it declares the pages first (``st.navigation``, before any heavy import, so the
sidebar is the first thing drawn: until this call Streamlit shows the ``pages/`` folder's file names), then reads
the scenario (from the link on a session's first run), draws the controls shared by the pages that compute releases
(the same widgets in every run, so switching pages cannot reset them), the presenter bar, and the share link, then
runs the page and writes the address back.
"""

import streamlit as st

from ui.page_titles import APP_ICON, PAGE_TITLES, presenting_from
from ui.session import IN_ENTRY_KEY, PAGES_KEY, SCENARIO_KEY

ICONS = {
    "home": ":material/home:",
    "lesson": ":material/school:",
    "class": ":material/groups:",
    "data": ":material/table_chart:",
    "explore": ":material/tune:",
    "tradeoffs": ":material/ssid_chart:",
    "distributed": ":material/hub:",
    "tensor": ":material/deployed_code:",
    "reproduce": ":material/science:",
    "audit": ":material/policy:",
    "report": ":material/description:",
}
#: the pages by their address, in the sidebar's order (titles: ui/page_titles.py). The default page is served at the
#: root; its url_path only names it (Streamlit cannot route it): /home is HOME_ALIAS below
PAGES = {
    key: st.Page(
        f"pages/{key}.py",
        title=title,
        icon=ICONS[key],
        default=key == "home",
        url_path="start" if key == "home" else key,
    )
    for key, title in PAGE_TITLES.items()
}
#: Home at its own address too (a page's url_path is its address, except the default page's): hidden from the menu
HOME_ALIAS = st.Page(
    "pages/home.py", title=PAGE_TITLES["home"], icon=ICONS["home"], url_path="home", visibility="hidden"
)
#: pages that compute releases from the shared settings, and the repetitions field each one uses
SHARED_CONTROLS = {"explore": "reps", "tradeoffs": "sreps", "report": "reps"}
st.session_state[PAGES_KEY] = PAGES  # for st.switch_page from pages (gallery, presenter bar)

# the page icon before the navigation: the browser otherwise takes the page's Material icon as the tab's icon and
# fetches it from Google's font server, which an offline classroom cannot reach (an emoji is drawn in the browser)
st.set_page_config(page_title="DP-PCA Explorer", page_icon=APP_ICON, layout="wide")
present = presenting_from(st.session_state.get(SCENARIO_KEY), st.query_params.get("present"))
page = st.navigation([*PAGES.values(), HOME_ALIAS], position="hidden" if present else "sidebar")
here = next((key for key, p in PAGES.items() if p.url_path == page.url_path), "home")  # the alias is Home

from ui import controls, media_files, scenario, scenario_file, show  # noqa: E402 - after the navigation: imports take seconds

media_files.install()  # downloads belong to their session (once per process): ui/media_files.py

show.app_style()
scenario.values()  # the session's scenario, from the link on its first run
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

"""Each page's address and its title in the sidebar, in the app's order: read by app.py (its ``st.Page`` list), the
browser tests (tests/e2e/helpers.py) and the load benchmark (benchmarks/load.py), which move through the app by these
titles. No Streamlit import: the tests and the benchmark read it without a server."""

#: the address of each page (Home's is the root, and /home) -> its title in the sidebar
PAGE_TITLES = {
    "home": "Home",
    "lesson": "Lesson",
    "class": "Class",
    "data": "Data",
    "explore": "Explore",
    "tradeoffs": "Trade-offs",
    "distributed": "Distributed",
    "tensor": "Tensor",
    "reproduce": "Reproduce",
    "audit": "Audit",
    "report": "Report",
}

#: the app's icon in the browser's tab: an emoji, which the browser draws itself (a Material icon as the page icon is
#: fetched from Google's font server, which an offline classroom cannot reach; an SVG or image goes through
#: Streamlit's image code, which imports numpy: 0.2 s before the pages are declared, on a server's first run)
APP_ICON = "🔐"
#: how a link says "presenter mode on" (the scenario's rule for a true/false setting: dppca_core.scenario.Field.parse)
_TRUE = ("1", "true", "yes", "on")


def presenting_from(scenario: dict | None, query_value) -> bool:
    """Whether presenter mode is on, read without importing the scenario's module (app.py declares the pages before
    its heavy imports): the session's scenario once it exists, else the link's ``present`` as the scenario will read
    it on this first run."""
    if scenario is not None:
        return bool(scenario.get("present"))
    return str(query_value or "").strip().lower() in _TRUE

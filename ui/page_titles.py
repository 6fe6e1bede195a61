"""Each page's address and its title in the sidebar, in the app's order: read by app.py (its ``st.Page`` list), the
browser tests (tests/e2e/helpers.py) and the load benchmark (benchmarks/load.py), which move through the app by these
titles. No Streamlit import: the tests and the benchmark read it without a server."""

#: the address of each page (Home's is the root, and /home) -> its title in the sidebar
PAGE_TITLES = {
    "home": "Home",
    "lesson": "Lesson",
    "data": "Data",
    "explore": "Explore",
    "tradeoffs": "Trade-offs",
    "distributed": "Distributed",
    "tensor": "Tensor",
    "reproduce": "Reproduce",
    "audit": "Audit",
    "report": "Report",
}

#: the app's icon in the browser's tab: drawn here as SVG (a Material icon as the page icon is fetched from Google's
#: font server, which an offline classroom cannot reach): scattered rows and their first principal direction
APP_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
    '<rect width="24" height="24" rx="5" fill="#1f5fa8"/>'
    '<g fill="#ffffff"><circle cx="6" cy="17" r="1.6"/><circle cx="9" cy="12.5" r="1.6"/>'
    '<circle cx="11.5" cy="15" r="1.6"/><circle cx="14" cy="9.5" r="1.6"/><circle cx="16" cy="12" r="1.6"/>'
    '<circle cx="18.5" cy="6.5" r="1.6"/></g>'
    '<path d="M3.5 20.5 L20.5 3.5" stroke="#ffd166" stroke-width="1.8" stroke-linecap="round"/></svg>'
)
#: how a link says "presenter mode on" (the scenario's rule for a true/false setting: dppca_core.scenario.Field.parse)
_TRUE = ("1", "true", "yes", "on")


def presenting_from(scenario: dict | None, query_value) -> bool:
    """Whether presenter mode is on, read without importing the scenario's module (app.py declares the pages before
    its heavy imports): the session's scenario once it exists, else the link's ``present`` as the scenario will read
    it on this first run."""
    if scenario is not None:
        return bool(scenario.get("present"))
    return str(query_value or "").strip().lower() in _TRUE

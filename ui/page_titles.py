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

"""The app's shell as a classroom meets it (issue 57): offline, the browser asks no other host for anything the
entry script sets up (the page icon was fetched from fonts.gstatic.com), and the first thing a new server draws is
the sidebar of the app's pages, not the file names of the ``pages/`` folder.

Until the entry script calls ``st.navigation``, Streamlit treats an app with a ``pages/`` folder as a folder-based
one and lists its files ("app, audit, data, ...") in the sidebar: the first visit of a fresh server showed that list
for the seconds the entry script's imports took (7 s measured on a busy machine; with the call first, a
MutationObserver on four cold starts never saw it). So nothing slow may come before the call: no import but Streamlit's and two small modules of ours, and the page
icon as an emoji (an image goes through Streamlit's image code, which imports numpy: 0.2 s)."""

import builtins
from pathlib import Path

import streamlit as st
from streamlit.commands.page_config import _get_favicon_string

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
#: what app.py may import before it declares its pages: Streamlit and two modules that import nothing else of ours
LIGHT = {"streamlit", "ui.page_titles", "ui.session"}


def _entry_events(app_test, monkeypatch, **query) -> list:
    """What app.py does, in order, on its first run: each import statement it executes and its calls of
    st.navigation and st.set_page_config (with the page icon)."""
    events = []
    real_import, navigation, page_config = builtins.__import__, st.navigation, st.set_page_config

    def spy_import(name, globals=None, locals=None, fromlist=(), level=0):
        if globals is not None and globals.get("__file__") == APP:
            events.append(("import", name))
        return real_import(name, globals, locals, fromlist, level)

    def spy_navigation(*args, **kwargs):
        events.append(("navigation", kwargs.get("position")))
        return navigation(*args, **kwargs)

    def spy_page_config(*args, **kwargs):
        events.append(("page_config", kwargs.get("page_icon")))
        return page_config(*args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", spy_import)
    monkeypatch.setattr(st, "navigation", spy_navigation)
    monkeypatch.setattr(st, "set_page_config", spy_page_config)
    at = app_test(**query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return events


def test_the_pages_are_declared_before_anything_slow(app_test, monkeypatch):
    """Before the pages: a few light imports, and the page icon (an emoji: an image goes through Streamlit's image
    code, which imports numpy, 0.2 s on a server's first run)."""
    events = _entry_events(app_test, monkeypatch)
    first = next(i for i, event in enumerate(events) if event[0] == "navigation")
    before = events[:first]
    assert {name for kind, name in before if kind == "import"} <= LIGHT, before
    others = [event for event in before if event[0] != "import"]
    assert [kind for kind, _ in others] == ["page_config"], before
    assert _get_favicon_string(others[0][1]).startswith("emoji:"), others  # the cheap path
    assert events[first] == ("navigation", "sidebar")


def test_presenter_mode_from_the_link_hides_the_sidebar_from_the_first_run(app_test, monkeypatch):
    events = _entry_events(app_test, monkeypatch, present="true")
    assert ("navigation", "hidden") in events


def test_the_page_icon_is_drawn_by_the_browser_and_set_before_the_pages(app_test, monkeypatch):
    """A Material icon as the page icon is fetched from fonts.gstatic.com; so is a page's Material icon, which the
    browser takes as the tab's icon when the pages arrive before the page icon."""
    events = _entry_events(app_test, monkeypatch)
    kinds = [kind for kind, _ in events]
    icons = [icon for kind, icon in events if kind == "page_config"]
    assert icons and kinds.index("page_config") < kinds.index("navigation"), events
    for icon in icons:
        shown = _get_favicon_string(icon)  # what the browser is told to draw
        assert shown.startswith(("data:", "emoji:")), shown

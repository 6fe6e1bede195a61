"""The scenario file in the app: downloaded from the sidebar of every page, opened on Home.

The file (:mod:`dppca_core.scenario`: versioned TOML) holds every setting and the public schema of the data, never
data rows: opening it sets the scenario exactly as its link would, and an uploaded table is uploaded again on the
Data page (the file names its columns, not its cells).
"""

from __future__ import annotations

import functools

import streamlit as st

from dppca_core.scenario import from_toml, to_toml

from . import scenario
from .session import NOTICES_KEY, SCENARIO_FILE_OPENED_KEY, SCENARIO_KEY, UPLOAD_KEY
from .text import md_escape

FILE_NAME = "dppca_scenario.toml"
UPLOADER_KEY = "scenario_file"


def _file_bytes(vals: dict) -> bytes:
    return to_toml(vals).encode("utf-8")


def download_button(container=None, key: str = "download_scenario_file") -> None:
    """The download of the scenario file (in the sidebar, or in presenter mode's "Copy link" box: ``container``),
    built when pressed from the session's settings as they are then (the page may still change them after it is
    drawn). When the link cannot carry part of the scenario (a wide table's schema), the box above it says so."""
    left_out = scenario.left_out_of_link()
    if left_out:
        (container or st.sidebar).warning(md_escape(left_out), icon=":material/link_off:")
    (container or st.sidebar).download_button(
        "Scenario file",
        functools.partial(_file_bytes, scenario.values()),
        FILE_NAME,
        "application/toml",
        icon=":material/file_save:",
        key=key,
        on_click="ignore",
        width="stretch",
        help="Every setting and the public schema of the data (its columns, never its rows) in a small text file: "
        "open it on Home, or in Python with dppca_core.scenario.Scenario.from_file. Format: docs/notebooks.md.",
    )


def open_file(raw: bytes) -> None:
    """Replace the scenario by the one in ``raw`` (a scenario file); what could not be used is said once. A file that
    is not a scenario file changes nothing and says why."""
    try:
        vals, notices = from_toml(raw)
    except ValueError as exc:
        st.session_state[SCENARIO_FILE_OPENED_KEY] = {"ok": False, "notices": [str(exc)]}
        return
    st.session_state[SCENARIO_KEY] = vals
    st.session_state[NOTICES_KEY] = notices
    st.session_state[SCENARIO_FILE_OPENED_KEY] = {
        "ok": True,
        "notices": [],
        "upload": scenario.Settings(vals).source == "upload" and not st.session_state.get(UPLOAD_KEY),
    }


def _opened() -> None:
    file = st.session_state.get(UPLOADER_KEY)
    if file is not None:
        open_file(file.getvalue())


def open_box() -> None:
    """Home's drop zone for a scenario file, and what opening it did."""
    st.file_uploader(
        "Open a scenario file",
        type=["toml"],
        key=UPLOADER_KEY,
        on_change=_opened,
        help="A scenario file downloaded from the sidebar (dppca_scenario.toml): every setting, as its "
        "link would set them. It holds no data: an uploaded table is uploaded again on the Data "
        "page.",
    )
    said = st.session_state.pop(SCENARIO_FILE_OPENED_KEY, None)
    if said is None:
        return
    if not said["ok"]:
        st.error("This file could not be opened: " + md_escape(said["notices"][0]), icon=":material/error:")
        return
    st.success("Scenario opened: every page now shows it (the address bar holds it too).", icon=":material/check:")
    if said.get("upload"):
        st.info(
            "This scenario analyses an uploaded table, which a scenario file never holds: upload it on the Data "
            "page (its declared columns are kept).",
            icon=":material/upload_file:",
        )

"""The public schema of a table on the Data page: the upload, the columns suggested from its cells, and the step that
records them as declared (issue 54).

Which columns are analysed, in which order, the label and what a bad cell becomes are public once a release states
them, so a person must declare them: the page suggests them by reading the cells (a column counts when most of its
filled cells are numbers, a label by its name), explores with the suggestion and says so, and records the schema as
declared only when the analyst accepts it (**Declare this schema**) or edits it (the columns, their order, the label).
A schema written in the link or the scenario file is declared too. Until then nothing is published
(:func:`ui.data.undeclared_schema`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc

from . import data, scenario, table_hints
from .errors import boundary
from .session import (
    NEW_UPLOAD_KEY,
    UPLOAD_KEY,
)  # NEW_UPLOAD_KEY: set when a new file arrives, until its schema is read with the scenario's
from .text import md_escape


def upload_controls():
    """The uploader and, once a file is read, its schema step and column report; the upload (or None)."""
    loaded = st.session_state.get(UPLOAD_KEY)
    # back on the page the uploader is empty (Streamlit forgets a file widget's file), so its label says what is loaded
    label = (
        f"CSV or Parquet file: **{md_escape(loaded['name'])}** ({len(loaded['bytes']) / 1e3:,.1f} kB) is loaded; "
        "drop another file here to replace it"
        if loaded
        else "CSV or Parquet file (one row per record, one column per feature)"
    )
    file = st.file_uploader(
        label,
        key="data_upload",  # its identity, whatever its label says
        type=["csv", "parquet", "pq"],
        help=f"Limits on this server: {data.MAX_UPLOAD_BYTES / 1e6:.0f} MB, {data.MAX_UPLOAD_CELLS:,} cells and "
        f"{data.MAX_UPLOAD_COLUMNS:,} columns. Larger tables can be streamed from a file on the server (when "
        "the operator allows it) or with the Python library (docs/large-data.md).",
    )
    if file is not None:
        raw = file.getvalue()
        old = st.session_state.get(UPLOAD_KEY, {})
        if old.get("bytes") != raw:
            st.session_state[UPLOAD_KEY] = {"name": file.name, "bytes": raw}
            st.session_state[NEW_UPLOAD_KEY] = True
    up = st.session_state.get(UPLOAD_KEY)
    if not up:
        st.info(
            "Upload a file to analyse it. Uploaded data stay in this browser session and are not part of the "
            "link; the columns you choose are."
        )
        return None
    with boundary("the uploaded file"):
        parsed = data.parsed_upload(up)
        _forget_a_schema_the_new_file_lacks(parsed, up["name"])
        choice = data.table_choice(scenario.values(), parsed)
        if choice.unknown:
            st.error(md_escape(data.choice_problem(choice)), icon=":material/view_column:")
            st.button("Use this file's suggested columns", key="schema_reset", on_click=_reset_schema)
            st.stop()
        declaration(choice)
        _schema_controls(parsed, choice)
        _column_report(parsed, choice)
    return up


def _forget_a_schema_the_new_file_lacks(parsed, name: str) -> None:
    """A new file that does not have every declared column: the declaration is dropped (the page says so) and the
    file's own suggestion shown, undeclared. A declared schema that fits the new file is kept. Nothing is declared
    here: only the analyst declares."""
    new = st.session_state.pop(NEW_UPLOAD_KEY, False)
    scn = scenario.values()
    if new and scenario.declared_columns(scn) is not None and data.table_choice(scn, parsed).unknown:
        st.warning(
            f"{md_escape(name)} does not have every column declared before: the page suggests its own columns "
            "below (check them, then declare them).",
            icon=":material/view_column:",
        )
        _reset_schema()


def declaration(choice) -> None:
    """Where the schema stands: suggested from the cells (with the button that declares it) or declared."""
    if choice.declared:
        st.caption(
            ":material/verified: **Schema declared**: these columns, in this order, with this label and these "
            "values for bad cells, are analysed whatever the cells hold; the link and the scenario file record "
            "them, and a publishable release states them."
        )
        return
    box = st.container(border=True)
    box.markdown(
        ":material/help: **Suggested from the cells, not declared yet.** The columns below were picked by reading "
        "this file (a column counts when most of its filled cells are numbers; a label by its name), so they "
        "depend on the data. Explore with them freely; **publishing needs a schema that you declare**: check the "
        "columns, their order, the label and what a bad cell becomes, then declare it."
    )
    box.button(
        "Declare this schema",
        key="declare_schema",
        type="primary",
        icon=":material/verified:",
        on_click=declare,
        args=(list(choice.columns), choice.label),
        help="Records these columns, their order, the label and the values of bad cells as declared by you: "
        "from now on they are analysed whatever the cells hold.",
    )


def declare(columns, label: str) -> None:
    """Declare the schema: the columns in order, the label, and each column's public value for a bad cell."""
    given = scenario.fill_values()
    scenario.set_value("label", label or "")
    scenario.declare_columns(list(columns))
    fill = {c: float(given.get(c, dc.data.datasets.DEFAULT_FILL)) for c in columns}
    scenario.set_value("fill", json.dumps(fill) if fill else "")


def _reset_schema() -> None:
    for name in ("cols", "label", "fill"):
        scenario.set_value(name, "")


def _set_label(columns) -> None:
    label = st.session_state["w:label"]
    declare([c for c in columns if c != label], label)


def _set_columns(label: str) -> None:
    declare(st.session_state["w:cols"], label)


def _leave_out(columns, label: str, out) -> None:
    declare([c for c in columns if c not in out], label)


def _use_as_label(columns, column: str) -> None:
    declare([c for c in columns if c != column], column)


def _schema_controls(parsed, choice) -> None:
    """The public schema: the label, the analysed columns in order, and what a bad cell becomes. Editing the
    columns or the label declares the schema as shown."""
    scn = scenario.values()
    columns = list(choice.columns)
    c = st.columns([2, 3, 2], vertical_alignment="bottom")
    st.session_state["w:label"] = choice.label
    c[0].selectbox(
        "Label column (kept aside, not analysed)",
        ["", *parsed.columns],
        key="w:label",
        on_change=_set_label,
        args=(columns,),
        format_func=lambda v: v or "(none)",
        help="Suggested from names like target, label, class, species or y. Used to colour the score "
        "plot by group and to show what a classifier does on the projection.",
    )
    c[1].radio(
        "A missing or non-numeric cell in an analysed column",
        list(scenario.BAD_CELLS),
        format_func=scenario.BAD_CELLS.get,
        **scenario.bind("badcells"),
        help="Replacing keeps n and d the same whatever one person's cells hold. Leaving rows out changes n, "
        "which is private only when neighbours add or remove a row.",
    )
    with c[2]:
        if choice.on_bad == "replace" and choice.columns:
            fill_form(columns)
    options = [col for col in parsed.columns if col != choice.label]
    st.session_state["w:cols"] = [col for col in columns if col in options]
    st.multiselect(
        "Columns to analyse, in this order",
        options,
        key="w:cols",
        on_change=_set_columns,
        args=(choice.label,),
        format_func=lambda col: col if parsed.info(col).usable else f"{col} (not numbers)",
        help="What is analysed, and in which order, is public: the link records it. First suggested "
        "from the file (its numeric columns), which reads the cells; check it against what you "
        "know of the table. Changing it declares the schema.",
    )
    if scenario.Settings(scn).bad_cells == "drop_rows" and choice.on_bad == "replace":
        st.caption(
            "Neighbours replace one row here (Explore's sidebar), so n is public and no row is left out: "
            "each bad cell is replaced. Choose 'add or remove one row' to leave rows out."
        )
    problem = data.choice_problem(choice)
    if problem:
        st.warning(md_escape(problem[0].upper() + problem[1:]), icon=":material/view_column:")
    hint = table_hints.fill_warning(parsed, choice)
    if hint:
        st.warning(md_escape(hint), icon=":material/edit:")


def fill_form(columns: list, note: str = "") -> None:
    """Each analysed column's public value for a bad cell, typed in a form (nothing reruns until it is applied)."""
    given = scenario.fill_values()
    values = [float(given.get(c, dc.data.datasets.DEFAULT_FILL)) for c in columns]
    distinct = sorted(set(values))
    summary = f"{distinct[0]:g}" if len(distinct) == 1 else "per column"  # a declared value: exact
    with st.popover(f"A bad cell becomes: {summary}", icon=":material/edit:"):
        st.caption(
            "Each missing, infinite or non-numeric cell of a column becomes this value, the same whatever the "
            "other cells hold: choose it from public knowledge (a typical value from a field guide, the "
            "middle of a known range), never from these data. 0 is the midpoint of symmetric public bounds. " + note
        )
        with st.form("fill_form", border=False):
            table = st.data_editor(
                pd.DataFrame({"column": columns, "a bad cell becomes": values}),
                hide_index=True,
                disabled=["column"],
                key="fill_editor",
                width="stretch",
                column_config={"a bad cell becomes": st.column_config.NumberColumn(format="%g")},
            )
            if st.form_submit_button("Use these values"):
                typed = pd.to_numeric(table["a bad cell becomes"], errors="coerce").to_numpy(dtype=float)
                if not np.all(np.isfinite(typed)):
                    st.warning("Give every column a number.")
                else:
                    keep = {c: float(v) for c, v in zip(columns, typed)}
                    scenario.set_value("fill", json.dumps({**given, **keep}))
                    st.rerun()


def _column_table(parsed, choice) -> pd.DataFrame:
    """One row per column of the file: its use, what it holds, its bad cells and what they become, and a note."""
    flags, fills, rows = parsed.flags(), dict(choice.fill), []
    for col in parsed.columns:
        info = parsed.info(col)
        analysed = col in choice.columns
        use = "analysed" if analysed else "label" if col == choice.label else "left out"
        bad = int((~np.isfinite(parsed.numbers(col))).sum()) if analysed else None
        becomes = (f"{fills[col]:g}" if col in fills else "row left out") if analysed and bad else ""
        rows.append(
            {
                "column": col,
                "use": use,
                "holds": HOLDS.get(info.kind, info.kind),
                "bad cells": "" if bad is None else f"{bad:,}",
                "a bad cell becomes": becomes,
                "note": flags[col].words if col in flags else "",
            }
        )
    return pd.DataFrame(rows)


HOLDS = {
    "numeric": "numbers",
    "mixed": "mostly numbers",
    "text": "text",
    "empty": "nothing",
    "boolean": "true/false",
    "complex": "complex numbers",
    "datetime": "dates",
}
#: kinds of flag whose analysed columns get a one-click "leave out"
LEAVE_OUT = ("identifier", "time", "constant", "empty")


def _column_report(parsed, choice) -> None:
    """What each column holds, its use, and one-click fixes: leave out identifier-, time- and constant-like columns,
    use a text column as the label. Read from the cells: for the data owner only."""
    table = _column_table(parsed, choice)
    flags = parsed.flags()
    odd = [c for c in choice.columns if c in flags and flags[c].kind in LEAVE_OUT]
    labels = [c for c, f in flags.items() if f.kind == "text" and "label" in f.words and c != choice.label]
    analysed = table[table["use"] == "analysed"]
    with st.expander(
        f"Column report: {len(choice.columns)} analysed, {int((table['use'] == 'left out').sum())} left "
        f"out" + (f", {len(odd)} to check" if odd else ""),
        expanded=bool(odd) or bool((analysed["bad cells"] != "0").any()),
    ):
        st.dataframe(
            table, hide_index=True, width="stretch", column_config={"note": st.column_config.TextColumn(width="large")}
        )
        for start in range(0, min(len(odd), 8), 4):
            cols = st.columns(4)
            for slot, col in zip(cols, odd[start : start + 4]):
                slot.button(
                    f"Leave out {col}",
                    key=f"leave_out:{col}",
                    on_click=_leave_out,
                    args=(list(choice.columns), choice.label, [col]),
                    help=flags[col].words,
                )
        if len(odd) > 1:
            st.button(
                f"Leave out all {len(odd)} columns flagged above",
                key="leave_out_flagged",
                on_click=_leave_out,
                args=(list(choice.columns), choice.label, odd),
            )
        if labels and not choice.label:
            cols = st.columns(4)
            for slot, col in zip(cols, labels[:4]):
                slot.button(
                    f"Use {col} as the label",
                    key=f"use_label:{col}",
                    on_click=_use_as_label,
                    args=(list(choice.columns), col),
                )
        st.caption(
            "The notes and counts are read from the file's cells: not private, for you only (the number of "
            "replaced cells never leaves this page). What is analysed is what you choose above; the link "
            "records it. Text columns are not analysed; one with a few distinct values can be the label."
        )

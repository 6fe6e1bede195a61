"""Every session-state key that no widget owns, in one place: what it holds, who writes it and who reads it.

Widgets own their own keys (``w:<field>``, :func:`ui.scenario.bind`); everything else a session keeps between reruns
and across pages (results, one-shot flags, the upload) is named here, so two pages cannot mean different things by
one name and a new result shows where it is read. Modules use a key under its name here (``from ui.session import
AUDIT_RESULT_KEY``, or ``session.AUDIT_RESULT_KEY``): never an alias, a bare string or another module's copy
(tests/test_ui_rules.py). The values are plain strings, so old sessions and tests that read them keep working.
"""

from __future__ import annotations

import streamlit as st

# -- the app shell and the scenario -------------------------------------------------------------------------
#: app.py's pages by key (st.Page objects), for st.switch_page from pages (gallery, presenter bar, warnings)
PAGES_KEY = "_pages"
#: True while app.py runs the page (ui/shell.py: a page run without it reruns through app.py)
IN_ENTRY_KEY = "_in_entry_script"
#: the scenario's values (ui/scenario.py), and the notices its reading left for the next rerun
SCENARIO_KEY = "scenario"
NOTICES_KEY = "scenario_notices"
#: what opening the last scenario file said ({"ok": bool, "notices": [...], "upload": bool}; ui/scenario_file.py
#: writes it when a file is dropped on Home, and its drop zone shows it once)
SCENARIO_FILE_OPENED_KEY = "scenario_file_opened"
#: the (mechanism, epsilon, delta) the Audit page last took from the scenario (ui/scenario.audit_follows_scenario)
AUDIT_FOLLOW_KEY = "audit_follows"

# -- the data -------------------------------------------------------------------------------------------------
#: {"name", "bytes"} of an uploaded file (written by the Data page; read by ui/data.py and the Report)
UPLOAD_KEY = "upload"
#: True on the rerun after a new upload (the Data page resets the column choices once)
NEW_UPLOAD_KEY = "upload_new"
#: the statistics of a server file read in this session ({"relative", "stats"}; Data page, ui/streamed.py)
STREAM_KEY = "streamed"

# -- results shared across pages ------------------------------------------------------------------------------
#: the last audit of this session (written by the Audit page; read by its result view and ui/views.py)
AUDIT_RESULT_KEY = "audit_result"
#: every audit by setting (ui/guarantee.py: the guarantee card shows the audit of its own setting)
AUDITS_KEY = "audits_by_setting"
#: the Audit page's external-library audit and library comparison (ui/libraries.py)
EXTERNAL_AUDIT_KEY = "external_audit"
LIBRARY_COMPARISON_KEY = "library_comparison"
#: the sweep the Trade-offs page drew ({"frame", "axis", "metric", "label", ...}; its planner and the Report read it)
LAST_SWEEP_KEY = "last_sweep"
#: releases drawn with fresh randomness for the current scenario (the Report page)
FRESH_RELEASES_KEY = "fresh_releases"
#: the last plan from targets shown on Trade-offs ((question, Plan); ui/planner.py), and the plan the scenario was set
#: to (the Report states it while the scenario still matches)
PLAN_RESULT_KEY = "plan_result"
PLANNED_FOR_KEY = "planned_for"
#: the spectra the planner released privately from this session's rows, each drawn once per (data, R, scaling, ε, δ,
#: relation, centring) and kept for the session ({key: {"standin": Standin or None if all noise, "cost": curve items}});
#: every one of them is counted in the plans made on the same rows (ui/planner.py)
PRIVATE_STANDINS_KEY = "private_standins"

#: this session's name in the budget book (ui/book.py: a random token, recorded with each of its spends)
BOOK_SESSION_KEY = "book_session"

# -- the Class page (the class game, ui/classroom.py) ---------------------------------------------------------
#: the room this session hosts ({"code", "key"}: the teacher's key starts its rounds)
CLASS_HOST_KEY = "class_host"
#: this session's random id as a student (the same in every room it joins)
CLASS_STUDENT_KEY = "class_student"
#: what the room said to this student's last answer ("counted", "already", "closed"), shown once
CLASS_ANSWERED_KEY = "class_answered"

# -- one-shot flags of a page ---------------------------------------------------------------------------------
#: the Trade-offs sweep and the Reproduce runs were stopped (ui/controls.stop_and_run)
SWEEP_STOP_KEY = "sweep_stopped"
REPRODUCE_STOP_KEY = "reproduce_stopped"
#: the reproductions this session asked to compute live, by (paper, grid, repetitions, seed) (the Reproduce page: it
#: computes nothing until asked; with the shipped settings it shows the shipped runs)
REPRODUCE_LIVE_KEY = "reproduce_live"
#: the CPU time this session spent on live reproductions and sweeps ({"spent", "at"}; ui/cpu_budget.py)
CPU_BUDGET_KEY = "live_cpu_budget"
#: a view setting changed in a fragment: rerun the whole app once (ui/views.py)
RERUN_APP_KEY = "view_setting_changed"


def page(key: str):
    """app.py's page ``key`` ("data", "explore", ...), for st.switch_page."""
    return st.session_state[PAGES_KEY][key]

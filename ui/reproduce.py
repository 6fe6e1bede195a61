"""The Reproduce page's computation: a paper's reproductions run task by task (each task cached), or the shipped run
read from docs/reproduce/ when the settings are the shipped ones and the session has not asked to recompute live."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

import plotly.graph_objects as go
import streamlit as st

from dppca_core import reproduce as rp

from . import limits
from .session import REPRODUCE_LIVE_KEY, REPRODUCE_STOP_KEY

#: the files `python -m dppca_core.reproduce --all --out docs/reproduce` wrote: served when the settings match
SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "reproduce"
SHIPPED_COMMAND = "python -m dppca_core.reproduce --all --out docs/reproduce --combined --png --docs docs"


@st.cache_data(max_entries=4096, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _task(task_json: str) -> list[dict]:
    """One task's rows, cached on the task itself: reproduction, grid settings, repetition and seed."""
    return rp.run_task(json.loads(task_json))


@st.cache_resource(max_entries=len(rp.REPRODUCTIONS), ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _shipped(key: str):
    """The shipped run of reproduction ``key`` (default grid, its own repetitions, seed 0), read and assembled once
    per server; None when the files are missing or were made with other settings than the current grid's."""
    return rp.load(key, SHIPPED)


@st.cache_resource(max_entries=len(rp.REPRODUCTIONS), ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def shipped_figure(key: str) -> go.Figure:
    """The shipped run's figure, built once per server (shared by every session: restyle a copy of it)."""
    return rp.figure(_shipped(key), title=False)


def compute(keys, grid: str, reps: int | None, seed: int, progress: Callable[[float, str], None] | None = None) -> dict:
    """Each reproduction of ``keys`` run task by task (cached); ``progress(fraction, text)`` after each task."""
    plans = {key: rp.plan(key, grid, reps, seed) for key in keys}
    total = sum(len(p) for p in plans.values())
    done, out = 0, {}
    for key, tasks in plans.items():
        start, rows = time.perf_counter(), []
        for task in tasks:
            rows += _task(json.dumps(task, sort_keys=True))
            done += 1
            if progress is not None:
                progress(done / total, f"{rp.SPECS[key].title}: task {done} of {total}")
        out[key] = rp.assemble(key, rows, grid, reps, seed, time.perf_counter() - start)
    return out


def shipped_results(paper_key: str, keys, grid: str, reps: int | None, seed: int) -> dict:
    """The shipped runs of the paper's reproductions, when the view asks for exactly them (default grid, the grid's
    repetitions, seed 0) and the session has not asked to recompute this paper live; else {}."""
    if grid != "default" or reps is not None or seed != 0 or paper_key in st.session_state.get(REPRODUCE_LIVE_KEY, ()):
        return {}
    out = {key: _shipped(key) for key in keys}
    return out if all(rep is not None for rep in out.values()) else {}


def go_live(paper_key: str) -> None:
    """Recompute the paper on this server from now on (a button's callback)."""
    st.session_state[REPRODUCE_LIVE_KEY] = [*st.session_state.get(REPRODUCE_LIVE_KEY, ()), paper_key]
    st.session_state[REPRODUCE_STOP_KEY] = False

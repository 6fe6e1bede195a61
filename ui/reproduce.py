"""The Reproduce page's computation: a paper's reproductions run task by task (each task cached), or the shipped run
read from docs/reproduce/ when the settings are the shipped ones and the session has not asked to recompute live."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Callable

import plotly.graph_objects as go
import streamlit as st

from dppca_core import reproduce as rp

from . import cpu_budget, limits
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


@st.cache_resource(max_entries=1, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _manifest() -> dict:
    """The shipped runs' manifest (each reproduction's grid, repetitions and CPU seconds), read once per server."""
    try:
        return json.loads((SHIPPED / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def cost(keys, grid: str, reps: int | None, seed: int) -> tuple[int, float, bool]:
    """(tasks, CPU seconds, whether that is a lower bound) of computing the reproductions ``keys`` live: each task
    at the CPU time per task measured when the shipped files were made (default grid). The full grid's tasks are
    larger than the default grid's, so for it the time is a lower bound; nan when the manifest has no timing."""
    tasks, seconds = 0, 0.0
    for key in keys:
        count = len(rp.plan(key, grid, reps, seed))
        entry = _manifest().get(key, {})
        try:
            shipped_tasks = len(rp.plan(key, "default", int(entry["reps"]), 0))
            per_task = float(entry["cpu_seconds"]) / shipped_tasks
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            per_task = math.nan
        tasks, seconds = tasks + count, seconds + count * per_task
    return tasks, seconds, grid != "default"


def cost_words(keys, grid: str, reps: int | None, seed: int) -> str:
    """What computing the view live will cost, and this session's CPU budget (Markdown)."""
    tasks, seconds, at_least = cost(keys, grid, reps, seed)
    if seconds != seconds:
        time_words = "its CPU time was not measured"
    elif at_least:
        time_words = (
            f"at least {seconds:,.0f} CPU seconds (the default grid's time per task; the full grid's tasks are "
            "larger: minutes to hours)"
        )
    else:
        time_words = f"about {max(seconds, 1):,.0f} CPU seconds (measured when the shipped files were made)"
    return (
        f"Computing this view here runs {tasks:,} tasks: {time_words}. Nothing runs until you press **Run live**. "
        f"This session has {cpu_budget.remaining():,.0f} CPU seconds left for live runs on this shared server (of "
        f"{limits.LIVE_CPU_SECONDS:,} per {limits.LIVE_CPU_WINDOW_SECONDS / 60:g} minutes); a run stops when they "
        "are spent and keeps the tasks already done."
    )


def compute(keys, grid: str, reps: int | None, seed: int, progress: Callable[[float, str], None] | None = None) -> dict:
    """Each reproduction of ``keys`` run task by task (cached); ``progress(fraction, text)`` after each task. Charged
    to this session's CPU budget (:mod:`ui.cpu_budget`): :class:`ui.cpu_budget.Spent` when it runs out before the
    last task (the tasks done stay cached)."""
    plans = {key: rp.plan(key, grid, reps, seed) for key in keys}
    total = sum(len(p) for p in plans.values())
    meter = cpu_budget.Meter("reproduction")
    done, out = 0, {}
    for key, tasks in plans.items():
        start, rows = time.perf_counter(), []
        for task in tasks:
            rows += _task(json.dumps(task, sort_keys=True))
            done += 1
            meter.tick(then_check=done < total)
            if progress is not None:
                progress(done / total, f"{rp.SPECS[key].title}: task {done} of {total}")
        out[key] = rp.assemble(key, rows, grid, reps, seed, time.perf_counter() - start)
    return out


def asked(paper_key: str, grid: str, reps: int | None, seed: int) -> bool:
    """Whether this session asked to compute the paper live at these settings (:func:`go_live`)."""
    return [paper_key, grid, reps, seed] in st.session_state.get(REPRODUCE_LIVE_KEY, [])


def shipped_results(paper_key: str, keys, grid: str, reps: int | None, seed: int) -> dict:
    """The shipped runs of the paper's reproductions, when the view asks for exactly them (default grid, the grid's
    repetitions, seed 0) and the session has not asked to recompute them live; else {}."""
    if grid != "default" or reps is not None or seed != 0 or asked(paper_key, grid, reps, seed):
        return {}
    out = {key: _shipped(key) for key in keys}
    return out if all(rep is not None for rep in out.values()) else {}


def go_live(paper_key: str, grid: str, reps: int | None, seed: int) -> None:
    """Compute the paper at these settings on this server (a button's callback): nothing heavy starts from a link."""
    st.session_state[REPRODUCE_LIVE_KEY] = [
        *st.session_state.get(REPRODUCE_LIVE_KEY, []),
        [paper_key, grid, reps, seed],
    ]
    st.session_state[REPRODUCE_STOP_KEY] = False

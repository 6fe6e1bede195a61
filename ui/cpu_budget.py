"""Each session's budget of CPU time for live reproductions and sweeps (issue 63.4), kept in its session state.

A session may spend :data:`ui.limits.LIVE_CPU_SECONDS` of CPU on them; what it spent comes back at that rate over
:data:`ui.limits.LIVE_CPU_WINDOW_SECONDS` (a bucket that refills). The time charged is the CPU time of the session's
own script thread (``time.thread_time``) between the meter's ticks, so other sessions' work is never charged here;
the BLAS library's helper threads are not counted. The budget is checked before the work starts and at each tick
(after each task or point), so a run passes it by one task at most; then :class:`Spent` carries the words to show.
"""

from __future__ import annotations

import math
import time

import streamlit as st

from . import limits
from .errors import Refusal
from .session import CPU_BUDGET_KEY


class Spent(Refusal):
    """This session's CPU budget is spent; ``str(exc)`` says so in words, with when it comes back."""


def _state() -> dict:
    """{"spent": CPU seconds counted against the budget, "at": the wall clock when it was last brought up to date}."""
    return st.session_state.setdefault(CPU_BUDGET_KEY, {"spent": 0.0, "at": time.time()})


def _refill(state: dict) -> None:
    now = time.time()
    given_back = (now - state["at"]) * limits.LIVE_CPU_SECONDS / limits.LIVE_CPU_WINDOW_SECONDS
    state["spent"], state["at"] = max(0.0, state["spent"] - given_back), now


def remaining() -> float:
    """CPU seconds this session may still spend on live reproductions and sweeps."""
    state = _state()
    _refill(state)
    return max(0.0, limits.LIVE_CPU_SECONDS - state["spent"])


def charge(seconds: float) -> None:
    state = _state()
    _refill(state)
    state["spent"] += max(0.0, float(seconds))


def spent_words(what: str) -> str:
    """Why ``what`` does not run now, and when it can (Markdown)."""
    state = _state()
    over = state["spent"] - limits.LIVE_CPU_SECONDS + 1.0  # back to one second of budget at least
    wait = max(1, math.ceil(over * limits.LIVE_CPU_WINDOW_SECONDS / limits.LIVE_CPU_SECONDS / 60))
    return (
        f"**This session has used its CPU time for live runs.** This server is shared, so each session may spend "
        f"{limits.LIVE_CPU_SECONDS:,} CPU seconds on live reproductions and sweeps per "
        f"{limits.LIVE_CPU_WINDOW_SECONDS / 60:g} minutes; the {what} stopped there. What is already computed stays "
        f"cached: in about {wait} minute{'s' if wait != 1 else ''} this session can run again, and it shows at once."
    )


def check(what: str) -> None:
    """Raise :class:`Spent` when this session's budget is spent."""
    if remaining() <= 0:
        raise Spent(spent_words(what))


class Meter:
    """Charges the session for the CPU time its thread spends on ``what``: checks the budget when made, and at each
    :meth:`tick` charges the time since the last tick and checks again."""

    def __init__(self, what: str):
        self.what = what
        check(what)
        self._mark = time.thread_time()

    def tick(self, then_check: bool = True) -> None:
        now = time.thread_time()
        charge(now - self._mark)
        self._mark = now
        if then_check:
            check(self.what)

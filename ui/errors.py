"""Error boundary: library errors become a message saying what to change; no traceback reaches the page."""

from __future__ import annotations

import contextlib
import logging

import streamlit as st

from .text import md_escape

log = logging.getLogger("dppca.ui")

# Streamlit's own control-flow exceptions (st.stop, st.rerun, page switches) must pass through.
_CONTROL_FLOW = ("StopException", "RerunException", "ScriptControlException")


class Refusal(Exception):
    """Work the app declines in words (e.g. a spent CPU budget): shown as a warning, not as an error."""


def _is_control_flow(exc: BaseException) -> bool:
    return any(cls.__name__ in _CONTROL_FLOW for cls in type(exc).__mro__)


@contextlib.contextmanager
def boundary(where: str = "this page"):
    """Run a block; show a :class:`Refusal` as a warning, ValueError as a fix-it message and any other error as a
    short apology."""
    try:
        yield
    except Refusal as exc:
        st.warning(str(exc), icon=":material/hourglass_disabled:")
    except ValueError as exc:
        st.error(f"**Cannot compute {where} with these settings.** {md_escape(exc)}", icon=":material/tune:")
    except Exception as exc:  # noqa: BLE001 - the page must stay usable whatever happens
        if _is_control_flow(exc):
            raise
        log.exception("unexpected error in %s", where)
        st.error(
            f"**Something went wrong in {where}** ({type(exc).__name__}: {md_escape(exc)}). "
            "Try other settings or load a scenario from Home; the rest of the app still works.",
            icon=":material/error:",
        )

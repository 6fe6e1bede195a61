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


#: first words a message may start with that read lowercase after a colon (names, "R", "ε" keep their case)
_LOWERCASE_AFTER_COLON = frozenset(
    "The A An No This These That Each Every It Its There One Choose Set Pick Use Upload Give Add Raise Turn Load "
    "Not Only All Some Nothing Both".split()
)


def fix_it(where: str, exc) -> str:
    """One sentence: what could not be computed, a colon, and the library's reason (which says what to change), so
    the message starts with a capital and never reads "... settings. no file is uploaded"."""
    reason = str(exc).strip()
    first = reason.split(" ", 1)[0]
    if first in _LOWERCASE_AFTER_COLON:
        reason = reason[0].lower() + reason[1:]
    return f"**Cannot compute {where} with these settings**: {md_escape(reason)}"


@contextlib.contextmanager
def boundary(where: str = "this page"):
    """Run a block; show a :class:`Refusal` as a warning, ValueError as a fix-it message and any other error as a
    short apology."""
    try:
        yield
    except Refusal as exc:
        st.warning(str(exc), icon=":material/hourglass_disabled:")
    except ValueError as exc:
        st.error(fix_it(where, exc), icon=":material/tune:")
    except Exception as exc:  # noqa: BLE001 - the page must stay usable whatever happens
        if _is_control_flow(exc):
            raise
        log.exception("unexpected error in %s", where)
        st.error(
            f"**Something went wrong in {where}** ({type(exc).__name__}: {md_escape(exc)}). "
            "Try other settings or load a scenario from Home; the rest of the app still works.",
            icon=":material/error:",
        )

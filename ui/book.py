"""The budget book on the pages (issues 54, 55, 60): which table this session reads, what has been spent on it (in
this session, and by every session of this server), and what a draw will add, stated before anything is drawn.

The book itself is :class:`dppca_core.book.BudgetBook`, a SQLite file shared by every session of the server and
kept across restarts: ``DPPCA_LEDGER`` names it; otherwise it lives in the server's data folder
(``DPPCA_DATA_DIR``), or in the user's state folder. Every private look at the user's rows goes through
:func:`spend`: the spend is reserved in the book first (a cap is enforced there, in one transaction), then drawn,
then settled with the exact curve of what was drawn.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
from pathlib import Path

import pandas as pd
import streamlit as st

from dppca_core.book import BudgetBook, Spend, Spent, book_key, composed, fingerprint
from dppca_core.pipeline.budget import planned_curve, release_delta
from dppca_core.privacy import PrivacyCurve
from dppca_core.registry import get_mechanism
from dppca_core.scenario import Settings

from . import limits
from .session import BOOK_SESSION_KEY, UPLOAD_KEY
from .text import md_escape, plain

#: the environment variable that names the book's file
BOOK_VARIABLE = "DPPCA_LEDGER"


def book_path() -> Path:
    """Where the book lives: ``DPPCA_LEDGER``, else ``DPPCA_DATA_DIR/dppca_ledger.sqlite``, else the user's state
    folder (``$XDG_STATE_HOME`` or ``~/.local/state``)/dppca-explorer/ledger.sqlite."""
    named = os.environ.get(BOOK_VARIABLE, "").strip()
    if named:
        return Path(named).expanduser()
    data = os.environ.get("DPPCA_DATA_DIR", "").strip()
    if data:
        return Path(data).expanduser() / "dppca_ledger.sqlite"
    state = os.environ.get("XDG_STATE_HOME", "").strip() or str(Path.home() / ".local" / "state")
    return Path(state) / "dppca-explorer" / "ledger.sqlite"


@st.cache_resource(max_entries=4, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _opened(path: str) -> tuple:
    """(the book, its key) for ``path``: opened once per process (the file is shared, the object holds no rows)."""
    return BudgetBook(path), book_key(path)


def book() -> BudgetBook:
    return _opened(str(book_path()))[0]


def session_id() -> str:
    """This session's name in the book (random, kept for the session)."""
    return st.session_state.setdefault(BOOK_SESSION_KEY, secrets.token_hex(8))


def table(ds, vals: dict) -> tuple[str, str]:
    """(the id, the public name) of the table the scenario reads, registered in the book. The id is a keyed
    fingerprint of the file's bytes (an upload), of its path, size and time (a server file), or of the public
    description of synthetic and shipped data; the name is the one the user knows it by."""
    s = Settings(vals)
    the_book, key = _opened(str(book_path()))
    src = s.source
    if src == "upload" and st.session_state.get(UPLOAD_KEY):
        up = st.session_state[UPLOAD_KEY]
        content, name = hashlib.sha256(up["bytes"]).digest(), plain(up["name"])
    elif src.startswith("server:"):
        content, name = _server_identity(src.split(":", 1)[1]), src.split(":", 1)[1]
    elif src == "synthetic":
        content = "synthetic:" + ",".join(str(vals[f]) for f in ("n", "d", "rank", "spike", "sparse", "dseed"))
        name = f"synthetic data (n = {s.rows}, d = {s.features}, seed {s.data_seed})"
    else:
        content, name = src, src.split(":", 1)[-1]
    schema = getattr(ds, "schema", None)
    table_id = fingerprint(content, key)
    declared = schema.as_dict() if schema is not None else {"columns": list(ds.columns)}
    the_book.table(table_id, name, declared, cap=operator_cap())
    return table_id, name


def operator_cap() -> tuple | None:
    """The cap every new table of this server starts with: ``DPPCA_CAP_EPSILON`` (and ``DPPCA_CAP_DELTA``, default
    1e-5), or None when the operator sets none (a value that is not a number is ignored: the log says so)."""
    text = os.environ.get("DPPCA_CAP_EPSILON", "").strip()
    if not text:
        return None
    try:
        eps = float(text)
        delta = float(os.environ.get("DPPCA_CAP_DELTA", "1e-5"))
    except ValueError:
        limits.log.warning("DPPCA_CAP_EPSILON=%r or DPPCA_CAP_DELTA is not a number: no default cap", text)
        return None
    return (eps, delta) if eps > 0 and math.isfinite(eps) and 0 <= delta < 1 else None


def _server_identity(relative: str) -> str:
    """A server file's identity: its path in the data folder, size and modification time (not its content, which
    may be many gigabytes; a rewritten file is a new table)."""
    from . import server_files

    try:
        found = server_files.find(relative)
        parts = [f"{p}:{os.stat(p).st_size}:{os.stat(p).st_mtime_ns}" for p in found.paths]
    except (OSError, ValueError):
        parts = []
    return "server:" + relative + "|" + "|".join(parts)


def release_spend(mechanism: str, options) -> Spend:
    """What one release of ``mechanism`` with ``options`` (a ReleaseOptions) will spend, stated before it is drawn:
    the curve its plan composes to (:func:`dppca_core.pipeline.budget.planned_curve`, never below the curve the
    release then states; the same curve for a Gaussian release), with the delta it states."""
    title = get_mechanism(mechanism).display_name
    return Spend(
        "release", f"{title} release", planned_curve(mechanism, options), release_delta(mechanism, options), mechanism
    )


def look_spend(what: str, epsilon: float, delta: float) -> Spend:
    """A private look shown to the analyst (the planner's stand-in), at its claimed (ε, δ)."""
    return Spend("look", what, PrivacyCurve.approx(float(epsilon), float(delta)), float(delta))


def reserve(table_id: str, spends: list[Spend]) -> list[int]:
    """Record ``spends`` for this session before they are drawn (OverCap, in words, past the table's cap)."""
    mine = [Spend(s.kind, s.what, s.curve, s.delta, s.mechanism, session_id()) for s in spends]
    return book().reserve(table_id, mine)


def settle(spend_id: int, curve: PrivacyCurve, digest: str = "") -> None:
    book().settle(spend_id, curve, digest)


def spent(table_id: str, mine: bool = False, extra=()) -> Spent:
    """What has been spent on the table (by this session only, with ``mine``), with ``extra`` spends added."""
    return book().spent(table_id, session_id() if mine else None, extra)


def _reading(s: Spent) -> str:
    if not s.count:
        return "nothing"
    if math.isinf(s.epsilon):
        return f"no bound ({s.count} spend(s), one with no guarantee)"
    return f"ε = {s.epsilon:.3g}, δ = {s.delta:.2g} ({s.count} spend(s))"


def statement(table_id: str, name: str, pending: list[Spend]) -> str:
    """What has been spent on the table and what ``pending`` would bring it to, in words, before a draw."""
    the_book = book()
    everyone = spent(table_id)
    mine = spent(table_id, mine=True)
    after = the_book.spent(table_id, extra=pending)
    each = "; ".join(f"{s.what}: {_reading(composed([s])).split(' (')[0]}" for s in pending)
    this = composed(pending)
    text = (
        f"**Spent on {md_escape(name)} so far**: {_reading(mine)} in this session; {_reading(everyone)} in every session of "
        f"this server. **This draw spends** {each}"
        + (f", which compose to ε = {this.epsilon:.3g}, δ = {this.delta:.2g}" if len(pending) > 1 else "")
        + f". **After it**: {_reading(after)}, composed exactly with everything before."
    )
    cap = the_book.cap(table_id)
    if cap is not None:
        text += f" This table's cap: ε = {cap[0]:.3g}, δ = {cap[1]:.2g}."
    return text


def my_spends(table_id: str) -> list:
    """This session's spends on the table, oldest first (:class:`dppca_core.book.Spend`, with their ids)."""
    return book().spends(table_id, session_id())


def earlier(table_id: str) -> list[dict]:
    """This session's spends on the table so far, as the publishable file states them ({"what", "privacy",
    "delta"}): what shaped the releases drawn next (a planner's stand-in, earlier releases)."""
    return [
        {"what": s.what, "privacy": s.curve.as_dict(), "delta": s.delta} for s in book().spends(table_id, session_id())
    ]


def ledger_frame(table_id: str) -> pd.DataFrame:
    """The table's spends, oldest first: when, what, ε and δ, settled or reserved, and whose session."""
    me = session_id()
    rows = []
    for s in book().spends(table_id):
        eps = s.curve.epsilon_at(s.delta) if s.delta > 0 or s.curve.kind != "gdp" else math.inf
        rows.append(
            {
                "when (UTC)": s.created.replace("T", " ").replace("+00:00", ""),
                "what": s.what,
                "ε": eps,
                "δ": s.delta,
                "state": "drawn" if s.settled else "reserved",
                "session": "this session" if s.session == me else "another session",
            }
        )
    return pd.DataFrame(rows, columns=["when (UTC)", "what", "ε", "δ", "state", "session"])


def ledger_csv(table_id: str) -> str:
    """The table's spends as CSV (every field of the book, the curve as JSON), for the Report's download."""
    frame = pd.DataFrame(book().export(table_id))
    if not frame.empty:
        frame["privacy"] = frame["privacy"].map(lambda p: json.dumps(p, sort_keys=True))
    first = "# Exploration record: the budget book of one table, for the data owner (what was spent, never the rows)\n"
    return first + frame.to_csv(index=False)

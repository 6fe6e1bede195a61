"""The budget book: what has been spent on each table, kept in SQLite, composed exactly, under a cap (issues 54, 60).

Every private look at a table (a release drawn to publish, a private stand-in the planner shows) is a *spend*: its
exact privacy curve and the delta it stated. The book keeps them per table, across sessions and restarts, and
states what has been spent as one composed guarantee (:func:`dppca_core.privacy.total`, the same arithmetic as the
publishable file's "together"). A table is known by a keyed fingerprint of its content (HMAC-SHA256 under a secret
of the server, so the book holds nothing that identifies rows), its public name and its declared schema.

A spend is *reserved* before the draw, inside one write transaction that reads what was spent and refuses, in
words, a spend that would pass the table's cap (so two sessions drawing at once cannot both slip under it), and
*settled* afterwards with the release's exact curve and the digest of what was written. A draw that fails after
its reservation stays counted: the book never counts less than was spent.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import hmac
import json
import math
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..privacy.curves import PrivacyCurve, total
from ..version import __version__

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    schema TEXT NOT NULL,
    created TEXT NOT NULL,
    cap_epsilon REAL,
    cap_delta REAL
);
CREATE TABLE IF NOT EXISTS spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL REFERENCES tables(id),
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    what TEXT NOT NULL,
    mechanism TEXT,
    privacy TEXT NOT NULL,
    delta REAL NOT NULL,
    created TEXT NOT NULL,
    version TEXT NOT NULL,
    digest TEXT NOT NULL DEFAULT '',
    settled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS spends_by_table ON spends(table_id, session);
"""
#: what a spend is: a release drawn to publish, a private look shown to the analyst (a stand-in), a refinement
KINDS = ("release", "look", "refinement")
#: seconds a write waits for another session's transaction
BUSY_SECONDS = 30.0


class OverCap(ValueError):
    """A spend that would pass the table's cap (refused in words; nothing was recorded)."""


@dataclass(frozen=True)
class Spend:
    """One private look at a table: its curve and the delta it stated, what it was, and where it came from."""

    kind: str
    what: str
    curve: PrivacyCurve
    delta: float
    mechanism: str | None = None
    session: str = ""
    created: str = ""
    version: str = ""
    digest: str = ""
    settled: bool = False
    id: int | None = None

    def as_dict(self) -> dict:
        """Plain JSON: every field, the curve as :meth:`PrivacyCurve.as_dict`."""
        return {
            "id": self.id,
            "kind": self.kind,
            "what": self.what,
            "mechanism": self.mechanism,
            "privacy": self.curve.as_dict(),
            "delta": self.delta,
            "session": self.session,
            "created": self.created,
            "version": self.version,
            "digest": self.digest,
            "settled": self.settled,
        }


@dataclass(frozen=True)
class Spent:
    """What the spends of a table (or of one session on it) compose to: the curve, and epsilon at the total delta."""

    count: int
    curve: PrivacyCurve | None
    epsilon: float
    delta: float

    def words(self) -> str:
        if not self.count:
            return "nothing yet"
        if math.isinf(self.epsilon):
            return f"{self.count} spend(s), with no bound (one stated no guarantee)"
        return f"ε = {self.epsilon:.3g}, δ = {self.delta:.2g} in {self.count} spend(s), composed exactly"


def fingerprint(content, key: bytes) -> str:
    """HMAC-SHA256 of ``content`` (bytes, or a str naming a public source) under the book's secret ``key``: the
    table's id. Without the key nobody can test a guessed table against the book."""
    data = content.encode() if isinstance(content, str) else bytes(content)
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def book_key(path) -> bytes:
    """The book's secret: ``DPPCA_LEDGER_KEY`` (hex), else a 32-byte file beside the book, made on first use and
    readable by its owner only."""
    given = os.environ.get("DPPCA_LEDGER_KEY", "").strip()
    if given:
        return bytes.fromhex(given)
    keyfile = Path(str(path) + ".key")
    try:
        fd = os.open(keyfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return keyfile.read_bytes()
    with os.fdopen(fd, "wb") as out:
        out.write(os.urandom(32))
    return keyfile.read_bytes()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@functools.cache
def _version() -> str:
    """The package's version (the code that made the spend), from its one source (:mod:`dppca_core.version`)."""
    return __version__


class BudgetBook:
    """The book in the SQLite file ``path`` (created if missing; WAL, so readers never wait for a writer)."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        return db

    # -- tables ------------------------------------------------------------------------------------------------

    def table(self, table_id: str, name: str, schema: dict | None = None, cap: tuple | None = None) -> str:
        """Register the table ``table_id`` (a :func:`fingerprint`) with its public name and declared schema, once,
        with ``cap`` ((epsilon, delta), e.g. the operator's default) as its first cap; returns the id."""
        eps, delta = cap if cap is not None else (None, None)
        with self._connect() as db:
            db.execute(
                "INSERT OR IGNORE INTO tables (id, name, schema, created, cap_epsilon, cap_delta) VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, str(name), json.dumps(schema or {}, sort_keys=True), _now(), eps, delta),
            )
        return table_id

    def tables(self) -> list[dict]:
        """Every table: id, name, schema, created and cap (None when none is set)."""
        with self._connect() as db:
            rows = db.execute("SELECT id, name, schema, created, cap_epsilon, cap_delta FROM tables").fetchall()
        return [
            {
                "id": r[0],
                "name": r[1],
                "schema": json.loads(r[2]),
                "created": r[3],
                "cap": None if r[4] is None else {"epsilon": r[4], "delta": r[5]},
            }
            for r in rows
        ]

    def set_cap(self, table_id: str, epsilon: float | None, delta: float | None = None, lower_only: bool = False):
        """The table's cap: (epsilon, delta) nobody's spends may pass together; None lifts it. ``lower_only`` (what a
        visitor of the app may do): a cap may be set or lowered, never raised or lifted (ValueError in words); the
        operator raises one with ``python -m dppca_core.book cap``."""
        if epsilon is not None and not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError(f"a cap's epsilon must be a finite number > 0 (got {epsilon!r}).")
        if epsilon is not None and not (delta is not None and 0 <= delta < 1):
            raise ValueError(f"a cap's delta must lie in [0, 1) (got {delta!r}).")
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT cap_epsilon, cap_delta FROM tables WHERE id = ?", (table_id,)).fetchone()
            if lower_only and row is not None and row[0] is not None:
                if epsilon is None or epsilon > row[0] or delta > row[1]:
                    raise ValueError(
                        f"this table's cap is ε = {row[0]:g}, δ = {row[1]:g}: it can be lowered here, never raised or "
                        "lifted; the server's operator can (python -m dppca_core.book cap)."
                    )
            db.execute("UPDATE tables SET cap_epsilon = ?, cap_delta = ? WHERE id = ?", (epsilon, delta, table_id))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK") if db.in_transaction else None
            raise
        finally:
            db.close()

    def cap(self, table_id: str) -> tuple | None:
        with self._connect() as db:
            row = db.execute("SELECT cap_epsilon, cap_delta FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None or row[0] is None else (row[0], row[1])

    # -- spends ------------------------------------------------------------------------------------------------

    def spends(self, table_id: str, session: str | None = None) -> list[Spend]:
        """The table's spends in the order they were recorded (one session's only, if given)."""
        query = "SELECT * FROM spends WHERE table_id = ?" + (" AND session = ?" if session is not None else "")
        args = (table_id,) if session is None else (table_id, session)
        with self._connect() as db:
            return [_spend(row) for row in db.execute(query + " ORDER BY id", args).fetchall()]

    def spent(self, table_id: str, session: str | None = None, extra=()) -> Spent:
        """What the table's spends (one session's, if given), with ``extra`` spends not yet recorded, compose to."""
        return composed([*self.spends(table_id, session), *extra])

    def reserve(self, table_id: str, spends: list[Spend]) -> list[int]:
        """Record ``spends`` before they are drawn, refusing (:class:`OverCap`, nothing recorded) when they would
        bring the table past its cap: one write transaction reads the cap and the spends and inserts, so two
        sessions cannot both pass. Returns the ids, for :meth:`settle`."""
        for s in spends:
            if s.kind not in KINDS:
                raise ValueError(f"a spend's kind is one of {KINDS}, not {s.kind!r}.")
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT name, cap_epsilon, cap_delta FROM tables WHERE id = ?", (table_id,)).fetchone()
            if row is None:
                raise ValueError("this table is not in the book: register it first (BudgetBook.table).")
            before = [_spend(r) for r in db.execute("SELECT * FROM spends WHERE table_id = ?", (table_id,))]
            after = composed([*before, *spends])
            if row[1] is not None and not (after.epsilon <= row[1] * (1 + 1e-12) and after.delta <= row[2]):
                raise OverCap(
                    f"this would bring what has been spent on {row[0]} to ε = {after.epsilon:.3g}, "
                    f"δ = {after.delta:.2g}, past its cap of ε = {row[1]:.3g}, δ = {row[2]:.2g}: nothing was drawn. "
                    "Ask the data owner to raise the cap, or spend less (a smaller ε, fewer mechanisms)."
                )
            ids = [_insert(db, table_id, s) for s in spends]
            db.execute("COMMIT")
            return ids
        except BaseException:
            db.execute("ROLLBACK") if db.in_transaction else None
            raise
        finally:
            db.close()

    def settle(self, spend_id: int, curve: PrivacyCurve, digest: str = "") -> None:
        """Replace a reserved spend's curve by the release's exact one (never looser) and record what was written."""
        self.settle_all([(spend_id, curve)], digest)

    def settle_all(self, settled, digest: str = "") -> None:
        """:meth:`settle` every (spend id, curve) of one draw in one transaction."""
        rows = [(json.dumps(curve.as_dict()), digest, spend_id) for spend_id, curve in settled]
        db = self._connect()
        # the reservation is on disk already (its commit waited for the disk) and its curve is never tighter than the
        # exact one: a settlement lost to a power cut leaves a spend counted at least as large as it was, so this
        # commit does not wait for the disk (WAL: it is written, and made durable by the next reservation's commit)
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("UPDATE spends SET privacy = ?, digest = ?, settled = 1 WHERE id = ?", rows)
            db.execute("COMMIT")
        finally:
            db.close()

    def export(self, table_id: str | None = None) -> list[dict]:
        """Every spend (of one table, if given) as plain JSON rows, with its table's name."""
        names = {t["id"]: t["name"] for t in self.tables()}
        ids = [table_id] if table_id is not None else list(names)
        return [{"table": i, "name": names.get(i, ""), **s.as_dict()} for i in ids for s in self.spends(i)]


def composed(spends) -> Spent:
    """The exact composition of ``spends`` (:func:`dppca_core.privacy.total`)."""
    spends = list(spends)
    if not spends:
        return Spent(0, None, 0.0, 0.0)
    curve, epsilon, delta = total([s.curve for s in spends], [s.delta for s in spends])
    return Spent(len(spends), curve, epsilon, delta)


def _insert(db: sqlite3.Connection, table_id: str, s: Spend) -> int:
    cur = db.execute(
        "INSERT INTO spends (table_id, session, kind, what, mechanism, privacy, delta, created, version, digest, "
        "settled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            table_id,
            s.session,
            s.kind,
            s.what,
            s.mechanism,
            json.dumps(s.curve.as_dict()),
            float(s.delta),
            s.created or _now(),
            s.version or _version(),
            s.digest,
            int(s.settled),
        ),
    )
    return int(cur.lastrowid)


def _spend(row) -> Spend:
    (id_, _table, session, kind, what, mechanism, privacy, delta, created, version, digest, settled) = row
    curve = PrivacyCurve.from_dict(json.loads(privacy))
    return Spend(kind, what, curve, delta, mechanism, session, created, version, digest, bool(settled), id_)

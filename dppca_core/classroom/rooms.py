"""The rooms of the class game in SQLite, shared by every session of the server (WAL: readers never wait for the
one writer), kept across restarts until the room expires.

A room has a short code (what students type or scan), a teacher's key (kept as a hash; it takes the room back after
a reload), its rounds (each with its settings, frozen when the round starts), its students (a random id per session,
numbered in the order they joined: no names), and one draw per student and round: whether Alice was in (never shown
to the student before the answer), the release, and the answer once given. An answer is counted once: it is written
only into a draw that has none yet, of the round that is still the room's current one. A round whose answers beat the
bound beyond their bands is kept as a finding, with its settings and counts, after the room itself has expired.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .game import Draw, GameSettings

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL NOT NULL,
    current INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rounds (
    room TEXT NOT NULL,
    number INTEGER NOT NULL,
    settings TEXT NOT NULL,
    started REAL NOT NULL,
    PRIMARY KEY (room, number)
);
CREATE TABLE IF NOT EXISTS students (
    room TEXT NOT NULL,
    id TEXT NOT NULL,
    number INTEGER NOT NULL,
    joined REAL NOT NULL,
    PRIMARY KEY (room, id)
);
CREATE TABLE IF NOT EXISTS draws (
    room TEXT NOT NULL,
    round INTEGER NOT NULL,
    student TEXT NOT NULL,
    inside INTEGER NOT NULL,
    release TEXT NOT NULL,
    drawn REAL NOT NULL,
    said_in INTEGER,
    confidence REAL,
    answered REAL,
    PRIMARY KEY (room, round, student)
);
CREATE TABLE IF NOT EXISTS findings (
    room TEXT NOT NULL,
    round INTEGER NOT NULL,
    settings TEXT NOT NULL,
    result TEXT NOT NULL,
    found REAL NOT NULL,
    PRIMARY KEY (room, round)
);
"""
#: the letters of a room's code: no 0/O, 1/I/L, so that a code read off a projector is typed right
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: characters of a room's code
CODE_LENGTH = 4
#: hours a room lives after it was opened or after its last round started (a class, with room to spare)
ROOM_HOURS = 3.0
#: the most students a room takes (a large lecture hall)
MOST_STUDENTS = 500
#: seconds a write waits for another session's transaction
BUSY_SECONDS = 10.0


def check_code(code) -> str:
    """A room's code as stored (upper case), or ValueError in words when it cannot be one."""
    text = str(code).strip().upper()
    if len(text) != CODE_LENGTH or any(c not in ALPHABET for c in text):
        raise ValueError(
            f"a room's code is {CODE_LENGTH} letters and digits, as shown on the teacher's screen (got {str(code)[:12]!r})"
        )
    return text


def _hash(key: str) -> str:
    return hashlib.sha256(str(key).encode()).hexdigest()


@dataclass(frozen=True)
class Room:
    code: str
    created: float
    expires: float
    current: int
    students: int


@dataclass(frozen=True)
class Round:
    number: int
    settings: GameSettings
    started: float


@dataclass(frozen=True)
class Answer:
    """One student's release in one round, and their answer (``said_in`` None until they answer)."""

    student: int
    inside: bool
    release: dict
    said_in: bool | None
    confidence: float | None


class RoomStore:
    """The rooms in the SQLite file ``path`` (created if missing)."""

    def __init__(self, path, hours: float = ROOM_HOURS):
        self.path = Path(path)
        self.hours = float(hours)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def _db(self, write: bool = False):
        db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
            if write:
                db.execute("BEGIN IMMEDIATE")
            yield db
            if write:
                db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    # -- rooms -------------------------------------------------------------------------------------------------

    def open_room(self, now: float | None = None) -> tuple[str, str]:
        """A new room: (its code, the teacher's key). Expired rooms are cleared first."""
        now = time.time() if now is None else float(now)
        self.purge(now)
        key = secrets.token_hex(4)
        for _ in range(50):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            with self._db(write=True) as db:
                taken = db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone()
                if not taken:
                    db.execute(
                        "INSERT INTO rooms (code, host, created, expires) VALUES (?, ?, ?, ?)",
                        (code, _hash(key), now, now + self.hours * 3600),
                    )
                    return code, key
        raise RuntimeError("no free room code was found: close some rooms and try again.")

    def room(self, code: str, now: float | None = None) -> Room | None:
        """The room ``code``, or None when there is none (never opened, or expired)."""
        now = time.time() if now is None else float(now)
        with self._db() as db:
            row = db.execute("SELECT code, created, expires, current FROM rooms WHERE code = ?", (code,)).fetchone()
            if row is None or row[2] < now:
                return None
            (count,) = db.execute("SELECT COUNT(*) FROM students WHERE room = ?", (code,)).fetchone()
        return Room(row[0], row[1], row[2], row[3], count)

    def is_host(self, code: str, key: str) -> bool:
        """Whether ``key`` is the teacher's key of the room ``code``."""
        with self._db() as db:
            row = db.execute("SELECT host FROM rooms WHERE code = ?", (code,)).fetchone()
        return row is not None and secrets.compare_digest(row[0], _hash(key))

    def _require(self, db, code: str, now: float) -> tuple:
        row = db.execute("SELECT code, host, expires, current FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[2] < now:
            raise ValueError(
                f"there is no open room {code}: check the code on the teacher's screen (a room closes "
                f"{self.hours:g} hours after its last round)."
            )
        return row

    def join(self, code: str, student: str, now: float | None = None) -> int:
        """Seat ``student`` (a random id of their session) in the room: their number there (the same on a rejoin)."""
        now = time.time() if now is None else float(now)
        with self._db(write=True) as db:
            self._require(db, code, now)
            row = db.execute("SELECT number FROM students WHERE room = ? AND id = ?", (code, student)).fetchone()
            if row:
                return int(row[0])
            (count,) = db.execute("SELECT COUNT(*) FROM students WHERE room = ?", (code,)).fetchone()
            if count >= MOST_STUDENTS:
                raise ValueError(f"room {code} is full ({MOST_STUDENTS} students): ask the teacher for another room.")
            db.execute(
                "INSERT INTO students (room, id, number, joined) VALUES (?, ?, ?, ?)", (code, student, count + 1, now)
            )
            return count + 1

    def start_round(self, code: str, key: str, settings: GameSettings, now: float | None = None) -> int:
        """Start the room's next round with ``settings`` (the teacher's key is checked); the room lives
        :attr:`hours` more. Returns the round's number."""
        now = time.time() if now is None else float(now)
        with self._db(write=True) as db:
            row = self._require(db, code, now)
            if not secrets.compare_digest(row[1], _hash(key)):
                raise ValueError("only the teacher who opened this room can start its rounds.")
            number = int(row[3]) + 1
            db.execute(
                "INSERT INTO rounds (room, number, settings, started) VALUES (?, ?, ?, ?)",
                (code, number, json.dumps(settings.as_dict()), now),
            )
            db.execute(
                "UPDATE rooms SET current = ?, expires = ? WHERE code = ?", (number, now + self.hours * 3600, code)
            )
            return number

    def rounds(self, code: str) -> list[Round]:
        """The room's rounds, first first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT number, settings, started FROM rounds WHERE room = ? ORDER BY number", (code,)
            ).fetchall()
        return [Round(r[0], GameSettings.from_dict(json.loads(r[1])), r[2]) for r in rows]

    def round(self, code: str, number: int) -> Round | None:
        with self._db() as db:
            r = db.execute(
                "SELECT number, settings, started FROM rounds WHERE room = ? AND number = ?", (code, number)
            ).fetchone()
        return None if r is None else Round(r[0], GameSettings.from_dict(json.loads(r[1])), r[2])

    # -- draws and answers -------------------------------------------------------------------------------------

    def draw_for(self, code: str, number: int, student: str, make: Callable[[], Draw], now: float | None = None):
        """The student's release in round ``number``: the one already drawn, else ``make()`` stored (if two runs
        race, the first stored is the one both get). Returns (the Draw, the answer given or None)."""
        now = time.time() if now is None else float(now)
        with self._db() as db:
            row = db.execute(
                "SELECT inside, release, said_in FROM draws WHERE room = ? AND round = ? AND student = ?",
                (code, number, student),
            ).fetchone()
        if row is None:
            fresh = make()
            with self._db(write=True) as db:
                self._require(db, code, now)
                db.execute(
                    "INSERT OR IGNORE INTO draws (room, round, student, inside, release, drawn) VALUES (?, ?, ?, ?, ?, ?)",
                    (code, number, student, int(fresh.inside), json.dumps(fresh.release), now),
                )
                row = db.execute(
                    "SELECT inside, release, said_in FROM draws WHERE room = ? AND round = ? AND student = ?",
                    (code, number, student),
                ).fetchone()
        said = None if row[2] is None else bool(row[2])
        return Draw(bool(row[0]), json.loads(row[1])), said

    def answer(
        self, code: str, number: int, student: str, said_in: bool, confidence: float | None = None, now=None
    ) -> str:
        """Record the student's answer to round ``number``: "counted", or why not: "already" (answered before: the
        first answer stands), "closed" (the teacher has started another round), "no release" (none was drawn)."""
        now = time.time() if now is None else float(now)
        if confidence is not None and not 0.5 <= float(confidence) <= 1.0:
            raise ValueError(f"a confidence lies between 50% and 100% (got {confidence!r}).")
        with self._db(write=True) as db:
            current = self._require(db, code, now)[3]
            if int(current) != int(number):
                return "closed"
            done = db.execute(
                "UPDATE draws SET said_in = ?, confidence = ?, answered = ? WHERE room = ? AND round = ? AND "
                "student = ? AND said_in IS NULL",
                (int(bool(said_in)), None if confidence is None else float(confidence), now, code, number, student),
            ).rowcount
            if done == 1:
                return "counted"
            exists = db.execute(
                "SELECT 1 FROM draws WHERE room = ? AND round = ? AND student = ?", (code, number, student)
            ).fetchone()
            return "already" if exists else "no release"

    def answers(self, code: str, number: int) -> list[Answer]:
        """Every release of round ``number``, by student number, with its answer (None when not yet given)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT s.number, d.inside, d.release, d.said_in, d.confidence FROM draws d JOIN students s "
                "ON s.room = d.room AND s.id = d.student WHERE d.room = ? AND d.round = ? ORDER BY s.number",
                (code, number),
            ).fetchall()
        return [Answer(r[0], bool(r[1]), json.loads(r[2]), None if r[3] is None else bool(r[3]), r[4]) for r in rows]

    def counts(self, code: str) -> dict[int, tuple[int, int, int, int]]:
        """Per round: (releases with Alice answered, "in" among them, releases without her answered, "in" among
        them), counted in SQL from the recorded answers."""
        with self._db() as db:
            rows = db.execute(
                "SELECT round, SUM(inside), SUM(inside * said_in), SUM(1 - inside), SUM((1 - inside) * said_in) "
                "FROM draws WHERE room = ? AND said_in IS NOT NULL GROUP BY round",
                (code,),
            ).fetchall()
        return {r[0]: (int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows}

    # -- findings and expiry -----------------------------------------------------------------------------------

    def keep_finding(self, code: str, number: int, result: dict, now: float | None = None) -> None:
        """Keep round ``number`` as an audit finding: its settings and its counts (once; kept after the room)."""
        now = time.time() if now is None else float(now)
        found = self.round(code, number)
        if found is None:
            return
        with self._db(write=True) as db:
            db.execute(
                "INSERT OR IGNORE INTO findings (room, round, settings, result, found) VALUES (?, ?, ?, ?, ?)",
                (code, number, json.dumps(found.settings.as_dict()), json.dumps(result), now),
            )

    def findings(self, code: str | None = None) -> list[dict]:
        """The kept findings (of one room, if given), oldest first."""
        query = "SELECT room, round, settings, result, found FROM findings"
        with self._db() as db:
            rows = db.execute(
                query + (" WHERE room = ?" if code else "") + " ORDER BY found", (code,) if code else ()
            ).fetchall()
        return [
            {"room": r[0], "round": r[1], "settings": json.loads(r[2]), "result": json.loads(r[3]), "found": r[4]}
            for r in rows
        ]

    def purge(self, now: float | None = None) -> int:
        """Delete the rooms that have expired, with their rounds, students and draws (findings stay). Returns how
        many rooms went."""
        now = time.time() if now is None else float(now)
        with self._db(write=True) as db:
            gone = [r[0] for r in db.execute("SELECT code FROM rooms WHERE expires < ?", (now,)).fetchall()]
            for table, column in (("draws", "room"), ("students", "room"), ("rounds", "room"), ("rooms", "code")):
                db.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(code,) for code in gone])
        return len(gone)

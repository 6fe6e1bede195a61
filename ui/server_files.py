"""Files on the server a visitor may read: the one folder the operator names, and nothing outside it.

Every path a visitor types goes through :func:`find` (the gate) before anything is opened:

1. The text is checked on its own, before the file system is touched: no absolute path, no ``~``, no ``..``
   or other name starting with a dot, no backslash, drive letter or URL, no percent-encoded character, no
   control or text-direction character (NUL included), nothing longer than :data:`MAX_PATH_CHARS`.
2. The pattern is expanded one folder level at a time, inside the folder only: every folder it enters and
   every file it matches is resolved with its links followed, and the whole request is refused when one of
   them lands outside the folder (a link that stays inside is fine). The expansion never lists a folder
   outside, so the answer cannot depend on what exists there: a link that points out is refused the same way
   whether its target exists or not.
3. Every match must be a regular file with a table suffix (:data:`TABLE_SUFFIXES`); pipes, sockets, devices
   and folders are refused where a file is expected. At most :data:`MAX_FILES` files and
   :data:`MAX_TOTAL_BYTES` bytes in all.

:func:`read` then streams the matched files (their resolved paths, not the visitor's text) into sufficient
statistics. Its errors name the file and the kind of problem but never repeat the library's message, which
may quote the file's content (a header line, a column name); the full message goes to the server log.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from dppca_core.data.stats import MAX_SITES, StreamCancelled, sufficient_stats
from dppca_core.data.files import plain_name
from dppca_core.data.tables import MAX_COLUMNS

log = logging.getLogger("dppca.ui")

#: the operator enables server files by naming the one folder visitors may read from (off when unset)
DATA_DIR_ENV = "DPPCA_DATA_DIR"
OFF = (
    f"Reading files on the server is off here: a path box would let any visitor read any file the server can "
    f"read. The operator turns it on by naming one folder in the environment variable {DATA_DIR_ENV} (e.g. "
    f"{DATA_DIR_ENV}=/srv/data); paths are then relative to it."
)
#: the longest path a visitor may type (characters), and the longest name of one file or folder (bytes, as Linux)
MAX_PATH_CHARS = 500
MAX_NAME_BYTES = 255
#: the most files one request may read, and their total size (bytes): about 70 CPU seconds of parsing at the
#: throughput measured in docs/large-data.md; an operator who wants more changes these two constants
MAX_FILES = 1_000
MAX_TOTAL_BYTES = 10 * 10**9
#: the suffixes of the files served (case-insensitive): tables only, so a stray config file is never read
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")
_MAGIC = re.compile(r"[*?\[]")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_EXAMPLE = "e.g. survey.csv, parts/*.parquet or a folder name"


@dataclass(frozen=True)
class Found:
    """What a visitor's path matched: the resolved files (inside the folder), their names and total size."""

    relative: str  # the visitor's text, stripped
    paths: tuple  # resolved absolute paths of regular files inside the folder, sorted
    names: tuple  # the same files relative to the folder (what messages show)
    total_bytes: int


def root():
    """The folder visitors may read from (environment variable DPPCA_DATA_DIR, links resolved), or None when the
    feature is off or the folder does not exist."""
    value = os.environ.get(DATA_DIR_ENV, "")
    folder = Path(value).expanduser().resolve() if value else None
    return folder if folder is not None and folder.is_dir() else None


def find(relative: str, folder: Path | None = None) -> Found:
    """The files ``relative`` (a file, a folder or a glob, relative to the data folder) names inside the folder.

    Raises ValueError saying what is wrong with the path (the gate of the module docstring): nothing outside
    ``folder`` (default :func:`root`) is opened, listed or reported on.
    """
    folder = root() if folder is None else Path(folder).resolve()
    if folder is None:
        raise ValueError(OFF)
    text = str(relative).strip()
    segments = _segments(text)
    matches = _expand(folder, segments, text)
    if not matches:
        raise ValueError(f"nothing in the data folder matches {text!r}; check the spelling ({_EXAMPLE}).")
    if len(matches) == 1 and not _MAGIC.search(text) and os.path.isdir(matches[0]):
        matches = _folder_tables(folder, matches[0], text)
    return _regular_files(folder, matches, text)


def _segments(text: str) -> list:
    """The path's folder and file names, refusing every spelling that could name something outside the folder."""
    if not text:
        raise ValueError(f"give a path relative to the data folder ({_EXAMPLE}).")
    if len(text) > MAX_PATH_CHARS:
        raise ValueError(
            f"the path is {len(text):,} characters long, over the limit of {MAX_PATH_CHARS}; give a "
            "shorter path relative to the data folder."
        )
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise ValueError(
            "the path contains a control character (a NUL byte, a tab or a line break); type it as " "plain text."
        )
    if plain_name(text) != text:
        raise ValueError(
            "the path contains an invisible control or text-direction character (such as U+202E, "
            "which shows the text after it reversed); type it as plain text."
        )
    if "\\" in text:
        raise ValueError("the path contains a backslash; separate folders with / (e.g. parts/survey.csv).")
    if _PERCENT.search(text):
        raise ValueError(
            "the path contains a percent-encoded character (such as %2e or %2f); type the names as "
            "they are, not URL-encoded."
        )
    if text.startswith("/"):
        raise ValueError("absolute paths are not accepted; give a path relative to the data folder " f"({_EXAMPLE}).")
    if text.startswith("~"):
        raise ValueError(
            "paths starting with ~ (a home folder) are not accepted; give a path relative to the data " "folder."
        )
    if re.match(r"[A-Za-z]:", text) or "://" in text:
        raise ValueError("drive letters and URLs are not accepted; give a path relative to the data folder.")
    segments = text.rstrip("/").split("/")
    for name in segments:
        if name == "..":
            raise ValueError(
                "'..' (the parent folder) is not accepted anywhere in the path; give a path inside " "the data folder."
            )
        if not name:
            raise ValueError("the path has an empty folder name (//); separate folders with a single /.")
        if name.startswith("."):
            raise ValueError(
                f"names starting with a dot ({name[:20]!r}: hidden files, '.') are not served; give "
                "the path without them."
            )
        if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
            raise ValueError(f"a name in the path is longer than {MAX_NAME_BYTES} bytes; no file has such a name.")
    return segments


def _inside(folder: Path, path: str, text: str) -> str:
    """``path`` with every link resolved, or ValueError when it lands outside ``folder`` (whether or not the target
    exists: the message is the same)."""
    real = os.path.realpath(path)
    if os.path.commonpath([real, str(folder)]) != str(folder):
        raise ValueError(
            f"{text!r} leads outside the data folder (through a link); only files inside it are " "served."
        )
    return real


def _expand(folder: Path, segments: list, text: str) -> list:
    """Resolved paths inside ``folder`` matching the segments, one level at a time (glob rules per name: ``*``,
    ``?`` and ``[...]``; names starting with a dot are never matched)."""
    current = [str(folder)]
    for depth, pattern in enumerate(segments):
        last = depth == len(segments) - 1
        found = []
        for base in current:
            for name in _names(base, pattern):
                real = _inside(folder, os.path.join(base, name), text)
                if last or os.path.isdir(real):
                    found.append(real)
            if len(found) > MAX_FILES:
                raise ValueError(
                    f"{text!r} matches more than {MAX_FILES:,} files or folders (MAX_FILES, the limit "
                    "of one read on this server); narrow the pattern."
                )
        current = sorted(set(found))
    return current


def _names(base: str, pattern: str) -> list:
    """Entries of the folder ``base`` matching one name pattern."""
    if not _MAGIC.search(pattern):
        return [pattern] if os.path.lexists(os.path.join(base, pattern)) else []
    try:
        with os.scandir(base) as entries:
            return sorted(
                e.name for e in entries if not e.name.startswith(".") and fnmatch.fnmatchcase(e.name, pattern)
            )
    except OSError:
        return []


def _folder_tables(folder: Path, path: str, text: str) -> list:
    """A folder's Parquet files, else its CSV files (as :func:`dppca_core.data.stats.sufficient_stats` reads a folder)."""
    for suffixes in ((".parquet", ".pq"), (".csv",)):
        names = [n for n in _names(path, "*") if n.lower().endswith(suffixes)]
        if names:
            return [_inside(folder, os.path.join(path, n), text) for n in names]
    raise ValueError(f"the folder {text!r} holds no .parquet or .csv files; point at the files or a glob.")


def _regular_files(folder: Path, matches: list, text: str) -> Found:
    """Refuse folders, special files and other suffixes among the matches; cap their number and total size."""
    if len(matches) > MAX_FILES:
        raise ValueError(
            f"{text!r} matches {len(matches):,} files, more than {MAX_FILES:,} (MAX_FILES, the limit "
            "of one read on this server); narrow the pattern."
        )
    names, total = [], 0
    for path in matches:
        name = os.path.relpath(path, folder)
        try:
            info = os.stat(path)
        except OSError:
            raise ValueError(f"nothing in the data folder matches {text!r}; check the spelling ({_EXAMPLE}).") from None
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(
                f"{name!r} is a folder where a file is expected; a pattern must match files only (e.g. "
                "parts/*.csv), or give the folder's own name."
            )
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(
                f"{name!r} is not a regular file (a pipe, socket or device); only regular files are " "read."
            )
        if not name.lower().endswith(TABLE_SUFFIXES):
            raise ValueError(
                f"{name!r} is not a table file; only names ending in {', '.join(TABLE_SUFFIXES)} are " "served."
            )
        names.append(name)
        total += info.st_size
    if total > MAX_TOTAL_BYTES:
        raise ValueError(
            f"{text!r} matches {total / 1e9:.3g} GB, more than {MAX_TOTAL_BYTES / 1e9:.3g} GB "
            "(MAX_TOTAL_BYTES, the limit of one read on this server); read fewer files, or ask the "
            "operator to raise the limit."
        )
    return Found(text, tuple(matches), tuple(names), total)


# -- reading -------------------------------------------------------------------------------------------------

#: the kinds of problem a read can report, each as a phrase that quotes nothing from the file; matched against the
#: library's message (which can quote a header line or a column name and is therefore only logged)
_PROBLEMS = (
    ("looks binary", "it is binary, not CSV text or Parquet"),
    ("is empty", "it is empty"),
    ("blank space", "it starts with a long run of blank space"),
    ("holds no data rows", "it has no data rows"),
    ("usable data row", "it has fewer than 2 usable data rows"),
    ("has no numeric columns", "it has no numeric columns"),
    ("not found in", "a column declared for it is not in the file"),
    ("not those of the first file", "the files do not all have the same columns"),
    ("duplicate column name", "its header names a column twice"),
    ("over the limit of", f"it has more than {MAX_COLUMNS:,} columns"),
    ("distinct values", f"the site column has more than {MAX_SITES} distinct values (is it the right column?)"),
    ("text further in", "it is not valid text in its encoding; re-save it as UTF-8"),
    ("UTF-16", "it is not valid UTF-16 text; re-save it as UTF-8"),
    ("UTF-32", "it is not valid UTF-32 text; re-save it as UTF-8"),
    ("cannot be decoded", "it is not valid text; re-save it as UTF-8"),
    (
        "could not parse",
        "it could not be parsed as CSV (one header row and the same number of fields on every " "line are needed)",
    ),
    ("Parquet", "it is not a readable Parquet file"),
)


def read(found: Found, data_norm: float, sites: str | None = None, progress=None, columns=None, fill=None):
    """Stream the files of ``found`` into :class:`dppca_core.data.stats.SufficientStats` (rows clipped to ``data_norm``).

    ``columns``: the declared columns in order (None: the numeric ones of the first rows, read from the data). A
    missing, infinite or non-numeric cell becomes its column's public value (``fill``, column -> value; default
    0), never a dropped row, so n is the file's row count whatever one person's cells hold (the public-schema rule
    of uploads); the count of replaced cells is a diagnostic for the data owner.

    One thread reads, so ``progress`` runs in the caller's thread (a Streamlit page can update its progress bar
    there and be interrupted by a Cancel click) and one visitor's read does not take every core of a shared
    server. A failed read raises ValueError naming the file and the kind of problem, without the file's content.
    """
    try:
        return sufficient_stats(
            list(found.paths),
            columns=columns or None,
            data_norm=data_norm,
            sites=sites or None,
            on_bad="replace",
            fill=fill or None,
            progress=progress,
            workers=1,
        )
    except StreamCancelled:
        raise ValueError(f"the read of {found.relative!r} was cancelled; nothing was kept.") from None
    except Exception as exc:  # noqa: BLE001 - a message from the file's content must not reach the visitor
        if type(exc).__module__.startswith("streamlit"):
            raise  # a Cancel click or page change interrupts the read: Streamlit's control flow passes through
        log.warning("reading server file(s) %r failed: %s: %s", found.relative, type(exc).__name__, exc)
        raise ValueError(_describe(found, sites, exc)) from None


def _describe(found: Found, sites: str | None, exc: Exception) -> str:
    """A message about a failed read that names the file and the problem but quotes nothing from the file."""
    message = str(exc)
    where = next(
        (
            name
            for path, name in sorted(zip(found.paths, found.names), key=lambda p: -len(p[1]))
            if message.startswith(os.path.basename(path))
        ),
        None,
    )
    subject = f"{where!r}" if where and len(found.names) > 1 else f"{found.relative!r}"
    if isinstance(exc, OSError):
        problem = "the server could not open it (permissions or a read error)"
    elif sites and "is not in" in message:
        problem = f"the site column {sites!r} is not one of its columns"
    else:
        problem = next(
            (phrase for key, phrase in _PROBLEMS if key in message),
            "it is not a CSV or Parquet table this app can read",
        )
    return (
        f"could not read {subject}: {problem}. The details are in the server's log (not shown here: they can "
        "quote the file's content)."
    )

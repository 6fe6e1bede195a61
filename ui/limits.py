"""The budgets of one server shared by a class, in one place an operator can change (documented in docs/load.md).

Every value has an environment variable, read once when the server starts; e.g. ``DPPCA_UPLOAD_MB=20 python -m
streamlit run app.py``. A value that is not a positive number is ignored (the default is used and the server log
says so). Streamlit's own upload limit, ``server.maxUploadSize`` in .streamlit/config.toml (or the environment
variable STREAMLIT_SERVER_MAX_UPLOAD_SIZE, in MB), must be at least ``DPPCA_UPLOAD_MB``.

* Uploads: bytes, cells and columns, and for Parquet the size of the data once decompressed; each is checked from
  cheap facts (the file's size, its header, its metadata) before the large work starts.
* Parsing: every upload is parsed in a worker process with a memory budget (how far its address space may grow)
  and a CPU-time budget; at most ``PARSE_WORKERS`` run at once, so uploads cannot take more than
  ``PARSE_WORKERS x PARSE_MEMORY_BYTES`` together, and the server's own threads (the health check, every other
  session) keep running while a file is read.
* Caches shared by every session: how many parsed uploads and prepared datasets are kept, and for how long an
  unused entry may stay (``CACHE_TTL_SECONDS``), so memory comes back to a ceiling after a heavy upload. Every
  ``st.cache_data`` and ``st.cache_resource`` of the app has an entry budget and this time-to-live; results cached
  as copies have a byte budget each (``RESULT_CACHE_BYTES``), and the caches that can hold arrays as large as an
  upload have theirs in :data:`CACHE_BYTE_BUDGETS` (tests/app/test_cache_budgets.py checks all of it from the source).
* CPU: each session's budget for live reproductions and sweeps (``LIVE_CPU_SECONDS`` of CPU per
  ``LIVE_CPU_WINDOW_SECONDS``, :mod:`ui.cpu_budget`).
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("dppca.ui")


def _setting(variable: str, default: int) -> int:
    """The positive whole number in the environment variable ``variable``, else ``default``."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(float(text))
    except ValueError:
        value = 0
    if value <= 0:
        log.warning("%s=%r is not a positive number; using the default %s", variable, text, default)
        return default
    return value


#: the largest upload (bytes), and its cells (rows x columns) and columns
UPLOAD_BYTES = _setting("DPPCA_UPLOAD_MB", 50) * 10**6
UPLOAD_CELLS = _setting("DPPCA_UPLOAD_CELLS", 20_000_000)
UPLOAD_COLUMNS = _setting("DPPCA_UPLOAD_COLUMNS", 2_000)
#: the data of an uploaded Parquet file once decompressed (from its metadata): 876 KB of Parquet can hold 1.6 GB
UPLOAD_DECODED_BYTES = _setting("DPPCA_UPLOAD_DECODED_MB", 1_000) * 10**6
#: the memory an uploaded table takes once read: a Parquet file's from its metadata and dictionaries before any value
#: is expanded (17 KB can repeat one text in 10 M rows), and the parsed table a worker sends back, for any file
UPLOAD_MEMORY_BYTES = _setting("DPPCA_UPLOAD_MEMORY_MB", 1_000) * 10**6
#: one parse's worker process: how far its address space may grow (bytes) and its CPU time (seconds)
PARSE_MEMORY_BYTES = _setting("DPPCA_PARSE_MEMORY_MB", 2_000) * 10**6
PARSE_CPU_SECONDS = _setting("DPPCA_PARSE_CPU_SECONDS", 60)
#: parses running at once (more wait their turn)
PARSE_WORKERS = _setting("DPPCA_PARSE_WORKERS", 2)
#: seconds an unused entry of a shared cache may stay
CACHE_TTL_SECONDS = _setting("DPPCA_CACHE_TTL_SECONDS", 1_800)
#: parsed uploads kept for every session (each holds its table twice: raw columns and their numbers)
UPLOAD_CACHE_ENTRIES = _setting("DPPCA_UPLOAD_CACHE_ENTRIES", 2)
#: datasets prepared for the mechanisms (each holds a clipped copy of the rows and the d x d Gram matrix)
PREPARED_CACHE_ENTRIES = _setting("DPPCA_PREPARED_CACHE_ENTRIES", 4)

#: the privately scaled inputs kept for all sessions (ui/compute.py), and their byte budget: an entry larger than
#: SCALED_CACHE_BYTES / SCALED_CACHE_ENTRIES (estimated from n x d before it is computed, :func:`scaled_entry_bytes`)
#: is computed for its run and not kept, so the entries together never pass SCALED_CACHE_BYTES
SCALED_CACHE_ENTRIES = _setting("DPPCA_SCALED_CACHE_ENTRIES", 2)
SCALED_CACHE_BYTES = _setting("DPPCA_SCALED_CACHE_MB", 1_200) * 10**6
#: each function's results cached as copies (st.cache_data, pickled bytes); all of them together stay under
#: server.maxCacheDataSize (.streamlit/config.toml)
RESULT_CACHE_BYTES = _setting("DPPCA_RESULT_CACHE_MB", 100) * 10**6
#: CPU seconds each session may spend on live reproductions and sweeps, given back over this many seconds
LIVE_CPU_SECONDS = _setting("DPPCA_LIVE_CPU_SECONDS", 600)
LIVE_CPU_WINDOW_SECONDS = _setting("DPPCA_LIVE_CPU_WINDOW_SECONDS", 3_600)


def scaled_entry_bytes(n: int, d: int) -> int:
    """An upper bound on the bytes one privately scaled input of an n x d table can hold or keep alive: the rows
    divided by their bounds, the rows centred (or the table itself, kept alive), the scaled rows once formed (three
    n x d float64 arrays), two factors per row, and three d x d matrices (the Gram matrix, its eigenvectors, the
    reference's Gram)."""
    return 8 * (3 * n * d + 2 * n + 3 * d * d)


#: the caches that can hold arrays as large as an uploaded table, by function name, with their byte budget:
#: Streamlit's st.cache_resource has none, so each is enforced where the cache is called (see SCALED_CACHE_BYTES)
CACHE_BYTE_BUDGETS = {"_prepare_scaled": SCALED_CACHE_BYTES}

#: (variable, what it bounds, unit, value) of every setting, for docs/load.md and the benchmark's report
SETTINGS = (
    ("DPPCA_UPLOAD_MB", "size of an uploaded file", "MB", UPLOAD_BYTES // 10**6),
    ("DPPCA_UPLOAD_CELLS", "cells (rows x columns) of an uploaded table", "cells", UPLOAD_CELLS),
    ("DPPCA_UPLOAD_COLUMNS", "columns of an uploaded table", "columns", UPLOAD_COLUMNS),
    (
        "DPPCA_UPLOAD_DECODED_MB",
        "an uploaded Parquet file's data once decompressed",
        "MB",
        UPLOAD_DECODED_BYTES // 10**6,
    ),
    (
        "DPPCA_UPLOAD_MEMORY_MB",
        "an uploaded table's memory once read (Parquet: estimated before any value is expanded)",
        "MB",
        UPLOAD_MEMORY_BYTES // 10**6,
    ),
    (
        "DPPCA_PARSE_MEMORY_MB",
        "memory one upload's parse may take (its worker's address space)",
        "MB",
        PARSE_MEMORY_BYTES // 10**6,
    ),
    ("DPPCA_PARSE_CPU_SECONDS", "CPU time one upload's parse may take", "s", PARSE_CPU_SECONDS),
    ("DPPCA_PARSE_WORKERS", "parses running at once (others wait)", "processes", PARSE_WORKERS),
    ("DPPCA_CACHE_TTL_SECONDS", "how long an unused shared cache entry stays", "s", CACHE_TTL_SECONDS),
    ("DPPCA_UPLOAD_CACHE_ENTRIES", "parsed uploads kept for all sessions", "files", UPLOAD_CACHE_ENTRIES),
    ("DPPCA_PREPARED_CACHE_ENTRIES", "prepared datasets kept for all sessions", "datasets", PREPARED_CACHE_ENTRIES),
    ("DPPCA_SCALED_CACHE_ENTRIES", "privately scaled inputs kept for all sessions", "inputs", SCALED_CACHE_ENTRIES),
    ("DPPCA_SCALED_CACHE_MB", "the privately scaled inputs kept, together", "MB", SCALED_CACHE_BYTES // 10**6),
    ("DPPCA_RESULT_CACHE_MB", "each function's results cached as copies", "MB", RESULT_CACHE_BYTES // 10**6),
    ("DPPCA_LIVE_CPU_SECONDS", "CPU one session may spend on live reproductions and sweeps", "s", LIVE_CPU_SECONDS),
    (
        "DPPCA_LIVE_CPU_WINDOW_SECONDS",
        "the time over which a session's spent CPU budget comes back",
        "s",
        LIVE_CPU_WINDOW_SECONDS,
    ),
)

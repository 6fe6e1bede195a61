"""One session's heavy work in a worker process with a CPU-time and a memory budget.

A parse that holds the GIL for seconds or asks for gigabytes (a hostile file, or just a large one) runs in a child
process, so the server's own threads (the health check, every other session) keep running, and the child's limits
end it with a plain message instead of taking the server down:

* memory: ``RLIMIT_AS`` (the child's address space may grow by at most ``memory_bytes`` over what it had when it
  started), so an allocation beyond the budget fails with MemoryError inside the child;
* CPU time: ``RLIMIT_CPU`` (``cpu_seconds`` beyond what the child had used when it started), after which the
  kernel ends it; the parent also stops waiting after a generous wall-clock time (:func:`_patience`).

Children are forked from a fork server that has already imported the library (the first use starts it, about
2 s; then about 50 ms a child), never from the server process itself, whose threads may hold locks. At most
:data:`ui.limits.PARSE_WORKERS` children run at once; a session whose turn has not come waits. The parent waits
in ``poll``, which releases the GIL. Budgets live in :mod:`ui.limits`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import logging
import math
import multiprocessing
import pickle
import resource
import signal
import threading
from dataclasses import dataclass

from dppca_core.peers import start_without_main_script

from . import limits

log = logging.getLogger("dppca.ui")
#: modules the fork server imports once, so a child starts with them loaded
PRELOAD = ["dppca_core.data.tables", "ui.worker"]

_start_lock = threading.Lock()
_slots = threading.BoundedSemaphore(limits.PARSE_WORKERS)


@dataclass(frozen=True)
class Outcome:
    """What a worker returned, with what it cost."""

    value: object
    peak_bytes: int  # the child's peak resident memory minus its resident memory when it started
    cpu_seconds: float  # the child's CPU time for the work


class Refused(ValueError):
    """The work refused its input (the function's own ValueError) or ran out of a budget; the message says which,
    in plain words, and ``peak_bytes`` and ``cpu_seconds`` what the attempt cost."""

    def __init__(self, message: str, peak_bytes: int, cpu_seconds: float):
        super().__init__(message)
        self.peak_bytes, self.cpu_seconds = peak_bytes, cpu_seconds


def _context():
    with _start_lock:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _limit(memory_bytes: int, cpu_seconds: float) -> None:
    """Budgets of this (child) process, from what it uses now."""
    address_space = _status_kb("VmSize") * 1024 + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    seconds = math.ceil(_cpu_used() + cpu_seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))


def _child(conn, fn, args, memory_bytes, cpu_seconds, max_reply_bytes=None) -> None:
    """Run ``fn(*args)`` under the budgets and send ("ok", value) or (kind, message), then the costs; a reply over
    ``max_reply_bytes`` once pickled is not sent: ("reply", its size) is."""
    start_rss, start_cpu = _status_kb("VmRSS") * 1024, _cpu_used()
    _limit(memory_bytes, cpu_seconds)
    try:
        reply = ("ok", fn(*args))
    except ValueError as exc:
        reply = ("refused", str(exc))
    except MemoryError:
        reply = ("memory", "")
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which logs it
        reply = ("error", f"{type(exc).__name__}: {str(exc)[:300]}")
    peak = max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start_rss)
    try:
        data = pickle.dumps((*reply, peak, _cpu_used() - start_cpu), protocol=pickle.HIGHEST_PROTOCOL)
        if max_reply_bytes is not None and len(data) > max_reply_bytes:
            data = pickle.dumps(("reply", len(data), peak, _cpu_used() - start_cpu))
    except MemoryError:  # the result itself does not fit a second time
        data = pickle.dumps(("memory", "", peak, _cpu_used() - start_cpu))
    conn.send_bytes(data)
    conn.close()


def _cause(exitcode) -> str:
    """Which budget a child that ended without a reply ran out of, from the signal that ended it: the CPU limit
    sends SIGXCPU (then SIGKILL); an allocation that fails outside Python's reach aborts or faults."""
    if exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "cpu"
    if exitcode in (-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS):
        return "memory"
    return "error"


def _patience(cpu_seconds: float) -> float:
    """Seconds of wall-clock time the parent waits: the CPU budget three times over (the child shares two cores
    with the server and other children), plus a margin for starting."""
    return 3 * cpu_seconds + 30


def _over(kind: str, what: str, memory_bytes: int, cpu_seconds: float, size=0, max_reply_bytes=None) -> str:
    if kind == "reply":
        return (
            f"{what} takes about {size / 1e6:,.0f} MB once read, over the {max_reply_bytes / 1e6:,.0f} MB this "
            "server keeps for one upload; upload fewer rows or columns."
        )
    if kind == "error":  # never the exception's words: they may name its class or quote the file's cells
        return (
            f"{what} could not be read: the reader stopped on something in the file it does not handle. Save it "
            "again (as CSV, or as Parquet from pandas or Arrow) and upload it again."
        )
    if kind == "memory":
        return (
            f"{what} needs more than {memory_bytes / 1e6:,.0f} MB of memory to read, the limit for one upload on "
            "this server; upload fewer rows or columns."
        )
    return (
        f"{what} needs more than {cpu_seconds:g} s of computing time to read, the limit for one upload on this "
        "server; upload fewer rows or columns."
    )


def _receive(receive, child, cpu_seconds: float, max_reply_bytes: int | None) -> tuple:
    """The child's reply (kind, value, peak, cpu), or what stopped it."""
    if not receive.poll(_patience(cpu_seconds)):
        return ("cpu", "", 0, cpu_seconds)
    try:
        data = receive.recv_bytes(None if max_reply_bytes is None else max_reply_bytes + 2**16)
    except EOFError:  # the child ended without a reply: a signal stopped it
        child.join(5)
        return (_cause(child.exitcode), f"exit code {child.exitcode}", 0, 0.0)
    except OSError:  # longer than the child may send
        return ("reply", max_reply_bytes, 0, 0.0)
    return pickle.loads(data)


def run(
    fn, *args, memory_bytes: int, cpu_seconds: float, what: str = "the file", max_reply_bytes: int | None = None
) -> Outcome:
    """``fn(*args)`` in a worker process under the budgets (``fn`` must be importable by name).

    Returns an :class:`Outcome`. A ValueError raised by ``fn`` is raised again as :class:`Refused` with its
    message; a worker that runs out of memory or CPU time, whose result takes more than ``max_reply_bytes`` once
    pickled (None: no limit), or that fails in any other way raises :class:`Refused` saying so in words (never
    the words of an exception, which may quote the file: the server's log has them).
    """
    context = _context()
    with _slots:
        receive, send = context.Pipe(duplex=False)
        child = context.Process(
            target=_child, args=(send, fn, args, memory_bytes, cpu_seconds, max_reply_bytes), daemon=True
        )
        start_without_main_script(child, fn)  # not the app script again in the child
        send.close()
        try:
            reply = _receive(receive, child, cpu_seconds, max_reply_bytes)
        finally:
            receive.close()
            if child.is_alive():
                child.kill()
            child.join()
    kind, value, peak, cpu = reply
    log.info("worker %s: %s, peak %.0f MB, %.2f s CPU", getattr(fn, "__name__", fn), kind, peak / 1e6, cpu)
    if kind == "ok":
        return Outcome(value, peak, cpu)
    if kind == "refused":
        raise Refused(value, peak, cpu)
    if kind == "error":
        log.warning("worker %s failed on %s: %s", getattr(fn, "__name__", fn), what, value)
    size = value if kind == "reply" else 0
    raise Refused(_over(kind, what, memory_bytes, cpu_seconds, size, max_reply_bytes), peak, cpu)


def give_back_memory() -> None:
    """Return freed memory to the system after a large object is dropped: pyarrow's pool keeps freed pages, and so
    does the C allocator (glibc's ``malloc_trim`` gave back 155 MB once the caches of a 46 MB upload were dropped)."""
    from dppca_core.data.files import release_arrow_memory

    release_arrow_memory()
    name = ctypes.util.find_library("c")
    if name and "libc.so" in name:
        ctypes.CDLL(name).malloc_trim(0)


def parse_upload(
    name: str,
    raw: bytes,
    max_bytes: int,
    max_cells: int,
    max_columns: int,
    max_decoded_bytes: int,
    max_memory_bytes: int | None = None,
):
    """(In the worker) an uploaded file parsed by :func:`dppca_core.data.tables.parse_table` under the upload limits, with
    every column analysed, so all of the work on the visitor's bytes happens within the worker's budgets."""
    from dppca_core.data.tables import parse_table

    buffer = io.BytesIO(raw)
    buffer.name = name
    parsed = parse_table(
        buffer,
        max_bytes=max_bytes,
        max_cells=max_cells,
        max_columns=max_columns,
        max_decoded_bytes=max_decoded_bytes,
        max_memory_bytes=max_memory_bytes,
    )
    for column in parsed.columns:
        parsed.info(column)
    return parsed

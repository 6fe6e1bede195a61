"""Does one server hold a class playing the Class page's game (issue 61)? A real server (``streamlit run app.py``) and
a teacher and N students simulated as bare websocket sessions: the Streamlit protocol a browser speaks (BackMsg and
ForwardMsg), with the timers a browser would run (each student's round refreshed every 3 s, the teacher's screen
every 2 s) driven by this script. No browser: the students' phones cost the server nothing beyond their messages.

Phases: the teacher opens a room; N students join, spread over ``--join-seconds``; then five rounds at ε = 8, 2, 1,
0.5, 0.1 (the teacher's Next round steps ε down by itself), every student answering with the nearer-value rule read off
their own release. In the first ``--quiet-rounds`` rounds the students answer one at a time with nothing else running,
so that the server's CPU during each answer is that answer's (its fragment rerun: the database write, the redraw of
the student's round, the protocol); in the others everyone polls as a browser does and answers within a few seconds,
and the wall time of each answer is taken. The server's CPU is read from its process CPU-time clock (every thread,
ended ones included, in nanoseconds), so short runs are measured, not rounded to 10 ms ticks.

    python benchmarks/classroom.py --students 60 --out docs/classroom.md

Reports: per answer, the server's CPU (p50, p95; target p95 < 50 ms) and the wall time in the live rounds; per join
and per refresh, the server's CPU; every answer recorded once (read back from the rooms' file); the room's advantage by
round against the most the exact curve allows. Timings are noisy on a shared machine: the CPU counts are the reliable
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import ctypes.util
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._app_server import app_server, generated_by, percentile, publish  # noqa: E402

EPSILONS = (8.0, 2.0, 1.0, 0.5, 0.1)


class _Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


def server_cpu(pid: int) -> float:
    """Seconds of CPU the server process has used, every thread included, those that have ended too (Streamlit runs
    each script run in a thread of its own: summing the live threads' counters lost the runs that had finished), in
    nanoseconds: the process's CPU-time clock (clock_getcpuclockid), not /proc's 10 ms ticks."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    clock, now = ctypes.c_int(), _Timespec()
    if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) or libc.clock_gettime(clock.value, ctypes.byref(now)):
        raise OSError(ctypes.get_errno(), "cannot read the server's CPU clock")
    return now.seconds + now.nanoseconds / 1e9


class Session:
    """One browser tab's session over the websocket: what its last run drew (buttons by label, markdown, fragments)."""

    def __init__(self, ws, page: str, query: str):
        self.ws, self.page, self.query = ws, page, query
        self.buttons: dict[str, str] = {}
        self.texts: list[str] = []
        self.fragments: dict[str, str] = {}  # a text or button label -> the fragment that drew it
        self.errors: list[str] = []  # every exception or error box the server drew for this session
        self.lock = asyncio.Lock()  # one run at a time, as a browser's session: a timer's refresh waits for an answer

    @classmethod
    async def open(cls, server: str, page: str, query: str = "") -> "Session":
        from websockets.asyncio.client import connect

        ws = await connect(server.replace("http", "ws") + "/_stcore/stream", subprotocols=["streamlit"], max_size=2**24)
        session = cls(ws, page, query)
        await session.rerun()
        return session

    async def rerun(self, press: str | None = None, fragment: str = "", auto: bool = False) -> float:
        """Run the page (or one fragment), pressing the button ``press``; returns the wall seconds until it finished."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.page_name, state.query_string, state.is_auto_rerun = self.page, self.query, auto
        if fragment:
            state.fragment_id = fragment
        if press is not None:
            widget = state.widget_states.widgets.add()
            widget.id, widget.trigger_value = self.buttons[press], True
        async with self.lock:
            start = time.perf_counter()
            await self.ws.send(msg.SerializeToString())
            await self._until_finished(keep=bool(fragment))
            return time.perf_counter() - start

    async def _until_finished(self, keep: bool) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        early = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
        self.texts = []
        if not keep:  # a fragment's rerun redraws only the fragment: the buttons outside it stay
            self.buttons = {}
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(self.ws.recv(), 120))
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                what = element.WhichOneof("type")
                if what == "button":
                    self.buttons[element.button.label] = element.button.id
                    self.fragments[element.button.label] = msg.delta.fragment_id
                elif what in ("markdown", "alert"):
                    body = element.markdown.body if what == "markdown" else element.alert.body
                    self.texts.append(body)
                    self.fragments[body[:40]] = msg.delta.fragment_id
                    if what == "alert" and element.alert.format == element.alert.ERROR:
                        self.errors.append(body)
                elif what == "exception":
                    self.errors.append(element.exception.message)
                elif what == "plotly_chart":
                    self.charts = getattr(self, "charts", 0) + 1
            elif kind == "script_finished" and msg.script_finished != early:
                return

    def fragment_of(self, start: str) -> str:
        return next(f for text, f in self.fragments.items() if text.startswith(start) and f)

    def text(self, start: str) -> str | None:
        return next((t for t in reversed(self.texts) if t.startswith(start)), None)


def nearer(words: str, known: dict) -> bool:
    value = float(words.split("The release: ")[1].split(" hours")[0])
    return abs(value - known["in"]) < abs(value - known["out"])


async def answer(student: Session, known: dict) -> float:
    """Refresh the student's round (as its timer would), then press their answer; the answer's wall seconds."""
    await student.rerun(fragment=student.round_fragment, auto=True)
    words = next(t for t in student.texts if t.startswith("The release:"))
    return await student.rerun(
        press="Alice is in" if nearer(words, known) else "Alice is out", fragment=student.round_fragment
    )


async def poll_forever(sessions, fragment_of, every: float, stop: asyncio.Event) -> None:
    """Refresh each session's fragment every ``every`` seconds (staggered), as the browser's timer would."""

    async def one(session, delay):
        await asyncio.sleep(delay)
        while not stop.is_set():
            fragment = fragment_of(session)
            if fragment:
                await session.rerun(fragment=fragment, auto=True)
            await asyncio.sleep(every)

    await asyncio.gather(*(one(s, random.uniform(0, every)) for s in sessions))


async def play(server: str, pid: int, args) -> dict:
    from dppca_core.classroom import game

    known = game.noiseless("mean")
    teacher = await Session.open(server, "class")
    await teacher.rerun(press="Open a room")
    code = next(t for t in teacher.texts if "class-room" in t).split("Room ")[1].split("<")[0]
    out: dict = {"code": code, "join_cpu": [], "join_wall": [], "answer_cpu": [], "answer_wall": [], "refresh_cpu": []}

    async def join(delay):
        await asyncio.sleep(delay)
        before, start = server_cpu(pid), time.perf_counter()
        student = await Session.open(server, "class", f"room={code}")
        out["join_wall"].append(time.perf_counter() - start)
        out["join_cpu"].append(server_cpu(pid) - before)  # joins overlap: their sum over-counts, each is an upper bound
        student.round_fragment = student.fragment_of("Waiting for the teacher")  # the round's fragment, from now on
        return student

    start = time.perf_counter()
    students = await asyncio.gather(*(join(args.join_seconds * i / args.students) for i in range(args.students)))
    out["join_seconds"] = time.perf_counter() - start
    for number, epsilon in enumerate(EPSILONS, start=1):
        await teacher.rerun(press="Next round ▶")
        if number <= args.quiet_rounds:
            for student in students:
                await student.rerun(fragment=student.round_fragment, auto=True)  # the first refresh draws the release
                before = server_cpu(pid)
                await student.rerun(fragment=student.round_fragment, auto=True)
                out["refresh_cpu"].append(server_cpu(pid) - before)
                before = server_cpu(pid)
                await answer(student, known)
                out["answer_cpu"].append(server_cpu(pid) - before)
        else:
            stop = asyncio.Event()
            teacher_fragment = teacher.fragment_of("**Round")
            pollers = asyncio.gather(
                poll_forever(students, lambda s: s.round_fragment, 3.0, stop),
                poll_forever([teacher], lambda s: teacher_fragment, 2.0, stop),
            )
            before = server_cpu(pid)

            async def live_answer(student):
                await asyncio.sleep(random.uniform(0, args.answer_seconds))
                out["answer_wall"].append(await answer(student, known))

            began = time.perf_counter()
            await asyncio.gather(*(live_answer(s) for s in students))
            spent = time.perf_counter() - began
            out.setdefault("live_cpu_share", []).append((server_cpu(pid) - before) / spent)
            stop.set()
            await pollers
        before = server_cpu(pid)
        await teacher.rerun(fragment=teacher.fragment_of("**Round"), auto=True)
        out["refresh_cpu_teacher"] = server_cpu(pid) - before
    out["errors"] = [e for session in [teacher, *students] for e in session.errors]
    out["teacher_charts"] = getattr(teacher, "charts", 0)
    for session in [teacher, *students]:
        await session.ws.close()
    return out


def report(out: dict, rooms: Path, args) -> str:
    from dppca_core import risk
    from dppca_core.classroom import RoomStore, exact_curve
    from dppca_core.classroom.score import RoomResult

    store = RoomStore(rooms)
    counts = store.counts(out["code"])
    recorded = sum(c[0] + c[2] for c in counts.values())
    expected = args.students * len(EPSILONS)
    ms = [1000 * c for c in out["answer_cpu"]]
    lines = [
        generated_by(f"python benchmarks/classroom.py --students {args.students} --join-seconds {args.join_seconds}"),
        "",
        f"A teacher and {args.students} students as websocket sessions of one server (no browser); five rounds at "
        f"ε = {', '.join(f'{e:g}' for e in EPSILONS)}.",
        "",
        "| what | measured |",
        "|---|---|",
        f"| server CPU per answer, {len(ms)} answers one at a time (p50 / p95 / max) | "
        f"{percentile(ms, 0.5):.1f} / {percentile(ms, 0.95):.1f} / {max(ms):.1f} ms (target p95 < 50 ms) |",
        f"| server CPU per refresh of a student's round (p50 / p95) | {1000 * percentile(out['refresh_cpu'], 0.5):.1f} / "
        f"{1000 * percentile(out['refresh_cpu'], 0.95):.1f} ms, every 3 s per student |",
        f"| server CPU per refresh of the teacher's screen (its two figures and words) | "
        f"{1000 * out['refresh_cpu_teacher']:.0f} ms, every 2 s |",
        f"| server CPU per join (p50 / p95; joins that overlap count each other's) | "
        f"{1000 * percentile(out['join_cpu'], 0.5):.0f} / {1000 * percentile(out['join_cpu'], 0.95):.0f} ms |",
        f"| {args.students} students joining over {args.join_seconds:g} s: all in after | {out['join_seconds']:.1f} s; "
        f"each join's wall time p95 {percentile(out['join_wall'], 0.95):.2f} s |",
        f"| live rounds (everyone refreshing, answers within {args.answer_seconds:g} s): an answer's wall time "
        f"(p50 / p95) | {percentile(out['answer_wall'], 0.5):.2f} / {percentile(out['answer_wall'], 0.95):.2f} s |",
        f"| live rounds: the server's CPU while answering | "
        f"{', '.join(f'{100 * s:.0f}%' for s in out.get('live_cpu_share', []))} of one core |",
        f"| answers recorded (read back from the rooms' file) | {recorded} of {expected} |",
        f"| error boxes or exceptions drawn for any session | {len(out['errors'])} |",
        "",
        "| round | ε | right | the room's advantage | most the exact curve allows |",
        "|---|---|---|---|---|",
    ]
    for r in store.rounds(out["code"]):
        with_alice, hits, without, alarms = counts.get(r.number, (0, 0, 0, 0))
        result = RoomResult(with_alice, hits, without, alarms, exact_curve(r.settings))
        lo, hi = result.advantage_band
        lines.append(
            f"| {r.number} | {r.settings.epsilon:g} | {result.right} of {result.answers} | {result.advantage:+.2f} "
            f"({lo:+.2f} to {hi:+.2f}) | {risk.attacker_advantage(exact_curve(r.settings)):.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--join-seconds", type=float, default=60.0)
    parser.add_argument("--answer-seconds", type=float, default=8.0)
    parser.add_argument("--quiet-rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=61)
    parser.add_argument("--out", default="-", help="a Markdown file to write the report's section into, or -")
    args = parser.parse_args()
    random.seed(args.seed)
    rooms = Path(tempfile.mkdtemp(prefix="dppca-class-")) / "rooms.sqlite"
    os.environ["DPPCA_ROOMS"] = str(rooms)
    os.environ.setdefault("DPPCA_LEDGER", str(rooms.with_name("book.sqlite")))
    with app_server() as (url, proc):
        out = asyncio.run(play(url, proc.pid, args))
    publish(report(out, rooms, args), args.out, "What one server holds (benchmarks/classroom.py)", section=True)


if __name__ == "__main__":
    main()

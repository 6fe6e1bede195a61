"""The load benchmark's clock (benchmarks/load.py): an action lasts until the server has finished every run it
caused, read from Streamlit's own websocket messages."""

import asyncio
import sys
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
load = pytest.importorskip("load")


class FakeSocket:
    def __init__(self):
        self.handlers = {}

    def on(self, event, handler):
        self.handlers[event] = handler


class FakePage:
    def __init__(self):
        self.socket = FakeSocket()

    def on(self, event, handler):
        assert event == "websocket"
        handler(self.socket)

    def receive(self, msg: ForwardMsg):
        self.socket.handlers["framereceived"](msg.SerializeToString())

    def send(self, msg: BackMsg):
        self.socket.handlers["framesent"](msg.SerializeToString())


def _run(coroutine):
    """asyncio.run in a thread of its own: the browser tests' Playwright (sync API) keeps an event loop running in
    the main thread for the whole session, where asyncio.run refuses to start."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _status(running: bool) -> ForwardMsg:
    msg = ForwardMsg()
    msg.session_status_changed.script_is_running = running
    return msg


def _finished(status: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.script_finished = ForwardMsg.ScriptFinishedStatus.Value(status)
    return msg


def _rerun() -> BackMsg:
    msg = BackMsg()
    msg.rerun_script.query_string = "eps=1"
    return msg


def test_an_action_lasts_until_its_last_run_has_finished():
    async def scenario():
        page = FakePage()
        watch = load.RunWatch(page)
        t0 = load.time.perf_counter()
        page.send(_rerun())
        page.receive(_status(True))
        page.receive(_finished("FINISHED_EARLY_FOR_RERUN"))  # stopped for a rerun: not the end
        assert watch.running and watch.started == 1
        page.receive(_status(True))  # the rerun (already running: not a second start)
        page.receive(_finished("FINISHED_SUCCESSFULLY"))
        first_end = watch.last_end
        settle = asyncio.ensure_future(watch.settle(t0, 0, t0))
        await asyncio.sleep(load.GRACE / 3)
        page.receive(_status(True))  # a run within GRACE of the end: same action
        page.receive(_finished("FINISHED_SUCCESSFULLY"))
        from_action, from_request = await settle
        assert watch.started == 2 and watch.last_end > first_end
        assert from_action == watch.last_end - t0
        assert from_request == watch.last_end - watch.requests[0] <= from_action

    _run(scenario())


def test_large_frames_and_text_frames_are_not_parsed():
    page = FakePage()
    watch = load.RunWatch(page)
    big = ForwardMsg()
    big.delta.new_element.markdown.body = "x" * 500
    page.receive(big)
    page.socket.handlers["framereceived"]("a text frame")
    assert watch.started == 0 and not watch.running


def test_an_action_that_starts_no_run_times_out():
    async def scenario():
        watch = load.RunWatch(FakePage())
        now = load.time.perf_counter()
        with pytest.raises(TimeoutError, match="no finished run"):
            await watch.settle(now, 0, now - load.NO_RUN - 1)

    _run(scenario())


def test_the_report_names_the_command_and_every_phase():
    phase = {
        "name": "move epsilon, round 1",
        "times": [1.0, 2.0, 3.0],
        "server": [0.5, 1.0, 1.5],
        "failed": [],
        "errors": 0,
        "cpu_per_session": 0.1,
        "rss": 250.0,
    }
    result = {
        "profile": "burst",
        "clients": 3,
        "rounds": 1,
        "link": "explore",
        "phases": [phase],
        "options": (),
        "rss_start": 100.0,
        "rss_peak": 160.0,
        "rss_end": 150.0,
    }
    text = load.report(result)
    assert "python benchmarks/load.py --clients 3 --burst --rounds 1 " in text
    assert "| move epsilon, round 1 | 3 | 2.00 | 3.00 | 3.00 | 1.00 | 1.50 | 1.50 | 0 | 0 | 0.10 | 250 |" in text
    assert "20 MB per session at the peak" in text
    result["options"] = load.POST_SCRIPT_GC
    assert "--post-script-gc --append" in load.report(result)

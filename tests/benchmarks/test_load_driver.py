"""The load benchmark's clock (benchmarks/load.py): an action lasts until the server has finished every run it
caused, read from Streamlit's own websocket messages."""

import asyncio
import sys
from pathlib import Path

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.support.sessions import FakePage, finished_message, rerun_message, run_in_thread, status_message

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
load = pytest.importorskip("load")


def test_an_action_lasts_until_its_last_run_has_finished():
    async def scenario():
        page = FakePage()
        watch = load.RunWatch(page)
        t0 = load.time.perf_counter()
        page.send(rerun_message())
        page.receive(status_message(True))
        page.receive(finished_message("FINISHED_EARLY_FOR_RERUN"))  # stopped for a rerun: not the end
        assert watch.running and watch.started == 1
        page.receive(status_message(True))  # the rerun (already running: not a second start)
        page.receive(finished_message("FINISHED_SUCCESSFULLY"))
        first_end = watch.last_end
        settle = asyncio.ensure_future(watch.settle(t0, 0, t0))
        await asyncio.sleep(load.GRACE / 3)
        page.receive(status_message(True))  # a run within GRACE of the end: same action
        page.receive(finished_message("FINISHED_SUCCESSFULLY"))
        from_action, from_request = await settle
        assert watch.started == 2 and watch.last_end > first_end
        assert from_action == watch.last_end - t0
        assert from_request == watch.last_end - watch.requests[0] <= from_action

    run_in_thread(scenario())


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

    run_in_thread(scenario())


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

"""The soak benchmark's outputs (benchmarks/load.py --soak): the RSS chart, the report (ceiling, p95 of each
action, every unfinished action with its cause, the budgets) and the section of docs/load.md it replaces."""

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
load = pytest.importorskip("load")
from _app_server import publish  # noqa: E402


def _result(failed=()):
    samples = [(10.0 * i, 100.0 + 5 * i, 60.0 + (40 if i == 7 else 0)) for i in range(30)]
    times = {
        "load": [(4.0, 3.0)],
        "page: Data": [(1.0, 0.9), (2.0, 1.5), (9.0, 8.0)],
        "epsilon": [],
        "view": [(0.5, 0.4)],
        "upload": [(3.0, 2.0)],
        "hostile upload": [(1.5, 1.0)],
    }
    return {
        "profile": "soak",
        "clients": 3,
        "minutes": 4.0,
        "idle_minutes": 3.0,
        "load_start": 2.0,
        "load_end": 3.0,
        "rss_start": 100.0,
        "workers_start": 60.0,
        "rss_peak": 245.0,
        "workers_peak": 100.0,
        "total_peak": 305.0,
        "rss_end": 240.0,
        "rss_idle": 180.0,
        "workers_idle": 60.0,
        "cpu_per_session": 12.5,
        "errors": 0,
        "big": {"seconds": 6.0, "peak": 400.0, "workers_peak": 300.0, "after": 220.0, "errors": 0},
        "times": times,
        "failed": list(failed),
        "refused": [("bomb.parquet", True), ("one-line.csv", True)],
        "samples": samples,
        "hostile_at": [60.0, 120.0],
        "soak_end": 250.0,
    }


def test_the_rss_chart_draws_both_lines_and_marks_each_hostile_upload():
    svg = ET.fromstring(load.rss_svg(_result()["samples"], [60.0, 120.0], 250.0))
    ns = "{http://www.w3.org/2000/svg}"
    lines = svg.findall(f"{ns}polyline")
    assert len(lines) == 2 and all(len(p.get("points").split()) == 30 for p in lines)
    ticks = [e for e in svg.findall(f"{ns}line") if e.get("stroke") == "#c0392b"]
    assert len(ticks) == 2


def test_the_report_states_the_ceiling_the_p95_and_each_unfinished_action_with_its_cause():
    text = load.soak_report(
        _result([("page: Data", "TimeoutError: no finished run 300 s after the action")]), "docs/load-soak-rss.csv"
    )
    assert "ceiling 245 MB (with the workers 305 MB)" in text
    assert "| page: Data | 3 | 2.00 | 9.00 | 9.00 | 1 |" in text
    assert "* page: Data: TimeoutError: no finished run 300 s after the action" in text
    assert "2 answered with a message naming the file" in text
    assert "Budgets: the defaults" in text and "![Server RSS during the soak](load-soak-rss.svg)" in text
    assert "Every action finished." in load.soak_report(_result(), "x.csv")


def test_the_report_gives_the_class_p95_the_hostile_scenario_files_and_the_health_check():
    result = _result()
    result["times"]["hostile scenario file"] = [(0.7, 0.5), (0.9, 0.6)]
    result["refused"] += [("long-dotted-key.toml", True), ("huge-numbers.toml", True), ("key-limit.toml", False)]
    result.update(hostile_every=15.0, health=[0.01, 0.02, None, 0.5])
    text = load.soak_report(result, "docs/load-soak-hostile-rss.csv", "Hostile soak")
    assert '--hostile-every 15 --section "Hostile soak" --rss-out docs/load-soak-hostile-rss.csv' in text
    assert "every 15 s one session in turn uploads a hostile file" in text
    assert "Hostile uploads: 2, 2 answered" in text
    assert "Hostile scenario files opened on Home: 3, 2 answered in words" in text
    # the class: load 4.0, page: Data 1.0 2.0 9.0, view 0.5, upload 3.0 (6 actions; nearest-rank p95 = the largest)
    assert "The class (every action but the hostile ones): 6 actions, p95 9.00 s." in text
    assert "Health check: asked 4 times during the soak, 1 not answered within 5 s, slowest answer 0.50 s." in text


def test_the_soak_replaces_its_own_section_and_keeps_the_others(tmp_path):
    doc = tmp_path / "load.md"
    doc.write_text("# Load\n\nburst\n\n## Before\n\nold gc\n")
    publish("first soak\n", str(doc), "Soak", section=True)
    publish("second soak\n", str(doc), "Soak", section=True)
    text = doc.read_text()
    assert text.count("## Soak") == 1 and "second soak" in text and "first soak" not in text
    assert text.startswith("# Load\n\nburst\n\n## Before\n\nold gc\n")
    doc.write_text(text + "\n## After\n\nkept\n")
    publish("third soak\n", str(doc), "Soak", section=True)
    assert doc.read_text().endswith("## Soak\n\nthird soak\n\n## After\n\nkept\n")


def test_the_docs_state_the_default_budgets():
    from ui import limits

    doc = (Path(__file__).resolve().parents[2] / "docs" / "load.md").read_text()
    for variable, _, unit, value in limits.SETTINGS:
        assert re.search(rf"\| `{variable}` \| [^|]+ \| {value:,} {unit} \|", doc), variable


def test_an_action_during_a_run_lasts_until_the_run_it_caused_has_finished():
    """A click while an earlier run is still going stops that run for a rerun; the server sends no new "running"
    message, so the action is over when a run finishes after the page's request (it used to wait 300 s and count
    the action as unfinished)."""
    from tests.support.sessions import FakePage, finished_message, rerun_message, run_in_thread, status_message

    async def scenario():
        page = FakePage()
        watch = load.RunWatch(page)
        page.receive(status_message(True))  # a run the action did not cause is going
        t0 = load.time.perf_counter()
        started_before = watch.started
        page.send(rerun_message())
        page.receive(finished_message("FINISHED_EARLY_FOR_RERUN"))
        page.receive(finished_message("FINISHED_SUCCESSFULLY"))
        # acted long ago: a watch that saw no run caused would give up at once (TimeoutError)
        from_action, from_request = await watch.settle(t0, started_before, t0 - load.NO_RUN - 1)
        assert from_action == watch.last_end - t0 and from_request <= from_action

    run_in_thread(scenario())

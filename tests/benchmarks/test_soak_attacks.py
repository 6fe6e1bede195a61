"""The soak's attacks (benchmarks/load_attacks.py): their scenario files open the attack's table with each column
scaled privately at 8 values of R, and the report states each attack's outcome, the class's p95 and the memory
against the ceiling the budgets allow."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
attacks = pytest.importorskip("load_attacks")


def test_the_scenario_files_scale_the_upload_privately_at_8_values_of_r(tmp_path):
    from dppca_core.scenario import from_toml

    files = attacks.scenario_files(tmp_path, 5)
    opened = [from_toml(path.read_bytes()) for path in files]
    assert all(not notices for _, notices in opened), [n for _, n in opened]
    assert [vals["R"] for vals, _ in opened] == list(attacks.R_VALUES)
    assert all(vals["src"] == "upload" and vals["scale"] == "private" for vals, _ in opened)
    assert all(vals["bounds"].count(",") == 4 for vals, _ in opened)


def _result(**more):
    return {
        "attack": {"rows": 20_000, "cols": 50, "tabs": 2},
        "probes": [(404, 404)] * 5,
        "link_tabs": 2,
        "link_waiting": 2,
        "link_budget_message": True,
        "link_errors": 0,
        "scaled_rss_before": 500.0,
        "scaled_rss_after": 520.0,
        "scaled_errors": 0,
        "rss_start": 80.0,
        "rss_peak": 900.0,
        "rss_idle": 600.0,
        "idle_minutes": 1,
        **more,
    }


def test_the_report_states_each_attack_and_the_memory_against_its_ceiling():
    times = {"epsilon": [(1.0, 0.5), (3.0, 2.0)], "attack: reproduce link": [(100.0, 90.0)]}
    text = "\n".join(attacks.report_lines(_result(), times, 1000.0))
    assert "p95 3.00 s" in text  # the class's actions only: the attack's 100 s is not the class's
    assert "2 of 2 showed what a live run costs" in text and "said so" in text
    assert "5 probes" in text and "hash, 0 answered 200" in text
    assert "ceiling: 1000 MB" in text and "600 MB settled" in text and "under the ceiling" in text
    assert "OVER the ceiling" in "\n".join(attacks.report_lines(_result(rss_idle=1200.0), times, 1000.0))


def test_the_ceiling_adds_the_budgets_for_the_soaks_tables():
    from ui import limits

    result = _result()
    small = attacks.ceiling_mb(result, 10**6, 100)
    assert small > result["rss_start"] + 300 * 10**6 / 2**20
    more = attacks.ceiling_mb(result, 2 * 10**6, 100)  # one more million cells in the largest table
    per_cell = (limits.UPLOAD_CACHE_ENTRIES * attacks.UPLOAD_BYTES_PER_CELL + limits.PREPARED_CACHE_ENTRIES * 8) / 2**20
    assert more - small == pytest.approx(10**6 * per_cell)

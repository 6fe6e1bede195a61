"""benchmarks/frontier.py puts its table in its own section of docs/benchmarks.md and leaves the rest alone."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def frontier():
    spec = importlib.util.spec_from_file_location("frontier_benchmark", ROOT / "benchmarks" / "frontier.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_section_is_appended_once_then_replaced_in_place(frontier):
    document = "# Benchmarks\n\n## 8. Other\n\nkept | as is\n"
    first = frontier.with_section(document, frontier.section("| table one |\n", ["--reps", "3"]))
    assert first.startswith(document.rstrip("\n") + "\n\n" + frontier.BEGIN)
    assert first.count(frontier.BEGIN) == 1 and first.endswith(frontier.END + "\n")
    assert "python benchmarks/frontier.py --reps 3" in first and "| table one |" in first
    # later text (a section after ours) is kept, and a second run replaces the table only
    later = first + "\n## 10. After\n\nstays\n"
    second = frontier.with_section(later, frontier.section("| table two |\n", []))
    assert "| table one |" not in second and "| table two |" in second
    assert second.startswith(document.rstrip("\n")) and second.endswith("\n## 10. After\n\nstays\n")
    assert second.count(frontier.BEGIN) == 1 and second.count(frontier.END) == 1


def test_a_win_needs_quartiles_clear_of_the_others(frontier):
    """A lower median alone is a tie when the quartiles overlap (every mechanism at the random level, say); a win
    needs the upper quartile under the others' lower ones."""
    mine = {"median": 0.97, "q25": 0.62, "q75": 0.997}
    level = {"median": 0.994, "q25": 0.988, "q75": 0.999}
    assert frontier.outcome(mine, [level]) == "ties"
    assert (
        frontier.outcome(
            {"median": 0.0017, "q25": 0.0016, "q75": 0.0022}, [{"median": 0.037, "q25": 0.0369, "q75": 0.0377}]
        )
        == "wins"
    )
    assert (
        frontier.outcome({"median": 0.05, "q25": 0.04, "q75": 0.06}, [{"median": 0.044, "q25": 0.04, "q75": 0.05}])
        == "LOSES"
    )

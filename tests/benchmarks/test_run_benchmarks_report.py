"""benchmarks/run_benchmarks.py rewrites only the sections it makes in docs/benchmarks.md and keeps the others."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("run_benchmarks_report", ROOT / "benchmarks" / "run_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PREVIOUS = """# Benchmarks

Made by an older run.

## Targets and results

* target one: old figure

## 1. Mechanisms against the floor

old table one

## 6. A complete release against the floor

old release table

## 8. Exact integer noise on a grid: what it costs

kept | as is

## 9. Where each mechanism of 2020-2025 wins: error at matched (ε, δ)

<!-- frontier table: begin -->
frontier rows
<!-- frontier table: end -->
"""

GENERATED = """# Benchmarks

Made by this run.

## Targets and results

* target one: new figure

## 1. Mechanisms against the floor

new table one

## 6. A complete release against the floor

new release table

## 7. Audit throughput

new audit table
"""


def test_the_sections_the_run_does_not_make_are_kept_verbatim(bench, tmp_path):
    out = tmp_path / "benchmarks.md"
    out.write_text(PREVIOUS)
    text = bench.merged_report(out.read_text(), GENERATED)
    out.write_text(text)
    assert text.startswith("# Benchmarks\n\nMade by this run.\n")
    for old in ("older run", "old figure", "old table one", "old release table"):
        assert old not in text
    for new in ("new figure", "new table one", "new release table", "new audit table"):
        assert text.count(new) == 1
    kept_8 = PREVIOUS[PREVIOUS.index("## 8.") : PREVIOUS.index("## 9.")]
    kept_9 = PREVIOUS[PREVIOUS.index("## 9.") :]
    assert kept_8 in text and kept_9 in text
    # in order: the targets, 1, 6, the new 7 before the kept 8 and 9
    order = [text.index(h) for h in ("## Targets", "## 1.", "## 6.", "## 7.", "## 8.", "## 9.")]
    assert order == sorted(order)
    # a second run over the written file changes nothing
    assert bench.merged_report(out.read_text(), GENERATED) == text


def test_a_partial_run_replaces_only_its_own_section(bench):
    partial = "# Benchmarks\n\nMade by a partial run.\n\n## 6. A complete release against the floor\n\nnewest\n"
    text = bench.merged_report(bench.merged_report(PREVIOUS, GENERATED), partial)
    assert "newest" in text and "new release table" not in text
    assert "new table one" in text and "new audit table" in text and "frontier rows" in text


def test_a_first_run_writes_the_generated_report(bench):
    assert bench.merged_report("", GENERATED) == GENERATED


def test_a_partial_run_keeps_the_targets_it_did_not_measure(bench):
    previous = (
        "# Benchmarks\n\nold\n\n## Targets and results\n\n* release (basic) within 3x: 9.0: not met.\n"
        "* audit throughput: 30,000: met.\n\n## 6. Releases\n\nold table\n"
    )
    partial = "# Benchmarks\n\nnew\n\n## Targets and results\n\n* release (basic) within 3x: 2.9: met.\n\n## 6. Releases\n\nnew table\n"
    text = bench.merged_report(previous, partial)
    assert "* release (basic) within 3x: 2.9: met.\n* audit throughput: 30,000: met.\n" in text
    assert "9.0" not in text and "new table" in text and "old table" not in text

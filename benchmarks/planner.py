"""The planner of issue 37: how long a plan takes, how well it is calibrated, and what a wrong stand-in does.

    python benchmarks/planner.py                      # all four sections, markdown tables on stdout
    python benchmarks/planner.py --sections time      # only the time of a plan at d = 20, 50, 100
    python benchmarks/planner.py --sections score     # the time of a plan for a readable score plot
    python benchmarks/planner.py --sections calibration,sensitivity

* time: wall and CPU time of one plan (cold cache: the core's memo cleared first) for a subspace distance of at most
  0.3 in 90% of releases, n = 5000, k = 2, a spiked spectrum, at d in {20, 50, 100}. Not a timed test.
* score: the same for a score plot's noise-to-signal ratio of at most 0.5, k = 2, d = 20, n = 2000 and 5000.
* calibration: the settings of tests/planning/test_planning.py (spiked and sparse laws; iris and wine through a spectrum
  stated as numbers): the planned ε, the share of 200 fresh releases meeting every target on held-out rows at the
  plan and at 2/3 of its ε.
* sensitivity: a plan made on a stand-in with spike 4 (d = 10, k = 2, n = 3000), checked on held-out rows of laws
  whose spike is 2, 3, 4, 6 and 8: what happens when the stand-in is wrong.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dppca_core as dc  # noqa: E402
from dppca_core import planning  # noqa: E402
from dppca_core.data import datasets
from dppca_core.planning import Standin, evaluate  # noqa: E402
from tests.support.planning import STATED_SPECTRUM_CASES, plan_through_stated_spectrum  # noqa: E402

CONFIDENCE = 0.9


def _timed_plan(**kwargs):
    planning._cached_plan.cache_clear()
    wall, cpu = time.perf_counter(), time.process_time()
    found = dc.plan(**kwargs)
    return found, time.perf_counter() - wall, time.process_time() - cpu


def time_section() -> list[str]:
    out = ["| d | planned ε | mechanism | releases simulated | wall s | CPU s |", "|---|---|---|---|---|---|"]
    for d in (20, 50, 100):
        spectrum = [0.2, 0.12] + [0.01] * (d - 2)
        found, wall, cpu = _timed_plan(
            targets={"subspace_distance": 0.3}, n=5000, d=d, k=2, spectrum=spectrum, delta=1e-6, confidence=CONFIDENCE
        )
        out.append(
            f"| {d} | {found.epsilon:g} | {found.mechanism} | {found.releases_simulated} | {wall:.1f} | " f"{cpu:.1f} |"
        )
    return out


def score_section() -> list[str]:
    """A readable score plot (noise-to-signal at most 0.5 in 90% of releases), the target the app offers since the
    plan's settings travel in the link: rows are simulated one by one (a score plot reads them)."""
    out = [
        "| n | d | planned ε | mechanism | split | releases simulated | wall s | CPU s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, d in ((2000, 20), (5000, 20)):
        found, wall, cpu = _timed_plan(
            targets={"score_readability": 0.5},
            n=n,
            d=d,
            k=2,
            standin=Standin.spiked(d=d, k=3, spike=4.0, seed=0),
            confidence=CONFIDENCE,
        )
        out.append(
            f"| {n} | {d} | {found.epsilon:g} | {found.mechanism} | {planning.split_words(found.budget)} | "
            f"{found.releases_simulated} | {wall:.1f} | {cpu:.1f} |"
        )
    return out


def _row(label, found, X, support=None) -> str:
    at = evaluate(found, X, reps=200, seed=101, support=support)
    below = evaluate(found, X, epsilon=found.epsilon * 2 / 3, reps=200, seed=101, support=support)
    lo, hi = found.interval
    return (
        f"| {label} | {found.mechanism} | {found.epsilon:g} | {100 * found.share:.0f}% [{100 * lo:.0f}, "
        f"{100 * hi:.0f}] | {100 * at['share']:.1f}% | {100 * below['share']:.1f}% |"
    )


def calibration_section() -> list[str]:
    out = [
        "| setting | mechanism | planned ε | share simulated [95% interval] | share of 200 fresh on held-out rows "
        "| at 2/3 of ε |",
        "|---|---|---|---|---|---|",
    ]
    law = Standin.spiked(d=10, k=2, spike=4.0, seed=0)
    found = dc.plan({"subspace_distance": 0.3}, n=3000, d=10, k=2, standin=law, confidence=CONFIDENCE)
    out.append(
        _row(
            "spiked d=10 k=2, distance ≤ 0.3",
            found,
            datasets.spiked_covariance(n=3000, d=10, k=2, spike=4.0, seed=11).X,
        )
    )
    sparse = Standin.spiked(d=30, k=1, spike=20.0, sparsity=5, seed=2)
    found = dc.plan({"f1": 0.9}, n=4000, d=30, k=1, standin=sparse, confidence=CONFIDENCE)
    out.append(
        _row(
            "sparse d=30 s=5, F1 ≥ 0.9",
            found,
            sparse.draw_rows(4000, np.random.default_rng(12)),
            support=np.asarray(sparse.support, dtype=int),
        )
    )
    for name, radius, k, target in STATED_SPECTRUM_CASES:
        found, X = plan_through_stated_spectrum(name, radius, k, target, CONFIDENCE)
        out.append(_row(f"{name} (stated spectrum), distance ≤ {target:g}", found, X))
    return out


def sensitivity_section() -> list[str]:
    law = Standin.spiked(d=10, k=2, spike=4.0, seed=0)
    found = dc.plan({"subspace_distance": 0.3}, n=3000, d=10, k=2, standin=law, confidence=CONFIDENCE)
    out = [
        f"Plan on the spike-4 stand-in: {found.mechanism}, ε = {found.epsilon:g}.",
        "",
        "| real spike | share of 200 fresh releases meeting distance ≤ 0.3 at the planned ε |",
        "|---|---|",
    ]
    for spike in (2.0, 3.0, 4.0, 6.0, 8.0):
        X = datasets.spiked_covariance(n=3000, d=10, k=2, spike=spike, seed=11).X
        out.append(f"| {spike:g} | {100 * evaluate(found, X, reps=200, seed=101)['share']:.1f}% |")
    return out


SECTIONS = {
    "time": time_section,
    "score": score_section,
    "calibration": calibration_section,
    "sensitivity": sensitivity_section,
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    args = parser.parse_args(argv)
    for name in args.sections.split(","):
        print(f"\n## {name}\n")
        print("\n".join(SECTIONS[name]()))


if __name__ == "__main__":
    main()

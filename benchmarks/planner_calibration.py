"""Is the planner's promise kept on real tables? (issue 55)

    python benchmarks/planner_calibration.py                  # every case, a markdown table on stdout
    python benchmarks/planner_calibration.py --quick          # two stand-in draws per case, 60 fresh releases
    python benchmarks/planner_calibration.py --only auto,storms

For each case (a public real table from tests/real_tables/, its columns divided by their declared public bounds, a
public R, a centring, k and a target "... in 90% of releases"), the planner is given a stand-in for the table:

* a spectrum released privately from the rows at ε0 (the app's default 0.1, and 1, 3 and 10), several draws: what a user
  of the app gets; the plan holds on every spectrum the released one is consistent with, or declines;
* the table's exact spectrum (not private: the data owner's check of the simulation itself).

Each plan that names an ε is then checked the way a user would find out: fresh releases of the planned mechanism,
split and ε on the table's own rows, each scored against the table's exact PCA (as the app scores them). The table
reports, per case and stand-in, how many draws were declined, and for the plans the planned ε, the share of fresh
releases meeting the target (the lowest and the median over the draws) and how many plans kept the promise (a share
whose 95% Clopper-Pearson interval reaches 90%). A plan on a noisy stand-in promises 90% with probability 95% over
the stand-in's own noise, so about one plan in twenty may fall short.

Wall time: about 10 minutes on the project's shared 2-core machine (--quick: about 3).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dppca_core as dc  # noqa: E402
from dppca_core.planning import Standin, StandinTooNoisy, evaluate  # noqa: E402
from tests.real_tables.tables import TABLES  # noqa: E402

CONFIDENCE = 0.9
STANDIN_EPSILONS = (0.1, 1.0, 3.0, 10.0)


@dataclass(frozen=True)
class Case:
    table: str
    R: float
    center: str
    k: int
    target: tuple  # (name, value)

    def words(self) -> str:
        name, value = self.target
        sign = "≤" if name == "subspace_distance" else "≥"
        label = {"subspace_distance": "distance", "energy": "energy"}[name]
        return f"{self.table} (n = {{n}}, d = {{d}}), R = {self.R:g}, centre {self.center}, k = {self.k}: {label} {sign} {value:g}"


CASES = (
    Case("auto", 1.0, "private", 2, ("subspace_distance", 0.2)),  # the setting: 0 of 60 on today's planner
    Case("auto", 1.0, "private", 1, ("subspace_distance", 0.2)),
    Case("auto", 1.0, "private", 2, ("energy", 0.9)),
    Case("penguins", 1.0, "none", 1, ("subspace_distance", 0.2)),
    Case("diabetes", 2.0, "none", 2, ("energy", 0.9)),
    Case("boston", 2.0, "private", 1, ("subspace_distance", 0.3)),
    Case("boston", 2.0, "none", 2, ("subspace_distance", 0.3)),
    Case("college", 2.0, "none", 1, ("subspace_distance", 0.2)),
    Case("storms", 1.0, "private", 2, ("subspace_distance", 0.2)),
    Case("storms", 1.0, "private", 3, ("subspace_distance", 0.1)),
)


def _check(found, X, reps: int) -> tuple[float, float, float]:
    """(share of ``reps`` fresh releases on the rows meeting the targets, its 95% interval's upper end, the share at
    2/3 of the planned ε)."""
    at_plan = evaluate(found, X, reps=reps, seed=2024)
    below = evaluate(found, X, epsilon=found.epsilon * 2 / 3, reps=reps, seed=2024)
    return at_plan["share"], at_plan["high"], below["share"]


def _row(case: Case, X, label: str, standins: list, reps: int) -> str:
    declined, planned, shares, kept, belows, cpu = 0, [], [], 0, [], 0.0
    for standin in standins:
        if standin is None:  # a spectrum of pure noise: refused before any plan
            declined += 1
            continue
        start = time.process_time()
        found = dc.plan(
            dict([case.target]),
            n=X.shape[0],
            d=X.shape[1],
            k=case.k,
            standin=standin,
            center=case.center,
            data_norm=case.R,
            confidence=CONFIDENCE,
        )
        cpu += time.process_time() - start
        if not found.reachable:
            declined += 1
            continue
        share, high, below = _check(found, X, reps)
        planned.append(found.total_epsilon)
        shares.append(share)
        belows.append(below)
        kept += high >= CONFIDENCE
    draws = len(standins)
    if not planned:
        return f"| {label} | {draws} | {declined} | – | – | – | – | {cpu / draws:.1f} |"
    low, high = f"{min(planned):.3g}", f"{max(planned):.3g}"
    eps = low if low == high else f"{low}–{high}"
    return (
        f"| {label} | {draws} | {declined} | {eps} | {100 * min(shares):.0f}% / {100 * np.median(shares):.0f}% | "
        f"{kept} of {len(planned)} | {100 * np.median(belows):.0f}% | {cpu / draws:.1f} |"
    )


def _private_standins(case: Case, X, epsilon: float, draws: int) -> list:
    out = []
    for seed in range(draws):
        try:
            out.append(
                Standin.private(
                    X, epsilon, 1e-6, data_norm=case.R, center=case.center, seed=np.random.default_rng(1000 + seed)
                )
            )
        except StandinTooNoisy:
            out.append(None)
    return out


def run(cases, draws: int, reps: int) -> list[str]:
    out = [
        f"Target met in {100 * CONFIDENCE:.0f}% of releases; {reps} fresh releases on the table's rows per plan.",
        "",
        "| case · stand-in | draws | declined | total ε planned | met on the rows (lowest / median) | promise "
        "kept | at 2/3 of ε (median) | CPU s per plan |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case in cases:
        X = TABLES[case.table].scaled()
        head = case.words().format(n=f"{X.shape[0]:,}", d=X.shape[1])
        out.append(f"| **{head}** | | | | | | | |")
        for eps0 in STANDIN_EPSILONS:
            out.append(_row(case, X, f"private, ε0 = {eps0:g}", _private_standins(case, X, eps0, draws), reps))
        exact = Standin.exact(X, case.R, center=case.center)
        out.append(_row(case, X, "exact (not private)", [exact], reps))
        print("\n".join(out[-6:]), file=sys.stderr, flush=True)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 stand-in draws per case, 60 fresh releases")
    parser.add_argument("--only", default="", help="tables to run, comma-separated (default: all)")
    parser.add_argument("--draws", type=int, default=4, help="stand-in draws per ε0")
    parser.add_argument("--reps", type=int, default=100, help="fresh releases on the rows per plan")
    args = parser.parse_args(argv)
    draws, reps = (2, 60) if args.quick else (args.draws, args.reps)
    only = {t for t in args.only.split(",") if t}
    cases = [c for c in CASES if not only or c.table in only]
    wall = time.perf_counter()
    print("\n".join(run(cases, draws, reps)))
    print(f"\n(wall {time.perf_counter() - wall:.0f} s)")


if __name__ == "__main__":
    main()

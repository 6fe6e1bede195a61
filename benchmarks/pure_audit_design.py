"""Why the exponential mechanisms' audit reads the range of the privacy loss: expected bounds by quadrature.

    python benchmarks/pure_audit_design.py                 # the expected bounds (seconds)
    python benchmarks/pure_audit_design.py --audits 200    # and how often the reading refutes, over 200 audits

For the exponential mechanism on the circle (d = 2, k = 1, replace-one, w = epsilon / 2) with the canary e1 (e2 on
D') and a background of squared norm m along e1, the exact laws of the log-density ratio on D and D' give, for
each threshold, the error rates an audit would see; Clopper-Pearson margins at ``trials`` evaluations turn them
into the bound it would read (the audit's own arithmetic, :mod:`dppca_core.audit.bounds`). The table prints, per
background: the largest privacy loss of any output and the width of the loss's range (shares of epsilon), the
best distribution-free bound of one test (rates at one-sided 2.5%), and the bounded-range reading of two tests,
one per tail (rates at one-sided 1.25%), at the claim and at twice the claim. docs/privacy.md quotes it.

``--audits N``: N audits of the design as it runs (no background, the two thresholds the design fixes from the
exact law at the run's weight), each with ``trials`` draws per dataset from the *exact* law of the statistic
(sampled on the quadrature grid, seed = the audit's index), read with the audit's own arithmetic: how often a
correct claim and a run at twice it are refuted at the full 10,000 trials, where the reading comes closest to the
claim (refuted: the bound or the band against the claimed curve, as the audit's verdict). It checks the reading
and its thresholds, not the mechanism's code (docs/audit-table.md audits that).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca_core.audit.bounds import (
    clopper_pearson_arrays,
    range_bounds,
    range_rate_level,
    rates,  # noqa: E402
    tail_log_ratios,
)
from dppca_core.audit.curve import RangeClaim, tradeoff_curve  # noqa: E402
from dppca_core.audit.designs import _circle_laws, best_log_density_thresholds  # noqa: E402

EPSILON, TRIALS, CONFIDENCE = 1.0, 10_000, 0.95


def readings(mass: float, weight: float, trials: int = TRIALS) -> tuple[float, float, float, float]:
    """(largest loss, range width, one test's distribution-free bound, two tests' range bound), expected."""
    llr, below_d, below_dp = _circle_laws(weight, [1.0 + mass, 0.0], [mass, 1.0], 20_001)
    at = np.arange(0, llr.size, 10)
    false_pos, false_neg = np.round((1.0 - below_d[at]) * trials), np.round(below_dp[at] * trials)
    out = []
    for level in (CONFIDENCE, range_rate_level(CONFIDENCE)):
        out.append(
            tail_log_ratios(
                clopper_pearson_arrays(false_pos, trials, level)[1], clopper_pearson_arrays(false_neg, trials, level)[1]
            )
        )
    (up1, lo1), (up2, lo2) = out
    one = max(up1.max(), lo1.max())
    two = max(up2.max(), 0.0) + max(lo2.max(), 0.0)
    return float(llr[-1]), float(llr[-1] - llr[0]), float(one), float(two)


def refutations(audits: int, weight: float, trials: int = TRIALS) -> tuple[int, float]:
    """(audits refuted, median bound) over ``audits`` audits of the design with draws from the exact law."""
    diag_d, diag_dp = [1.0, 0.0], [0.0, 1.0]
    llr, below_d, below_dp = _circle_laws(weight, diag_d, diag_dp, 20_001)
    upper, lower = best_log_density_thresholds(weight, diag_d, diag_dp, trials, CONFIDENCE)
    refuted, found = 0, []
    for seed in range(audits):
        rng = np.random.default_rng(seed)
        on_d = llr[np.minimum(np.searchsorted(below_d, rng.uniform(size=trials)), llr.size - 1)]
        on_dp = llr[np.minimum(np.searchsorted(below_dp, rng.uniform(size=trials)), llr.size - 1)]
        false_pos, false_neg = rates(on_d, on_dp, np.array([upper, lower]))
        width, point, _ = range_bounds(
            (false_pos[0], false_neg[0]), (false_pos[1], false_neg[1]), trials, 0.0, CONFIDENCE
        )
        found.append(max(width, point))
        band = tradeoff_curve(on_d, on_dp, RangeClaim(EPSILON), 0.0, CONFIDENCE)  # the verdict reads it too
        refuted += found[-1] > EPSILON or band.violated
    return refuted, float(np.median(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=0, help="also count refutations over this many audits")
    args = parser.parse_args()
    print(
        f"Expected bounds at {TRIALS:,} trials per dataset, shares of the claimed epsilon = {EPSILON:g} "
        "(replace-one, w = epsilon / 2):\n"
    )
    print(
        "| background along the canary (squared norm) | largest loss | range width | one test, distribution-free "
        "| two tests, bounded range | two tests at 2x the claim |"
    )
    print("|---|---|---|---|---|---|")
    for mass in (0.0, 1.0, 2.0, 3.8, 6.0):
        top, width, one, two = readings(mass, EPSILON / 2)
        broken = readings(mass, EPSILON)[3]
        print(f"| {mass:g} | {top:.2f} | {width:.2f} | {one:.2f} | {two:.2f} | {broken:.2f} |")
    if args.audits:
        print(f"\n{args.audits} audits at {TRIALS:,} trials per dataset, draws from the exact law:\n")
        print("| run at | audits refuted | bound, median |\n|---|---|---|")
        for factor in (1, 2):
            refuted, median = refutations(args.audits, factor * EPSILON / 2)
            print(f"| {factor}x the claim | {refuted} ({refuted / args.audits:.1%}) | {median:.3g} |", flush=True)


if __name__ == "__main__":
    main()

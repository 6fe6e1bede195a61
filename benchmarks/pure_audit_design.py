"""Why the exponential mechanisms' audit reads the range of the privacy loss: expected bounds by quadrature.

    python benchmarks/pure_audit_design.py

For the exponential mechanism on the circle (d = 2, k = 1, replace-one, w = epsilon / 2) with the canary e1 (e2 on
D') and a background of squared norm m along e1, the exact laws of the log-density ratio on D and D' give, for
each threshold, the error rates an audit would see; Clopper-Pearson margins at ``trials`` evaluations turn them
into the bound it would read (the audit's own arithmetic, :mod:`dppca_core.audit.bounds`). The table prints, per
background: the largest privacy loss of any output and the width of the loss's range (shares of epsilon), the
best distribution-free bound of one test (rates at one-sided 2.5%), and the bounded-range reading of two tests,
one per tail (rates at one-sided 1.25%), at the claim and at twice the claim. docs/privacy.md quotes it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca_core.audit.bounds import clopper_pearson_arrays, range_rate_level  # noqa: E402
from dppca_core.audit.designs import _circle_laws  # noqa: E402

EPSILON, TRIALS, CONFIDENCE = 1.0, 10_000, 0.95


def readings(mass: float, weight: float, trials: int = TRIALS) -> tuple[float, float, float, float]:
    """(largest loss, range width, one test's distribution-free bound, two tests' range bound), expected."""
    llr, below_d, below_dp = _circle_laws(weight, [1.0 + mass, 0.0], [mass, 1.0], 20_001)
    at = np.arange(0, llr.size, 10)
    false_pos, false_neg = np.round((1.0 - below_d[at]) * trials), np.round(below_dp[at] * trials)
    out = []
    for level in (CONFIDENCE, range_rate_level(CONFIDENCE)):
        _, a = clopper_pearson_arrays(false_pos, trials, level)
        _, b = clopper_pearson_arrays(false_neg, trials, level)
        with np.errstate(divide="ignore"):
            out.append((np.log(np.clip(1 - b, 1e-300, None) / a), np.log(np.clip(1 - a, 1e-300, None) / b)))
    (up1, lo1), (up2, lo2) = out
    one = max(up1.max(), lo1.max())
    two = max(up2.max(), 0.0) + max(lo2.max(), 0.0)
    return float(llr[-1]), float(llr[-1] - llr[0]), float(one), float(two)


def main() -> None:
    print(f"Expected bounds at {TRIALS:,} trials per dataset, shares of the claimed epsilon = {EPSILON:g} "
          "(replace-one, w = epsilon / 2):\n")
    print("| background along the canary (squared norm) | largest loss | range width | one test, distribution-free "
          "| two tests, bounded range | two tests at 2x the claim |")
    print("|---|---|---|---|---|---|")
    for mass in (0.0, 1.0, 2.0, 3.8, 6.0):
        top, width, one, two = readings(mass, EPSILON / 2)
        broken = readings(mass, EPSILON)[3]
        print(f"| {mass:g} | {top:.2f} | {width:.2f} | {one:.2f} | {two:.2f} | {broken:.2f} |")


if __name__ == "__main__":
    main()

"""Measure the audit as a curve: how often a correct claim is refuted, whether runs past their claim are, and what a
sequential audit saves. Prints Markdown tables (docs/privacy.md#the-audit-as-a-curve quotes them).

    python benchmarks/audit_curve.py                      # 200 audits per row, then the sequential comparison
    python benchmarks/audit_curve.py --audits 50 --skip-sequential --only ppca_exponential
    python benchmarks/audit_curve.py --skip-rates --only ppca_exponential --factor 2   # the 2x sequential rows only

Refutation rates: ``audit`` with seeds 0 .. audits-1 at (epsilon, delta) = (1, 1e-5); a row counts the audits
refuted (the verdict: the chosen threshold's bound or any point of the band's inner edge beyond the claimed curve),
and those refuted by the band alone. Sequential: ``sequential_audit`` against the fixed-size ``audit`` with 10,000
trials per dataset, seeds 0-2, as implemented and at twice the claimed epsilon.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca_core.audit import audit  # noqa: E402
from dppca_core.audit.sequential import sequential_audit  # noqa: E402
from dppca_core.privacy import gaussian_epsilon, gaussian_mu  # noqa: E402

EPSILON, DELTA = 1.0, 1e-5
HALF_NOISE = gaussian_epsilon(2 * gaussian_mu(EPSILON, DELTA), DELTA)  # Analyze Gauss with half its noise
#: (mechanism, case, trials per dataset, run_epsilon)
RATE_ROWS = [
    ("analyze_gauss", "as implemented", 2000, EPSILON),
    ("analyze_gauss", "run at 2x the claimed epsilon", 2000, 2 * EPSILON),
    ("analyze_gauss", "half the noise the claim needs", 2000, HALF_NOISE),
    ("analyze_gauss", "run at 2x the claimed epsilon", 10_000, 2 * EPSILON),
    ("ppca_exponential", "as implemented", 1000, EPSILON),
    ("ppca_exponential", "run at 2x the claimed epsilon", 1000, 2 * EPSILON),
    ("amin_iterative", "as implemented", 500, EPSILON),
    ("amin_iterative", "run at 2x the claimed epsilon", 500, 2 * EPSILON),
    ("amin_iterative", "as implemented", 2000, EPSILON),
    ("amin_iterative", "run at 2x the claimed epsilon", 2000, 2 * EPSILON),
]
SEQUENTIAL_ROWS = [
    ("analyze_gauss", EPSILON),
    ("analyze_gauss", 2 * EPSILON),
    ("ppca_exponential", EPSILON),
    ("ppca_exponential", 2 * EPSILON),
]


def rates(audits: int, only: str | None = None, rows=None) -> None:
    print("| mechanism | case | trials per dataset | audits | refuted | refuted by the band | band's ε, median |")
    print("|---|---|---|---|---|---|---|")
    for index, (name, case, trials, run_eps) in enumerate(RATE_ROWS):
        if (only and name != only) or (rows and index not in rows):
            continue
        start, refuted, band, strongest = time.perf_counter(), 0, 0, []
        for seed in range(audits):
            result = audit(name, EPSILON, DELTA, trials=trials, seed=seed, run_epsilon=run_eps)
            refuted += result.violated
            band += result.curve.violated
            strongest.append(result.curve.strongest())
        strongest.sort()
        print(
            f"| {name} | {case} | {trials:,} | {audits} | {refuted} ({refuted / audits:.1%}) | {band} | "
            f"{strongest[len(strongest) // 2]:.3g} |",
            flush=True,
        )
        print(f"<!-- {name}, {case}: {time.perf_counter() - start:.0f} s -->", flush=True)


def sequential(seeds: int, trials: int, only: str | None = None, factor: float | None = None) -> None:
    print("| mechanism | run at ε | seed | fixed audit: verdict, ε lower | sequential: verdict, trials used |")
    print("|---|---|---|---|---|")
    for name, run_eps in SEQUENTIAL_ROWS:
        if (only and name != only) or (factor is not None and run_eps != factor * EPSILON):
            continue
        for seed in range(seeds):
            fixed = audit(name, EPSILON, DELTA, trials=trials, seed=seed, run_epsilon=run_eps)
            seq = sequential_audit(name, EPSILON, DELTA, trials=trials, seed=seed, run_epsilon=run_eps)
            verdict = "refuted" if fixed.violated else "not refuted"
            print(
                f"| {name} | {run_eps:g} | {seed} | {verdict}, {fixed.epsilon_lower:.3g} | "
                f"{'refuted' if seq.refuted else 'not refuted'}, {seq.trials_used:,} of {seq.planned:,} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--skip-rates", action="store_true")
    parser.add_argument("--skip-sequential", action="store_true")
    parser.add_argument("--only", help="one mechanism's rows")
    parser.add_argument("--rows", type=int, nargs="*", help="these rows of RATE_ROWS only (0 is the first)")
    parser.add_argument("--factor", type=float, help="sequential rows run at this multiple of the claim only (e.g. 2)")
    args = parser.parse_args()
    if not args.skip_rates:
        rates(args.audits, args.only, args.rows)
    if not args.skip_sequential:
        sequential(args.seeds, args.trials, args.only, args.factor)


if __name__ == "__main__":
    main()

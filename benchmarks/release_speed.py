"""A complete release against the floor at a few sizes, quickly: the rows of section 6 of docs/benchmarks.md.

    python benchmarks/release_speed.py                       # n = 1e5, d in {20, 100}, 7 paired repeats
    python benchmarks/release_speed.py --cells 100000x20 --repeats 11 --profile

Each repeat times the floor ``np.linalg.eigh(X.T @ X)`` and then the release on the same X (process CPU time, BLAS
on one thread), so each ratio compares two runs made under the same load; the median of the paired ratios and
their range are printed. ``--profile`` prints the functions the release spends its time in (cProfile, 3 runs).
"""

from __future__ import annotations

import argparse
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_benchmarks as rb  # noqa: E402
from dppca_core.compiled import kernels  # noqa: E402
from dppca_core.data.datasets import spiked_covariance  # noqa: E402


def paired(X, kind: str, repeats: int) -> str:
    t = rb.measure(
        lambda: rb.complete_release(X, kind),
        min_repeats=repeats,
        max_repeats=repeats,
        baseline=lambda: np.linalg.eigh(X.T @ X),
    )
    ratios = sorted(c / b for c, b in zip(t.cpu, t.baseline.cpu))
    return (
        f"release {t.median * 1e3:7.1f} ms, floor {t.baseline.median * 1e3:6.1f} ms; paired ratio median "
        f"{ratios[len(ratios) // 2]:.1f}x (range {ratios[0]:.1f}-{ratios[-1]:.1f}, {len(ratios)} repeats)"
    )


def profile(X, kind: str) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(3):
        rb.complete_release(X, kind)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", default=["100000x20", "100000x100"], help="n x d, e.g. 100000x20")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    kernels.warm_up()
    for cell in args.cells:
        n, d = (int(v) for v in cell.lower().split("x"))
        X = spiked_covariance(n=n, d=d, k=rb.K, seed=0).X
        for kind in rb.RELEASES:
            rb.complete_release(X, kind)  # loads every kernel the release uses
            print(f"n={n:,} d={d} {kind}: {paired(X, kind, args.repeats)}", flush=True)
            if args.profile:
                profile(X, kind)


if __name__ == "__main__":
    main()

"""A complete release against the floor at a few sizes, quickly: the rows of section 6 of docs/benchmarks.md.

    python benchmarks/release_speed.py                       # n = 1e5, d in {20, 100}, 7 paired repeats
    python benchmarks/release_speed.py --cells 100000x20 --repeats 11 --profile
    python benchmarks/release_speed.py --cells 100000x20 1000000x20 --parts   # the basic release's parts alone

Each repeat times the floor ``np.linalg.eigh(X.T @ X)`` and then the release on the same X (process CPU time, BLAS
on one thread), so each ratio compares two runs made under the same load; the median of the paired ratios and
their range are printed. ``--profile`` prints the functions the release spends its time in (cProfile, 3 runs).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

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


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def parts(X, repeats: int) -> str:
    """The basic release's parts measured alone, each over the floor timed just before it (medians of the ratios):
    the first pass (norms, exact sums, Gram matrix), the centring with a mean, the score plot's projection, and the
    whole release; then the passes a release with every private choice adds (the column scales' clipped squares,
    the divided rows' norms with their finiteness check, read by the private radius) and that whole release."""
    from dppca_core.data.centring import centre_algebraically
    from dppca_core.data.prepare import prepare

    mean = X.mean(axis=0) / max(np.linalg.norm(X, axis=1).max(), 1e-300) * 0.5
    V = np.linalg.qr(np.random.default_rng(0).normal(size=(X.shape[1], 2)))[0]
    from dppca_core.data.gram import divided_sq_norms
    from dppca_core.privacy.exact import FixedSums

    bounds = np.ones(X.shape[1])
    ratios: dict = {"first pass": [], "centring": [], "projection": [], "release": []}
    extras: dict = {"clipped squares": [], "divided rows' norms": [], "release": []}
    for _ in range(repeats):
        floor = _cpu(lambda: np.linalg.eigh(X.T @ X))
        data = prepare(X, 1.0, gram_now=True, row_sums=True, keep_sq_norms=True)
        ratios["first pass"].append(
            _cpu(lambda: prepare(X, 1.0, gram_now=True, row_sums=True, keep_sq_norms=True)) / floor
        )
        centred = centre_algebraically(data, mean)
        if centred is None:
            return "centring: not algebraic at this size (d > 32, fewer than 2^20 cells, or no numba)"
        ratios["centring"].append(_cpu(lambda: centre_algebraically(data, mean)) / floor)
        ratios["projection"].append(_cpu(lambda: centred.project(V)) / floor)
        ratios["release"].append(_cpu(lambda: rb.complete_release(X, "basic")) / floor)
        extras["clipped squares"].append(_cpu(lambda: FixedSums.of_clipped_squares(X, bounds)) / floor)
        extras["divided rows' norms"].append(_cpu(lambda: divided_sq_norms(X, bounds, compiled=True)) / floor)
        extras["release"].append(_cpu(lambda: rb.complete_release(X, "every private choice")) / floor)
    basic = "; ".join(f"{name} {np.median(v):.2f}x" for name, v in ratios.items())
    more = "; ".join(f"{name} {np.median(v):.2f}x" for name, v in extras.items())
    return f"{basic} the floor. Every private choice: {more}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", default=["100000x20", "100000x100"], help="n x d, e.g. 100000x20")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--parts", action="store_true", help="the basic release's parts alone, over the floor")
    args = parser.parse_args()
    kernels.warm_up()
    for cell in args.cells:
        n, d = (int(v) for v in cell.lower().split("x"))
        X = spiked_covariance(n=n, d=d, k=rb.K, seed=0).X
        if args.parts:
            print(f"n={n:,} d={d} basic, parts: {parts(X, args.repeats)}", flush=True)
            continue
        for kind in rb.RELEASES:
            rb.complete_release(X, kind)  # loads every kernel the release uses
            print(f"n={n:,} d={d} {kind}: {paired(X, kind, args.repeats)}", flush=True)
            if args.profile:
                profile(X, kind)


if __name__ == "__main__":
    main()

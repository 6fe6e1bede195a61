"""A complete release against the floor at a few sizes, quickly: the rows of section 6 of docs/benchmarks.md.

    python benchmarks/release_speed.py                       # n = 1e5, d in {20, 100}, 7 paired repeats
    python benchmarks/release_speed.py --cells 100000x20 --repeats 11 --profile
    python benchmarks/release_speed.py --cells 100000x20 1000000x20 --parts   # the releases' parts alone

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
    """The releases' parts measured alone, each over the floor timed just before it (medians of the ratios). Basic:
    the first pass (norms, exact sums, Gram matrix), the centring with a mean, the score plot's cells, the whole
    release. Every private choice: the column scales' clipped squares, the private radius's pass (the divided rows'
    norms), the first pass (each block divided as it is read, the norms given), the centring and the cells of rows
    divided by their column scales, the whole release."""
    from dppca_core.data.centring import centre_algebraically
    from dppca_core.data.gram import divided_sq_norms
    from dppca_core.data.prepare import prepare
    from dppca_core.privacy.exact import FixedSums

    V = np.linalg.qr(np.random.default_rng(0).normal(size=(X.shape[1], 2)))[0]
    edges = [np.linspace(-1.0, 1.0, 25)] * 2
    bounds = np.ones(X.shape[1])
    c = np.sqrt(np.clip(np.mean(np.minimum(np.abs(X), 1.0) ** 2, axis=0), 1e-4, 1.0))  # like private scales
    sq = divided_sq_norms(X, c, True)
    R = float(np.quantile(np.sqrt(sq), 0.9))  # about one row in ten clipped, as the private radius does

    def first(divided: bool):
        if divided:
            return prepare(X, R, gram_now=True, row_sums=True, sq_norms=sq, keep_sq_norms=True, column_scales=c)
        return prepare(X, 1.0, gram_now=True, row_sums=True, keep_sq_norms=True)

    def centring(data):
        return centre_algebraically(data, np.asarray(data.row_sums, dtype=float) * 2.0**-40 / data.n * 0.5)

    found = {}
    for divided in (False, True):
        data = first(divided)
        centred = centring(data)
        if centred is None:
            return "centring: not algebraic at this size (d > 32, fewer than 2^20 cells, or no numba)"
        kind = "every private choice" if divided else "basic"
        steps = {
            "first pass": lambda: first(divided),
            "centring": lambda: centring(data),
            "score cells": lambda: centred.score_cells(V, edges),
            "release": lambda: rb.complete_release(X, kind),
        }
        if divided:
            steps = {
                "clipped squares": lambda: FixedSums.of_clipped_squares(X, bounds),
                "radius pass (divided norms)": lambda: divided_sq_norms(X, c, True),
                **steps,
            }
        ratios: dict = {name: [] for name in steps}
        for _ in range(repeats):
            for name, fn in steps.items():
                floor = _cpu(lambda: np.linalg.eigh(X.T @ X))
                ratios[name].append(_cpu(fn) / floor)
        found[kind] = "; ".join(f"{name} {np.median(v):.2f}x" for name, v in ratios.items())
    return f"{found['basic']} the floor. Every private choice: {found['every private choice']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", default=["100000x20", "100000x100"], help="n x d, e.g. 100000x20")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--parts", action="store_true", help="the releases' parts alone, over the floor")
    args = parser.parse_args()
    kernels.warm_up()
    for cell in args.cells:
        n, d = (int(v) for v in cell.lower().split("x"))
        X = spiked_covariance(n=n, d=d, k=rb.K, seed=0).X
        if args.parts:
            print(f"n={n:,} d={d} parts: basic: {parts(X, args.repeats)}", flush=True)
            continue
        for kind in rb.RELEASES:
            rb.complete_release(X, kind)  # loads every kernel the release uses
            print(f"n={n:,} d={d} {kind}: {paired(X, kind, args.repeats)}", flush=True)
            if args.profile:
                profile(X, kind)


if __name__ == "__main__":
    main()

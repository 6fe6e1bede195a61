"""What exact integer noise costs: the samplers per draw, and a complete release with them against float noise.

    python benchmarks/exact_noise.py [--repeats 7]

Prints Markdown tables (docs/benchmarks.md quotes them):

1. the exact samplers (``dppca_core.privacy.exact.rounded_normal`` / ``rounded_laplace``): microseconds per draw by batch
   size, compiled (numba, :mod:`dppca_core.compiled.exact_kernels`) and in Python (the same draws), against numpy's float
   ``normal`` (which leaks through its low-order bits, docs/privacy.md#numerics);
2. a complete release (``release_pca``: private mean, Analyze Gauss, variances and a 24 x 24 score histogram, each
   extra at a 10% share) at n = 10^5, d = 20, seeded and fresh (ChaCha20), against the same release with the exact
   parts swapped for what the library did before (float sums and numpy float noise), measured in the same run;
3. what discrete noise on a whole d x d matrix would cost (d(d+1)/2 draws) beside the eigendecomposition it feeds.

Times are process CPU seconds, the median of the repeats after a warm-up.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dppca_core as dc  # noqa: E402
from dppca_core.pipeline import parts  # noqa: E402
from dppca_core.privacy import exact  # noqa: E402
from dppca_core.privacy import shares


def _cpu(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


class _FloatSums:
    """The sums as the library computed them before: float64, any order."""

    TRUNCATION = 0.0

    def __init__(self, terms=None, width=None):
        self.total = None if terms is None else np.asarray(terms, dtype=float).sum(axis=0)

    def add(self, terms):
        part = np.asarray(terms, dtype=float).sum(axis=0)
        self.total = part if self.total is None else self.total + part
        return self

    def values(self):
        return self.total

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.total, dtype=dtype)


@contextlib.contextmanager
def float_noise():
    """release_pca's extras with numpy float noise and float sums: what they cost before the exact samplers."""
    saved = shares.noisy_on_grid, parts.FixedSums

    def noisy(values, step, scale, rng, *, laplace=False, name=""):
        values = np.asarray(values, dtype=float)
        sd = float(scale) * step
        return values + (rng.laplace(0.0, sd, values.shape) if laplace else rng.normal(0.0, sd, values.shape))

    shares.noisy_on_grid, parts.FixedSums = noisy, _FloatSums
    try:
        yield
    finally:
        shares.noisy_on_grid, parts.FixedSums = saved


@contextlib.contextmanager
def python_samplers():
    """The exact samplers in Python only (what runs without numba; the same draws)."""
    saved = exact.COMPILED
    exact.COMPILED = False
    try:
        yield
    finally:
        exact.COMPILED = saved


def samplers(repeats: int) -> list[str]:
    lines = [
        "| draws per call | exact normal, µs/draw | (Python) | exact Laplace, µs/draw | (Python) | "
        "numpy float normal, µs/draw |",
        "|---|---|---|---|---|---|",
    ]
    for size in (1, 20, 100, 576, 10_000):
        rng = np.random.default_rng(0)
        calls = max(1, 2000 // size)
        per = 1e6 / (calls * size)
        cells = []
        for draw in (exact.rounded_normal, exact.rounded_laplace):
            cells.append(_cpu(lambda: [draw(size, Fraction(27), rng) for _ in range(calls)], repeats))
            with python_samplers():
                cells.append(_cpu(lambda: [draw(size, Fraction(27), rng) for _ in range(calls)], repeats))
        flt = _cpu(lambda: [rng.normal(0.0, 27.0, size) for _ in range(calls)], repeats)
        lines.append(f"| {size:,} | " + " | ".join(f"{c * per:.2f}" for c in cells) + f" | {flt * per:.3f} |")
    return lines


def complete_release(repeats: int) -> list[str]:
    X = np.random.default_rng(0).normal(size=(100_000, 20)) * np.r_[3, 2, 1.5, np.full(17, 0.3)] / 8
    split = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1)

    def release(seed):
        return lambda: dc.release_pca("analyze_gauss", X, 3, 1.0, 1e-6, budget=split, center="private", seed=seed)

    exact_seeded = _cpu(release(0), repeats)
    exact_fresh = _cpu(release(None), repeats)
    with float_noise():
        float_seeded = _cpu(release(0), repeats)
    floor = _cpu(lambda: np.linalg.eigh(X.T @ X), repeats)
    return [
        "| complete release, n = 100,000, d = 20 | CPU ms | over float noise |",
        "|---|---|---|",
        f"| float sums and numpy float noise (before) | {float_seeded * 1e3:.1f} | 1.00 |",
        f"| exact sums and exact noise, seeded | {exact_seeded * 1e3:.1f} | {exact_seeded / float_seeded:.2f} |",
        f"| exact, fresh randomness (ChaCha20) | {exact_fresh * 1e3:.1f} | {exact_fresh / float_seeded:.2f} |",
        f"| the floor: eigh(X^T X) | {floor * 1e3:.1f} | {floor / float_seeded:.2f} |",
    ]


def matrix_noise(repeats: int) -> list[str]:
    lines = ["| d | exact draws for a d x d matrix, ms | eigh(d x d), ms |", "|---|---|---|"]
    for d in (20, 100, 500):
        m = d * (d + 1) // 2
        rng = np.random.default_rng(0)
        draws = _cpu(lambda: exact.rounded_normal(m, Fraction(2**21), rng), max(1, repeats // 2))
        A = rng.normal(size=(d, d))
        A = A + A.T
        eig = _cpu(lambda: np.linalg.eigh(A), repeats)
        lines.append(f"| {d} | {draws * 1e3:.1f} | {eig * 1e3:.2f} |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    from dppca_core.compiled.kernels import warm_up

    warm_up()  # the compiled samplers loaded once, as in any process that makes many releases
    print(
        f"<!-- generated by: python benchmarks/exact_noise.py --repeats {args.repeats} ({datetime.date.today()}, "
        f"{platform.machine()}, Python {platform.python_version()}) -->"
    )
    for title, table in (
        ("Exact samplers", samplers),
        ("A complete release", complete_release),
        ("Exact noise on a whole matrix (not done: see docs/privacy.md#numerics)", matrix_noise),
    ):
        print(f"\n**{title}**\n")
        print("\n".join(table(args.repeats)))


if __name__ == "__main__":
    main()

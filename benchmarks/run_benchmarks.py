"""Cost of every mechanism and of a complete release against the floor (X^T X + eigh), audit throughput, the
peers, and streaming a large CSV, in one run.

    python benchmarks/run_benchmarks.py --out docs/benchmarks.md     # full run (about an hour)
    python benchmarks/run_benchmarks.py --quick                      # small grid, small file (a minute or two)

Every time is process CPU time (with wall time beside it), the median of repeats after a warm-up, with the
spread (max - min) / median of the CPU times. Ratios are to the floor measured in the same process on the
same data: np.linalg.eigh(X.T @ X). BLAS runs on one thread by default (--threads) so that CPU time means
the same for the floor and for the mechanisms on a shared machine. Peer libraries (requirements-bench.txt)
and the streaming runs are child processes: the peers get a time limit (DNF when they exceed it), the
streaming runs report their own peak resident memory (getrusage).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import dppca_core as dc  # noqa: E402
from dppca_core import metrics  # noqa: E402
from dppca_core.data.datasets import spiked_covariance  # noqa: E402

EPSILON, DELTA, K = 1.0, 1e-6, 5
#: cells with n d^2 above this are skipped: the floor alone would take minutes per repeat
MAX_WORK = 2.5e10
#: a mechanism whose run is predicted (from smaller cells) to take longer than this many CPU seconds is skipped
RUN_LIMIT = 40.0
PEER_LIMIT = 60.0


# ---------------------------------------------------------------------------------------------- timing


class Timing:
    """CPU and wall times of repeats; ``baseline``: the floor timed alternately with them (see :func:`measure`)."""

    def __init__(self, cpu: list, wall: list, baseline: "Timing | None" = None):
        self.cpu, self.wall, self.baseline = cpu, wall, baseline

    @property
    def median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def spread(self) -> float | None:
        return (max(self.cpu) - min(self.cpu)) / self.median if len(self.cpu) > 1 and self.median > 0 else None


def _timed(fn) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def measure(fn, min_repeats=3, max_repeats=9, budget=3.0, baseline=None) -> Timing:
    """Median of repeats after a warm-up; a run over 5 CPU s is measured once (its warm-up is the measurement).

    With a ``baseline`` (the floor), every repeat times the baseline just before ``fn``, so that a ratio of
    the two medians compares runs made under the same load: on a shared machine the speed drifts between
    cells, which a floor measured once per cell would put into every ratio.
    """
    first_cpu, first_wall = _timed(fn)
    if first_cpu > 5.0:
        return Timing([first_cpu], [first_wall], None if baseline is None else measure(baseline))
    cpu, wall, base_cpu, base_wall = [], [], [], []
    while len(cpu) < min_repeats or (sum(cpu) < budget and len(cpu) < max_repeats):
        if baseline is not None:
            c, w = _timed(baseline)
            base_cpu.append(c), base_wall.append(w)
        c, w = _timed(fn)
        cpu.append(c), wall.append(w)
    return Timing(cpu, wall, Timing(base_cpu, base_wall) if baseline is not None else None)


def paired_floor(results, cell, mech) -> Timing:
    """The floor timed alternately with ``mech`` (the cell's own floor for timings without a pair)."""
    return results[(cell, mech)][0].baseline or results[(cell, "floor")][0]


def floor_ratio(results, cell, mech, wall=False) -> float:
    """The mechanism's median time over the floor's, both from the alternating repeats."""
    t, base = results[(cell, mech)][0], paired_floor(results, cell, mech)
    return t.wall_median / base.wall_median if wall else t.median / base.median


def fmt_s(seconds: float) -> str:
    if seconds >= 100:
        return f"{seconds:.0f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.3g} ms"


def fmt_spread(t: Timing) -> str:
    return "1 run" if t.spread is None else f"±{100 * t.spread / 2:.0f}%"


# ------------------------------------------------------------------------------------------ mechanisms


def exact_subspace(X, k):
    gram = dc.prepare(X).gram
    vals, vecs = np.linalg.eigh(gram)
    return vecs[:, ::-1][:, :k]


#: Work a mechanism's privacy proof itself requires beyond the floor: one-pass mechanisms read every row once in a
#: data-independent random order ("pass"), Private Oja also draws one d-dimensional Gaussian per row ("noise").
#: Their second ratio divides by the floor plus this work, measured in the same process on the same data.
REQUIRED_WORK = {"private_oja": ("pass", "noise"), "dp_pca": ("pass",)}
CHUNK = 8192


def random_order_pass(X, rng):
    """A uniformly random permutation and every row gathered in that order, a chunk at a time."""
    order = rng.permutation(X.shape[0])
    for a in range(0, X.shape[0], CHUNK):
        X[order[a : a + CHUNK]]


def per_row_noise(X, rng):
    """One standard normal vector of length d per row, a chunk at a time."""
    for a in range(0, X.shape[0], CHUNK):
        rng.standard_normal((min(CHUNK, X.shape[0] - a), X.shape[1]))


def required_floor(results, cell, mech):
    """CPU seconds of the floor plus the work ``mech``'s proof requires (None for the other mechanisms)."""
    if mech not in REQUIRED_WORK:
        return None
    return paired_floor(results, cell, mech).median + sum(results[(cell, w)][0].median for w in REQUIRED_WORK[mech])


def mechanism_table(grid_n, grid_d, out):
    mechs = dc.mechanism_names("pca")
    results, notes = {}, []
    for d in grid_d:
        for n in grid_n:
            cell = (n, d)
            if n * d * d > MAX_WORK:
                notes.append(
                    f"n = {n:,}, d = {d}: skipped (one X^T X alone is {n * d * d * 2:.1e} flops, minutes "
                    "per repeat on this machine)."
                )
                continue
            X = spiked_covariance(n=n, d=d, k=K, seed=0).X
            floor_fn = lambda: np.linalg.eigh(X.T @ X)  # noqa: E731
            floor = measure(floor_fn)
            truth = exact_subspace(X, K)
            results[(cell, "floor")] = (floor, None)
            gen = np.random.default_rng(0)  # PCG64, the generator of the seeded runs timed here (section 10: fresh)
            results[(cell, "pass")] = (measure(lambda: random_order_pass(X, gen), baseline=floor_fn), None)
            results[(cell, "noise")] = (measure(lambda: per_row_noise(X, gen), baseline=floor_fn), None)
            print(f"  n={n:,} d={d}: floor {fmt_s(floor.median)} CPU", file=sys.stderr, flush=True)
            for mech in mechs + ["analyze_gauss (cached Gram)"]:
                predicted = _predict(results, mech, n, d)
                if predicted is not None and predicted > RUN_LIMIT:
                    results[(cell, mech)] = (None, f"skipped (about {predicted:.0f} s per run predicted)")
                    continue
                seeds = iter(range(10**6))
                if mech == "analyze_gauss (cached Gram)":
                    prepared = dc.prepare(X)
                    prepared.gram  # noqa: B018  (built once, shared by every repetition)
                    k = K
                    fn = lambda: dc.run("analyze_gauss", prepared, K, EPSILON, DELTA, seed=next(seeds))  # noqa: E731
                else:
                    max_k = dc.get_mechanism(mech).max_k
                    k = K if max_k is None else min(K, max_k)
                    fn = lambda: dc.run(mech, X, k, EPSILON, DELTA, seed=next(seeds))  # noqa: E731
                try:
                    t = measure(fn, baseline=floor_fn)
                    err = metrics.subspace_distance(fn().components, truth[:, :k])
                    results[(cell, mech)] = (t, err)
                    print(
                        f"    {mech}: {fmt_s(t.median)} ({floor_ratio(results, cell, mech):.2f}x)",
                        file=sys.stderr,
                        flush=True,
                    )
                except ValueError as exc:
                    results[(cell, mech)] = (None, f"refused: {str(exc)[:80]}")
            X = None  # frees the table before the next size (the lambdas above are done with it)
    cells = [(n, d) for d in grid_d for n in grid_n if ((n, d), "floor") in results]
    out.append("## 1. Mechanisms against the floor\n")
    out.append(
        "CPU time of `dc.run(mechanism, X, k=5, epsilon=1, delta=1e-6, seed=s)` (seeded: numpy's PCG64, whose "
        "draws cost less than the ChaCha20 and AES of a release to publish, which section 10 times; k = 1 for the "
        "mechanisms that "
        "estimate the top eigenvector only: private_oja, dp_pca) from raw X (clipping and the Gram "
        "matrix included), divided by the CPU time of the floor `np.linalg.eigh(X.T @ X)` on the same data "
        "(spiked covariance, rows clipped to norm 1). Each repeat of a mechanism runs just after a repeat of "
        "the floor, and a ratio is of the two medians, so both sides ran under the same load (the floor row "
        "shows the floor's own first measurement). `analyze_gauss (cached Gram)` is one more repetition "
        "on a `PreparedData` whose Gram matrix is already built (how the app's repetitions run).\n"
    )
    header = "| mechanism | " + " | ".join(f"n={n:.0e}, d={d}" for n, d in cells) + " |"
    out.append(header)
    out.append("|---|" + "---:|" * len(cells))
    floor_row = (
        "| floor (X^T X + eigh), CPU | " + " | ".join(fmt_s(results[(c, "floor")][0].median) for c in cells) + " |"
    )
    out.append(floor_row)
    for what, label in (
        ("pass", "random-order pass (permutation + gather), CPU"),
        ("noise", "one Gaussian vector per row (PCG64), CPU"),
    ):
        out.append(f"| {label} | " + " | ".join(fmt_s(results[(c, what)][0].median) for c in cells) + " |")
    for mech in mechs + ["analyze_gauss (cached Gram)"]:
        row = []
        for c in cells:
            t, extra = results.get((c, mech), (None, "—"))
            required = required_floor(results, c, mech)
            cell_text = "—" if t is None else f"{floor_ratio(results, c, mech):.2f}"
            if t is not None and required is not None:
                cell_text += f" ({t.median / required:.2f})"
            row.append(cell_text)
        out.append(f"| {mech} | " + " | ".join(row) + " |")
    out.append("\n— : skipped or refused (see the details). " + " ".join(notes) + "\n")
    out.append(
        "In brackets, for the one-pass mechanisms: the ratio to the floor plus the work their proof requires "
        "and X^T X + eigh does not do (the two rows under the floor). Private Oja's guarantee rests on one "
        "noisy step per row in a data-independent random order, so it must draw n d normal values and read "
        "every row once in random order; DP-PCA reads every row once in random order, batch by batch. At "
        "d = 20, where X^T X is cheap (n d^2 flops at BLAS speed), the two rows under the floor are already "
        "comparable to it or several times larger, so neither mechanism can come within 3x of the plain "
        "floor there, however it is implemented; the bracketed ratio says how close this implementation "
        "comes to what its proof demands.\n"
    )
    out.append(
        "Details: median CPU time, its spread (half the range of the repeats, as a % of the median), wall "
        "time, both ratios to the floor, and the subspace error ‖sin Θ‖_F against the exact top-k subspace.\n"
    )
    out.append("| n | d | mechanism | CPU | spread | wall | CPU / floor | wall / floor | error |")
    out.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for c in cells:
        floor = results[(c, "floor")][0]
        out.append(
            f"| {c[0]:,} | {c[1]} | floor | {fmt_s(floor.median)} | {fmt_spread(floor)} | "
            f"{fmt_s(floor.wall_median)} | 1 | 1 | |"
        )
        for what in ("pass", "noise"):
            t = results[(c, what)][0]
            out.append(
                f"| {c[0]:,} | {c[1]} | {what} (see above) | {fmt_s(t.median)} | {fmt_spread(t)} | "
                f"{fmt_s(t.wall_median)} | {floor_ratio(results, c, what):.2f} | "
                f"{floor_ratio(results, c, what, wall=True):.2f} | |"
            )
        for mech in mechs + ["analyze_gauss (cached Gram)"]:
            t, extra = results.get((c, mech), (None, "—"))
            if t is None:
                out.append(f"| {c[0]:,} | {c[1]} | {mech} | {extra} | | | | | |")
                continue
            out.append(
                f"| {c[0]:,} | {c[1]} | {mech} | {fmt_s(t.median)} | {fmt_spread(t)} | {fmt_s(t.wall_median)} | "
                f"{floor_ratio(results, c, mech):.2f} | {floor_ratio(results, c, mech, wall=True):.2f} | "
                f"{extra:.3f} |"
            )
    out.append("")
    return results, cells


def _predict(results, mech, n, d):
    """CPU seconds of one run, extrapolated from a smaller cell measured: linear in n from the largest cell of
    the same d when there is one, else cubic in d (pessimistic: most mechanisms cost n d^2 or n d)."""
    best = None
    for (cell, name), (t, _) in results.items():
        if name != mech or t is None:
            continue
        n0, d0 = cell
        if n0 <= n and d0 <= d:
            guess = t.median * (n / n0) * (d / d0) ** 3
            rank = (d0 == d, n0, d0)
            if best is None or rank > best[0]:
                best = (rank, guess)
    return None if best is None else best[1]


def threads_table(n, d, reps, out):
    """Wall time of ``reps`` repetitions (experiments.repeat) on one thread and on two, BLAS on every core."""
    from threadpoolctl import threadpool_limits

    from dppca_core.pipeline import experiments

    X = spiked_covariance(n=n, d=d, k=K, seed=0).X
    data = dc.prepare(X)
    reference = experiments.Reference.of(data)
    out.append("## 2. Repetitions on both cores\n")
    out.append(
        f"Wall time of {reps} repetitions (`experiments.repeat`, as the app runs them; median of three) at "
        f"n = {n:,}, d = {d}, "
        "with BLAS free to use every core, on one thread and on two (`workers=2`). Mechanisms marked "
        "`threaded_reps` in the registry get two threads by default when one repetition takes at least "
        f"{experiments.THREADED_MIN_SECONDS * 1000:.0f} ms: their time goes to loops that release Python's "
        "lock (a compiled sequential pass, row gathers). For the others BLAS already keeps both cores busy, "
        "and two threads on top make them slower.\n"
    )
    out.append("| mechanism | threaded_reps | one thread | two threads | speedup |")
    out.append("|---|:---:|---:|---:|---:|")
    with threadpool_limits(limits=os.cpu_count()):
        for mech in dc.mechanism_names("pca"):
            spec = dc.get_mechanism(mech)
            k = K if spec.max_k is None else min(K, spec.max_k)
            timed = {}
            options = dc.ReleaseOptions(k=k, epsilon=EPSILON, delta=DELTA)
            try:
                for workers in (1, 2):
                    experiments.repeat(
                        mech, data, options, reps=2, seed=0, reference=reference, workers=workers
                    )  # warm-up (compiles numba kernels)
                    walls = []
                    for _ in range(3):
                        w0 = time.perf_counter()
                        experiments.repeat(mech, data, options, reps=reps, seed=1, reference=reference, workers=workers)
                        walls.append(time.perf_counter() - w0)
                    timed[workers] = statistics.median(walls)
            except ValueError as exc:
                out.append(f"| {mech} | | refused: {str(exc)[:60]} | | |")
                continue
            out.append(
                f"| {mech} | {'yes' if spec.threaded_reps else ''} | {fmt_s(timed[1])} | {fmt_s(timed[2])} | "
                f"{timed[1] / timed[2]:.2f} |"
            )
            print(f"    threads {mech}: {timed[1] / timed[2]:.2f}", file=sys.stderr, flush=True)
    out.append("")


def gibbs_table(dims, out):
    from dppca_core.privacy.bingham import sample_matrix_bingham

    out.append("## 3. Exponential-mechanism samplers: cost per Gibbs sweep\n")
    out.append(
        "`ppca_exponential` (k > 1) runs Hoff's Gibbs sampler (200 sweeps by default); each sweep redraws "
        "the k columns exactly. CPU time per sweep of `sample_matrix_bingham` on B = (eps/2) X^T X of the "
        "spiked data (n = 10,000, k = 5), median of 3 runs of 20 sweeps:\n"
    )
    out.append("| d | CPU per sweep | CPU per column update | acceptance rate | eigenvalue solves / updates |")
    out.append("|---:|---:|---:|---:|---:|")
    for d in dims:
        X = spiked_covariance(n=10_000, d=d, k=K, seed=0).X
        B = 0.5 * EPSILON * dc.prepare(X).gram
        info = {}

        def run():
            info.update(sample_matrix_bingham(B, K, np.random.default_rng(0), sweeps=20)[1])

        t = measure(run, min_repeats=3, max_repeats=3, budget=0)
        out.append(
            f"| {d} | {fmt_s(t.median / 20)} | {fmt_s(t.median / 20 / K)} | {info['acceptance_rate']:.3f} | "
            f"{info['eigen_solves']} / {20 * K} |"
        )
    out.append(
        "\nA sweep costs about k (q^3/3 + 4 k d^2) flops (a Cholesky factor per column, Householder "
        "compression) plus an eigenvalue solve for about one column in ten after the first 3 sweeps "
        "(q = d - k + 1): cubic in d; 200 sweeps are 200 times the figure above.\n"
    )


# ------------------------------------------------------------------------------------- complete releases


#: the two complete releases of issue 43: "basic" publishes a private mean, the components, their variances and a
#: score plot; "every private choice" also chooses the clipping radius, the column scales and k privately
RELEASES = {
    "basic": dict(k=K, center="private", extras=dict(mean=0.1, eigenvalues=0.1, scores=0.1)),
    "every private choice": dict(
        k="auto",
        center="private",
        data_norm="private",
        scale="private",
        variance_target=0.9,
        extras=dict(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, scale=0.1),
    ),
}


def traced_peak(fn) -> int:
    """tracemalloc's peak over one run of ``fn`` (numpy's allocations included), in bytes."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def complete_release(X, kind: str, seed=None):
    """``release_pca`` of Analyze Gauss as a release to publish (fresh ChaCha20 randomness unless ``seed``)."""
    options = dict(RELEASES[kind])
    extras, k = options.pop("extras"), options.pop("k")
    if options.get("scale") == "private":
        options["column_bounds"] = np.ones(X.shape[1])  # public: the spiked rows are clipped to norm 1
    return dc.release_pca(
        "analyze_gauss", X, k, EPSILON, DELTA, seed=seed, budget=dc.BudgetSplit.with_extras(**extras), **options
    )


def releases_table(grid_n, grid_d, out):
    """CPU time of a complete release (every step from the raw table to what is published) over the floor."""
    results = {}
    for d in grid_d:
        for n in grid_n:
            if n * d * d > MAX_WORK:
                continue
            X = spiked_covariance(n=n, d=d, k=K, seed=0).X
            floor_fn = lambda: np.linalg.eigh(X.T @ X)  # noqa: E731
            for kind in RELEASES:
                t = measure(lambda: complete_release(X, kind), baseline=floor_fn)
                t.peak, t.table = traced_peak(lambda: complete_release(X, kind)), X.nbytes
                results[((n, d), kind)] = t
                print(
                    f"  release {kind} n={n:,} d={d}: {fmt_s(t.median)} ({t.median / t.baseline.median:.1f}x)",
                    file=sys.stderr,
                    flush=True,
                )
            X = None  # frees the table before the next size (the lambdas above are done with it)
    cells = sorted({cell for cell, _ in results}, key=lambda c: (c[1], c[0]))
    out.append("## 6. A complete release against the floor\n")
    out.append(
        'CPU time of `release_pca("analyze_gauss", X, ...)` with fresh randomness (`seed=None`, ChaCha20: '
        "the release one publishes), from the raw table to the `Release`, over the floor "
        "`np.linalg.eigh(X.T @ X)` timed alternately with it on the same data. **basic**: a private mean, "
        "the k = 5 components, their private variances and a private score plot, 10% of the budget to each "
        "extra. **every private choice**: also the clipping radius, the column scales (public bounds 1) and "
        'k (`k="auto"`, variance target 0.9: all d components and their variances are released, then k '
        "chosen from them) privately, 10% each. Peak memory: tracemalloc's peak over one more run (numpy's "
        "allocations included), beside the table's own size.\n"
    )
    out.append("| release | " + " | ".join(f"n={n:.0e}, d={d}" for n, d in cells) + " |")
    out.append("|---|" + "---:|" * len(cells))
    out.append(
        "| floor (X^T X + eigh), CPU | "
        + " | ".join(fmt_s(results[(c, "basic")].baseline.median) for c in cells)
        + " |"
    )
    for kind in RELEASES:
        out.append(f"| {kind}, CPU | " + " | ".join(fmt_s(results[(c, kind)].median) for c in cells) + " |")
        out.append(
            f"| {kind} / floor | "
            + " | ".join(f"{results[(c, kind)].median / results[(c, kind)].baseline.median:.1f}" for c in cells)
            + " |"
        )
    out.append(
        "| the table's size | " + " | ".join(f"{results[(c, 'basic')].table / 1e6:.3g} MB" for c in cells) + " |"
    )
    for kind in RELEASES:
        out.append(
            f"| {kind}, peak memory | " + " | ".join(f"{results[(c, kind)].peak / 1e6:.3g} MB" for c in cells) + " |"
        )
    out.append(
        "\nWhere the time goes at d = 20 (`python benchmarks/release_speed.py --cells 100000x20 1000000x20 --parts`: "
        "each part alone, over the floor timed just before it; a run at load about 1 on the machine of section 10, "
        "n = 1e5 then 1e6). The floor reads X once. A basic release reads it in full twice. The first pass takes "
        "each row's norm and clip factor (one compiled pass each), sums the clipped rows exactly for the private "
        "mean (integers on a fixed-point grid, so that the mean's noise does not depend on n) and, up to 32 columns, "
        "adds them to the Gram matrix G block by block while the block is in cache: 1.5x the floor, of which G is "
        "the floor's own product. The rows are then not centred one by one: the centred rows' Gram matrix is "
        "G - S m^T - m S^T + n m m^T, corrected by the few rows the private mean m pushes beyond R, which the norms "
        "kept from the first pass find in one compiled pass (`dppca_core.data.centring`, the same clipped rows bit "
        "for bit: 0.15x, 0.05x). The variances along the components are read off that Gram matrix (V^T C V: d^2 k "
        "operations; under replace-one, where its rounding bound, a function of n and d, is below 0.1% of the "
        "sensitivity: `dppca_core.pipeline.parts.reads_the_gram`). The score plot finds each row's cell from its "
        "projection on two components in a fixed order (each row's cell depends on that row alone; each centred row "
        "formed in a buffer from its raw row, the bits the formed rows give): the second read, 0.7x, 0.64x. The rest is the "
        "exact noise of each part with its ChaCha20 generator (about 1.3 ms whatever n) and the eigendecompositions. "
        "With every private choice no scaled copy of the table is formed (issue 64: it took the table's size in "
        "memory, and the kernel's zeroing of its pages grew with the load): the column scales' pass of clipped "
        "squares (0.24x, 0.23x); the private radius's pass, each block divided by the column scales as it is read "
        "and its rows' norms taken (0.39x, 0.36x); the first pass, each entry divided once for the exact sums and "
        "the rows the Gram matrix reads, about one row in ten clipped (1.5x, 1.2x); the centring, which with about "
        "one row in ten on the sphere after clipping checks x_i . m for many more rows (0.43x, 0.47x); the cells, "
        "whose rows are divided again as they are formed (0.81x, 0.77x). A division costs about 0.3x the floor "
        "per pass over the table here, a copy of it more (at 1e6 x 20: the copy, its page faults and its norms 1.66x "
        "against the divided norms' 0.36x, paired, load 5-6). Peak memory: a few blocks of rows and a few floats "
        "per row. At d = 100 the floor's n d^2 work dominates; the centred rows are kept as their parts there too "
        "(their Gram matrix from one pass over blocks), so no copy of the table is formed at any width.\n"
    )
    return results


# ----------------------------------------------------------------------------------------- audit throughput


#: (mechanism, trials) of the audit throughput table; Analyze Gauss and MOD-SuLQ have a batch path
AUDITS = (
    ("analyze_gauss", 20_000),
    ("mod_sulq", 20_000),
    ("private_power", 2_000),
    ("ldp_gaussian", 2_000),
    ("private_oja", 1_000),
)


def audit_table(quick: bool, out):
    """Trials per CPU second of ``audit`` at d = 2, n = 20, through the batch path where there is one, and for
    Analyze Gauss also one release per trial (the batch path switched off), in the same run."""
    from dppca_core.audit import audit, core

    def timed(mech, trials):
        audit(mech, EPSILON, DELTA, trials=100, seed=0)  # warm-up
        c0 = time.process_time()
        audit(mech, EPSILON, DELTA, trials=trials, seed=0)
        return time.process_time() - c0

    rows = []
    for mech, trials in AUDITS:
        trials = trials if not quick or trials <= 2_000 else trials // 2
        batched = dc.get_mechanism(mech).audit_batch is not None
        rows.append((mech, "batched" if batched else "one release per trial", trials, timed(mech, trials)))
        if batched and mech == "analyze_gauss":
            saved = core._MechanismRelease.batched
            core._MechanismRelease.batched = property(lambda self: False)
            try:
                rows.append((mech, "one release per trial (batch path off)", 2_000, timed(mech, 2_000)))
            finally:
                core._MechanismRelease.batched = saved
        if mech == "analyze_gauss" and not quick:
            rows.append((mech, "batched", 100_000, timed(mech, 100_000)))
    out.append("## 7. Audit throughput\n")
    out.append(
        "Trials per CPU second of `audit(mechanism, epsilon=1, delta=1e-6, trials=T, d=2, n=20)` (a trial is "
        "one release on each of the two neighbouring datasets; the time includes choosing the threshold and "
        "the bounds). Mechanisms with a batch path in the registry (`audit_batch`) run their trials in "
        "batches, without a `Release` per trial, with the same seeds and the same result (tested); the "
        "others make one full release per trial.\n"
    )
    out.append("| mechanism | path | trials | CPU | trials per CPU second |")
    out.append("|---|---|---:|---:|---:|")
    for mech, path, trials, cpu in rows:
        out.append(f"| {mech} | {path} | {trials:,} | {fmt_s(cpu)} | {trials / cpu:,.0f} |")
    out.append("")
    return rows


# ----------------------------------------------------------------------------------------------- peers


PEER_CODE = textwrap.dedent("""
    import json, resource, sys, time, warnings
    import numpy as np
    warnings.filterwarnings("ignore")
    name, path, k, eps = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    X = np.load(path)
    c0, w0 = time.process_time(), time.perf_counter()
    if name == "diffprivlib PCA":
        from diffprivlib.models import PCA
        model = PCA(n_components=k, epsilon=eps, data_norm=1.0, centered=False, random_state=0).fit(X)
    elif name == "OpenDP PCA":
        import opendp.prelude as dp
        from opendp.extras.sklearn.decomposition import PCA
        dp.enable_features("contrib", "idealized-numerics", "honest-but-curious")
        model = PCA(epsilon=eps, row_norm=1.0, n_samples=X.shape[0], n_features=X.shape[1], n_components=k).fit(X)
    else:
        from sklearn.decomposition import PCA
        model = PCA(k, svd_solver=name.split()[-1].strip("()"), random_state=0).fit(X)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    np.save(path + ".out.npy", np.asarray(model.components_).T)
    print(json.dumps({"cpu": cpu, "wall": wall}))
""")


def run_peer(name, path, k):
    try:
        proc = subprocess.run(
            [sys.executable, "-c", PEER_CODE, name, str(path), str(k), str(EPSILON)],
            capture_output=True,
            text=True,
            timeout=PEER_LIMIT,
        )
    except subprocess.TimeoutExpired:
        return None, f"DNF (> {PEER_LIMIT:.0f} s wall)"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"error: {last[:110]}"
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    return times, np.load(str(path) + ".out.npy")


def peers_table(sizes, tmp, out):
    out.append("## 4. Peers\n")
    out.append(
        f"Each peer runs in a child process with a {PEER_LIMIT:.0f} s limit (DNF beyond it); scikit-learn "
        "PCA is the non-private reference (it centres the data; the spiked data have mean about 0). The "
        "error is ‖sin Θ‖_F against the exact top-5 subspace of the clipped data; epsilon = 1.\n"
    )
    out.append("| n | d | method | CPU | wall | error | note |")
    out.append("|---:|---:|---|---:|---:|---:|---|")
    for n, d in sizes:
        X = spiked_covariance(n=n, d=d, k=K, seed=0).X
        truth = exact_subspace(X, K)
        path = Path(tmp) / f"peer-{n}-{d}.npy"
        np.save(path, X)
        floor = measure(lambda: np.linalg.eigh(X.T @ X))
        out.append(f"| {n:,} | {d} | floor (X^T X + eigh) | {fmt_s(floor.median)} | {fmt_s(floor.wall_median)} | | |")
        for mech in ("non_private", "analyze_gauss", "amin_iterative"):
            seeds = iter(range(10**6))
            t = measure(lambda: dc.run(mech, X, K, EPSILON, DELTA, seed=next(seeds)))
            err = metrics.subspace_distance(dc.run(mech, X, K, EPSILON, DELTA, seed=0).components, truth)
            out.append(
                f"| {n:,} | {d} | dppca_core {mech} | {fmt_s(t.median)} | {fmt_s(t.wall_median)} | {err:.3f} | |"
            )
        for peer in ("scikit-learn PCA (full)", "scikit-learn PCA (randomized)", "diffprivlib PCA", "OpenDP PCA"):
            times, result = run_peer(peer, path, K)
            if times is None:
                out.append(f"| {n:,} | {d} | {peer} | — | — | — | {result} |")
            else:
                err = metrics.subspace_distance(result, truth)
                note = "non-private, centred" if peer.startswith("scikit") else "epsilon = 1, one run"
                out.append(
                    f"| {n:,} | {d} | {peer} | {fmt_s(times['cpu'])} | {fmt_s(times['wall'])} | {err:.3f} | "
                    f"{note} |"
                )
    out.append("")


# ------------------------------------------------------------------------------------------- streaming


STREAM_CODE = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[3])
    what, path = sys.argv[1], sys.argv[2]
    import numpy as np, pandas as pd
    from dppca_core.data.stats import sufficient_stats

    def hwm():  # peak resident memory of this process image, MB (VmHWM; ru_maxrss would include the parent's)
        status = open("/proc/self/status").read()
        return int(status.split("VmHWM:")[1].split()[0]) / 1024

    imports = hwm()
    with open("/proc/self/clear_refs", "w") as fh:  # reset the peak to the current RSS
        fh.write("5")
    c0, w0 = time.process_time(), time.perf_counter()
    if what == "pandas.read_csv":
        rows = len(pd.read_csv(path))
    elif what == "imports only":
        rows = 0
    else:
        rows = sufficient_stats(path, data_norm=1.0).n
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(json.dumps({"cpu": cpu, "wall": wall, "rows": rows, "peak_mb": hwm(), "imports_mb": imports}))
""")


def child(what, path):
    proc = subprocess.run(
        [sys.executable, "-c", STREAM_CODE, what, str(path), str(ROOT)], capture_output=True, text=True, timeout=3600
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_csv(path, rows, d, chunk=250_000):
    import pandas as pd

    rng = np.random.default_rng(1)
    mix = rng.standard_normal((d, d)) / np.sqrt(d)
    with open(path, "w") as fh:
        for start in range(0, rows, chunk):
            m = min(chunk, rows - start)
            block = (rng.standard_normal((m, d)) * np.linspace(3, 0.5, d)) @ mix * 0.3
            pd.DataFrame(block, columns=[f"x{j}" for j in range(d)]).to_csv(
                fh, index=False, header=start == 0, float_format="%.7g"
            )


def prefix(src, dst, rows):
    """The header and the first ``rows`` data lines of src."""
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        for i, line in enumerate(fi):
            if i > rows:
                break
            fo.write(line)


def streaming_section(big_rows, d, tmp, out):
    big = Path(tmp) / f"stream-{big_rows}.csv"
    c0 = time.perf_counter()
    write_csv(big, big_rows, d)
    print(f"  wrote {big} in {time.perf_counter() - c0:.0f} s", file=sys.stderr, flush=True)
    sizes = [big_rows // 4, big_rows // 2, big_rows]
    files = {}
    for rows in sizes[:-1]:
        files[rows] = Path(tmp) / f"stream-{rows}.csv"
        prefix(big, files[rows], rows)
    files[big_rows] = big
    mb = {rows: files[rows].stat().st_size / 1e6 for rows in sizes}
    base = child("imports only", big)
    stats_runs = {rows: child("sufficient_stats", files[rows]) for rows in sizes}
    pandas_run = child("pandas.read_csv", big)
    s = stats_runs[big_rows]
    out.append("## 5. Streaming a large CSV into sufficient statistics\n")
    out.append(
        f"A {big_rows:,}-row x {d} CSV ({mb[big_rows]:.0f} MB, 7 significant digits per value) generated into "
        "a temporary folder; each read runs in a fresh child process, which reports its CPU and wall time "
        "and the peak resident memory of the read (VmHWM, reset after the imports: it includes the "
        f"{base['imports_mb']:.0f} MB that python, numpy, pandas, scipy, scikit-learn and dppca_core take "
        "once imported). The statistics use `sufficient_stats(path, data_norm=1.0)` (numpy engine, default "
        "chunks).\n"
    )
    out.append("| read | CPU | wall | MB/s (wall) | peak RSS |")
    out.append("|---|---:|---:|---:|---:|")
    out.append(f"| nothing (imports only) | | | | {base['peak_mb']:.0f} MB |")
    for name, r in (("pandas.read_csv (whole table in memory)", pandas_run), ("sufficient_stats (streamed)", s)):
        out.append(
            f"| {name} | {fmt_s(r['cpu'])} | {fmt_s(r['wall'])} | {mb[big_rows] / r['wall']:.0f} | "
            f"{r['peak_mb']:.0f} MB |"
        )
    out.append(
        f"\nThroughput of the statistics relative to pandas.read_csv on the same file: "
        f"{pandas_run['wall'] / s['wall']:.2f} (wall), {pandas_run['cpu'] / s['cpu']:.2f} (CPU).\n"
    )
    out.append("Peak memory and time against the number of rows (same columns, prefixes of the same file):\n")
    out.append("| rows | file | CPU | wall | CPU per million rows | peak RSS |")
    out.append("|---:|---:|---:|---:|---:|---:|")
    for rows in sizes:
        r = stats_runs[rows]
        out.append(
            f"| {rows:,} | {mb[rows]:.0f} MB | {fmt_s(r['cpu'])} | {fmt_s(r['wall'])} | "
            f"{fmt_s(r['cpu'] / rows * 1e6)} | {r['peak_mb']:.0f} MB |"
        )
    x = np.array(sizes, dtype=float)
    y = np.array([stats_runs[rows]["cpu"] for rows in sizes])
    slope, intercept = np.polyfit(x, y, 1)
    worst = float(np.max(np.abs(slope * x + intercept - y) / y))
    ten = slope * 10_000_000 + intercept
    verdict = (
        "growth is linear in the rows"
        if worst < 0.15
        else "the line fits loosely (noisy machine), so read the extrapolation as rough"
    )
    out.append(
        f"\nA straight line through the three CPU times (slope {slope * 1e6:.2f} s per million rows, "
        f"intercept {intercept:.2f} s) misses each by at most {100 * worst:.0f}%: {verdict}. "
        f"Extrapolated to 10,000,000 rows ({mb[big_rows] * 1e7 / big_rows / 1e3:.1f} GB): about {ten:.0f} s "
        "of CPU, with the same peak memory, which does not grow with the rows. The numpy engine parses a large "
        "CSV with two threads (workers=2 by default) when two cores are free, so its wall time can fall to "
        "about half its CPU time; on a busy machine the threads share one core and wall time is close to CPU "
        "time (compare the two columns above).\n"
    )
    return {
        "peak_mb": max(r["peak_mb"] for r in stats_runs.values()),
        "pandas_peak_mb": pandas_run["peak_mb"],
        "wall_ratio": pandas_run["wall"] / s["wall"],
        "cpu_ratio": pandas_run["cpu"] / s["cpu"],
        "ten_million_cpu": ten,
        "linear_fit_error": worst,
        "rows": big_rows,
        "d": d,
    }


def summary(results, cells, stream, out, releases=None, audits=None, paired_found=None):
    """The issue's targets against this run's figures (inserted after the header)."""
    lines = ["## Targets and results\n"]
    if paired_found:
        from paired import target_lines

        lines.extend(target_lines(paired_found))
    if releases:
        for kind, target in (("basic", 3.0), ("every private choice", 5.0)):
            figures = [
                (cell, t.median / t.baseline.median)
                for (cell, k), t in sorted(releases.items())
                if k == kind and cell[0] >= 100_000
            ]
            if figures:
                lines.append(
                    f"* a complete release ({kind}) within {target:g}x of the floor at n >= 1e5: "
                    + ", ".join(f"{r:.1f} (n={c[0]:.0e}, d={c[1]})" for c, r in figures)
                    + (": met." if all(r <= target for _, r in figures) else ": not met.")
                )
    if audits:
        ag = [
            (trials, trials / cpu)
            for mech, path, trials, cpu in audits
            if mech == "analyze_gauss" and path == "batched"
        ]
        lines.append(
            "* audit throughput >= 20,000 trials per CPU second for Analyze Gauss (d = 2, n = 20): "
            + ", ".join(f"{rate:,.0f} at {trials:,} trials" for trials, rate in ag)
            + (": met." if ag and all(rate >= 20_000 for _, rate in ag) else ": not met.")
        )
    if results:
        ag = [
            (c, floor_ratio(results, c, "analyze_gauss"))
            for c in cells
            if results.get((c, "analyze_gauss"), (None,))[0] is not None
        ]
        lines.append(
            "* analyze_gauss from raw X within 1.2x of the floor: "
            + ", ".join(f"{r:.2f} (n={c[0]:.0e}, d={c[1]})" for c, r in ag)
            + "."
        )
        over, over_required = [], []
        for c in cells:
            for mech in dc.mechanism_names("pca"):
                spec = dc.get_mechanism(mech)
                t = results.get((c, mech), (None,))[0]
                if spec.model == "central" and mech not in ("ppca_exponential", "amin_iterative") and t is not None:
                    ratio = floor_ratio(results, c, mech)
                    if ratio > 3:
                        over.append(f"{mech} {ratio:.1f} (n={c[0]:.0e}, d={c[1]})")
                    required = required_floor(results, c, mech)
                    if required is not None and t.median / required > 3:
                        over_required.append(f"{mech} {t.median / required:.1f} (n={c[0]:.0e}, d={c[1]})")
        lines.append(
            "* every central mechanism within 3x of the floor (exponential samplers apart): "
            + ("yes." if not over else "not met by " + "; ".join(over) + ".")
        )
        lines.append(
            "* the one-pass mechanisms (" + ", ".join(REQUIRED_WORK) + ") within 3x of the floor plus the "
            "random-order pass and noise their proof requires: "
            + ("yes." if not over_required else "not met by " + "; ".join(over_required) + ".")
        )
    if stream:
        lines.append(
            f"* streaming {stream['rows']:,} x {stream['d']} into sufficient statistics with peak RSS under 500 "
            "MB (the target is for 2,000,000 x 50): "
            f"{stream['peak_mb']:.0f} MB (pandas.read_csv of the same file: {stream['pandas_peak_mb']:.0f} MB)."
        )
        lines.append(
            f"* at least half of pandas' read throughput: {stream['cpu_ratio']:.2f} by CPU time, "
            f"{stream['wall_ratio']:.2f} by wall time."
        )
        lines.append(f"* 10 million rows, extrapolated: about {stream['ten_million_cpu']:.0f} CPU s, same memory.")
    lines.append("")
    out[2:2] = lines


# ------------------------------------------------------------------------------------------------ the report


def load_note(before, after) -> str:
    """A sentence on the machine's load average (1 minute) at the start and at the end of the run, or nothing."""
    if before is None or after is None:
        return ""
    busy = max(before[0], after[0]) > (os.cpu_count() or 1)
    return (
        f"\n\n**Load.** The load average (1 minute) was {before[0]:.1f} when the run began and {after[0]:.1f} when "
        f"it ended, on {os.cpu_count()} cores"
        + (
            ": other work shared the machine, so memory-bound steps above all are slower and noisier than on a "
            "quiet machine; ratios to the floor are of times taken alternately in the same process, which cancels "
            "part of it.\n"
            if busy
            else ".\n"
        )
    )


def _sections(text: str) -> list[tuple[str, str]]:
    """``text`` cut at its level-2 headings: (heading line, the section with its heading); the part before the first
    heading has the heading ""."""
    parts, heading, lines = [], "", []
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            parts.append((heading, "".join(lines)))
            heading, lines = line.strip(), []
        lines.append(line)
    parts.append((heading, "".join(lines)))
    return parts


def _number(heading: str) -> float:
    """The section number of a heading "## 6. ...", or 0 for an unnumbered one (they come first)."""
    head = heading[3:].split(".", 1)[0]
    return float(head) if head.isdigit() else 0.0


TARGETS = "## Targets and results"


def _merged_targets(previous: str, generated: str) -> str:
    """The targets section: the lines ``generated`` states, and each of ``previous``'s whose target (the text before
    its first colon) this run did not measure, in their order."""

    def key(line):
        return line.split(":", 1)[0]

    new = [line for line in generated.splitlines() if line.startswith("* ")]
    stated = {key(line) for line in new}
    lines = [line for line in previous.splitlines() if line.startswith("* ")]
    merged = [next(n for n in new if key(n) == key(line)) if key(line) in stated else line for line in lines]
    merged += [line for line in new if key(line) not in {key(old) for old in lines}]
    return TARGETS + "\n\n" + "\n".join(merged) + "\n\n"


def merged_report(previous: str, generated: str) -> str:
    """The report to write: ``generated`` (the header, the targets and the sections this run made) with every
    section of ``previous`` it does not make kept verbatim, in place (other scripts write sections 8 and 9 of
    docs/benchmarks.md). A section this run makes replaces the one of the same heading; a new one goes before the
    first kept section of a higher number."""
    made = dict(_sections(generated))
    if TARGETS in made and previous:  # a partial run states its own targets; the others' lines stay
        made[TARGETS] = _merged_targets(dict(_sections(previous)).get(TARGETS, ""), made[TARGETS])
    sections = [(h, made.get(h, body)) for h, body in _sections(previous) if h]
    for heading, body in _sections(generated):
        if heading and heading not in dict(sections):
            at = next((i for i, (h, _) in enumerate(sections) if _number(h) > _number(heading)), len(sections))
            sections.insert(at, (heading, body))
    text = made[""] + "".join(body if body.endswith("\n") else body + "\n" for _, body in sections)
    return text.rstrip("\n") + "\n"


# ------------------------------------------------------------------------------------------------ main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small grid and a 200,000-row file")
    parser.add_argument("--out", help="also write the report to this Markdown file")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument(
        "--sections", default="mechanisms,releases,audit,threads,gibbs,peers,streaming,paired", help="comma-separated"
    )
    args = parser.parse_args()
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(args.threads)
    from dppca_core.compiled.kernels import warm_up

    warm_up()  # numba's compiled kernels loaded once, as in any process that makes many releases
    sections = set(args.sections.split(","))
    grid_n = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    grid_d = (20, 100) if args.quick else (20, 100, 500)
    command = "python benchmarks/run_benchmarks.py " + " ".join(sys.argv[1:])
    if args.out:
        command = command.replace(args.out, os.path.relpath(args.out, ROOT) if os.path.isabs(args.out) else args.out)
    blas = ", ".join(
        f"{i['internal_api']} {i.get('version') or ''}".strip() for i in threadpool_info() if i["user_api"] == "blas"
    )
    from paired import machine

    out = [
        "# Benchmarks\n",
        f"Made by `{command.strip()}` on {time.strftime('%Y-%m-%d')}: {machine()}, "
        f"Python {platform.python_version()}, numpy {np.__version__} ({blas}), BLAS threads "
        f"{args.threads}. Times are process CPU time (wall beside it), medians of repeats after a warm-up; the "
        "machine is shared, so single figures carry noise (the spread column says how much). The compiled "
        "kernels (numba) are loaded before the first measurement (`dppca_core.compiled.kernels.warm_up`).\n",
    ]
    results, cells, stream, releases, audits, paired_found = {}, [], None, None, None, None
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory() as tmp:
        if "mechanisms" in sections:
            results, cells = mechanism_table(grid_n, grid_d, out)
        if "threads" in sections:
            threads_table(20_000 if args.quick else 100_000, 20, 4 if args.quick else 10, out)
        if "gibbs" in sections:
            gibbs_table((20, 100) if args.quick else (20, 100, 200, 500), out)
        if "peers" in sections:
            peers_table([(10_000, 20)] if args.quick else [(10_000, 20), (100_000, 100)], tmp, out)
        if "streaming" in sections:
            stream = streaming_section(200_000 if args.quick else 2_000_000, 50, tmp, out)
        if "releases" in sections:
            releases = releases_table(grid_n, [d for d in grid_d if d <= 100], out)
        if "audit" in sections:
            audits = audit_table(args.quick, out)
        if "paired" in sections:
            import paired

            paired_found = paired.section([(100_000, 20)] if args.quick else [(1_000_000, 20)], 9, out)
    out[1] += load_note(load_before, os.getloadavg() if hasattr(os, "getloadavg") else None)
    summary(results, cells, stream, out, releases, audits, paired_found)
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        previous = Path(args.out).read_text() if Path(args.out).exists() else ""
        Path(args.out).write_text(merged_report(previous, text))


if __name__ == "__main__":
    main()

"""Timing and accuracy of dppca_core against numpy, scikit-learn, diffprivlib and OpenDP, in one run.

    python benchmarks/run_benchmarks.py            # full grid
    python benchmarks/run_benchmarks.py --quick    # smallest problem only

Every time is the median over repeats after a warm-up; every private method is shown with its subspace
error against the non-private answer at the same epsilon, so speed is never read without accuracy.
Peer libraries run in a child process with a timeout: their vector-Bingham samplers can hang.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dppca_core as dc  # noqa: E402
from dppca_core import metrics  # noqa: E402
from dppca_core.datasets import spiked_covariance  # noqa: E402

EPSILON, DELTA, TIMEOUT = 1.0, 1e-6, 20.0


def timed(fn, repeats):
    fn()  # warm-up
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _peer_worker(name, X, k, queue):
    try:
        start = time.perf_counter()
        if name == "diffprivlib PCA":
            import warnings

            from diffprivlib.models import PCA
            warnings.filterwarnings("ignore")
            model = PCA(n_components=k, epsilon=EPSILON, data_norm=1.0, centered=False, random_state=0).fit(X)
        else:
            import opendp.prelude as dp
            from opendp.extras.sklearn.decomposition import PCA
            dp.enable_features("contrib", "idealized-numerics", "honest-but-curious")
            model = PCA(epsilon=EPSILON, row_norm=1.0, n_samples=X.shape[0], n_features=X.shape[1],
                        n_components=k).fit(X)
        queue.put((time.perf_counter() - start, np.asarray(model.components_).T))
    except Exception as exc:  # report, do not crash the table
        queue.put((None, f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:70] if str(exc) else ''}"))


def run_peer(name, X, k):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_peer_worker, args=(name, X, k, queue))
    proc.start()
    proc.join(TIMEOUT)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None, f"timeout (> {TIMEOUT:.0f} s)"
    return queue.get() if not queue.empty() else (None, "no result")


def rows_for(n, d, k, repeats):
    data = spiked_covariance(n=n, d=d, k=k, seed=0)
    X = data.X
    exact = dc.run("non_private", X, k, EPSILON).components
    rows = []

    def add(method, seconds, components=None, note=""):
        err = "" if components is None else f"{metrics.subspace_distance(components, exact):.3f}"
        rows.append((f"{n}x{d},k={k}", method, seconds, err, note))

    t, _ = timed(lambda: np.linalg.eigh(X.T @ X), repeats)
    add("numpy eigh(X^T X)", t, note="reference")
    from sklearn.decomposition import PCA
    for solver in ("full", "randomized"):
        t, model = timed(lambda: PCA(k, svd_solver=solver, random_state=0).fit(X), repeats)
        add(f"sklearn PCA ({solver})", t, note="centred")
    for mech in dc.mechanism_names():
        spec = dc.get_mechanism(mech)
        if spec.model != "central" or (mech == "ppca_exponential" and d > 50):
            continue
        if spec.max_k is not None and k > spec.max_k:
            continue
        t, rel = timed(lambda: dc.run(mech, X, k, EPSILON, DELTA, seed=0), repeats)
        add(f"dppca_core {mech}", t, rel.components, spec.guarantee)
    prepared = dc.prepare(X)
    t_cached, _ = timed(lambda: [dc.run("analyze_gauss", prepared, k, EPSILON, DELTA, seed=s) for s in range(50)], 1)
    t_raw, _ = timed(lambda: [dc.run("analyze_gauss", X, k, EPSILON, DELTA, seed=s) for s in range(50)], 1)
    add("50 x analyze_gauss, cached Gram", t_cached, note=f"{t_raw / t_cached:.1f}x faster than raw X")
    add("50 x analyze_gauss, raw X", t_raw)
    for peer in ("diffprivlib PCA", "OpenDP PCA"):
        seconds, result = run_peer(peer, X, k)
        if seconds is None:
            add(peer, float("nan"), note=result)
        else:
            add(peer, seconds, result, "single run")
    return rows


def dashboard_rows():
    """One Explore update (4 mechanisms x 20 repetitions) and one default epsilon sweep, on the default data."""
    data = spiked_covariance(seed=0)
    prepared = dc.prepare(data.X)
    mechs = ["analyze_gauss", "mod_sulq", "private_power", "amin_iterative"]

    def update():
        return [[metrics.subspace_distance(dc.run(m, prepared, 3, 1.0, DELTA, seed=s).components, data.components)
                 for s in range(20)] for m in mechs]

    def sweep():
        return [update for _ in np.logspace(-1, 1, 9)]

    t_update, _ = timed(update, 3)
    t_sweep, _ = timed(lambda: [[[dc.run(m, prepared, 3, e, DELTA, seed=s).components for s in range(20)]
                                 for m in mechs] for e in np.logspace(-1, 1, 9)], 1)
    return [("2000x20,k=3", "Explore update (4 mechanisms x 20 reps)", t_update, "", "default scenario"),
            ("2000x20,k=3", "Trade-offs sweep (9 epsilons x 4 mech. x 20 reps)", t_sweep, "", "default scenario")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    grid = [(2000, 20, 3)] if args.quick else [(2000, 20, 3), (20000, 50, 5), (100000, 100, 10)]
    print(f"# dppca_core benchmarks  ({time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, numpy {np.__version__}, epsilon={EPSILON}, delta={DELTA})\n")
    rows = [r for n, d, k in grid for r in rows_for(n, d, k, 3 if n < 50000 else 1)] + dashboard_rows()
    base = {r[0]: r[2] for r in rows if r[1] == "numpy eigh(X^T X)"}
    print("| problem | method | time (ms) | x numpy eigh | subspace error vs exact | note |")
    print("|---|---|---:|---:|---:|---|")
    for problem, method, seconds, err, note in rows:
        ratio = f"{seconds / base[problem]:.1f}" if problem in base and seconds == seconds else ""
        ms = "—" if seconds != seconds else f"{seconds * 1e3:.2f}"
        print(f"| {problem} | {method} | {ms} | {ratio} | {err} | {note} |")


if __name__ == "__main__":
    main()

"""Digests of every published field of seeded releases, to compare two versions of the code bit for bit on one
machine (tests/test_golden.py compares only the structure of a golden file recorded on another platform).

    python benchmarks/release_digests.py write before.json                 # in a checkout of main
    python benchmarks/release_digests.py write after.json                  # in this checkout
    python benchmarks/release_digests.py compare before.json after.json    # which cases and fields moved

The cases: the golden cases (tests/golden/cases.py, ``digest(case())``); the basic release and the release with
every private choice (benchmarks/run_benchmarks.py) at 1e5 x 20, 1e6 x 20 and 3e5 x 7, on spiked rows and on rows
with an offset, and one with heavy clipping; tail-sensitive (both routes), CoinPress and Private Oja; both releases
at 1e5 x 100 and 6e4 x 40; tail-sensitive, Private Oja and CoinPress in centred releases with column scales.
Each release is seeded (the digests of a fresh release would differ every time). Run it from the checkout's root.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dppca_core as dc  # noqa: E402
import run_benchmarks as rb  # noqa: E402
from dppca_core.data.datasets import spiked_covariance  # noqa: E402
from tests.golden.cases import all_cases, digest, release_fields  # noqa: E402


def golden() -> dict:
    out = {}
    for name, case in sorted(all_cases().items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["golden/" + name] = digest(case())
    return out


def large() -> dict:
    out = {}
    split = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, scale=0.1)
    for n, d in ((100_000, 20), (1_000_000, 20), (300_000, 7)):
        X = spiked_covariance(n=n, d=d, k=5, seed=0).X
        shifted = X * 0.8 + 0.3 / np.sqrt(d)  # an offset: the mean and the rows clipped again matter
        for kind in rb.RELEASES:
            for label, rows in (("spiked", X), ("offset", shifted)):
                out[f"release/{kind}/{label}/{n}x{d}"] = digest(release_fields(rb.complete_release(rows, kind, seed=7)))
        heavy = dc.release_pca(
            "analyze_gauss", shifted * 3, 3, 1.0, 1e-6, seed=3, center="private", data_norm="private",
            scale="private", column_bounds=np.full(d, 3.0), budget=split,
        )  # fmt: skip
        out[f"release/clipping/{n}x{d}"] = digest(release_fields(heavy))
        for mech in ("tail_sensitive", "coinpress", "private_oja"):
            run = dc.run(mech, X, 1 if mech == "private_oja" else 5, 1.0, 1e-6, seed=11)
            out[f"run/{mech}/{n}x{d}"] = digest(release_fields(run))
        auto = dc.run("tail_sensitive", X, 5, 1.0, 1e-6, seed=11, route="auto")
        out[f"run/tail_sensitive_auto/{n}x{d}"] = digest(release_fields(auto))
    return out


def wide() -> dict:
    out = {}
    extras = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1)
    for n, d in ((100_000, 100), (60_000, 40)):
        X = spiked_covariance(n=n, d=d, k=5, seed=0).X * 0.8 + 0.3 / np.sqrt(d)
        for kind in rb.RELEASES:
            out[f"wide/{kind}/{n}x{d}"] = digest(release_fields(rb.complete_release(X, kind, seed=5)))
        for mech in ("tail_sensitive", "private_oja", "coinpress"):
            release = dc.release_pca(
                mech, X, 1 if mech == "private_oja" else 3, 1.0, 1e-6, seed=9, center="private", scale="bounds",
                column_bounds=np.full(d, 0.9), budget=extras,
            )  # fmt: skip
            out[f"wide/release/{mech}/{n}x{d}"] = digest(release_fields(release))
    X = spiked_covariance(n=80_000, d=20, k=5, seed=1).X * 0.8 + 0.05
    split = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1, scale=0.1)
    for mech in ("tail_sensitive", "private_oja", "coinpress"):
        release = dc.release_pca(
            mech, X, 1 if mech == "private_oja" else 3, 1.0, 1e-6, seed=9, center="private", scale="private",
            column_bounds=np.full(20, 2.0), budget=split,
        )  # fmt: skip
        out[f"narrow/release/{mech}"] = digest(release_fields(release))
    return out


def compare(before: dict, after: dict) -> str:
    missing = sorted(set(before) ^ set(after))
    moved = {
        case: [field for field in before[case] if before[case][field]["exact"] != after[case][field]["exact"]]
        for case in sorted(set(before) & set(after))
    }
    moved = {case: fields for case, fields in moved.items() if fields}
    lines = [f"{len(before)} and {len(after)} cases; not in both: {missing or 'none'}"]
    lines += [f"moved: {case}: {', '.join(fields)}" for case, fields in moved.items()] or ["moved: none"]
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        from dppca_core.compiled.kernels import warm_up

        warm_up()
        found = {**golden(), **large(), **wide()}
        with open(sys.argv[2], "w") as fh:
            json.dump(found, fh, indent=1, sort_keys=True)
        print(f"{len(found)} digests written to {sys.argv[2]}")
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        with open(sys.argv[2]) as fa, open(sys.argv[3]) as fb:
            print(compare(json.load(fa), json.load(fb)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

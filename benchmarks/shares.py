"""What each share of a complete release buys, measured on the shipped samples and a larger synthetic table.

    python benchmarks/shares.py [--reps 50] [--epsilon 1]

Prints a Markdown table (docs/privacy.md#choices quotes it): for each optional part of
:func:`dppca_core.release_pca` at a 10% share of (epsilon, 1e-6), what it releases and how close that is to the
exact, non-private value, as the median over repetitions. The exact values are computed here from the raw data, for
the measurement only.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dppca_core as dc  # noqa: E402
from dppca_core import metrics  # noqa: E402
from dppca_core.figures import axis_edges  # noqa: E402
from dppca_core.pipeline.budget import BudgetSplit  # noqa: E402


def _synthetic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10_000, 10)) * np.r_[5.0, 3.0, 2.0, np.full(7, 0.7)] + np.r_[20.0, np.zeros(9)]
    return X, "synthetic (n = 10,000, d = 10)"


def _datasets():
    out = []
    for name in ("wine", "breast_cancer"):
        table = dc.data.datasets.load_sample(name)
        out.append((np.asarray(table.X, dtype=float), f"{name} (n = {table.X.shape[0]}, d = {table.X.shape[1]})"))
    out.append(_synthetic())
    return out


def _measure(X: np.ndarray, epsilon: float, reps: int) -> dict:
    """Each part alone at a 10% share, every other choice public: columns divided by public bounds, the public
    radius those bounds imply, no centring. The exact values the parts are compared with are computed here."""
    n, d = X.shape
    bounds = np.abs(X).max(axis=0) * 1.5  # stands in for public bounds (an analyst would read them off a codebook)
    Xb = X / bounds
    R = float(np.sqrt(d)) / 1.5  # every scaled entry is at most 1 / 1.5: a public bound on the row norms
    rms = np.sqrt((np.minimum(np.abs(X), bounds) ** 2).mean(axis=0))
    rows = {part: [] for part in LABELS}
    base = dict(scale="bounds", column_bounds=bounds)
    rows_b = dc.prepare(Xb, R).rows * R
    gram = rows_b.T @ rows_b
    for rep in range(reps):
        rel = dc.release_pca(
            "analyze_gauss",
            X,
            2,
            epsilon,
            1e-6,
            data_norm=R,
            scale="private",
            column_bounds=bounds,
            budget=BudgetSplit.with_extras(scale=0.1),
            seed=rep,
        )
        rows["scale"].append(float(np.median(np.abs(rel.outputs["column_scales"] / rms - 1.0))))
        rel = dc.release_pca(
            "analyze_gauss",
            X,
            2,
            epsilon,
            1e-6,
            data_norm="private",
            radius_bounds=(R / 1000, R),
            budget=BudgetSplit.with_extras(radius=0.1),
            seed=rep,
            **base,
        )
        rows["radius"].append(rel.parameters["data_norm"] / float(np.quantile(np.linalg.norm(Xb, axis=1), 0.9)))
        rel = dc.release_pca(
            "analyze_gauss",
            X,
            2,
            epsilon,
            1e-6,
            data_norm=R,
            center="private",
            budget=BudgetSplit.with_extras(mean=0.1),
            seed=rep,
            **base,
        )
        mean = rows_b.mean(axis=0)
        spread = float(np.sqrt(np.mean(np.sum((rows_b - mean) ** 2, axis=1))))
        rows["mean"].append(float(np.linalg.norm(rel.outputs["mean"] - mean)) / spread)
        rel = dc.release_pca(
            "analyze_gauss",
            X,
            2,
            epsilon,
            1e-6,
            data_norm=R,
            seed=rep,
            budget=BudgetSplit.with_extras(eigenvalues=0.1, scores=0.1),
            **base,
        )
        V = rel.components
        along = np.diag(V.T @ gram @ V) / np.trace(gram)
        rows["eigenvalues"].append(float(np.max(np.abs(rel.outputs["explained_variance_ratio"] - along))))
        counts = np.maximum(np.asarray(rel.outputs["scores"]["counts"], dtype=float), 0.0)
        x_edges, y_edges = axis_edges(rel.outputs["scores"]["edges"])
        proj = (rows_b / R) @ V[:, :2]
        true, _, _ = np.histogram2d(proj[:, 0], proj[:, 1], bins=[x_edges, y_edges])
        rows["scores"].append(0.5 * float(np.abs(counts / max(counts.sum(), 1) - true / true.sum()).sum()))
        rel = dc.release_pca("analyze_gauss", X, 2, epsilon, 1e-6, data_norm=R, seed=rep, **base)
        top = np.linalg.eigh(gram)[1][:, ::-1][:, :2]
        rows["subspace"].append(metrics.subspace_distance(top, rel.components))
    return {part: float(np.median(v)) for part, v in rows.items()}


LABELS = {
    "scale": ("scale", "per-column scales (root mean square)", "median relative error of the scales"),
    "radius": ("radius", "the clipping radius R (0.9-quantile of the row norms)", "R / exact quantile"),
    "mean": ("mean", "the centre", "error / root-mean-square spread of the rows"),
    "eigenvalues": ("eigenvalues", "variances along the components and the total", "max error of the 2 ratios"),
    "scores": ("scores", "2-D score histogram (default bins)", "total variation to the exact histogram"),
    "subspace": ("subspace (all of it)", "the 2 components (Analyze Gauss)", "subspace distance (0 best, 1.41 worst)"),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args(argv)
    data = _datasets()
    results = [_measure(X, args.epsilon, args.reps) for X, _ in data]
    print(
        f"<!-- generated by: python benchmarks/shares.py --reps {args.reps} --epsilon {args.epsilon:g} "
        f"({datetime.date.today()}, {platform.machine()}, Python {platform.python_version()}) -->"
    )
    print(
        f"Each part alone at a 10% share of (ε = {args.epsilon:g}, δ = 10⁻⁶), every other choice public (columns "
        f"divided by public bounds, the radius they imply, no centring); the last row spends the whole budget on the "
        f"subspace. Median over {args.reps} releases.\n"
    )
    print("| part | releases | measured as | " + " | ".join(name for _, name in data) + " |")
    print("|---|---|---|" + "---|" * len(data))
    for part, (label, what, how) in LABELS.items():
        cells = " | ".join(f"{r[part]:.3g}" for r in results)
        print(f"| {label} | {what} | {how} | {cells} |")


if __name__ == "__main__":
    main()

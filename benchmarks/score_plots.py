"""How well a private score plot separates labelled groups: the grouped plot on a private frame (new) against the
grouped plot on the public frame, additive, 24 x 24 (the previous design), on a three-group mixture and on the wine
sample.

    python benchmarks/score_plots.py [--reps 30] [--folds 10]

Prints a Markdown table (docs/score-plots.md holds it) and, under it, one line per dataset. Each repetition deals
the rows at random (seeded by the repetition, stratified by group) into ``--folds`` folds; each fold is held out once
while the grouped plot (the shares and options of the design) is released from the other folds, so every row is
judged by a release that never read it. Measures, median over repetitions (held-out accuracies of the plot with
their quartiles):

* **total variation** between each group's private histogram and the exact histogram of the same (release) rows on
  the same grid (both normalised; 0 = identical, 1 = disjoint), averaged over the groups and the folds: fidelity,
  in-sample;
* **in-sample accuracy**: each release row assigned by rule (a) below from the plot that counts it. It flatters fine
  grids: on a mostly empty grid a row's own count sits in its own group's cell, so the plot recalls single rows
  without showing that the groups separate;
* **held-out accuracy** of telling a row's group from the plot alone, each held-out row projected with the released
  mean and components (clipped as the release rows are; outside the frame, in the nearest edge cell):
  (a) *cell rule*: the group whose private histogram (negatives to 0, normalised, times the group's private share of
  the counts) is highest at the row's cell; ties, empty cells included, go to the largest private share;
  (b) *mode rule*: the group whose mode is nearest to the row's projection (clipped to the frame); a group's mode is
  the centre of the cell where its private histogram, lightly smoothed (3 x 3 kernel [1 2 1]^T [1 2 1] / 16, zero
  outside the frame), peaks;
* two references for rule (a), same cells: on the exact histograms of the release rows with the released
  components and frame (what the noise on the counts costs), and with nothing private (exact mean and components of
  the release rows, their exact 2%/98% quantiles as the frame for the fitted designs; what the whole release costs);
* chance: the largest group's share of the rows.

The lines under the table count, per dataset, the repetitions (same folds and seeds for every design) in which each
new plot beats the previous design on held-out accuracy. The exact histograms, the references and the assignments
use the raw data: they are measurements, not releases.
"""
from __future__ import annotations

import argparse
import datetime
import platform
import sys
from pathlib import Path

import numpy as np
from scipy.ndimage import convolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dppca_core as dc  # noqa: E402
from dppca_core.budget import BudgetSplit  # noqa: E402
from dppca_core.scores import FRAME_MARGIN, FRAME_QUANTILES, project  # noqa: E402

#: the mode rule's smoothing kernel (binomial 3 x 3)
SMOOTH = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0


def _mixture(n=15_000, seed=0):
    """Three Gaussian groups in 6-D; 15,000 rows, so each plot reads at least 10,000 (13,500 with 10 folds, 10,000
    with 3)."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["g1", "g2", "g3"], size=n, p=[0.5, 0.3, 0.2])
    centres = {"g1": np.r_[0, 0, 0, 0, 0, 0], "g2": np.r_[3, 1, 0, 0, 0, 0], "g3": np.r_[-1, 3, 0, 0, 0, 0]}
    X = np.array([centres[g] for g in labels], dtype=float) + rng.normal(size=(n, 6)) * np.r_[1.2, 1.2, 1, 1, 1, 1]
    return X, labels, 12.0


def _wine():
    table = dc.datasets.load_sample("wine")
    X = np.asarray(table.X, dtype=float)
    labels = np.asarray(table.labels).astype(str) if getattr(table, "labels", None) is not None else None
    bounds = np.abs(X).max(axis=0) * 1.2  # stands in for public bounds from the data's documentation
    return X, labels, bounds


PLOTS = {
    "before": ("grouped, public frame [-1, 1]², additive, 24 × 24 (the previous design)",
               dict(mean=0.1, scores=0.2), dict(score_bins=24)),
    "frame": ("grouped, private frame, additive, default cells", dict(mean=0.1, scores=0.2, frame=0.1),
              dict(score_frame="private")),
    "sparse": ("grouped, private frame, sparse, default cells", dict(mean=0.1, scores=0.2, frame=0.1),
               dict(score_frame="private", score_kind="sparse")),
}


def _folds(labels, groups, folds: int, rep: int) -> np.ndarray:
    """Each row's fold (0 .. folds - 1): each group's rows shuffled (seeded by the repetition) and dealt in turn, so
    every fold holds about 1/folds of every group."""
    rng = np.random.default_rng([2024, rep])
    fold = np.empty(len(labels), dtype=np.int64)
    for g in groups:
        rows = rng.permutation(np.flatnonzero(labels == g))
        fold[rows] = np.arange(rows.size) % folds
    return fold


def _cell_rule(hists, weights, cx, cy) -> np.ndarray:
    """Rule (a): per row, the index of the group whose normalised histogram times its weight is highest at the row's
    cell; ties (all-zero cells included) go to the largest weight."""
    density = hists / np.maximum(hists.sum(axis=(1, 2), keepdims=True), 1.0)
    score = density[:, cx, cy].T * weights
    best = score.max(axis=1, keepdims=True)
    return np.argmax(np.where(score == best, 1.0 + weights, 0.0), axis=1)


def _mode_rule(hists, edges, P) -> np.ndarray:
    """Rule (b): per row, the index of the group whose smoothed histogram's peak cell centre is nearest (a group
    with no released count has no mode; if none has one, every row goes to the first group)."""
    ex, ey = edges
    modes = []
    for h in hists:
        i, j = np.unravel_index(np.argmax(convolve(h, SMOOTH, mode="constant")), h.shape)
        modes.append(((ex[i] + ex[i + 1]) / 2, (ey[j] + ey[j + 1]) / 2) if h.sum() > 0 else (np.inf, np.inf))
    Q = np.column_stack([np.clip(P[:, 0], ex[0], ex[-1]), np.clip(P[:, 1], ey[0], ey[-1])])
    return np.argmin(((Q[:, None, :] - np.array(modes)[None]) ** 2).sum(axis=2), axis=1)


def _cells(P, edges) -> tuple[np.ndarray, np.ndarray]:
    """Each projection's cell; outside the frame, the nearest edge cell (as the release counts it)."""
    return tuple(np.clip(np.searchsorted(e, P[:, a], side="right") - 1, 0, len(e) - 2) for a, e in enumerate(edges))


def _histograms(cells, labels, groups, rows, bins) -> np.ndarray:
    """The exact (groups x bins x bins) counts of the selected rows."""
    out = np.zeros((len(groups), bins, bins))
    for i, g in enumerate(groups):
        mine = rows & (labels == g)
        np.add.at(out[i], (cells[0][mine], cells[1][mine]), 1.0)
    return out


def _no_privacy(Xs, labels, groups, R, release, bins, fitted: bool) -> np.ndarray:
    """Rule (a) with nothing private: exact mean and components of the release rows, the frame at their exact
    FRAME_QUANTILES widened by FRAME_MARGIN (``fitted``) or [-1, 1]^2, exact histograms on the same number of cells.
    Returns the group index predicted for every row."""
    rows = dc.prepare(Xs - Xs[release].mean(axis=0), R).rows
    P = project(rows, np.linalg.svd(rows[release], full_matrices=False)[2][:2].T)
    lo, hi = np.full(2, -1.0), np.full(2, 1.0)
    if fitted:
        lo, hi = np.quantile(P[release], FRAME_QUANTILES, axis=0)
        width = hi - lo
        lo, hi = np.maximum(lo - FRAME_MARGIN * width, -1.0), np.minimum(hi + FRAME_MARGIN * width, 1.0)
    cells = _cells(P, [np.linspace(lo[a], hi[a], bins + 1) for a in range(2)])
    exact = _histograms(cells, labels, groups, release, bins)
    return _cell_rule(exact, exact.sum(axis=(1, 2)) / exact.sum(), *cells)


def _normalised(h):
    return h / np.maximum(h.sum(axis=(1, 2), keepdims=True), 1.0)


def _measure(X, labels, groups, R, epsilon, reps, folds, plot: str, scale=None) -> dict:
    """Per repetition: total variation and in-sample accuracy (means over the folds' releases) and held-out
    accuracies over all rows, each predicted by the release that did not read it (rule a, rule b, rule a on the
    exact histograms)."""
    _, shares, extra = PLOTS[plot]
    names = np.array(groups)
    out = {key: [] for key in ("tv", "in_sample", "cell", "mode", "exact", "none")}
    Xs = X / scale if scale is not None else X
    options = {} if scale is None else dict(scale="bounds", column_bounds=scale)
    for rep in range(reps):
        fold = _folds(labels, groups, folds, rep)
        tv, in_sample = [], []
        predicted = {key: np.empty(len(labels), dtype=np.int64) for key in ("cell", "mode", "exact", "none")}
        for f in range(folds):
            release, held = fold != f, fold == f
            rel = dc.release_pca("analyze_gauss", X[release], 2, epsilon, 1e-6, data_norm=R,
                                 budget=BudgetSplit.with_extras(**shares), center="private",
                                 score_groups=labels[release], score_group_labels=groups, seed=rep * folds + f,
                                 **extra, **options)
            sc = rel.outputs["scores"]
            counts = np.maximum(np.asarray(sc["counts"], dtype=float), 0.0)
            ex, ey = sc["edges"]
            P = project(dc.prepare(Xs - rel.outputs["mean"], R).rows, rel.components[:, :2])
            cx, cy = _cells(P, (ex, ey))
            exact = _histograms((cx, cy), labels, groups, release, len(ex) - 1)
            tv.append(float(np.mean(0.5 * np.abs(_normalised(counts) - _normalised(exact)).sum(axis=(1, 2)))))
            weights = counts.sum(axis=(1, 2)) / max(counts.sum(), 1.0)
            in_sample.append(float(np.mean(names[_cell_rule(counts, weights, cx[release], cy[release])]
                                           == labels[release])))
            predicted["cell"][held] = _cell_rule(counts, weights, cx[held], cy[held])
            predicted["mode"][held] = _mode_rule(counts, (ex, ey), P[held])
            predicted["exact"][held] = _cell_rule(exact, exact.sum(axis=(1, 2)) / exact.sum(), cx[held], cy[held])
            predicted["none"][held] = _no_privacy(Xs, labels, groups, R, release, len(ex) - 1,
                                                  extra.get("score_frame") == "private")[held]
        out["tv"].append(float(np.mean(tv)))
        out["in_sample"].append(float(np.mean(in_sample)))
        for key, index in predicted.items():
            out[key].append(float(np.mean(names[index] == labels)))
    return {key: np.array(values) for key, values in out.items()}


def _spread(values) -> str:
    q1, q2, q3 = np.percentile(values, [25, 50, 75])
    return f"{q2:.1%} ({q1:.0%}–{q3:.0%})"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--folds", type=int, default=10, help="each plot is released from (folds - 1) / folds of "
                        "the rows and judged on the rest (default 10; 3 = the 2/3, 1/3 split)")
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    rows = []
    X, labels, R = _mixture()
    rows.append(("three-group mixture (n = {n:,}, d = 6; each plot from ≈ {r:,} rows), ε = 1", X, labels,
                 ["g1", "g2", "g3"], R, 1.0, None))
    Xw, lw, bounds = _wine()
    rows.append(("wine (n = {n}, d = 13, 3 cultivars; each plot from ≈ {r} rows), ε = 5, columns over public bounds",
                 Xw, lw, sorted(set(lw)), float(np.sqrt(len(bounds)) / 1.2), 5.0, bounds))
    print(f"<!-- generated by: python benchmarks/score_plots.py --reps {args.reps}"
          f"{'' if args.folds == 10 else f' --folds {args.folds}'} ({datetime.date.today()}, "
          f"{platform.machine()}, Python {platform.python_version()}) -->")
    print("| data | plot | total variation to the exact group histograms | in-sample accuracy (flatters fine grids) "
          "| held-out accuracy, cell rule (a) | held-out accuracy, mode rule (b) | held-out, cell rule on the exact "
          "histograms (private components) | held-out, nothing private (exact components, frame and histograms) | "
          "chance level |")
    print("|---|---|---|---|---|---|---|---|---|")
    wins = []
    for name, X, labels, groups, R, eps, scale in rows:
        name = name.format(n=len(labels), r=round(len(labels) * (args.folds - 1) / args.folds))
        chance = max(np.mean(labels == g) for g in groups)
        results = {}
        for plot, (label, _, _) in PLOTS.items():
            m = results[plot] = _measure(X, labels, groups, R, eps, args.reps, args.folds, plot, scale)
            print(f"| {name} | {label} | {np.median(m['tv']):.3f} | {np.median(m['in_sample']):.1%} | "
                  f"{_spread(m['cell'])} | {_spread(m['mode'])} | {np.median(m['exact']):.1%} | "
                  f"{np.median(m['none']):.1%} | {chance:.1%} |")
        counts = []
        for plot in ("frame", "sparse"):
            for rule in ("cell", "mode"):
                new, old = results[plot][rule], results["before"][rule]
                counts.append(f"{PLOTS[plot][0].split(', ')[2]} {rule} rule "
                              f"{int(np.sum(new > old))} better, {int(np.sum(new == old))} equal")
        wins.append(f"* {name.split(' (')[0]}, of {args.reps} repetitions against the previous design (same folds "
                    f"and seeds): " + "; ".join(counts))
    print()
    print("\n".join(wins))


if __name__ == "__main__":
    main()

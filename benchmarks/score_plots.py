"""How well a private score plot separates labelled groups: the grouped plot on a private frame (new) against one
ungrouped-frame, additive 24 x 24 plot (the previous design), on a three-group mixture and on the wine sample.

    python benchmarks/score_plots.py [--reps 30]

Prints a Markdown table (docs/score-plots.md holds it). Each repetition splits the rows at random (seeded by the
repetition, stratified by group) into a release part (2/3) and a held-out part (1/3), and releases the grouped plot
from the release part only. Measures, median over repetitions (held-out accuracies with their quartiles):

* **total variation** between each group's private histogram and the exact histogram of the same (release) rows on
  the same grid (both normalised; 0 = identical, 1 = disjoint), averaged over the groups: fidelity, in-sample;
* **in-sample accuracy**: each release row assigned by rule (a) below from the plot that contains it. It flatters
  fine grids: on a mostly empty grid a row's own count sits in its own group's cell, so the plot recalls single
  rows without showing that the groups separate;
* **held-out accuracy** of telling a group from the plot alone, on rows the release never read, each projected with
  the released mean and components (clipped as the release rows are) and placed in the plot's frame:
  (a) *cell*: the group whose private histogram (negatives to 0, normalised, times the group's private share of
  the counts) is highest at the row's cell; ties, empty cells included, go to the largest private share;
  (b) *mode*: the group whose mode is nearest to the row's projection (clipped to the frame), a group's mode being
  the centre of the cell where its private histogram, lightly smoothed (the 3 x 3 kernel [1 2 1]^T [1 2 1] / 16,
  zero outside the frame), peaks;
  and, as the ceiling of each grid, rule (a) on the exact histograms of the release rows (no noise, same cells).
  Chance: the largest group's share of the held-out rows.

After the table, one line per dataset counts the repetitions (same split and seed for every plot) in which each new
plot beats the previous design on held-out rule (a). The exact histograms and the held-out assignments use the raw
data: they are measurements, not releases.
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
from dppca_core.scores import project  # noqa: E402

#: share of each group's rows that the plot is released from; the rest is held out
RELEASE_SHARE = 2 / 3
#: the mode rule's smoothing kernel (binomial 3 x 3)
SMOOTH = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0


def _mixture(n=15_000, seed=0):
    """Three Gaussian groups in 6-D; 15,000 rows, so the release part holds 10,000."""
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


def _split(labels, groups, rep: int) -> np.ndarray:
    """A mask of the release rows: RELEASE_SHARE of each group's rows, at random (seeded by the repetition)."""
    rng = np.random.default_rng([2024, rep])
    release = np.zeros(len(labels), dtype=bool)
    for g in groups:
        rows = rng.permutation(np.flatnonzero(labels == g))
        release[rows[:int(round(RELEASE_SHARE * rows.size))]] = True
    return release


def _cell_rule(hists, weights, cx, cy) -> np.ndarray:
    """Rule (a): per row, the index of the group whose normalised histogram times its weight is highest at the row's
    cell; ties (all-zero cells included) go to the largest weight."""
    density = hists / np.maximum(hists.sum(axis=(1, 2), keepdims=True), 1.0)
    score = density[:, cx, cy].T * weights
    best = score.max(axis=1, keepdims=True)
    return np.argmax(np.where(score == best, 1.0 + weights, 0.0), axis=1)


def _mode_rule(hists, edges, P) -> np.ndarray:
    """Rule (b): per row, the index of the group whose smoothed histogram's peak cell centre is nearest."""
    ex, ey = edges
    modes = []
    for h in hists:
        i, j = np.unravel_index(np.argmax(convolve(h, SMOOTH, mode="constant")), h.shape)
        modes.append(((ex[i] + ex[i + 1]) / 2, (ey[j] + ey[j + 1]) / 2))
    Q = np.column_stack([np.clip(P[:, 0], ex[0], ex[-1]), np.clip(P[:, 1], ey[0], ey[-1])])
    return np.argmin(((Q[:, None, :] - np.array(modes)[None]) ** 2).sum(axis=2), axis=1)


def _measure(X, labels, groups, R, epsilon, reps, plot: str, scale=None) -> dict:
    """Per repetition: total variation, in-sample accuracy, held-out accuracies (cell, mode, cell on exact)."""
    _, shares, extra = PLOTS[plot]
    names = np.array(groups)
    out = {key: [] for key in ("tv", "in_sample", "cell", "mode", "exact")}
    for rep in range(reps):
        release = _split(labels, groups, rep)
        budget = BudgetSplit.with_extras(**shares)
        options = {} if scale is None else dict(scale="bounds", column_bounds=scale)
        rel = dc.release_pca("analyze_gauss", X[release], 2, epsilon, 1e-6, data_norm=R, budget=budget,
                             center="private", score_groups=labels[release], score_group_labels=groups, seed=rep,
                             **extra, **options)
        sc = rel.outputs["scores"]
        counts = np.maximum(np.asarray(sc["counts"], dtype=float), 0.0)
        ex, ey = sc["edges"]
        Xs = X / scale if scale is not None else X
        P = project(dc.prepare(Xs - rel.outputs["mean"], R).rows, rel.components[:, :2])
        cx = np.clip(np.searchsorted(ex, P[:, 0], side="right") - 1, 0, len(ex) - 2)
        cy = np.clip(np.searchsorted(ey, P[:, 1], side="right") - 1, 0, len(ey) - 2)
        exact = np.zeros_like(counts)
        for i, g in enumerate(groups):
            mine = release & (labels == g)
            np.add.at(exact[i], (cx[mine], cy[mine]), 1.0)
        norm = lambda h: h / np.maximum(h.sum(axis=(1, 2), keepdims=True), 1.0)  # noqa: E731
        out["tv"].append(float(np.mean(0.5 * np.abs(norm(counts) - norm(exact)).sum(axis=(1, 2)))))
        weights = counts.sum(axis=(1, 2)) / max(counts.sum(), 1.0)
        held = ~release
        out["in_sample"].append(float(np.mean(names[_cell_rule(counts, weights, cx[release], cy[release])]
                                              == labels[release])))
        out["cell"].append(float(np.mean(names[_cell_rule(counts, weights, cx[held], cy[held])] == labels[held])))
        out["mode"].append(float(np.mean(names[_mode_rule(counts, (ex, ey), P[held])] == labels[held])))
        exact_weights = exact.sum(axis=(1, 2)) / exact.sum()
        out["exact"].append(float(np.mean(names[_cell_rule(exact, exact_weights, cx[held], cy[held])]
                                          == labels[held])))
    return {key: np.array(values) for key, values in out.items()}


def _spread(values) -> str:
    q1, q2, q3 = np.percentile(values, [25, 50, 75])
    return f"{q2:.1%} ({q1:.0%}–{q3:.0%})"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args(argv)
    rows = []
    X, labels, R = _mixture()
    groups = ["g1", "g2", "g3"]
    rows.append(("three-group mixture (n = 15,000: 10,000 released, 5,000 held out; d = 6), ε = 1", X, labels,
                 groups, R, 1.0, None))
    Xw, lw, bounds = _wine()
    gw = sorted(set(lw))
    rows.append(("wine (n = 178: 119 released, 59 held out; d = 13, 3 cultivars), ε = 5, columns over public bounds",
                 Xw, lw, gw, float(np.sqrt(len(bounds)) / 1.2), 5.0, bounds))
    print(f"<!-- generated by: python benchmarks/score_plots.py --reps {args.reps} ({datetime.date.today()}, "
          f"{platform.machine()}, Python {platform.python_version()}) -->")
    print("| data | plot | total variation to the exact group histograms | in-sample accuracy (flatters fine grids) "
          "| held-out accuracy, cell rule (a) | held-out accuracy, mode rule (b) | held-out, cell rule on the exact "
          "histograms (no noise) | chance level |")
    print("|---|---|---|---|---|---|---|---|")
    wins = []
    for name, X, labels, groups, R, eps, scale in rows:
        held = np.ones(len(labels), dtype=bool)
        held[_split(labels, groups, 0)] = False
        chance = max(np.mean(labels[held] == g) for g in groups)
        results = {}
        for plot, (label, _, _) in PLOTS.items():
            m = results[plot] = _measure(X, labels, groups, R, eps, args.reps, plot, scale)
            print(f"| {name} | {label} | {np.median(m['tv']):.3f} | {np.median(m['in_sample']):.1%} | "
                  f"{_spread(m['cell'])} | {_spread(m['mode'])} | {np.median(m['exact']):.1%} | {chance:.1%} |")
        base = results["before"]["cell"]
        wins.append(f"* {name.split(' (')[0]}: held-out rule (a) beats the previous design in "
                    + ", ".join(f"{int(np.sum(results[p]['cell'] > base))} of {args.reps} repetitions "
                                f"({int(np.sum(results[p]['cell'] == base))} ties) with the {PLOTS[p][0].split(', ', 1)[1]}"
                                for p in ("frame", "sparse")))
    print()
    print("\n".join(wins))


if __name__ == "__main__":
    main()

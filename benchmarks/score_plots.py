"""How well a private score plot separates labelled groups: the designs the app offers (groups declared public or
found privately, on a private frame) and the earlier ones (the public frame, 24 x 24), on a well-separated
three-group mixture and on the wine sample.

    python benchmarks/score_plots.py [--reps 10] [--folds 5]

It runs on the library as it stands, so the same command before and after a change of the library measures the
change (docs/score-plots.md holds both). A fold whose release shows no group (none passed the threshold of the groups
found privately; earlier versions refused such a release) assigns every row to the largest group: chance.

Prints a Markdown table. Each repetition deals the rows at random (seeded by the repetition, stratified by group)
into ``--folds`` folds; each fold is held out once while the grouped plot (the shares and options of the design) is
released from the other folds, so every row is judged by a release that never read it. Measures, median over
repetitions (held-out accuracies of the plot with their quartiles):

* **releases showing no group**: the share of the releases whose plot has no group to show;
* **total variation** between each group's private histogram and the exact histogram of the same (release) rows on
  the same grid (both normalised; 0 = identical, 1 = disjoint), averaged over the groups and the folds: fidelity,
  in-sample, over the releases that show a group;
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

The exact histograms, the references and the assignments use the raw data: they are measurements, not releases.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.ndimage import convolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dppca_core as dc  # noqa: E402
from dppca_core.pipeline.budget import BudgetSplit  # noqa: E402
from dppca_core.pipeline.scores import FRAME_MARGIN, FRAME_QUANTILES, project  # noqa: E402

#: the mode rule's smoothing kernel (binomial 3 x 3)
SMOOTH = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0


def _mixture(n=3_000, seed=0):
    """Three well-separated Gaussian groups in 6-D (centres 6 s.d. apart in the plane of the first two coordinates,
    where the variance is; a cell rule with nothing private tells them apart in 99% of rows); 3,000 rows."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["g1", "g2", "g3"], size=n, p=[0.5, 0.3, 0.2])
    centres = {"g1": np.r_[0, 0, 0, 0, 0, 0], "g2": np.r_[6, 0, 0, 0, 0, 0], "g3": np.r_[3, 5.2, 0, 0, 0, 0]}
    X = np.array([centres[g] for g in labels], dtype=float) + rng.normal(size=(n, 6))
    return X, labels, 12.0


def _wine():
    table = dc.data.datasets.load_sample("wine")
    X = np.asarray(table.X, dtype=float)
    labels = np.asarray(table.labels).astype(str) if getattr(table, "labels", None) is not None else None
    bounds = np.abs(X).max(axis=0) * 1.2  # stands in for public bounds from the data's documentation
    return X, labels, bounds


#: the mean's share in every design (the designs differ in their score plot only)
MEAN_SHARE = 0.1


@dataclass(frozen=True)
class Design:
    """A score-plot design: its shares of the budget (the scores; the private frame's and the privately found
    groups' when positive, else a public frame [-1, 1]^2 and groups declared public), its cells per axis (None: the
    library's default) and its noise (additive or sparse). ``app``: one of the app's own designs. Its label is read
    off these settings, so the table cannot name a design other than the one measured."""

    scores: float
    frame: float = 0.0
    groups: float = 0.0
    bins: int | None = None
    kind: str = "additive"
    app: bool = False

    @property
    def shares(self) -> dict:
        extras = {"frame": self.frame, "groups": self.groups}
        return {"mean": MEAN_SHARE, "scores": self.scores, **{k: v for k, v in extras.items() if v}}

    @property
    def extra(self) -> dict:
        """release_pca's score-plot keywords, and "declared": the groups are passed as public (score_group_labels)."""
        out = {"score_frame": "private"} if self.frame else {}
        out |= {"score_kind": self.kind} if self.kind != "additive" else {}
        out |= {"score_bins": self.bins} if self.bins else {}
        return out | ({} if self.groups else {"declared": True})

    @property
    def label(self) -> str:
        if self.groups:
            groups = f"groups found privately ({self.groups:.0%})"
        else:
            groups = "groups declared public" if self.app else "declared"
        frame = f"private frame ({self.frame:.0%})" if self.frame else "public frame [-1, 1]²"
        cells = f"{self.bins} × {self.bins}" if self.bins else "default cells"
        return ("the app: " if self.app else "") + f"{groups}, {frame}, scores {self.scores:.0%}, {self.kind}, {cells}"


PLOTS = {
    "app, found": Design(scores=0.1, frame=0.05, groups=0.05, app=True),
    "app, declared": Design(scores=0.1, frame=0.05, app=True),
    "public 24": Design(scores=0.2, bins=24),
    "frame": Design(scores=0.2, frame=0.1),
    "sparse": Design(scores=0.2, frame=0.1, kind="sparse"),
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


def _release(X, labels, groups, R, epsilon, shares, extra, seed, options):
    """One grouped release, and its histograms in the order of ``groups`` (zeros for a group it does not show);
    None when it shows no group (or, in earlier versions, refused for that reason)."""
    extra = dict(extra)
    declared = extra.pop("declared", False)
    try:
        rel = dc.release_pca(
            "analyze_gauss",
            X,
            2,
            epsilon,
            1e-6,
            data_norm=R,
            budget=BudgetSplit.with_extras(**shares),
            center="private",
            score_groups=labels,
            score_group_labels=groups if declared else None,
            seed=seed,
            **extra,
            **options,
        )
    except ValueError as exc:
        if "no group passed" not in str(exc):
            raise
        return None, None
    sc = rel.outputs["scores"]
    shown = list(sc.get("groups") or [])
    if not shown:
        return rel, None
    released = np.maximum(np.asarray(sc["counts"], dtype=float), 0.0)
    counts = np.zeros((len(groups),) + released.shape[1:])
    for i, g in enumerate(shown):
        counts[groups.index(g)] = released[i]
    return rel, counts


def _measure(X, labels, groups, R, epsilon, reps, folds, plot: str, scale=None) -> dict:
    """Per repetition: total variation and in-sample accuracy (means over the folds' releases that show a group) and
    held-out accuracies over all rows, each predicted by the release that did not read it (rule a, rule b, rule a on
    the exact histograms); and how many releases showed no group."""
    shares, extra = PLOTS[plot].shares, PLOTS[plot].extra
    names = np.array(groups)
    largest = int(np.argmax([np.sum(labels == g) for g in groups]))
    out = {key: [] for key in ("tv", "in_sample", "cell", "mode", "exact", "none", "empty")}
    Xs = X / scale if scale is not None else X
    options = {} if scale is None else dict(scale="bounds", column_bounds=scale)
    fitted = extra.get("score_frame") == "private"
    for rep in range(reps):
        fold = _folds(labels, groups, folds, rep)
        tv, in_sample, empty = [], [], 0
        predicted = {key: np.full(len(labels), largest, dtype=np.int64) for key in ("cell", "mode", "exact", "none")}
        for f in range(folds):
            release, held = fold != f, fold == f
            rel, counts = _release(
                X[release], labels[release], groups, R, epsilon, shares, extra, rep * folds + f, options
            )
            if counts is None:  # no group shown: every held-out row goes to the largest group
                empty += 1
                continue
            ex, ey = rel.outputs["scores"]["edges"]
            P = project(dc.prepare(Xs - rel.outputs["mean"], R).rows, rel.components[:, :2])
            cx, cy = _cells(P, (ex, ey))
            exact = _histograms((cx, cy), labels, groups, release, len(ex) - 1)
            tv.append(float(np.mean(0.5 * np.abs(_normalised(counts) - _normalised(exact)).sum(axis=(1, 2)))))
            weights = counts.sum(axis=(1, 2)) / max(counts.sum(), 1.0)
            in_sample.append(
                float(np.mean(names[_cell_rule(counts, weights, cx[release], cy[release])] == labels[release]))
            )
            predicted["cell"][held] = _cell_rule(counts, weights, cx[held], cy[held])
            predicted["mode"][held] = _mode_rule(counts, (ex, ey), P[held])
            predicted["exact"][held] = _cell_rule(exact, exact.sum(axis=(1, 2)) / exact.sum(), cx[held], cy[held])
            predicted["none"][held] = _no_privacy(Xs, labels, groups, R, release, len(ex) - 1, fitted)[held]
        out["tv"].append(float(np.mean(tv)) if tv else np.nan)
        out["in_sample"].append(float(np.mean(in_sample)) if in_sample else np.nan)
        out["empty"].append(empty / folds)
        for key, index in predicted.items():
            out[key].append(float(np.mean(names[index] == labels)))
    return {key: np.array(values) for key, values in out.items()}


def _spread(values) -> str:
    q1, q2, q3 = np.percentile(values, [25, 50, 75])
    return f"{q2:.1%} ({q1:.0%}–{q3:.0%})"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument(
        "--folds",
        type=int,
        default=5,
        help="each plot is released from (folds - 1) / folds of " "the rows and judged on the rest (default 5)",
    )
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    rows = []
    X, labels, R = _mixture()
    rows.append(
        (
            "well-separated three-group mixture (n = {n:,}, d = 6; each plot from ≈ {r:,} rows), ε = 1",
            X,
            labels,
            ["g1", "g2", "g3"],
            R,
            1.0,
            None,
        )
    )
    Xw, lw, bounds = _wine()
    for eps in (1.0, 5.0):
        rows.append(
            (
                f"wine (n = {{n}}, d = 13, 3 cultivars; each plot from ≈ {{r}} rows), ε = {eps:g}, columns "
                "over public bounds",
                Xw,
                lw,
                sorted(set(lw)),
                float(np.sqrt(len(bounds)) / 1.2),
                eps,
                bounds,
            )
        )
    print(
        f"<!-- generated by: python benchmarks/score_plots.py --reps {args.reps} --folds {args.folds} "
        f"({datetime.date.today()}, {platform.machine()}, Python {platform.python_version()}) -->"
    )
    print(
        "| data | plot | releases showing no group | total variation to the exact group histograms | held-out "
        "accuracy, cell rule (a) | held-out accuracy, mode rule (b) | held-out, cell rule on the exact histograms "
        "(private components) | held-out, nothing private (exact components, frame and histograms) | chance "
        "level |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, X, labels, groups, R, eps, scale in rows:
        name = name.format(n=len(labels), r=round(len(labels) * (args.folds - 1) / args.folds))
        chance = max(np.mean(labels == g) for g in groups)
        for plot, design in PLOTS.items():
            label = design.label
            m = _measure(X, labels, groups, R, eps, args.reps, args.folds, plot, scale)
            tv = np.nanmedian(m["tv"]) if np.isfinite(m["tv"]).any() else float("nan")
            print(
                f"| {name} | {label} | {np.mean(m['empty']):.0%} | {tv:.3f} | {_spread(m['cell'])} | "
                f"{_spread(m['mode'])} | {np.median(m['exact']):.1%} | {np.median(m['none']):.1%} | {chance:.1%} |"
            )


if __name__ == "__main__":
    main()

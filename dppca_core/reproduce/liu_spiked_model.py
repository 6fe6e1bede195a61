"""Liu et al. (NeurIPS 2022), the spiked model of Theorem 5.3's lower bound: Private Oja, DP-PCA and DP-PCA with the
paper's ε/2 split against n, one panel per d (:data:`LIU_SPIKED`; the paper is declared in :mod:`.liu`)."""

from __future__ import annotations

from ..data import datasets as ds
from .. import metrics
from ..figures.base import PALETTE
from ..data.prepare import prepare
from .core import Claim, Panel, Spec
from .core import NON_PRIVATE, NOT_REPRODUCED, NOT_RUN, REPRODUCED
from .kit import curve_of, fmt_g, fmt_list, fmt_set, point, rng_for, run_once, value_at
from .dp_pca_routes import ALG_OJA, batch_needed, dp_pca_algorithm, rows_needed
from .liu_common import PLANTED_METRIC, oja_rate


#: the series of the spiked reproduction: (label, params); the paper's split is the paper's own budget
_LSP_DP = (("DP-PCA", {}), ("DP-PCA, the paper's ε/2 split", {"split_budget": True}))


def _lsp_panels(cfg):
    return [Panel(f"d = {d}", "rows n", "sin(w, v₁)", log_x=True, log_y=True) for d in cfg["dims"]]


def _lsp_points(cfg):
    """(d, n) of the grid; points with n d above ``max_cells`` are left out (their rows would not fit in memory)."""
    return [(d, n) for d in cfg["dims"] for n in cfg["ns"] if n * d <= cfg["max_cells"]]


def _lsp_tasks(cfg, reps):
    return [{"d": d, "n": n, "rep": r} for r in range(reps) for d, n in _lsp_points(cfg)]


def _lsp_marks(cfg):
    """A dotted line per panel and epsilon where Algorithms 4-5 start to run (our budget)."""
    out = []
    for d in cfg["dims"]:
        for eps in cfg["eps"]:
            need = rows_needed(d, eps)
            if need is not None and need <= 3 * max(cfg["ns"]):
                out.append(
                    (
                        f"d = {d}",
                        float(need),
                        f"ε = {eps:g}: Algorithms 4–5 run from n ≈ {need:,}; " "below, the fallback",
                    )
                )
    return out


def _lsp_unit(cfg, task, seed):
    key, d, n, rep = "liu_spiked", int(task["d"]), int(task["n"]), int(task["rep"])
    law = ds.liu_spiked(n=n, d=d, gap=cfg["gap"], seed=rng_for(seed, key, "data", d, n, rep))
    data = prepare(law.X)
    panel = f"d = {d}"
    metric, rows = PLANTED_METRIC, []
    delta = 1.0 / n**2
    for eps in cfg["eps"]:
        name = f"Private Oja, ε = {eps:g}"
        V, sec, _ = run_once("private_oja", data, 1, eps, delta, rng_for(seed, key, name, d, n, rep), **oja_rate(law))
        rows.append(
            point(
                panel,
                name,
                "private_oja",
                "n",
                n,
                rep,
                metrics.subspace_distance(V, law.components),
                metric,
                sec,
                ALG_OJA,
            )
        )
        for label, params in _LSP_DP:
            name = f"{label}, ε = {eps:g}"
            V, sec, rel = run_once("dp_pca", data, 1, eps, delta, rng_for(seed, key, name, d, n, rep), **params)
            rows.append(
                point(
                    panel,
                    name,
                    "dp_pca",
                    "n",
                    n,
                    rep,
                    metrics.subspace_distance(V, law.components),
                    metric,
                    sec,
                    dp_pca_algorithm(rel),
                )
            )
    V, _, _ = run_once("non_private", data, 1, 1.0, delta, rng_for(seed, key, "np", d, n, rep))
    rows.append(
        point(panel, "non-private PCA", NON_PRIVATE, "n", n, rep, metrics.subspace_distance(V, law.components), metric)
    )
    return rows


def _fallback_text(measured, cfg) -> str:
    """Where DP-PCA ran Algorithms 4-5 and where its fallback, per panel and epsilon, with the thresholds."""
    parts = []
    for d in cfg["dims"]:
        for eps in cfg["eps"]:
            pts = measured["dp_pca"][d, eps]
            fb = sorted(pts[pts.algorithm.str.contains("fallback")].x)
            alg = sorted(pts[~pts.algorithm.str.contains("fallback")].x)
            need = rows_needed(d, eps)
            top = max(pts.x) if len(pts) else max(cfg["ns"])
            B, m = batch_needed(int(top), d, eps)
            thr = (
                f"Algorithms 4–5 need a batch of {m:,} rows, which the schedule B = n/⌈(ln n)²/16⌉ reaches from "
                f"n ≈ {need:,}"
                if need
                else "Algorithms 4–5 need more than 10⁸ rows"
            )
            parts.append(
                f"d = {d}, ε = {fmt_g(eps)}: {thr}; Algorithms 4–5 at n = "
                f"{', '.join(f'{x:,.0f}' for x in alg) or 'none of this grid'}, the fallback at n = "
                f"{', '.join(f'{x:,.0f}' for x in fb) or 'none'}"
            )
    return "; ".join(parts)


def _lsp_curves(eps: float) -> tuple[str, ...]:
    """The series of one epsilon in each panel: Private Oja's, DP-PCA's and DP-PCA's with the paper's split."""
    return f"Private Oja, ε = {eps:g}", f"DP-PCA, ε = {eps:g}", f"DP-PCA, the paper's ε/2 split, ε = {eps:g}"


def _lsp_measure(summary, cfg):
    points = _lsp_points(cfg)
    top = {d: max(n for dd, n in points if dd == d) for d in cfg["dims"]}
    labels = [label for eps in cfg["eps"] for label in _lsp_curves(eps)] + ["non-private PCA"]

    def dp_pca_at(d, n):
        return [value_at(summary, f"d = {d}", f"DP-PCA, ε = {e:g}", n) for e in cfg["eps"]]

    return dict(
        curves={(d, lab): curve_of(summary, f"d = {d}", lab)["mean"].tolist() for d in cfg["dims"] for lab in labels},
        first={d: dp_pca_at(d, min(cfg["ns"])) for d in cfg["dims"]},
        last={d: dp_pca_at(d, top[d]) for d in cfg["dims"]},
        oja_top=[
            value_at(summary, f"d = {d}", f"Private Oja, ε = {e:g}", top[d]) for d in cfg["dims"] for e in cfg["eps"]
        ],
        dp_pca={
            (d, eps): summary[(summary.panel == f"d = {d}") & (summary.series == f"DP-PCA, ε = {eps:g}")]
            for d in cfg["dims"]
            for eps in cfg["eps"]
        },
    )


def _lsp_finding(m, cfg):
    points = _lsp_points(cfg)
    ns = ", ".join(f"{n:,}" for n in cfg["ns"])
    oja = m["oja_top"]
    said = "; ".join(_lsp_verdicts(m, cfg, points))
    skipped = [(d, n) for d in cfg["dims"] for n in cfg["ns"] if (d, n) not in points]
    return (
        f"Mean sin(w, v₁) at n = {ns}: "
        + "; ".join(_lsp_means(m, cfg))
        + ". "
        + said[0].upper()
        + said[1:]
        + (
            ". Private Oja stays near the no-information level (1) on this grid: its per-step noise ηₜα "
            "with α = σ_AGM(ε, δ, 1) swamps the small gap of the scaled law."
            if min(oja) > 0.5
            else f". Private Oja reaches {fmt_list(oja)} at the largest n."
        )
        + " Which algorithm ran (the algorithm column, the markers of the figure and its dotted lines): "
        + _fallback_text(m, cfg)
        + ". Where Algorithms 4–5 run, Algorithm 5 takes the public range in "
        "every batch here (the gradients' spread keeps its radius r ≥ ½), so the paper's algorithm spends half of "
        "each batch on a scale estimate that Algorithm 5 then does not use, and its mean gradient, over the "
        "other half, has twice the fallback's noise (sensitivity 2/B against 1/B)."
        + (
            f" Left out (rows would not fit in memory): {', '.join(f'd = {d}, n = {n:,}' for d, n in skipped)}."
            if skipped
            else ""
        )
    )


def _lsp_difference(cfg):
    gap_scaled = cfg["gap"] / (4 * (cfg["dims"][0] + cfg["gap"]))
    return (
        "The paper has no experiment: this is the lower-bound construction of its Theorem 5.3 (Σ = (λ₁ − λ₂)vvᵀ + "
        f"λ₂I, λ₂ = 1, λ₁ − λ₂ = {fmt_g(cfg['gap'])}) used as a benchmark, with the suggested d, ε and δ = 1/n². Rows "
        "are scaled by the public constant 2√tr Σ and clipped to norm 1, so the gap in the scaled units is "
        f"{gap_scaled:.4f} at d = {cfg['dims'][0]}; both private methods need n well beyond d/(ε·gap) before their "
        "privacy term fades. DP-PCA follows the paper's schedule B = 16n/(ln n)²; its Algorithms 4 and 5 can "
        "release nothing from a batch below a minimum size (about 4(2/ε_h) ln(d/(δ_h ζ)) rows, growing like d/ε), "
        "and below it every batch's mean gradient is released over the public range instead (sensitivity 1/B, "
        "the whole budget): a noisy minibatch gradient method, not the paper's algorithm. Whether that fallback "
        "runs depends on the public n, d, ε and δ only. Our budget gives Algorithms 4 and 5 the whole (ε, δ) "
        "each (the halves of a batch are disjoint: parallel composition); the paper's ε/2 split is drawn as its "
        "own series (valid, more noise, and a larger minimum batch, so its fallback reaches further). Inside "
        "Algorithm 5 the centre histograms get just enough budget to release (at most the paper's ε/2), and where "
        "the truncation radius is at least ½ the public range replaces the truncation. Private Oja runs without "
        "amplification by shuffling (the paper's constants are not given; its amplified noise applies only when "
        "ε = O(√(ln(n/δ)/n)))."
    )


def _lsp_means(m, cfg) -> list:
    """The mean errors over n, in words: per dimension and epsilon Private Oja's, DP-PCA's and DP-PCA's with the
    paper's split, then the non-private PCA's."""
    parts = []
    for d in cfg["dims"]:
        for eps in cfg["eps"]:
            oja, dp, split = (m["curves"][d, label] for label in _lsp_curves(eps))
            parts.append(
                f"d = {d}, ε = {fmt_g(eps)}: Private Oja {fmt_list(oja)}, DP-PCA {fmt_list(dp)}, with the paper's "
                f"split {fmt_list(split)}"
            )
        nonp = m["curves"][d, "non-private PCA"]
        parts.append(f"d = {d} non-private {fmt_list(nonp, 3)}")
    return parts


def _lsp_verdicts(m, cfg, points) -> list:
    """Per dimension, what DP-PCA's error does from the smallest n to the largest run: stays at the no-information
    level, or falls from one value to another."""
    verdicts = []
    eps_txt = ", ".join(fmt_g(e) for e in cfg["eps"])
    for d in cfg["dims"]:
        d_top = max(n for dd, n in points if dd == d)
        first, last = m["first"][d], m["last"][d]
        if min(last) > 0.9:
            verdicts.append(f"at d = {d} DP-PCA stays at the no-information level (1) up to n = {d_top:,}")
        else:
            verdicts.append(
                f"at d = {d} DP-PCA's error goes from {fmt_list(first)} at n = {min(cfg['ns']):,} to "
                f"{fmt_list(last)} at n = {d_top:,} (ε = {eps_txt})"
            )
    return verdicts


def _lsp_claims(m, cfg):
    out = []
    points = _lsp_points(cfg)
    for d in cfg["dims"]:
        ns = [n for dd, n in points if dd == d]
        for eps in cfg["eps"]:
            pts = m["dp_pca"][d, eps]
            alg = pts[~pts.algorithm.str.contains("fallback")].sort_values("x")
            need = rows_needed(d, eps)
            if len(alg) >= 2:
                first, last = alg["mean"].iloc[0], alg["mean"].iloc[-1]
                status = REPRODUCED if last < first else NOT_REPRODUCED
                why = (
                    f"where Algorithms 4–5 run (n = {', '.join(f'{x:,.0f}' for x in alg.x)}) the error goes "
                    f"{fmt_list(alg['mean'])}"
                )
            elif len(alg) == 1:
                status, why = (
                    NOT_RUN,
                    (
                        f"Algorithms 4–5 run only at n = {alg.x.iloc[0]:,.0f} of this grid "
                        f"(error {alg['mean'].iloc[0]:.2f}): no trend to read"
                    ),
                )
            else:
                status = NOT_RUN
                why = (
                    f"the paper's algorithm does not run on this grid (up to n = {max(ns):,}): it needs "
                    + (f"n ≈ {need:,}" if need else "more than 10⁸ rows")
                    + "; every point is the fallback"
                )
            out.append(
                Claim(
                    f"Spiked model, d = {d}, ε = {fmt_g(eps)}: DP-PCA's error falls with n (Corollary 5.2)",
                    status,
                    why,
                    "liu_spiked",
                )
            )
    return out


LIU_SPIKED = Spec(
    key="liu_spiked",
    title="Liu et al., spiked model: error against n",
    claim="No experiments. Theorem 5.1 / Corollary 5.2: for Gaussian data DP-PCA reaches sin(w, v₁) = "
    "Õ(κ(√(d/n) + d√(ln(1/δ))/(εn))), matching the lower bound of Theorem 5.3 up to logarithms, for ε < 0.9 "
    "and n large enough; Private Oja (Theorem 3.3) needs ε = O(√(ln(n/δ)/n)) for its amplified guarantee. The "
    "paper suggests its lower-bound law with d ∈ {10, 100}, ε ∈ {0.5, 0.9}, δ = 1/n².",
    grids={
        "default": dict(
            dims=(10,), ns=(5_000, 20_000, 80_000, 320_000), eps=(0.5, 0.9), gap=0.5, max_cells=10**7, reps=3
        ),
        "full": dict(
            dims=(10, 100),
            ns=(10_000, 30_000, 100_000, 300_000, 1_000_000),
            eps=(0.5, 0.9),
            gap=0.5,
            max_cells=3 * 10**7,
            reps=5,
        ),
    },
    settings=lambda cfg: (
        f"Ours: gap {fmt_g(cfg['gap'])}, λ₂ = 1, d ∈ {fmt_set(cfg['dims'])}, n ∈ {fmt_set(cfg['ns'], '{:,}'.format)}, "
        f"ε ∈ {fmt_set(cfg['eps'], fmt_g)}, δ = 1/n²."
    ),
    steps=(_lsp_panels, _lsp_tasks, _lsp_unit, _lsp_measure, _lsp_finding, _lsp_difference, _lsp_claims, _lsp_marks),
    refs=(
        ("item 12", "item-12"),
        ("item 9", "item-9"),
        ("suggested benchmarks", "suggested-benchmarks-for-liu-et-al"),
    ),
    styles={
        **{f"DP-PCA, ε = {e:g}": {"color": c, "dash": "solid"} for e, c in zip((0.5, 0.9), PALETTE)},
        **{
            f"DP-PCA, the paper's ε/2 split, ε = {e:g}": {"color": c, "dash": "dash"}
            for e, c in zip((0.5, 0.9), PALETTE)
        },
        **{f"Private Oja, ε = {e:g}": {"color": c, "dash": "dot"} for e, c in zip((0.5, 0.9), ("#999", "#666"))},
    },
    paper_figure=("No figure: the suggested benchmark has no reported curve.",),
)

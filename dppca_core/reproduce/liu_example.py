"""Liu et al. (NeurIPS 2022), Example 4.1 (x = s + ν, s = ±v, ν ~ N(0, σ²I)): Private Oja against DP-PCA as the
data noise σ falls, one panel per ε (:data:`LIU_EXAMPLE_41`; the paper is declared in :mod:`.liu`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..data import datasets as ds
from .. import metrics
from ..data.prepare import prepare
from .core import Claim, Panel, Spec
from .core import NON_PRIVATE, NOT_REPRODUCED, NOT_RUN, REPRODUCED
from .kit import curve_of, fmt_g, fmt_list, fmt_set, point, rng_for, run_once, tasks_over, value_at
from .dp_pca_routes import (
    ALG_FALLBACK,
    ALG_OJA,
    ALG_PUBLIC,
    ALG_TRUNCATING,
    THEOREM_EPS,
    dp_pca_algorithm,
    rows_needed,
    theorem_side,
)
from .liu_common import PLANTED_METRIC, oja_rate


_LIU_SERIES = (
    ("Private Oja", "private_oja", "oja"),
    ("DP-PCA (K = 4, a = 1)", "dp_pca", {}),
    ("DP-PCA (K = 1.63, a = 1/2)", "dp_pca", {"K": 1.63, "a": 0.5}),
)


def _l41_panels(cfg):
    return [
        Panel(f"ε = {e:g}: {theorem_side(e)}", "data noise σ", "sin(w, v₁)", log_x=True, log_y=True) for e in cfg["eps"]
    ]


def _l41_unit(cfg, task, seed):
    key, sigma, rep = "liu_example_41", float(task["sigma"]), int(task["rep"])
    n = cfg["n"]
    delta = 1.0 / n**2
    law = ds.liu_example_41(n=n, d=cfg["d"], sigma=sigma, seed=rng_for(seed, key, "data", sigma, rep))
    data = prepare(law.X)
    metric, rows = PLANTED_METRIC, []
    V, _, _ = run_once("non_private", data, 1, 1.0, delta, rng_for(seed, key, "np", sigma, rep))
    nonpriv = metrics.subspace_distance(V, law.components)
    for eps, panel in zip(cfg["eps"], _l41_panels(cfg)):
        # the first epsilon keeps the seeds of the single-epsilon grid this reproduction once had
        tag = () if eps == cfg["eps"][-1] else (eps,)
        for label, mech, params in _LIU_SERIES:
            params = oja_rate(law) if params == "oja" else params
            V, sec, rel = run_once(mech, data, 1, eps, delta, rng_for(seed, key, label, sigma, rep, *tag), **params)
            algo = ALG_OJA if mech == "private_oja" else dp_pca_algorithm(rel)
            rows.append(
                point(
                    panel.name,
                    label,
                    mech,
                    "sigma",
                    sigma,
                    rep,
                    metrics.subspace_distance(V, law.components),
                    metric,
                    sec,
                    algo,
                )
            )
        rows.append(point(panel.name, "non-private PCA", NON_PRIVATE, "sigma", sigma, rep, nonpriv, metric))
    return rows


def _slope(curve: pd.DataFrame, lo: float, hi: float) -> float:
    c = curve[(curve.x >= lo) & (curve.x <= hi) & (curve["mean"] > 0)]
    if len(c) < 2:
        return math.nan
    return float(np.polyfit(np.log(c.x), np.log(c["mean"]), 1)[0])


def _l41_panel_finding(vals: dict, slope: float, panel, sig) -> str:
    """What we find on one panel, from its series' means over σ (``vals``) and the slope of DP-PCA with Example
    4.1's constants."""
    t = vals["DP-PCA (K = 1.63, a = 1/2)"]
    fall = (
        f"falls like σ^{slope:.2f} below σ = 0.01 (the theory: σ¹)"
        if math.isfinite(slope)
        else f"is {t[0] / t[-1]:.1f} times smaller at σ = {fmt_g(sig[-1])} than at σ = {fmt_g(sig[0])} (the theory: "
        "proportional to σ once the truncation follows the data noise)"
    )
    better = [s for s, o, p in zip(sig, vals["Private Oja"], vals["DP-PCA (K = 4, a = 1)"]) if p < o]
    oja_low = vals["Private Oja"][1:] or vals["Private Oja"]
    where = (
        "at every σ of the grid"
        if len(better) == len(sig)
        else f"at σ = {', '.join(fmt_g(b) for b in better)}"
        if better
        else "at no σ of the grid"
    )
    return (
        f"{panel.name.split(':')[0]}: Private Oja {fmt_list(vals['Private Oja'], 4)}; DP-PCA with the Gaussian-data "
        f"constants {fmt_list(vals['DP-PCA (K = 4, a = 1)'], 4)}; DP-PCA with Example 4.1's tail constants "
        f"{fmt_list(vals['DP-PCA (K = 1.63, a = 1/2)'], 4)}. Private Oja's error does not keep falling with σ "
        f"(between {min(oja_low):.2f} and {max(oja_low):.2f} for σ ≤ {fmt_g(sig[min(1, len(sig) - 1)])}); DP-PCA "
        f"beats it {where}, and with Example 4.1's constants its error {fall}."
    )


def _routes(summary, series: str) -> str:
    """Where the DP-PCA points of ``series`` came from, in words (read from the summary's algorithm column)."""
    pts = summary[summary.series == series]
    kinds = {
        ALG_TRUNCATING: "Algorithm 5 truncating",
        ALG_PUBLIC: "Algorithm 5 over the public range",
        ALG_FALLBACK: "the fallback",
    }
    found = [name for algo, name in kinds.items() if pts.algorithm.str.contains(algo, regex=False).any()]
    return ", ".join(found) or "no point"


def _l41_measure(summary, cfg):
    sig = sorted(cfg["sigmas"], reverse=True)
    panels = [panel.name for panel in _l41_panels(cfg)]
    return dict(
        vals={
            panel: {label: [value_at(summary, panel, label, s) for s in sig] for label, _, _ in _LIU_SERIES}
            for panel in panels
        },
        slopes={
            panel: _slope(curve_of(summary, panel, "DP-PCA (K = 1.63, a = 1/2)"), min(sig), 0.01) for panel in panels
        },
        routes={series: _routes(summary, series) for series in ("DP-PCA (K = 1.63, a = 1/2)", "DP-PCA (K = 4, a = 1)")},
    )


def _l41_finding(m, cfg):
    sig = sorted(cfg["sigmas"], reverse=True)
    finding = " ".join(
        _l41_panel_finding(m["vals"][panel.name], m["slopes"][panel.name], panel, sig) for panel in _l41_panels(cfg)
    )
    return finding + (
        " Algorithm 5's route (the algorithm column): with Example 4.1's constants "
        f"{m['routes']['DP-PCA (K = 1.63, a = 1/2)']}; with the Gaussian-data constants "
        f"{m['routes']['DP-PCA (K = 4, a = 1)']}."
    )


def _l41_difference(cfg):
    need = {e: rows_needed(cfg["d"], e) for e in cfg["eps"]}
    return (
        "There is no experiment to compare with: the paper states the behaviour as a theorem, and we run its own "
        "example. Theorem 5.1 is stated for ε < 0.9; the ε = 1 panel lies outside its statement but not outside our "
        "proof: the paper needs ε < 0.9 because its d coordinate histograms compose by advanced composition "
        "(Lemma B.4, for a total of at most 0.9), and here those histograms get only the share they need "
        "(at most ε/2 = 0.5 at ε = 1), so the lemma applies on both panels; our code takes the better of advanced "
        "and basic composition for them, and composes them with the Gaussian step by basic composition at every ε. "
        "Calibration choices that differ from the paper: Private Oja's noise multiplier is σ_AGM(ε, δ, 1) by "
        "parallel composition (each row is used once), with clipping threshold β = 1 for rows of norm ≤ 1, because "
        "the paper's shuffling constants C, C′ are never given, so the paper's own Private Oja calibration cannot "
        "be run; its step size is 2/((λ₁ − λ₂)(10 + t)) from the law's public gap. DP-PCA's Algorithms 4 and 5 "
        "each get the whole (ε, δ) (they read disjoint halves of a batch; the paper halves it: see the spiked "
        "reproduction for both). Inside Algorithm 5, two departures from the pseudo-code: its centre histograms "
        "get just enough budget to release (at most the paper's ε/2) and the Gaussian step the rest; and where the "
        "truncation radius r = 3K√(2Λ̂) ln^a(md/ζ) is at least ½ (or the public range gives less noise) the mean "
        "is taken over the public range of the gradients, which a truncation to [c − r, c + r] could not beat. "
        "DP-PCA's truncation radius follows the sub-Weibull constants (K, a): with the Gaussian-data values (K = 4, "
        "a = 1) the radius drops below the public range only at much smaller σ, so the σ-dependence shows later; "
        "Example 4.1's Gaussian noise has K = 1.63, a = 1/2. Below "
        + ", ".join(f"n = {need[e]:,} (ε = {fmt_g(e)})" for e in cfg["eps"] if need[e])
        + f" rows at d = {cfg['d']} DP-PCA would run its fallback instead of Algorithms 4–5; this grid's "
        f"n = {cfg['n']:,} is above that."
    )


def _l41_claims(m, cfg):
    sig = sorted(cfg["sigmas"], reverse=True)
    out = []
    for eps, panel in zip(cfg["eps"], _l41_panels(cfg)):
        oja, tails = (m["vals"][panel.name][label] for label in ("Private Oja", "DP-PCA (K = 1.63, a = 1/2)"))
        falls = tails[-1] < 0.2 * tails[0]
        flat = min(oja[1:] or oja) > 0.3 * max(oja[1:] or oja)
        out.append(
            Claim(
                f"Example 4.1, ε = {fmt_g(eps)} ({theorem_side(eps)}): DP-PCA's error vanishes as the data noise σ → 0, Private "
                "Oja's privacy error does not (Theorems 5.1, 3.3)",
                REPRODUCED if falls and flat else NOT_REPRODUCED,
                f"DP-PCA (K = 1.63, a = 1/2) {fmt_list(tails, 4)} and Private Oja {fmt_list(oja, 3)} at σ = "
                f"{', '.join(fmt_g(s) for s in sig)}"
                + ("" if eps < THEOREM_EPS else "; outside the theorem's ε < 0.9, still (ε, δ)-DP here"),
                "liu_example_41",
            )
        )
    out.append(
        Claim(
            "Private Oja with the paper's noise multiplier α = C′ ln(n/δ)/(ε√n) (amplification by " "shuffling)",
            NOT_RUN,
            "C and C′ are never given, so that α cannot be computed; we run "
            "α = σ_AGM(ε, δ, 1), valid for every ε by parallel composition",
            "liu_example_41",
        )
    )
    return out


LIU_EXAMPLE_41 = Spec(
    key="liu_example_41",
    title="Liu et al., Example 4.1: Private Oja against DP-PCA as the data noise falls",
    claim="No experiments (only a 2-d illustration, Figure 1). Example 4.1 (x = s + ν, s = ±v with probability ½, "
    "ν ~ N(0, σ²I)) is the paper's case for DP-PCA: Private Oja and other noisy-gradient methods keep a privacy "
    "error that does not shrink with the data noise σ (Theorem 3.3), while DP-PCA adapts its noise to the "
    "spread of the gradients, so its privacy error vanishes as σ → 0 (Theorem 5.1, for ε < 0.9). The paper "
    "suggests σ² ∈ {1, 0.1, 0.01}.",
    grids={
        "default": dict(n=50_000, d=5, eps=(0.5, 1.0), sigmas=(1.0, 0.1, 0.01, 0.001, 0.0001), reps=3),
        "full": dict(
            n=200_000,
            d=10,
            eps=(0.5, 1.0),
            sigmas=(1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 0.0003, 0.0001),
            reps=5,
        ),
    },
    settings=lambda cfg: (
        f"Ours: d = {cfg['d']}, n = {cfg['n']:,}, ε ∈ {fmt_set(cfg['eps'], fmt_g)} (one panel each), "
        f"δ = 1/n² = {1 / cfg['n'] ** 2:.1e}, σ ∈ {fmt_set(sorted(cfg['sigmas'], reverse=True), fmt_g)}; rows "
        "scaled by 2·max(1, σ√d) and clipped to norm 1."
    ),
    steps=(
        _l41_panels,
        tasks_over(sigma="sigmas"),
        _l41_unit,
        _l41_measure,
        _l41_finding,
        _l41_difference,
        _l41_claims,
    ),
    refs=(
        ("item 12", "item-12"),
        ("item 9", "item-9"),
        ("item 11", "item-11"),
        ("suggested benchmarks", "suggested-benchmarks-for-liu-et-al"),
    ),
    paper_figure=(
        "No figure: Theorems 3.3 and 5.1 say Private Oja's privacy term is flat in σ and DP-PCA's "
        "shrinks with σ (Theorem 5.1 for ε < 0.9).",
    ),
)

"""Top-k DP-PCA by deflation over disjoint parts of the data (Düngler & Sanyal, NeurIPS 2025).

The rows, in a data-independent random order, are cut into k equal parts. Part j runs DP-PCA (Liu et al. 2022,
our :func:`dppca_core.mechanisms.streaming.gradient_ascent`: private range estimate, private mean of the
gradients, minibatch steps) on its rows projected onto the orthogonal complement of the j - 1 vectors released
so far, from a public start vector in that complement; its last iterate is the j-th component.

Privacy: the complement is a function of earlier parts' releases only, and projecting a row of norm <= 1 leaves
its norm <= 1, so every gradient of part j still lies in the ball of radius 1/2 around w/2 and each batch step has
DP-PCA's sensitivity. Every record is used in exactly one batch of one part (a partition by public positions), so
under replace-one the whole run has the guarantee of one batch step (parallel composition), whatever k is.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..audit.design import public_stream
from ..privacy import gaussian_sigma
from ..registry import Output, get_mechanism
from .sources import n_public_mechanism
from .rates import Rate, privacy_regimes, spiked
from .dp_pca_steps import batch_plan, batches, gradient_ascent
from .streaming import (
    DP_PCA_AUDIT_ROWS,
    DP_PCA_READINGS,
    OJA_AUDIT_LR,
    PAPER_LKJO,
    first_step_design,
    dp_pca,
    dp_pca_curve,
    public_start,
)

PAPER_DS = (
    "Düngler & Sanyal, An Iterative Algorithm for Differentially Private k-PCA with Adaptive Noise "
    "(NeurIPS 2025), Algorithm 1 (k-DP-PCA)"
)


def public_draws(n: int, d: int, k: int, rng: np.random.Generator):
    """The public draws of a run: the order of the rows and the first start vector (:func:`public_start`, as
    DP-PCA draws them, so k = 1 is DP-PCA exactly), then k - 1 more standard Gaussian start directions."""
    order, w = public_start(n, d, rng)
    return order, w, rng.standard_normal((max(k - 1, 0), d))


def _in_complement(v: np.ndarray, U: np.ndarray) -> np.ndarray:
    """v projected onto the orthogonal complement of U's columns (twice, for orthogonality in floating point),
    normalised."""
    for _ in range(2):
        v = v - U @ (U.T @ v)
    return v / np.linalg.norm(v)


def topk_audit_design(d: int, n: int, neighbors: str, statistic: str, epsilon: float, delta: float, **_):
    """The canary's own gradient step in the first part, with k = 2 (the registry's ``audit_design`` hook).

    Two parts of DP_PCA_AUDIT_ROWS rows each: each part is one batch released over the public range with the whole
    budget (see :func:`dppca_core.mechanisms.streaming.dp_pca_audit_design`), so the run is exactly
    gaussian_mu(epsilon, delta)-GDP. The canary sits in the first row the public order uses, at 45 degrees from the
    public start vector; the score reads the first published iterate. The second part runs on zero rows and is
    part of every trial's release.
    """
    if statistic not in ("auto", "gradient_step"):
        return None
    if neighbors != "replace":
        raise ValueError(
            "topk_dp_pca has a guarantee for replace-one neighbours only; audit it with " "neighbors='replace'."
        )
    design = first_step_design(2 * DP_PCA_AUDIT_ROWS, d, "gradient_step", {"lr_c1": OJA_AUDIT_LR}, "")
    return dataclasses.replace(
        design,
        k=2,
        note="the canary's own gradient step in the first of k = 2 parts (one "
        "batch over the public range each; public order and start replayed)",
    )


_DP_PCA = get_mechanism("dp_pca")  # registered on import of .streaming, which mechanisms/__init__ imports first


def _topk_terms(p) -> tuple[float, float]:
    """k parts of n / k rows, each DP-PCA's terms."""
    part = max(p.n // max(p.k, 1), 2)
    T = batches(part)
    privacy = T * p.sigma_data * p.d * gaussian_sigma(1.0, p.epsilon, p.delta) / part
    return math.sqrt(p.k) * privacy, math.sqrt(p.k) * p.sigma_data * math.sqrt(T * p.d / part)


TOPK_RATE = Rate(
    "Düngler & Sanyal 2025 (k parts of n / k rows, each DP-PCA's rate): sqrt(k) (sqrt(T V k / n) + T r sqrt(d) k "
    "sigma(eps, delta) / n)",
    terms=_topk_terms,
    regimes=privacy_regimes(
        "k = 2 parts of n / 2 rows, each DP-PCA's privacy term (T ~ (ln n)^2 / 16 batches): slope about -0.9",
        "each part's noise sigma_AGM(1/m, eps, delta)",
        n={"grid": (40000, 80000, 160000, 320000)},
        eps={"grid": (0.25, 0.5, 1.0), "n": 160000},
        data=spiked(5, 2, 30.0),
        reference="population",
        reps=8,
    ),
)


@n_public_mechanism(
    name="topk_dp_pca",
    rate=TOPK_RATE,
    title="Top-k DP-PCA (deflation over disjoint parts; structure inferred from the abstract; rows only)",
    short_name="Top-k DP-PCA (inferred)",
    paper=PAPER_DS,
    needs_rows=True,
    gaussian_dp=False,
    threaded_reps=True,
    audit_statistic="gradient_step",
    audit_descriptions={"gradient_step": DP_PCA_READINGS["gradient_step"]},
    audit_design=topk_audit_design,
    params=_DP_PCA.params,
    notes=(
        "Structure inferred from the abstract; rows only: Düngler & Sanyal's full text could not be read, so this is "
        "our reading of its abstract and of its Algorithm 1's name, and it accepts rows (A_i = x_i x_i^T) where the "
        "paper poses general random symmetric matrices A_i. "
        "Düngler & Sanyal (2025) extend DP-PCA (" + PAPER_LKJO + ") to k > 1: the rows, in a public random order, "
        "are cut into k parts of floor(n / k) rows; part j runs DP-PCA on its rows projected onto the complement "
        "of the components released by parts 1 .. j-1 (from a public random start in that complement) and releases "
        "its last iterate. Each part uses DP-PCA's schedule for its own n / k rows and its sub-routines (private "
        "range of the gradients, Algorithm 4; private mean with truncation, Algorithm 5; the public-range fallback "
        "below the smallest batch they can release from). Privacy: a projected row still has norm <= 1, so each "
        "batch step has DP-PCA's sensitivity, and every record is used in one batch of one part: parallel "
        "composition gives the guarantee of one step, (epsilon, delta) under replace-one with n public, for any k "
        "(k = 1 is DP-PCA exactly, draw for draw). The price of k > 1 is statistical: each vector is learnt from "
        "n / k rows (the paper's upper bound is a factor k above its lower bound). Parameters are DP-PCA's, applied "
        "to every part. The release: the k vectors (in the order found; release_pca orders them by its private "
        "variances), every part's iterates, noise levels, scale estimates and routes."
    ),
    ordered_basis=False,
)
def topk_dp_pca(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2, batch_size, split_budget, K, a, zeta):
    if k == 1:  # DP-PCA itself, draw for draw
        return dp_pca(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2, batch_size, split_budget, K, a, zeta)
    n, d = data.n, data.d
    part = n // k
    order, first, starts = public_draws(n, d, k, public_stream(rng))
    B, T, private_range = batch_plan(part, d, epsilon, delta, zeta, split_budget, batch_size)
    settings = dict(
        epsilon=epsilon, delta=delta, split_budget=split_budget, zeta=zeta, K=K, a=a, lr_c1=lr_c1, lr_c2=lr_c2
    )
    U = np.zeros((d, 0))
    records = {"bottom_count": 0, "noise_sd_per_step": [], "scale_estimates": [], "mean_routes": [], "iterates": []}
    truncated = 0
    for j in range(k):
        rows = order[j * part : (j + 1) * part]
        w = _in_complement(first if j == 0 else starts[j - 1], U)

        def batch_rows(t, rows=rows, U=U):
            batch = data.rows_at(rows[t * B : (t + 1) * B])
            return batch - (batch @ U) @ U.T  # the rows projected onto the complement (norm still <= 1)

        w, steps = gradient_ascent(batch_rows, T, B, w, private_range, rng, **settings)
        U = np.hstack([U, _in_complement(w, U)[:, None]])
        records["bottom_count"] += steps["bottoms"]
        for key, name in (
            ("noise_sd_per_step", "sigmas"),
            ("scale_estimates", "scales"),
            ("mean_routes", "routes"),
            ("iterates", "iterates"),
        ):
            records[key] += steps[name]
        truncated += steps["truncations"]
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(k)])
    return Output(
        U * np.where(signs == 0, 1.0, signs),
        noise_scale=float(np.median(records["noise_sd_per_step"])),
        privacy=dp_pca_curve(epsilon, delta, private_range),
        outputs=records,
        facts={
            "parts": k,
            "rows_per_part": part,
            "batches_per_part": T,
            "batch_size": B,
            "private_range": private_range,
            "noise_on": "mean gradient of each (half-)batch, rows projected off the earlier components",
        },
        diagnostics={"truncated_entries": truncated},
    )

"""One-pass streaming PCA of Liu, Kong, Jain & Oh (NeurIPS 2022): Private Oja and DP-PCA (ALGORITHMS.md §5).

Both estimate the top eigenvector (k = 1) from one pass over the rows in a data-independent random order.
Every record is used in exactly one step (or one batch), so under replace-one with public n the whole run is
(epsilon, delta)-DP when each step is (parallel composition, §1.4); the other steps are post-processing.
"""
from __future__ import annotations

import math

import numpy as np

from ..histogram import argmax_bin, stability_histogram
from ..privacy import PrivacyCurve, gaussian_sigma
from ..registry import Output, Param, mechanism

PAPER_LKJO = "Liu, Kong, Jain & Oh, DP-PCA: Statistically Optimal and Differentially Private PCA (NeurIPS 2022)"
TOP_ONLY = "The paper's algorithms estimate the top eigenvector only (k = 1)."
LR_PARAMS = (
    Param("lr_c1", "float", 2.0, "Learning rate eta_t = c1 / (c2 + t): c1 (data-independent).", low=1e-4, high=1e4,
          log=True),
    Param("lr_c2", "float", 10.0, "Learning rate eta_t = c1 / (c2 + t): c2 (data-independent).", low=0.0, high=1e6),
)


def _start(data, rng):
    order = rng.permutation(data.n)
    w = rng.standard_normal(data.d)
    return data.rows[order], w / np.linalg.norm(w)


@mechanism(
    name="private_oja",
    title="Private Oja (streaming, top eigenvector)",
    paper=PAPER_LKJO + ", Algorithm 2",
    model="central",
    guarantee="approximate",
    relations=("replace",),
    needs_rows=True,
    max_k=1,
    caveat=TOP_ONLY,
    params=LR_PARAMS,
    notes=(
        "One pass of Oja's rule w <- normalise(w + eta_t x_t x_t^T w + 2 eta_t beta alpha z_t) in a random order. "
        "Rows have norm <= 1, so ||x x^T w|| <= 1 and the clipping threshold is beta = 1 (no clipping bias). A "
        "replacement changes one step by at most 2 eta_t beta, so with noise s.d. 2 eta_t beta alpha and "
        "alpha = sigma_AGM(epsilon, delta, 1) that step is (epsilon, delta)-DP and, each record being used once, the "
        "whole run is (parallel composition; replace-one with public n and a data-independent order). The paper "
        "instead calibrates alpha by amplification by shuffling with unspecified constants C, C' (valid only for "
        "epsilon = O(sqrt(log(n/delta)/n))). Its privacy term does not vanish when the data are noiseless "
        "(Example 4.1). Learning-rate defaults are fixed in advance, not tuned on the data."
    ),
)
def private_oja(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2):
    rows, w = _start(data, rng)
    alpha = gaussian_sigma(1.0, epsilon, delta)
    noise = rng.standard_normal((data.n, data.d))
    trace_every = max(1, data.n // 50)
    trace = []
    for t in range(data.n):
        eta = lr_c1 / (lr_c2 + t + 1)
        x = rows[t]
        w = w + eta * (x * (x @ w)) + 2.0 * eta * alpha * noise[t]
        w /= np.linalg.norm(w)
        if (t + 1) % trace_every == 0:
            trace.append(w.copy())
    # one record per step, each step (1/alpha)-GDP in that record: the whole trajectory is (1/alpha)-GDP
    return Output(w[:, None] * np.sign(w[np.argmax(np.abs(w))]), noise_scale=alpha,
                  privacy=PrivacyCurve.gdp(1.0 / alpha), outputs={"iterates": [v[:, None] for v in trace]},
                  facts={"noise_on": "each Oja step (s.d. 2 eta_t alpha)", "steps": data.n,
                         "first_step_noise_sd": 2 * lr_c1 / (lr_c2 + 1) * alpha})


def _budget_for_coordinates(epsilon, delta, d):
    """Per-coordinate (eps_h, delta_h) so that d histograms compose to (epsilon, delta).

    Kairouz-Oh-Viswanath advanced composition as used by the paper (Lemma B.4) needs epsilon <= 0.9; basic
    composition is always valid. Use whichever gives the larger per-coordinate epsilon.
    """
    basic = (epsilon / d, delta / d)
    if epsilon <= 0.9:
        kov = (epsilon / (2.0 * math.sqrt(2.0 * d * math.log(2.0 / delta))), delta / (2.0 * d))
        return max(basic, kov)
    return basic


def _top_eigenvalue_estimate(grads, epsilon, delta, zeta, c1, rng):
    """Algorithm 4: private scale of the gradient spread, or None (⊥)."""
    pairs = grads.shape[0] // 2
    diffs = grads[1 : 2 * pairs : 2] - grads[0 : 2 * pairs : 2]
    groups = math.ceil(c1 * math.log(1.0 / (delta * zeta)) / epsilon)
    size = pairs // groups
    if size < 1:
        return None
    blocks = diffs[: groups * size].reshape(groups, size, -1)
    tops = np.array([np.linalg.norm(b, 2) ** 2 / size for b in blocks])  # top eigenvalue of (1/b) G G^T
    labels = np.where(tops > 0, np.floor(4.0 * np.log2(np.maximum(tops, 1e-300))), -10**9).astype(np.int64)
    best = argmax_bin(stability_histogram(labels, epsilon, delta, rng))
    if best is None:
        return None
    return 0.0 if best == -10**9 else 2.0 ** (best / 4.0)


def _private_mean(grads, epsilon, delta, zeta, scale, K, a, rng):
    """Algorithm 5: truncated Gaussian mean with centres from per-coordinate stability histograms."""
    m, d = grads.shape
    log_a = lambda v: math.log(v) ** a  # noqa: E731
    tau = 2 ** 0.25 * K * math.sqrt(scale) * log_a(25.0)
    radius = 3.0 * K * math.sqrt(scale) * log_a(m * d / zeta)
    eps_h, delta_h = _budget_for_coordinates(epsilon / 2.0, delta / 2.0, d)
    centres = np.zeros(d)
    truncated = 0
    for j in range(d):
        labels = (np.ceil(grads[:, j] / tau) - 1).astype(np.int64)
        best = argmax_bin(stability_histogram(labels, eps_h, delta_h, rng))
        centres[j] = 0.0 if best is None else best * tau  # data-independent fallback when nothing is released
    # rows have norm <= 1, so every gradient coordinate lies in [-1, 1]: intersecting the truncation interval
    # with that public range can only shrink the sensitivity below the paper's 2 r sqrt(d) / m
    lo, hi = np.maximum(centres - radius, -1.0), np.minimum(centres + radius, 1.0)
    hi = np.maximum(hi, lo)
    clipped = np.clip(grads, lo, hi)
    truncated = int(np.sum(clipped != grads))
    sensitivity = float(np.linalg.norm(hi - lo)) / m
    if sensitivity == 0:
        return clipped.mean(axis=0), 0.0, truncated
    sigma = gaussian_sigma(sensitivity, epsilon / 2.0, delta / 2.0)
    return clipped.mean(axis=0) + rng.normal(0.0, sigma, size=d), sigma, truncated


@mechanism(
    name="dp_pca",
    title="DP-PCA (minibatch private gradient ascent)",
    paper=PAPER_LKJO + ", Algorithms 3-5",
    model="central",
    guarantee="approximate",
    relations=("replace",),
    needs_rows=True,
    max_k=1,
    caveat=TOP_ONLY,
    params=(
        Param("lr_c1", "float", 20.0, "Learning rate eta_t = c1 / (c2 + t) over the batches: c1.", low=1e-4,
              high=1e4, log=True),
        Param("lr_c2", "float", 1.0, "Learning rate eta_t = c1 / (c2 + t) over the batches: c2.", low=0.0, high=1e6),
        Param("batch_size", "int", None, "Minibatch size B; default max(n/(ln n)^2, min(n, 2000)).", low=8,
              high=10**7),
        Param("split_budget", "bool", False, "Give Algorithms 4 and 5 (epsilon/2, delta/2) each, as the paper does "
              "(default: each gets (epsilon, delta), valid because the two halves of a batch are disjoint)."),
        Param("K", "float", 4.0, "Sub-Weibull constant K of the gradients (4 for Gaussian data, Remark 3.4).",
              low=0.1, high=100.0),
        Param("a", "float", 1.0, "Sub-Weibull exponent a (1 for Gaussian data).", low=0.1, high=4.0),
        Param("zeta", "float", 0.01, "Failure probability zeta of the analysis.", low=1e-6, high=0.5, log=True),
    ),
    notes=(
        "Per minibatch: the first half privately estimates the scale of the gradient spread (Algorithm 4: top "
        "eigenvalues of groups of gradient differences, stability-based histogram over bins 2^(i/4), C1 = 16), the "
        "second half privately estimates the mean gradient (Algorithm 5: per-coordinate stability histograms find a "
        "centre, gradients are truncated to a radius set by that scale, Gaussian noise with the analytic GM and "
        "sensitivity 2 r sqrt(d)/m, reduced where the interval sticks out of the public range [-1, 1] of a coordinate of x x^T w for rows of norm <= 1). Because the truncation adapts to the spread, the noise shrinks with the data "
        "noise (Example 4.1), unlike Private Oja. Privacy: replace-one with public n (the paper's add/remove "
        "Definition 2.3 does not fit index-based batches or data-centred truncation). Batches and the two halves of a "
        "batch are disjoint, so by parallel composition Algorithms 4 and 5 may each use the full (epsilon, delta) — "
        "the paper's (epsilon/2, delta/2) split is available as split_budget. Inside Algorithm 5 the d coordinate "
        "histograms get (epsilon/2, delta/2) by the paper's advanced composition when epsilon/2 <= 0.9 (the lemma's "
        "condition) and by basic composition otherwise, whichever is larger; the Gaussian step gets the other half. "
        "When Algorithm 4 returns ⊥ the previous scale is reused (the first scale is the public bound 1 for rows of "
        "norm <= 1)."
    ),
)
def dp_pca(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2, batch_size, split_budget, K, a, zeta):
    rows, w = _start(data, rng)
    n, d = data.n, data.d
    B = batch_size or max(int(n / math.log(n) ** 2), min(n, 2000))
    B = min(B, n)
    if B < 8:
        raise ValueError(f"dp_pca needs batches of at least 8 rows (got {B}); use more rows or a larger batch_size.")
    T = n // B
    eps_part, delta_part = (epsilon / 2, delta / 2) if split_budget else (epsilon, delta)
    zeta_t = zeta / (2 * T)
    scale, bottoms, truncations, sigmas, scales, iterates = 1.0, 0, 0, [], [], []
    for t in range(T):
        batch = rows[t * B : (t + 1) * B]
        half = B // 2
        grads = batch * (batch @ w)[:, None]  # A_i w = x_i x_i^T w
        estimate = _top_eigenvalue_estimate(grads[:half], eps_part, delta_part, zeta_t, 16.0, rng)
        if estimate is None:
            bottoms += 1
        else:
            scale = estimate
        mean, sigma, cut = _private_mean(grads[half : 2 * half], eps_part, delta_part, zeta_t, 2.0 * scale, K, a, rng)
        w = w + lr_c1 / (lr_c2 + t + 1) * mean
        norm = np.linalg.norm(w)
        w = w / norm if norm > 0 else w
        truncations += cut
        sigmas.append(sigma)
        scales.append(scale)
        iterates.append(w[:, None].copy())
    # The scale estimates, the number of empty histograms (bottoms) and each step's noise level are functions
    # of the private histogram outputs, so they are covered; how many entries were truncated is not.
    return Output(w[:, None] * np.sign(w[np.argmax(np.abs(w))]), noise_scale=float(np.median(sigmas)),
                  privacy=PrivacyCurve.approx(epsilon, delta),
                  outputs={"bottom_count": bottoms, "noise_sd_per_step": sigmas, "scale_estimates": scales,
                           "iterates": iterates},
                  facts={"batches": T, "batch_size": B, "noise_on": "mean gradient of each half-batch"},
                  diagnostics={"truncated_entries": truncations})

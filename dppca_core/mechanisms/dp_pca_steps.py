"""The private steps of DP-PCA (Liu, Kong, Jain & Oh, NeurIPS 2022, Algorithms 3-5), registered in
:mod:`dppca_core.mechanisms.streaming`: the batch schedule, the private estimate of the top eigenvalue from a
stability histogram over groups of the first half-batch, the private mean of each batch (by one of three routes) and
the private gradient ascent over the batches.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..privacy.histogram import argmax_bin, stability_histogram
from ..privacy import gaussian_sigma


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


# Algorithm 4 partitions the first half-batch into C1 ln(1/(delta zeta)) / epsilon groups. The paper leaves C1
# open; with C1 = 16 the top bin holds at least half the groups and clears the histogram's threshold.
EIGEN_GROUPS_C1 = 16.0


# The paper's batch schedule B = c n / (ln n)^2 (Theorem 5.1), i.e. about (ln n)^2 / c iterations; c is not given
# there. With c = 16 a run has 7-12 iterations for n between 2e4 and 1e6.
BATCH_CONSTANT = 16.0


def batches(n: int) -> int:
    """About how many batches (iterations) DP-PCA's schedule makes of n rows: ceil((ln n)^2 / BATCH_CONSTANT)."""
    return max(1, math.ceil(math.log(max(n, 2)) ** 2 / BATCH_CONSTANT))


def _budgets(epsilon, delta, split_budget):
    """(epsilon, delta) of Algorithm 4 and of Algorithm 5 within one batch."""
    return (epsilon / 2, delta / 2) if split_budget else (epsilon, delta)


def eigen_groups(epsilon, delta, zeta_t):
    return math.ceil(EIGEN_GROUPS_C1 * math.log(1.0 / (delta * zeta_t)) / epsilon)


def min_batch_size(d, epsilon, delta, zeta_t, split_budget=False):
    """Smallest batch B for which Algorithms 4 and 5 can release anything (data-independent).

    * Algorithm 4 needs at least one pair difference per group: B >= 4 * C1 ln(1/(delta zeta_t)) / epsilon.
    * Algorithm 5's coordinate histograms (budget (eps_h, delta_h) each) suppress counts below
      1 + 2 ln(2/delta_h)/eps_h. The bin width is several times the spread of the gradients, so at least half of
      the m = B/2 values share the top bin; it clears the threshold in all d coordinates with probability
      1 - zeta_t/2 when m/2 >= 1 + (2/eps_h)(ln(2/delta_h) + ln(d/zeta_t)) (Laplace(2/eps_h) lower tail, union bound).
    """
    eps_part, delta_part = _budgets(epsilon, delta, split_budget)
    b4 = 4 * eigen_groups(eps_part, delta_part, zeta_t)
    eps_h, delta_h = _budget_for_coordinates(eps_part / 2.0, delta_part / 2.0, d)
    m5 = 2.0 * (1.0 + 2.0 / eps_h * (math.log(2.0 / delta_h) + math.log(d / zeta_t)))
    return max(8, b4, 2 * math.ceil(m5))


#: How each batch's mean gradient was released (``outputs["mean_routes"]`` of :func:`dp_pca`, one per batch):
#: Algorithm 5 truncating around the centres its histograms found; Algorithm 5 over the public range (its radius
#: r >= 1/2, or the public range gives less noise); or the fallback below the smallest batch from which Algorithms
#: 4-5 can release anything. The first two follow from the released scale estimate and public m, d; the third
#: from public n, d, epsilon, delta only (:func:`dp_pca_schedule`).
ROUTE_TRUNCATED, ROUTE_PUBLIC_RANGE, ROUTE_FALLBACK = "truncated", "public range", "fallback"


def dp_pca_schedule(n, d, epsilon, delta, zeta=0.01, split_budget=False):
    """The paper's batch schedule from public n, d, epsilon, delta: (B, T, private_range).

    Theorem 5.1 takes B = c n/(ln n)^2, i.e. T = ceil((ln n)^2 / c) iterations (c = BATCH_CONSTANT), so that the
    batch grows in proportion to n up to a log factor; that is what makes the privacy term fall like 1/n. The
    private sub-routines (Algorithms 4 and 5) can only release anything when B >= :func:`min_batch_size` (a
    function of d, epsilon, delta and, through zeta/(2T), of T) — the sample-size condition of the theorem. Below
    it ``private_range`` is False and every batch's mean gradient is released over the public range instead, with
    the whole batch and budget (sensitivity 1/B: two gradients differ by at most 1), so the error still falls
    with n.
    """
    T = max(1, math.ceil(math.log(max(n, 2)) ** 2 / BATCH_CONSTANT))
    B = n // T
    return B, T, B >= min_batch_size(d, epsilon, delta, zeta / (2 * T), split_budget)


def _top_eigenvalue_estimate(grads, epsilon, delta, zeta, rng):
    """Algorithm 4: private estimate of the top eigenvalue of the gradients' covariance, or None (⊥).

    The pair differences have twice the covariance of the gradients, so each group's top eigenvalue of
    (1/b) G G^T is halved: the estimate then targets lambda_1^2 ||H_u|| as the paper's Theorem 6.1 states (its
    pseudo-code omits the factor 2, which only made the truncation wider). The top eigenvalue of every group comes
    from the smaller of the two Gram matrices (d x d or b x b) by a batched symmetric eigensolver: exact to
    rounding (relative error ~1e-15), far inside the histogram's bin width 2^(1/4), so the released bin is the one
    an exact SVD would give (up to values within 1e-15 of a bin edge).
    """
    pairs = grads.shape[0] // 2
    diffs = grads[1 : 2 * pairs : 2] - grads[0 : 2 * pairs : 2]
    groups = eigen_groups(epsilon, delta, zeta)
    size = pairs // groups
    if size < 1:
        return None
    blocks = diffs[: groups * size].reshape(groups, size, -1)
    if size >= blocks.shape[2]:
        grams = np.matmul(blocks.transpose(0, 2, 1), blocks)
    else:
        grams = np.matmul(blocks, blocks.transpose(0, 2, 1))
    tops = np.linalg.eigvalsh(grams)[:, -1] / (2.0 * size)
    labels = np.where(tops > 0, np.floor(4.0 * np.log2(np.maximum(tops, 1e-300))), -(10**9)).astype(np.int64)
    best = argmax_bin(stability_histogram(labels, epsilon, delta, rng))
    if best is None:
        return None
    return 0.0 if best == -(10**9) else 2.0 ** (best / 4.0)


def _coordinate_centres(grads, tau, epsilon, delta, rng):
    """Per-coordinate stability histograms over bins (l tau, (l+1) tau]; the left end of the top bin, or NaN (⊥)."""
    m, d = grads.shape
    eps_h, delta_h = _budget_for_coordinates(epsilon, delta, d)
    centres = np.full(d, np.nan)
    labels = grads if tau == 0 else np.ceil(grads / tau) - 1.0  # tau = 0: bins are single values
    for j in range(d):
        best = argmax_bin(stability_histogram(labels[:, j], eps_h, delta_h, rng))
        if best is not None:
            centres[j] = best if tau == 0 else best * tau
    return centres


@functools.lru_cache(maxsize=256)  # a pure function of public numbers, the same for every batch of a run
def _histogram_share(m, d, epsilon, delta, zeta):
    """Budget of Algorithm 5's centre histograms: just enough to release, at most half (public m, d only).

    The d coordinate histograms together get (eps_hist, delta/2) with eps_hist the smallest value (at most
    epsilon/2, the paper's split) for which a top bin holding m/2 of the m values clears the suppression
    threshold in every coordinate with probability 1 - zeta/2 (see :func:`min_batch_size`); the Gaussian step gets
    (epsilon - eps_hist, delta/2). Basic composition of the two parts gives (epsilon, delta) for any split that is
    fixed before the data are seen.
    """
    half = epsilon / 2.0
    slack = m / 2.0 - 1.0
    if slack <= 0:
        return half
    delta_h = delta / 2.0 / d  # per-coordinate delta under either composition rule is at least this
    need_h = 2.0 * (math.log(2.0 / delta_h) + math.log(d / zeta)) / slack  # per-coordinate epsilon needed
    lo, hi = need_h, half
    if _budget_for_coordinates(hi, delta / 2.0, d)[0] < need_h:
        return half
    for _ in range(60):  # smallest total whose per-coordinate share reaches need_h (monotone in the total)
        mid = 0.5 * (lo + hi)
        if _budget_for_coordinates(mid, delta / 2.0, d)[0] >= need_h:
            hi = mid
        else:
            lo = mid
    return hi


def _mean_route(m, d, epsilon, delta, zeta, scale, K, a):
    """Algorithm 5's plan for m gradients in R^d at the released ``scale``: (radius r, the centre histograms'
    epsilon, whether it truncates around histogram centres). It truncates unless r >= 1/2 or the public range with
    the whole budget gives less noise (see :func:`_private_mean`). A function of public numbers and the released
    scale only, so the route may be published (``outputs["mean_routes"]`` of :func:`dp_pca`)."""
    radius = 3.0 * K * math.sqrt(scale) * math.log(m * d / zeta) ** a
    eps_hist = _histogram_share(m, d, epsilon, delta, zeta)
    whole = gaussian_sigma(1.0 / m, epsilon, delta)
    boxed = gaussian_sigma(max(min(2.0 * radius * math.sqrt(d), 1.0), 1e-300) / m, epsilon - eps_hist, delta / 2.0)
    return radius, eps_hist, not (radius >= 0.5 or whole <= boxed)


def _private_mean(grads, w, epsilon, delta, zeta, scale, K, a, rng):
    """Algorithm 5: truncated Gaussian mean, with the tightest sensitivity the truncation proves.

    Every gradient x x^T w (rows of norm <= 1, w a unit vector, public at this step) lies in the ball of radius 1/2
    around w/2: two gradients differ by at most 1, and coordinate j lies in the public range [w_j/2 - 1/2,
    w_j/2 + 1/2]. Two routes, chosen from public m, d and the released scale only:

    * the public range with this algorithm's whole budget on the Gaussian step (sensitivity 1/m) — always when the
      radius r = 3 K sqrt(scale) ln^a(m d / zeta) is at least 1/2 (truncating to [c - r, c + r] cannot beat the
      public range then, whatever the centre), and whenever it gives less noise than the other route;
    * otherwise the centres come from per-coordinate stability histograms (budget :func:`_histogram_share`), each
      coordinate is truncated to [c - r, c + r] intersected with its public range (the whole range where its histogram
      released nothing, a data-independent rule), and the Gaussian step gets the rest of the budget.

    Truncating is the Euclidean projection onto the box [lo, hi], which is non-expansive, so a replacement moves
    the truncated mean by at most min(||hi - lo||_2, ||g - g'||_2) / m <= min(||hi - lo||_2, 1) / m: the paper's
    2 r sqrt(d) / m, reduced where the box sticks out of the public range and capped at 1/m.
    Returns the noisy mean, the noise s.d. and the number of truncated entries (not private). ``grads`` is
    truncated in place.
    """
    m, d = grads.shape
    radius, eps_hist, centred = _mean_route(m, d, epsilon, delta, zeta, scale, K, a)
    low, high = w / 2.0 - 0.5, w / 2.0 + 0.5  # the public range of each coordinate
    if not centred:
        lo, hi = low, high
        eps_g, delta_g = epsilon, delta
    else:
        tau = 2**0.25 * K * math.sqrt(scale) * math.log(25.0) ** a
        centres = _coordinate_centres(grads, tau, eps_hist, delta / 2.0, rng)
        found = ~np.isnan(centres)
        lo = np.where(found, np.maximum(centres - radius, low), low)
        hi = np.where(found, np.minimum(centres + radius, high), high)
        hi = np.maximum(hi, lo)
        eps_g, delta_g = epsilon - eps_hist, delta / 2.0
    truncated = int(np.count_nonzero(grads < lo) + np.count_nonzero(grads > hi))
    clipped = np.minimum(np.maximum(grads, lo, out=grads), hi, out=grads)  # in place: no batch-sized temporary
    sensitivity = min(float(np.linalg.norm(hi - lo)), 1.0) / m
    if sensitivity == 0:
        return clipped.mean(axis=0), 0.0, truncated
    sigma = gaussian_sigma(sensitivity, eps_g, delta_g)
    return clipped.mean(axis=0) + rng.normal(0.0, sigma, size=d), sigma, truncated


def batch_plan(n, d, epsilon, delta, zeta, split_budget, batch_size=None):
    """(B, T, private_range) for n rows: the paper's schedule, or a given batch size."""
    if batch_size is None:
        B, T, private_range = dp_pca_schedule(n, d, epsilon, delta, zeta, split_budget)
    else:
        B = min(batch_size, n)
        T = n // B
        private_range = B >= min_batch_size(d, epsilon, delta, zeta / (2 * T), split_budget)
    if B < 8:
        raise ValueError(f"dp_pca needs batches of at least 8 rows (got {B}); use more rows or a larger batch_size.")
    return B, T, private_range


def gradient_ascent(batch_rows, T, B, w, private_range, rng, *, epsilon, delta, split_budget, zeta, K, a, lr_c1, lr_c2):
    """DP-PCA's T minibatch steps (Algorithm 3) from the unit vector ``w``; ``batch_rows(t)`` returns batch t's rows
    (a new array of B rows, overwritten by the gradients). Returns the last iterate and every step's record
    (noise s.d., scale estimate, route, iterate; the number of empty histograms; truncated entries, not private)."""
    eps_part, delta_part = _budgets(epsilon, delta, split_budget)
    zeta_t = zeta / (2 * T)
    d = w.shape[0]
    scale, steps = 1.0, {"bottoms": 0, "truncations": 0, "sigmas": [], "scales": [], "iterates": [], "routes": []}
    for t in range(T):
        batch = batch_rows(t)
        grads = np.multiply(batch, (batch @ w)[:, None], out=batch)  # A_i w = x_i x_i^T w
        if private_range:
            half = B // 2
            estimate = _top_eigenvalue_estimate(grads[:half], eps_part, delta_part, zeta_t, rng)
            if estimate is None:
                steps["bottoms"] += 1
            else:
                scale = estimate
            centred = _mean_route(half, d, eps_part, delta_part, zeta_t, 2.0 * scale, K, a)[2]
            steps["routes"].append(ROUTE_TRUNCATED if centred else ROUTE_PUBLIC_RANGE)
            mean, sigma, cut = _private_mean(
                grads[half : 2 * half], w, eps_part, delta_part, zeta_t, 2.0 * scale, K, a, rng
            )
        else:  # no sub-routine could release at this batch size: the public range, whole batch and budget
            steps["routes"].append(ROUTE_FALLBACK)
            sigma, cut = gaussian_sigma(1.0 / B, epsilon, delta), 0  # gradients differ by at most 1
            mean = grads.mean(axis=0) + rng.normal(0.0, sigma, size=d)
        w = w + lr_c1 / (lr_c2 + t + 1) * mean
        norm = np.linalg.norm(w)
        w = w / norm if norm > 0 else w
        steps["truncations"] += cut
        steps["sigmas"].append(sigma)
        steps["scales"].append(scale)
        steps["iterates"].append(w[:, None].copy())
    return w, steps

"""Stability-based histogram over countably many bins (Karwa & Vadhan 2017, Lemma 2.3)."""

from __future__ import annotations

import math

import numpy as np


def stability_threshold(epsilon: float, delta: float) -> float:
    """Noisy counts below this are suppressed (replace-one: 1 + 2 ln(2/delta)/epsilon)."""
    return 1.0 + 2.0 * math.log(2.0 / delta) / epsilon


def stability_histogram(labels, epsilon: float, delta: float, rng: np.random.Generator) -> dict:
    """(epsilon, delta)-DP histogram of integer bin labels under replace-one.

    Only occupied bins get noise: each count + Laplace(2/epsilon) (a replacement moves one item, so two counts
    change by 1: L1 sensitivity 2), and a noisy count below :func:`stability_threshold` is released as 0. A bin
    occupied in only one of two neighbouring datasets holds one item there and passes the threshold with
    probability P(Lap(2/eps) >= 2 ln(2/delta)/eps) = delta/4; at most two such bins give delta/2 <= delta.
    Returns {bin: noisy count} for the released (non-zero) bins.
    """
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    noisy = counts + rng.laplace(0.0, 2.0 / epsilon, size=counts.size)
    keep = noisy >= stability_threshold(epsilon, delta)
    return {v.item(): float(c) for v, c in zip(values[keep], noisy[keep])}


def argmax_bin(released: dict):
    """The released bin with the largest noisy count, or None when every bin was suppressed."""
    if not released:
        return None
    return max(released.items(), key=lambda item: item[1])[0]

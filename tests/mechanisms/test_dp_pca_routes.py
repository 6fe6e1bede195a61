"""DP-PCA says which route released each batch's mean gradient (outputs["mean_routes"]), and the fallback below
Algorithms 4-5's smallest batch depends on public n, d, epsilon and delta only, never on the rows."""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.mechanisms.dp_pca_steps import (
    ROUTE_FALLBACK,
    ROUTE_PUBLIC_RANGE,
    ROUTE_TRUNCATED,
    dp_pca_schedule,
    min_batch_size,
)


def _rows(n, d, seed, scale):
    X = np.random.default_rng(seed).standard_normal((n, d)) * scale
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)


@pytest.mark.parametrize("n, d, eps", [(2000, 3, 0.9), (30_000, 3, 0.9), (30_000, 3, 0.5)])
def test_the_fallback_is_a_function_of_public_sizes_only(n, d, eps):
    delta = 1.0 / n**2
    B, T, private_range = dp_pca_schedule(n, d, eps, delta)
    assert private_range == (B >= min_batch_size(d, eps, delta, 0.01 / (2 * T)))
    # two very different data sets of the same shape: the same schedule and, below the threshold, the same routes
    for seed, scale in ((0, 0.05), (1, 3.0)):
        rel = dc.run("dp_pca", _rows(n, d, seed, scale), 1, eps, delta, seed=seed)
        routes = rel.outputs["mean_routes"]
        assert len(routes) == T and rel.facts["private_range"] is private_range
        if private_range:
            assert set(routes) <= {ROUTE_TRUNCATED, ROUTE_PUBLIC_RANGE}
        else:
            assert routes == [ROUTE_FALLBACK] * T


def test_algorithm_5_truncates_once_the_released_scale_is_small():
    """Example 4.1's signal with tiny data noise: the gradients' spread is tiny, Algorithm 4 releases a small
    scale, the radius r = 3 K sqrt(2 scale) ln^a(m d / zeta) drops below 1/2 and Algorithm 5 truncates."""
    from dppca_core.data import datasets as ds

    law = ds.liu_example_41(n=30_000, d=3, sigma=1e-4, seed=0)
    X = law.X / np.maximum(np.linalg.norm(law.X, axis=1, keepdims=True), 1.0)
    rel = dc.run("dp_pca", X, 1, 0.9, 1.0 / 30_000**2, seed=0, K=1.63, a=0.5)
    routes = rel.outputs["mean_routes"]
    assert rel.facts["private_range"] and ROUTE_TRUNCATED in routes
    # the first batch starts from the public scale bound 1 (no truncation possible), later ones may truncate
    assert routes[0] == ROUTE_PUBLIC_RANGE
    assert rel.published()["outputs"]["mean_routes"] == routes  # covered: part of what the release publishes

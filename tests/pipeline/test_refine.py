"""Refine instead of replace (issue 60): two releases of the same noisy statistic combined by inverse variance are as
accurate as one release at their composed budget, state that composed guarantee, and are refused where they cannot
be combined."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, publishable
from dppca_core.pipeline.refine import refine
from dppca_core.privacy import gaussian_mu

D, K, N = 8, 2, 2000


def _rows(seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(D, K)))
    X = rng.normal(size=(N, K)) * [3.0, 2.0] @ U.T + 0.5 * rng.normal(size=(N, D))
    return X / np.max(np.linalg.norm(X, axis=1)), U


def test_a_refinement_is_as_accurate_as_one_release_at_the_composed_budget():
    """200 refinements (two releases at epsilon = 0.5 each) against 200 single releases at the composed mu: the
    combined noise is the single release's to the last digit, and their subspace errors agree (a two-sample test at
    the 0.1% level on the means; the error's spread from the same draws)."""
    X, _ = _rows()
    exact = dc.run("non_private", X, K, 1.0, data_norm=1.0).components
    mu_each = gaussian_mu(0.5, 1e-6)
    single_eps = dc.privacy.gaussian_epsilon(math.sqrt(2) * mu_each, 2e-6)
    refined, single = [], []
    for seed in range(200):
        first = dc.run("analyze_gauss", X, K, 0.5, 1e-6, data_norm=1.0, seed=2 * seed)
        second = dc.run("analyze_gauss", X, K, 0.5, 1e-6, data_norm=1.0, seed=2 * seed + 1)
        both = refine([first, second])
        one = dc.run("analyze_gauss", X, K, single_eps, 2e-6, data_norm=1.0, seed=10_000 + seed)
        if seed == 0:
            assert both.noise_scale == pytest.approx(one.noise_scale, rel=1e-9)
            assert both.privacy.mu == pytest.approx(math.sqrt(2) * mu_each, rel=1e-12)
            assert both.epsilon == pytest.approx(single_eps, rel=1e-9) and both.delta == pytest.approx(2e-6)
        refined.append(metrics.subspace_distance(both.components, exact))
        single.append(metrics.subspace_distance(one.components, exact))
    refined, single = np.array(refined), np.array(single)
    spread = math.sqrt(refined.var(ddof=1) / 200 + single.var(ddof=1) / 200)
    assert abs(refined.mean() - single.mean()) < 3.3 * spread, (refined.mean(), single.mean())
    # and far better than either release alone (each at half the budget)
    alone = [
        metrics.subspace_distance(dc.run("analyze_gauss", X, K, 0.5, 1e-6, data_norm=1.0, seed=s).components, exact)
        for s in range(50)
    ]
    assert refined.mean() < 0.85 * np.mean(alone)


def test_a_refined_release_is_published_with_its_composed_guarantee():
    X, _ = _rows(1)
    first = dc.release_pca("analyze_gauss", X, K, 0.3, 1e-6, data_norm=1.0)
    second = dc.release_pca("analyze_gauss", X, K, 1.0, 1e-6, data_norm=1.0)
    both = refine([first, second])
    pub = dc.publish(both)
    assert pub["outputs"]["refined_from"] == 2 and pub["facts"]["refinement"]["releases"] == 2
    assert "matrix" not in str(pub) and "state" not in pub  # the noisy matrix itself is never published
    file = publishable.publishable_file({"analyze_gauss": pub})
    assert file["releases"]["analyze_gauss"]["epsilon"] == pytest.approx(both.epsilon)


def test_what_cannot_be_combined_is_refused_in_words():
    X, _ = _rows(2)
    ag = dc.run("analyze_gauss", X, K, 1.0, data_norm=1.0, seed=0)
    with pytest.raises(ValueError, match="not one noisy statistic"):
        refine([ag, dc.run("private_power", X, K, 1.0, data_norm=1.0, seed=1)])
    centred = dc.release_pca("analyze_gauss", X, K, 1.0, data_norm=1.0, seed=2, center="private")
    with pytest.raises(ValueError, match="spent part of its budget"):
        refine([ag, centred])
    with pytest.raises(ValueError, match="not of the same statistic"):
        refine([ag, dc.run("analyze_gauss", X, K, 1.0, data_norm=2.0, seed=3)])
    with pytest.raises(ValueError, match="at least two"):
        refine([ag])

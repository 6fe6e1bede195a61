"""Private Oja and DP-PCA (Liu, Kong, Jain & Oh 2022) and the stability histogram."""
import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.datasets import liu_example_41, liu_spiked
from dppca_core.histogram import stability_histogram, stability_threshold
from dppca_core.mechanisms.streaming import _budget_for_coordinates


def mean_error(name, data, eps=1.0, reps=4, **params):
    return np.mean([metrics.subspace_distance(dc.run(name, data.X, 1, eps, 1e-5, seed=r, **params).components,
                                              data.components) for r in range(reps)])


def test_example_41_dp_pca_error_follows_data_noise_private_oja_does_not():
    # Example 4.1: x = +-v/2 + N(0, (sigma/2)^2 I). DP-PCA truncates gradients to a radius set by their private
    # spread (~ sigma), so its privacy noise shrinks with sigma; Private Oja's noise (2 eta alpha per step) does not.
    errors = {(m, s): mean_error(m, liu_example_41(n=20000, d=10, sigma=s, seed=0))
              for m in ("dp_pca", "private_oja") for s in (0.1, 0.001)}
    assert errors[("dp_pca", 0.001)] < 0.5 * errors[("dp_pca", 0.1)]
    assert errors[("private_oja", 0.001)] > 0.8 * errors[("private_oja", 0.1)]
    assert errors[("dp_pca", 0.001)] < 0.5 * errors[("private_oja", 0.001)]


@pytest.mark.parametrize("name", ["dp_pca", "private_oja"])
def test_error_falls_with_epsilon_and_n(name):
    # Example 4.1 with sigma = 0.1 (eigengap 0.25): at n = 40000 both learn well at large epsilon
    big = liu_example_41(n=40000, d=10, sigma=0.1, seed=0)
    small = liu_example_41(n=4000, d=10, sigma=0.1, seed=0)
    assert mean_error(name, big, eps=20.0) < 0.5 * mean_error(name, big, eps=0.2)
    assert mean_error(name, big, eps=200.0) < 0.5 * mean_error(name, small, eps=200.0)


def test_private_oja_calibration_and_restrictions():
    data = liu_spiked(n=3000, d=5, seed=0)
    rel = dc.run("private_oja", data.X, 1, 1.0, 1e-5, seed=0)
    assert rel.noise_scale == pytest.approx(privacy.gaussian_sigma(1.0, 1.0, 1e-5))
    assert np.linalg.norm(rel.components) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="k <= 1"):
        dc.run("private_oja", data.X, 2, 1.0)
    with pytest.raises(ValueError, match="replace"):
        dc.run("dp_pca", data.X, 1, 1.0, neighbors="add_remove")
    a = dc.run("dp_pca", data.X, 1, 1.0, seed=4)
    b = dc.run("dp_pca", data.X, 1, 1.0, seed=4)
    assert np.array_equal(a.components, b.components)


def test_dp_pca_split_budget_adds_noise():
    data = liu_example_41(n=8000, d=6, sigma=0.01, seed=2)
    full = dc.run("dp_pca", data.X, 1, 1.0, 1e-5, seed=0)
    split = dc.run("dp_pca", data.X, 1, 1.0, 1e-5, seed=0, split_budget=True)
    assert split.noise_scale > full.noise_scale


def test_coordinate_budget_uses_advanced_composition_only_where_valid():
    eps_h, delta_h = _budget_for_coordinates(0.5, 1e-5, 2000)
    assert eps_h == pytest.approx(0.5 / (2 * math.sqrt(2 * 2000 * math.log(2 / 1e-5))))  # KOV beats 0.5/2000
    assert delta_h == pytest.approx(1e-5 / 4000)
    assert _budget_for_coordinates(0.5, 1e-5, 10) == pytest.approx((0.05, 1e-6))  # few coordinates: basic is larger
    assert _budget_for_coordinates(2.0, 1e-5, 50) == (2.0 / 50, 1e-5 / 50)  # eps > 0.9: basic composition


def test_stability_histogram_counts_threshold_and_rare_bins():
    rng = np.random.default_rng(0)
    labels = np.array([3] * 500 + [7] * 2)
    out = stability_histogram(labels, 1.0, 1e-3, rng)
    assert set(out) == {3} and abs(out[3] - 500) < 30  # Laplace(2) noise; bin 7 is far below the threshold
    assert stability_threshold(1.0, 1e-3) == pytest.approx(1 + 2 * math.log(2000))
    # a bin holding a single item is released with probability delta/4 (ALGORITHMS.md §5.6)
    eps, delta, trials = 1.0, 0.2, 20000
    released = sum(1 in stability_histogram(np.array([1]), eps, delta, rng) for _ in range(trials))
    p = delta / 4
    assert abs(released / trials - p) < 5 * math.sqrt(p * (1 - p) / trials)

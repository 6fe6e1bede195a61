"""Distributed and local mechanisms: calibration, the CAPE joint view, and statistical behaviour."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.privacy import cape_noise_design, joint_view_mu
from dppca_core.data.sites import split_sites
from tests.helpers import sparse_spiked_rows, spiked_rows


def mean_error(name, X, U, k, eps, reps=12, **params):
    return np.mean(
        [metrics.subspace_distance(dc.run(name, X, k, eps, 1e-5, seed=s, **params).components, U) for s in range(reps)]
    )


def test_cape_reaches_pooled_and_beats_conventional_and_local():
    X, U = spiked_rows(10000, 10, 3, seed=11)
    eps = 0.5
    pooled = mean_error("analyze_gauss", X, U, 3, eps)
    cape = mean_error("cape_pca", X, U, 3, eps, sites=10)
    conv = mean_error("dist_conventional", X, U, 3, eps, sites=10)
    local = mean_error("dist_local", X, U, 3, eps, sites=10)
    # capePCA's final noise equals the pooled level up to the joint-view inflation (<0.5%), so the means of
    # 12 draws agree to Monte Carlo error (~10% relative here); conventional has sqrt(S) ~ 3.2x the noise s.d.
    assert cape == pytest.approx(pooled, rel=0.2)
    assert cape < 0.6 * conv and conv < local


@pytest.mark.parametrize("sizes", [[1000] * 10, [100, 200, 300, 400, 1000], [50, 5000], [700]])
def test_cape_design_is_private_and_cancels(sizes):
    eps, delta = 1.0, 1e-2
    design = cape_noise_design(sizes, eps, delta)
    w = design["weights"]
    # the aggregator's joint view is (eps, delta)-DP for every site
    assert np.all(joint_view_mu(sizes, design["cov_e"], design["var_g"]) <= design["mu_target"] * (1 + 1e-9))
    # the correlated noise cancels in the weighted sum
    assert w @ design["cov_e"] @ w == pytest.approx(0.0, abs=1e-12 * np.abs(design["cov_e"]).max() + 1e-300)
    # each single message (e + f + g, and e + g without f) carries at least the site's own AG noise
    tau2 = design["tau"] ** 2
    assert np.all(np.diag(design["cov_e"]) + design["var_g"] >= tau2 * (1 - 1e-9)) or len(sizes) == 1
    assert np.all(design["var_f"] + design["var_g"] >= tau2 * (1 - 1e-9))
    # final noise is the pooled Analyze Gauss level times the small inflation
    assert np.sqrt(np.sum(w**2 * design["var_g"])) == pytest.approx(design["tau_c"] * design["inflation"])
    assert 1.0 <= design["inflation"] < 1.01


def test_cape_joint_view_gap_without_large_e():
    # CAPE joint view: with Var(e) at the paper's level the joint view leaks sqrt(2S/(S+1)) times more
    for S, factor in [(2, 1.1547), (5, 1.2910), (10, 1.3484)]:
        design = cape_noise_design([1000] * S, 1.0, 1e-2, kappa=1.0)
        assert design["inflation"] == pytest.approx(factor, rel=1e-3)


def test_cape_communication_and_trust_are_stated():
    X, _ = spiked_rows(2000, 6, 2, seed=0)
    rel = dc.run("cape_pca", X, 2, 1.0, sites=4, seed=0)
    assert rel.facts["communication"] == {"messages": 12, "numbers": 12 * 21}
    notes = dc.get_mechanism("cape_pca").notes
    assert "trusted" in notes and "collud" in notes


def test_dps_pca_converges_geometrically_to_a_floor_that_shrinks_with_epsilon():
    X, U, support = sparse_spiked_rows(20000, 60, 2, 6, seed=5)

    def trace(eps, seed):
        rel = dc.run("dps_pca", X, 2, eps, 1e-5, seed=seed, sites=4, sparsity=12, iterations=12)
        return np.array([metrics.subspace_distance(Q, U) for Q in rel.outputs["iterates"]])

    low = np.mean([trace(0.3, s) for s in range(6)], axis=0)
    high = np.mean([trace(5.0, s) for s in range(6)], axis=0)
    # from a random start (error ~ sqrt(k) = 1.41) the error drops fast in the first iterations...
    assert high[3] < 0.5 * high[0]
    # ...then flattens: the last iterations change little (a floor)
    assert abs(high[-1] - high[-3]) < 0.05
    # and the floor is lower for the larger epsilon
    assert high[-3:].mean() < 0.7 * low[-3:].mean()


def test_dps_pca_noise_is_gdp_composed_per_provider():
    X, _ = spiked_rows(2000, 6, 2, seed=0)
    rel = dc.run("dps_pca", X, 2, 1.0, 1e-5, seed=0, sites=3, iterations=9)
    assert rel.noise_scale == pytest.approx(3 * privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5))
    rel1 = dc.run("dps_pca", X, 1, 1.0, 1e-5, seed=0, sites=3, iterations=9)
    assert rel1.noise_scale == pytest.approx(3 * privacy.gaussian_sigma(1.0, 1.0, 1e-5))
    diag = dc.run("dps_pca", X, 2, 1.0, 1e-5, seed=0, sites=3, iterations=9, init="noisy_diagonal")
    assert diag.noise_scale == pytest.approx(math.sqrt(10) * privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5))


def test_ldp_gaussian_uses_sqrt2_sensitivity_and_learns_with_n_and_eps():
    rel = dc.run("ldp_gaussian", spiked_rows(500, 5, 2)[0], 2, 1.0, 1e-4, seed=0)
    assert rel.noise_scale == pytest.approx(privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-4))
    X, U = spiked_rows(50000, 5, 2, seed=2)
    assert mean_error("ldp_gaussian", X, U, 2, 8.0, reps=6) < 0.7 * mean_error("ldp_gaussian", X, U, 2, 0.5, reps=6)
    X_small, U_small = spiked_rows(2000, 5, 2, seed=2)
    assert mean_error("ldp_gaussian", X, U, 2, 2.0, reps=6) < 0.7 * mean_error(
        "ldp_gaussian", X_small, U_small, 2, 2.0, reps=6
    )
    with pytest.raises(ValueError, match="replace"):
        dc.run("ldp_gaussian", X, 2, 1.0, neighbors="add_remove")


def test_split_sites_forms_and_errors():
    assert [p.size for p in split_sites(10, 3)] == [4, 3, 3]
    assert [p.size for p in split_sites(10, [2, 3, 5])] == [2, 3, 5]
    labels = np.array(list("abab" "cc" "bbaa"))
    assert [p.tolist() for p in split_sites(10, labels)][0] == [0, 2, 8, 9]
    with pytest.raises(ValueError, match="sum to 9"):
        split_sites(10, [2, 2, 5])
    with pytest.raises(ValueError, match="out of range"):
        split_sites(10, 6)
    with pytest.raises(ValueError, match="fewer than 2 rows"):
        split_sites(10, np.array([0] * 9 + [1]))
    X, _ = spiked_rows(100, 5, 2)
    with pytest.raises(ValueError, match="sites"):
        dc.run("cape_pca", X, 2, 1.0, sites=0)
    with pytest.raises(ValueError, match="site = 7 does not exist"):
        dc.run("dist_local", X, 2, 1.0, sites=3, site=7)


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
audit/cape_pca 7444e04a97d95e9a04abc1a1 f309626f2130be04
run/cape_pca 055cd69ce085d33de62eca35 2626e0b8c0d2d4ff
run/cape_pca/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/dist_conventional 841e53dac7d6e6ca598a7d02 bf3cc5c682119b05
run/dist_conventional/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/dist_local 5b50523b7710061195ba7197 411fb15e4d2cc301
run/dist_local/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/dps_pca 8c2ae442ef4689ea64052c0f 249d7e6a10114ff6
run/dps_pca/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
"""

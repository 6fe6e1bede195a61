"""The analyst's choices made privately (issue 22): the clipping radius, column scales and k, each from its own share
(or as post-processing), composed with the rest of the release into the one total budget."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import audit as audit_mod
from dppca_core.pipeline.budget import BudgetSplit, release_pca
from dppca_core.pipeline.choices import RADIUS_BINS, choose_k, private_column_scales, private_radius, radius_edges
from dppca_core.privacy import gaussian_mu
from dppca_core.privacy.shares import Share

N = 10_000
SHARE_10 = Share(0.1, 0.0, 1e-6, math.sqrt(0.1) * gaussian_mu(1.0, 1e-6))  # a 10% share of (1, 1e-6)


def _lognormal_rows(n=N, d=5, seed=0):
    """Rows whose norms spread over a decade and a half: the quantile matters."""
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * np.exp(rng.normal(1.0, 0.6, size=n))[:, None]


def test_the_radius_search_reads_exact_counts_with_calibrated_noise():
    """An independent computation: the count of rows with norm at or above each threshold the search visited; the
    released counts differ from it by integer noise of scale sqrt(L) / mu (L counts in all, one per halving of the
    grid), and the search takes the branch those counts point to."""
    X = _lognormal_rows()
    huge = Share(1.0, 0.0, 1e-6, 1e6)
    out = private_radius(X, huge, "replace", np.random.default_rng(0), bounds=(0.5, 50.0))
    norms = np.linalg.norm(X, axis=1)
    exact = [int(np.sum(norms >= t)) for t in out["thresholds"]]
    assert out["counts"].dtype == np.int64 and np.array_equal(out["counts"], exact)
    steps = int(np.ceil(np.log2(RADIUS_BINS + 1)))
    # calibrated for the longest path through the grid (a shorter one spends less)
    assert len(exact) <= steps and out["noise"].noise_scale == pytest.approx(math.sqrt(steps) / 1e6)
    q = np.quantile(norms, 0.9)
    edges = radius_edges((0.5, 50.0))
    assert out["radius"] == edges[np.searchsorted(edges, q) - 1] or out["radius"] == edges[np.searchsorted(edges, q)]
    add = private_radius(X, SHARE_10, "add_remove", np.random.default_rng(0))
    assert len(add["counts"]) <= steps + 1 and add["thresholds"][0] == 0.0  # the rows' count first: n is private
    assert add["noise"].noise_scale == pytest.approx(math.sqrt(steps + 1) / SHARE_10.mu, rel=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_the_private_radius_lands_near_the_target_quantile(seed):
    """n = 10^4 rows, a 10% share of epsilon = 1: R is within a factor 1.3 of the exact 0.9-quantile of the norms
    (the grid's cells are a factor 1.13 wide; the noise on each count the search reads is sqrt(8) / mu = 38, far
    below the 1,000 rows the target allows)."""
    X = _lognormal_rows(seed=seed)
    out = private_radius(X, SHARE_10, "replace", np.random.default_rng(seed))
    exact = np.quantile(np.linalg.norm(X, axis=1), 0.9)
    assert exact / 1.3 <= out["radius"] <= exact * 1.3, (out["radius"], exact)
    assert out["radius"] in radius_edges()


def test_one_extreme_row_does_not_move_the_radius():
    """Replacing a row by one of norm 1e300 moves one count by one: with the same noise, R is unchanged in at least
    19 of 20 seeds and never moves by more than one cell of the grid."""
    X = _lognormal_rows()
    Xp = X.copy()
    Xp[0] = 1e300 / math.sqrt(X.shape[1])
    edges = radius_edges()
    moved = 0
    for seed in range(20):
        a = private_radius(X, SHARE_10, "replace", np.random.default_rng(seed))["radius"]
        b = private_radius(Xp, SHARE_10, "replace", np.random.default_rng(seed))["radius"]
        moved += a != b
        assert abs(np.searchsorted(edges, a) - np.searchsorted(edges, b)) <= 1
    assert moved <= 1


def test_a_table_with_nothing_to_analyse_gets_a_release_and_a_clear_note_for_its_owner():
    """Never a refusal (whether a release exists would depend on one row): the note is a non-private diagnostic."""
    for X, word in ((np.zeros((50, 3)), "zero"), (np.tile([1.0, 2.0, 3.0], (50, 1)), "same")):
        rel = release_pca(
            "analyze_gauss", X, 1, 1.0, data_norm="private", budget=BudgetSplit.with_extras(radius=0.1), seed=0
        )
        assert rel.components.shape == (3, 1)
        assert word in rel.diagnostics["warnings"][0] and word not in str(rel.published()["outputs"])


def test_a_complete_release_with_every_share_composes_within_the_total():
    """Scale, radius, mean, subspace, variances and scores: the release's curve is the composition of its parts'
    curves, within (epsilon, delta); dp-accounting composes the same Gaussian parts independently."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    X = _lognormal_rows(n=3000, d=4)
    budget = BudgetSplit.with_extras(scale=0.1, radius=0.1, mean=0.1, eigenvalues=0.1, scores=0.1)
    rel = release_pca(
        "analyze_gauss",
        X,
        2,
        1.0,
        1e-6,
        data_norm="private",
        budget=budget,
        center="private",
        scale="private",
        column_bounds=[20.0] * 4,
        seed=0,
    )
    parts = rel.facts["budget"]
    assert set(parts) == {"scale", "radius", "mean", "subspace", "eigenvalues", "scores"}
    assert rel.privacy.kind == "gdp" and rel.privacy.epsilon_at(1e-6) <= 1.0 + 1e-9
    composed = None
    for part in parts.values():
        one = pld.from_gaussian_mechanism(1.0 / part["mu"], value_discretization_interval=1e-4)
        composed = one if composed is None else composed.compose(one)
    assert composed.get_delta_for_epsilon(1.0) <= 1e-6 * 1.01
    # each part's own calibration spends no more than its share
    for name in ("radius", "scale", "mean", "eigenvalues", "scores"):
        assert parts[name]["noise_scale"] > 0
    assert rel.outputs["radius"]["value"] == rel.parameters["data_norm"]
    assert np.all(rel.outputs["column_scales"] > 0) and rel.parameters["scale"] == "private"


def test_k_auto_applies_the_rule_to_the_private_ratios():
    X = _lognormal_rows(n=4000, d=6) * np.r_[3, 2, 1, 0.3, 0.3, 0.3]
    rel = release_pca(
        "analyze_gauss",
        X,
        "auto",
        1.0,
        data_norm=40.0,
        variance_target=0.8,
        budget=BudgetSplit.with_extras(eigenvalues=0.1),
        seed=1,
    )
    ratios = rel.outputs["candidate_ratios"]
    assert len(ratios) == 6 and rel.parameters["k"] == choose_k(ratios, 0.8) == rel.components.shape[1]
    assert rel.parameters["k_rule"]["variance_target"] == 0.8
    with pytest.raises(ValueError, match="variance_target"):
        release_pca("analyze_gauss", X, "auto", 1.0, data_norm=40.0, budget=BudgetSplit.with_extras(eigenvalues=0.1))


def test_private_column_scales_follow_the_columns_root_mean_square():
    X = np.random.default_rng(3).normal(size=(20_000, 3)) * np.r_[1000.0, 1.0, 0.01]
    bounds = np.r_[5000.0, 5.0, 0.05]
    out = private_column_scales(X, bounds, SHARE_10, "replace", np.random.default_rng(0))
    rms = np.sqrt((np.minimum(np.abs(X), bounds) ** 2).mean(axis=0))
    assert np.allclose(out["scales"], rms, rtol=0.05)


def test_the_estimator_chooses_r_privately():
    X = _lognormal_rows(n=5000, d=4)
    est = dc.DPPCA(2, data_norm="private", radius_bounds=(0.1, 100.0), random_state=0).fit(X)
    R = est.release_["parameters"]["data_norm"]
    assert est.data_norm_ == R == est.release_["outputs"]["radius"]["value"]
    assert 0.1 <= R <= 100.0 and "radius" in est.release_["facts"]["budget"]


# ------------------------------------------------------------------------------ the radius step, audited


def _radius_design():
    """Neighbours that differ in one row moved across the first candidate the search reads (norm 0.2 vs 20, around
    sqrt(10) in the middle of a 16-cell grid from 1e-3 to 1e4): that first count moves by one."""
    base = np.tile([1.0, 0.0], (40, 1))
    D, Dp = base.copy(), base.copy()
    D[0], Dp[0] = [0.2, 0.0], [20.0, 0.0]
    return audit_mod.AuditDesign(D, Dp, 1, lambda pub: pub["counts"][0], "first count of the radius search")


#: the radius step audited with a whole budget of (4, 1e-5): mu = 0.94, large enough for 2,500 trials to read it
AUDITED = Share(1.0, 4.0, 1e-5, gaussian_mu(4.0, 1e-5))


def test_the_radius_step_is_audited_and_not_refuted():
    design = _radius_design()

    def release(rows, rng):
        return {"counts": private_radius(rows, AUDITED, "replace", rng, bins=16)["counts"].tolist()}, AUDITED.curve()

    result = audit_mod.audit_release(release, design, 4.0, 1e-5, trials=2500, seed=2)
    # the statistic is one of the L = 5 counts, each (mu / sqrt(5))-GDP: the reading comes close to that
    assert not result.violated and result.mu_lower > 0.4 * AUDITED.mu / math.sqrt(5)


def test_the_audit_refutes_a_radius_step_without_noise():
    design = _radius_design()

    def release(rows, rng):
        first = radius_edges(bins=16)[8]
        return {"counts": [int(np.sum(np.linalg.norm(rows, axis=1) >= first))]}, AUDITED.curve()

    assert audit_mod.audit_release(release, design, 4.0, 1e-5, trials=500, seed=2).violated


@pytest.mark.parametrize("scale", ["private", "bounds"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_release_that_scales_its_columns_says_where_the_first_bad_cell_is(scale, bad):
    """Scaled columns are checked in the pass that divides them (and a NaN refuses the clipped squares first): the
    answer is still the plain one that names the first cell that is not a finite number, never a library's words."""
    X = _lognormal_rows(n=300_000, d=4)  # past the compiled size: the kernels find it
    X[200_001, 3], X[250_000, 1] = bad, bad
    split = BudgetSplit.with_extras(**({"scale": 0.1} if scale == "private" else {}))
    with pytest.raises(ValueError, match=r"NaN or infinite values \(first at row 200001, column 3\)"):
        release_pca(
            "analyze_gauss", X, 2, 1.0, 1e-6, data_norm=10.0, budget=split, scale=scale, column_bounds=[5.0] * 4
        )

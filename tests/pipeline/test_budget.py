"""A complete private PCA release: each share is calibrated as derived, the shares compose to the total, an
audit of each share alone does not refute it, and the private outputs approach the exact ones as epsilon grows."""

import json
import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import audit as audit_mod
from dppca_core.pipeline.budget import (
    BudgetSplit,
    Share,
    allocate,
    private_mean,
    private_scores,
    private_variances,
    release_pca,
)
from dppca_core.privacy import gaussian_mu
from tests.helpers import spiked_rows

X, U = spiked_rows(3000, 6, 2, seed=0)
X = X * 0.7 + 0.25 / np.sqrt(6)  # an offset: the mean matters, rows still of norm <= 1
SPLIT = BudgetSplit.with_extras(mean=0.1, eigenvalues=0.2, scores=0.1)


def test_split_validation():
    assert BudgetSplit.with_extras(mean=0.2).subspace == pytest.approx(0.8)
    for bad in ({"subspace": 0.0, "mean": 1.0}, {"subspace": 0.5}, {"subspace": 1.0, "mean": -0.1}):
        with pytest.raises(ValueError):
            BudgetSplit(**bad)
    with pytest.raises(ValueError, match="subspace"):
        BudgetSplit.with_extras(mean=0.5, eigenvalues=0.5)


@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
def test_gaussian_shares_are_calibrated_as_derived(neighbors):
    rel = release_pca("analyze_gauss", X, 2, 1.0, 1e-5, neighbors, seed=0, budget=SPLIT, center="private")
    mu = gaussian_mu(1.0, 1e-5)
    budget = rel.facts["budget"]
    assert set(budget) == {part for part, share in SPLIT.as_dict().items() if share > 0}
    for part, share in SPLIT.as_dict().items():
        if share == 0:
            continue
        assert budget[part]["mu"] == pytest.approx(math.sqrt(share) * mu, rel=1e-12)
    # derivations (rows of norm <= 1): sum of rows 2 (x vs -x) / 1 plus a count of sensitivity 1 sharing the mean's
    # mu^2 under add/remove; [variances along the k components, trace] sqrt(2) under both relations (p^2 + q^2 +
    # (p - q)^2 <= 2; was sqrt(3) under replace, 22% more noise than needed); histogram sqrt(2) (a row moves between
    # two cells) / 1
    mean_l2, eig_l2, hist_l2 = (
        (2.0, math.sqrt(2.0), math.sqrt(2.0)) if neighbors == "replace" else (1.0, math.sqrt(2.0), 1.0)
    )
    mean_mu = math.sqrt(0.1) * mu / (1.0 if neighbors == "replace" else math.sqrt(2.0))
    # real-valued parts are released on a grid 2^-20 of their noise: rounding adds sqrt(m) steps to the sensitivity
    # (m = d for the mean, k + 1 for the variances), a relative 2^-20 sqrt(m) / (mu sigma) below 1e-4 here, and the
    # computation error counted is at least the public floor (privacy.grid.error_floor), at most 2^-10 more
    within = 2.0**-10 + 1e-4
    assert rel.facts["mean_noise_scale"] == pytest.approx(mean_l2 / mean_mu, rel=within)
    assert rel.facts["mean_noise_scale"] >= mean_l2 / mean_mu
    assert rel.facts["eigenvalue_noise_scale"] == pytest.approx(eig_l2 / (math.sqrt(0.2) * mu), rel=within)
    # counts are integers: no grid, the scale is the calibrated one rounded up to 32 fractional bits
    assert rel.facts["scores_noise_scale"] == pytest.approx(hist_l2 / (math.sqrt(0.1) * mu), rel=1e-8)
    # the subspace mechanism ran with its own share: Analyze Gauss's sigma = Delta / mu_subspace
    gram_l2 = math.sqrt(2.0) if neighbors == "replace" else 1.0
    assert rel.noise_scale == pytest.approx(gram_l2 / (math.sqrt(0.6) * mu), rel=1e-9)


def test_shares_compose_exactly_to_the_total():
    for name, eps, delta in (("analyze_gauss", 1.0, 1e-5), ("private_power", 0.5, 1e-6), ("cape_pca", 2.0, 1e-6)):
        params = {"sites": 2} if name == "cape_pca" else {}
        rel = release_pca(name, X, 2, eps, delta, seed=1, budget=SPLIT, center="private", **params)
        assert rel.privacy.kind == "gdp"
        assert rel.privacy.epsilon_at(delta) == pytest.approx(eps, rel=1e-6)  # exact GDP composition
        assert rel.epsilon == eps and rel.delta == delta
    pure = release_pca("ppca_exponential", X, 1, 1.0, seed=1, budget=SPLIT, center="private")
    assert pure.privacy.kind == "pure" and pure.privacy.epsilon == pytest.approx(1.0, rel=1e-12)
    assert pure.facts["budget"]["scores"]["epsilon"] == pytest.approx(0.1)
    assert pure.facts["scores_noise_scale"] == pytest.approx(2.0 / 0.1, rel=1e-8)  # Laplace, L1 sensitivity 2


def test_pure_and_approximate_allocations_split_epsilon():
    pure = allocate(SPLIT, 2.0, 0.0, "pure")
    assert sum(s.epsilon for s in pure.values()) == pytest.approx(2.0) and all(s.mu is None for s in pure.values())
    approx = allocate(SPLIT, 2.0, 1e-6, "approx")
    assert sum(s.epsilon for s in approx.values()) == pytest.approx(2.0)
    assert sum(s.delta for s in approx.values()) == pytest.approx(1e-6)


def test_private_outputs_approach_the_exact_ones_as_epsilon_grows():
    rows = dc.prepare(X).rows
    centred = rows - rows.mean(axis=0)
    exact_values = np.sort(np.linalg.eigvalsh(centred.T @ centred))[::-1]
    exact_ratio = exact_values[:2] / np.trace(centred.T @ centred)

    def error(eps):
        rel = release_pca("analyze_gauss", X, 2, eps, 1e-6, seed=3, budget=SPLIT, center="private")
        return (
            np.abs(rel.outputs["explained_variance_ratio"] - exact_ratio).max(),
            np.linalg.norm(rel.outputs["mean"] - X.mean(axis=0)),
        )

    low, high = error(0.3), error(300.0)
    # every noise s.d. scales like 1/mu ~ 1/epsilon (for large epsilon): a 1000x budget must shrink both errors
    assert high[0] < 0.1 * low[0] and high[1] < 0.1 * low[1]
    assert high[0] < 0.01 and high[1] < 0.01


def test_scores_histogram_counts_the_rows():
    rows = dc.prepare(X).rows
    V = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 2)))[0]
    huge = Share(1.0, 1e6, 1e-6, 1e6)  # practically no noise: the counts are the histogram
    sc = private_scores(rows, V, huge, "replace", np.random.default_rng(0), bins=10)
    assert sc["counts"].shape == (10, 10) and sc["counts"].sum() == len(rows)
    assert sc["counts"].dtype == np.int64
    with pytest.raises(ValueError, match="bins"):
        private_scores(rows, V, huge, "replace", np.random.default_rng(0), bins=1000)


def test_release_is_bounded_by_its_boundary():
    rel = release_pca("analyze_gauss", X, 2, 1.0, 1e-5, seed=0, budget=SPLIT, center="private")
    pub = rel.published()
    assert {"mean", "total_variance", "explained_variance_ratio", "scores"} <= set(pub["outputs"])
    assert pub["parameters"]["budget"] == SPLIT.as_dict()
    assert "rows_clipped" not in str(pub) and "rows_clipped_after_centring" in rel.diagnostics
    with pytest.raises(ValueError, match="mean share"):
        release_pca("analyze_gauss", X, 2, 1.0, budget=BudgetSplit(), center="private")
    with pytest.raises(ValueError, match="not private"):
        release_pca("analyze_gauss", X, 2, 1.0, center="empirical")


# -- an audit of each share alone --------------------------------------------------------------------------------


def _design(D, D_prime, score, statistic):
    return audit_mod.AuditDesign(dc.prepare(D), dc.prepare(D_prime), 1, score, statistic)


def _neighbours(first, second, n=20, d=2):
    base = np.zeros((n - 1, d))
    return np.vstack([first, base]), np.vstack([second, base])


SHARE = Share(0.3, 0.0, 1e-5, math.sqrt(0.3) * gaussian_mu(1.0, 1e-5))
CLAIM_EPS = 1.0  # the claim each part is audited against: the total budget (each share is part of it)


def _run_audit(release_fn, design):
    # 7,500 evaluation trials: the Clopper-Pearson margins cost about 0.05 in mu (see tests/audit/test_audit.py)
    result = audit_mod.audit_release(release_fn, design, CLAIM_EPS, 1e-5, trials=10_000, seed=7)
    assert not result.violated, result
    return result


def test_audit_of_the_mean_share_alone():
    # ||x - x'|| = 2: the worst case of the sum; n = 200 keeps the noisy mean inside the unit ball, so the
    # projection (post-processing) rarely bends the statistic
    D, Dp = _neighbours([1.0, 0.0], [-1.0, 0.0], n=200)
    design = _design(D, Dp, lambda pub: -pub["mean"][0], "mean coordinate")
    result = _run_audit(
        lambda data, rng: ({"mean": private_mean(data.rows, SHARE, "replace", rng)["mean"].tolist()}, SHARE.curve()),
        design,
    )
    # the statistic is the Gaussian the calibration is tight for: the reading comes close to the share's mu
    assert 0.4 * SHARE.mu < result.mu_lower <= SHARE.mu


def test_audit_of_the_variances_share_alone():
    D, Dp = _neighbours([1.0, 0.0], [0.0, 0.0])  # the variance along e1 and the trace move by 1: sqrt(2) in all
    design = _design(D, Dp, lambda pub: -pub["total_variance"] - pub["variances"][0], "variances")

    def release(data, rng):
        out = private_variances(data, np.eye(2)[:, :1], SHARE, "replace", rng)
        return {"variances": out["variances"].tolist(), "total_variance": out["total_variance"]}, SHARE.curve()

    result = _run_audit(release, design)
    assert result.mu_lower > 0.4 * SHARE.mu  # both moved values carry the whole sensitivity sqrt(2)


def test_audit_of_the_scores_share_alone():
    D, Dp = _neighbours([0.9, 0.1], [-0.9, 0.1])  # the row moves between two far bins
    V = np.eye(2)
    design = _design(D, Dp, lambda pub: pub["counts"][0][2] - pub["counts"][-1][2], "histogram cells")

    def release(data, rng):
        return (
            {"counts": private_scores(data.rows, V, SHARE, "replace", rng, bins=4)["counts"].tolist()},
            SHARE.curve(),
        )

    result = _run_audit(release, design)
    assert result.mu_lower > 0.3 * SHARE.mu  # the two moved counts carry the whole sensitivity sqrt(2)


def test_audit_catches_an_under_noised_mean():
    D, Dp = _neighbours([1.0, 0.0], [-1.0, 0.0], n=200)
    design = _design(D, Dp, lambda pub: -pub["mean"][0], "mean coordinate")
    cheat = Share(1.0, 0.0, 1e-5, 4 * gaussian_mu(1.0, 1e-5))  # four times the mu the claim allows
    result = audit_mod.audit_release(
        lambda data, rng: (
            {"mean": private_mean(data.rows, cheat, "replace", rng)["mean"].tolist()},
            dc.privacy.PrivacyCurve.gdp(gaussian_mu(1.0, 1e-5)),
        ),
        design,
        1.0,
        1e-5,
        trials=3000,
        seed=8,
    )
    assert result.violated


@pytest.mark.parametrize("table", ["zeros", "equal rows"])
def test_a_degenerate_table_gets_a_release_like_its_neighbour(table):
    """Whether a release exists must not depend on one row (issue 34, item 6): a table whose rows are all equal (or
    all zero) and its neighbour with one row replaced both get a release when R and the scales are chosen
    privately; the data owner is told in the non-private diagnostics, never in what is published."""
    n, d = 40, 4
    D = np.zeros((n, d)) if table == "zeros" else np.tile([2.0, -1.0, 0.5, 3.0], (n, 1))
    Dp = D.copy()
    Dp[0] = [4.0, 1.0, -2.0, 0.5]
    budget = BudgetSplit.with_extras(radius=0.1, scale=0.1, mean=0.1, eigenvalues=0.1, scores=0.1)
    options = dict(data_norm="private", scale="private", column_bounds=[5.0] * d, center="private", budget=budget)
    on_d = release_pca("analyze_gauss", D, 2, 1.0, 1e-6, seed=0, **options)
    on_dp = release_pca("analyze_gauss", Dp, 2, 1.0, 1e-6, seed=0, **options)
    assert on_d.components.shape == on_dp.components.shape == (d, 2)
    assert sorted(on_d.published()) == sorted(on_dp.published())
    assert "no variance to analyse" in on_d.diagnostics["warnings"][0]
    assert not any("no variance" in w for w in on_dp.diagnostics.get("warnings", []))
    assert "no variance" not in json.dumps(on_d.published())


PLANNED = [
    ("analyze_gauss", dict()),
    ("analyze_gauss", dict(center="private", budget=BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1))),
    ("analyze_gauss", dict(data_norm="private", k="auto", variance_target=0.8)),
    ("analyze_gauss", dict(budget=BudgetSplit.with_extras(scores=0.2), score_kind="sparse")),
    ("private_power", dict(center="private", budget=BudgetSplit.with_extras(mean=0.1))),
    ("ppca_exponential", dict()),
    ("dp_pca", dict(k=1)),
    ("mod_sulq", dict()),
]


@pytest.mark.parametrize("mechanism, options", PLANNED, ids=[f"{m}-{i}" for i, (m, _) in enumerate(PLANNED)])
def test_the_planned_curve_is_never_below_the_release_it_plans(mechanism, options):
    """What a budget book reserves before a draw (issue 55: the spend stated before it is drawn) bounds what the
    release then states, at every delta; for a Gaussian release it is the same curve (so the statement before the
    draw and the total after it are the same numbers)."""
    from dppca_core.pipeline.budget import planned_curve
    from dppca_core.pipeline.options import ReleaseOptions

    X = np.random.default_rng(3).normal(size=(600, 5)) * 0.3
    opts = ReleaseOptions(**{"k": 2, "epsilon": 1.0, "delta": 1e-5, "data_norm": 1.0, **options})
    planned = planned_curve(mechanism, opts)
    rel = dc.release_with(mechanism, X, opts, seed=0)
    for delta in (1e-9, 1e-6, 1e-5, 1e-3):
        assert planned.epsilon_at(delta) >= rel.privacy.epsilon_at(delta) * (1 - 1e-9), (delta, planned, rel.privacy)
    if mechanism in ("analyze_gauss", "private_power") and rel.privacy.kind == "gdp":  # calibrated exactly
        assert planned.kind == "gdp" and planned.mu == pytest.approx(rel.privacy.mu, rel=1e-9)

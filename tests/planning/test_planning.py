"""Issue 37: planning from targets. The plan's epsilon meets every target in at least the stated share of 200 fresh
releases on held-out data (spiked and sparse laws; two shipped tables through a public stand-in), and 2/3 of it
does not (the plan wastes less than 1.5x); the chosen split beats the default split where it should; the plan never
reads rows, counts a private stand-in's cost, and answers bad input in words."""

import inspect
import math

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core import planning
from dppca_core.data import datasets
from dppca_core.planning import Standin, evaluate
from tests.support.planning import STATED_SPECTRUM_CASES, plan_through_stated_spectrum

CONFIDENCE = 0.9
#: the public facts plan() may take: nothing else, and none of them is a table of rows
PUBLIC_FACTS = {
    "targets",
    "n",
    "d",
    "k",
    "spectrum",
    "standin",
    "delta",
    "confidence",
    "neighbors",
    "data_norm",
    "radius_rule",
    "center",
    "parts",
    "mechanisms",
    "mechanism_params",
    "sparsity",
    "reps",
    "seed",
    "max_epsilon",
    "spent",
}


def _calibrated(found, X, support=None):
    """200 fresh releases on the held-out rows at the plan and at 2/3 of its epsilon. At the plan the share meets the
    confidence within its sampling error (the upper end of its 95% interval at least the confidence, and at least
    the lower end of the plan's own interval); at 2/3 of the epsilon it falls short."""
    at_plan = evaluate(found, X, reps=200, seed=101, support=support)
    below = evaluate(found, X, epsilon=found.epsilon * 2 / 3, reps=200, seed=101, support=support)
    assert at_plan["high"] >= CONFIDENCE and at_plan["share"] >= found.interval[0], (
        found.epsilon,
        at_plan["share"],
        found.interval,
    )
    assert below["share"] < CONFIDENCE, (found.epsilon, below["share"])
    return at_plan, below


def test_the_minimum_interface_answers_with_a_frontier_and_a_cache():
    spectrum = [0.2, 0.12] + [0.01] * 18
    found = dc.plan(
        targets={"subspace_distance": 0.3}, n=5000, d=20, k=2, spectrum=spectrum, delta=1e-6, confidence=CONFIDENCE
    )
    assert found.reachable and found.epsilon in planning.EPS_GRID
    assert found.mechanism in dc.mechanism_names("pca") and isinstance(found.budget, dc.BudgetSplit)
    assert found.share >= CONFIDENCE and found.interval[0] < found.share <= found.interval[1]
    assert found.reps == planning.default_reps(CONFIDENCE) == 100
    frontier = found.frontier
    assert {
        "mechanism",
        "epsilon",
        "share",
        "low",
        "high",
        "winner",
        "planned",
        "met: subspace_distance",
        "median: subspace_distance",
    } <= set(frontier.columns)
    mine = frontier[frontier["mechanism"] == found.mechanism].sort_values("epsilon")
    assert mine["share"].is_monotonic_increasing  # common random numbers: more budget never hurts
    planned = mine[mine["planned"]].iloc[0]
    assert planned["epsilon"] == found.epsilon and planned["meets"] and planned["reps"] == found.reps
    assert not mine[mine["epsilon"] < found.epsilon]["meets"].any()
    for _, group in frontier.groupby("epsilon"):  # one winner at each epsilon where anyone meets the targets
        assert group["winner"].sum() == (1 if group["share"].max() > 0 else 0)
        assert group.loc[group["winner"], "share"].max() == group["share"].max() or not group["winner"].any()
    before = planning.cached_plan.cache_info().hits
    again = dc.plan(
        targets={"subspace_distance": 0.3}, n=5000, d=20, k=2, spectrum=spectrum, delta=1e-6, confidence=CONFIDENCE
    )
    assert planning.cached_plan.cache_info().hits == before + 1
    assert again.epsilon == found.epsilon and again.frontier.equals(frontier)
    again.frontier.loc[0, "share"] = -1.0  # the caller's copy: the cached plan is untouched
    assert dc.plan(
        targets={"subspace_distance": 0.3}, n=5000, d=20, k=2, spectrum=spectrum, delta=1e-6, confidence=CONFIDENCE
    ).frontier.equals(frontier)


def test_a_plan_on_a_spiked_law_holds_on_held_out_data_and_is_not_wasteful():
    law = Standin.spiked(d=10, k=2, spike=4.0, seed=0)
    found = dc.plan({"subspace_distance": 0.3}, n=3000, d=10, k=2, standin=law, confidence=CONFIDENCE)
    held_out = datasets.spiked_covariance(n=3000, d=10, k=2, spike=4.0, seed=11)
    _calibrated(found, held_out.X)


def test_a_sparse_plan_recovers_the_support_on_held_out_data():
    """A sparse direction's entries decide how hard its support is to find, so the plan is for this law's direction;
    the held-out rows are a fresh draw from the same law."""
    law = Standin.spiked(d=30, k=1, spike=20.0, sparsity=5, seed=2)
    found = dc.plan({"f1": 0.9}, n=4000, d=30, k=1, standin=law, confidence=CONFIDENCE)
    assert "dps_pca" in set(found.frontier["mechanism"])  # a sparse target brings the sparse mechanism in
    held_out = law.draw_rows(4000, np.random.default_rng(12))
    _calibrated(found, held_out, support=np.asarray(law.support, dtype=int))


@pytest.mark.parametrize("name, radius, k, target", STATED_SPECTRUM_CASES)
def test_a_plan_through_a_published_spectrum_holds_on_the_shipped_table(name, radius, k, target):
    """The stand-in is the table's spectrum as a public source would state it (here computed once, then given to the
    planner as numbers): the plan never sees a row, and is checked on the table's own rows."""
    _calibrated(*plan_through_stated_spectrum(name, radius, k, target, CONFIDENCE))


def test_the_chosen_split_beats_the_default_where_it_should():
    """An explained-variance target: Analyze Gauss releases its ratios from its own noisy matrix, so giving the
    eigenvalues no share of their own (all to the subspace) needs less epsilon than the default 10% share. At the
    plan's epsilon, fresh releases with the default split fail the targets; with the chosen split they meet them."""
    law = Standin.spiked(d=10, k=2, spike=4.0, seed=0)
    targets = {"subspace_distance": 0.3, "explained_variance_error": 0.01}
    found = dc.plan(targets, n=3000, d=10, k=2, standin=law, confidence=CONFIDENCE)
    default = dc.BudgetSplit.with_extras(eigenvalues=0.1)
    assert found.budget != default and found.default_epsilon > found.epsilon
    held_out = datasets.spiked_covariance(n=3000, d=10, k=2, spike=4.0, seed=11).X
    chosen = evaluate(found, held_out, reps=200, seed=101)
    with_default = evaluate(found, held_out, budget=default, reps=200, seed=101)
    assert chosen["share"] >= CONFIDENCE > with_default["share"]
    assert any("less" in s or "needs ε" in s for s in found.describe())


def test_the_plan_takes_no_rows():
    """The signature holds public facts only, and a table passed where a spectrum goes is refused before use."""
    assert set(inspect.signature(dc.plan).parameters) == PUBLIC_FACTS
    X = datasets.spiked_covariance(n=300, d=5, k=1, seed=0).X
    with pytest.raises(ValueError, match="values for d = 5"):
        dc.plan({"subspace_distance": 0.3}, n=300, d=5, k=1, spectrum=X)


def test_a_private_stand_in_is_paid_for_and_an_exact_one_is_labelled():
    X = datasets.spiked_covariance(n=2000, d=6, k=1, spike=6.0, seed=3).X
    private = Standin.private(X, 0.5, 1e-6, seed=4)
    assert private.privacy == "private" and private.banded and private.fixed
    found = dc.plan({"subspace_distance": 0.3}, n=2000, d=6, k=1, standin=private, confidence=CONFIDENCE)
    cost = private.cost_curve()
    mu = dc.privacy.gaussian_mu(found.epsilon, found.delta)
    expected = dc.privacy.compose([cost, dc.privacy.PrivacyCurve.gdp(mu)]).epsilon_at(found.delta)
    assert found.total_epsilon == pytest.approx(expected) and found.total_epsilon > found.epsilon
    assert any("total" in s for s in found.describe())
    exact = Standin.exact(X)
    assert exact.privacy == "not private" and "NOT private" in exact.describe()


def test_earlier_releases_from_the_rows_count_in_the_total_and_a_spectrum_of_noise_keeps_its_cost():
    """spent: what was already released from the same rows composes into the total (not into the simulation); a
    private spectrum that came out all noise is refused in words and still says what it cost."""
    X = datasets.spiked_covariance(n=2000, d=6, k=1, spike=6.0, seed=3).X
    private = Standin.private(X, 0.5, 1e-6, seed=4)
    earlier = Standin.private(X, 0.3, 1e-6, seed=5).cost_curve()
    alone = dc.plan({"subspace_distance": 0.3}, n=2000, d=6, k=1, standin=private, confidence=CONFIDENCE)
    found = dc.plan(
        {"subspace_distance": 0.3}, n=2000, d=6, k=1, standin=private, confidence=CONFIDENCE, spent=[earlier]
    )
    assert (found.epsilon, found.mechanism, found.budget) == (alone.epsilon, alone.mechanism, alone.budget)
    mu = dc.privacy.gaussian_mu(found.epsilon, found.delta)
    expected = dc.privacy.compose([private.cost_curve(), earlier, dc.privacy.PrivacyCurve.gdp(mu)])
    assert found.total_epsilon == pytest.approx(expected.epsilon_at(found.delta))
    assert found.total_epsilon > alone.total_epsilon
    assert found.earlier == 1 and any("1 earlier release from the same rows" in s for s in found.describe())
    with pytest.raises(ValueError, match="earlier releases"):
        dc.plan({"subspace_distance": 0.3}, n=2000, d=6, k=1, standin=private, spent=[0.3])
    tiny = X[:, :2] * 1e-4  # variances far below the noise at R = 1: each released one is <= 0 half the time
    same_budget = Standin.private(X[:, :2], 0.01, 1e-6, seed=6)  # the cost depends on ε, δ and the split only
    refused = 0
    for seed in range(40):  # both <= 0 in a quarter of the draws: none in 40 has probability 1e-5
        try:
            Standin.private(tiny, 0.01, 1e-6, seed=seed)
        except planning.StandinTooNoisy as noisy:
            assert "all noise" in str(noisy) and noisy.cost == same_budget.cost
            refused += 1
    assert refused > 0


def test_a_published_release_becomes_a_stand_in_in_the_data_units():
    X = datasets.spiked_covariance(n=4000, d=6, k=2, spike=6.0, seed=3).X * 10.0
    release = dc.release_pca(
        "analyze_gauss", X, 3, 4.0, 1e-6, data_norm=10.0, seed=1, budget=dc.BudgetSplit.with_extras(eigenvalues=0.5)
    )
    standin = Standin.from_release(release.published())
    exact = Standin.exact(X, 10.0)
    assert standin.d == 6 and standin.privacy == "public"
    assert standin.values[:2] == pytest.approx(exact.values[:2], rel=0.15)  # variances per row, data units
    assert standin.values[3:].sum() == pytest.approx(exact.values[3:].sum(), rel=0.5)  # the tail from the total
    assert any("taken equal" in note for note in standin.notes)
    file = {"releases": {"analyze_gauss": release.published()}}
    assert Standin.from_release(file).eigenvalues == standin.eigenvalues
    bare = dc.release_pca("analyze_gauss", X, 2, 1.0, 1e-6, data_norm=10.0, seed=1)
    without = {**bare.published(), "eigenvalues": None}
    with pytest.raises(ValueError, match="eigenvalue share"):
        Standin.from_release(without)


@pytest.mark.parametrize(
    "targets, kwargs, words",
    [
        ({"distance": 0.3}, {}, "unknown target distance"),
        ({"energy": 95}, {}, "give a fraction"),
        ({"subspace_distance": 3.0}, {}, "must lie in"),
        ({"f1": 0.9}, {}, "sparsity"),
        ({"subspace_distance": 0.3}, {"mechanisms": ["wishart_sn"]}, "no privacy guarantee"),
        ({"subspace_distance": 0.3}, {"mechanisms": ["mod_sulq"], "neighbors": "add_remove"}, "no guarantee for"),
        ({"subspace_distance": 0.3}, {"center": "empirical"}, "center="),
        ({}, {}, "at least one target"),
    ],
)
def test_bad_input_gets_an_answer_in_words(targets, kwargs, words):
    with pytest.raises(ValueError, match=words):
        dc.plan(targets, n=1000, d=6, k=2, spectrum=[3, 2, 1, 1, 1, 1], **kwargs)


def test_an_unreachable_target_says_so():
    found = dc.plan(
        {"subspace_distance": 0.01},
        n=200,
        d=6,
        k=2,
        spectrum=[3, 2, 1, 1, 1, 1],
        max_epsilon=1.0,
        mechanisms=["analyze_gauss"],
    )
    assert not found.reachable and found.mechanism is None and math.isinf(found.epsilon)
    assert "No mechanism tried meets" in found.describe()[0]
    assert isinstance(found.frontier, pd.DataFrame) and not found.frontier["meets"].any()


def test_a_private_stand_in_under_add_remove_reads_n_from_its_own_noisy_count():
    """Under add/remove n is private: the private stand-in releases a noisy count with its mean (inside its own ε)
    and reads its per-row variances with it, so it does not need the true n."""
    X = datasets.spiked_covariance(n=2000, d=6, k=1, spike=6.0, seed=3).X
    standin = Standin.private(X, 1.0, 1e-6, neighbors="add_remove", center="private", seed=4)
    with pytest.raises(ValueError, match="describes the rows centred"):  # refused before anything is spent
        Standin.private(X, 1.0, 1e-6, neighbors="add_remove", seed=4)
    exact = Standin.exact(X, center="empirical")
    assert standin.privacy == "private" and standin.mean is not None
    # the top variance within the noise of a released count and eigenvalue (relative error of a few %)
    assert standin.values[0] == pytest.approx(exact.values[0], rel=0.2)
    assert standin.cost_curve() is not None


def test_the_frontier_figure_marks_each_winner_the_confidence_and_the_plan():
    from dppca_core.figures.plan import plan_frontier

    frontier = pd.DataFrame(
        {
            "mechanism": ["analyze_gauss"] * 3 + ["mod_sulq"] * 3,
            "epsilon": [0.5, 1.0, 2.0] * 2,
            "share": [0.2, 0.92, 1.0, 0.4, 0.6, 0.95],
            "low": [0.1, 0.85, 0.96, 0.3, 0.5, 0.9],
            "high": [0.3, 0.97, 1.0, 0.5, 0.7, 0.99],
            "reps": [100] * 6,
            "winner": [False, True, True, True, False, False],
            "planned": [False, True, False, False, False, True],
        }
    )
    fig = plan_frontier(frontier, 0.9, 1.0, "analyze_gauss")
    lines = {trace.name: trace for trace in fig.data if trace.mode == "lines+markers"}
    assert set(lines) == {"Analyze Gauss", "MOD-SuLQ"}
    colour = lines["Analyze Gauss"].line.color
    assert list(lines["Analyze Gauss"].marker.color) == ["white", colour, colour]  # filled where it wins
    assert list(lines["MOD-SuLQ"].error_y.arrayminus) == pytest.approx([0.1, 0.1, 0.05])
    star = [trace for trace in fig.data if trace.marker.symbol == "star"][0]
    assert list(star.x) == [1.0] and list(star.y) == [0.92]
    assert fig.layout.shapes[0].y0 == 0.9 and fig.layout.xaxis.type == "log"


def test_a_noisy_stand_in_plans_on_the_hardest_spectrum_of_its_band_or_declines():
    """Issue 55: a stand-in released with noise was planned on as if it were the data's spectrum (each repetition
    drawn around it), and its noise made the top gap look wide: 0 of 60 fresh releases met the promise. The plan now
    holds on every spectrum of the stand-in's band, checked at its hardest corner (the top k at their lower ends, the
    rest at their upper ends; along the band too for a target that a narrower gap does not make harder), and
    declines, without simulating, when the band leaves the k-th variance no larger than the next."""
    banded = Standin((50.0, 20.0, 8.0, 5.0), low=(40.0, 12.0, 2.0, 0.0), high=(60.0, 28.0, 14.0, 11.0), level=0.95)
    assert banded.gap(1) == 12.0 and banded.gap(2) == -2.0
    (hardest,) = banded.consistent(1, ["subspace_distance"])
    assert hardest.eigenvalues == (40.0, 28.0, 14.0, 11.0) and not hardest.banded
    along = banded.consistent(1, ["explained_variance_error"])  # not harder at a narrower gap: along the band
    assert [s.eigenvalues[0] for s in along] == [40.0, 45.0, 50.0, 60.0]  # corner, half way, centre, other corner
    (energy,) = banded.targets_for((("energy", 0.9),), 1)[0]  # planned through the distance that guarantees it
    assert energy == ("subspace_distance", pytest.approx(math.sqrt(0.1 * 40.0 / 60.0)))
    assert all(np.all(np.diff(s.values) <= 0) and s.values.min() >= 0 for s in along)
    refused = dc.plan({"subspace_distance": 0.3}, n=2000, d=4, k=2, standin=banded)
    assert not refused.reachable and refused.releases_simulated == 0
    words = refused.describe()[0]
    assert words == refused.refusal and "cannot support a promise" in words
    assert "variance 2 lies in [12, 28] and variance 3 in [2, 14]" in words
    assert "Spend more ε on it" in words and "state a spectrum, or give a previous release" in words
    one = {"n": 2000, "d": 4, "k": 1, "reps": 40, "mechanisms": ["analyze_gauss"]}
    found = dc.plan({"subspace_distance": 0.3}, standin=banded, **one)
    assert found.reachable and any("holds on every spectrum in that band" in s for s in found.describe())
    corner = dc.plan({"subspace_distance": 0.3}, spectrum=[40.0, 28.0, 14.0, 11.0], **one)
    assert found.epsilon == corner.epsilon  # the plan of its hardest spectrum, stated outright


def test_the_band_of_a_released_spectrum_holds_the_data_s_spectrum():
    """The band of Analyze Gauss's noisy eigenvalues must cover the data's spectrum in at least 95% of releases,
    including a tail of equal variances that the noise spreads apart (a parametric bootstrap around the released
    values covered it in 29% of releases there: the band is Weyl's). 100 releases: at least 88 covered (the lower
    end, at 1 in 1000, of what a 95% coverage gives)."""
    from dppca_core.planning.band import gram_band, noise_norm_quantile

    rng = np.random.default_rng(5)
    sigma, covered = 3.0, 0
    for truth in (np.array([30.0] + [10.0] * 9), np.array([100.0, 50.0] + [0.0] * 8)):
        for _ in range(50):
            Q = np.linalg.qr(rng.standard_normal((10, 10)))[0]
            E = np.triu(rng.standard_normal((10, 10))) * sigma
            released = np.linalg.eigvalsh((Q * truth) @ Q.T + E + np.triu(E, 1).T)
            low, high = gram_band(released, sigma)
            covered += bool(np.all((truth >= low - 1e-9) & (truth <= high + 1e-9)))
    assert covered >= 88
    assert 2 * math.sqrt(10) < noise_norm_quantile(10) < 2 * math.sqrt(10) + 1.5  # ||E|| ~ 2 sigma sqrt(d), not more


def test_a_release_says_what_its_own_numbers_tell_about_its_accuracy():
    """Post-processing only: from a release's published eigenvalues, trace and noise scale, a bound on its subspace
    distance and captured energy that holds in at least 95% of releases (40 releases here: at least 35, the lower
    end at 1 in 1000), informative where the gap is wide, and words for the Report."""
    from dppca_core.metrics import captured_energy, subspace_distance
    from dppca_core.pipeline.experiments import prepare_input
    from dppca_core.planning import evidence_words, release_evidence

    X = datasets.spiked_covariance(n=2000, d=6, k=1, spike=6.0, seed=3).X
    reference = prepare_input(X, 1.0, "private").reference
    held, bounds = 0, []
    for seed in range(40):
        release = dc.release_pca(
            "analyze_gauss",
            X,
            1,
            5.0,
            1e-6,
            data_norm=1.0,
            seed=seed,
            center="private",
            budget=dc.BudgetSplit.with_extras(mean=0.1),
        )
        said = release_evidence(release.published())["bounds"]
        distance = subspace_distance(release.components, reference.vectors[:, :1])
        energy = captured_energy(release.components, reference.gram) / reference.eigenvalues[0]
        held += distance <= said["subspace_distance"] and energy >= said["energy"]
        bounds.append(said["subspace_distance"])
    assert held >= 35 and np.median(bounds) < 0.5  # valid, and far below a random subspace's 1
    words = evidence_words(release_evidence(release.published()), {"subspace_distance": 0.9, "energy": 0.999})
    assert "with 95% confidence this release's subspace distance is at most" in words[0] and "is met" in words[0]
    assert "cannot confirm the target (captured energy ≥ 0.999 of the optimum)" in words[1]
    noisy = release_evidence(dc.release_pca("analyze_gauss", X, 1, 0.05, 1e-6, data_norm=1.0, seed=1).published())
    assert noisy["bounds"] == {"subspace_distance": None, "energy": None}  # a vacuous bound is no bound
    assert "too noisy to bound its subspace distance" in evidence_words(noisy, {"subspace_distance": 0.3})[0]
    dps = dc.release_pca("private_power", X, 1, 2.0, 1e-6, data_norm=1.0, seed=1)
    assert release_evidence(dps.published())["bounds"] == {"subspace_distance": None, "energy": None}
    assert "cannot tell" in evidence_words(release_evidence(dps.published()), {"subspace_distance": 0.3})[0]

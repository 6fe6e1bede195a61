"""The options of a release in one frozen, checked object, and the one rule for epsilon everywhere."""

import dataclasses
import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import privacy
from dppca_core.pipeline.budget import BudgetSplit, release_pca, release_with
from dppca_core.pipeline.options import ReleaseOptions
from dppca_core.validation import MIN_EPSILON, check_delta, check_epsilon
from tests.helpers import spiked_rows

X = spiked_rows(300, 5, 2, seed=3)[0] * 0.7 + 0.2 / math.sqrt(5)
BELOW = float(np.nextafter(MIN_EPSILON, 0.0))


def test_options_are_frozen():
    options = ReleaseOptions(k=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.k = 3
    assert options.replace(k=3).k == 3 and options.k == 2


@pytest.mark.parametrize(
    "field, bad, words",
    [
        ("k", 0, "out of range"),
        ("k", 2.5, "whole number"),
        ("k", "all", "'auto'"),
        ("epsilon", 0.0, "epsilon must be"),
        ("epsilon", True, "epsilon must be"),
        ("epsilon", math.inf, "finite"),
        ("neighbors", "swap", "neighbo"),
        ("center", "median", "'none' or 'private'"),
        ("scale", "log", "one of"),
        ("data_norm", "auto", "'private'"),
        ("budget", [0.1], "BudgetSplit"),
        ("budget", {"spectrum": 0.1}, "unknown part"),
        ("radius_bounds", (10.0, 1.0), "0 < low < high"),
        ("radius_quantile", 1.0, "out of range"),
        ("score_frame", "tight", "one of"),
        ("score_kind", "dense", "one of"),
    ],
)
def test_every_constraint_is_checked_in_one_place_in_plain_words(field, bad, words):
    with pytest.raises(ValueError, match=words):
        ReleaseOptions(**{field: bad})


def test_variance_target_only_with_a_private_k():
    with pytest.raises(ValueError, match="k='auto' only"):
        ReleaseOptions(k=2, variance_target=0.9)
    assert ReleaseOptions(k="auto", variance_target=0.9).auto_k


def test_keyword_arguments_map_onto_the_options_object_bit_for_bit():
    kw = dict(
        center="private", budget=BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1), score_kind="sparse"
    )
    by_keywords = release_pca("analyze_gauss", X, 2, 1.0, 1e-6, seed=4, **kw).published()
    options = ReleaseOptions(k=2, epsilon=1.0, delta=1e-6, **kw)
    by_object = release_with("analyze_gauss", X, options, seed=4).published()
    assert json_of(by_keywords) == json_of(by_object)


def json_of(published: dict) -> str:
    from tests.golden.cases import canonical

    return canonical({key: value for key, value in published.items() if key != "guarantee_text"})


def test_the_key_names_the_options_exactly():
    groups = np.array(["a", "b"] * 150)
    base = ReleaseOptions(k=2, budget=BudgetSplit.with_extras(scores=0.1), score_groups=groups)
    assert (
        base.key() == ReleaseOptions(k=2, budget=BudgetSplit.with_extras(scores=0.1), score_groups=groups.copy()).key()
    )
    changed = [
        base.replace(score_groups=groups[::-1]),
        base.replace(budget=BudgetSplit.with_extras(scores=0.2)),
        base.replace(epsilon=2.0),
        base.replace(params={"iterations": 3}),
    ]
    assert len({base.key(), *(c.key() for c in changed)}) == 5
    assert groups.tobytes().hex() not in base.key()  # the labels themselves never sit in a cache key


# -- one rule for epsilon ---------------------------------------------------------------------------------------


def test_the_floor_is_the_edge_of_a_total_epsilon():
    assert check_epsilon(MIN_EPSILON) == MIN_EPSILON
    with pytest.raises(ValueError, match="below 1e-06"):
        check_epsilon(BELOW)
    with pytest.raises(ValueError, match="below 1e-06"):
        release_pca("analyze_gauss", X, 2, BELOW)


def test_a_part_of_a_total_at_the_floor_is_calibrated():
    """The parts of a split budget are checked by the same rule without the floor: a release at the smallest total
    epsilon, whose parts are below it, goes ahead (pure-DP shares split epsilon itself)."""
    rel = release_pca(
        "private_power", X, 2, MIN_EPSILON, budget=BudgetSplit.with_extras(eigenvalues=0.2), noise="laplace", seed=1
    )
    assert rel.facts["budget"]["eigenvalues"]["epsilon"] < MIN_EPSILON
    assert privacy.laplace_scale(1.0, BELOW) == pytest.approx(1.0 / BELOW)


@pytest.mark.parametrize("bad", [True, False, math.inf, math.nan, -1.0, 0.0, "1.0", None])
def test_validation_and_calibration_refuse_the_same_epsilons(bad):
    """Both edges of the rule, in both places (the calibration accepted True as 1 and said nothing of inf)."""
    with pytest.raises(ValueError, match="epsilon must be") as checked:
        check_epsilon(bad)
    with pytest.raises(ValueError, match="epsilon must be") as calibrated:
        privacy.laplace_scale(1.0, bad)
    assert str(checked.value) == str(calibrated.value)
    with pytest.raises(ValueError, match="epsilon must be"):
        privacy.gaussian_sigma(1.0, bad, 1e-6)


@pytest.mark.parametrize("bad", [True, 0.0, 1.0, math.nan, None])
def test_validation_and_calibration_refuse_the_same_deltas(bad):
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        check_delta(bad)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        privacy.gaussian_sigma(1.0, 1.0, bad)


def test_the_largest_finite_epsilon_passes_the_rule():
    assert check_epsilon(np.finfo(float).max) == np.finfo(float).max
    assert dc.ReleaseOptions(epsilon=np.float32(2.0)).epsilon == 2.0


# -- one rule per option across the layers (the estimator, release_pca, run and the registry) -------------------


def _refusal(call) -> str:
    with pytest.raises(ValueError) as refused:
        call()
    return str(refused.value)


def _three_layers(k=2, epsilon=1.0, delta=1e-6, **options) -> dict:
    """The message each layer gives for the same choice: the estimator (its k is n_components, named so in its
    message), release_pca and run (one mechanism's release through the registry)."""
    from dppca_core.api import run
    from dppca_core.data.prepare import prepare

    estimator = _refusal(
        lambda: dc.DPPCA(k, epsilon=epsilon, delta=delta, data_norm=1.0, random_state=0, **options).fit(X)
    )
    said = {
        "estimator": estimator.replace("n_components", "k"),
        "release_pca": _refusal(lambda: release_pca("analyze_gauss", X, k, epsilon, delta, seed=0, **options)),
    }
    if not options:  # run takes the mechanism's own parameters only
        said["run"] = _refusal(
            lambda: run("analyze_gauss", prepare(X, 1.0), k, epsilon, delta, "replace", 1.0, np.random.default_rng(0))
        )
    return said


@pytest.mark.parametrize(
    "bad",
    [
        dict(epsilon=0.0),
        dict(epsilon=-1.0),
        dict(epsilon=math.inf),
        dict(epsilon=math.nan),
        dict(epsilon=True),
        dict(epsilon="1"),
        dict(epsilon=BELOW),
        dict(delta=0.0),
        dict(delta=1.0),
        dict(delta=True),
        dict(delta=math.nan),
        dict(delta=1e-200),
        dict(k=0),
        dict(k=-1),
        dict(k=6),
        dict(k=9),
    ],
)
def test_the_estimator_release_pca_and_run_refuse_a_bad_epsilon_delta_or_k_in_the_same_words(bad):
    """One rule per option: the same bad epsilon, delta or k gets the same message from every layer (k=0 was
    "out of range: choose 1 <= n_components <= n_features = 5, None ..." from the estimator, "choose 1 <= k <= d
    (the number of columns)" from release_pca and "choose 1 <= k <= d = 5" from run)."""
    said = _three_layers(**bad)
    assert len(set(said.values())) == 1, said


@pytest.mark.parametrize(
    "options",
    [
        dict(center="empirical"),
        dict(budget={"mean": 0.1}),
        dict(center="private", budget={"eigenvalues": 0.1}),
        dict(budget={"spectrum": 0.1}),
        dict(budget={"eigenvalues": True}),
        dict(budget=[0.1]),
    ],
)
def test_the_estimator_and_release_pca_refuse_a_centre_or_budget_in_the_same_words(options):
    """The estimator checked the centring and the budget itself, in other words than the release (and took a dict
    of shares that release_pca refused); both now ask the options object and the release's plan."""
    said = _three_layers(**options)
    assert said["estimator"] == said["release_pca"], said


def test_a_budget_given_as_shares_is_the_same_budget_in_every_layer():
    """A dict of shares is read by one rule: with "subspace" a full split, else extra shares and the rest to the
    subspace (the estimator's form, which release_pca refused)."""
    given = {"mean": 0.1, "eigenvalues": 0.1}
    by_dict = release_pca("analyze_gauss", X, 2, 1.0, center="private", budget=given, seed=3).published()
    by_split = release_pca(
        "analyze_gauss", X, 2, 1.0, center="private", budget=BudgetSplit.with_extras(**given), seed=3
    ).published()
    assert json_of(by_dict) == json_of(by_split)
    assert ReleaseOptions(budget={"subspace": 0.9, "eigenvalues": 0.1}).budget == BudgetSplit(
        subspace=0.9, eigenvalues=0.1
    )


@pytest.mark.parametrize(
    "kind, low, high, bad",
    [
        ("int", 1, 500, 0),
        ("int", 1, 500, 501),
        ("int", 1, 500, 2.5),
        ("float", 1e-4, 1e4, 0.0),
        ("float", 0.0, 1.0, math.nan),
        ("int", 0, None, -1),
    ],
)
def test_a_mechanism_parameter_is_checked_by_the_same_declared_range(kind, low, high, bad):
    """registry.Param's range is a declared :class:`Interval` of dppca_core.validation: the same object, and the same
    words, as check_int_range and check_float_range."""
    from dppca_core.registry import Param
    from dppca_core.validation import Interval, check_float_range, check_int_range

    param = Param("iterations", kind, 1, "help", low=low, high=high)
    assert param.range == Interval(kind, low, high)
    by_param = _refusal(lambda: param.validate(bad))
    assert by_param == _refusal(lambda: param.range.check(bad, "iterations"))
    if kind == "int":
        assert by_param == _refusal(lambda: check_int_range(bad, "iterations", low, high))
    else:
        assert by_param == _refusal(lambda: check_float_range(bad, "iterations", low, high))

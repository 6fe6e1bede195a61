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


@pytest.mark.parametrize("field, bad, words", [
    ("k", 0, "out of range"), ("k", 2.5, "whole number"), ("k", "all", "'auto'"),
    ("epsilon", 0.0, "epsilon must be"), ("epsilon", True, "epsilon must be"), ("epsilon", math.inf, "finite"),
    ("neighbors", "swap", "neighbo"), ("center", "median", "'none' or 'private'"),
    ("scale", "log", "one of"), ("data_norm", "auto", "'private'"), ("budget", {"mean": 0.1}, "BudgetSplit"),
    ("radius_bounds", (10.0, 1.0), "0 < low < high"), ("radius_quantile", 1.0, "out of range"),
    ("score_frame", "tight", "one of"), ("score_kind", "dense", "one of"),
])
def test_every_constraint_is_checked_in_one_place_in_plain_words(field, bad, words):
    with pytest.raises(ValueError, match=words):
        ReleaseOptions(**{field: bad})


def test_variance_target_only_with_a_private_k():
    with pytest.raises(ValueError, match="k='auto' only"):
        ReleaseOptions(k=2, variance_target=0.9)
    assert ReleaseOptions(k="auto", variance_target=0.9).auto_k


def test_keyword_arguments_map_onto_the_options_object_bit_for_bit():
    kw = dict(center="private", budget=BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1),
              score_kind="sparse")
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
    assert base.key() == ReleaseOptions(k=2, budget=BudgetSplit.with_extras(scores=0.1),
                                        score_groups=groups.copy()).key()
    changed = [base.replace(score_groups=groups[::-1]), base.replace(budget=BudgetSplit.with_extras(scores=0.2)),
               base.replace(epsilon=2.0), base.replace(params={"iterations": 3})]
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
    rel = release_pca("private_power", X, 2, MIN_EPSILON, budget=BudgetSplit.with_extras(eigenvalues=0.2),
                      noise="laplace", seed=1)
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

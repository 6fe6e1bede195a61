"""The ledger of a release: its steps' curves composed once and checked against the stated budget."""

import math

import pytest

from dppca_core.pipeline.budget import BudgetSplit, release_pca
from dppca_core.pipeline.ledger import Ledger, Step
from dppca_core.privacy import PrivacyCurve, compose
from tests.helpers import spiked_rows

X = spiked_rows(400, 5, 2, seed=8)[0] * 0.7 + 0.2 / math.sqrt(5)


def test_steps_that_spend_more_than_the_budget_are_refused():
    ledger = Ledger()
    ledger.record(Step(curves=[PrivacyCurve.pure(0.6)], outputs={"a": 1}))
    ledger.record(Step(curves=[PrivacyCurve.pure(0.6)], outputs={"b": 2}, facts={"f": 3}, parameters={"p": 4}))
    assert (ledger.outputs, ledger.facts, ledger.parameters) == ({"a": 1, "b": 2}, {"f": 3}, {"p": 4})
    with pytest.raises(RuntimeError, match="compose to epsilon = 1.2"):
        ledger.close(1.0, 0.0, "pure")
    curve, guarantee = ledger.close(1.2, 0.0, "pure")
    assert guarantee == "pure" and curve.epsilon == pytest.approx(1.2)


def test_a_retracted_guarantee_keeps_the_mechanisms_own_curve():
    ledger = Ledger()
    ledger.record(Step(curves=[PrivacyCurve.pure(5.0)]))
    curve, guarantee = ledger.close(1.0, 0.0, "retracted", PrivacyCurve.none())
    assert guarantee == "retracted" and curve.kind == "none"


def test_a_release_composes_the_curve_of_every_step_it_ran():
    """Every private step with a share is in the ledger: the release's curve is the composition of one curve per
    share (the subspace's from the mechanism), and it earns exactly the total epsilon at the total delta."""
    split = BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, frame=0.05)
    rel = release_pca(
        "analyze_gauss",
        X,
        "auto",
        1.0,
        1e-6,
        seed=2,
        budget=split,
        center="private",
        data_norm="private",
        variance_target=0.8,
        score_frame="private",
    )
    shares = rel.facts["budget"]
    assert set(shares) == {part for part, w in split.as_dict().items() if w > 0}
    rebuilt = compose([PrivacyCurve.gdp(s["mu"]) for s in shares.values()], delta=1e-6)
    assert rel.privacy.mu == pytest.approx(rebuilt.mu, rel=1e-12)
    assert rel.privacy.epsilon_at(1e-6) == pytest.approx(1.0, rel=1e-6)

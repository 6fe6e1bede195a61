"""The privacy audit: it refutes false claims and never refutes true ones (at its confidence)."""
import math

import numpy as np
import pytest
from scipy.stats import binomtest

import dppca_core as dc
from dppca_core.audit import audit, clopper_pearson, epsilon_lower_bound

PRIVATE = [m for m in dc.mechanism_names() if dc.get_mechanism(m).guarantee in ("pure", "approximate")]


def test_wishart_is_shown_not_private():
    # ALGORITHMS.md §6.3: the PSD test never flags D and flags D' with probability 1 - e^-eps = 0.632,
    # so delta >= 0.632; with 500 evaluation trials the 95% CP bounds leave delta_lower above 0.5.
    result = audit("wishart_sn", 1.0, trials=1000, seed=0)
    assert result.violated and result.statistic == "psd_support"
    assert result.false_positive_rate == 0.0
    assert result.false_negative_rate == pytest.approx(math.exp(-1.0), abs=0.07)
    assert result.delta_lower > 0.5
    assert "contradicted" in result.verdict()


def test_non_private_is_flagged():
    result = audit("non_private", 1.0, trials=200, seed=1)
    assert result.violated and result.epsilon_lower > 3


@pytest.mark.parametrize("name", PRIVATE)
def test_private_mechanisms_are_not_refuted(name):
    spec = dc.get_mechanism(name)
    params = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
    result = audit(name, 1.0, 1e-5, trials=200, seed=2, n=40, **params)
    assert not result.violated, result
    assert result.epsilon_lower <= 1.0


def test_audit_has_power_against_an_under_noised_claim():
    # analyze_gauss run at epsilon = 50 but audited as if it claimed 0.1: the test must catch it
    result = audit("analyze_gauss", 50.0, 1e-5, trials=600, seed=3)
    assert result.epsilon_lower > 0.1


def test_clopper_pearson_and_bound_arithmetic():
    lo, hi = clopper_pearson(0, 100, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9)
    lo, hi = clopper_pearson(30, 100, 0.95)
    ci = binomtest(30, 100).proportion_ci(0.95, method="exact")
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert epsilon_lower_bound(0.1, 0.1, 0.0) == pytest.approx(math.log(0.9 / 0.1))
    assert epsilon_lower_bound(0.5, 0.5, 0.0) == 0.0


def test_audit_is_deterministic_and_validates():
    a = audit("analyze_gauss", 1.0, trials=50, seed=5)
    b = audit("analyze_gauss", 1.0, trials=50, seed=5)
    assert np.array_equal(a.scores_d, b.scores_d) and a.epsilon_lower == b.epsilon_lower
    with pytest.raises(ValueError, match="trials"):
        audit("analyze_gauss", 1.0, trials=3)
    with pytest.raises(ValueError, match="statistic"):
        audit("analyze_gauss", 1.0, statistic="magic")

"""The privacy audit attacks what a release publishes: it refutes false claims, comes close to true Gaussian
claims, and never refutes a correct mechanism (at its confidence)."""
import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import binomtest, norm

import dppca_core as dc
from dppca_core import registry
from dppca_core.audit import audit, clopper_pearson, epsilon_lower_bound, mu_lower_bound
from dppca_core.mechanisms import central
from dppca_core.privacy import gaussian_epsilon

PRIVATE = [(m, nb) for m in dc.mechanism_names("pca") if dc.get_mechanism(m).guarantee in ("pure", "approximate")
           for nb in dc.get_mechanism(m).relations]


def test_wishart_is_shown_not_private():
    # PSD noise: the test never flags D and flags D' with probability 1 - e^-eps = 0.632, so delta >= 0.632;
    # with 750 evaluation trials the 97.5% one-sided CP bounds leave delta_lower above 0.5.
    result = audit("wishart_sn", 1.0, trials=1000, seed=0)
    assert result.violated and result.statistic == "psd_support"
    assert result.false_positive_rate == 0.0
    assert result.false_negative_rate == pytest.approx(math.exp(-1.0), abs=0.06)
    assert result.delta_lower > 0.5
    assert "contradicted" in result.verdict()


def test_non_private_is_flagged_through_a_field_without_noise():
    result = audit("non_private", 1.0, 1e-5, trials=200, seed=1)
    assert result.violated and result.leaked_field is not None and result.statistic == "published field"
    assert result.false_positive_rate == 0.0 and result.false_negative_rate == 0.0
    assert result.delta_lower > 0.9  # 150 evaluation trials without an error: CP bound 0.024 on each rate
    assert result.leaked_field in result.verdict()


@pytest.mark.parametrize("name,neighbors", PRIVATE)
def test_correct_mechanisms_are_not_refuted(name, neighbors):
    result = audit(name, 1.0, 1e-5, neighbors=neighbors, trials=400, seed=2)
    assert result.leaked_field is None, result.leaked_field
    assert not result.violated, result
    assert result.epsilon_lower <= 1.0


def test_analyze_gauss_audit_reaches_more_than_half_of_the_claim():
    # mu* (1, 1e-5) = 0.268. With 7,500 evaluation trials the CP margins cost about 0.06 in mu, so mu_lower is
    # about 0.2 and the epsilon it implies at delta = 1e-5 is about 0.7 (0.5 is the target, 1.0 the claim).
    result = audit("analyze_gauss", 1.0, 1e-5, trials=10_000, seed=0)
    assert result.conversion == "gdp" and result.statistic == "gram_entry"
    assert 0.5 <= result.epsilon_lower <= 1.0 and not result.violated
    assert 0.5 <= result.ratio <= 1.0
    assert result.mu_lower <= result.mu_claimed


def test_audit_catches_a_mechanism_run_at_three_times_the_claimed_epsilon():
    # run at eps = 3 (mu = 0.71) but claimed at eps = 1: mu_lower ~ 0.6 implies eps ~ 2.5 > 1
    result = audit("analyze_gauss", 1.0, 1e-5, trials=4000, seed=3, run_epsilon=3.0)
    assert result.violated and result.epsilon_lower > 1.0
    assert "contradicted" in result.verdict() and "1e-05" in result.verdict()


def test_audit_catches_half_the_claimed_noise(monkeypatch):
    # a broken implementation: the noise is half of what the calibration (and the privacy curve) says.
    # True mu = 0.54 at a claim of mu* = 0.27, so mu_lower ~ 0.45 implies eps ~ 1.8 > 1.
    original = central.symmetric_gaussian
    monkeypatch.setattr(central, "symmetric_gaussian", lambda d, sigma, rng: original(d, sigma / 2.0, rng))
    result = audit("analyze_gauss", 1.0, 1e-5, trials=4000, seed=4)
    assert result.violated and result.epsilon_lower > 1.0


def test_audit_catches_a_published_count_of_clipped_rows(monkeypatch):
    # a leak of the kind the release boundary forbids: a deterministic function of the data among the facts
    spec = dc.get_mechanism("analyze_gauss")

    def leaky(data, k, epsilon, delta, neighbors, rng):
        out = spec.func(data, k, epsilon, delta, neighbors, rng)
        out.facts["first_row_energy"] = float(data.gram[0, 0])
        return out

    monkeypatch.setitem(registry._REGISTRY, "analyze_gauss", dataclasses.replace(spec, func=leaky))
    result = audit("analyze_gauss", 1.0, 1e-5, trials=200, seed=5)
    assert result.violated and result.leaked_field == "facts.first_row_energy"


def test_gdp_reading_of_one_test():
    # a mu-GDP test at the midpoint threshold has alpha = beta = Phi(-mu/2): the reading gives mu back
    mu = 0.8
    alpha = norm.cdf(-mu / 2)
    assert mu_lower_bound(alpha, alpha) == pytest.approx(mu, rel=1e-12)
    assert mu_lower_bound(0.5, 0.6) == 0.0
    assert gaussian_epsilon(float(mu_lower_bound(alpha, alpha)), 1e-5) > 0


def test_clopper_pearson_and_bound_arithmetic():
    lo, hi = clopper_pearson(0, 100, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9)
    lo, hi = clopper_pearson(30, 100, 0.95)
    ci = binomtest(30, 100).proportion_ci(0.95, method="exact")
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert epsilon_lower_bound(0.1, 0.1, 0.0) == pytest.approx(math.log(0.9 / 0.1))
    assert epsilon_lower_bound(0.5, 0.5, 0.0) == 0.0


def test_audit_is_deterministic_and_validates():
    a = audit("analyze_gauss", 1.0, trials=60, seed=5)
    b = audit("analyze_gauss", 1.0, trials=60, seed=5)
    assert np.array_equal(a.scores_d, b.scores_d) and a.epsilon_lower == b.epsilon_lower
    with pytest.raises(ValueError, match="trials"):
        audit("analyze_gauss", 1.0, trials=3)
    with pytest.raises(ValueError, match="statistic"):
        audit("analyze_gauss", 1.0, statistic="magic")
    with pytest.raises(ValueError, match="epsilon"):
        audit("analyze_gauss", 0.0)
    with pytest.raises(ValueError, match="k = 1"):
        audit("private_power", 1.0, trials=60, statistic="power_iterates", k=2)


def test_private_oja_is_audited_at_the_canarys_step():
    # The design knows the public order and start vector and reads the iterates around the canary's step.
    # Its separation is |sin 2 theta| mu* per trial (the normalisation hides the radial part of the step), about
    # (2/pi) mu* = 0.17 on average at (1, 1e-5); after the Clopper-Pearson margins of 3,000 evaluation trials
    # (about 0.1 in mu) the bound is about a quarter of the claim. The design that ignored the order reached 3%.
    result = audit("private_oja", 1.0, 1e-5, trials=4000, seed=0)
    assert result.statistic == "oja_step" and result.conversion == "gdp"
    assert not result.violated and 0.15 <= result.ratio <= 1.0
    # ... and it has the power to refute a run with less noise than the claim needs (mu 0.71 instead of 0.27)
    weak = audit("private_oja", 1.0, 1e-5, trials=4000, seed=3, run_epsilon=3.0)
    assert weak.violated and weak.epsilon_lower > 1.2


def test_private_oja_design_replays_exactly_the_public_draws_of_the_run():
    from dppca_core.audit import _copy_of
    from dppca_core.mechanisms.streaming import oja_audit_design

    design = oja_audit_design(d=2, n=20, neighbors="replace", statistic="auto")
    rng = np.random.default_rng(11)
    order, w0 = design.public_draws(_copy_of(rng))
    release = dc.run("private_oja", design.D, 1, 1.0, 1e-5, seed=rng, lr_c1=1e-4)
    frames = release.outputs["iterates"]
    assert len(frames) == 20  # every step's iterate is published
    assert sorted(order) == list(range(20))
    # with a tiny learning rate the first iterate is the start vector moved by about 1e-5 x noise
    assert np.linalg.norm(frames[0][:, 0] - w0) < 1e-3
    with pytest.raises(ValueError, match="replace"):
        oja_audit_design(d=2, n=20, neighbors="add_remove", statistic="auto")

"""Every PCA mechanism reaches its paper's rate: log-log slopes of the error against n, epsilon (and the data noise
for the streaming mechanisms) in a regime where the rate holds, compared with the slope of the rate's dominant
term (dppca_core.theory), plus, where first-order perturbation theory gives it, the error level itself.

Tolerances. Slopes: each point is the mean of 8-12 seeded runs whose error has a coefficient of variation of
~0.2-0.3 (a chi-like variable with k(d-k) degrees of freedom), so a point is known to ~7% and a slope fitted over
a grid spanning a factor 4-16 to ~0.03-0.07; lower-order terms of the rates move slopes by up to ~0.1 in these
regimes. +-0.2 is about three standard errors plus that slack, and still separates -1/2 from -1 and the fixed
batch of the old dp_pca (slope ~0 where -0.9 is due). Levels: the first-order prediction of sqrt(E||sin
Theta||^2) is exact up to O(error) ~ 10-15% here, and the RMS over 12 runs is known to ~5%, so the ratio must lie
in [0.75, 4/3]; twice or half the calibrated noise gives 2 or 0.5.
"""

import pytest

import dppca_core as dc
from dppca_core import theory
from dppca_core.mechanisms.rates import CENTRAL_EPS, CENTRAL_N, Regime, privacy_regimes

MECHANISMS = [m for m in dc.mechanism_names("pca") if m not in ("non_private", "wishart_sn")]
CASES = sorted(theory.regimes())


def test_every_pca_mechanism_has_a_regime_on_both_axes():
    for mechanism in MECHANISMS:
        axes = {regime.axis for key, regime in theory.regimes().items() if key[0] == mechanism}
        assert {"n", "eps"} <= axes, mechanism
        assert mechanism in theory.formulas()


def test_privacy_regimes_are_the_central_settings_with_what_differs_over_them():
    """The two regimes most rates declare: CENTRAL_N's and CENTRAL_EPS's settings, the shared keywords over both and
    each axis's own over that axis only."""
    plain = privacy_regimes("why n", "why eps")
    assert plain == {
        "n": Regime("n", term="privacy", why="why n", **CENTRAL_N),
        "eps": Regime("eps", term="privacy", why="why eps", **CENTRAL_EPS),
    }
    moved = privacy_regimes("a", "b", n={"grid": (1, 2)}, eps={"n": 5}, k=1, reps=8)
    assert moved["n"].grid == (1, 2) and moved["eps"].grid == CENTRAL_EPS["grid"]
    assert moved["eps"].n == 5 and moved["n"].n == CENTRAL_N["n"]
    assert moved["n"].k == moved["eps"].k == 1 and moved["n"].reps == moved["eps"].reps == 8


@pytest.mark.parametrize("mechanism,label", CASES)
def test_slope_and_level_match_the_rate(mechanism, label):
    result = theory.measure_slope(mechanism, label)
    detail = (
        f"{mechanism} [{label}]: errors {[round(e, 4) for e in result.errors]} on {result.grid}, slope "
        f"{result.measured:+.2f}, predicted {result.predicted:+.2f}, level {result.level}"
    )
    assert abs(result.measured - result.predicted) <= 0.2, detail
    if result.level is not None:
        assert 0.75 <= result.level <= 4 / 3, detail
    # every regime keeps the error well below the random level, where the rates are meant to hold
    assert max(result.errors) < 0.5, detail


def test_the_data_noise_axis_separates_dp_pca_from_private_oja():
    # Example 4.1: DP-PCA's error vanishes with the data noise (slope ~ +1), Private Oja's does not (slope ~ 0)
    assert theory.regimes()[("dp_pca", "sigma")].axis == "sigma"
    assert theory.predicted_slope("dp_pca", "sigma") == pytest.approx(1.0)
    assert theory.predicted_slope("private_oja", "sigma") == pytest.approx(0.0)


def test_the_slope_test_catches_doubled_noise(monkeypatch):
    # mutation check: Analyze Gauss with twice its calibrated noise keeps its slope (-1 in n) but its level
    # doubles, out of [0.75, 4/3]
    from dppca_core.mechanisms import central

    calibrated = central.gaussian_sigma
    monkeypatch.setattr(central, "gaussian_sigma", lambda *a, **kw: 2.0 * calibrated(*a, **kw))
    result = theory.measure_slope("analyze_gauss", "n")
    assert abs(result.measured - result.predicted) <= 0.2
    assert result.level == pytest.approx(2.0, rel=0.2) and not 0.75 <= result.level <= 4 / 3


def test_the_slope_test_catches_a_fixed_batch_schedule(monkeypatch):
    # mutation check: DP-PCA with a fixed batch of 2,000 rows (the schedule the paper's B ~ n/(ln n)^2 replaced)
    # no longer follows its privacy-dominated n-rate
    params = theory._params
    monkeypatch.setattr(theory, "_params", lambda mechanism, regime: {**params(mechanism, regime), "batch_size": 2000})
    result = theory.measure_slope("dp_pca", "n, privacy")
    assert abs(result.measured - result.predicted) > 0.2, (result.errors, result.measured, result.predicted)

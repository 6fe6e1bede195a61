import numpy as np
import pytest

import dppca_core as dc
from dppca_core import theory


@pytest.mark.parametrize("mech", list(theory.formulas()))
def test_rates_fall_with_n_and_epsilon(mech):
    base = dict(n=2000, d=20, k=3, epsilon=1.0, delta=1e-6, s=5)
    by_n = theory.rate(mech, "n", [1000, 10000, 100000], **base)
    by_eps = theory.rate(mech, "eps", [0.1, 1.0, 10.0], **base)
    assert np.all(np.diff(by_n) < 0) and np.all(np.isfinite(by_n))
    assert np.all(np.diff(by_eps) <= 0)


def test_analyze_gauss_rate_is_inverse_in_n_and_epsilon_shape():
    r = theory.rate("analyze_gauss", "n", [1000, 2000], n=1000, d=20, k=3, epsilon=1.0, delta=1e-6, term="privacy")
    assert r[0] / r[1] == pytest.approx(2.0)
    s = theory.rate("analyze_gauss", "n", [1000, 4000], n=1000, d=20, k=3, epsilon=1.0, delta=1e-6, term="statistical")
    assert s[0] / s[1] == pytest.approx(2.0)
    assert set(theory.formulas()) <= set(dc.mechanism_names())
    assert theory.RATES == theory.formulas()  # the old name still reads
    with pytest.raises(ValueError, match="no theoretical rate"):
        theory.rate("wishart_sn", "n", [1], n=1, d=2, k=1, epsilon=1, delta=1e-6)


# -- rates fitted to measured points (issue 35 item 4) ----------------------------------------------------------

EPS_GRID = np.array([0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0])
BASE = dict(n=2000, d=20, k=2, epsilon=1.0, delta=1e-6)


def _measured_distance(rate, constant=16.0, floor=0.05, random_level=1.2):
    """A measured distance as the app sees it: the rate times a constant, saturating at a random subspace at small
    epsilon and stopping on a floor the rate does not model at large epsilon (e.g. clipping bias)."""
    return np.minimum(np.sqrt((constant * rate) ** 2 + floor**2), random_level)


def test_fit_recovers_the_constant_and_reports_its_error():
    rate = theory.rate("analyze_gauss", "eps", EPS_GRID, **BASE)
    fit = theory.fit_rate(EPS_GRID, 3.0 * rate, rate, "subspace_distance", "eps")
    assert fit.constant == pytest.approx(3.0) and fit.error == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(fit.xs, EPS_GRID) and np.allclose(fit.ys, 3.0 * rate)
    noisy = 3.0 * rate * (1 + 0.1 * np.resize([1, -1], len(rate)))  # +-10% around the rate
    fit = theory.fit_rate(EPS_GRID, noisy, rate, "subspace_distance", "eps")
    assert fit.error == pytest.approx(0.1, abs=0.01) and len(fit.xs) == len(EPS_GRID)


def test_fit_is_drawn_only_where_it_fits():
    """The issue's distance sweep: the rate predicted 0.05 at eps = 100 where the data gave 0.63 (a floor). The
    fitted curve stops before the floor and after the random level, and fits its own points within the tolerance."""
    rate = theory.rate("analyze_gauss", "eps", EPS_GRID, **BASE)
    measured = _measured_distance(rate)
    fit = theory.fit_rate(EPS_GRID, measured, rate, "subspace_distance", "eps")
    assert fit is not None and fit.error <= theory.FIT_TOLERANCE
    kept = np.isin(EPS_GRID, fit.xs)
    assert not kept[-1] and not kept[0]  # neither the floor at eps = 100 nor the random level at eps = 0.05
    assert kept.sum() >= theory.FIT_MIN_POINTS
    assert np.all(np.abs(fit.ys / measured[kept] - 1) <= theory.FIT_TOLERANCE + 1e-9)
    flat = np.full(len(EPS_GRID), 0.63)  # nothing but a floor: no run of points follows the rate
    assert theory.fit_rate(EPS_GRID, flat, rate, "subspace_distance", "eps") is None


def test_captured_energy_rate_rises_with_epsilon():
    """The issue's energy sweep: the error rate scaled to the energy fell as eps grew. The energy lost (100 - the
    energy) follows the squared rate, so the fitted energy rises; a falling curve is never returned."""
    rate = theory.rate("analyze_gauss", "eps", EPS_GRID, **BASE)
    energy = np.maximum(100 - 40 * rate**2 / rate[4] ** 2, 30.0)  # 60% at eps = 1, towards 100%; 30% at most noise
    fit = theory.fit_rate(EPS_GRID, energy, rate, "energy", "eps")
    assert fit is not None and fit.error < 1e-9
    assert np.all(np.diff(fit.ys) > 0)
    assert theory.moves_right_way(fit.xs, fit.ys, "energy", "eps")
    old = rate * np.exp(np.mean(np.log(energy) - np.log(rate)))  # the old overlay: the error rate on the energy
    assert not theory.moves_right_way(EPS_GRID, old, "energy", "eps")


def test_direction_check():
    xs = [1.0, 2.0, 4.0]
    assert theory.moves_right_way(xs, [0.9, 0.5, 0.2], "subspace_distance", "eps")
    assert not theory.moves_right_way(xs, [0.2, 0.5, 0.9], "subspace_distance", "n")
    assert not theory.moves_right_way(xs, [90.0, 80.0, 70.0], "energy", "delta")
    assert theory.moves_right_way(xs, [0.2, 0.5, 0.9], "subspace_distance", "d")  # more features: more error
    assert theory.moves_right_way(xs, [0.2, 0.5, 0.1], "subspace_distance", "k")  # no fixed direction
    assert not theory.moves_right_way(xs[::-1], [0.2, 0.5, 0.9], "energy", "eps")  # order by x first
    assert theory.fit_rate(xs, [0.5, 0.5, 0.5], [1.0, 1.0, 1.0], "f1", "eps") is None  # no rate for F1


@pytest.mark.parametrize("mech", list(theory.formulas()))
@pytest.mark.parametrize(
    "axis, grid", [("eps", EPS_GRID), ("n", [250, 1000, 4000, 16000]), ("delta", [1e-10, 1e-6, 1e-2])]
)
@pytest.mark.parametrize("metric", list(theory.ERROR_FORMS))
def test_every_fitted_rate_moves_the_right_way(mech, axis, grid, metric):
    """Fitted to measured points that follow it, every mechanism's rate is drawn the way its utility moves: the
    distance falls and the energy rises with eps, n and delta."""
    rate = theory.rate(mech, axis, grid, **dict(BASE, s=5))
    form = theory.ERROR_FORMS[metric]
    measured = form.value(0.5 * (rate / rate.max()) ** form.power * (1 if metric == "subspace_distance" else 50))
    fit = theory.fit_rate(grid, measured, rate, metric, axis)
    assert fit is not None and theory.moves_right_way(fit.xs, fit.ys, metric, axis)
    assert np.all(np.diff(fit.ys) <= 1e-12) if metric == "subspace_distance" else np.all(np.diff(fit.ys) >= -1e-12)

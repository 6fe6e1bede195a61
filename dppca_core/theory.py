"""Theoretical error rates (up to constants) of the mechanisms, the regimes where they hold, and slope checks.

A *rate* gives how the subspace error ||sin Theta||_F scales with n, d, k, epsilon, delta, s and the data noise;
constants are unknown, so the dashboard fits each rate's constant to the measured points (:func:`fit_rate`) and
draws it only where it fits, with the fit's error, and never moving against the way the utility must move. Each
rate is a sum of named *terms*: ``"privacy"`` (the error the noise adds, measured against the non-private answer
on the same data) and ``"statistical"`` (the sampling error, against the population). Every
privacy term uses the exact noise calibration of the mechanism (analytic Gaussian mechanism, GDP composition),
so its slope in epsilon is the slope of the actual noise scale, about -1 at small epsilon and flatter at large
epsilon, where sigma(epsilon, delta) falls more slowly than 1/epsilon.

:func:`regimes` says, per mechanism and axis, a setting in which one term dominates and the rate's assumptions
hold (eigengap well above the noise, iterations converged, learning rate large enough); :func:`measure_slope`
measures the log-log slope of the mean error there and :func:`predicted_slope` gives the slope of the dominant
term over the same grid. ``benchmarks/rates.py`` writes both into ``docs/rates.md``; ``tests/mechanisms/test_rates.py``
holds every mechanism to its prediction.

Each mechanism declares its rate, first-order level and regimes next to its code (registry ``rate``, a
:class:`dppca_core.mechanisms.rates.Rate`); this module reads them, so a new mechanism brings its theory along.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mechanisms.rates import Point, Rate, Regime
from .registry import get_mechanism, mechanism_names


def _rate_of(mechanism: str) -> Rate:
    """The rate ``mechanism`` declares in its registry entry (ValueError when it declares none)."""
    declared = get_mechanism(mechanism).rate
    if declared is None:
        raise ValueError(f"no theoretical rate is known for {mechanism!r}.")
    return declared


def formulas() -> dict[str, str]:
    """Each mechanism with a rate, and its formula in words (with its paper and theorem), in registration order."""
    return {name: spec.rate.formula for name in mechanism_names() if (spec := get_mechanism(name)).rate is not None}


def regimes() -> dict[tuple[str, str], Regime]:
    """Every (mechanism, label) with a regime where its rate holds (the label is the axis, or the axis and the
    dominant term, e.g. "n, privacy"), in registration order."""
    return {
        (name, label): regime
        for name in mechanism_names()
        if (declared := get_mechanism(name).rate) is not None
        for label, regime in declared.regimes.items()
    }


def __getattr__(name: str):
    # RATES and REGIMES, dicts of this module before the mechanisms declared their rates: built afresh on each use
    if name == "RATES":
        return formulas()
    if name == "REGIMES":
        return regimes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _terms(mechanism, n, d, k, epsilon, delta, s, sites, sigma_data):
    """(privacy, statistical) terms of the error rate, each up to a constant."""
    k = min(k, d - 1) if d > 1 else 1
    return _rate_of(mechanism).terms(Point(n, d, k, epsilon, delta, s, sites, sigma_data))


def rate(
    mechanism: str,
    axis: str,
    xs,
    *,
    n: int,
    d: int,
    k: int,
    epsilon: float,
    delta: float,
    s: int | None = None,
    sites: int = 5,
    sigma: float = 1.0,
    term: str | None = None,
) -> np.ndarray:
    """The rate of ``mechanism`` along ``axis`` ("eps", "n", "d", "delta", "k", "s" or "sigma") at ``xs``.

    Other quantities are held at the given values; ``sigma`` is the data noise (Example 4.1's sigma; only the
    streaming mechanisms' rates depend on it). ``term`` = "privacy" or "statistical" gives that term alone. The
    default (None) is the rate of the error the dashboard shows, against the non-private answer on the same
    rows: the privacy term, plus, for the one-pass mechanisms (private_oja, dp_pca), their statistical term,
    which they pay even against the sample (unit constants). Raises ValueError for a mechanism without a known
    rate.
    """
    declared = _rate_of(mechanism)
    if term not in (None, "privacy", "statistical"):
        raise ValueError(f"term must be 'privacy', 'statistical' or None (got {term!r}).")
    base = {
        "n": n,
        "d": d,
        "k": k,
        "epsilon": epsilon,
        "delta": delta,
        "s": s or d,
        "sites": sites,
        "sigma_data": sigma,
    }
    key = {"eps": "epsilon", "sigma": "sigma_data"}.get(axis, axis)
    if key not in base:
        raise ValueError(f"unknown axis {axis!r}.")
    out = []
    for x in np.asarray(xs, dtype=float):
        point = dict(base)
        point[key] = int(x) if key in ("n", "d", "k", "s") else float(x)
        privacy, statistical = _terms(mechanism, **point)
        default = privacy + statistical if declared.one_pass else privacy
        out.append({"privacy": privacy, "statistical": statistical, None: default}[term])
    return np.array(out, dtype=float)


def loglog_slope(xs, ys) -> float:
    """Least-squares slope of log(ys) against log(xs)."""
    return float(np.polyfit(np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float)), 1)[0])


# ---------------------------------------------------------------------------------------------------------------
# A rate fitted to measured points: its constant, where it fits, and the direction it must move.

#: which way a utility moves along an axis, every other setting held: +1 it rises (more epsilon, more rows or a larger
#: delta each lower the noise), -1 it falls (more features spread the same noise wider); None: no fixed direction (k
#: and s change the question itself), so no direction is checked
UTILITY_DIRECTION = {"eps": 1, "n": 1, "delta": 1, "d": -1, "k": None, "s": None, "sigma": None}


@dataclass(frozen=True)
class ErrorForm:
    """How a metric's measured value ``y`` becomes the error a rate describes, ``e = offset + sign * y``, and the
    rate's power in that error: the subspace distance is ||sin Theta||_F itself (power 1); the captured energy lost,
    100 - energy in % of the optimal, is to first order a weighted sum of the squared sines (power 2: Davis-Kahan,
    tr(V^T C V) = sum_i lambda_i - sum_{i<=k<j} (lambda_i - lambda_j) |<v_i, u_j>|^2 + ...)."""

    offset: float
    sign: float
    power: float

    def error(self, y):
        return self.offset + self.sign * np.asarray(y, dtype=float)

    def value(self, e):
        return (np.asarray(e, dtype=float) - self.offset) / self.sign


#: the metrics a rate describes (support F1 has none: it counts rows, no rate here predicts it)
ERROR_FORMS = {"subspace_distance": ErrorForm(0.0, 1.0, 1.0), "energy": ErrorForm(100.0, -1.0, 2.0)}
#: a rate is drawn only over points it fits within this relative error (of the measured error), and on 3 or more
FIT_TOLERANCE = 0.2
FIT_MIN_POINTS = 3
#: what every fitted rate assumes, said on the page next to the curve
FIT_ASSUMPTIONS = (
    "the error is small (far below a random subspace), the noise dominates it (no floor from "
    "clipping, centring or the sampling error), and the data's eigengap stays as it is"
)


@dataclass(frozen=True)
class RateFit:
    """A rate scaled to measured points: ``xs`` the points it fits (a contiguous run of the swept values), ``ys``
    the fitted curve there in the metric's units, ``error`` the largest relative gap between the measured and the
    fitted error on them (0.1 = 10%), ``constant`` the fitted constant, ``form`` the metric's error form."""

    xs: np.ndarray
    ys: np.ndarray
    error: float
    constant: float
    form: ErrorForm

    def at(self, rate_values) -> np.ndarray:
        """The fitted curve in the metric's units where the rate takes ``rate_values`` (e.g. beyond the sweep: an
        extrapolation, valid only while the rate's assumptions hold)."""
        return self.form.value(self.constant * np.asarray(rate_values, dtype=float) ** self.form.power)


def moves_right_way(xs, ys, metric: str, axis: str) -> bool:
    """False when a curve of ``metric`` moves against the way its utility must move along ``axis``
    (:data:`UTILITY_DIRECTION`): e.g. a captured energy that falls as epsilon grows, a distance that rises with n."""
    from .pipeline.experiments import METRICS

    direction = UTILITY_DIRECTION.get(axis)
    if direction is None:
        return True
    order = np.argsort(np.asarray(xs, dtype=float))
    steps = np.diff(np.asarray(ys, dtype=float)[order])
    utility = -steps if METRICS[metric].lower_is_better else steps
    return bool(np.all(direction * utility >= -1e-12 * max(1.0, float(np.max(np.abs(ys))))))


def _window_fit(e, r, power):
    """(log constant, largest relative error) of e ~ c r^power fitted on the log scale."""
    log_c = float(np.mean(np.log(e) - power * np.log(r)))
    return log_c, float(np.max(np.abs(e / (np.exp(log_c) * r**power) - 1.0)))


def fit_rate(
    xs,
    measured,
    rate_values,
    metric: str,
    axis: str,
    tolerance: float = FIT_TOLERANCE,
    min_points: int = FIT_MIN_POINTS,
) -> RateFit | None:
    """The rate's constant fitted to the measured means where it fits, or None.

    The measured values become errors (:data:`ERROR_FORMS`); the longest run of neighbouring swept points (at least
    ``min_points``; ties: the smaller error) on which one constant fits every point within ``tolerance`` is kept, so
    the curve is drawn only where the data follow the rate: not where they sit at a random subspace (small epsilon)
    or on a floor the rate does not model (large epsilon). None when no run fits, when the metric has no error form,
    or when the fitted curve would move the wrong way (:func:`moves_right_way`).
    """
    form = ERROR_FORMS.get(metric)
    if form is None:
        return None
    xs, r = np.asarray(xs, dtype=float), np.asarray(rate_values, dtype=float)
    order = np.argsort(xs)
    xs, r, e = xs[order], r[order], form.error(np.asarray(measured, dtype=float)[order])
    usable = np.isfinite(e) & (e > 0) & np.isfinite(r) & (r > 0)
    best = None
    for i in range(len(xs)):
        for j in range(i + min_points, len(xs) + 1):
            if not usable[i:j].all():
                break
            log_c, error = _window_fit(e[i:j], r[i:j], form.power)
            if error <= tolerance and (best is None or (j - i, -error) > (best[1] - best[0], -best[3])):
                best = (i, j, log_c, error)
    if best is None:
        return None
    i, j, log_c, error = best
    fit = RateFit(xs[i:j], np.empty(0), error, float(np.exp(log_c)), form)
    fit = RateFit(fit.xs, fit.at(r[i:j]), error, fit.constant, form)
    return fit if moves_right_way(fit.xs, fit.ys, metric, axis) else None


# ---------------------------------------------------------------------------------------------------------------
# The regimes in which each rate holds (declared by the mechanisms, :class:`dppca_core.mechanisms.rates.Regime`),
# and the measurement of slopes there.


def _make(regime: Regime, n: int, sigma: float | None = None):
    from .data import datasets

    args = dict(regime.data)
    if regime.law == "spiked":
        return datasets.spiked_covariance(n=n, **args)
    if sigma is not None:
        args["sigma"] = sigma
    return datasets.liu_example_41(n=n, **args)


def _params(mechanism: str, regime: Regime) -> dict:
    from .registry import get_mechanism

    spec = get_mechanism(mechanism)
    params = dict(regime.params)
    if any(p.name == "sites" for p in spec.params) and "sites" not in params:
        params["sites"] = 5
    return params


def _regime(mechanism: str, label: str) -> Regime:
    regimes_of = _rate_of(mechanism).regimes
    if label not in regimes_of:
        raise KeyError((mechanism, label))
    return regimes_of[label]


def first_order_rms(mechanism: str, eigenvalues, *, n: int, k: int, epsilon: float, delta: float, sites: int = 5):
    """First-order prediction of sqrt(E ||sin Theta||_F^2) against the sample subspace, or None.

    ``eigenvalues`` (descending) are those of the Gram matrix C the mechanism perturbs (one site's for
    dist_local). Every noise level comes from the calibration the mechanism's privacy argument states,
    recomputed from :mod:`dppca_core.privacy` by the mechanism's declared ``first_order`` (perturbation theory,
    valid while the error is small: :func:`dppca_core.mechanisms.rates.input_noise_rms` and its neighbours), so
    a mechanism that adds more (or less) noise than its proof needs fails the comparison.
    """
    declared = get_mechanism(mechanism).rate
    if declared is None or declared.first_order is None:
        return None
    lam = np.asarray(eigenvalues, dtype=float)
    return declared.first_order(lam, Point(n, len(lam), k, epsilon, delta, sites=sites))


@dataclass(frozen=True)
class SlopeResult:
    mechanism: str
    label: str
    grid: tuple
    errors: tuple
    measured: float
    predicted: float
    regime: Regime
    level: float | None = None  # RMS error / first-order prediction at the middle grid point (None: no prediction)


def measure_slope(mechanism: str, label: str, *, seed: int = 0) -> SlopeResult:
    """Mean error over ``reps`` seeds at each grid point of the regime ``regimes()[(mechanism, label)]``, and the
    fitted log-log slope (``label`` is the axis, or the axis and the dominant term, e.g. "n, privacy").

    Data for an n-grid are one draw at the largest n, used by prefixes (rows are i.i.d.), each prepared once and
    shared by the repetitions.
    """
    from . import metrics
    from .api import run
    from .data.prepare import prepare

    regime = _regime(mechanism, label)
    axis = regime.axis
    params = _params(mechanism, regime)
    errors, level = [], None
    big = _make(regime, max(regime.grid)) if axis == "n" else None
    fixed = _make(regime, regime.n) if axis == "eps" else None
    for x in regime.grid:
        if axis == "n":
            data, rows = big, big.X[: int(x)]
        elif axis == "eps":
            data, rows = fixed, fixed.X
        else:
            data = _make(regime, regime.n, sigma=float(x))
            rows = data.X
        prepared = prepare(rows)
        epsilon = float(x) if axis == "eps" else regime.epsilon
        # dist_local analyses site 0 alone (the first ceil(n/S) rows): its privacy error is against that site
        own = prepare(rows[: -(-len(rows) // params["sites"])]) if mechanism == "dist_local" else prepared
        if regime.reference == "sample":
            reference = run("non_private", own, regime.k, 1.0).components
        else:
            reference = data.components
        errs = np.array(
            [
                metrics.subspace_distance(
                    run(
                        mechanism,
                        prepared,
                        regime.k,
                        epsilon,
                        regime.delta,
                        seed=np.random.SeedSequence([seed, r, int(x * 1000)]),
                        **params,
                    ).components,
                    reference,
                )
                for r in range(regime.reps)
            ]
        )
        errors.append(float(np.mean(errs)))
        if x == regime.grid[len(regime.grid) // 2] and regime.reference == "sample":
            eigenvalues = np.sort(np.linalg.eigvalsh(own.gram))[::-1]
            expected = first_order_rms(
                mechanism,
                eigenvalues,
                n=own.n,
                k=regime.k,
                epsilon=epsilon,
                delta=regime.delta,
                sites=params.get("sites", 5),
            )
            level = None if expected is None else float(np.sqrt(np.mean(errs**2)) / expected)
    return SlopeResult(
        mechanism,
        label,
        regime.grid,
        tuple(errors),
        loglog_slope(regime.grid, errors),
        predicted_slope(mechanism, label),
        regime,
        level,
    )


def predicted_slope(mechanism: str, label: str) -> float:
    """Slope of the regime's dominant term over the regime's grid (from :func:`rate`)."""
    regime = _regime(mechanism, label)
    n = regime.n or max(regime.grid)
    point = dict(
        n=n,
        d=regime.data["d"],
        k=regime.k,
        epsilon=regime.epsilon,
        delta=regime.delta,
        s=regime.data.get("sparsity"),
        sites=regime.params.get("sites", 5),
        sigma=regime.data.get("sigma", 1.0),
    )
    values = rate(mechanism, regime.axis, regime.grid, term=regime.term, **point)
    return loglog_slope(regime.grid, values)

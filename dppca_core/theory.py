"""Theoretical error rates (up to constants) of the mechanisms, the regimes where they hold, and slope checks.

A *rate* gives how the subspace error ||sin Theta||_F scales with n, d, k, epsilon, delta, s and the data noise;
constants are unknown, so the dashboard fits each rate's constant to the measured points (:func:`fit_rate`) and
draws it only where it fits, with the fit's error, and never moving against the way the utility must move. Each
rate is a sum of named *terms*: ``"privacy"`` (the error the noise adds, measured against the non-private answer
on the same data) and ``"statistical"`` (the sampling error, against the population). Every
privacy term uses the exact noise calibration of the mechanism (analytic Gaussian mechanism, GDP composition),
so its slope in epsilon is the slope of the actual noise scale, about -1 at small epsilon and flatter at large
epsilon, where sigma(epsilon, delta) falls more slowly than 1/epsilon.

:data:`REGIMES` says, per mechanism and axis, a setting in which one term dominates and the rate's assumptions
hold (eigengap well above the noise, iterations converged, learning rate large enough); :func:`measure_slope`
measures the log-log slope of the mean error there and :func:`predicted_slope` gives the slope of the dominant
term over the same grid. ``benchmarks/rates.py`` writes both into ``docs/rates.md``; ``tests/test_rates.py``
holds every mechanism to its prediction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .privacy import composed_gaussian_sigma, gaussian_sigma, sensitivity

RATES = {
    "analyze_gauss": "Dwork et al. 2014 (Thm 3) / Davis-Kahan: sigma(eps, delta) sqrt(k(d-k)) / (n gap)",
    "cape_pca": "Imtiaz & Sarwate: pooled Analyze Gauss level, sigma sqrt(k(d-k)) / (n gap)",
    "dist_conventional": "Imtiaz & Sarwate: sqrt(S) x pooled Analyze Gauss level",
    "dist_local": "Analyze Gauss on n/S rows: S x pooled level",
    "mod_sulq": "Chaudhuri et al. 2013: beta sqrt(k(d-k)) / gap, beta = (d+1) sqrt(2 ln(d^2/delta)) / (n eps) + "
                "1 / (n sqrt(eps))",
    "private_power": "Hardt & Price 2014 (Cor 1.1): sqrt(L) sigma(eps, delta) sqrt(k d) / (n gap), L = 20 steps "
                     "(exact GDP composition)",
    "ppca_exponential": "Chaudhuri et al. 2013 (Thm 6, sample complexity n ~ d / (eps gap (1 - rho))): "
                        "sin ~ sqrt(d / (eps n gap))",
    "amin_iterative": "Amin et al. 2019: each vector an exponential-mechanism draw with eps_i = 0.8 eps / k: "
                      "sqrt(k d / (eps n gap))",
    "ldp_gaussian": "Wang & Xu (Thm 2): sigma(eps, delta) sqrt(k(d-k)) / (sqrt(n) gap)",
    "ldp_sparse": "Wang & Xu (Thm 4): s lambda / gap, lambda ~ sigma(eps, delta) sqrt(log d / n)",
    "dps_pca": "Ge et al. 2018 (Thm 4.3): privacy term sqrt(S T) sigma(eps, delta) sqrt(k(d-k)) / (n gap) + "
               "sqrt(s (k + log d) / n)",
    "private_oja": "Liu et al. 2022 (Thm 3.3, parallel-composition calibration): sqrt((V + alpha(eps, delta)^2 d) "
                   "/ n) / gap",
    "dp_pca": "Liu et al. 2022 (Thm 5.1 / Cor 5.2): sqrt(T V / n) + T r sqrt(d) sigma(eps, delta) / n, "
              "T ~ (ln n)^2 / 16, r ~ spread of the gradients (~ data noise)",
    # issue 39: the mechanisms of 2020-2025
    "coinpress": "Biswas et al. 2020, read for the subspace: whitened noise sigma(eps, delta) gamma^2 / "
                 "sqrt(w_T) on a Gram matrix whose spikes are ~1: sigma gamma^2 sqrt(k(d-k)) / (sqrt(w_T) n) x "
                 "sqrt(lambda_k lambda_k+1) / gap, gamma^2 ~ d + 2 sqrt(d ln 10) + 2 ln 10, w_T = 3/4",
    "trace_sensitive": "Dong, Liang & Yi 2022: eigenvectors of the Gaussian mechanism at half of rho: "
                       "sqrt(2) sigma(eps, delta) sqrt(k(d-k)) / (n gap); covariance (Frobenius, Sigma = C / n) "
                       "O~(d^(1/4) sqrt(tr / n) + sqrt(d) / n)",
    "topk_dp_pca": "Düngler & Sanyal 2025 (k parts of n / k rows, each DP-PCA's rate): sqrt(k) (sqrt(T V k / n) + "
                   "T r sqrt(d) k sigma(eps, delta) / n)",
}


ONE_PASS = ("private_oja", "dp_pca")


def _batches(n: int) -> int:
    from .mechanisms.streaming import BATCH_CONSTANT

    return max(1, math.ceil(math.log(max(n, 2)) ** 2 / BATCH_CONSTANT))


def _terms(mechanism, n, d, k, epsilon, delta, s, sites, sigma_data):
    """(privacy, statistical) terms of the error rate, each up to a constant."""
    k = min(k, d - 1) if d > 1 else 1
    spread = math.sqrt(max(k * (d - k), 1))
    statistical = math.sqrt(k * max(d - k, 1) / n)
    ag = gaussian_sigma(sensitivity("gram_upper", "replace"), epsilon, delta)
    if mechanism in ("analyze_gauss", "cape_pca", "dist_conventional", "dist_local"):
        factor = {"dist_conventional": math.sqrt(sites), "dist_local": sites}.get(mechanism, 1.0)
        return factor * ag * spread / n, statistical
    if mechanism == "mod_sulq":
        from .mechanisms.central import mod_sulq_beta

        return mod_sulq_beta(n, d, epsilon, delta) * spread, statistical
    if mechanism == "private_power":
        delta_2 = sensitivity("gram_times_basis", "replace", block_size=k)
        return composed_gaussian_sigma(delta_2, epsilon, delta, 20) * math.sqrt(k * d) / n, statistical
    if mechanism == "dps_pca":
        delta_2 = sensitivity("gram_times_basis", "replace", block_size=k)
        noise = composed_gaussian_sigma(delta_2, epsilon, delta, 10) * math.sqrt(sites)
        return noise * spread / n, math.sqrt(s * (k + math.log(d + 1)) / n)
    if mechanism == "ppca_exponential":
        return math.sqrt(k * d / (epsilon * n)), statistical
    if mechanism == "amin_iterative":
        return math.sqrt(k * k * d / (0.8 * epsilon * n)), statistical
    if mechanism == "ldp_gaussian":
        return ag * spread / math.sqrt(n), statistical
    if mechanism == "ldp_sparse":
        return ag * s * math.sqrt(k * math.log(d + 1) / n), math.sqrt(s * math.log(d + 1) / n)
    if mechanism == "private_oja":
        alpha = gaussian_sigma(1.0, epsilon, delta)
        return alpha * math.sqrt(d / n), sigma_data * math.sqrt(d / n)  # step noise eta_t alpha
    if mechanism == "dp_pca":
        T = _batches(n)
        return T * sigma_data * d * gaussian_sigma(1.0, epsilon, delta) / n, sigma_data * math.sqrt(T * d / n)
    return _terms_issue_39(mechanism, n, d, k, epsilon, delta, sigma_data, spread, statistical, ag)


def _terms_issue_39(mechanism, n, d, k, epsilon, delta, sigma_data, spread, statistical, ag):
    """(privacy, statistical) terms of coinpress, trace_sensitive and topk_dp_pca (None for any other name)."""
    if mechanism == "coinpress":
        from .mechanisms.coinpress import whitened_radius

        # the last step's noise in whitened units (3/4 of mu^2), where the planted spikes are ~1
        return ag * whitened_radius(d, 0.1) ** 2 / math.sqrt(0.75) * spread / n, statistical
    if mechanism == "trace_sensitive":
        return math.sqrt(2.0) * ag * spread / n, statistical  # the eigenvectors get half of mu^2
    if mechanism == "topk_dp_pca":
        part = max(n // max(k, 1), 2)
        T = _batches(part)
        privacy = T * sigma_data * d * gaussian_sigma(1.0, epsilon, delta) / part
        return math.sqrt(k) * privacy, math.sqrt(k) * sigma_data * math.sqrt(T * d / part)
    return None


def rate(mechanism: str, axis: str, xs, *, n: int, d: int, k: int, epsilon: float, delta: float,
         s: int | None = None, sites: int = 5, sigma: float = 1.0, term: str | None = None) -> np.ndarray:
    """The rate of ``mechanism`` along ``axis`` ("eps", "n", "d", "delta", "k", "s" or "sigma") at ``xs``.

    Other quantities are held at the given values; ``sigma`` is the data noise (Example 4.1's sigma; only the
    streaming mechanisms' rates depend on it). ``term`` = "privacy" or "statistical" gives that term alone. The
    default (None) is the rate of the error the dashboard shows, against the non-private answer on the same
    rows: the privacy term, plus, for the one-pass mechanisms (private_oja, dp_pca), their statistical term,
    which they pay even against the sample (unit constants). Raises ValueError for a mechanism without a known
    rate.
    """
    if mechanism not in RATES:
        raise ValueError(f"no theoretical rate is known for {mechanism!r}.")
    if term not in (None, "privacy", "statistical"):
        raise ValueError(f"term must be 'privacy', 'statistical' or None (got {term!r}).")
    base = {"n": n, "d": d, "k": k, "epsilon": epsilon, "delta": delta, "s": s or d, "sites": sites,
            "sigma_data": sigma}
    key = {"eps": "epsilon", "sigma": "sigma_data"}.get(axis, axis)
    if key not in base:
        raise ValueError(f"unknown axis {axis!r}.")
    out = []
    for x in np.asarray(xs, dtype=float):
        point = dict(base)
        point[key] = int(x) if key in ("n", "d", "k", "s") else float(x)
        privacy, statistical = _terms(mechanism, **point)
        default = privacy + statistical if mechanism in ONE_PASS else privacy
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
FIT_ASSUMPTIONS = ("the error is small (far below a random subspace), the noise dominates it (no floor from "
                   "clipping, centring or the sampling error), and the data's eigengap stays as it is")


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
    from .experiments import METRICS

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


def fit_rate(xs, measured, rate_values, metric: str, axis: str, tolerance: float = FIT_TOLERANCE,
             min_points: int = FIT_MIN_POINTS) -> RateFit | None:
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
# Regimes in which each rate holds, and the measurement of slopes there.


@dataclass(frozen=True)
class Regime:
    """A setting in which one term of a mechanism's rate dominates and its assumptions hold.

    ``law`` names the data: "spiked" (``datasets.spiked_covariance`` with ``data``'s arguments) or "example41"
    (``datasets.liu_example_41``). ``grid`` are the values of ``axis`` ("n", "eps" or "sigma"); the other
    quantities are ``n``, ``epsilon``, ``delta`` and the data arguments. ``reference`` is "sample" (error against
    the non-private top-k subspace of the same rows: the privacy term alone) or "population" (against the planted
    subspace). ``why`` says in words why the regime holds.
    """

    axis: str
    grid: tuple
    term: str
    law: str
    data: dict
    n: int
    k: int = 1
    epsilon: float = 1.0
    delta: float = 1e-6
    reference: str = "sample"
    reps: int = 12
    params: dict = field(default_factory=dict)
    why: str = ""


def _spiked(d, k, spike, sparsity=None, seed=0):
    return {"d": d, "k": k, "spike": spike, "sparsity": sparsity, "seed": seed}


# d = 10, k = 2, spikes 30 and 22.5 over noise 1: the eigengap of the scaled rows (~0.14 of their total variance)
# is large, and the noise levels below keep every error under ~0.3, far from the random level 1.26.
_CENTRAL_N = dict(law="spiked", data=_spiked(10, 2, 30.0), grid=(2000, 8000, 32000), n=0, k=2, epsilon=1.0)
_CENTRAL_EPS = dict(law="spiked", data=_spiked(10, 2, 30.0), grid=(0.5, 1.0, 2.0), n=8000, k=2)

# Keys: (mechanism, label); the label is the axis, or the axis and the dominant term where both are checked.
REGIMES: dict[tuple[str, str], Regime] = {
    **{(m, "n"): Regime("n", term="privacy", why="privacy-dominated against the sample subspace; eigengap of "
                        "X^T X grows like n", **_CENTRAL_N) for m in ("analyze_gauss", "cape_pca")},
    **{(m, "eps"): Regime("eps", term="privacy", why="noise sigma(eps, delta) of the analytic Gaussian mechanism",
                          **_CENTRAL_EPS) for m in ("analyze_gauss", "cape_pca")},
    ("dist_conventional", "n"): Regime("n", term="privacy", why="sqrt(S) x pooled noise, S = 5 sites",
                                       **_CENTRAL_N),
    ("dist_conventional", "eps"): Regime("eps", term="privacy", why="sqrt(S) x pooled noise", **_CENTRAL_EPS),
    ("dist_local", "n"): Regime("n", term="privacy", why="Analyze Gauss on n/S rows",
                                **dict(_CENTRAL_N, grid=(4000, 16000, 64000))),
    ("dist_local", "eps"): Regime("eps", term="privacy", why="Analyze Gauss on n/S rows",
                                  **dict(_CENTRAL_EPS, n=32000)),
    ("mod_sulq", "n"): Regime("n", term="privacy", why="beta ~ d/(n eps): privacy-dominated against the sample",
                              **dict(_CENTRAL_N, grid=(8000, 32000, 128000), epsilon=2.0)),
    ("mod_sulq", "eps"): Regime("eps", term="privacy", why="beta ~ 1/eps (plus a small 1/sqrt(eps) term)",
                                **dict(_CENTRAL_EPS, n=64000, grid=(1.0, 2.0, 4.0))),
    ("private_power", "n"): Regime("n", term="privacy", why="20 iterations converge ((lambda_3/lambda_2)^20 ~ "
                                   "1e-9); per-step noise sqrt(20) sigma", **dict(_CENTRAL_N, grid=(4000, 16000, 64000))),
    ("private_power", "eps"): Regime("eps", term="privacy", why="per-step noise sqrt(20) sigma(eps, delta)",
                                     **dict(_CENTRAL_EPS, n=32000)),
    ("dps_pca", "n"): Regime("n", term="privacy", why="10 iterations converge; noise sqrt(S T) sigma, no "
                             "truncation (sparsity = d)", **dict(_CENTRAL_N, grid=(4000, 16000, 64000))),
    ("dps_pca", "eps"): Regime("eps", term="privacy", why="noise sqrt(S T) sigma(eps, delta)",
                               **dict(_CENTRAL_EPS, n=32000)),
    ("ldp_gaussian", "n"): Regime("n", term="privacy", law="spiked", data=_spiked(10, 2, 30.0),
                                  grid=(20000, 80000, 320000), n=0, k=2, epsilon=8.0,
                                  why="each user's noise sigma enters S~ with s.d. sigma/sqrt(n); error well "
                                      "below the random level only once n eps^2 gap^2 >> d ln(1/delta)"),
    ("ldp_gaussian", "eps"): Regime("eps", term="privacy", law="spiked", data=_spiked(10, 2, 30.0),
                                    grid=(4.0, 8.0, 16.0), n=80000, k=2,
                                    why="error proportional to the per-user sigma(eps, delta)"),
    ("ldp_sparse", "n"): Regime("n", term="privacy", law="spiked", data=_spiked(20, 1, 30.0, sparsity=4),
                                grid=(20000, 80000, 320000), n=0, k=1, epsilon=8.0, reference="population",
                                why="support recovered at every n (lambda below the support's entries) and the "
                                    "users' noise dominates the sampling term: error ~ s lambda / gap"),
    ("ldp_sparse", "eps"): Regime("eps", term="privacy", law="spiked", data=_spiked(20, 1, 30.0, sparsity=4),
                                  grid=(4.0, 8.0, 16.0), n=160000, k=1, reference="population",
                                  why="support recovered; lambda ~ sigma(eps, delta) / sqrt(n)"),
    ("ppca_exponential", "n"): Regime("n", term="privacy", law="spiked", data=_spiked(10, 1, 30.0),
                                      grid=(2000, 8000, 32000), n=0, k=1, epsilon=1.0,
                                      why="exact k = 1 sampler; concentrated (eps n gap >> d): sin^2 ~ d/(eps n gap)"),
    ("ppca_exponential", "eps"): Regime("eps", term="privacy", law="spiked", data=_spiked(10, 1, 30.0),
                                        grid=(0.5, 1.0, 2.0), n=8000, k=1, why="sin^2 ~ d/(eps n gap)"),
    ("amin_iterative", "n"): Regime("n", term="privacy", law="spiked", data=_spiked(10, 2, 30.0),
                                    grid=(2000, 8000, 32000), n=0, k=2, epsilon=1.0,
                                    why="exact vector draws with eps_i = 0.4 eps each; concentrated"),
    ("amin_iterative", "eps"): Regime("eps", term="privacy", law="spiked", data=_spiked(10, 2, 30.0),
                                      grid=(0.5, 1.0, 2.0), n=8000, k=2, why="sin^2 ~ k d/(eps n gap)"),
    ("private_oja", "n"): Regime("n", term="privacy", law="example41", data={"d": 10, "sigma": 0.1, "seed": 0},
                                 grid=(10000, 20000, 40000), n=0, epsilon=16.0, reference="population",
                                 params={"lr_c1": 8.0}, reps=8,
                                 why="Example 4.1, gap 1/4: lr_c1 gap = 2 > 1/2 (Oja converges at rate 1/n); the "
                                     "per-step noise eta alpha dominates the data noise"),
    ("private_oja", "eps"): Regime("eps", term="privacy", law="example41", data={"d": 10, "sigma": 0.1, "seed": 0},
                                   grid=(8.0, 16.0, 32.0), n=20000, reference="population", params={"lr_c1": 8.0},
                                   reps=8, why="error proportional to alpha(eps, delta) = sigma_AGM(eps, delta, 1)"),
    ("private_oja", "sigma"): Regime("sigma", term="privacy", law="example41", data={"d": 10, "seed": 0},
                                     grid=(0.1, 0.03, 0.01), n=10000, epsilon=8.0, reference="population",
                                     params={"lr_c1": 8.0}, reps=8,
                                     why="the privacy noise does not depend on the data noise: flat"),
    ("dp_pca", "n, statistical"): Regime("n", term="statistical", law="example41", data={"d": 5, "sigma": 0.5, "seed": 0},
                            grid=(40000, 80000, 160000, 320000), n=0, epsilon=8.0, reference="population", reps=16,
                            why="d = 5, eps = 8: every batch is large enough for Algorithms 4-5; data noise "
                                "sigma = 0.5 dominates the privacy noise and lambda_2/lambda_1 = 0.2 lets ~8 "
                                "power-like steps converge: sqrt(T V / n), T ~ (ln n)^2 / 16"),
    ("dp_pca", "n, privacy"): Regime("n", term="privacy", law="example41", data={"d": 5, "sigma": 0.1, "seed": 0},
                                     grid=(20000, 40000, 80000, 160000), n=0, epsilon=1.0, reference="population",
                                     reps=16, why="every batch large enough for Algorithms 4-5, public-range route (radius "
                                         ">= 1 at sigma = 0.1): noise sigma_AGM(1/m, eps, delta) with m = B/2 ~ n/T"),
    ("dp_pca", "eps"): Regime("eps", term="privacy", law="example41", data={"d": 5, "sigma": 0.1, "seed": 0},
                              grid=(0.25, 0.5, 1.0), n=80000, reference="population", reps=16,
                              why="public-range route (radius >= 1) at every epsilon: noise sigma_AGM(1/m, eps, "
                                  "delta), privacy-dominated"),
    ("dp_pca", "sigma"): Regime("sigma", term="privacy", law="example41", data={"d": 5, "seed": 0},
                                grid=(0.004, 0.002, 0.001), n=40000, epsilon=1.0, reference="population",
                                params={"K": 1.63, "a": 0.5}, reps=16,
                                why="truncated route: radius ~ data noise, so error ~ sigma -> 0 (Example 4.1 "
                                    "tail constants a = 1/2, K = 1.63)"),
}

# issue 39. CoinPress's rate holds once its ellipsoids have converged (eta_t ~ noise / n small): from n = 16,000 at
# epsilon = 1 on the central law (at 2,000 the slope is -1.5, the whitening still improving with n).
REGIMES.update({
    ("coinpress", "n"): Regime("n", term="privacy", reps=8, why="ellipsoids converged: the last step's whitened noise "
                               "sigma gamma^2 / sqrt(3/4) over spikes of ~1", **dict(_CENTRAL_N, grid=(16000, 64000, 256000))),
    ("coinpress", "eps"): Regime("eps", term="privacy", reps=8, why="noise sigma(eps, delta) of the last step, "
                                 "ellipsoids converged", **dict(_CENTRAL_EPS, n=64000, grid=(1.0, 2.0, 4.0))),
    ("trace_sensitive", "n"): Regime("n", term="privacy", why="Analyze Gauss's eigenvectors at half of mu^2",
                                     **_CENTRAL_N),
    ("trace_sensitive", "eps"): Regime("eps", term="privacy", why="sqrt(2) sigma(eps, delta) on X^T X",
                                       **_CENTRAL_EPS),
    ("topk_dp_pca", "n"): Regime("n", term="privacy", law="spiked", data=_spiked(5, 2, 30.0),
                                 grid=(40000, 80000, 160000, 320000), n=0, k=2, epsilon=1.0, reference="population",
                                 reps=8, why="k = 2 parts of n / 2 rows, each DP-PCA's privacy term (T ~ (ln n)^2 / "
                                             "16 batches): slope about -0.9"),
    ("topk_dp_pca", "eps"): Regime("eps", term="privacy", law="spiked", data=_spiked(5, 2, 30.0),
                                   grid=(0.25, 0.5, 1.0), n=160000, k=2, reference="population", reps=8,
                                   why="each part's noise sigma_AGM(1/m, eps, delta)"),
})


def _make(regime: Regime, n: int, sigma: float | None = None):
    from . import datasets

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


def first_order_rms(mechanism: str, eigenvalues, *, n: int, k: int, epsilon: float, delta: float,
                    sites: int = 5):
    """First-order prediction of sqrt(E ||sin Theta||_F^2) against the sample subspace, or None.

    ``eigenvalues`` (descending) are those of the Gram matrix C the mechanism perturbs (one site's for
    dist_local). Every noise level comes from the calibration the mechanism's privacy argument states,
    recomputed here from :mod:`dppca_core.privacy`, so a mechanism that adds more (or less) noise than its proof
    needs fails the comparison. Perturbation theory, valid while the error is small:

    * symmetric noise of entry s.d. s on C (input perturbation): E ||sin Theta||^2 = s^2 sum_{i<=k<j}
      1 / (lambda_i - lambda_j)^2;
    * noisy power iterations, Gaussian s.d. s on C Q each step, converged: the error of entry (j, i) is an AR(1)
      with factor lambda_j / lambda_i, so E ||sin Theta||^2 = s^2 sum_{i<=k<j} 1 / (lambda_i^2 - lambda_j^2);
    * exponential mechanism exp((eps_i / 2) u^T C u) (Laplace approximation at the top): each direction j has
      variance 1 / (eps_i (lambda_i - lambda_j)).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    top, rest = lam[:k, None], lam[None, k:]
    ag = gaussian_sigma(sensitivity("gram_upper", "replace"), epsilon, delta)

    def input_noise(sd):
        return sd * math.sqrt(float(np.sum(1.0 / (top - rest) ** 2)))

    if mechanism in ("analyze_gauss", "cape_pca", "dist_local"):
        return input_noise(ag)
    if mechanism == "dist_conventional":
        return input_noise(ag * math.sqrt(sites))
    if mechanism == "mod_sulq":
        from .mechanisms.central import mod_sulq_beta

        return input_noise(n * mod_sulq_beta(n, len(lam), epsilon, delta))
    if mechanism == "ldp_gaussian":
        return input_noise(ag * math.sqrt(n))
    if mechanism in ("private_power", "dps_pca"):
        delta_2 = sensitivity("gram_times_basis", "replace", block_size=k)
        steps, spread = (20, 1.0) if mechanism == "private_power" else (10, math.sqrt(sites))
        sd = composed_gaussian_sigma(delta_2, epsilon, delta, steps) * spread
        return sd * math.sqrt(float(np.sum(1.0 / (top**2 - rest**2))))
    if mechanism == "ppca_exponential":
        return math.sqrt(float(np.sum(1.0 / (epsilon * (top - rest)))))
    if mechanism == "amin_iterative":
        eps_i = 0.8 * epsilon / k  # the default eigenvalue_share 0.2, the rest split over the k vectors
        return math.sqrt(float(np.sum(1.0 / (eps_i * (top - rest)))))
    if mechanism == "trace_sensitive":
        return input_noise(ag * math.sqrt(2.0))  # Analyze Gauss's noise at half of mu^2 (vector_share 0.5)
    return None


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
    """Mean error over ``reps`` seeds at each grid point of the regime ``REGIMES[(mechanism, label)]``, and the
    fitted log-log slope (``label`` is the axis, or the axis and the dominant term, e.g. "n, privacy").

    Data for an n-grid are one draw at the largest n, used by prefixes (rows are i.i.d.), each prepared once and
    shared by the repetitions.
    """
    from . import metrics
    from .api import run
    from .prepare import prepare

    regime = REGIMES[(mechanism, label)]
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
        errs = np.array([metrics.subspace_distance(run(mechanism, prepared, regime.k, epsilon, regime.delta,
                                                       seed=np.random.SeedSequence([seed, r, int(x * 1000)]),
                                                       **params).components, reference)
                         for r in range(regime.reps)])
        errors.append(float(np.mean(errs)))
        if x == regime.grid[len(regime.grid) // 2] and regime.reference == "sample":
            eigenvalues = np.sort(np.linalg.eigvalsh(own.gram))[::-1]
            expected = first_order_rms(mechanism, eigenvalues, n=own.n, k=regime.k, epsilon=epsilon,
                                       delta=regime.delta, sites=params.get("sites", 5))
            level = None if expected is None else float(np.sqrt(np.mean(errs**2)) / expected)
    return SlopeResult(mechanism, label, regime.grid, tuple(errors), loglog_slope(regime.grid, errors),
                       predicted_slope(mechanism, label), regime, level)


def predicted_slope(mechanism: str, label: str) -> float:
    """Slope of the regime's dominant term over the regime's grid (from :func:`rate`)."""
    regime = REGIMES[(mechanism, label)]
    n = regime.n or max(regime.grid)
    point = dict(n=n, d=regime.data["d"], k=regime.k, epsilon=regime.epsilon, delta=regime.delta,
                 s=regime.data.get("sparsity"), sites=regime.params.get("sites", 5),
                 sigma=regime.data.get("sigma", 1.0))
    values = rate(mechanism, regime.axis, regime.grid, term=regime.term, **point)
    return loglog_slope(regime.grid, values)

"""Noise calibration: the one place where a noise scale is derived from a sensitivity.

Every mechanism in :mod:`dppca_core` asks this module for its noise scale. Each
function takes an explicit sensitivity, so the privacy argument of a mechanism
reads as "statistic S has sensitivity Delta under relation R (see
:func:`sensitivity`), hence noise sigma = gaussian_sigma(Delta, epsilon, delta)".

References
----------
Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy:
Analytical Calibration and Optimal Denoising", ICML, Theorem 8.
Dong, Roth & Su (2022), "Gaussian Differential Privacy", JRSS-B (composition).
Dwork & Roth (2014), Theorem A.1 (classic Gaussian mechanism, epsilon < 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr, ndtri

from ..validation import check_delta, check_epsilon

NEIGHBOR_RELATIONS = ("replace", "add_remove")

_NEIGHBOR_WORDS = {
    "replace": "replace one row (n public and fixed)",
    "add_remove": "add or remove one row (n private)",
}

# L2 (or L1 / score-range) sensitivity of each released statistic for rows with
# ||x|| <= 1, per neighbouring relation. docs/privacy.md#sensitivity derives each entry; the
# extremal pair is x = e1 vs x' = e2 under replace-one unless said otherwise.
_SENSITIVITY = {
    # upper triangle (incl. diagonal) of C = X^T X, L2 norm
    "gram_upper": {"replace": math.sqrt(2.0), "add_remove": 1.0},
    # C Q for Q d x p with orthonormal columns, Frobenius norm (p >= 2; p = 1 handled below)
    "gram_times_basis": {"replace": math.sqrt(2.0), "add_remove": 1.0},
    # eigenvalues of C as a vector, L1 norm (Weyl interlacing: removal lowers the
    # spectrum by ||x||^2 in total, addition raises it by ||x'||^2)
    "gram_eigenvalues_l1": {"replace": 2.0, "add_remove": 1.0},
    # range of the utility u(V) = tr(V^T C V) = sum_i ||V^T x_i||^2 (replace: in [-1, 1]; add/remove: in [0, 1],
    # the same sign for every V, which exponential_weight uses)
    "quadratic_score": {"replace": 1.0, "add_remove": 1.0},
    # eigenvalues of C as a vector, L2 norm: Hoffman-Wielandt, ||lambda(C) - lambda(C')|| <= ||x x^T - x' x'^T||_F,
    # which is <= sqrt(2) (replace, e1 vs e2) or ||x||^2 <= 1 (add/remove)
    "gram_eigenvalues_l2": {"replace": math.sqrt(2.0), "add_remove": 1.0},
    # tr(C) = sum_i ||x_i||^2: one term changes by at most 1 (replace: ||x||^2 - ||x'||^2 in [-1, 1])
    "gram_trace": {"replace": 1.0, "add_remove": 1.0},
    # sum of the rows, L2 norm: ||x - x'|| <= 2 (x vs -x) under replace, ||x|| <= 1 under add/remove
    "row_sum": {"replace": 2.0, "add_remove": 1.0},
    # number of rows: public under replace (no noise needed), changes by 1 under add/remove
    "count": {"replace": 0.0, "add_remove": 1.0},
    # counts of a histogram over fixed bins, L2 norm: one row moves between two bins (replace) or is added
    "histogram_l2": {"replace": math.sqrt(2.0), "add_remove": 1.0},
    # the same, L1 norm (for Laplace noise)
    "histogram_l1": {"replace": 2.0, "add_remove": 1.0},
    # variances along released components (the diagonal of V^T C V) and the trace tr(C), one vector: with p = ||x||^2,
    # q = ||x'||^2 in [0, 1], the diagonal moves by at most p^2 + q^2 in squared L2 (the projections' fourth powers) and
    # the trace by |p - q|: 2 p^2 + 2 q^2 - 2 p q <= 2 (replace); 2 p^2 <= 2 (add/remove). In L1: p + q + |p - q| <= 2.
    "variances_diag_trace": {"replace": math.sqrt(2.0), "add_remove": math.sqrt(2.0)},
    "variances_diag_trace_l1": {"replace": 2.0, "add_remove": 2.0},
    # the upper triangle (with the diagonal) of the k x k matrix V^T C V and the trace: the same L2 bound (the upper
    # triangle's norm is at most the Frobenius norm of V^T (x x^T - x' x'^T) V, at most p^2 + q^2); in L1 the upper
    # triangle of a a^T is at most (k + 1)/2 ||a||^2, so (k + 1)/2 (p + q) + |p - q| <= k + 1 (replace), (k + 3)/2
    # (add/remove): a function of k (``block_size``)
    "variances_upper_trace": {"replace": math.sqrt(2.0), "add_remove": math.sqrt(2.0)},
    "variances_upper_trace_l1": {"replace": lambda k: k + 1.0, "add_remove": lambda k: (k + 3.0) / 2.0},
    # per-column second moments sum_i min(x_ij^2, b_j^2) / b_j^2 for public column bounds b: each of the d
    # coordinates moves by at most 1 (``block_size`` = d)
    "column_squares": {"replace": math.sqrt, "add_remove": math.sqrt},
    "column_squares_l1": {"replace": float, "add_remove": float},
}


def check_neighbors(neighbors: str) -> str:
    """Return ``neighbors`` if it names a supported relation, else raise ``ValueError``."""
    if neighbors not in NEIGHBOR_RELATIONS:
        raise ValueError(
            f"neighbors={neighbors!r} is not a neighbouring relation; use 'replace' "
            "(replace one row, the default) or 'add_remove' (add or remove one row)."
        )
    return neighbors


def describe_neighbors(neighbors: str) -> str:
    """Plain-words description of a neighbouring relation."""
    return _NEIGHBOR_WORDS[check_neighbors(neighbors)]


def sensitivity(statistic: str, neighbors: str = "replace", *, block_size: int | None = None) -> float:
    """Sensitivity of a statistic of rows with norm at most 1.

    Parameters
    ----------
    statistic : str
        One of the keys of the table: ``gram_upper``, ``gram_times_basis``, ``gram_eigenvalues_l1``,
        ``quadratic_score``, ``gram_eigenvalues_l2``, ``gram_trace``, ``row_sum``, ``count``, ``histogram_l2``,
        ``histogram_l1``.
        ``gram_upper``: L2 norm of the upper triangle of ``X^T X``;
        ``gram_times_basis``: Frobenius norm of ``X^T X Q`` for orthonormal ``Q`` with
        ``block_size`` columns (replace-one: sqrt(2) if block_size >= 2, 1 if block_size = 1);
        ``gram_eigenvalues_l1``: L1 norm of the eigenvalue vector of ``X^T X``;
        ``quadratic_score``: range of ``tr(V^T X^T X V)`` (exponential mechanism utility);
        ``variances_*``: the private variances along released components with the trace (:mod:`dppca_core.pipeline.budget`);
        ``column_squares``: per-column second moments for private scaling (:mod:`dppca_core.pipeline.choices`).
    neighbors : {"replace", "add_remove"}
    block_size : int, optional
        Number of columns of ``Q`` for ``gram_times_basis``; k for ``variances_upper_trace_l1``; d for
        ``column_squares``.
    """
    check_neighbors(neighbors)
    if statistic not in _SENSITIVITY:
        raise ValueError(f"unknown statistic {statistic!r}; known: {sorted(_SENSITIVITY)}")
    if statistic == "gram_times_basis" and neighbors == "replace" and block_size == 1:
        return 1.0
    value = _SENSITIVITY[statistic][neighbors]
    if callable(value):
        if block_size is None or int(block_size) < 1:
            raise ValueError(f"the sensitivity of {statistic!r} depends on its size: pass block_size (k or d).")
        return float(value(int(block_size)))
    return value


def _check_eps_delta(epsilon: float, delta: float | None, *, need_delta: bool = True) -> None:
    """The library's one rule for epsilon and delta (:func:`dppca_core.validation.check_epsilon`, ``check_delta``),
    without the floors: these calibrate one part of a budget, which may be a small share of a valid total."""
    check_epsilon(epsilon, minimum=None)
    if need_delta:
        check_delta(delta, minimum=None)


def _check_sensitivity(value: float) -> None:
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"sensitivity must be a finite number > 0 (got {value!r}).")


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Smallest delta for which a mu-GDP mechanism is (epsilon, delta)-DP.

    delta(eps; mu) = Phi(-y) - e^eps Phi(-x) with y = eps/mu - mu/2 and x = eps/mu + mu/2
    (Balle & Wang 2018 Thm 8; Dong, Roth & Su Cor. 2.13), in log space so that large epsilon does not
    overflow. The second term's log, eps + log Phi(-x), is a difference of two terms of size eps, so it loses
    about log2(eps) bits: above :data:`_TEXTBOOK_EPSILON` it is evaluated as -y^2/2 + log(erfcx(x/sqrt 2)/2),
    the same number without cancellation (expand x^2 = y^2 + 2 eps), with y from eps - mu^2/2 formed exactly
    (Dekker), which keeps full relative precision when eps is close to mu^2/2 (the regime of huge epsilon).
    """
    if not mu > 0:
        return 0.0
    if epsilon <= _TEXTBOOK_EPSILON:
        a = log_ndtr(-epsilon / mu + mu / 2.0)
        b = epsilon + log_ndtr(-epsilon / mu - mu / 2.0)
        gap = b - a
        if mu <= 1.0 and abs(a) + abs(b) > _TEXTBOOK_CANCELLATION * abs(gap):
            gap = _log_erfcx_step(epsilon, mu)                    # small mu: b - a without the cancellation
    else:
        y, x = _gdp_offsets(float(epsilon), float(mu))
        a = float(log_ndtr(-y))                                   # log Phi(-y)
        tail = float(erfcx(x / math.sqrt(2.0)))
        b = -0.5 * y * y + math.log(tail) - math.log(2.0) if tail > 0 and math.isfinite(y) else -math.inf
        gap = b - a
    if a == -math.inf or gap >= 0:
        return 0.0
    return float(math.exp(a) * -math.expm1(gap))


#: Up to this epsilon the textbook form of :func:`gaussian_delta` loses at most 20 bits (its relative error stays
#: near 1e-10) and is kept, so seeded releases reproduce earlier versions' noise exactly; above, the form
#: without cancellation.
_TEXTBOOK_EPSILON = 2.0 ** 20
#: Below 2^-52 times this ratio the textbook difference b - a of :func:`gaussian_delta` keeps about 12 digits.
_TEXTBOOK_CANCELLATION = 1e4
_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(8)


def _log_erfcx_step(epsilon: float, mu: float) -> float:
    """b - a of :func:`gaussian_delta`, i.e. eps + log Phi(-x) - log Phi(-y), for small mu.

    With Phi(-t) = erfcx(t/sqrt 2) exp(-t^2/2) / 2 and x^2 - y^2 = (x - y)(x + y) = 2 eps, the eps terms cancel
    exactly and b - a = log erfcx(x/sqrt 2) - log erfcx(y/sqrt 2): the integral of
    g'(t) = 2t - 2 / (sqrt(pi) erfcx(t)) over an interval of width mu/sqrt 2 centred at eps/(mu sqrt 2), taken
    by 8-point Gauss-Legendre (exact to rounding on such a short interval). The width and centre come from eps
    and mu directly: x - y formed from the rounded x and y loses half the digits when mu is tiny (eps = 1e-6,
    mu = 7e-8: the textbook form's delta is off by 1e-5 relative, this one by 1e-14).
    """
    centre, width = epsilon / mu / math.sqrt(2.0), mu / math.sqrt(2.0)
    nodes, weights = _GAUSS_LEGENDRE
    t = centre + 0.5 * width * nodes
    slope = 2.0 * t - 2.0 / (math.sqrt(math.pi) * erfcx(t))
    return 0.5 * width * float(np.dot(weights, slope))


def _gdp_offsets(epsilon: float, mu: float) -> tuple[float, float]:
    """(y, x) = (eps/mu - mu/2, eps/mu + mu/2), y to full relative precision (see :func:`gaussian_delta`)."""
    x = epsilon / mu + mu / 2.0
    if not (math.isfinite(x) and mu < 1e150 and epsilon < 1e300):
        return epsilon / mu - mu / 2.0, x
    # mu^2/2 = p + e exactly (Dekker's product), then eps - p is exact when p/2 <= eps <= 2p (Sterbenz)
    split = 134217729.0 * mu                                      # 2^27 + 1
    hi = split - (split - mu)
    lo = mu - hi
    p = mu * mu
    e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
    return ((epsilon - p / 2.0) - e / 2.0) / mu, x


#: A noise scale is known to double precision, and scaling or composing it (sqrt(T) sigma, sqrt(sum mu_t^2))
#: moves it by a few units of 2^-52; 2^-48 (16 such units) is the rounding a calibration must absorb.
_MU_ROUNDING = 2.0 ** -48
#: The precision to which a release's claimed delta is checked against the delta its noise earns (api.run).
_DELTA_PRECISION = 1e-6


def _largest_mu(delta: float) -> float:
    """Largest mu a calibration at this delta may use: beyond it, a rounding of the noise scale by
    :data:`_MU_ROUNDING` moves the delta the noise earns by more than :data:`_DELTA_PRECISION` (relative),
    so no double-precision noise scale carries the claim.

    Near the solution of delta(eps; mu) = delta, y = eps/mu - mu/2 is the normal quantile z = Phi^-1(1 - delta)
    and d log delta / d log mu is about z mu (Mills ratio z times dy/dlog mu = -(eps/mu + mu/2) ~ -mu).
    """
    return _DELTA_PRECISION / (_MU_ROUNDING * max(-float(ndtri(delta)), 1.0))


@lru_cache(maxsize=4096)
def gaussian_mu(epsilon: float, delta: float) -> float:
    """Largest mu such that mu-GDP implies (epsilon, delta)-DP (exact, analytic GM).

    The root is kept when the delta it earns is within 1e-9 (relative) of the claim and later rounding of the noise
    scale cannot move that (the usual case, unchanged from earlier versions). Otherwise (huge epsilon, where
    delta is sensitive to the last bits of mu, or tiny mu) it is refined to full precision, taken on the safe
    side and lowered by the rounding a later scaling or composition may add (2^-48 relative), so the delta a
    release earns never exceeds the claim.

    Raises ValueError when epsilon is so large for this delta that the noise scale would need more precision
    than a double has (see :func:`_largest_mu`), naming the largest usable epsilon, and when epsilon is so
    small that the noise overflows.
    """
    _check_eps_delta(epsilon, delta)

    def excess(m):
        return gaussian_delta(epsilon, m) - delta                 # increasing in m

    top = _largest_mu(delta)
    if excess(top) < 0:
        usable = gaussian_epsilon(top, delta)
        raise ValueError(
            f"epsilon = {epsilon:g} with delta = {delta:g} needs noise so small that double precision cannot "
            f"calibrate it: a rounding of the noise scale would change the delta it earns by more than "
            f"{_DELTA_PRECISION:g}. Use epsilon <= {_round_down(usable)} at this delta (a larger delta allows "
            "a little more); at such an epsilon the noise is negligible already. For no privacy at all, use "
            "mechanism='non_private'.")
    hi = 1.0
    while hi < top and excess(hi) < 0:
        hi = min(2.0 * hi, top)
    lo = hi / 2.0
    while excess(lo) > 0:
        lo /= 2.0
        if lo < 1e-300:
            raise ValueError(f"epsilon = {epsilon:g} is too small: the noise s.d. (sensitivity / mu) would overflow "
                             "double precision; use epsilon >= 1e-6.")
    mu = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13)
    if abs(excess(mu)) <= 1e-9 * delta and max(-float(ndtri(delta)), 1.0) * mu * _MU_ROUNDING <= 1e-9:
        return mu  # the usual case: within 1e-9 of the claim, and later rounding cannot move it further
    # large mu (or a tiny one): the root to full precision, on the safe side, with room for later rounding
    mu = brentq(excess, lo, hi, xtol=lo * 1e-15, rtol=1e-15)
    while excess(mu) > 0:  # the root may lie a few roundings below brentq's answer
        mu *= 1.0 - 2.0 ** -50
    return mu * (1.0 - _MU_ROUNDING)


def _round_down(value: float) -> str:
    """``value`` rounded down to two significant digits, as text (a usable bound stays usable)."""
    if not (math.isfinite(value) and value > 0):
        return f"{value:g}"
    scale = 10.0 ** (math.floor(math.log10(value)) - 1)
    return f"{math.floor(value / scale) * scale:.2g}"


def gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Noise s.d. of the analytic Gaussian mechanism (Balle & Wang 2018).

    Exact for every epsilon > 0: the smallest sigma for which adding N(0, sigma^2 I)
    to a statistic of L2 sensitivity ``sensitivity`` is (epsilon, delta)-DP.
    """
    _check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, delta)  # before any conversion: True or "1.0" is no epsilon
    return sensitivity / gaussian_mu(float(epsilon), float(delta))


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Classic Gaussian mechanism sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon.

    Dwork & Roth (2014) Thm A.1 proves it only for epsilon < 1; outside that range it
    is unproven (and false for large epsilon), so this function refuses it.
    """
    _check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, delta)
    if epsilon >= 1.0:
        raise ValueError(
            f"the classic Gaussian formula is only proven for epsilon < 1 (got {epsilon}); "
            "use gaussian_sigma (analytic Gaussian mechanism), which is exact for every epsilon."
        )
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Delta_1 / epsilon of the Laplace mechanism (pure epsilon-DP)."""
    _check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, None, need_delta=False)
    return sensitivity / epsilon


def exponential_weight(score_range: float, epsilon: float, neighbors: str) -> float:
    """Multiplier w of the utility in the exponential mechanism's density exp(w u(V)) for pure epsilon-DP.

    In general w = epsilon / (2 Delta_u) (McSherry & Talwar 2007, Theorem 6). When a neighbour moves the utility
    of every output in the same direction (monotone utility), the normaliser moves the same way as the
    numerator and w = epsilon / Delta_u suffices (Dwork & Roth 2014, Section 3.4). The PCA utility
    u(V) = sum_i ||V^T x_i||^2 is monotone under add/remove (adding x raises every u(V) by ||V^T x||^2 >= 0)
    but not under replace-one, so ``neighbors`` picks the factor.
    """
    _check_sensitivity(score_range)
    _check_eps_delta(epsilon, None, need_delta=False)
    monotone = check_neighbors(neighbors) == "add_remove"
    return epsilon / (score_range if monotone else 2.0 * score_range)


def composed_gaussian_sigma(sensitivity: float, epsilon: float, delta: float, steps: int) -> float:
    """Per-step noise s.d. for ``steps`` adaptive Gaussian releases of equal sensitivity.

    By GDP composition (Dong, Roth & Su 2022, Cor. 3.3) T steps of mu_t-GDP compose to
    sqrt(sum mu_t^2)-GDP, so equal steps need sigma = sqrt(T) * Delta / mu*(eps, delta).
    This is exact for Gaussian noise, unlike splitting epsilon across steps.
    """
    if int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1 (got {steps!r}).")
    return math.sqrt(steps) * gaussian_sigma(sensitivity, epsilon, delta)


def composed_mu(mus) -> float:
    """GDP parameter of an adaptive composition of mu_t-GDP mechanisms."""
    mus = np.asarray(mus, dtype=float)
    return float(np.sqrt(np.sum(mus**2)))


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon with delta(epsilon; mu) <= delta, i.e. the epsilon a mu-GDP mechanism earns (inf when no
    finite epsilon is earned in double precision, e.g. mu = inf)."""
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie strictly between 0 and 1 (got {delta!r}).")
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
        if not math.isfinite(hi):
            return math.inf
    eps = brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-13)
    while gaussian_delta(eps, mu) > delta * (1.0 + 1e-9):  # the root may lie a few roundings above brentq's answer
        eps = eps * (1.0 + 2.0 ** -50) + 1e-16
    return eps


# ---------------------------------------------------------------------------------------------------------------
# Exact noise on a grid: the calibration of every published "value + noise" (sampled by dppca_core.privacy.exact).

#: the noise of a released value spans 2^GRID_BITS to 2^(GRID_BITS + 1) grid steps, so rounding the statistic to the
#: grid (half a step per coordinate) adds at most sqrt(m) steps to an L2 sensitivity, a 2^-GRID_BITS share of it
GRID_BITS = 20
#: unit roundoff of float64
UNIT_ROUNDOFF = 2.0**-53


def summation_error(n_terms: int, magnitude: float) -> float:
    """A bound on the rounding error of a float64 sum of ``n_terms`` terms of total absolute value ``magnitude``.

    gamma_n * magnitude with gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
    ed., eq. 4.4): valid for any order of summation, so for BLAS and numpy's pairwise sums alike.
    """
    nu = max(int(n_terms), 1) * UNIT_ROUNDOFF
    if nu >= 0.5:
        raise ValueError(f"a sum of {n_terms} terms is beyond float64's error analysis.")
    return nu / (1.0 - nu) * float(magnitude)


@dataclass(frozen=True)
class GridNoise:
    """The calibration of one published vector: its grid, its noise in grid steps and its guarantee.

    Attributes
    ----------
    step : float
        The grid gamma, a power of two (1 for integer statistics such as counts).
    scale : Fraction
        Noise scale in grid steps: the standard deviation of the Gaussian whose rounding is added, or the Laplace
        scale b. Rounded up to 40 significant bits (never less noise than calibrated).
    sensitivity : float
        Sensitivity of the rounded statistic in grid steps (L2 for Gaussian noise, L1 for Laplace), with the
        rounding and the floating-point error of computing the statistic added.
    laplace : bool
    """

    step: float
    scale: Fraction
    sensitivity: float
    laplace: bool = False

    @property
    def noise_scale(self) -> float:
        """The noise scale in the statistic's own units."""
        return float(self.scale) * self.step

    def curve(self) -> "PrivacyCurve":
        """The exact guarantee: the rounded release is a post-processing of the Gaussian (Laplace) mechanism on the
        rounded statistic, so it is (sensitivity / scale)-GDP (or pure epsilon-DP with epsilon = sensitivity / b)."""
        ratio = self.sensitivity / float(self.scale)
        return PrivacyCurve.pure(ratio) if self.laplace else PrivacyCurve.gdp(ratio)


def grid_step(noise_scale: float) -> float:
    """The power-of-two grid on which a value with noise of scale ``noise_scale`` is released (2^GRID_BITS to
    2^(GRID_BITS + 1) steps per noise scale)."""
    if not (math.isfinite(noise_scale) and noise_scale > 0):
        raise ValueError(f"the noise scale must be a finite number > 0 (got {noise_scale!r}).")
    return math.ldexp(1.0, math.floor(math.log2(noise_scale)) - GRID_BITS)


def grid_noise(size: int, *, l2: float | None = None, mu: float | None = None, l1: float | None = None,
               epsilon: float | None = None, integer: bool = False, computation_error: float = 0.0) -> GridNoise:
    """Calibrate the exact release of a vector of ``size`` values: Gaussian (``l2``, ``mu``) or Laplace (``l1``,
    ``epsilon``).

    Parameters
    ----------
    size : int
        Number of values released.
    l2, mu : float
        L2 sensitivity of the exact statistic and the Gaussian-DP parameter its share may spend.
    l1, epsilon : float
        L1 sensitivity and the pure epsilon (Laplace).
    integer : bool
        The statistic is an integer vector computed exactly (counts): released on the grid of 1, no rounding.
    computation_error : float
        A bound on the floating-point error of each computed value (see :func:`summation_error`). Two neighbouring
        datasets' computed values differ by at most the exact sensitivity plus twice this per coordinate.

    Notes
    -----
    The statistic s is computed as s_hat with |s_hat_j - s_j| <= e, rounded to q = round(s_hat / gamma), and
    q + round(scale * G) is released. ||q(D) - q(D')||_2 <= Delta / gamma + sqrt(m) (1 + 2 e / gamma): the rounding
    moves each coordinate by at most half a step, the computation by at most e. Since q is on the grid,
    q + round(scale G) = round(q + scale G): a post-processing of the Gaussian mechanism with that sensitivity, hence
    exactly (sensitivity / scale)-GDP. Laplace: the same with L1 norms (m instead of sqrt(m)).
    """
    from .exact import exact_scale

    size = int(size)
    gaussian = mu is not None
    if gaussian == (epsilon is not None) or (gaussian and l2 is None) or (not gaussian and l1 is None):
        raise ValueError("grid_noise takes either l2 and mu (Gaussian) or l1 and epsilon (Laplace).")
    budget = mu if gaussian else epsilon
    exact = l2 if gaussian else l1
    if not (math.isfinite(budget) and budget > 0):
        raise ValueError(f"{'mu' if gaussian else 'epsilon'} must be a finite number > 0 (got {budget!r}).")
    _check_sensitivity(exact)
    if integer:
        step, slack = 1.0, 0.0
    else:
        step = grid_step(exact / budget)
        per_coordinate = 1.0 + 2.0 * float(computation_error) / step
        slack = (math.sqrt(size) if gaussian else size) * per_coordinate
    total = exact / step + slack
    return GridNoise(step=step, scale=exact_scale(total / budget), sensitivity=total, laplace=not gaussian)


# ---------------------------------------------------------------------------------------------------------------
# The privacy curve a release earns: what the guarantee is, exactly, beyond the (epsilon, delta) pair.

CURVE_KINDS = ("gdp", "pure", "approx", "none")


@dataclass(frozen=True)
class PrivacyCurve:
    """The exact privacy guarantee of one release, as a family of (epsilon, delta) pairs.

    ``kind`` is

    * ``"gdp"``: mu-Gaussian DP (Dong, Roth & Su 2022): every test of "D or D'?" with false-positive rate
      alpha has false-negative rate at least Phi(Phi^-1(1 - alpha) - mu). The Gaussian mechanism with
      sensitivity Delta and noise sigma is exactly (Delta / sigma)-GDP, and adaptive compositions of Gaussian
      steps are sqrt(sum mu_t^2)-GDP, so this is the exact guarantee of every Gaussian mechanism here.
    * ``"pure"``: epsilon-DP (delta = 0).
    * ``"approx"``: (epsilon, delta)-DP, where nothing tighter is proven (e.g. histograms mixed with Gaussians).
    * ``"none"``: no guarantee (the non-private reference, or a retracted mechanism).
    """

    kind: str
    epsilon: float = math.inf
    delta: float = 0.0
    mu: float | None = None

    def __post_init__(self):
        if self.kind not in CURVE_KINDS:
            raise ValueError(f"kind must be one of {CURVE_KINDS}, not {self.kind!r}.")

    @classmethod
    def gdp(cls, mu: float) -> "PrivacyCurve":
        mu = float(mu)
        if not (math.isfinite(mu) and mu >= 0):
            raise ValueError(f"mu must be a finite number >= 0 (got {mu!r}).")
        return cls("gdp", mu=mu)

    @classmethod
    def pure(cls, epsilon: float) -> "PrivacyCurve":
        return cls("pure", epsilon=float(epsilon), delta=0.0)

    @classmethod
    def approx(cls, epsilon: float, delta: float) -> "PrivacyCurve":
        return cls("approx", epsilon=float(epsilon), delta=float(delta))

    @classmethod
    def none(cls) -> "PrivacyCurve":
        return cls("none")

    def delta_at(self, epsilon: float) -> float:
        """Smallest delta such that the release is (epsilon, delta)-DP (1 where nothing is known)."""
        if self.kind == "gdp":
            return gaussian_delta(float(epsilon), self.mu)
        if self.kind in ("pure", "approx") and epsilon >= self.epsilon:
            return self.delta
        return 1.0

    def epsilon_at(self, delta: float) -> float:
        """Smallest epsilon such that the release is (epsilon, delta)-DP (inf where none is known)."""
        if self.kind == "gdp":
            return gaussian_epsilon(self.mu, delta)
        if self.kind in ("pure", "approx") and delta >= self.delta:
            return self.epsilon
        return math.inf

    def false_negative_floor(self, alpha):
        """The trade-off function: the smallest false-negative rate any test can have at false-positive ``alpha``.

        GDP: Phi(Phi^-1(1 - alpha) - mu). (epsilon, delta)-DP: max(0, 1 - delta - e^eps alpha,
        e^-eps (1 - delta - alpha)) (Kairouz, Oh & Viswanath 2015). No guarantee: 0.
        """
        alpha = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        if self.kind == "gdp":
            return ndtr(ndtri(1.0 - alpha) - self.mu)
        if self.kind == "none":
            return np.zeros_like(alpha)
        eps, delta = self.epsilon, self.delta
        return np.maximum.reduce([np.zeros_like(alpha), 1.0 - delta - math.exp(min(eps, 700.0)) * alpha,
                                  math.exp(-eps) * (1.0 - delta - alpha)])

    def as_dict(self) -> dict:
        """Plain, JSON-serialisable description (infinite epsilon as None)."""
        out = {"kind": self.kind}
        if self.kind == "gdp":
            out["mu"] = self.mu
        elif self.kind in ("pure", "approx"):
            out.update(epsilon=self.epsilon, delta=self.delta)
        return out

    def describe(self) -> str:
        if self.kind == "gdp":
            return f"{self.mu:.4g}-Gaussian DP (exact for the Gaussian noise added)"
        if self.kind == "pure":
            return f"{self.epsilon:g}-DP (pure)"
        if self.kind == "approx":
            return f"({self.epsilon:g}, {self.delta:g})-DP"
        return "no privacy guarantee"


# ---------------------------------------------------------------------------------------------------------------
# Composition: the guarantee of several releases made from the same data.


def zcdp_to_gdp_mu(rho: float) -> float:
    """mu = sqrt(2 rho): the Gaussian-DP parameter of a Gaussian step stated as rho-zCDP, exactly.

    The Gaussian mechanism with l2 sensitivity Delta and noise s.d. sigma is Delta^2 / (2 sigma^2)-zCDP (Bun &
    Steinke 2016, Proposition 1.6) and exactly (Delta / sigma)-GDP (Dong, Roth & Su 2022, Theorem 2.7): for a
    Gaussian step both say the same, with rho = mu^2 / 2. Papers calibrated in zCDP (CoinPress; Dong, Liang & Yi
    2022) therefore carry over to GDP with nothing lost, and their additive composition (rho adds) is GDP's
    (mu^2 adds, :func:`composed_mu`), which unlike zCDP's conversion to (epsilon, delta) is exact.
    """
    rho = float(rho)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho must be a finite number >= 0 (got {rho!r}).")
    return math.sqrt(2.0 * rho)


def gdp_to_zcdp_rho(mu: float) -> float:
    """rho = mu^2 / 2: the zCDP parameter of a mu-GDP Gaussian step (the inverse of :func:`zcdp_to_gdp_mu`)."""
    mu = float(mu)
    if not (math.isfinite(mu) and mu >= 0):
        raise ValueError(f"mu must be a finite number >= 0 (got {mu!r}).")
    return mu * mu / 2.0


def split_mu(mu: float, weights) -> list[float]:
    """The GDP parameter of each of several adaptive Gaussian steps that share ``mu`` in proportion to ``weights``.

    Step i gets mu_i = sqrt(w_i / sum w) mu, i.e. the share w_i / sum w of mu^2 (of rho = mu^2 / 2 in zCDP terms:
    the per-iteration rho split of CoinPress, Biswas et al. 2020, Algorithm 2, and the halves of Dong, Liang & Yi
    2022, Algorithm 1). Adaptive composition of Gaussian steps adds mu_i^2 (Dong, Roth & Su 2022, Corollary 3.3),
    so the steps together are exactly mu-GDP.
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 1 or weights.size == 0 or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError(f"weights must be a non-empty list of positive numbers (got {weights!r}).")
    mu = float(mu)
    if not (math.isfinite(mu) and mu > 0):
        raise ValueError(f"mu must be a finite number > 0 (got {mu!r}).")
    return [math.sqrt(w) * mu for w in weights / weights.sum()]


def pure_to_gdp_mu(epsilon: float) -> float:
    """Smallest mu such that every epsilon-DP mechanism is mu-GDP: mu = 2 Phi^-1(e^eps / (1 + e^eps)).

    Proof. The epsilon-DP trade-off function f(alpha) = max(0, 1 - e^eps alpha, e^-eps (1 - alpha)) is
    piecewise linear with a single interior kink at alpha* = 1 / (1 + e^eps), where f(alpha*) = alpha*. The
    GDP curve G_mu is convex with G_mu(0) = 1 and G_mu(1) = 0, so G_mu lies below every chord; hence
    f >= G_mu everywhere iff G_mu(alpha*) <= alpha*, i.e. Phi^-1(1 - alpha*) - mu <= Phi^-1(alpha*), i.e.
    mu >= 2 Phi^-1(1 - alpha*). Equality gives the smallest such mu. (epsilon, delta)-DP with delta > 0 implies
    no finite GDP parameter, because its curve starts at 1 - delta < 1 = G_mu(0).
    """
    epsilon = float(epsilon)
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0 (got {epsilon!r}).")
    # e^eps / (1 + e^eps) = 1 - x with x = 1 / (1 + e^eps); Phi^-1(1 - x) = -Phi^-1(x) keeps precision for
    # large epsilon. x underflows to 0 (mu = inf: no finite GDP bound is representable) beyond epsilon ~ 745.
    x = math.exp(-epsilon - math.log1p(math.exp(-epsilon)))
    return max(0.0, float(-2.0 * ndtri(x))) if x > 0.0 else math.inf


def compose(curves, delta: float | None = None) -> PrivacyCurve:
    """The guarantee of several releases computed from the same data (adaptively or not), as one PrivacyCurve.

    Count what is *published*: the private mean, the private eigenvalues and the components of one release are
    already covered by that release's own curve (its mechanism accounts for all of them), and several releases
    (analyses) on the same data compose. Repetitions in a sweep are not releases: a sweep reruns a mechanism to
    show the spread of its output on the analyst's own machine, and only the runs that are actually published
    count here.

    Rules (each a theorem about every mechanism with the given guarantees, not only ours):

    * any curve of kind "none": no guarantee (kind "none");
    * all "gdp": sqrt(sum mu_i^2)-GDP. Exact: Gaussian DP composes this way and the bound is attained by
      Gaussian mechanisms (Dong, Roth & Su 2022, Corollary 3.3);
    * all "pure": (sum epsilon_i)-DP (basic composition, Dwork & Roth 2014, Theorem 3.16); as a pure-DP
      statement it cannot be improved, since the privacy losses can all reach their maximum at once;
    * mixtures of "pure" and "approx" only: (sum epsilon_i, sum delta_i)-DP (basic composition);
    * mixtures with a "gdp" part: ``delta`` (the total delta you accept) is required and must exceed the sum of
      the approximate parts' deltas; the GDP part spends the rest, delta_G = delta - sum delta_approx.
      Route 1 (basic composition): epsilon = sum epsilon_pure + sum epsilon_approx + epsilon_GDP(mu_G, delta_G),
      where mu_G = sqrt(sum mu_i^2) and epsilon_GDP is the exact GDP reading (:func:`gaussian_epsilon`).
      Route 2 (only with pure parts): each epsilon_i-DP part is mu_i-GDP with mu_i = :func:`pure_to_gdp_mu`
      (epsilon_i), so the GDP and pure parts together are sqrt(mu_G^2 + sum mu_i^2)-GDP (composition of GDP is
      exact and monotone, Dong, Roth & Su 2022, Theorem 3.2 / Corollary 3.3), plus the approximate parts by basic
      composition. Both routes are valid; the one with the smaller epsilon at ``delta`` is returned: a "gdp"
      curve when route 2 wins and there is no approximate part (a whole curve, valid at every delta), else an
      "approx" curve (epsilon, delta).

    Cross-checked against Google's dp-accounting privacy-loss distributions in tests/test_risk.py.
    """
    curves = list(curves)
    if not curves:
        raise ValueError("compose() needs at least one PrivacyCurve (e.g. [release.privacy for release in releases]).")
    for c in curves:
        if not isinstance(c, PrivacyCurve):
            raise ValueError(f"compose() takes PrivacyCurve objects (e.g. release.privacy), not {type(c).__name__}.")
    kinds = {c.kind for c in curves}
    if "none" in kinds:
        return PrivacyCurve.none()
    if kinds == {"gdp"}:
        return PrivacyCurve.gdp(composed_mu([c.mu for c in curves]))
    pure_eps = [c.epsilon for c in curves if c.kind == "pure"]
    approx = [(c.epsilon, c.delta) for c in curves if c.kind == "approx"]
    if kinds == {"pure"}:
        return PrivacyCurve.pure(math.fsum(pure_eps))
    eps_a = math.fsum(e for e, _ in approx)
    delta_a = math.fsum(d for _, d in approx)
    if "gdp" not in kinds:
        return PrivacyCurve.approx(math.fsum(pure_eps) + eps_a, delta_a)
    if delta is None:
        raise ValueError("composing Gaussian-DP releases with pure or (epsilon, delta) ones needs a total delta: "
                         "pass delta=..., e.g. the sum of the releases' deltas.")
    delta = float(delta)
    if not (math.isfinite(delta) and delta_a < delta < 1.0):
        raise ValueError(f"delta must lie strictly between the approximate parts' total delta ({delta_a:g}) and 1 "
                         f"(got {delta!r}); the Gaussian parts need some delta of their own.")
    delta_g = delta - delta_a
    mu_g = composed_mu([c.mu for c in curves if c.kind == "gdp"])
    eps_route1 = math.fsum(pure_eps) + eps_a + gaussian_epsilon(mu_g, delta_g)
    if pure_eps and max(pure_eps) < 700.0:
        mu_all = composed_mu([mu_g] + [pure_to_gdp_mu(e) for e in pure_eps])
        eps_route2 = eps_a + gaussian_epsilon(mu_all, delta_g)
        if eps_route2 < eps_route1:
            return PrivacyCurve.gdp(mu_all) if not approx else PrivacyCurve.approx(eps_route2, delta)
    return PrivacyCurve.approx(eps_route1, delta)


# -- capePCA's correlated noise (Imtiaz & Sarwate): the noise design of the distributed PCA and tensor mechanisms --

def cape_noise_design(sizes, epsilon, delta, kappa=100.0):
    """Feasible capePCA noise variances for sites of any sizes ('feasible replacement' of the paper's closed form).

    Returns a dict with weights mu_s = N_s/N, per-site targets tau_s, tau_g (site noise), tau_f (aggregator
    noise), the covariance of the noise generator's e (with sum_s mu_s e_s = 0), the joint-view GDP parameter of
    each site and the factor by which every s.d. was inflated so the aggregator's joint view is (epsilon, delta)-DP.
    """
    sizes = np.asarray(sizes, dtype=float)
    S, N = sizes.size, sizes.sum()
    weights = sizes / N
    tau = np.array([gaussian_sigma(sensitivity("gram_upper", "replace") / m, epsilon, delta) for m in sizes])
    tau_c = gaussian_sigma(sensitivity("gram_upper", "replace") / N, epsilon, delta)
    rho = min(1.0, tau_c**2 / np.sum(weights**2 * tau**2))
    var_g = rho * tau**2
    var_f = (1.0 - rho) * tau**2
    if S == 1:
        cov_e = np.zeros((1, 1))
    else:
        w = weights**2 * (1.0 - rho) * tau**2
        c = kappa * np.max(1.0 / ((1.0 - 2.0 / S) + w.sum() / (S**2 * w)))
        P = np.eye(S) - np.ones((S, S)) / S
        cov_y = c * P @ np.diag(w) @ P
        cov_e = cov_y / np.outer(weights, weights)
    mu_target = gaussian_mu(epsilon, delta)
    mu_joint = joint_view_mu(sizes, cov_e, var_g)
    inflate = max(1.0, float(np.max(mu_joint)) / mu_target)
    return {"weights": weights, "tau": tau, "tau_c": tau_c, "rho": rho, "var_g": var_g * inflate**2,
            "var_f": var_f * inflate**2, "cov_e": cov_e * inflate**2, "inflation": inflate,
            "mu_joint": mu_joint / inflate, "mu_target": mu_target}


def joint_view_mu(sizes, cov_e, var_g):
    """GDP parameter of the aggregator's joint view of all sites' messages (minus its own f_s), per site.

    Per upper-triangle entry the view is A_s + e_s + g_s with covariance C = Cov(e) + diag(var_g); a change of
    site s's statistic by Delta_s = sqrt(2)/N_s has Mahalanobis norm Delta_s sqrt((C^-1)_ss)
    (docs/mechanisms.md#cape_pca, "Privacy curve: the joint view").
    """
    sizes = np.asarray(sizes, dtype=float)
    C = np.asarray(cov_e) + np.diag(var_g)
    inv_diag = np.diag(np.linalg.inv(C))
    return sensitivity("gram_upper", "replace") / sizes * np.sqrt(inv_diag)

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
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtri

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
    # sum_i max(||x_i||^2 - tau^2, 0) for a public tau <= 1 (the clipping excess the tail-sensitive covariance's sparse
    # vector step compares): each term lies in [0, 1 - tau^2], so one row changes it by less than 1 either way
    "clipping_excess": {"replace": 1.0, "add_remove": 1.0},
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
    # spatial signs (unit or zero vectors u, w), Frobenius norm: ||u u^T - w w^T||_F^2 = |u|^4 + |w|^4 - 2 (u.w)^2 <= 2,
    # equal at orthogonal unit vectors, and ||u u^T||_F <= 1. sum_i s_i s_i^T for the signs of the rows around a known
    # centre: one term moves (replace sqrt(2), add/remove 1)
    "sign_rows": {"replace": math.sqrt(2.0), "add_remove": 1.0},
    # the signs of pairs' differences, the rows in a public order each paired with the m after it (cyclically), the sum
    # over the n m pairs divided by 2m: a row sits in exactly 2m pair terms, each moves by <= sqrt(2) (replace only:
    # the pairing is by position, so adding or removing a row re-pairs others)
    "sign_pairs": {"replace": math.sqrt(2.0)},
}


def check_neighbors(neighbors: str) -> str:
    """Return ``neighbors`` if it names a supported relation, else raise ``ValueError``.

    Parameters
    ----------
    neighbors : str
        The relation to check.

    Returns
    -------
    str
        ``neighbors``, unchanged.

    Raises
    ------
    ValueError
        For anything but "replace" or "add_remove", in words.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.check_neighbors("add_remove")
    'add_remove'
    >>> privacy.check_neighbors("swap")
    Traceback (most recent call last):
        ...
    ValueError: neighbors='swap' is not a neighbouring relation; ...
    """
    if neighbors not in NEIGHBOR_RELATIONS:
        raise ValueError(
            f"neighbors={neighbors!r} is not a neighbouring relation; use 'replace' "
            "(replace one row, the default) or 'add_remove' (add or remove one row)."
        )
    return neighbors


def describe_neighbors(neighbors: str) -> str:
    """Plain-words description of a neighbouring relation.

    Parameters
    ----------
    neighbors : {"replace", "add_remove"}
        The relation.

    Returns
    -------
    str
        What it means, in words.

    Raises
    ------
    ValueError
        For an unknown relation.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.describe_neighbors("add_remove")
    'add or remove one row (n private)'
    """
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

    Returns
    -------
    float
        The sensitivity, for rows of norm at most 1.

    Raises
    ------
    ValueError
        For an unknown statistic or relation, or a block size out of range.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.sensitivity("gram_upper"), privacy.sensitivity("gram_upper", "add_remove")
    (1.4142135623730951, 1.0)
    """
    check_neighbors(neighbors)
    if statistic not in _SENSITIVITY:
        raise ValueError(f"unknown statistic {statistic!r}; known: {sorted(_SENSITIVITY)}")
    if statistic == "gram_times_basis" and neighbors == "replace" and block_size == 1:
        return 1.0
    if neighbors not in _SENSITIVITY[statistic]:
        raise ValueError(f"{statistic!r} has no sensitivity under {neighbors!r} neighbours: use neighbors='replace'.")
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


def check_sensitivity(value: float) -> None:
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

    Parameters
    ----------
    epsilon : float
        The epsilon at which to read the curve.
    mu : float
        The GDP parameter.

    Returns
    -------
    float
        The delta, in [0, 1].

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.gaussian_delta(1.0, 0.2367), 9)  # 0.2367-GDP is (1, 1e-6)-DP
    1e-06
    """
    if not mu > 0:
        return 0.0
    if epsilon <= _TEXTBOOK_EPSILON:
        a = log_ndtr(-epsilon / mu + mu / 2.0)
        b = epsilon + log_ndtr(-epsilon / mu - mu / 2.0)
        gap = b - a
        if mu <= 1.0 and abs(a) + abs(b) > _TEXTBOOK_CANCELLATION * abs(gap):
            gap = _log_erfcx_step(epsilon, mu)  # small mu: b - a without the cancellation
    else:
        y, x = _gdp_offsets(float(epsilon), float(mu))
        a = float(log_ndtr(-y))  # log Phi(-y)
        tail = float(erfcx(x / math.sqrt(2.0)))
        b = -0.5 * y * y + math.log(tail) - math.log(2.0) if tail > 0 and math.isfinite(y) else -math.inf
        gap = b - a
    if a == -math.inf or gap >= 0:
        return 0.0
    return float(math.exp(a) * -math.expm1(gap))


#: Up to this epsilon the textbook form of :func:`gaussian_delta` loses at most 20 bits (its relative error stays
#: near 1e-10) and is kept, so seeded releases reproduce earlier versions' noise exactly; above, the form
#: without cancellation.
_TEXTBOOK_EPSILON = 2.0**20
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
    split = 134217729.0 * mu  # 2^27 + 1
    hi = split - (split - mu)
    lo = mu - hi
    p = mu * mu
    e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
    return ((epsilon - p / 2.0) - e / 2.0) / mu, x


#: A noise scale is known to double precision, and scaling or composing it (sqrt(T) sigma, sqrt(sum mu_t^2))
#: moves it by a few units of 2^-52; 2^-48 (16 such units) is the rounding a calibration must absorb.
_MU_ROUNDING = 2.0**-48
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

    Parameters
    ----------
    epsilon, delta : float
        The (epsilon, delta) guarantee to meet.

    Returns
    -------
    float
        The largest mu.

    Raises
    ------
    ValueError
        When epsilon is out of the range a double can calibrate (above).

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.gaussian_mu(1.0, 1e-6), 6)
    0.236704
    """
    _check_eps_delta(epsilon, delta)

    def excess(m):
        return gaussian_delta(epsilon, m) - delta  # increasing in m

    top = _largest_mu(delta)
    if excess(top) < 0:
        usable = gaussian_epsilon(top, delta)
        raise ValueError(
            f"epsilon = {epsilon:g} with delta = {delta:g} needs noise so small that double precision cannot "
            f"calibrate it: a rounding of the noise scale would change the delta it earns by more than "
            f"{_DELTA_PRECISION:g}. Use epsilon <= {_round_down(usable)} at this delta (a larger delta allows "
            "a little more); at such an epsilon the noise is negligible already. For no privacy at all, use "
            "mechanism='non_private'."
        )
    hi = 1.0
    while hi < top and excess(hi) < 0:
        hi = min(2.0 * hi, top)
    lo = hi / 2.0
    while excess(lo) > 0:
        lo /= 2.0
        if lo < 1e-300:
            raise ValueError(
                f"epsilon = {epsilon:g} is too small: the noise s.d. (sensitivity / mu) would overflow "
                "double precision; use epsilon >= 1e-6."
            )
    mu = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13)
    if abs(excess(mu)) <= 1e-9 * delta and max(-float(ndtri(delta)), 1.0) * mu * _MU_ROUNDING <= 1e-9:
        return mu  # the usual case: within 1e-9 of the claim, and later rounding cannot move it further
    # large mu (or a tiny one): the root to full precision, on the safe side, with room for later rounding
    mu = brentq(excess, lo, hi, xtol=lo * 1e-15, rtol=1e-15)
    while excess(mu) > 0:  # the root may lie a few roundings below brentq's answer
        mu *= 1.0 - 2.0**-50
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

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Delta of the statistic.
    epsilon, delta : float
        The guarantee.

    Returns
    -------
    float
        sigma = Delta / :func:`gaussian_mu` (epsilon, delta).

    Raises
    ------
    ValueError
        For epsilon, delta or the sensitivity out of range, in words.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.gaussian_sigma(1.0, 1.0, 1e-6), 4)
    4.2247
    """
    check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, delta)  # before any conversion: True or "1.0" is no epsilon
    return sensitivity / gaussian_mu(float(epsilon), float(delta))


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Classic Gaussian mechanism sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon.

    Dwork & Roth (2014) Thm A.1 proves it only for epsilon < 1; outside that range it
    is unproven (and false for large epsilon), so this function refuses it.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Delta.
    epsilon, delta : float
        The guarantee, epsilon < 1.

    Returns
    -------
    float
        The noise standard deviation.

    Raises
    ------
    ValueError
        For epsilon >= 1, naming :func:`gaussian_sigma` instead.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.classic_gaussian_sigma(1.0, 0.5, 1e-6), 4)  # the analytic one needs less
    10.5976
    >>> round(privacy.gaussian_sigma(1.0, 0.5, 1e-6), 4) < 10.5976
    True
    """
    check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, delta)
    if epsilon >= 1.0:
        raise ValueError(
            f"the classic Gaussian formula is only proven for epsilon < 1 (got {epsilon}); "
            "use gaussian_sigma (analytic Gaussian mechanism), which is exact for every epsilon."
        )
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Delta_1 / epsilon of the Laplace mechanism (pure epsilon-DP).

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity Delta_1.
    epsilon : float
        The pure guarantee.

    Returns
    -------
    float
        The scale b.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.laplace_scale(2.0, 0.5)
    4.0
    """
    check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, None, need_delta=False)
    return sensitivity / epsilon


def pure_epsilon_for_mu(mu: float) -> float:
    """The largest epsilon for which every epsilon-DP mechanism is mu-GDP: log(Phi(mu/2) / Phi(-mu/2)).

    The inverse of :func:`dppca_core.privacy.curves.pure_to_gdp_mu` (mu = 2 Phi^-1(e^eps / (1 + e^eps))): a pure step
    that is to take the share mu of a Gaussian-DP budget may spend this epsilon, and composes with the Gaussian steps
    exactly (mu^2 adds). For small mu it is about 0.8 mu: a pure step costs about 1.25 times its epsilon in mu, where
    zCDP would count it as an epsilon^2 / 2-zCDP step (Bun & Steinke 2016, Proposition 1.4), i.e. mu = epsilon.

    Parameters
    ----------
    mu : float
        The GDP share the pure step may take.

    Returns
    -------
    float
        The epsilon.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.pure_epsilon_for_mu(privacy.pure_to_gdp_mu(1.0)), 6)
    1.0
    """
    mu = float(mu)
    if not (math.isfinite(mu) and mu > 0):
        raise ValueError(f"mu must be a finite number > 0 (got {mu!r}).")
    return float(log_ndtr(mu / 2.0) - log_ndtr(-mu / 2.0))


def sparse_vector_scales(sensitivity: float, epsilon: float) -> tuple[float, float]:
    """Laplace scales (threshold, each query) of AboveThreshold, the sparse vector technique that stops at the first
    query above a noisy threshold (Dwork & Roth 2014, Algorithm 1 and Theorem 3.23): 2 Delta / epsilon on the
    threshold and 4 Delta / epsilon on each query make the index it stops at epsilon-DP, however many queries are
    asked, when each query moves by at most Delta between neighbours (queries may depend on earlier releases).

    Parameters
    ----------
    sensitivity : float
        Delta, how far a neighbour moves each query.
    epsilon : float
        The pure guarantee of the index it stops at.

    Returns
    -------
    tuple of float
        (the threshold's Laplace scale, each query's).

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.sparse_vector_scales(1.0, 0.5)
    (4.0, 8.0)
    """
    check_sensitivity(sensitivity)
    _check_eps_delta(epsilon, None, need_delta=False)
    return 2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon


def exponential_weight(score_range: float, epsilon: float, neighbors: str) -> float:
    """Multiplier w of the utility in the exponential mechanism's density exp(w u(V)) for pure epsilon-DP.

    In general w = epsilon / (2 Delta_u) (McSherry & Talwar 2007, Theorem 6). When a neighbour moves the utility
    of every output in the same direction (monotone utility), the normaliser moves the same way as the
    numerator and w = epsilon / Delta_u suffices (Dwork & Roth 2014, Section 3.4). The PCA utility
    u(V) = sum_i ||V^T x_i||^2 is monotone under add/remove (adding x raises every u(V) by ||V^T x||^2 >= 0)
    but not under replace-one, so ``neighbors`` picks the factor.

    Parameters
    ----------
    score_range : float
        Delta_u, how far a neighbour moves the utility of any output.
    epsilon : float
        The pure guarantee.
    neighbors : {"replace", "add_remove"}
        The relation: "add_remove" allows the monotone weight.

    Returns
    -------
    float
        The weight w.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.exponential_weight(1.0, 1.0, "replace"), privacy.exponential_weight(1.0, 1.0, "add_remove")
    (0.5, 1.0)
    """
    check_sensitivity(score_range)
    _check_eps_delta(epsilon, None, need_delta=False)
    monotone = check_neighbors(neighbors) == "add_remove"
    return epsilon / (score_range if monotone else 2.0 * score_range)


def composed_gaussian_sigma(sensitivity: float, epsilon: float, delta: float, steps: int) -> float:
    """Per-step noise s.d. for ``steps`` adaptive Gaussian releases of equal sensitivity.

    By GDP composition (Dong, Roth & Su 2022, Cor. 3.3) T steps of mu_t-GDP compose to
    sqrt(sum mu_t^2)-GDP, so equal steps need sigma = sqrt(T) * Delta / mu*(eps, delta).
    This is exact for Gaussian noise, unlike splitting epsilon across steps.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of each step.
    epsilon, delta : float
        The guarantee of all the steps together.
    steps : int
        How many steps.

    Returns
    -------
    float
        The noise standard deviation of each step.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> one = privacy.gaussian_sigma(1.0, 1.0, 1e-6)
    >>> round(privacy.composed_gaussian_sigma(1.0, 1.0, 1e-6, steps=4) / one, 6)  # sqrt(4) times the noise
    2.0
    """
    if int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1 (got {steps!r}).")
    return math.sqrt(steps) * gaussian_sigma(sensitivity, epsilon, delta)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon with delta(epsilon; mu) <= delta, i.e. the epsilon a mu-GDP mechanism earns (inf when no
    finite epsilon is earned in double precision, e.g. mu = inf).

    A pure function of two numbers, memoised as :func:`gaussian_mu` is (a complete release calibrates every share
    with it, the same shares at every release): the cache holds results, never state a caller can change.

    Parameters
    ----------
    mu : float
        The GDP parameter.
    delta : float
        The delta at which to read the curve.

    Returns
    -------
    float
        The epsilon (``inf`` when none is earned).

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.gaussian_epsilon(privacy.gaussian_mu(1.0, 1e-6), 1e-6), 6)
    1.0
    """
    return _gaussian_epsilon(float(mu), float(delta))


@lru_cache(maxsize=4096)
def _gaussian_epsilon(mu: float, delta: float) -> float:
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
        eps = eps * (1.0 + 2.0**-50) + 1e-16
    return eps


# -- capePCA's correlated noise (Imtiaz & Sarwate): the noise design of the distributed PCA and tensor mechanisms --


def cape_noise_design(sizes, epsilon, delta, kappa=100.0):
    """Feasible capePCA noise variances for sites of any sizes ('feasible replacement' of the paper's closed form).

    Returns a dict with weights mu_s = N_s/N, per-site targets tau_s, tau_g (site noise), tau_f (aggregator
    noise), the covariance of the noise generator's e (with sum_s mu_s e_s = 0), the joint-view GDP parameter of
    each site and the factor by which every s.d. was inflated so the aggregator's joint view is (epsilon, delta)-DP.

    Parameters
    ----------
    sizes : sequence of int
        Rows at each site (public).
    epsilon, delta : float
        The guarantee each site's view must meet.
    kappa : float
        The paper's ratio of the noise generator's variance to the sites' (a public design choice).

    Returns
    -------
    dict
        ``weights``, ``tau``, ``tau_c``, ``var_g``, ``var_f``, ``cov_e``, ``mu_target``, ``mu_joint`` (per site),
        ``rho`` and ``inflation``.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> design = privacy.cape_noise_design([100, 200], epsilon=1.0, delta=1e-5)
    >>> design["weights"].round(3).tolist()
    [0.333, 0.667]
    >>> bool(design["inflation"] >= 1)
    True
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
    return {
        "weights": weights,
        "tau": tau,
        "tau_c": tau_c,
        "rho": rho,
        "var_g": var_g * inflate**2,
        "var_f": var_f * inflate**2,
        "cov_e": cov_e * inflate**2,
        "inflation": inflate,
        "mu_joint": mu_joint / inflate,
        "mu_target": mu_target,
    }


def joint_view_mu(sizes, cov_e, var_g):
    """GDP parameter of the aggregator's joint view of all sites' messages (minus its own f_s), per site.

    Per upper-triangle entry the view is A_s + e_s + g_s with covariance C = Cov(e) + diag(var_g); a change of
    site s's statistic by Delta_s = sqrt(2)/N_s has Mahalanobis norm Delta_s sqrt((C^-1)_ss)
    (docs/mechanisms.md#cape_pca, "Privacy curve: the joint view").

    Parameters
    ----------
    sizes : sequence of int
        Rows at each site.
    cov_e : array-like of shape (S, S)
        Covariance of the noise generator's shares e.
    var_g : array-like of shape (S,)
        Each site's own noise variance.

    Returns
    -------
    ndarray of shape (S,)
        The GDP parameter of each site's statistic in the joint view.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> design = privacy.cape_noise_design([100, 200], epsilon=1.0, delta=1e-5)
    >>> bool((privacy.joint_view_mu([100, 200], design["cov_e"], design["var_g"]) <= design["mu_target"] + 1e-12).all())
    True
    """
    sizes = np.asarray(sizes, dtype=float)
    C = np.asarray(cov_e) + np.diag(var_g)
    inv_diag = np.diag(np.linalg.inv(C))
    return sensitivity("gram_upper", "replace") / sizes * np.sqrt(inv_diag)

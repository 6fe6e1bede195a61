"""A complete private PCA release under one composed budget: every step from the raw table to what is published.

:func:`release_pca` splits a total (epsilon, delta) between up to six parts computed from the same data, in this
order, each calibrated in :mod:`dppca_core.privacy` from a stated sensitivity:

* **scale** (optional) — per-column scales from noisy sums of squares with public column bounds
  (:func:`dppca_core.pipeline.choices.private_column_scales`); or ``scale="bounds"``, the public bounds themselves, free;
* **radius** (optional, ``data_norm="private"``) — the clipping radius R as a private quantile of the row norms
  (:func:`dppca_core.pipeline.choices.private_radius`). Every later step clips rows to R and divides by it (norm <= 1);
* **mean** — the centre, from a noisy sum of the clipped rows, sensitivity 2 (replace one row) or 1 plus a noisy
  count (add/remove, where n is private); projected onto the unit ball (post-processing). The rows are then
  centred with it and clipped again, so the subspace stage sees rows of norm <= 1;
* **subspace** — the registered mechanism, run on the (privately centred) rows with its share;
* **eigenvalues** — the variances along the released components: the noisy diagonal (or, for a mechanism whose
  basis is arbitrary, the noisy upper triangle) of V^T C V with the trace tr(C), one vector of L2 sensitivity sqrt(2)
  under either relation (``docs/privacy.md``). Components are then ordered by it (rotated by the noisy matrix's
  eigenvectors where the basis is arbitrary), and explained-variance ratios are its post-processing. Mechanisms that
  perturb the Gram matrix itself (Analyze Gauss) give them for free when this share is 0. ``k="auto"`` picks k
  from these ratios (post-processing);
* **scores** — a noisy histogram of the rows projected on the first two released components (fixed bins on
  [-1, 1]^2, sensitivity sqrt(2) or 1), the private 2-D score plot.

Every one of these is published as exact integer noise on a grid (:mod:`dppca_core.privacy.exact`): nothing published is a
floating-point ``value + noise`` whose low-order bits could tell neighbouring datasets apart.

Composition is exact where every part is Gaussian: the shares split mu^2 of the total mu*(epsilon, delta)
(Gaussian DP, Dong, Roth & Su 2022), so mu_i = sqrt(w_i) mu*. With a pure-DP subspace mechanism the other parts
use Laplace noise and the shares split epsilon (basic composition); with an (epsilon, delta) mechanism they
split both. The release's privacy curve is the composition of the parts (:func:`dppca_core.privacy.compose`),
checked to earn the stated (epsilon, delta).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..compiled import kernels
from ..api import run_part
from .ledger import Ledger, Step
from .choices import (DEFAULT_RADIUS_BOUNDS, DEFAULT_RADIUS_QUANTILE, choose_k, private_column_scales,
                      private_radius)
from .options import SCALINGS, ReleaseOptions
from ..linalg import fix_signs, top_eigenvectors
from ..privacy.exact import FixedSums
from ..data.prepare import PreparedData, prepare
from ..privacy import UNIT_ROUNDOFF, PrivacyCurve, sensitivity, summation_error
from ..privacy.randomness import random_source
from ..registry import get_mechanism
from ..release import NonPrivateDiagnostics, Release
from .scores import (BINS_MIN, FRAMES, KINDS, count_noise, private_frame, private_group_labels, private_scores,
                     project as project_rows, stability_threshold)
from ..privacy.shares import Share, allocate as _allocate, release_counts, release_vector
from ..validation import check_delta, check_float_range, check_int_range, check_k, check_matrix, \
    check_positive

#: the parts of a release, in the order they are computed
PARTS = ("scale", "radius", "mean", "subspace", "eigenvalues", "groups", "frame", "scores")
#: share of the budget each optional part gets by default (the rest goes to the subspace)
DEFAULT_SHARES = {"scale": 0.1, "radius": 0.1, "mean": 0.1, "eigenvalues": 0.1, "scores": 0.1, "groups": 0.05,
                  "frame": 0.05}
#: the variances' pass keeps the rows' projections for the score plot up to this many components (n x k floats)
KEPT_PROJECTIONS = 16
#: share of the total delta kept for stability-based steps (a sparse score plot, groups released privately)
STABILITY_DELTA_SHARE = 0.1

__all__ = ["BudgetSplit", "Share", "allocate", "release_pca", "release_with", "private_mean", "private_variances",
           "private_scores", "release_curve_kind", "PARTS", "DEFAULT_SHARES", "SCALINGS"]


@dataclass(frozen=True)
class BudgetSplit:
    """Shares of one privacy budget: ``mean``, ``subspace``, ``eigenvalues``, ``scores``, ``radius`` and ``scale``
    sum to 1.

    A share of 0 releases nothing for that part (the subspace needs a positive share). Shares split mu^2 of the
    total Gaussian-DP parameter when every part is Gaussian (exact), and epsilon (and delta) otherwise.
    """

    mean: float = 0.0
    subspace: float = 1.0
    eigenvalues: float = 0.0
    scores: float = 0.0
    radius: float = 0.0
    scale: float = 0.0
    frame: float = 0.0
    groups: float = 0.0

    def __post_init__(self):
        for part in PARTS:
            value = getattr(self, part)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0.0 <= value <= 1.0:
                raise ValueError(f"the {part} share must be a number in [0, 1] (got {value!r}).")
        if self.subspace <= 0:
            raise ValueError("the subspace share must be positive: the components are the release.")
        total = sum(getattr(self, part) for part in PARTS)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"the shares sum to {total:.6g}, not 1; e.g. BudgetSplit.with_extras(mean=0.1, "
                             "eigenvalues=0.1, scores=0.1) gives the subspace the rest.")

    @classmethod
    def with_extras(cls, mean: float = 0.0, eigenvalues: float = 0.0, scores: float = 0.0, radius: float = 0.0,
                    scale: float = 0.0, frame: float = 0.0, groups: float = 0.0) -> "BudgetSplit":
        """The given extra shares, and the rest of the budget to the subspace."""
        extras = mean + eigenvalues + scores + radius + scale + frame + groups
        if 1.0 - extras <= 0:
            raise ValueError(f"the extra shares sum to {extras:.3g}; leave the subspace some budget (the extras must "
                             "sum to less than 1).")
        return cls(mean=mean, subspace=1.0 - extras, eigenvalues=eigenvalues, scores=scores, radius=radius,
                   scale=scale, frame=frame, groups=groups)

    def as_dict(self) -> dict:
        return {part: float(getattr(self, part)) for part in PARTS}


def allocate(split: BudgetSplit, epsilon: float, delta: float, subspace_curve: str) -> dict:
    """Calibration of every part of ``split`` with a positive share (:func:`dppca_core.privacy.shares.allocate`)."""
    return _allocate(split.as_dict(), epsilon, delta, subspace_curve)


def release_curve_kind(mechanism: str, params: dict | None = None) -> str:
    """The kind of privacy curve a complete release of ``mechanism`` with ``params`` earns: "gdp", "approx", "pure"
    (Laplace shares, no delta: no sparse score plot, no groups found privately) or "none"."""
    spec = get_mechanism(mechanism)
    return _curve_kind(spec, spec.resolve_params(dict(params or {})))


def _curve_kind(spec, params: dict) -> str:
    """The kind of privacy curve the mechanism's release earns, from its registry metadata."""
    if spec.guarantee == "none":
        return "none"
    if spec.guarantee in ("pure", "retracted") or params.get("noise") == "laplace":
        return "pure"
    return "gdp" if spec.gaussian_dp else "approx"


# ---------------------------------------------------------------------------------------------------------------
# The parts


#: a bound on each coordinate's rounding error in a row scaled to norm <= 1 (s_i x_i computed in float64)
_ROW_ERROR = 2.0 * UNIT_ROUNDOFF


def _exact_row_sums(rows) -> FixedSums:
    """The exact column sums of rows of norm <= 1: an array, or a :class:`PreparedData` whose rows are summed in one
    pass from its raw rows and factors without forming them (the same products, so the same sums)."""
    if not isinstance(rows, PreparedData):
        return FixedSums(rows)
    source, factors = rows.scaled_parts()
    return FixedSums(source) if factors is None else FixedSums.of_scaled_rows(source, factors)


def private_mean(rows: np.ndarray, share: Share, neighbors: str, rng) -> dict:
    """Mean of rows of norm <= 1 from a noisy sum (and a noisy count under add/remove), projected on the unit ball.

    Replace one row: n is public, the sum changes by at most 2 in L2 (x vs -x), 2 sqrt(d) in L1. Add/remove: the
    sum changes by at most 1 (L2; sqrt(d) in L1) and the count by 1; the share is split equally between them. The sum
    is computed exactly (:class:`dppca_core.privacy.exact.FixedSums`) and released on a grid with exact noise
    (:func:`dppca_core.privacy.shares.release_vector`); the division by n and the projection are post-processing.
    """
    n, d = (rows.n, rows.d) if isinstance(rows, PreparedData) else rows.shape
    total = _exact_row_sums(rows)
    err = _ROW_ERROR + FixedSums.TRUNCATION
    if neighbors == "replace":
        noisy, noise = release_vector(total, share, rng, l2=sensitivity("row_sum", "replace"), l1=2.0 * math.sqrt(d),
                                      computation_error=err, name="sum of the rows")
        count, count_noise = float(n), None
    else:
        half = share.halves()
        noisy, noise = release_vector(total, half, rng, l2=sensitivity("row_sum", "add_remove"), l1=math.sqrt(d),
                                      computation_error=err, name="sum of the rows")
        noisy_count, count_noise = release_counts(np.array([n]), half, neighbors, rng, name="row count")
        count = max(float(noisy_count[0]), 1.0)
    mean = noisy / count
    norm = float(np.linalg.norm(mean))
    if norm > 1.0:  # the mean of rows in the unit ball lies in it: projecting is post-processing that only helps
        mean = mean / norm
    return {"mean": mean, "sum": noisy, "count": count, "noise": noise, "count_noise": count_noise,
            "noise_scale": noise.noise_scale,
            "count_noise_scale": None if count_noise is None else count_noise.noise_scale}


def _upper(M: np.ndarray) -> np.ndarray:
    return M[np.triu_indices(M.shape[0])]


def _symmetric(values: np.ndarray, k: int) -> np.ndarray:
    M = np.zeros((k, k))
    M[np.triu_indices(k)] = values
    return M + np.triu(M, 1).T


def _variance_terms(data: PreparedData, V: np.ndarray, rotate: bool, keep: bool = False) -> tuple:
    """The statistic [diag or upper triangle of V^T C V, tr C], a bound on its computation error, and with ``keep``
    the rows' projections on V (fixed order, :func:`dppca_core.pipeline.scores.project`) the pass computed, else None.

    From rows: each row's terms (products of its projections, its squared norm) summed exactly; each term errs by at
    most 4 gamma_d (a projection y_j = v_j^T x errs by gamma_d since |v_j^T x| <= 1, so a product by 3 gamma_d), a
    bound that does not depend on the data. From a Gram matrix alone (streamed statistics): V^T C V in float64, each
    entry within d * gram_error + 3 gamma_d n d (Higham, eq. 3.5); this grows with n, so it is allowed only where n
    is public (replace-one).
    """
    d, k = V.shape
    if data.has_rows:
        rows = data.rows
        first, second = np.triu_indices(k) if rotate else (np.arange(k), np.arange(k))
        # one pass: each row's projections (fixed order) and their products summed exactly, without the n x k array
        projections = np.empty((data.n, k)) if keep else None
        sums = FixedSums.of_projected_products(rows, V, first, second, np.einsum("ij,ij->i", rows, rows), projections)
        return sums, 4.0 * summation_error(d, 1.0) + _ROW_ERROR + FixedSums.TRUNCATION, projections
    C = data.gram
    M = V.T @ (C @ V)
    M = (M + M.T) / 2.0
    values = np.append(_upper(M) if rotate else np.diag(M), np.trace(C))
    return values, d * float(data.gram_error) + 3.0 * summation_error(d, max(data.n, 1) * d), None


def private_variances(data: PreparedData, components: np.ndarray, share: Share, neighbors: str, rng, *,
                      rotate: bool = False, keep_projections: bool = False) -> dict:
    """The variances along the released components and the total variance, private; the components ordered by them.

    Parameters
    ----------
    data : PreparedData
        The rows (norm <= 1) the components were released from, or their Gram matrix C alone.
    components : ndarray (d, k)
        The released (public) orthonormal components V.
    rotate : bool
        False: release the diagonal of V^T C V (the variance along each component) and tr(C); order the components
        by it. True (a mechanism whose basis is arbitrary): release the upper triangle of V^T C V and tr(C), and
        rotate V by the eigenvectors of the noisy matrix, so component i is the direction of the i-th largest
        private variance inside the released subspace (post-processing: V is public once released).

    Returns
    -------
    dict
        ``components`` (d, k) ordered by decreasing private variance, ``variances`` (k,), ``total_variance``,
        ``released`` (the noisy vector, multiples of the grid), ``noise``, ``kind`` ("diag" or "upper"),
        ``projections``: with ``keep_projections`` (and rows, and no rotation) the rows' projections on the ordered
        components, the bits :func:`dppca_core.pipeline.scores.project` gives (the score plot reuses them), else None.

    Notes
    -----
    Sensitivity (rows of norm <= 1, p = ||x||^2, q = ||x'||^2): the diagonal or upper triangle of
    V^T (x x^T - x' x'^T) V has squared L2 norm at most p^2 + q^2, the trace moves by |p - q|, and
    p^2 + q^2 + (p - q)^2 <= 2: sqrt(2) under replace-one, and sqrt(2 p^2) <= sqrt(2) under add/remove
    (:func:`dppca_core.privacy.sensitivity`, ``variances_*``).
    """
    V = np.asarray(components, dtype=float)
    d, k = V.shape
    if not data.has_rows and neighbors != "replace":
        raise ValueError("from sufficient statistics alone the variances' rounding error grows with n, which is "
                         "private under add/remove: pass the rows, use neighbors='replace', or give the eigenvalues "
                         "no share.")
    values, err, projections = _variance_terms(data, V, rotate, keep_projections and not rotate)
    kind = "upper" if rotate else "diag"
    noisy, noise = release_vector(values, share, rng, l2=sensitivity(f"variances_{kind}_trace", neighbors),
                                  l1=sensitivity(f"variances_{kind}_trace_l1", neighbors, block_size=k),
                                  computation_error=err, name="variances along the components")
    total = float(noisy[-1])
    if rotate:
        variances, U = top_eigenvectors(_symmetric(noisy[:-1], k), k)
        ordered = fix_signs(V @ U)
    else:
        order = np.argsort(-noisy[:-1], kind="stable")
        variances, ordered = noisy[:-1][order], V[:, order]
    return {"components": ordered, "variances": np.asarray(variances, dtype=float), "total_variance": total,
            "projections": None if projections is None else projections[:, order],
            "released": noisy, "noise": noise, "kind": kind}



# ---------------------------------------------------------------------------------------------------------------
# The whole release


def _default_budget(center: str, private_radius_: bool, scale: str) -> BudgetSplit:
    return BudgetSplit.with_extras(mean=DEFAULT_SHARES["mean"] if center == "private" else 0.0,
                                   radius=DEFAULT_SHARES["radius"] if private_radius_ else 0.0,
                                   scale=DEFAULT_SHARES["scale"] if scale == "private" else 0.0)


def _check_budget(budget, center: str, private_radius_: bool, scale: str) -> None:
    if not isinstance(budget, BudgetSplit):
        raise ValueError("budget must be a BudgetSplit (e.g. BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)).")
    needed = {"mean": (center == "private", "centring with a private mean (center='private')"),
              "radius": (private_radius_, "choosing the clipping radius privately (data_norm='private')"),
              "scale": (scale == "private", "scaling the columns privately (scale='private')")}
    _check_steps_have_shares(budget, needed)


def _check_steps_have_shares(budget: BudgetSplit, needed: dict, example: str = "{part}=0.1") -> None:
    """Every step that is on has a positive share, and every positive share has its step on.

    ``needed`` maps a share's name to (whether its step is on, the step in words); ``example`` is the
    ``BudgetSplit.with_extras`` arguments a message suggests (``{part}`` is the share's name).
    """
    for part, (used, what) in needed.items():
        share = getattr(budget, part)
        if used and share <= 0:
            raise ValueError(f"{what} needs a positive {part} share in the budget, e.g. "
                             f"BudgetSplit.with_extras({example.format(part=part)}).")
        if not used and share > 0:
            raise ValueError(f"the budget gives the {part} a share of {share:g}, but nothing uses it: {what} is off. "
                             f"Give that share to the subspace, or turn the step on.")


def _column_bounds(column_bounds, d: int) -> np.ndarray:
    if column_bounds is None:
        raise ValueError("scaling by column bounds needs column_bounds: one public bound per column on |x_j| "
                         "(from the data's documentation or the instrument's range, never read off the data).")
    b = np.asarray(column_bounds, dtype=float).reshape(-1)
    if b.shape != (d,) or not np.all(np.isfinite(b)) or np.any(b <= 0):
        raise ValueError(f"column_bounds must hold one finite bound > 0 per column ({d} of them); got {b.shape[0]}.")
    return b


def degenerate_note(X) -> str | None:
    """A non-private diagnostic for the data owner: a sentence when the table has nothing to analyse (every value 0,
    or every row the same), else None.

    Never a refusal: whether a release exists must not depend on one row (a table of equal rows and its neighbour
    with one row replaced would otherwise be told apart with certainty). The release goes ahead (its noise is all
    it shows) and the sentence goes to :attr:`Release.diagnostics` ``["warnings"]``, which is never published.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0 or X.dtype.kind not in "fiu":
        return None
    if not (np.any(X[0]) or np.any(X[-1]) or np.any(X)):  # a nonzero cell at either end answers at once
        return ("every value in the table is zero: there is no variance to analyse, so the release shows only its "
                "noise. Check the columns you selected.")
    if X.shape[0] > 1 and np.array_equal(X[-1], X[0]) and np.all(X == X[0]):
        return ("every row of the table is the same: there is no variance to analyse, so the release shows only its "
                "noise. Check the columns you selected.")
    return None


def release_pca(mechanism: str, X, k, epsilon: float, delta: float = 1e-6, neighbors: str = "replace",
                data_norm=1.0, seed=None, budget: BudgetSplit | None = None, center: str = "none",
                score_bins: int | None = None, *, radius_bounds=DEFAULT_RADIUS_BOUNDS,
                radius_quantile: float = DEFAULT_RADIUS_QUANTILE, scale: str = "none", column_bounds=None,
                variance_target: float | None = None, score_groups=None, score_group_labels=None,
                score_frame: str = "public", score_kind: str = "additive", **params) -> Release:
    """A complete private PCA release, from the raw table to what is published, under one budget.

    Parameters
    ----------
    mechanism, X, epsilon, delta, neighbors, seed, **params
        As for :func:`dppca_core.run`; (epsilon, delta) is the total budget of everything released. ``seed=None``
        (fresh randomness) for a release you will publish.
    k, data_norm, budget, center, score_bins, score_groups, score_group_labels, score_frame, score_kind, \
    radius_bounds, radius_quantile, scale, column_bounds, variance_target
        The release's options: the fields of :class:`dppca_core.pipeline.options.ReleaseOptions`, documented and checked
        there; :func:`release_with` takes them as that one object.

    Returns
    -------
    Release
        ``components`` ordered by decreasing private variance (from the eigenvalue share, or the mechanism's own
        noisy matrix when it releases eigenvalues and that share is 0); ``eigenvalues`` the private variances along
        them; ``outputs`` also holds ``mean`` (units of the scaled data), ``total_variance``,
        ``explained_variance_ratio``, ``scores`` (counts and edges), ``radius`` and ``column_scales`` where released;
        ``facts["budget"]`` lists each share and its calibration; ``privacy`` is the composed curve of all parts.
    """
    spec = get_mechanism(mechanism)
    options = ReleaseOptions(
        k=k, epsilon=epsilon, delta=delta, neighbors=neighbors, data_norm=data_norm, budget=budget, center=center,
        score_bins=score_bins, radius_bounds=radius_bounds, radius_quantile=radius_quantile, scale=scale,
        column_bounds=column_bounds, variance_target=variance_target, score_groups=score_groups,
        score_group_labels=score_group_labels, score_frame=score_frame, score_kind=score_kind, params=params)
    return release_with(spec.name, X, options, seed)


def release_with(mechanism: str, X, options: ReleaseOptions, seed=None) -> Release:
    """:func:`release_pca` with its options in one checked object (:class:`dppca_core.pipeline.options.ReleaseOptions`): the
    chain of steps (scale, radius, mean, subspace, eigenvalues, k, score plot), each recorded in a
    :class:`dppca_core.pipeline.ledger.Ledger` that composes their curves once and checks the (epsilon, delta) earned."""
    spec = get_mechanism(mechanism)
    plan = _plan(spec, options)
    if spec.guarantee == "none":
        return _exact_release(spec, X, options, plan.budget, random_source(seed).seeded)
    source = random_source(seed)
    rng, ledger = source.rng, Ledger()
    note = degenerate_note(X)  # a non-private diagnostic (None for prepared data or statistics)
    X = _scale_step(X, options, plan, rng, ledger)
    R = _radius_step(X, options, plan, rng, ledger)
    # centred privately, the rows are read again after centring: their Gram matrix is never needed here
    data = prepare(X, R, gram_now=False if options.center == "private" else None, owned=options.scale != "none")
    K = min(data.d, spec.max_k or data.d) if options.auto_k else check_k(options.k, data.d)
    if (plan.budget.mean > 0 or plan.budget.scores > 0) and not data.has_rows:
        raise ValueError("the private mean and the score histogram read the rows; pass the data matrix, or set those "
                         "shares to 0 to release from sufficient statistics.")
    work = _mean_step(data, options, plan, rng, ledger)
    released = _subspace_step(spec, work, K, options, plan, source, ledger)
    components, eigenvalues, projections = _eigenvalue_step(spec, work, released, options, plan, rng, ledger)
    components, eigenvalues, projections = _k_step(components, eigenvalues, projections, K, options, ledger)
    if "scores" in plan.shares:
        ledger.record(_score_plot(work, components, options, plan, rng, ledger.outputs, projections))
    if plan.reserve:  # the stability steps: within total variation of a mechanism that never releases a lone cell
        ledger.record(Step(curves=[PrivacyCurve.approx(0.0, plan.reserve)]))
    total_delta = plan.delta if plan.kind in ("gdp", "approx") else 0.0
    privacy, guarantee = ledger.close(options.epsilon, total_delta, released.guarantee, released.privacy)
    return _assemble(spec, options, plan, ledger, released, (data, work), (components, eigenvalues),
                     (privacy, guarantee, total_delta), note, source.seeded)


@dataclass(frozen=True)
class _Plan:
    """What a release will spend, fixed before any data is read: the budget, each part's calibrated share, the kind
    of curve, the slice of delta the stability steps keep, and the score plot's plan."""

    budget: BudgetSplit
    delta: float
    kind: str = "none"
    shares: dict | None = None
    reserve: float = 0.0
    failure: float = 0.0
    scores: dict | None = None


def _plan(spec, options: ReleaseOptions) -> _Plan:
    """Check the options against the mechanism and the budget, and calibrate every share (nothing read yet)."""
    resolved = spec.resolve_params(options.params)
    delta = check_delta(options.delta) if spec.uses_delta_with(resolved) else 0.0
    if options.center == "empirical" and spec.guarantee != "none":
        raise ValueError("center='empirical' centres with the data's own mean, which is not private: use "
                         "center='private' (a private mean from its own share), or mechanism='non_private' for the "
                         "exact reference.")
    budget = options.budget
    if budget is None:
        budget = _default_budget(options.center, options.private_radius, options.scale)
    if spec.guarantee == "none":
        return _Plan(budget, delta)
    _check_budget(budget, options.center, options.private_radius, options.scale)
    scores = _scores_plan(budget, options.score_groups, options.score_group_labels, options.score_frame,
                          options.score_kind)
    _check_auto_k(options.k, options.variance_target, budget, spec)
    kind = _curve_kind(spec, resolved)
    # stability-based steps (a sparse score plot, groups found privately) spend a slice of delta outside GDP
    reserve = STABILITY_DELTA_SHARE * delta if scores["stability_steps"] else 0.0
    if scores["stability_steps"] and kind == "pure":
        raise ValueError("a sparse score plot and privately found groups need a delta, which a pure-DP release does "
                         "not have: use score_kind='additive' and declare score_group_labels, or a Gaussian mechanism.")
    shares = allocate(budget, options.epsilon, (delta - reserve) if kind != "pure" else 0.0,
                      "approx" if kind == "none" else kind)
    failure = reserve / ((1.0 + math.exp(min(options.epsilon, 700.0))) * max(scores["stability_steps"], 1))
    return _Plan(budget, delta, kind, shares, reserve, failure, scores)


def _scale_step(X, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger):
    """The rows with their columns scaled (by public bounds, free; or privately, the scale share), recorded."""
    if options.private_radius or options.scale != "none":
        from ..data.stats import SufficientStats
        if isinstance(X, (PreparedData, SufficientStats)):
            raise ValueError("choosing the radius or scaling the columns reads the raw rows; pass the data matrix.")
        X = check_matrix(X)
    if options.scale == "none":
        return X
    b = _column_bounds(options.column_bounds, X.shape[1])
    step = Step(parameters={"column_bounds": b})
    if options.scale == "bounds":
        scales = b
    else:
        share = plan.shares["scale"]
        chosen = private_column_scales(X, b, share, options.neighbors, rng)
        scales = chosen["scales"]
        step.outputs["column_scales"] = scales
        if chosen["count"] is not None:  # add/remove: the noisy row count the scales divided by
            step.outputs["column_scales_count"] = chosen["count"]
        step.facts["scale_noise_scale"] = chosen["noise"].noise_scale
        step.curves.append(share.curve())
    ledger.record(step)
    return X / scales


def _radius_step(X, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger) -> float:
    """The clipping radius: public, or a private quantile of the row norms (the radius share), recorded."""
    if not options.private_radius:
        return check_positive(options.data_norm, "data_norm (clipping radius R)", hint="Choose a public bound on row "
                              "norms, or data_norm='private'.")
    share = plan.shares["radius"]
    chosen = private_radius(X, share, options.neighbors, rng, bounds=options.radius_bounds,
                            quantile=options.radius_quantile)
    R = chosen["radius"]
    ledger.record(Step(
        curves=[share.curve()], outputs={"radius": {"value": R, "counts": chosen["counts"],
                                                    "thresholds": chosen["thresholds"]}},
        facts={"radius_noise_scale": chosen["noise"].noise_scale},
        parameters={"radius_rule": {"quantile": chosen["quantile"], "bounds": [float(chosen["edges"][0]),
                                    float(chosen["edges"][-1])], "bins": int(chosen["edges"].size - 1)}}))
    return R


def _mean_step(data: PreparedData, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger) -> PreparedData:
    """The private mean (its share), recorded; the rows the later steps read: centred with it and clipped to R
    again (``center="private"``), or ``data`` itself."""
    mean_scaled = np.zeros(data.d)
    if "mean" in plan.shares:
        share = plan.shares["mean"]
        m = private_mean(data, share, options.neighbors, rng)
        mean_scaled = m["mean"]
        # the released noisy sum of the scaled rows (on its grid); the mean is its post-processing: divided by n (or
        # the noisy count), projected on the unit ball, times R
        step = Step(curves=[share.curve()], outputs={"mean": mean_scaled * data.data_norm, "mean_sum": m["sum"]},
                    facts={"mean_noise_scale": m["noise_scale"], "mean_grid": m["noise"].step})
        if m["count_noise"] is not None:  # add/remove: the noisy count is part of the mean's release
            step.outputs["count"] = m["count"]
            step.facts["count_noise_scale"] = m["count_noise_scale"]
        ledger.record(step)
    if options.center != "private":
        return data
    source, factors = data.scaled_parts()  # (rows - mean) R in one pass, without forming the rows first
    centred_rows = (kernels.centred(source, mean_scaled, data.data_norm) if factors is None
                    else kernels.scaled_centred(source, factors, mean_scaled, data.data_norm))
    return prepare(centred_rows, data.data_norm, owned=True)  # re-clipped to R


def _subspace_step(spec, work: PreparedData, K: int, options: ReleaseOptions, plan: _Plan, source,
                   ledger: Ledger) -> Release:
    """The registered mechanism on the (privately centred) rows with its share, recorded."""
    sub = plan.shares["subspace"]
    released = run_part(spec.name, work, K, sub.epsilon, sub.delta, options.neighbors, work.data_norm, source,
                        **options.params)
    if plan.kind == "gdp" and released.privacy.kind != "gdp":
        raise RuntimeError(f"{spec.name} declares a Gaussian-DP guarantee (gaussian_dp) but released "
                           f"{released.privacy.describe()}; fix its registry metadata.")
    ledger.record(Step(curves=[released.privacy], outputs=released.outputs))
    return released


def _eigenvalue_step(spec, work: PreparedData, released: Release, options: ReleaseOptions, plan: _Plan, rng,
                     ledger: Ledger) -> tuple:
    """The components ordered by private variances (the eigenvalue share) and the explained-variance ratios
    (post-processing), recorded; or the mechanism's own eigenvalues and trace where it releases them."""
    components, eigenvalues, projections = released.components, released.eigenvalues, None
    step = Step()
    if "eigenvalues" in plan.shares:
        share = plan.shares["eigenvalues"]
        # the pass over the rows also keeps their projections for the score plot (few components: little memory)
        keep = "scores" in plan.shares and components.shape[1] <= KEPT_PROJECTIONS
        var = private_variances(work, components, share, options.neighbors, rng, rotate=not spec.ordered_basis,
                                keep_projections=keep)
        components, eigenvalues, projections = var["components"], var["variances"], var["projections"]
        step.outputs.update(total_variance=var["total_variance"],
                            variances_released={"kind": var["kind"], "values": var["released"]})
        step.facts.update(eigenvalue_noise_scale=var["noise"].noise_scale, eigenvalue_grid=var["noise"].step)
        step.curves.append(share.curve())
    elif eigenvalues is not None and "trace" in released.outputs:
        step.outputs["total_variance"] = released.outputs["trace"]
    total = {**ledger.outputs, **step.outputs}.get("total_variance")
    if eigenvalues is not None and total:
        step.outputs["explained_variance_ratio"] = np.asarray(eigenvalues) / max(total, 1e-300)
    ledger.record(step)
    return components, eigenvalues, projections


def _k_step(components, eigenvalues, projections, K: int, options: ReleaseOptions, ledger: Ledger) -> tuple:
    """``k="auto"``: the smallest k whose private explained-variance ratios sum above the target (post-processing);
    the ratios of all K components stay published, so anyone can replay the choice."""
    if not options.auto_k:
        return components, eigenvalues, projections
    ratios = ledger.outputs["explained_variance_ratio"]
    k = choose_k(ratios, options.variance_target)
    ledger.record(Step(
        outputs={"candidate_ratios": np.asarray(ratios), "explained_variance_ratio": ratios[:k]},
        parameters={"k_rule": {"variance_target": float(options.variance_target), "components_released": int(K),
                               "rule": "smallest k whose private explained-variance ratios sum above the target"}}))
    return components[:, :k], np.asarray(eigenvalues)[:k], None if projections is None else projections[:, :k]


def _assemble(spec, options: ReleaseOptions, plan: _Plan, ledger: Ledger, released: Release, prepared: tuple,
              result: tuple, privacy: tuple, note, seeded: bool) -> Release:
    """The :class:`Release` from the ledger: the mechanism's own facts and parameters under the steps'."""
    (data, work), (components, eigenvalues), (curve, guarantee, total_delta) = prepared, result, privacy
    facts = {**ledger.facts, **released.facts}
    facts["budget"] = _budget_facts(plan.shares, facts)
    parameters = {**released.parameters, **ledger.parameters, "k": int(components.shape[1]),
                  "budget": plan.budget.as_dict(), "center": options.center, "scale": options.scale}
    diagnostics = dict(released.diagnostics)
    diagnostics["rows_clipped"] = data.n_clipped
    if note:  # told to the data owner only: never a refusal, never published
        diagnostics["warnings"] = [note, *diagnostics.get("warnings", [])]
    if options.center == "private":
        diagnostics["rows_clipped_after_centring"] = work.n_clipped
    return Release(
        mechanism=spec.name, components=components, epsilon=options.epsilon, delta=total_delta,
        neighbors=options.neighbors, guarantee=guarantee, privacy=curve, noise_scale=released.noise_scale,
        eigenvalues=None if eigenvalues is None else np.asarray(eigenvalues), outputs=ledger.outputs,
        parameters=parameters, facts=facts, caveat=released.caveat, diagnostics=NonPrivateDiagnostics(diagnostics),
        seeded=seeded,
    )


_NOISE_FACT = {"scale": "scale_noise_scale", "radius": "radius_noise_scale", "mean": "mean_noise_scale",
               "eigenvalues": "eigenvalue_noise_scale", "scores": "scores_noise_scale", "frame": "frame_noise_scale",
               "groups": "groups_noise_scale"}


def _scores_plan(budget: BudgetSplit, groups, group_labels, frame: str, kind: str) -> dict:
    """Check the score plot's options against the budget; how many stability-based steps they take."""
    if frame not in FRAMES:
        raise ValueError(f"score_frame={frame!r}: use one of {list(FRAMES)}.")
    if kind not in KINDS:
        raise ValueError(f"score_kind={kind!r}: use one of {list(KINDS)}.")
    find_groups = groups is not None and group_labels is None
    needed = {"frame": (frame == "private", "a private frame (score_frame='private')"),
              "groups": (find_groups, "finding the groups privately (score_groups without score_group_labels)")}
    if budget.scores <= 0:
        if frame == "private" or groups is not None or kind != "additive":
            raise ValueError("the score plot's options need a scores share in the budget, e.g. "
                             "BudgetSplit.with_extras(scores=0.1).")
    _check_steps_have_shares(budget, needed, example="{part}=0.05, scores=0.1")
    return {"frame": frame, "kind": kind, "find_groups": find_groups,
            "stability_steps": int(kind == "sparse") + int(find_groups)}


#: where a noisy row count may already be published when the score plot is drawn (add/remove), in order of
#: preference: the private mean's, the column scales', the radius search's first count
ROW_COUNTS = (("outputs", "count"), ("outputs", "column_scales_count"), ("outputs", "radius", "counts", 0))
#: the rule of the score plot's default cells per axis, as the release states it
BINS_RULE = "round((n mu)^(1/3)) cells per axis, between 6 and 40 (n: the row count at n_from, mu: the scores share's)"


def published_row_count(outputs: dict) -> tuple:
    """(a noisy row count a release publishes in ``outputs``, its path in ``published()``), or (None, None): the
    private mean's, the column scales', the radius search's (:data:`ROW_COUNTS`, in that order). Under add/remove,
    where n is private, this is what anything that needs n may read."""
    for path in ROW_COUNTS:
        node = {"outputs": outputs}
        try:
            for part in path:
                node = node[part]
        except (KeyError, IndexError, TypeError):
            continue
        return float(node), list(path)
    return None, None


def _groups_step(work: PreparedData, options: ReleaseOptions, plan: _Plan, rng) -> tuple:
    """(the per-row groups, the public set of groups, the step): declared, or found privately (the groups share,
    stability-based); when none passes the threshold the plot has no group, a released outcome, never a refusal."""
    groups, group_labels, step = options.score_groups, options.score_group_labels, Step()
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape[0] != work.n:
            raise ValueError(f"score_groups must hold one label per row ({work.n}); got {groups.shape[0]}.")
    if plan.scores["find_groups"]:
        share = plan.shares["groups"]
        group_labels = private_group_labels(groups, share, options.neighbors, rng, plan.failure)
        step.curves.append(share.curve())
        step.parameters["score_groups"] = "released privately (groups share)"
        # a group shows when its noisy count reaches this (data-independent: the pages say how many rows it takes)
        step.facts["groups_threshold"] = stability_threshold(count_noise(share, options.neighbors), plan.failure)
    elif group_labels is not None:
        step.parameters["score_groups"] = "declared (public)"
        step.parameters["score_group_labels"] = [str(g) for g in group_labels]
    return groups, group_labels, step


def _frame_step(rows, components, options: ReleaseOptions, plan: _Plan, rng, outputs: dict, projections) -> tuple:
    """(the frame or None, a published row count and its path or (None, None), the step): the score plot's private
    frame (the frame share), and under add/remove the noisy row count the plot's cells may read."""
    neighbors = options.neighbors
    released_n, n_from = published_row_count(outputs) if neighbors == "add_remove" else (None, None)
    if plan.scores["frame"] != "private":
        return None, (released_n, n_from), Step()
    share = plan.shares["frame"]
    dims = min(2, components.shape[1])
    scores = project_rows(rows, components[:, :dims]) if projections is None else projections[:, :dims]
    frame = private_frame(scores, share, neighbors, rng, n=released_n)
    if "count" in frame and released_n is None:
        released_n, n_from = float(frame["count"]), ["outputs", "scores", "frame", "count"]
    return frame, (released_n, n_from), Step(curves=[share.curve()])


def _score_plot(work: PreparedData, components, options: ReleaseOptions, plan: _Plan, rng, outputs: dict,
                projections=None) -> Step:
    """The score histogram of a release with its groups and frame (their steps first): one step for the ledger.

    Nothing in its shape reads the exact n where n is private: under add/remove the default cells come from a noisy
    row count the release publishes (:data:`ROW_COUNTS`, or the private frame's own), else the fixed minimum
    (:func:`dppca_core.pipeline.scores.score_bins`); ``parameters["score_bins_rule"]`` says which, so anyone can replay it.
    """
    neighbors, bins, rows = options.neighbors, options.score_bins, work.rows
    groups, group_labels, groups_step = _groups_step(work, options, plan, rng)
    frame, (released_n, n_from), frame_step = _frame_step(rows, components, options, plan, rng, outputs, projections)
    share = plan.shares["scores"]
    mu = share.mu or share.epsilon
    if bins is not None:
        rule = {"declared": int(bins)}
    elif neighbors == "replace":
        rule = {"rule": BINS_RULE, "n_from": ["parameters", "n"], "mu": mu}
    elif released_n is not None:
        rule = {"rule": BINS_RULE, "n_from": n_from, "mu": mu}
    else:
        rule = {"rule": "no row count is published (n is private under add/remove): the fixed default",
                "default": BINS_MIN}
    sc = private_scores(rows, components, share, neighbors, rng, bins=bins, groups=groups, group_labels=group_labels,
                        frame=frame, kind=plan.scores["kind"], failure=plan.failure, released_n=released_n,
                        projections=projections)
    out = {"counts": sc["counts"], "edges": sc["edges"], "dims": sc["dims"]}
    if sc["groups"] is not None:
        out["groups"] = sc["groups"]
    if frame is not None:
        out["frame"] = {key: frame[key] for key in ("low", "high", "counts", "quantile", "count") if key in frame}
    step = Step(curves=groups_step.curves + frame_step.curves + [share.curve()], outputs={"scores": out},
                facts={**groups_step.facts, "scores_noise_scale": sc["noise_scale"]},
                parameters={"score_frame": plan.scores["frame"], "score_kind": plan.scores["kind"],
                            **groups_step.parameters, "score_bins": sc["bins"], "score_bins_rule": rule})
    if sc["threshold"] is not None:
        step.facts["scores_threshold"] = sc["threshold"]
    return step


def _budget_facts(shares: dict, facts: dict) -> dict:
    """Each part's share and calibration: its (epsilon, delta) and mu, and the noise scale it added."""
    out = {}
    for part in PARTS:
        if part not in shares:
            continue
        s = shares[part]
        entry = {"share": s.weight, "epsilon": s.epsilon, "delta": s.delta}
        if s.mu is not None:
            entry["mu"] = s.mu
        noise = facts.get(_NOISE_FACT.get(part, ""))
        if noise is not None:
            entry["noise_scale"] = noise
        out[part] = entry
    return out


def _check_auto_k(k, variance_target, budget: BudgetSplit, spec) -> bool:
    if not (isinstance(k, str) and k == "auto"):
        if variance_target is not None:
            raise ValueError("variance_target is used with k='auto' only.")
        return False
    if variance_target is None:
        raise ValueError("k='auto' needs a public variance_target in (0, 1), e.g. 0.9: the smallest k whose private "
                         "explained-variance ratios sum above it.")
    check_float_range(variance_target, "variance_target", 0.0, 1.0, low_open=True, high_open=True)
    if budget.eigenvalues <= 0 and not spec.releases_eigenvalues:
        raise ValueError(f"k='auto' is chosen from private explained-variance ratios, but the budget gives the "
                         f"eigenvalues no share and {spec.name} does not release its own: give 'eigenvalues' a share.")
    return True


def _exact_release(spec, X, options: ReleaseOptions, budget: BudgetSplit, seeded: bool) -> Release:
    """The non-private reference: every part exact, as scikit-learn's PCA computes it on the clipped rows.

    No share, no noise: the empirical mean (``center`` "private" or "empirical"; no re-clipping after centring),
    the exact eigenvalues and trace of the centred rows, exact score counts. Guarantee: none.
    """
    k, neighbors, data_norm, center = options.k, options.neighbors, options.data_norm, options.center
    score_bins, scale, variance_target = options.score_bins, options.scale, options.variance_target
    if isinstance(data_norm, str):
        raise ValueError("the non-private reference clips to a given radius: pass a number as data_norm.")
    if scale != "none":
        X = check_matrix(X)
        X = X / _column_bounds(options.column_bounds, X.shape[1])
    data = prepare(X, data_norm)
    rows = data.rows
    outputs = {}
    if center in ("private", "empirical"):
        mean = rows.mean(axis=0)
        rows = rows - mean
        outputs["mean"] = mean * data.data_norm
    gram = rows.T @ rows
    if isinstance(k, str) and k == "auto":
        if variance_target is None:
            raise ValueError("k='auto' needs a variance_target in (0, 1).")
        all_values = np.sort(np.linalg.eigvalsh((gram + gram.T) / 2.0))[::-1]
        k = choose_k(all_values / max(float(np.trace(gram)), 1e-300), variance_target)
    k = check_k(k, data.d)
    values, vectors = top_eigenvectors(gram, k)
    outputs["total_variance"] = float(np.trace(gram))
    outputs["explained_variance_ratio"] = values / max(outputs["total_variance"], 1e-300)
    if budget.scores > 0:
        bins = check_int_range(24 if score_bins is None else score_bins, "score bins", 4, 100)
        edges = np.linspace(-1.0, 1.0, bins + 1)
        dims = min(2, k)
        proj = project_rows(rows, vectors[:, :dims])
        counts = (np.histogram2d(proj[:, 0], proj[:, 1], bins=[edges, edges])[0] if dims == 2
                  else np.histogram(proj[:, 0], bins=edges)[0])
        outputs["scores"] = {"counts": counts.astype(np.int64), "edges": [edges, edges] if dims == 2 else edges,
                             "dims": dims}
    parameters = {"k": k, "d": data.d, "data_norm": data.data_norm, "budget": budget.as_dict(), "center": center,
                  "score_bins": score_bins, "scale": scale}
    if neighbors == "replace":
        parameters["n"] = data.n
    return Release(mechanism=spec.name, components=vectors, epsilon=math.inf, delta=0.0, neighbors=neighbors,
                   guarantee="none", privacy=PrivacyCurve.none(), noise_scale=None, eigenvalues=values,
                   outputs=outputs, parameters=parameters, facts={"noise_on": "none"},
                   diagnostics=NonPrivateDiagnostics({"rows_clipped": data.n_clipped}), seeded=seeded)

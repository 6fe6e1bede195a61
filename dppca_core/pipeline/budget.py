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

import dataclasses

import numpy as np

from .ledger import Ledger, Step
from .choices import DEFAULT_RADIUS_BOUNDS, DEFAULT_RADIUS_QUANTILE
from .options import SCALINGS, ReleaseOptions
from .parts import private_mean, private_variances
from .scores import private_scores
from .split import DEFAULT_SHARES, PARTS, BudgetSplit, allocate, release_curve_kind
from .steps import (
    assemble_release,
    eigenvalue_step,
    exact_release,
    k_step,
    mean_step,
    plan_release,
    radius_step,
    scale_step,
    score_plot_step,
    subspace_step,
    published_row_count,
)
from ..data.centring import algebraic_shape
from ..data.prepare import prepare
from ..data.schema import rows_and_schema
from ..privacy import PrivacyCurve, compose
from ..privacy.randomness import random_source
from ..registry import get_mechanism
from ..release import Release
from ..privacy.shares import Share
from ..validation import check_k


__all__ = [
    "BudgetSplit",
    "Share",
    "allocate",
    "release_pca",
    "release_with",
    "private_mean",
    "private_variances",
    "private_scores",
    "release_curve_kind",
    "published_row_count",
    "PARTS",
    "DEFAULT_SHARES",
    "SCALINGS",
]


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
        return (
            "every value in the table is zero: there is no variance to analyse, so the release shows only its "
            "noise. Check the columns you selected."
        )
    if X.shape[0] > 1 and np.array_equal(X[-1], X[0]) and np.all(X == X[0]):
        return (
            "every row of the table is the same: there is no variance to analyse, so the release shows only its "
            "noise. Check the columns you selected."
        )
    return None


def release_pca(
    mechanism: str,
    X,
    k,
    epsilon: float,
    delta: float = 1e-6,
    neighbors: str = "replace",
    data_norm=1.0,
    seed=None,
    budget: BudgetSplit | None = None,
    center: str = "none",
    score_bins: int | None = None,
    *,
    radius_bounds=DEFAULT_RADIUS_BOUNDS,
    radius_quantile: float = DEFAULT_RADIUS_QUANTILE,
    scale: str = "none",
    column_bounds=None,
    variance_target: float | None = None,
    score_groups=None,
    score_group_labels=None,
    score_frame: str = "public",
    score_kind: str = "additive",
    **params,
) -> Release:
    """A complete private PCA release, from the raw table to what is published, under one budget.

    Parameters
    ----------
    mechanism, X, epsilon, delta, neighbors, seed, **params
        As for :func:`dppca_core.run`; (epsilon, delta) is the total budget of everything released. ``seed=None``
        (fresh randomness) for a release you will publish.
    k, data_norm, budget, center, score_bins, score_groups, score_group_labels, score_frame, score_kind
        The release's options: the fields of :class:`dppca_core.pipeline.options.ReleaseOptions`, documented and checked
        there; :func:`release_with` takes them as that one object.
    radius_bounds, radius_quantile, scale, column_bounds, variance_target
        The release's options for private choices: fields of :class:`~dppca_core.pipeline.options.ReleaseOptions` too.

    Returns
    -------
    Release
        ``components`` ordered by decreasing private variance (from the eigenvalue share, or the mechanism's own
        noisy matrix when it releases eigenvalues and that share is 0); ``eigenvalues`` the private variances along
        them; ``outputs`` also holds ``mean`` (units of the scaled data), ``total_variance``,
        ``explained_variance_ratio``, ``scores`` (counts and edges), ``radius`` and ``column_scales`` where released;
        ``facts["budget"]`` lists each share and its calibration; ``privacy`` is the composed curve of all parts.

    Raises
    ------
    ValueError
        In words: an option out of its range (:class:`dppca_core.pipeline.options.ReleaseOptions` says which and
        what to change), a share missing for a step that is on, or what :func:`dppca_core.run` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 3
    >>> split = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)
    >>> release = dc.release_pca("analyze_gauss", X, 2, 1.0, budget=split, center="private", seed=0)
    >>> release.components.shape, release.outputs["mean"].shape
    ((5, 2), (5,))
    >>> release.epsilon, release.delta  # the whole budget, every part composed
    (1.0, 1e-06)
    """
    # every argument but the mechanism, the rows, the seed and the mechanism's parameters is a field of the options
    fields = {name: value for name, value in locals().items() if name not in ("mechanism", "X", "seed", "params")}
    return release_with(get_mechanism(mechanism).name, X, ReleaseOptions(**fields, params=params), seed)


def planned_curve(mechanism: str, options: ReleaseOptions) -> PrivacyCurve:
    """The privacy curve a release of ``mechanism`` with ``options`` states at most, computed before any data is read
    (plans before data): its Gaussian shares and the stability steps' slice of delta composed as the release's
    :class:`~dppca_core.pipeline.ledger.Ledger` composes its steps, else its (epsilon, delta). Never below the curve
    the release then states (tests/pipeline/test_budget.py): what a budget book reserves before a draw.

    Parameters
    ----------
    mechanism : str
        A registered mechanism.
    options : ReleaseOptions
        The release's options (checked here as :func:`release_with` checks them).

    Returns
    -------
    PrivacyCurve
        "gdp" for a Gaussian release without stability steps; "approx" with them, or for a mechanism with an
        (epsilon, delta) guarantee; "pure" for a pure-DP release; "none" for the non-private reference.
    """
    spec = get_mechanism(mechanism)
    plan = plan_release(spec, options)
    if spec.guarantee in ("none", "retracted"):
        return PrivacyCurve.none()
    if plan.kind == "pure":
        return PrivacyCurve.pure(options.epsilon)
    if plan.kind != "gdp":
        return PrivacyCurve.approx(options.epsilon, plan.delta)
    curves = [PrivacyCurve.gdp(share.mu) for share in plan.shares.values()]
    if plan.reserve:
        curves.append(PrivacyCurve.approx(0.0, plan.reserve))
    return compose(curves, delta=plan.delta)


def release_delta(mechanism: str, options: ReleaseOptions) -> float:
    """The delta a release of ``mechanism`` with ``options`` states: the options' delta, or 0 for a pure-DP one."""
    spec = get_mechanism(mechanism)
    return float(options.delta) if spec.uses_delta_with(spec.resolve_params(options.params)) else 0.0


def release_with(mechanism: str, X, options: ReleaseOptions, seed=None) -> Release:
    """:func:`release_pca` with its options in one checked object (:class:`dppca_core.pipeline.options.ReleaseOptions`): the
    chain of steps (scale, radius, mean, subspace, eigenvalues, k, score plot), each recorded in a
    :class:`dppca_core.pipeline.ledger.Ledger` that composes their curves once and checks the (epsilon, delta) earned.

    Parameters
    ----------
    mechanism : str
        Registry name (:func:`dppca_core.list_mechanisms`).
    X : array-like of shape (n, d), DataFrame, Table, PreparedData or SufficientStats
        The rows, as for :func:`dppca_core.run`; a :class:`dppca_core.data.schema.Table` carries its public schema into
        the release (:func:`dppca_core.publish` refuses one nobody declared).
    options : ReleaseOptions
        Every public choice of the release, checked when it was built.
    seed : None, int or numpy.random.Generator
        None (the default): fresh randomness, the only kind a release to publish may use; an int or a Generator:
        reproducible, for exploring.

    Returns
    -------
    Release
        As :func:`dppca_core.release_pca` returns it.

    Raises
    ------
    ValueError
        In words: what :func:`dppca_core.run` refuses, or options this mechanism cannot take.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 3
    >>> options = dc.ReleaseOptions(k=2, epsilon=1.0, center="private")
    >>> release = dc.release_with("analyze_gauss", X, options, seed=0)
    >>> release.components.shape, sorted(release.outputs)[:2]
    ((5, 2), ['explained_variance_ratio', 'mean'])
    """
    X, schema = rows_and_schema(X)
    release = _release_steps(mechanism, X, options, seed)
    # a Table's (or streamed statistics') schema travels with the release: publish refuses one nobody declared
    return release if schema is None else dataclasses.replace(release, schema=schema)


def _release_steps(mechanism: str, X, options: ReleaseOptions, seed) -> Release:
    spec = get_mechanism(mechanism)
    plan = plan_release(spec, options)
    if spec.guarantee == "none":
        return exact_release(spec, X, options, plan.budget, random_source(seed).seeded)
    source = random_source(seed)
    rng, ledger = source.rng, Ledger()
    note = degenerate_note(X)  # a non-private diagnostic (None for prepared data or statistics)
    X, divisors = scale_step(X, options, plan, rng, ledger)  # the column scales, divided as each pass reads
    R, sq_norms = radius_step(X, options, plan, rng, ledger, divisors)
    # centred privately, the rows are read again after centring: their Gram matrix is needed here only where the
    # centred rows' one is formed from it (data.centring: narrow and large, for a mechanism that reads the Gram)
    algebraic = options.center == "private" and not spec.needs_rows and algebraic_shape(X)
    data = prepare(
        X,
        R,
        gram_now=None if algebraic or options.center != "private" else False,
        row_sums="mean" in plan.shares,
        sq_norms=sq_norms,
        keep_sq_norms=algebraic,
        column_scales=divisors,
    )  # the mean's exact sums in the pass of the row norms (the norms themselves read by a private radius)
    K = min(data.d, spec.max_k or data.d) if options.auto_k else check_k(options.k, data.d)
    if (plan.budget.mean > 0 or plan.budget.scores > 0) and not data.has_rows:
        raise ValueError(
            "the private mean and the score histogram read the rows; pass the data matrix, or set those "
            "shares to 0 to release from sufficient statistics."
        )
    work = mean_step(data, options, plan, rng, ledger, gram_now=not spec.needs_rows)
    released = subspace_step(spec, work, K, options, plan, source, ledger)
    components, eigenvalues, projections = eigenvalue_step(spec, work, released, options, plan, rng, ledger)
    components, eigenvalues, projections = k_step(components, eigenvalues, projections, K, options, ledger)
    if "scores" in plan.shares:
        ledger.record(score_plot_step(work, components, options, plan, rng, ledger.outputs, projections))
    if plan.reserve:  # the stability steps: within total variation of a mechanism that never releases a lone cell
        ledger.record(Step(curves=[PrivacyCurve.approx(0.0, plan.reserve)]))
    total_delta = plan.delta if plan.kind in ("gdp", "approx") else 0.0
    privacy, guarantee = ledger.close(options.epsilon, total_delta, released.guarantee, released.privacy)
    return assemble_release(
        spec,
        options,
        plan,
        ledger,
        released,
        (data, work),
        (components, eigenvalues),
        (privacy, guarantee, total_delta),
        note,
        source.seeded,
    )

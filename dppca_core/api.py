"""``run``: the single entry point that validates input, prepares data and calls a mechanism."""

from __future__ import annotations

import math
import time

import numpy as np

from .data.prepare import PreparedData, prepare
from .data.schema import rows_and_schema
from .privacy import PrivacyCurve, check_neighbors
from .registry import get_mechanism
from .release import NonPrivateDiagnostics, Release
from .privacy.randomness import random_source
from .validation import check_delta, check_epsilon, check_k


def run(
    mechanism: str,
    X,
    k: int,
    epsilon: float,
    delta: float = 1e-6,
    neighbors: str = "replace",
    data_norm: float = 1.0,
    seed=None,
    **params,
) -> Release:
    """Run a registered mechanism and return its :class:`Release`.

    Parameters
    ----------
    mechanism : str
        Registry name (see :func:`dppca_core.list_mechanisms`).
    X : array-like of shape (n, d), DataFrame, PreparedData or SufficientStats
        Rows are individuals. Rows are clipped to norm ``data_norm`` (a public bound) and
        divided by it before anything else; every sensitivity is stated for that bound.
        A :class:`~dppca_core.data.prepare.PreparedData` (e.g. from ``prepare``) lets repeated
        runs share one Gram matrix. A :class:`~dppca_core.data.stats.SufficientStats` (from
        :func:`dppca_core.sufficient_stats`, a file streamed in bounded memory) serves every
        mechanism that needs only n and the (per-site) Gram matrices; the row methods
        (``needs_rows``) refuse it, naming the alternatives.
    k : int
        Number of components, 1 <= k <= d.
    epsilon : float
        Privacy parameter, > 0.
    delta : float
        In (0, 1); ignored (and reported as 0) by pure-DP mechanisms.
    neighbors : {"replace", "add_remove"}
        Neighbouring relation of the guarantee; replace one row by default.
    data_norm : float
        Public clipping radius R.
    seed : None, int or numpy.random.Generator
        Source of all randomness. None (the default): fresh randomness from the operating system through a
        cryptographic generator (:mod:`dppca_core.privacy.randomness`), the only kind a release to publish may use. An int or
        a Generator: reproducible, for exploring; the release records ``seeded=True`` and
        :func:`dppca_core.publish` refuses it.
    **params
        Mechanism-specific parameters (see the ``parameters`` column of ``list_mechanisms()``).

    Returns
    -------
    Release
        The released components with their guarantee (``privacy``: the exact curve), the public ``parameters`` and
        the non-private ``diagnostics`` (never published). :func:`dppca_core.publish` gives what may be handed out.

    Raises
    ------
    ValueError
        In words, saying what to change: an unknown mechanism, k outside 1..d, epsilon or delta out of range, a
        relation the mechanism's proof does not cover, data that are not a finite numeric table, or a mechanism's own
        parameter out of its range.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 3
    >>> release = dc.run("analyze_gauss", X, k=2, epsilon=1.0, delta=1e-6, seed=0)
    >>> release.components.shape
    (5, 2)
    >>> print(release.privacy.describe())
    0.2367-Gaussian DP (exact for the Gaussian noise added)
    >>> dc.run("analyze_gauss", X, k=9, epsilon=1.0)
    Traceback (most recent call last):
        ...
    ValueError: k = 9 is out of range: choose 1 <= k <= d = 5 (the number of columns).
    """
    return _run(mechanism, X, k, epsilon, delta, neighbors, data_norm, seed, params, part=False)


def run_part(
    mechanism: str, X, k: int, epsilon: float, delta: float, neighbors: str, data_norm: float, seed, **params
) -> Release:
    """:func:`run` for one part of a split budget (the subspace of :func:`dppca_core.release_pca`): the same checks,
    except the floors a total epsilon and delta must meet (:data:`dppca_core.validation.MIN_EPSILON`,
    ``MIN_DELTA``): a share of a valid total may lie below them."""
    return _run(mechanism, X, k, epsilon, delta, neighbors, data_norm, seed, params, part=True)


def _run(mechanism: str, X, k, epsilon, delta, neighbors, data_norm, seed, params: dict, part: bool) -> Release:
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    if neighbors not in spec.relations:
        raise ValueError(
            f"{spec.name} has a guarantee only for neighbors in {list(spec.relations)}, not {neighbors!r}; "
            f"choose neighbors={spec.relations[0]!r}."
        )
    epsilon = check_epsilon(epsilon, minimum=None) if part else check_epsilon(epsilon)
    resolved = spec.resolve_params(params)
    if spec.uses_delta_with(resolved):
        delta = check_delta(delta, minimum=None) if part else check_delta(delta)
    else:
        delta = 0.0
    data, schema = _input_for(spec, X, data_norm)
    k = check_k(k, data.d)
    _check_reads_rows(spec, data)
    if spec.max_k is not None and k > spec.max_k:
        raise ValueError(f"{spec.name} supports k <= {spec.max_k} only (got k = {k}): {spec.caveat or 'lower k.'}")
    source = random_source(seed)
    rng = source.rng

    start = time.perf_counter()
    out = spec.func(data, k, epsilon, delta, neighbors, rng, **resolved)
    seconds = time.perf_counter() - start

    components = _checked_components(spec, out, data.d, k, epsilon, delta)
    guarantee = out.guarantee or spec.guarantee
    released_eps, released_delta = _claim(guarantee, epsilon, delta, out.delta)
    privacy = out.privacy or _default_curve(guarantee, released_eps, released_delta)
    _check_curve_earns_claim(spec.name, privacy, released_eps, released_delta)
    return Release(
        mechanism=spec.name,
        components=components,
        epsilon=released_eps,
        delta=released_delta,
        neighbors=neighbors,
        guarantee=guarantee,
        privacy=privacy,
        noise_scale=out.noise_scale,
        eigenvalues=None if out.eigenvalues is None else np.asarray(out.eigenvalues, dtype=float),
        outputs=dict(out.outputs),
        parameters=_public_parameters(spec, resolved, data, k, neighbors, out.facts),
        facts=dict(out.facts),
        caveat=out.caveat,
        diagnostics=_diagnostics(data, seconds, out.diagnostics),
        seeded=source.seeded,
        schema=schema,
        state=out.state,
    )


def _input_for(spec, X, data_norm) -> tuple:
    """(what ``spec``'s mechanism reads from ``X`` at radius ``data_norm``, the rows' schema): its own input, ``X``
    itself when already prepared at that radius, or the prepared rows (with the pooled Gram matrix only for a
    mechanism that asks for it)."""
    X, schema = rows_and_schema(X)
    if spec.prepare_input is not None:
        data = spec.prepare_input(X, data_norm)
    elif type(X) is PreparedData and X.data_norm == data_norm:  # prepared at this radius (repetitions, audits)
        data = X
    else:  # mechanisms that read rows or per-site Gram matrices get the pooled Gram only if they ask for it
        data = prepare(X, data_norm, gram_now=False if spec.needs_rows or spec.model == "distributed" else None)
    return data, schema


def _check_reads_rows(spec, data) -> None:
    """A mechanism that reads the individual rows, given only sufficient statistics, is refused in words, with the
    mechanisms of its task that need only the statistics."""
    if spec.needs_rows and not getattr(data, "has_rows", True):
        from .registry import mechanism_names, get_mechanism as _spec

        alternatives = [m for m in mechanism_names(spec.task) if not _spec(m).needs_rows]
        raise ValueError(
            f"{spec.name} reads the individual rows, but only sufficient statistics (n and the Gram "
            f"matrix) were given; pass the data matrix, or use a mechanism that needs only the "
            f"statistics: {', '.join(alternatives)}."
        )


def _checked_components(spec, out, d: int, k: int, epsilon: float, delta: float) -> np.ndarray:
    """The components of a mechanism's output ``out`` as a float array of shape (d, k), refused when the shape is
    not that or (the noise scale overflowing) they are not finite."""
    components = np.asarray(out.components, dtype=float)
    if components.shape != (d, k):
        raise RuntimeError(f"{spec.name} returned components of shape {components.shape}, expected {(d, k)}")
    if not np.all(np.isfinite(components)):
        raise ValueError(
            f"{spec.name} produced non-finite components at epsilon = {epsilon:g}, delta = {delta:g} "
            "(the noise scale overflows); use a larger epsilon or delta."
        )
    return components


def _claim(guarantee: str, epsilon: float, delta: float, spent_delta: float | None) -> tuple[float, float]:
    """The (epsilon, delta) a run of this guarantee type states."""
    if guarantee == "none":
        return math.inf, 0.0
    if guarantee in ("pure", "retracted"):
        return epsilon, 0.0 if spent_delta is None else spent_delta
    return epsilon, delta if spent_delta is None else spent_delta


def _default_curve(guarantee: str, epsilon: float, delta: float) -> PrivacyCurve:
    if guarantee in ("none", "retracted"):
        return PrivacyCurve.none()
    if guarantee == "pure":
        return PrivacyCurve.pure(epsilon)
    return PrivacyCurve.approx(epsilon, delta)


def _check_curve_earns_claim(name: str, curve: PrivacyCurve, epsilon: float, delta: float) -> None:
    """Refuse to label a release with an (epsilon, delta) that its exact privacy curve does not give."""
    if curve.kind == "gdp":
        earned = curve.delta_at(epsilon)
        if earned > delta * (1 + 1e-6) + 1e-300:
            raise RuntimeError(
                f"{name}: the noise gives delta = {earned:.3g} at epsilon = {epsilon:g}, above the "
                f"claimed {delta:g}; the calibration is wrong."
            )
    elif curve.kind in ("pure", "approx"):
        if curve.epsilon > epsilon * (1 + 1e-9) or curve.delta > delta * (1 + 1e-9):
            raise RuntimeError(
                f"{name}: privacy curve {curve.describe()} does not give the claimed " f"({epsilon:g}, {delta:g})."
            )


def _public_parameters(spec, resolved: dict, data, k: int, neighbors: str, facts: dict) -> dict:
    """Parameters a release may state: k, d, the clipping radius, n only where it is public (replace-one),
    the mechanism's parameters with sites as sizes (per-row site labels are data and are never published)."""
    out = {"k": k, "d": data.d, "data_norm": data.data_norm}
    if neighbors == "replace":
        out["n"] = data.n
    for p in spec.params:
        value = resolved.get(p.name)
        if p.kind == "sites" and not isinstance(value, (int, type(None))):
            value = facts.get("site_sizes", "given per row")
        out[p.name] = value
    return out


def _diagnostics(data, seconds: float, extra: dict) -> NonPrivateDiagnostics:
    """Everything computed from the raw data without noise: clipping counts, timings, mechanism traces."""
    warnings = list(extra.get("warnings", []))
    if data.n_clipped:
        warnings.insert(
            0,
            f"{data.n_clipped} of {data.n} rows had norm above data_norm = {data.data_norm:g} "
            "and were clipped (a non-private count).",
        )
    return NonPrivateDiagnostics(
        {
            "seconds": seconds,
            "rows_clipped": data.n_clipped,
            **{k: v for k, v in extra.items() if k != "warnings"},
            "warnings": warnings,
        }
    )

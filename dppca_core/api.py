"""``run``: the single entry point that validates input, prepares data and calls a mechanism."""
from __future__ import annotations

import math
import time

import numpy as np

from .prepare import prepare
from .privacy import check_neighbors
from .registry import get_mechanism
from .release import Release
from .validation import as_generator, check_delta, check_epsilon, check_k


def run(mechanism: str, X, k: int, epsilon: float, delta: float = 1e-6, neighbors: str = "replace",
        data_norm: float = 1.0, seed=None, **params) -> Release:
    """Run a registered mechanism and return its :class:`Release`.

    Parameters
    ----------
    mechanism : str
        Registry name (see :func:`dppca_core.list_mechanisms`).
    X : array-like of shape (n, d), DataFrame, or PreparedData
        Rows are individuals. Rows are clipped to norm ``data_norm`` (a public bound) and
        divided by it before anything else; every sensitivity is stated for that bound.
        A :class:`~dppca_core.prepare.PreparedData` (e.g. from ``prepare``) lets repeated
        runs share one Gram matrix.
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
        Source of all randomness.
    **params
        Mechanism-specific parameters (see the ``parameters`` column of ``list_mechanisms()``).
    """
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    if neighbors not in spec.relations:
        raise ValueError(
            f"{spec.name} has a guarantee only for neighbors in {list(spec.relations)}, not {neighbors!r}; "
            f"choose neighbors={spec.relations[0]!r}."
        )
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta) if spec.uses_delta else 0.0
    data = prepare(X, data_norm)
    k = check_k(k, data.d)
    if spec.max_k is not None and k > spec.max_k:
        raise ValueError(f"{spec.name} supports k <= {spec.max_k} only (got k = {k}): {spec.caveat or 'lower k.'}")
    resolved = spec.resolve_params(params)
    rng = as_generator(seed)

    start = time.perf_counter()
    out = spec.func(data, k, epsilon, delta, neighbors, rng, **resolved)
    seconds = time.perf_counter() - start

    components = np.asarray(out.components, dtype=float)
    if components.shape != (data.d, k):
        raise RuntimeError(f"{spec.name} returned components of shape {components.shape}, expected {(data.d, k)}")
    if not np.all(np.isfinite(components)):
        raise ValueError(f"{spec.name} produced non-finite components at epsilon = {epsilon:g}, delta = {delta:g} "
                         "(the noise scale overflows); use a larger epsilon or delta.")
    guarantee = out.guarantee or spec.guarantee
    diagnostics = {"seconds": seconds, "warnings": [], "params": resolved, "n": data.n, "d": data.d,
                   "rows_clipped": data.n_clipped, **out.diagnostics}
    if data.n_clipped:
        diagnostics["warnings"].append(
            f"{data.n_clipped} of {data.n} rows had norm above data_norm = {data_norm:g} and were clipped."
        )
    if guarantee == "none":
        released_eps, released_delta = math.inf, 0.0
    elif guarantee in ("pure", "retracted"):
        released_eps, released_delta = epsilon, 0.0 if out.delta is None else out.delta
    else:
        released_eps, released_delta = epsilon, delta if out.delta is None else out.delta
    return Release(
        components=components,
        epsilon=released_eps,
        delta=released_delta,
        neighbors=neighbors,
        guarantee=guarantee,
        noise_scale=out.noise_scale,
        mechanism=spec.name,
        eigenvalues=out.eigenvalues,
        diagnostics=diagnostics,
    )

"""Two private parts of a release computed from the rows: the mean (a noisy exact sum of the clipped rows) and the
variances along the released components (the noisy diagonal or upper triangle of V^T C V with the trace), each
released as exact noise on a grid. See :mod:`dppca_core.pipeline.budget` for the whole release.
"""

from __future__ import annotations

import math

import numpy as np

from ..linalg import fix_signs, top_eigenvectors
from ..privacy.exact import FixedSums
from ..data.prepare import PreparedData
from ..privacy import UNIT_ROUNDOFF, sensitivity, summation_error
from ..privacy.shares import Share, release_counts, release_vector


#: a bound on each coordinate's rounding error in a row scaled to norm <= 1 (s_i x_i computed in float64)
_ROW_ERROR = 2.0 * UNIT_ROUNDOFF


def _exact_row_sums(rows) -> FixedSums:
    """The exact column sums of rows of norm <= 1: an array, or a :class:`PreparedData` whose rows are summed in one
    pass from its raw rows and factors without forming them (the same products, so the same sums), or whose
    :attr:`~dppca_core.data.prepare.PreparedData.row_sums` :func:`~dppca_core.data.prepare.prepare` formed."""
    if not isinstance(rows, PreparedData):
        return FixedSums(rows)
    if rows.row_sums is not None:  # formed by prepare() in its pass over the rows
        return FixedSums.of_totals(rows.row_sums)
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
        noisy, noise = release_vector(
            total,
            share,
            rng,
            l2=sensitivity("row_sum", "replace"),
            l1=2.0 * math.sqrt(d),
            computation_error=err,
            name="sum of the rows",
        )
        count, count_noise = float(n), None
    else:
        half = share.halves()
        noisy, noise = release_vector(
            total,
            half,
            rng,
            l2=sensitivity("row_sum", "add_remove"),
            l1=math.sqrt(d),
            computation_error=err,
            name="sum of the rows",
        )
        noisy_count, count_noise = release_counts(np.array([n]), half, neighbors, rng, name="row count")
        count = max(float(noisy_count[0]), 1.0)
    mean = noisy / count
    norm = float(np.linalg.norm(mean))
    if norm > 1.0:  # the mean of rows in the unit ball lies in it: projecting is post-processing that only helps
        mean = mean / norm
    return {
        "mean": mean,
        "sum": noisy,
        "count": count,
        "noise": noise,
        "count_noise": count_noise,
        "noise_scale": noise.noise_scale,
        "count_noise_scale": None if count_noise is None else count_noise.noise_scale,
    }


def _upper(M: np.ndarray) -> np.ndarray:
    return M[np.triu_indices(M.shape[0])]


def _symmetric(values: np.ndarray, k: int) -> np.ndarray:
    M = np.zeros((k, k))
    M[np.triu_indices(k)] = values
    return M + np.triu(M, 1).T


#: Under replace-one the variances are read off a Gram matrix already formed when its rounding bound is at most this
#: share of the statistic's sensitivity (sqrt(2)): the noise then grows by less than 0.1% (the bound is added to the
#: sensitivity), for d^2 k work instead of a pass of n d k over the rows.
GRAM_ROUTE_ERROR_SHARE = 1e-3


def _gram_terms_error(n: int, d: int, gram_error: float) -> float:
    """A bound on each entry of [V^T C V, tr C] computed from C in float64: d * gram_error + 3 gamma_d n d (Higham,
    eq. 3.5). It depends on n and d (and the Gram matrix's own bound, a function of n and d): n must be public."""
    return d * float(gram_error) + 3.0 * summation_error(d, max(n, 1) * d)


def reads_the_gram(data: PreparedData, neighbors: str) -> bool:
    """Whether the variances are computed from the Gram matrix rather than by a pass over the rows: always without
    rows (streamed statistics); with rows, under replace-one (n public) when the Gram matrix is already formed and its
    rounding bound is small (:data:`GRAM_ROUTE_ERROR_SHARE`). A function of public facts (n under replace-one, d,
    the mechanism, the relation), so the route, and the noise scale it implies, give nothing away."""
    if not data.has_rows:
        return True
    if neighbors != "replace" or not data.gram_formed:
        return False
    bound = _gram_terms_error(data.n, data.d, data.gram_error)
    return bound <= GRAM_ROUTE_ERROR_SHARE * sensitivity("variances_diag_trace", "replace")


def _variance_terms(
    data: PreparedData, V: np.ndarray, rotate: bool, keep: bool = False, neighbors: str = "add_remove"
) -> tuple:
    """The statistic [diag or upper triangle of V^T C V, tr C], a bound on its computation error, and with ``keep``
    the rows' projections on V (fixed order, :func:`dppca_core.pipeline.scores.project`) the pass computed, else None.

    From rows: each row's terms (products of its projections, its squared norm) summed exactly; each term errs by at
    most 4 gamma_d (a projection y_j = v_j^T x errs by gamma_d since |v_j^T x| <= 1, so a product by 3 gamma_d), a
    bound that does not depend on the data. From the Gram matrix (streamed statistics, or rows under replace-one
    where :func:`reads_the_gram`): V^T C V in float64, each entry within :func:`_gram_terms_error`; this grows with
    n, so it is allowed only where n is public (replace-one).
    """
    d, k = V.shape
    if not reads_the_gram(data, neighbors):
        first, second = np.triu_indices(k) if rotate else (np.arange(k), np.arange(k))
        # one pass: each row's projections and squared norm (fixed order: each depends on the row alone) and their
        # products summed exactly, without the n x k array
        projections = np.empty((data.n, k)) if keep else None
        sums = data.projected_products(V, first, second, projections)
        return sums, 4.0 * summation_error(d, 1.0) + _ROW_ERROR + FixedSums.TRUNCATION, projections
    C = data.gram
    M = V.T @ (C @ V)
    M = (M + M.T) / 2.0
    values = np.append(_upper(M) if rotate else np.diag(M), np.trace(C))
    return values, _gram_terms_error(data.n, d, data.gram_error), None


def private_variances(
    data: PreparedData,
    components: np.ndarray,
    share: Share,
    neighbors: str,
    rng,
    *,
    rotate: bool = False,
    keep_projections: bool = False,
) -> dict:
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
        ``projections``: with ``keep_projections`` (and the pass over the rows, not the Gram route of
        :func:`reads_the_gram`, and no rotation) the rows' projections on the ordered components, the bits
        :func:`dppca_core.pipeline.scores.project` gives (the score plot reuses them), else None.

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
        raise ValueError(
            "from sufficient statistics alone the variances' rounding error grows with n, which is "
            "private under add/remove: pass the rows, use neighbors='replace', or give the eigenvalues "
            "no share."
        )
    values, err, projections = _variance_terms(data, V, rotate, keep_projections and not rotate, neighbors)
    kind = "upper" if rotate else "diag"
    noisy, noise = release_vector(
        values,
        share,
        rng,
        l2=sensitivity(f"variances_{kind}_trace", neighbors),
        l1=sensitivity(f"variances_{kind}_trace_l1", neighbors, block_size=k),
        computation_error=err,
        name="variances along the components",
    )
    total = float(noisy[-1])
    if rotate:
        variances, U = top_eigenvectors(_symmetric(noisy[:-1], k), k)
        ordered = fix_signs(V @ U)
    else:
        order = np.argsort(-noisy[:-1], kind="stable")
        variances, ordered = noisy[:-1][order], V[:, order]
    return {
        "components": ordered,
        "variances": np.asarray(variances, dtype=float),
        "total_variance": total,
        "projections": None if projections is None else projections[:, order],
        "released": noisy,
        "noise": noise,
        "kind": kind,
    }

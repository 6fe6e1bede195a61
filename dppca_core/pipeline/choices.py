"""The choices every analyst makes before PCA, made privately: the clipping radius, column scales and k.

A release is only as private as its least private step. Reading the clipping radius R off the row norms, scaling
each column by its own spread, or picking k from the exact spectrum all look at the raw data without noise. Here
each is made from its own share of the budget (:class:`dppca_core.pipeline.budget.BudgetSplit`) or as post-processing of a
private output:

* :func:`private_radius` — R as a private quantile of the row norms: a noisy binary search over a public
  log-spaced grid of candidates between public bounds, each step a noisy count of the rows above a candidate (one
  row moves each count by at most one, so one extreme row never moves R by more than the noise allows).
* :func:`private_column_scales` — per-column root-mean-square scales from noisy sums of squares, with public
  bounds on the columns (a value beyond its column's bound counts as the bound).
* :func:`choose_k` — the smallest k whose private explained-variance ratios reach a public target: post-processing
  of the variances the release already holds.
"""

from __future__ import annotations

import numpy as np

from ..privacy.exact import FixedSums
from ..data.gram import norms_from_squares, row_norms
from ..privacy import UNIT_ROUNDOFF, sensitivity
from ..privacy.shares import Share, release_counts, release_vector
from ..validation import check_float_range, check_int_range, check_matrix

#: public grid of the radius step: log-spaced cells between the bounds
RADIUS_BINS = 128
#: default public bounds on the clipping radius when the caller gives none (units of the data: pass tighter
#: bounds when you know them; every decade costs about 18 cells of the grid)
DEFAULT_RADIUS_BOUNDS = (1e-3, 1e4)
#: default target quantile of the row norms: about 10% of the rows are clipped
DEFAULT_RADIUS_QUANTILE = 0.9
#: a private column scale never falls below this share of its public bound (noise can drive a sum of squares to 0)
SCALE_FLOOR = 1e-3


def check_bounds(bounds, name: str) -> tuple[float, float]:
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be two numbers (low, high), e.g. (1e-3, 1e4); got {bounds!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise ValueError(f"{name} must satisfy 0 < low < high, both finite (got {bounds!r}).")
    return lo, hi


def radius_edges(bounds=DEFAULT_RADIUS_BOUNDS, bins: int = RADIUS_BINS) -> np.ndarray:
    """The public grid of candidate radii: ``bins + 1`` log-spaced edges from low to high."""
    lo, hi = check_bounds(bounds, "radius_bounds")
    bins = check_int_range(bins, "radius bins", 4, 4096)
    return np.geomspace(lo, hi, bins + 1)


def private_radius(
    X,
    share: Share,
    neighbors: str,
    rng: np.random.Generator,
    *,
    bounds=DEFAULT_RADIUS_BOUNDS,
    quantile: float = DEFAULT_RADIUS_QUANTILE,
    bins: int = RADIUS_BINS,
    sq_norms: np.ndarray | None = None,
    divisors: np.ndarray | None = None,
) -> dict:
    """A clipping radius R chosen privately: a noisy binary search for a quantile of the row norms.

    Parameters
    ----------
    X : ndarray (n, d)
        Raw rows (after any public transformation), finite.
    share : Share
        The radius step's share of the budget.
    neighbors : {"replace", "add_remove"}
    bounds : (float, float)
        Public bounds on the radius: the candidates are a log-spaced grid between them.
    quantile : float in (0, 1)
        Public target: R is (about) this quantile of the row norms, so about a (1 - quantile) share of the rows is
        clipped.
    bins : int
        Cells of the public log-spaced grid (its ``bins + 1`` edges are the candidates).
    sq_norms : ndarray (n,), optional
        The rows' squared norms, already computed (the release computes them once for this step and the clipping
        after it); each count reads each row's norm alone, so any per-row computation keeps its sensitivity.
    divisors : ndarray (d,), optional
        Column scales the rows are divided by (``sq_norms`` are then the divided rows'; the rare rows whose sum of
        squares is not a normal float are divided and measured again safely).

    Returns
    -------
    dict
        ``radius`` (published), ``counts`` (the noisy counts the search read, published, integers), ``thresholds``
        (the candidate each count was taken at), ``edges`` (public), ``noise`` (the calibration of one count),
        ``quantile``.

    Notes
    -----
    The search keeps an interval [lo, hi] of candidate indices and, at most L = ceil(log2(bins + 1)) times (the
    longest path; a shorter one spends less), asks how many rows have norm >= the middle candidate; more than
    (1 - quantile) n: the radius lies above, else at or below. Each
    count moves by at most 1 when one row is replaced, added or removed, so the L adaptively chosen counts are L
    Gaussian steps of sensitivity 1, each with mu / sqrt(L): exactly mu-GDP together (Dong, Roth & Su 2022,
    Cor. 3.3). Under add/remove n is private: a noisy count of the rows comes first (L + 1 steps). Rows far beyond
    the grid count like rows at its top, so one extreme row moves each count by at most one. Compared with a noisy
    histogram of all cells, whose cumulative noise grows with the number of empty cells above the data, the search
    reads L counts only (the noise on each is sqrt(L) / mu, whatever the grid).
    """
    quantile = check_float_range(quantile, "radius_quantile", 0.0, 1.0, low_open=True, high_open=True)
    edges = radius_edges(bounds, bins)
    if sq_norms is None:
        norms = row_norms(X if divisors is None else np.asarray(X, dtype=float) / divisors)
    else:
        norms = norms_from_squares(np.asarray(X, dtype=float), sq_norms, divisors)
    unordered = int(np.count_nonzero(np.isnan(norms)))  # counted above every candidate, as a sort places them last
    steps = int(np.ceil(np.log2(edges.size))) + (1 if neighbors == "add_remove" else 0)
    step_share = share.split(steps)
    counts, thresholds = [], []
    noise = None
    if neighbors == "add_remove":
        noisy_n, noise = release_vector(
            np.array([norms.size]), step_share, rng, l2=1.0, l1=1.0, integer=True, name="row count"
        )
        counts.append(int(noisy_n[0]))
        thresholds.append(0.0)
        n_est = max(float(noisy_n[0]), 1.0)
    else:
        n_est = float(norms.size)
    lo, noise = _noisy_search(
        norms, unordered, edges, (1.0 - quantile) * n_est, step_share, rng, counts, thresholds, noise
    )
    return {
        "radius": float(edges[lo]),
        "counts": np.array(counts, dtype=np.int64),
        "thresholds": thresholds,
        "edges": edges,
        "noise": noise,
        "quantile": quantile,
    }


def _noisy_search(
    norms,
    unordered: int,
    edges,
    allowed: float,
    step_share: Share,
    rng: np.random.Generator,
    counts: list,
    thresholds: list,
    noise,
):
    """(the index of the candidate radius chosen, the calibration of one count): :func:`private_radius`'s binary
    search over ``edges``, each noisy count of the rows with norm >= the middle candidate appended to ``counts``
    (its candidate to ``thresholds``); above ``allowed`` the radius lies above, else at or below."""
    lo, hi = 0, edges.size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        above = int(np.count_nonzero(norms >= edges[mid])) + unordered  # rows with norm >= the candidate (no sort)
        noisy, noise = release_vector(
            np.array([above]), step_share, rng, l2=1.0, l1=1.0, integer=True, name="count above a candidate radius"
        )
        counts.append(int(noisy[0]))
        thresholds.append(float(edges[mid]))
        if noisy[0] > allowed:
            lo = mid + 1
        else:
            hi = mid
    return lo, noise


def clipped_squares(X, bounds) -> np.ndarray:
    """(x_ij / b_j)^2 with values beyond the public bound b_j counted as b_j: each in [0, 1]."""
    return np.minimum(np.abs(np.asarray(X, dtype=float)) / np.asarray(bounds, dtype=float), 1.0) ** 2


def rms_scales(mean_squares, bounds) -> np.ndarray:
    """Column scales b_j sqrt(m_j) from mean clipped squares m_j (private or exact), floored at SCALE_FLOOR b_j."""
    return np.asarray(bounds, dtype=float) * np.sqrt(np.clip(mean_squares, SCALE_FLOOR**2, 1.0))


def private_column_scales(X, bounds, share: Share, neighbors: str, rng: np.random.Generator) -> dict:
    """Per-column root-mean-square scales, private: b_j sqrt(noisy sum_i min(x_ij^2, b_j^2) / b_j^2 / n).

    Parameters
    ----------
    X : ndarray (n, d)
    bounds : array-like (d,)
        Public bounds b_j > 0 on |x_ij| (values beyond are counted as b_j).
    share : Share
        The scale step's share (halved between the sums and a noisy count under add/remove, where n is private).

    Returns
    -------
    dict
        ``scales`` (published: divide column j by it), ``noise``, ``count`` (add/remove: the noisy row count the sums
        were divided by, published too; None under replace-one, where n is public).

    Notes
    -----
    Each row adds (x_ij / b_j)^2 in [0, 1] to coordinate j, so one row moves the vector of sums by at most sqrt(d)
    in L2 (d in L1) under either relation. The root-mean-square is about 0, not the mean: it equalises the columns'
    magnitudes, which is what keeps one column in large units from taking the whole first component.
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    b = np.asarray(bounds, dtype=float).reshape(-1)
    if b.shape != (d,) or not np.all(np.isfinite(b)) or np.any(b <= 0):
        raise ValueError(
            f"column_bounds must hold one finite bound > 0 per column ({d} of them); got shape " f"{b.shape}."
        )
    try:
        sums = FixedSums.of_clipped_squares(X, b)  # one pass: FixedSums(clipped_squares(X, b)) without the n x d array
    except ValueError:  # a NaN has no clipped square: say where it is
        check_matrix(X)
        raise
    err = 3.0 * UNIT_ROUNDOFF + FixedSums.TRUNCATION  # a division, a minimum and a square per term
    part = share.halves() if neighbors == "add_remove" else share
    noisy, noise = release_vector(
        sums,
        part,
        rng,
        l2=sensitivity("column_squares", neighbors, block_size=d),
        l1=sensitivity("column_squares_l1", neighbors, block_size=d),
        computation_error=err,
        name="column sums of squares",
    )
    count = None
    if neighbors == "add_remove":
        noisy_count, _ = release_counts(np.array([n]), part, neighbors, rng, name="row count")
        count = int(noisy_count[0])
        n_est = max(float(count), 1.0)
    else:
        n_est = float(n)
    scales = rms_scales(noisy / n_est, b)
    return {"scales": scales, "noise": noise, "count": count}


def choose_k(ratios, target: float) -> int:
    """The smallest k whose explained-variance ratios (in decreasing order) sum to more than ``target`` (scikit-learn's
    rule for a float ``n_components``); all of them when they never do."""
    target = check_float_range(target, "variance_target", 0.0, 1.0, low_open=True, high_open=True)
    ratios = np.asarray(ratios, dtype=float)
    return int(min(np.searchsorted(np.cumsum(ratios), target, side="right") + 1, ratios.size))

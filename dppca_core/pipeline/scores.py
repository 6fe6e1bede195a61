"""Private score plots: how the rows fall on the first two released components, by group, on a frame that fits.

The score plot is a 2-D histogram of the projections of the (clipped, centred) rows on the first two released
components V (public once released). Three choices shape it:

* **groups** — a label per row (the cultivar of a wine, the class of a sample). The table of (group x cell) counts
  is still one histogram: one row lies in one group and one cell, and replacing it moves at most two counts by one
  (L2 sqrt(2), L1 2; add/remove: one count, 1). Grouping costs no budget. The set of groups is public: declared by
  the caller, or released first by a stability-based histogram of the labels (:func:`private_group_labels`, its
  own share).
* **frame** — ``"public"``: [-1, 1]^2, where every projection of a row of norm <= 1 lies; ``"private"``: a frame
  from private quantiles of the projections (:func:`private_frame`, its own share), widened by a margin, so the
  bins cover where the data are. A projection outside the frame counts in the nearest edge cell (one row, one cell:
  the sensitivity is unchanged).
* **kind** — ``"additive"``: integer noise on every cell; ``"sparse"``: noise only on occupied cells, and a noisy
  count below a threshold released as 0 (stability-based, Karwa & Vadhan 2017): empty cells stay exactly 0, which
  on a fine grid removes most of the noise, at the cost of a small delta (a cell occupied in only one of two
  neighbouring datasets holds one row there and passes the threshold with a probability the threshold bounds).

Display steps (negatives to 0, normalising to frequencies, a per-group share) are post-processing.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from ..privacy import GridNoise, gaussian_epsilon, grid_noise, sensitivity

from ..compiled.cells import flat_cells
from ..compiled.kernels import fixed_order_project
from ..privacy.shares import Share, release_counts, release_vector
from ..validation import check_int_range

FRAMES = ("public", "private")
KINDS = ("additive", "sparse")
#: quantiles of the projections the private frame spans (per axis), widened by FRAME_MARGIN of its width each side
FRAME_QUANTILES = (0.02, 0.98)
FRAME_MARGIN = 0.1
#: the frame's searches aim at quantile counts at least this many noise standard deviations away from 0 and n ...
FRAME_TARGET_SDS = 3.0
#: ... moving their targets inwards as far as the quartiles (see :func:`frame_quantile`)
FRAME_CENTRAL = 0.25
#: candidates of the frame's binary searches: a public grid on [-1, 1]
FRAME_CANDIDATES = 128
#: cells per axis: clip(round(BINS_FACTOR * (n mu)^(1/3)), BINS_MIN, BINS_MAX) (see :func:`default_bins`)
BINS_FACTOR, BINS_MIN, BINS_MAX = 1.0, 6, 40


def default_bins(n: float, mu: float) -> int:
    """Cells per axis from a row count n and the scores share's mu.

    A density histogram's error splits into a bias that falls like 1/m (the cell width) and, per cell, noise of
    s.d. sqrt(2)/mu against n/m^2 rows: the sum is smallest near m ~ (n mu)^(1/3) (in one dimension the classical
    rate is n^(1/3); private noise replaces the sampling variance). Measured on a three-group mixture and on the
    wine sample (benchmarks/score_plots.py), this rule sits at or near the best fixed m. ``n`` must be public or
    released (see :func:`score_bins`).
    """
    return int(np.clip(round(BINS_FACTOR * (max(float(n), 1.0) * max(mu, 1e-12)) ** (1.0 / 3.0)), BINS_MIN, BINS_MAX))


def score_bins(neighbors: str, n_rows: int, mu: float, released_n: float | None = None) -> int:
    """The default cells per axis, from nothing one row could move outside the budget.

    Replace one row: n is public, :func:`default_bins` (n, mu). Add/remove: n is private, so the exact row count
    never sets the cells (one row more would change their number, and the shape of what is published); a noisy
    count the same release has already published (``released_n``: the private mean's, the radius search's, the
    column scales', the private frame's) sets them instead, and without one the cells are :data:`BINS_MIN` per
    axis (pass a number of cells to choose).
    """
    if neighbors == "replace":
        return default_bins(n_rows, mu)
    return BINS_MIN if released_n is None else default_bins(released_n, mu)


def project(rows: np.ndarray, components: np.ndarray) -> np.ndarray:
    """rows @ components, each row's projection summed in a fixed order that depends on that row alone (a BLAS
    product may round a row differently depending on its place in the blocks, which would let one row move other
    rows' cells)."""
    return fixed_order_project(rows, components)  # compiled, the same bits as the column loop


def _quantile_search(
    values: np.ndarray, q: float, candidates: np.ndarray, share: Share, rng, n_est: float
) -> tuple[float, list]:
    """The candidate below which about a q share of ``values`` lies: a noisy binary search (counts of sensitivity 1)."""
    values = np.sort(values)
    target = q * n_est
    lo, hi = 0, candidates.size - 1
    counts = []
    while lo < hi:
        mid = (lo + hi) // 2
        below = int(np.searchsorted(values, candidates[mid], side="right"))
        noisy, _ = release_vector(np.array([below]), share, rng, l2=1.0, l1=1.0, integer=True, name="frame count")
        counts.append(int(noisy[0]))
        if noisy[0] < target:
            lo = mid + 1
        else:
            hi = mid
    return float(candidates[lo]), counts


def frame_steps(dims: int) -> int:
    """How many noisy counts the private frame reads at most: two binary searches per axis."""
    return 2 * dims * int(math.ceil(math.log2(FRAME_CANDIDATES)))


def frame_quantile(n_est: float, noise_sd: float) -> float:
    """The lower quantile q the frame's searches aim at (the upper one is 1 - q).

    FRAME_QUANTILES[0] (2%) when q n rows stand well above the noise of a count; on a small table or a small share
    (2% of 178 rows is 3.6 rows, against a noise s.d. of 8 per count at epsilon = 10 and a 5% frame share) a search
    for it goes astray at every step where the noise exceeds the target, and the frame drifts to the edge of
    [-1, 1]. So the target moves inwards until it keeps FRAME_TARGET_SDS noise s.d. of rows on its side, at most to
    the quartiles; :func:`widen` then stretches the frame back to where a 2%-98% frame would be. ``n_est`` is public
    (replace-one) or a released noisy count, so q is public too.
    """
    return float(np.clip(FRAME_TARGET_SDS * noise_sd / max(n_est, 1.0), FRAME_QUANTILES[0], FRAME_CENTRAL))


def widen(lo, hi, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The frame from the q and 1 - q quantiles (per axis): stretched about their midpoint to where the 2% and 98%
    quantiles of a normal cloud with those quantiles lie (by Phi^-1(0.98) / Phi^-1(1 - q); 1 when q = 2%), then
    widened by FRAME_MARGIN of its width on each side, and kept inside [-1, 1]."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    stretch = float(ndtri(FRAME_QUANTILES[1]) / ndtri(1.0 - q))
    centre = (lo + hi) / 2.0
    half = np.maximum((hi - lo) / 2.0 * stretch, 1.0 / FRAME_CANDIDATES) * (1.0 + 2.0 * FRAME_MARGIN)
    return np.maximum(centre - half, -1.0), np.minimum(centre + half, 1.0)


def exact_frame(scores: np.ndarray) -> dict:
    """The frame a private one aims at, from the exact FRAME_QUANTILES of the projections (per axis), widened as
    :func:`widen` does. **Not private**: for the exact reference panels and the benchmarks."""
    lo, hi = np.quantile(np.asarray(scores, dtype=float), FRAME_QUANTILES, axis=0)
    low, high = widen(lo, hi, FRAME_QUANTILES[0])
    return {"low": low, "high": high}


def private_frame(scores: np.ndarray, share: Share, neighbors: str, rng, n: int | None = None) -> dict:
    """A plotting frame from private quantiles of the projections (per axis: FRAME_QUANTILES, or more central ones
    when the noise is large against n, :func:`frame_quantile`), widened by :func:`widen` and kept inside [-1, 1].

    Each of the 2 x dims binary searches reads at most log2(FRAME_CANDIDATES) counts "how many projections lie at or
    below a candidate", each of sensitivity 1 under either relation; all of them together split the share (mu /
    sqrt(steps) each: exactly the share's mu-GDP). Under add/remove n is private: the target counts use ``n`` when
    given (a private count released elsewhere), else the frame spends one more count on n and returns it
    (``count``). ``quantile`` is the q aimed at (public, or post-processing of the noisy count).
    """
    dims = scores.shape[1]
    own_count = neighbors == "add_remove" and n is None
    steps = frame_steps(dims) + int(own_count)
    part = share.split(steps)
    released_n = None
    if own_count:
        noisy_n, _ = release_vector(
            np.array([scores.shape[0]]), part, rng, l2=1.0, l1=1.0, integer=True, name="row count"
        )
        released_n = int(noisy_n[0])
        n = max(float(released_n), 1.0)
    n_est = float(scores.shape[0] if n is None else n)
    noise = count_noise(part)  # each of the frame's counts: sensitivity 1 under either relation
    q = frame_quantile(n_est, noise.noise_scale * (math.sqrt(2.0) if noise.laplace else 1.0))
    candidates = np.linspace(-1.0, 1.0, FRAME_CANDIDATES)
    lo, hi, counts = np.empty(dims), np.empty(dims), []
    for axis in range(dims):
        lo[axis], c_lo = _quantile_search(scores[:, axis], q, candidates, part, rng, n_est)
        hi[axis], c_hi = _quantile_search(scores[:, axis], 1.0 - q, candidates, part, rng, n_est)
        counts += c_lo + c_hi
    lo, hi = widen(lo, hi, q)
    out = {"low": lo, "high": hi, "counts": np.array(counts, dtype=np.int64), "quantile": q}
    if released_n is not None:
        out["count"] = released_n  # the noisy row count the targets used (published: it may set the cells too)
    return out


def count_noise(share: Share, neighbors: str | None = None) -> GridNoise:
    """The calibration of the integer noise added to each count from ``share``: of a histogram's counts
    (:func:`dppca_core.privacy.shares.release_counts`) under ``neighbors``, or, with ``neighbors=None``, of a lone count of
    sensitivity 1 (``release_vector(..., l2=1, l1=1, integer=True)``). It depends on neither the counts nor how many
    there are."""
    l2 = 1.0 if neighbors is None else sensitivity("histogram_l2", neighbors)
    l1 = 1.0 if neighbors is None else sensitivity("histogram_l1", neighbors)
    if share.mu is not None:
        return grid_noise(1, l2=l2, mu=share.mu, integer=True)
    return grid_noise(1, l1=l1, epsilon=share.epsilon, integer=True)


def count_tail(m: int, noise: GridNoise) -> float:
    """P(N >= m), m >= 1, for the integer noise N that :func:`dppca_core.privacy.shares.release_counts` adds with calibration
    ``noise``: N = round(s G) with G ~ N(0, 1) (Gaussian shares) or N = round(b L) with L ~ Laplace(0, 1) (pure
    shares), rounded to the nearest integer (:func:`dppca_core.privacy.exact.rounded_normal`, ``rounded_laplace``).

    round(s G) >= m exactly when s G >= m - 1/2 (ties have probability 0), so the tail is Phi(-(m - 1/2) / s), or
    exp(-(m - 1/2) / b) / 2 for Laplace: the rounding moves the continuous tail half a step towards 0.
    """
    if m < 1:
        raise ValueError("the tail is computed for m >= 1 only.")
    scale = float(noise.scale)  # integer statistics: the grid step is 1, the scale is in counts
    if noise.laplace:
        return 0.5 * math.exp(-(m - 0.5) / scale)
    return float(ndtr(-(m - 0.5) / scale))


def stability_threshold(noise: GridNoise, failure: float) -> int:
    """The smallest integer T such that a cell holding one row, released as 1 + N with the integer noise N of
    ``noise``, reaches T with probability at most ``failure``: P(N >= T - 1) = :func:`count_tail` (T - 1) <= failure.

    Counts and noise are integers, so the threshold is an integer too; a real threshold t would act as ceil(t), and
    1 + s Phi^-1(1 - failure) (the continuous Gaussian's) lets a lone row through up to twice as often and more.
    The search starts at the continuous answer and steps to the exact one (a relative margin of 1e-9 covers the
    floating-point error of Phi).
    """
    if not 0.0 < failure < 0.5:
        raise ValueError(f"the failure probability must lie in (0, 0.5) (got {failure!r}).")
    scale = float(noise.scale)
    z = math.log(0.5 / failure) if noise.laplace else float(-ndtri(failure))
    m = max(1, math.ceil(0.5 + scale * z))
    bound = failure * (1.0 - 1e-9)
    while count_tail(m, noise) > bound:
        m += 1
    while m > 1 and count_tail(m - 1, noise) <= bound:
        m -= 1
    return 1 + m


def sparse_counts(counts: np.ndarray, share: Share, neighbors: str, rng, failure: float) -> tuple[np.ndarray, dict]:
    """Stability-based release of a table of counts: integer noise on the occupied cells only, released when at or
    above :func:`stability_threshold`, every other cell 0.

    Privacy: on the cells occupied in both of two neighbouring datasets D and D' it is the (rounded) Gaussian
    mechanism of the share (at most two counts move by one). A cell occupied in D only holds exactly one row there
    (the row replaced, or the row added), so its noisy count is 1 + N with N the rounded noise, and it is released
    with probability P(N >= T - 1) <= ``failure`` (:func:`count_tail`: the exact distribution drawn, not the
    continuous Gaussian's). Each side has at most one such cell, so M(D) is within total variation ``failure`` of
    a mechanism M~(D) that never releases it, and likewise for D'. Then P[M(D) in S] <= P[M~(D) in S] + failure
    <= e^eps P[M~(D') in S] + delta_G(eps) + failure <= e^eps P[M(D') in S] + delta_G(eps) + (1 + e^eps) failure:
    (epsilon, delta_G(epsilon) + (1 + e^epsilon) failure)-DP for every epsilon, where delta_G is the share's
    Gaussian curve.
    """
    counts = np.asarray(counts, dtype=np.int64)
    occupied = np.flatnonzero(counts.ravel() > 0)
    out = np.zeros(counts.size, dtype=np.int64)
    noise = count_noise(share, neighbors)  # data-independent: stated whether or not any cell is occupied
    threshold = stability_threshold(noise, failure)
    if occupied.size:
        noisy, drawn = release_counts(counts.ravel()[occupied], share, neighbors, rng, name="occupied cells")
        assert drawn == noise, "the threshold's calibration is the noise drawn"
        keep = noisy >= threshold
        out[occupied[keep]] = noisy[keep]
    return out.reshape(counts.shape), {"threshold": threshold, "noise_scale": noise.noise_scale}


def private_group_labels(labels, share: Share, neighbors: str, rng, failure: float) -> list:
    """The set of groups, released privately: the labels whose noisy count passes the stability threshold.

    One row moves one count from one label to another (a histogram over the countable set of labels), so this is
    :func:`sparse_counts` over the labels present; labels absent from the data are never released. Returned in
    decreasing order of their noisy counts (post-processing).
    """
    values, counts = np.unique(np.asarray(labels).astype(str), return_counts=True)
    released, _ = sparse_counts(counts, share, neighbors, rng, failure)
    order = np.argsort(-released, kind="stable")
    return [str(values[i]) for i in order if released[i] > 0]


def _group_index(groups, group_labels, n: int) -> tuple[list, np.ndarray]:
    """(the table's group labels, each row's index among them or -1 for a row of no listed group); one group of
    every row when ``groups`` is None."""
    if groups is None:
        return [None], np.zeros(n, dtype=np.int64)
    groups = np.asarray(groups).astype(str)
    if groups.shape != (n,):
        raise ValueError(f"groups must hold one label per row ({n}); got shape {groups.shape}.")
    labels = [str(g) for g in group_labels]
    lookup = {g: i for i, g in enumerate(labels)}
    return labels, np.array([lookup.get(g, -1) for g in groups], dtype=np.int64)


def _cell_table(flat: np.ndarray, size: int, groups, group_labels, n: int) -> tuple[list, np.ndarray]:
    """(the table's group labels, its counts: each group's ``size`` cells in turn) from each row's cell ``flat``."""
    if groups is None:  # one group of every row: the cells' counts as they are
        return [None], np.bincount(flat, minlength=size)
    labels, index = _group_index(groups, group_labels, n)
    keep = index >= 0
    return labels, np.bincount(index[keep] * size + flat[keep], minlength=len(labels) * size)


def _noisy_table(table: np.ndarray, share: Share, neighbors: str, rng, kind: str, failure: float) -> tuple:
    """(the released counts of ``table``, {"threshold", "noise_scale"}): every cell with noise (additive), the
    occupied cells above the stability threshold (sparse), or an empty table as it is."""
    if kind == "sparse":
        return sparse_counts(table, share, neighbors, rng, failure)
    if table.size:
        noisy, noise = release_counts(table, share, neighbors, rng, name="score histogram")
        return noisy, {"threshold": None, "noise_scale": noise.noise_scale}
    # no group to show (none passed the groups' threshold): nothing to draw
    return table, {"threshold": None, "noise_scale": count_noise(share, neighbors).noise_scale}


def private_scores(
    rows: np.ndarray,
    components: np.ndarray,
    share: Share,
    neighbors: str,
    rng,
    *,
    bins=None,
    groups=None,
    group_labels=None,
    frame=None,
    kind: str = "additive",
    failure: float = 0.0,
    released_n: float | None = None,
    projections: np.ndarray | None = None,
    cells_from=None,
) -> dict:
    """The private score histogram: counts of the rows' projections on the first (one or) two components.

    Parameters
    ----------
    rows : ndarray (n, d), or None when ``projections`` (or ``cells_from``) are given
        Rows of norm <= 1 (clipped and scaled; centred as released).
    components : ndarray (d, k)
        The released components.
    share : Share
        The histogram's share.
    bins : int, optional
        Cells per axis (default :func:`score_bins`: from n under replace-one, from ``released_n`` under add/remove).
    groups : array-like (n,), optional
        One label per row. Rows whose label is not in ``group_labels`` are left out (one row still moves at most
        two counts of the table).
    group_labels : sequence, optional
        The public set of groups (declared, or from :func:`private_group_labels`).
    frame : dict, optional
        {"low": (dims,), "high": (dims,)} from :func:`private_frame`; default the public [-1, 1] frame.
    kind : {"additive", "sparse"}
        With ``failure`` (sparse): the probability bound of releasing a cell occupied in one neighbour only.
    released_n : float, optional
        Under add/remove: a noisy row count already released, for the default cells.
    projections : ndarray (n, >= dims), optional
        The rows' projections on the components (:func:`project`), when an earlier pass computed them.
    cells_from : CentredRows, optional
        Instead of both: rows that find their cells without the projections (:meth:`~.CentredRows.score_cells`).

    Returns
    -------
    dict
        ``counts`` (groups x bins [x bins], integers, published), ``edges`` (per axis), ``dims``, ``groups`` (the
        group labels, or None), ``noise_scale``, ``kind``, ``threshold`` (sparse).
    """
    dims = min(2, components.shape[1])
    n = cells_from.n if cells_from is not None else rows.shape[0] if projections is None else projections.shape[0]
    bins = (
        score_bins(neighbors, n, share.mu or share.epsilon, released_n)
        if bins is None
        else check_int_range(bins, "score bins", 4, 100)
    )
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}: use one of {list(KINDS)}.")
    lo = np.full(dims, -1.0) if frame is None else np.asarray(frame["low"], dtype=float)
    hi = np.full(dims, 1.0) if frame is None else np.asarray(frame["high"], dtype=float)
    edges = [np.linspace(lo[a], hi[a], bins + 1) for a in range(dims)]
    if cells_from is not None:
        flat = cells_from.score_cells(components[:, :dims], edges)
    else:  # compiled, the bits of searchsorted
        flat = flat_cells(project(rows, components[:, :dims]) if projections is None else projections[:, :dims], edges)
    labels, table = _cell_table(flat, bins**dims, groups, group_labels, n)
    noisy, info = _noisy_table(table, share, neighbors, rng, kind, failure)
    noisy = noisy.reshape((len(labels),) + (bins,) * dims)
    return {
        "counts": noisy if groups is not None else noisy[0],
        "edges": edges if dims == 2 else edges[0],
        "dims": dims,
        "groups": None if groups is None else labels,
        "noise_scale": info["noise_scale"],
        "kind": kind,
        "threshold": info["threshold"],
        "bins": bins,
    }


#: a score plot reads well when the noise s.d. per cell is at most this share of the rows its smallest group puts in
#: a typical cell of its cloud (the clouds then stand out of the noise by two s.d. or more)
READABLE_NOISE = 0.5
#: the share of a frame's cells one group's cloud is taken to cover (a cloud spans about half of a fitted frame on
#: each axis)
CLOUD_CELLS = 0.25


def noise_to_signal(counts, dims: int, noise_scale: float) -> float:
    """The noise s.d. per cell over the rows the smallest group puts in a typical cell of its cloud, from published
    values only: that group's counts summed (negatives kept: their sum is unbiased) over CLOUD_CELLS of the cells.
    A sum below one noise s.d. of itself (noise_scale sqrt(cells)) counts as that s.d.: the noise then hides the
    group, and the ratio is a lower bound."""
    counts = np.asarray(counts, dtype=float)
    cells = float(np.prod(counts.shape[-dims:]))
    totals = counts.reshape(-1, int(cells)).sum(axis=1)
    smallest = max(float(totals.min()), float(noise_scale) * math.sqrt(cells))
    return float(noise_scale) / (smallest / max(CLOUD_CELLS * cells, 1.0))


def readable_budget(
    ratio: float, share: float, epsilon: float, delta: float, mu: float | None, max_share: float = 0.3
) -> dict:
    """What would make a score plot of :func:`noise_to_signal` ``ratio`` read well (ratio <= READABLE_NOISE).

    The noise per cell falls like 1/mu_s, mu_s = sqrt(share) mu*(epsilon, delta) for a Gaussian share (``mu`` its
    GDP parameter; ``delta`` the delta the Gaussian parts compose to), and like 1/(share epsilon) for a pure one
    (``mu`` None). Returns ``share``: the scores share that would do at this epsilon (None when it exceeds
    ``max_share``); ``epsilon``: the epsilon that would do at this share; ``factor``: how much less noise is needed.
    An estimate: the signal is itself read from noisy counts.
    """
    factor = max(ratio / READABLE_NOISE, 1.0)
    if mu is not None:
        wanted = share * factor**2
        total = mu / math.sqrt(share) * factor
        eps = gaussian_epsilon(total, delta) if math.isfinite(total) else math.inf
    else:
        wanted, eps = share * factor, epsilon * factor
    return {"share": wanted if wanted <= max_share else None, "epsilon": eps, "factor": factor}

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
from scipy.special import ndtri

from .kernels import fixed_order_project
from .shares import Share, release_counts, release_vector
from .validation import check_int_range

FRAMES = ("public", "private")
KINDS = ("additive", "sparse")
#: quantiles of the projections the private frame spans (per axis), widened by FRAME_MARGIN of its width each side
FRAME_QUANTILES = (0.02, 0.98)
FRAME_MARGIN = 0.1
#: candidates of the frame's binary searches: a public grid on [-1, 1]
FRAME_CANDIDATES = 128
#: cells per axis: clip(round(BINS_FACTOR * (n mu)^(1/3)), BINS_MIN, BINS_MAX) (see :func:`default_bins`)
BINS_FACTOR, BINS_MIN, BINS_MAX = 1.0, 6, 40


def default_bins(n: int, mu: float) -> int:
    """Cells per axis from n and the scores share's mu (public numbers).

    A density histogram's error splits into a bias that falls like 1/m (the cell width) and, per cell, noise of
    s.d. sqrt(2)/mu against n/m^2 rows: the sum is smallest near m ~ (n mu)^(1/3) (in one dimension the classical
    rate is n^(1/3); private noise replaces the sampling variance). Measured on a three-group mixture and on the
    wine sample (benchmarks/score_plots.py), this rule sits at or near the best fixed m.
    """
    return int(np.clip(round(BINS_FACTOR * (max(n, 1) * max(mu, 1e-12)) ** (1.0 / 3.0)), BINS_MIN, BINS_MAX))


def project(rows: np.ndarray, components: np.ndarray) -> np.ndarray:
    """rows @ components, each row's projection summed in a fixed order that depends on that row alone (a BLAS
    product may round a row differently depending on its place in the blocks, which would let one row move other
    rows' cells)."""
    return fixed_order_project(rows, components)  # compiled, the same bits as the column loop


def _quantile_search(values: np.ndarray, q: float, candidates: np.ndarray, share: Share, rng,
                     n_est: float) -> tuple[float, list]:
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


def private_frame(scores: np.ndarray, share: Share, neighbors: str, rng, n: int | None = None) -> dict:
    """A plotting frame from private quantiles of the projections (per axis: FRAME_QUANTILES), widened by
    FRAME_MARGIN of its width on each side and kept inside [-1, 1].

    Each of the 2 x dims binary searches reads at most log2(FRAME_CANDIDATES) counts "how many projections lie at or
    below a candidate", each of sensitivity 1 under either relation; all of them together split the share (mu /
    sqrt(steps) each: exactly the share's mu-GDP). Under add/remove n is private: the target counts use ``n`` when
    given (a private count released elsewhere), else the frame spends one more count on n.
    """
    dims = scores.shape[1]
    steps = frame_steps(dims) + (1 if neighbors == "add_remove" and n is None else 0)
    part = share.split(steps)
    if neighbors == "add_remove" and n is None:
        noisy_n, _ = release_vector(np.array([scores.shape[0]]), part, rng, l2=1.0, l1=1.0, integer=True,
                                    name="row count")
        n = max(float(noisy_n[0]), 1.0)
    n_est = float(scores.shape[0] if n is None else n)
    candidates = np.linspace(-1.0, 1.0, FRAME_CANDIDATES)
    lo, hi, counts = np.empty(dims), np.empty(dims), []
    for axis in range(dims):
        lo[axis], c_lo = _quantile_search(scores[:, axis], FRAME_QUANTILES[0], candidates, part, rng, n_est)
        hi[axis], c_hi = _quantile_search(scores[:, axis], FRAME_QUANTILES[1], candidates, part, rng, n_est)
        counts += c_lo + c_hi
    width = np.maximum(hi - lo, 2.0 / FRAME_CANDIDATES)
    lo, hi = np.maximum(lo - FRAME_MARGIN * width, -1.0), np.minimum(hi + FRAME_MARGIN * width, 1.0)
    return {"low": lo, "high": hi, "counts": np.array(counts, dtype=np.int64)}


def stability_threshold(sd: float, failure: float) -> float:
    """The threshold a noisy count must pass to be released: a cell holding one row passes it with probability at
    most ``failure`` (1 + sd * Phi^-1(1 - failure), for noise of s.d. ``sd``)."""
    return 1.0 + sd * float(-ndtri(failure))


def sparse_counts(counts: np.ndarray, share: Share, neighbors: str, rng, failure: float) -> tuple[np.ndarray, dict]:
    """Stability-based release of a table of counts: integer noise on the occupied cells only, released when above
    :func:`stability_threshold`, every other cell 0.

    Privacy: on the cells occupied in both of two neighbouring datasets it is the (rounded) Gaussian mechanism of
    the share (at most two counts move by one); a cell occupied in one dataset only holds one row there and is
    released with probability at most ``failure``. The whole is within total variation ``failure`` of a mechanism
    that never releases such cells, so it is (epsilon, delta_G(epsilon) + (1 + e^epsilon) failure)-DP for every
    epsilon, where delta_G is the share's Gaussian curve.
    """
    counts = np.asarray(counts, dtype=np.int64)
    occupied = np.flatnonzero(counts.ravel() > 0)
    out = np.zeros(counts.size, dtype=np.int64)
    info = {"threshold": None, "noise_scale": None}
    if occupied.size:
        noisy, noise = release_counts(counts.ravel()[occupied], share, neighbors, rng, name="occupied cells")
        threshold = stability_threshold(noise.noise_scale, failure)
        keep = noisy >= threshold
        out[occupied[keep]] = noisy[keep]
        info = {"threshold": threshold, "noise_scale": noise.noise_scale}
    return out.reshape(counts.shape), info


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


def private_scores(rows: np.ndarray, components: np.ndarray, share: Share, neighbors: str, rng, *, bins=None,
                   groups=None, group_labels=None, frame=None, kind: str = "additive", failure: float = 0.0) -> dict:
    """The private score histogram: counts of the rows' projections on the first (one or) two components.

    Parameters
    ----------
    rows : ndarray (n, d)
        Rows of norm <= 1 (clipped and scaled; centred as released).
    components : ndarray (d, k)
        The released components.
    share : Share
        The histogram's share.
    bins : int, optional
        Cells per axis (default :func:`default_bins`).
    groups : array-like (n,), optional
        One label per row. Rows whose label is not in ``group_labels`` are left out (one row still moves at most
        two counts of the table).
    group_labels : sequence, optional
        The public set of groups (declared, or from :func:`private_group_labels`).
    frame : dict, optional
        {"low": (dims,), "high": (dims,)} from :func:`private_frame`; default the public [-1, 1] frame.
    kind : {"additive", "sparse"}
    failure : float
        For ``kind="sparse"``: the probability bound of releasing a cell occupied in one neighbour only.

    Returns
    -------
    dict
        ``counts`` (groups x bins [x bins], integers, published), ``edges`` (per axis), ``dims``, ``groups`` (the
        group labels, or None), ``noise_scale``, ``kind``, ``threshold`` (sparse).
    """
    dims = min(2, components.shape[1])
    n = rows.shape[0]
    bins = default_bins(n, share.mu or share.epsilon) if bins is None else check_int_range(bins, "score bins", 4, 100)
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}: use one of {list(KINDS)}.")
    lo = np.full(dims, -1.0) if frame is None else np.asarray(frame["low"], dtype=float)
    hi = np.full(dims, 1.0) if frame is None else np.asarray(frame["high"], dtype=float)
    edges = [np.linspace(lo[a], hi[a], bins + 1) for a in range(dims)]
    scores = project(rows, components[:, :dims])
    cells = [np.clip(np.searchsorted(edges[a], scores[:, a], side="right") - 1, 0, bins - 1) for a in range(dims)]
    flat = cells[0] if dims == 1 else cells[0] * bins + cells[1]
    if groups is None:
        labels, index = [None], np.zeros(n, dtype=np.int64)
    else:
        groups = np.asarray(groups).astype(str)
        if groups.shape != (n,):
            raise ValueError(f"groups must hold one label per row ({n}); got shape {groups.shape}.")
        labels = [str(g) for g in group_labels]
        lookup = {g: i for i, g in enumerate(labels)}
        index = np.array([lookup.get(g, -1) for g in groups], dtype=np.int64)
    keep = index >= 0
    size = bins ** dims
    table = np.bincount(index[keep] * size + flat[keep], minlength=len(labels) * size)
    shape = (len(labels),) + (bins,) * dims
    if kind == "sparse":
        noisy, info = sparse_counts(table, share, neighbors, rng, failure)
    else:
        noisy, noise = release_counts(table, share, neighbors, rng, name="score histogram")
        info = {"threshold": None, "noise_scale": noise.noise_scale}
    noisy = noisy.reshape(shape)
    return {"counts": noisy if groups is not None else noisy[0], "edges": edges if dims == 2 else edges[0],
            "dims": dims, "groups": None if groups is None else labels, "noise_scale": info["noise_scale"],
            "kind": kind, "threshold": info["threshold"], "bins": bins}

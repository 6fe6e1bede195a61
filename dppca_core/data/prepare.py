"""Privacy-safe preprocessing and the sufficient statistics the mechanisms read.

The default pipeline is: (optional) centre with a *public* centre, then clip every
row to the public radius ``data_norm`` and divide by it, so every row the mechanisms
see has norm <= 1 and every sensitivity in :mod:`dppca_core.privacy` applies.
Data-dependent steps (the empirical mean, the data's own max norm) are available
but return ``private=False`` so callers can label them.

Cost: :func:`prepare` reads X once for the row norms (by blocks, compiled when numba is installed) and keeps one scale factor
per row, not a scaled copy of X. The Gram matrix is formed on first use, block by block (blocks without
a clipped row go straight into X^T X), per-site Gram matrices likewise, and the scaled rows only if a
mechanism that reads rows asks for them (:meth:`PreparedData.row_blocks` forms them a block at a time). Columns
divided by public or private scales (``column_scales``) are divided as each block is read, never as a copy of X.
Peak extra memory is one block plus d x d, not a copy of X.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..compiled.columns import scale_rows
from ..validation import check_data_norm, check_matrix
from .first_pass import first_pass
from .gram import (
    GramAccumulator,
    scaled_gram,
    block_rows,
    clip_rows,
    divide_block,
    gram_error_bound,
    row_norms,
)

#: Per-site Gram matrices kept per PreparedData (one entry per distinct partition).
_SITE_CACHE = 4


@dataclass(frozen=True)
class SitePartition:
    """The sites of a distributed run: their sizes and each site's Gram matrix of scaled rows.

    Raw-data quantities (not private): mechanisms add noise to them; they are never released as such.
    """

    sizes: np.ndarray
    grams: tuple
    labels: tuple | None = None

    def __len__(self) -> int:
        return len(self.sizes)


@dataclass(frozen=True)
class Centering:
    """Outcome of a centring step: the centred data and whether the step is private."""

    X: np.ndarray
    center: np.ndarray
    private: bool
    note: str


def center_data(X, center="none") -> Centering:
    """Centre rows.

    Parameters
    ----------
    center : "none", "empirical" or array of shape (d,)
        "none" keeps the uncentred second moment (private, the default); an array is a
        public centre fixed before seeing the data (private); "empirical" subtracts the
        data's own mean, which is **not private** (the mean itself leaks).
    """
    X = check_matrix(X)
    d = X.shape[1]
    if isinstance(center, str):
        if center == "none":
            return Centering(X, np.zeros(d), True, "No centring: the uncentred second moment is analysed.")
        if center == "empirical":
            mean = X.mean(axis=0)
            return Centering(
                X - mean,
                mean,
                False,
                "Centred with the data's own mean: NOT private (the mean is released implicitly). "
                "Use a public centre or none for a real guarantee.",
            )
        raise ValueError(
            f"center={center!r} is not understood; use 'none', 'empirical' or a public vector of length {d}."
        )
    vec = np.asarray(center, dtype=float)
    if vec.shape != (d,) or not np.all(np.isfinite(vec)):
        raise ValueError(f"a public centre must be a finite vector of length d = {d} (got shape {vec.shape}).")
    return Centering(X - vec, vec, True, "Centred with a public centre fixed in advance.")


def max_norm_scale(X) -> tuple[np.ndarray, float]:
    """Divide by the data's own largest row norm. NOT private: the scale is data-dependent.

    Offered only because papers do it; the UI must label it non-private.
    """
    X = check_matrix(X)
    scale = float(np.linalg.norm(X, axis=1).max())
    if scale == 0:
        raise ValueError("every row is zero; there is nothing to analyse.")
    return X / scale, scale


class Summarised:
    """Data that arrive summarised, without rows to clip: :func:`prepare` asks them for their
    :class:`PreparedData` (:class:`dppca_core.data.stats.SufficientStats` is one; declared here, below the readers, so
    that this module never imports them)."""

    def prepared(self, data_norm: float | None = None) -> PreparedData:
        raise NotImplementedError


class PreparedData:
    """Rows with norm <= 1 (after clipping to ``data_norm`` and dividing by it) and their Gram matrix.

    Central input-perturbation mechanisms only read ``n`` and ``gram`` (= sum of x x^T of the
    scaled rows), which is computed once and shared by every repetition; distributed mechanisms read
    :meth:`site_partition` (per-site Gram matrices, memoised per partition). Build one with
    :func:`prepare` (from rows, or from :class:`dppca_core.data.stats.SufficientStats`) or
    :func:`gram_from_chunks` (streaming, rows not kept).

    Every statistic held here is a raw-data quantity: it feeds mechanisms and is never released as such.

    From a float array, :func:`prepare` does not copy X: it keeps X and one scale factor per row, and
    forms the scaled rows only when a mechanism reads ``rows`` (then it checks that X was not changed
    in between; do not modify X in place while the PreparedData is in use).

    Parameters
    ----------
    n, d : int
        Rows and columns.
    data_norm : float
        The public clipping radius R the rows were clipped to and divided by.
    rows : ndarray of shape (n, d), optional
        The scaled rows, when already formed.
    gram : ndarray of shape (d, d), optional
        Their Gram matrix, when already formed.
    n_clipped : int
        Rows whose norm was above R (a raw-data count: never published).
    source, scales, sites, site_column, compiled_norms, gram_error, owned, row_sums, divisors
        Set by :func:`prepare`: the raw rows and one scale factor per row (the rows are formed from them on first
        use), the site partition, how the row norms were computed, the rounding bound of the Gram entries, whether the
        source belongs to this object alone, the exact column sums, and the column scales the raw rows are divided
        by before their factors (row i is ``(source[i] / divisors) * scales[i]``; None: no division).

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> data = dc.prepare(np.random.default_rng(0).normal(size=(2000, 5)) / 3)
    >>> data.n, data.d, data.data_norm, data.n_clipped  # n_clipped: a raw-data count, never published
    (2000, 5, 1.0, 220)
    >>> gram = data.gram  # formed once ...
    >>> [dc.run("analyze_gauss", data, k=2, epsilon=eps, seed=0).components.shape for eps in (0.5, 1.0)]
    [(5, 2), (5, 2)]
    >>> data.gram is gram  # ... and read by every release of the same data
    True
    """

    #: the squared norms of the raw rows when :func:`prepare` kept them (``keep_sq_norms``), else None
    sq_norms: np.ndarray | None = None

    def __init__(
        self,
        n: int,
        d: int,
        data_norm: float,
        rows=None,
        gram=None,
        n_clipped: int = 0,
        *,
        source=None,
        scales=None,
        sites: SitePartition | None = None,
        site_column: str | None = None,
        compiled_norms: bool = False,
        gram_error: float | None = None,
        owned: bool = False,
        row_sums: list | None = None,
        divisors: np.ndarray | None = None,
    ):
        self.n, self.d = int(n), int(d)
        self._divisors = divisors
        #: the exact column sums of the scaled rows (:class:`dppca_core.privacy.exact.FixedSums` integers) when
        #: :func:`prepare` formed them in its pass (``row_sums=True``), else None
        self.row_sums = row_sums
        self._owned = owned  # the source is an array only this object holds: rows are formed without a re-check
        self._gram_error = gram_error
        self.data_norm = float(data_norm)
        self.n_clipped = int(n_clipped)
        self._rows = rows
        self._gram = gram
        self._source, self._scales = source, scales
        self._compiled_norms = compiled_norms  # how the stored factors were computed: recomputed the same way
        self._stored_sites = sites
        self._site_column = site_column
        self._site_cache: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        if rows is not None:
            rows.setflags(write=False)
        if gram is not None:
            gram.setflags(write=False)

    @property
    def has_rows(self) -> bool:
        return self._rows is not None or self._source is not None

    @property
    def rows(self) -> np.ndarray:
        if self._rows is None:
            if self._source is None:
                raise ValueError(
                    "this mechanism needs the individual rows, but only sufficient statistics (n and the Gram "
                    "matrix) were kept; pass the data matrix itself to run()."
                )
            with self._lock:
                if self._rows is None:
                    self._rows = self._materialise()
                    self._source = self._scales = None  # the scaled rows now stand on their own
        return self._rows

    def rows_at(self, index: np.ndarray) -> np.ndarray:
        """The scaled rows at ``index`` (a new array), formed from X without materialising every row.

        For mechanisms that read the rows a batch at a time in a random order: memory stays at one batch
        instead of two copies of X. The rows gathered are checked against the stored factors, as :attr:`rows`
        checks all of them.
        """
        source, scales = self._source, self._scales  # one read: rows may be materialised concurrently
        if source is None or scales is None:
            return self.rows[index]
        B = np.asarray(source[index], dtype=float)
        if self._divisors is not None:  # the entries of the divided table, bit for bit
            np.divide(B, self._divisors, out=B)
        s, _ = GramAccumulator(self.d, self.data_norm, False, self._compiled_norms).block_scales(B)
        stored = scales[index]
        if not (np.all(stored == 1.0 / self.data_norm) if s is None else np.array_equal(s, stored)):
            raise ValueError(
                "the array given to prepare() was modified afterwards; call prepare() again "
                "(or pass a copy of the data)."
            )
        return scale_rows(B, stored, B)

    def _materialise(self) -> np.ndarray:
        if self._owned and self._divisors is None:  # nobody else holds the source: the same products, in place
            source, step = self._source, block_rows(self.d)
            for a in range(0, self.n, step):
                np.multiply(source[a : a + step], self._scales[a : a + step, None], out=source[a : a + step])
            source.setflags(write=False)
            return source
        out = np.empty((self.n, self.d))
        for a in range(0, self.n, block_rows(self.d)):
            self.form_rows(a, min(a + block_rows(self.d), self.n), out[a:])
        out.setflags(write=False)
        return out

    def form_rows(self, a: int, b: int, out: np.ndarray, check: bool = True) -> np.ndarray:
        """Rows a to b of :attr:`rows` formed into the first b - a rows of ``out`` (returned), bit for bit, without
        forming the others: the raw block (divided by the column scales, where there are), each row's factor
        computed again and checked against the stored one (as :attr:`rows` checks it; ``check=False``: for a second
        pass of a caller that checked the first), then the products."""
        if self._rows is not None or self._source is None:
            out[: b - a] = self.rows[a:b]
            return out[: b - a]
        raw, stored = self._source[a:b], self._scales[a:b]
        if not check:  # divided and scaled in one pass
            return scale_rows(raw, stored, out[: b - a], self._divisors)
        block = divide_block(raw, self._divisors, out)
        s, _ = GramAccumulator(self.d, self.data_norm, False, self._compiled_norms).block_scales(block, first_row=a)
        if not (np.all(stored == 1.0 / self.data_norm) if s is None else np.array_equal(s, stored)):
            raise ValueError(
                "the array given to prepare() was modified afterwards; call prepare() again (or pass a copy of the data)."
            )
        return scale_rows(block, stored, out[: b - a])

    @property
    def rows_formed(self) -> bool:
        """True when :attr:`rows` is an array held here (reading it costs nothing more)."""
        return self._rows is not None

    def row_blocks(self, rows: int | None = None, check: bool = True):
        """(first row, block) for consecutive blocks of ``rows`` rows (default :func:`block_rows`): each block the
        bits of ``self.rows[a:b]``, views of :attr:`rows` where they are formed, else formed by :meth:`form_rows`
        (``check`` as there) into one buffer reused from block to block (copy a block to keep it). A pass over the
        rows without an n x d array."""
        step = block_rows(self.d) if rows is None else max(int(rows), 1)
        if self.rows_formed or not self.has_rows:
            for a in range(0, self.n, step):
                yield a, self.rows[a : a + step]
            return
        buf = np.empty((min(step, self.n), self.d))
        for a in range(0, self.n, step):
            yield a, self.form_rows(a, min(a + step, self.n), buf, check)

    def scaled_parts(self) -> tuple:
        """(raw rows, one factor per row) while the scaled rows are not formed (row i is ``raw[i] * factors[i]``,
        the product :attr:`rows` forms), else (the rows, None): for a caller that reads every row once and need not
        keep them (e.g. an exact sum, a centred copy). Like :attr:`rows` formed from an array the caller owns, it
        trusts that the array was not changed since :func:`prepare` (in the same call). Rows divided by column scales
        are formed first (:meth:`row_parts` gives their parts without forming them)."""
        source, divisors, scales = self.row_parts()
        return (self.rows, None) if divisors is not None else (source, scales)

    def row_parts(self) -> tuple:
        """(raw rows, column divisors or None, one factor per row) while the scaled rows are not formed (row i is
        ``(raw[i] / divisors) * factors[i]``, the entries :attr:`rows` forms), else (the rows, None, None); trusted
        as :meth:`scaled_parts` is."""
        source, scales, divisors = self._source, self._scales, self._divisors  # one read (see scaled_parts)
        if source is None or scales is None:
            return self.rows, None, None
        return source, divisors, scales

    def project(self, components: np.ndarray) -> np.ndarray:
        """The rows' projections on ``components`` (n x k), each row's summed in a fixed order that depends on that
        row alone (:func:`dppca_core.compiled.kernels.fixed_order_project`); the rows formed a block at a time where
        they are not formed (the same rows, so the same bits)."""
        from ..compiled.kernels import fixed_order_project

        if self.rows_formed or not self.has_rows:
            return fixed_order_project(self.rows, components)
        out = np.empty((self.n, np.shape(components)[1]))
        for a, block in self.row_blocks():
            out[a : a + block.shape[0]] = fixed_order_project(block, components)
        return out

    def projected_products(self, components, first, second, projections=None):
        """The exact sums (:class:`dppca_core.privacy.exact.FixedSums`) of each row's products of its projections on
        ``components`` for the pairs ``zip(first, second)``, and of its squared norm, last; ``projections`` (n x k)
        receives the projections (:meth:`FixedSums.of_projected_products` of :attr:`rows`, the rows formed a block at
        a time where they are not formed: the same rows, so the same integers and projections)."""
        from ..privacy.exact import FixedSums

        if self.rows_formed or not self.has_rows:
            return FixedSums.of_projected_products(self.rows, components, first, second, None, projections)
        totals = None
        for a, block in self.row_blocks():
            part = FixedSums.of_projected_products(
                block, components, first, second, None, None if projections is None else projections[a : a + len(block)]
            )  # integers: the blocks' sums add up to the sums of one pass
            totals = part.totals if totals is None else [t + p for t, p in zip(totals, part.totals)]
        return FixedSums.of_totals(totals)

    @property
    def gram(self) -> np.ndarray:
        """sum_i y_i y_i^T of the scaled rows, computed once (by :func:`prepare` for narrow data, else on first use)
        and shared by every later run."""
        if self._gram is None:
            with self._lock:
                if self._gram is None:
                    if self._rows is not None:
                        g = scaled_gram(self._rows, np.ones(self.n), 1.0)
                    else:
                        g = scaled_gram(self._source, self._scales, self.data_norm, self._divisors)
                    g.setflags(write=False)
                    self._gram = g
        return self._gram

    @property
    def gram_formed(self) -> bool:
        """True once :attr:`gram` is computed (by :func:`prepare`, or by a run that read it): reading it is free."""
        return self._gram is not None

    @property
    def gram_error(self) -> float:
        """A bound on the rounding error of each entry of :attr:`gram` (see :func:`gram_error_bound`): the Gram
        matrices formed here are summed by blocks; statistics streamed from files carry their own bound."""
        return self._gram_error if self._gram_error is not None else gram_error_bound(self.n, self.d)

    @property
    def stored_sites(self) -> SitePartition | None:
        """Sites recorded with the statistics (from a site column), if any."""
        return self._stored_sites

    def site_partition(self, sites) -> SitePartition:
        """Sizes and Gram matrices of the sites ``sites`` describes, memoised on the partition.

        With rows, ``sites`` is anything :func:`dppca_core.data.sites.split_sites` accepts (a number of equal
        contiguous sites, a list of sizes, or one label per row). Without rows (statistics), only the sites
        recorded with them can be used: pass their number or their sizes; ``sites=1`` is always possible.
        """
        key = _partition_key(sites)
        with self._lock:
            if key in self._site_cache:
                self._site_cache.move_to_end(key)
                return self._site_cache[key]
        part = self._compute_partition(sites)
        with self._lock:
            self._site_cache[key] = part
            while len(self._site_cache) > _SITE_CACHE:
                self._site_cache.popitem(last=False)
        return part

    def _compute_partition(self, sites) -> SitePartition:
        from .sites import split_sites

        if not self.has_rows:
            return self._stored_partition(sites)
        parts = split_sites(self.n, sites)
        grams = []
        for idx in parts:
            g = self._site_gram(idx)
            g.setflags(write=False)
            grams.append(g)
        with self._lock:
            if self._gram is None:  # the sites cover every row: their sum is the Gram matrix
                total = sum(grams)
                total = (total + total.T) / 2.0
                total.setflags(write=False)
                self._gram = total
        return SitePartition(np.array([p.size for p in parts]), tuple(grams))

    def _site_gram(self, idx: np.ndarray) -> np.ndarray:
        contiguous = idx.size and idx[-1] - idx[0] + 1 == idx.size
        if self._rows is not None or self._divisors is not None:  # divided columns: the rows formed first
            rows = self.rows
            R = rows[idx[0] : idx[-1] + 1] if contiguous else rows[idx]
            g = R.T @ R
            return (g + g.T) / 2.0
        if contiguous:
            sel = slice(idx[0], idx[-1] + 1)
            return scaled_gram(self._source[sel], self._scales[sel], self.data_norm)
        g = np.zeros((self.d, self.d))
        step = block_rows(self.d)
        for a in range(0, idx.size, step):
            sel = idx[a : a + step]
            B = self._source[sel] * self._scales[sel][:, None]
            g += B.T @ B
        return (g + g.T) / 2.0

    def _stored_partition(self, sites) -> SitePartition:
        stored = self._stored_sites
        if isinstance(sites, (int, np.integer)) and not isinstance(sites, bool) and int(sites) == 1:
            g = self.gram
            return SitePartition(np.array([self.n]), (g,))
        if stored is None:
            raise ValueError(
                "this distributed mechanism needs per-site Gram matrices, but the statistics were built "
                "without sites; build them with sufficient_stats(..., sites='<site column>'), pass the "
                "data matrix, or use sites=1."
            )
        arr = np.asarray(sites)
        if (arr.ndim == 0 and arr.dtype.kind in "iu" and int(arr) == len(stored)) or (
            arr.ndim == 1 and arr.dtype.kind in "iu" and np.array_equal(arr, stored.sizes)
        ):
            return stored
        column = f" from column {self._site_column!r}" if self._site_column else ""
        raise ValueError(
            f"the statistics hold {len(stored)} site(s){column} with sizes {stored.sizes.tolist()[:20]}; "
            f"pass sites={len(stored)} (or those sizes) to use them, or sites=1 for one site. Other "
            "partitions need the rows: pass the data matrix."
        )

    def __getstate__(self) -> dict:
        """Picklable (e.g. shipped to a Dask worker by an audit): everything but the lock, which is rebuilt."""
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PreparedData(n={self.n}, d={self.d}, data_norm={self.data_norm:g}, n_clipped={self.n_clipped})"


def _partition_key(sites):
    if isinstance(sites, (int, np.integer)) and not isinstance(sites, bool):
        return ("count", int(sites))
    arr = np.asarray(sites)
    if arr.dtype == object:
        payload = repr(arr.tolist()).encode()
    else:
        payload = np.ascontiguousarray(arr).tobytes()
    return ("array", arr.dtype.str, arr.shape, hashlib.blake2b(payload, digest_size=16).hexdigest())


def prepare(
    X,
    data_norm: float = 1.0,
    *,
    min_rows: int = 2,
    gram_now: bool | None = None,
    owned: bool = False,
    row_sums: bool = False,
    sq_norms: np.ndarray | None = None,
    keep_sq_norms: bool = False,
    column_scales: np.ndarray | None = None,
) -> PreparedData:
    """Validate, clip rows to ``data_norm`` and scale them to the unit ball.

    Parameters
    ----------
    X : array-like of shape (n, d), DataFrame, PreparedData or SufficientStats
        The rows; a :class:`PreparedData` is returned as is when the radius matches; a
        :class:`dppca_core.data.stats.SufficientStats` gives a PreparedData without rows (n, the Gram matrix and the
        per-site Gram matrices, enough for every mechanism that does not read rows).
    data_norm : float
        The public clipping radius R.
    min_rows : int
        The fewest rows accepted.
    gram_now : bool, optional
        Form the Gram matrix in the same pass as the row norms (default: when X has at most
        :data:`FUSED_GRAM_MAX_D` columns) or on first use (False: for callers that only read rows).
    owned : bool
        X is a float array made by the caller for this call alone (e.g. a release's centred copy) and nobody changes
        it, so the scaled rows are formed from it without re-checking it (a pass of row norms less).
    row_sums : bool
        Also sum the scaled rows exactly in the same pass, each block while it is in cache
        (:attr:`PreparedData.row_sums`, for a private mean; the integers a separate pass would give).
    sq_norms : ndarray of shape (n,), optional
        The squared row norms of the float array X, already computed by
        :func:`dppca_core.data.gram.block_sq_norms` with ``compiled = X.size >= COMPILED_NORMS_MIN_SIZE`` (as this
        function would compute them: the same bits), e.g. by a private radius that read them: a pass less.
    keep_sq_norms : bool
        Keep the squared row norms of X in :attr:`PreparedData.sq_norms` (n floats; for centring by
        :func:`dppca_core.data.centring.centre_algebraically`, which reads them to find the rows it may clip).
    column_scales : ndarray of shape (d,), optional
        Positive column scales (a release's public bounds or private scales): the rows are those of ``X /
        column_scales``, each block divided as it is read (:mod:`dppca_core.data.first_pass`), never as a copy of X;
        every statistic, norm and row is that of the divided table, bit for bit. ``sq_norms`` are then the divided
        rows' (:func:`dppca_core.data.gram.divided_sq_norms`).

    Returns
    -------
    PreparedData
        n, d, the scale factor of each row and (now or on first use) the Gram matrix of the clipped, scaled rows.

    Raises
    ------
    ValueError
        In words: data that are not a finite numeric table, too few rows, a radius out of range, or prepared data
        clipped at another radius.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4], [-1.0, 0.0]])  # row norms 5, 0.5 and 1
    >>> data = dc.prepare(X, data_norm=2.0)  # clipped to norm 2, then divided by 2
    >>> np.linalg.norm(data.rows, axis=1).round(3), data.n_clipped
    (array([1.  , 0.25, 0.5 ]), 1)
    >>> dc.prepare(data, data_norm=2.0) is data  # prepared at this radius already: returned as is
    True
    """
    if isinstance(X, PreparedData):
        if not np.isclose(X.data_norm, data_norm):
            raise ValueError(
                f"the prepared data were clipped at data_norm={X.data_norm:g}, not {data_norm:g}; prepare them again."
            )
        return X
    if isinstance(X, Summarised):
        return X.prepared(data_norm)
    data_norm = check_data_norm(data_norm)
    if type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] >= min_rows and X.shape[1] >= 1:
        arr = X  # plain float array: finiteness is checked block by block below, without a full-size mask
    else:
        arr = check_matrix(X, min_rows=min_rows)
    fuse = arr.shape[1] <= FUSED_GRAM_MAX_D if gram_now is None else bool(gram_now)
    compiled = arr.size >= COMPILED_NORMS_MIN_SIZE
    if arr is not X:  # a converted copy: its norms are computed here, not taken from the caller
        sq_norms = None
    elif sq_norms is not None and np.shape(sq_norms) != (arr.shape[0],):
        raise ValueError(f"{np.shape(sq_norms)} squared row norms given for {arr.shape[0]} rows.")
    divisors = None
    if column_scales is not None:
        divisors = np.ascontiguousarray(column_scales, dtype=float).reshape(-1)
        if divisors.shape != (arr.shape[1],) or not (np.all(np.isfinite(divisors)) and np.all(divisors > 0)):
            raise ValueError(f"column_scales must hold one finite scale > 0 per column ({arr.shape[1]} of them).")
    scales, n_clipped, gram, sums, kept = first_pass(
        arr,
        data_norm,
        with_gram=fuse,
        compiled_norms=compiled,
        with_sums=row_sums,
        sq_norms=sq_norms,
        keep_sq=keep_sq_norms,
        divisors=divisors,
    )
    prepared = PreparedData(
        arr.shape[0],
        arr.shape[1],
        data_norm,
        n_clipped=n_clipped,
        source=arr,
        scales=scales,
        gram=gram,
        compiled_norms=compiled,
        owned=owned and arr is X and divisors is None,
        row_sums=sums,
        divisors=divisors,
    )
    prepared.sq_norms = kept
    return prepared


#: Up to this many columns the Gram matrix costs little more than a read of X, so :func:`prepare` forms it in
#: the same pass as the row norms, block by block (measured, CPU time over X^T X: 1.15-1.3x at d = 20 and 32,
#: against 1.35-1.45x for two passes). Wider data get it on first use: there X^T X is compute-bound, the
#: row-norm pass adds little, and mechanisms that only read rows never pay for it.
FUSED_GRAM_MAX_D = 32


#: From this many entries on, :func:`prepare` computes the row norms with the compiled kernel
#: (:func:`dppca_core.compiled.loops.row_sq_norms`, when numba is installed): there the einsum pass costs a fifth of
#: X^T X at d = 20. Smaller inputs keep einsum and never import numba (about 0.3 s and 100 MB once per process).
COMPILED_NORMS_MIN_SIZE = 1 << 20


def gram_from_chunks(chunks: Iterable, data_norm: float = 1.0) -> PreparedData:
    """Stream row chunks (arrays or DataFrames) into the Gram matrix without keeping the rows.

    For files, :func:`dppca_core.data.stats.sufficient_stats` reads CSV or Parquet in chunks the same way.

    Parameters
    ----------
    chunks : iterable of array-like or DataFrame
        Row blocks of one table (every block the same columns), e.g. ``pandas.read_csv(..., chunksize=...)``.
    data_norm : float
        The public clipping radius R: each row is clipped to norm R and divided by it.

    Returns
    -------
    PreparedData
        n and the Gram matrix of the clipped, scaled rows (no rows kept): every mechanism that reads only these
        statistics runs on it.

    Raises
    ------
    ValueError
        In words: no rows, blocks with different numbers of columns, or cells that are not finite numbers.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> rng = np.random.default_rng(0)
    >>> blocks = (rng.normal(size=(500, 4)) / 3 for _ in range(4))
    >>> data = dc.gram_from_chunks(blocks, data_norm=1.0)
    >>> data.n, data.gram.shape
    (2000, (4, 4))
    >>> dc.run("analyze_gauss", data, k=2, epsilon=1.0, seed=0).components.shape
    (4, 2)
    """
    data_norm = check_data_norm(data_norm)
    acc, row = None, 0
    for chunk in chunks:
        if hasattr(chunk, "to_numpy") and hasattr(chunk, "dtypes"):
            chunk = prepare(chunk, data_norm, min_rows=1)._source  # same column checks as prepare
        arr = check_matrix(chunk, min_rows=1)
        if acc is None:
            acc = GramAccumulator(arr.shape[1], data_norm, want_sum=False)
        elif arr.shape[1] != acc.d:
            raise ValueError(f"chunks disagree on the number of columns ({arr.shape[1]} vs {acc.d}).")
        acc.add(arr, first_row=row)
        row += arr.shape[0]
    if acc is None or acc.n < 2:
        raise ValueError(f"the chunks held {0 if acc is None else acc.n} row(s); at least 2 are needed.")
    return PreparedData(acc.n, acc.d, data_norm, gram=acc.gram, n_clipped=acc.n_clipped, gram_error=acc.gram_error)


__all__ = [
    "PreparedData",
    "SitePartition",
    "GramAccumulator",
    "prepare",
    "gram_from_chunks",
    "clip_rows",
    "row_norms",
    "center_data",
    "max_norm_scale",
    "Centering",
    "block_rows",
    "gram_error_bound",
]

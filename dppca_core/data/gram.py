"""Clipped rows and their Gram matrix, block by block: the row norms (compiled when numba is installed), clipping
to a radius, the Gram matrix of the clipped rows accumulated in blocks of rows (:class:`GramAccumulator`) and the bound
on its floating-point rounding error (:func:`gram_error_bound`) that the exact release of statistics built from it
adds to their sensitivity. :mod:`dppca_core.data.prepare` builds on it.
"""

from __future__ import annotations

import numpy as np

from ..compiled import columns
from ..compiled.loops import row_sq_norms
from ..privacy import summation_error
from ..validation import check_data_norm, check_matrix

#: Bytes of one block of rows processed at a time (fits in cache next to its scaled copy).
BLOCK_BYTES = 1 << 21


#: Outside [1e-140, 1e140] the squared radius and squared norms may under- or overflow: use the safe path.
SAFE_RADIUS = (1e-140, 1e140)


def block_rows(d: int) -> int:
    """Rows per block for d columns (about :data:`BLOCK_BYTES`; at least 64)."""
    return max(64, BLOCK_BYTES // (8 * max(int(d), 1)))


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean row norms without overflow or underflow for huge or tiny entries.

    The squares summed in column order (:func:`dppca_core.compiled.loops.row_sq_norms`, the same bits on every path),
    and for the rare rows whose sum of squares is not a normal float (overflow to inf, or below 1e-290) the row is
    scaled by its largest entry first.
    """
    X = np.asarray(X, dtype=float)
    return norms_from_squares(X, row_sq_norms(X, compiled=False))


def norms_from_squares(X: np.ndarray, sq: np.ndarray, divisors: np.ndarray | None = None) -> np.ndarray:
    """The row norms of X (of ``X / divisors`` when given: a release's column scales) from its squared row norms
    ``sq`` (any way computed), the rows whose sum of squares is not a normal float computed again safely
    (:func:`row_norms`)."""
    bad = ~np.isfinite(sq) | (sq < 1e-290)
    norms = np.sqrt(sq)
    if bad.any():
        norms[bad] = _safe_norms(X[bad] if divisors is None else X[bad] / divisors)
    return norms


def block_sq_norms(X: np.ndarray, compiled: bool) -> np.ndarray:
    """The squared row norms of X computed block by block (:func:`block_rows`) as :meth:`GramAccumulator.block_scales`
    computes them, bit for bit: for a step that reads the norms before :func:`dppca_core.data.prepare.prepare` clips
    the same rows (and hands them on, a pass less)."""
    step = block_rows(X.shape[1])
    out = np.empty(X.shape[0])
    for a in range(0, X.shape[0], step):
        out[a : a + step] = row_sq_norms(X[a : a + step], compiled)
    return out


def divided_sq_norms(X: np.ndarray, divisors: np.ndarray, compiled: bool) -> np.ndarray:
    """The squared row norms of ``X / divisors`` (one divisor per column: a release's column scales) as
    :func:`block_sq_norms` computes them on the divided rows, bit for bit, without forming them: each quotient rounded
    as numpy's division rounds it, squared and summed in column order (:func:`dppca_core.compiled.columns.
    divided_sq_norms`), block by block. ValueError naming the first entry of X that is not finite."""
    step = block_rows(X.shape[1])
    out = np.empty(X.shape[0])
    divisors = np.ascontiguousarray(divisors, dtype=float)
    bad = 0
    for a in range(0, X.shape[0], step):
        bad += columns.divided_sq_norms(X[a : a + step], divisors, out[a : a + step], compiled)
    if bad:
        check_matrix(X)  # says where the first one is
    return out


def divide_block(B: np.ndarray, divisors: np.ndarray | None, buf: np.ndarray) -> np.ndarray:
    """The block ``B / divisors`` written into the first rows of ``buf`` (the entries of the divided table, bit for
    bit), or B itself without divisors."""
    if divisors is None:
        return B
    out = buf[: B.shape[0]]
    with np.errstate(over="ignore", invalid="ignore"):  # what is not finite is refused by whoever reads the block
        columns.divide_columns(B, divisors, out)
    return out


def _safe_norms(X: np.ndarray) -> np.ndarray:
    peak = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(peak > 0, peak, 1.0)
    return np.linalg.norm(X / safe[:, None], axis=1) * safe


def clip_rows(X: np.ndarray, radius: float) -> tuple[np.ndarray, int]:
    """Scale each row with norm above ``radius`` down to ``radius``.

    Returns the clipped copy and the number of rows that were clipped.
    """
    radius = check_data_norm(radius)
    norms = row_norms(X)
    over = norms > radius
    factors = np.ones_like(norms)
    factors[over] = radius / norms[over]
    clipped = X * factors[:, None]
    return clipped, int(over.sum())


class GramAccumulator:
    """Running n, sum and Gram matrix of rows clipped to ``radius`` and divided by it (norm <= 1).

    Feed it blocks of raw rows with :meth:`add`; it never keeps them. Blocks without a clipped row go
    straight into X^T X (no copy); blocks with one are scaled in a small buffer first. Used by
    :func:`prepare`, :func:`gram_from_chunks` and :func:`dppca_core.data.stats.sufficient_stats`, so every
    path computes the statistics the same way.

    Parameters
    ----------
    d : int
    radius : float
        The public clipping radius R.
    want_sum : bool
        Also accumulate the sum of the scaled rows.
    compiled_norms : bool
        Squared row norms by :func:`dppca_core.compiled.loops.row_sq_norms` (compiled when numba is installed)
        instead of ``einsum``; :func:`prepare` chooses it for large arrays.
    """

    def __init__(self, d: int, radius: float, want_sum: bool = True, compiled_norms: bool = False):
        self.d = int(d)
        self.compiled_norms = compiled_norms
        self.radius = float(radius)
        self.want_sum = want_sum
        self.n = 0
        self.n_clipped = 0
        self._raw = np.zeros((self.d, self.d))  # sum of x x^T over rows kept at scale 1/R
        self._scaled = np.zeros((self.d, self.d))  # sum of (s x)(s x)^T over the other rows
        self._raw_sum = np.zeros(self.d)
        self._scaled_sum = np.zeros(self.d)
        self.additions = 0  # block sums added into the running matrices (for the rounding-error bound)
        self._fast = SAFE_RADIUS[0] <= self.radius <= SAFE_RADIUS[1]
        self._r2 = self.radius * self.radius
        # rows already clipped to R elsewhere have ||x||^2 = R^2 up to a few ulps: not clipped again
        self._r2_tol = self._r2 * (1.0 + 4.0 * np.finfo(float).eps)

    def add(self, X: np.ndarray, *, first_row: int = 0, name: str = "X", need_scale: bool = False):
        """Accumulate the rows of X (finite floats, shape (m, d)); return each row's scale factor if asked.

        The scale factor of row i is s_i = min(1, R / ||x_i||) / R, so s_i x_i is the row the mechanisms see.
        ``first_row`` and ``name`` only make error messages point at the right row.
        """
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.d:
            raise ValueError(f"{name}: a block of shape {X.shape} does not have d = {self.d} columns.")
        step = block_rows(self.d)
        scales = np.empty(X.shape[0]) if need_scale else None
        buf = None
        for a in range(0, X.shape[0], step):
            B = X[a : a + step]
            s, over = self.block_scales(B, first_row=first_row + a, name=name)
            self.additions += 1
            if s is None:  # no row clipped: straight into X^T X, no copy
                self._raw += B.T @ B
                if self.want_sum:
                    self._raw_sum += B.sum(axis=0)
                if need_scale:
                    scales[a : a + B.shape[0]] = 1.0 / self.radius
                continue
            if buf is None:
                buf = np.empty((min(step, X.shape[0]), self.d))
            scaled = np.multiply(B, s[:, None], out=buf[: B.shape[0]])
            self._scaled += scaled.T @ scaled
            if self.want_sum:
                self._scaled_sum += scaled.sum(axis=0)
            self.n_clipped += int(over.sum())
            if need_scale:
                scales[a : a + B.shape[0]] = s
        self.n += X.shape[0]
        return scales

    def block_scales(self, B: np.ndarray, *, first_row: int = 0, name: str = "X", sq: np.ndarray | None = None):
        """(s, over) for one block: the scale factor of each row and which rows are clipped.

        ``s`` is None when no row is clipped and the radius allows the fast path (every factor is then 1/R).
        ``sq``: the block's squared row norms already computed as this method computes them (``row_sq_norms`` with
        this accumulator's ``compiled_norms``, on this block), e.g. by :func:`block_sq_norms`.
        Raises ValueError naming the first non-finite entry.
        """
        sq = row_sq_norms(B, self.compiled_norms) if sq is None else sq
        fast = self.fast_scales(sq)
        if fast is not None:
            return fast
        if not np.isfinite(B).all():
            rows, cols = np.nonzero(~np.isfinite(B))
            raise ValueError(
                f"{name} contains NaN or infinite values (first at row {first_row + rows[0]}, "
                f"column {cols[0]}); drop or impute them first."
            )
        norms = _safe_norms(B)
        over = norms > self.radius
        return np.where(over, 1.0 / np.where(over, norms, 1.0), 1.0 / self.radius), over

    def fast_scales(self, sq: np.ndarray) -> tuple | None:
        """:meth:`block_scales` from a block's squared norms alone, where they decide it (a radius whose squares are
        safe, every norm finite); else None (the block's entries are then needed)."""
        if not (self._fast and np.isfinite(sq).all()):
            return None
        over = sq > self._r2_tol
        if not over.any():
            return None, over
        return np.where(over, 1.0 / np.sqrt(np.where(over, sq, 1.0)), 1.0 / self.radius), over

    def clip_factors(self, sq: np.ndarray, out: np.ndarray) -> int:
        """``out`` = each row's factor as :meth:`block_scales` computes it (the same bits) from the block's squared norms
        alone, and the number of rows clipped; -1 (``out`` then undefined) where the norms do not decide it (see
        :meth:`fast_scales`). One compiled pass when numba is loaded, without the temporaries of numpy's."""
        from ..compiled.kernels import compiled_worth
        from ..compiled.loops import compiled_clip_factors

        if not self._fast:
            return -1
        kernel = compiled_clip_factors() if compiled_worth(sq.size * self.d) else None
        if kernel is not None:
            return int(kernel(sq, self._r2_tol, self.radius, out))
        fast = self.fast_scales(sq)
        if fast is None:
            return -1
        out[:] = 1.0 / self.radius if fast[0] is None else fast[0]
        return int(fast[1].sum())

    def merge(self, other: "GramAccumulator") -> "GramAccumulator":
        """Add another accumulator's rows (same d and radius) into this one."""
        if other.d != self.d or other.radius != self.radius:
            raise ValueError("cannot merge statistics of different widths or clipping radii.")
        self._raw += other._raw
        self._scaled += other._scaled
        self._raw_sum += other._raw_sum
        self._scaled_sum += other._scaled_sum
        self.n += other.n
        self.n_clipped += other.n_clipped
        self.additions += other.additions + 1
        return self

    @property
    def gram_error(self) -> float:
        """A bound on the rounding error of each entry of :attr:`gram` (and of :attr:`sum`).

        Each block of at most :func:`block_rows` rows is summed in one BLAS call, then the block sums are added one
        after another: any order of summation errs by at most gamma_m times the sum of the absolute terms (at most n
        for rows of norm <= 1), with m the longest chain of additions (Higham, eq. 4.4), plus a few roundings for
        the scaling, the merge of the two running sums and the symmetrisation.
        """
        return (
            gram_error_bound(self.n, self.d, max(self.additions, 0))
            if self.additions > canonical_additions(self.n, self.d)
            else gram_error_bound(self.n, self.d)
        )

    @property
    def gram(self) -> np.ndarray:
        """sum_i (s_i x_i)(s_i x_i)^T, symmetrised."""
        g = self._raw / self._r2 + self._scaled if self._fast else self._scaled.copy()
        return (g + g.T) / 2.0

    @property
    def sum(self) -> np.ndarray:
        """sum_i s_i x_i."""
        return self._raw_sum / self.radius + self._scaled_sum if self._fast else self._scaled_sum.copy()


#: block sums a Gram matrix may add in turn and still use the canonical error bound: twice the blocks of n rows
#: plus this many more (partial blocks at the ends of streamed chunks, files and sites)
EXTRA_ADDITIONS = 4096


def gram_error_bound(n: int, d: int, additions: int | None = None) -> float:
    """Bound on each entry's rounding error for a Gram matrix of n rows of norm <= 1, summed by blocks of at most
    :func:`block_rows` (d) rows whose sums are added in turn.

    Without ``additions``: the canonical bound, valid for every way the library forms a Gram matrix (in memory: one
    addition per block; streamed: a few more at the ends of chunks, files and sites, up to 2 ceil(n / block) +
    :data:`EXTRA_ADDITIONS`). It depends on n and d only, so every path to the same statistics publishes the same
    noise scale. With ``additions``: the bound for that many additions.
    """
    step = block_rows(d)
    if additions is None:
        additions = 2 * -(-int(n) // step) + EXTRA_ADDITIONS
    return summation_error(step + int(additions) + 8, max(int(n), 1))


def canonical_additions(n: int, d: int) -> int:
    return 2 * -(-int(n) // block_rows(d)) + EXTRA_ADDITIONS


class BlockGram:
    """sum_i (s_i x_i)(s_i x_i)^T by blocks: blocks without a clipped row go straight into X^T X (no copy).
    ``step``: the most rows a block has (its buffer, :attr:`buf`, is made on first use: a pass that scales its blocks
    in place never pays for its pages)."""

    def __init__(self, d: int, radius: float, step: int):
        self.raw, self.scaled = np.zeros((d, d)), np.zeros((d, d))
        self.plain = 1.0 / radius
        self._shape, self._buf = (int(step), int(d)), None
        # X^T X first and 1/R^2 after only where neither can overflow or underflow for bounded rows
        self.unscaled_ok = SAFE_RADIUS[0] <= radius <= SAFE_RADIUS[1]

    @property
    def buf(self) -> np.ndarray:
        """A buffer of ``step`` rows for a block's scaled rows."""
        if self._buf is None:
            self._buf = np.empty(self._shape)
        return self._buf

    def forms(self, s: np.ndarray | None) -> bool:
        """Whether :meth:`add` forms the block's scaled rows for the factors ``s`` (else it adds X^T X of the block)."""
        return not (self.unscaled_ok and (s is None or np.all(s == self.plain)))

    def add_formed(self, Y: np.ndarray) -> None:
        """Add a block whose scaled rows are formed already (the products :meth:`add` forms, where it :meth:`forms`
        them): the same sum, the same bits."""
        self.scaled += Y.T @ Y

    def add(self, B: np.ndarray, s: np.ndarray | None, in_place: bool = False) -> bool:
        """Add a block; ``s`` are its rows' factors, or None when every factor is 1/R. ``in_place``: B may be
        overwritten by its scaled rows where they are formed (then True is returned: B holds them)."""
        if not self.forms(s):
            self.raw += B.T @ B
            return False
        out = B if in_place else self.buf[: B.shape[0]]
        Y = np.multiply(B, self.plain, out=out) if s is None else columns.scale_rows(B, s, out)
        self.scaled += Y.T @ Y
        return in_place

    def result(self) -> np.ndarray:
        # raw is used only where 1/R^2 is finite and not 0 (outside, 0 * inf would make the Gram matrix NaN)
        g = self.raw * (self.plain * self.plain) + self.scaled if self.unscaled_ok else self.scaled.copy()
        g = (g + g.T) / 2.0
        g.setflags(write=False)
        return g


def scaled_gram(X: np.ndarray, scales: np.ndarray, radius: float, divisors: np.ndarray | None = None) -> np.ndarray:
    """The Gram matrix of the scaled rows from the stored factors (one pass by blocks); ``divisors``: the rows are
    those of ``X / divisors``, each block divided as it is read (the products of the divided table's blocks)."""
    step = block_rows(X.shape[1])
    gram = BlockGram(X.shape[1], radius, min(step, X.shape[0]))
    buf = None if divisors is None else np.empty((min(step, X.shape[0]), X.shape[1]))
    for a in range(0, X.shape[0], step):
        gram.add(divide_block(X[a : a + step], divisors, buf), scales[a : a + step])
    return gram.result()

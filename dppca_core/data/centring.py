"""A release's rows centred with its private mean, without forming them (algebraic centring).

A release with a private mean reads the rows twice: once clipped to R (the mean's sums), and once centred with the
released mean and clipped to R again (the Gram matrix, the score plot). :func:`prepare_centred` centres each block in
a buffer, takes its norms, clip factors and Gram matrix: about two passes over n x d on top of the Gram matrix
itself, and no n x d array (the rows are kept as their parts, :class:`CentredRows`). Here, when the first pass formed the Gram matrix G of the scaled rows z_i and their exact
column sums S (:func:`dppca_core.data.prepare.prepare` with ``gram_now`` and ``row_sums``), the Gram matrix of the
centred rows is

    sum_i (z_i - m)(z_i - m)^T = G - S m^T - m S^T + n m m^T,

corrected for the few rows the centring pushes beyond the unit ball: those are found from the norms the first pass
kept and one product X m (a row can only be clipped if ||z_i - m|| >= 1 - margin), then formed and clipped with
exactly the arithmetic of :func:`prepare_centred`, so which rows are clipped, and by what factor, is bit for bit
the same. What reads the rows afterwards reads their projections (:meth:`CentredRows.project`: each row formed in
a buffer and projected in the fixed order, the same bits as projecting the formed rows), blocks of them
(:meth:`CentredRows.form_rows`) or the rows themselves (formed on first use, the same bits as
:func:`prepare_centred`'s). Only the Gram matrix's last bits differ; its rounding bound is
:func:`centred_gram_error_bound` on both paths, so the path taken shows in nothing published. Rows whose columns a
release divides by its column scales are divided wherever they are read (the same quotients as a divided copy's).
"""

from __future__ import annotations

import numpy as np

from ..privacy.grid import UNIT_ROUNDOFF
from ..compiled.columns import scale_rows
from .gram import SAFE_RADIUS, BlockGram, GramAccumulator, scaled_gram, block_rows, gram_error_bound
from .prepare import COMPILED_NORMS_MIN_SIZE, FUSED_GRAM_MAX_D, PreparedData

#: the widest data centred algebraically: up to here the first pass forms the Gram matrix with the row norms
#: (:data:`dppca_core.data.prepare.FUSED_GRAM_MAX_D`); wider data are compute-bound on the Gram matrix itself
ALGEBRAIC_MAX_D = FUSED_GRAM_MAX_D
#: a row whose centred norm is below 1 - this (in units of R), up to rounding, cannot be clipped: rounding moves
#: a norm by at most about (d + 10) u, below 1e-13 for d <= 32, far inside this margin
CANDIDATE_MARGIN = 1e-9
#: beyond this share of rows clipped after centring, the two Gram matrices of the correction cost more than the
#: pass they save: the rows are formed instead (:func:`prepare_centred`, the same rows and the same bound)
MAX_CLIPPED_SHARE = 0.25


def algebraic_size(n: int, d: int) -> bool:
    """Whether rows of this shape are centred algebraically (when numba is installed): at most
    :data:`ALGEBRAIC_MAX_D` columns and the size from which the row norms are compiled. A function of n and d."""
    return int(d) <= ALGEBRAIC_MAX_D and int(n) * int(d) >= COMPILED_NORMS_MIN_SIZE


def algebraic_shape(X) -> bool:
    """:func:`algebraic_size` of a table of rows (an array or a data frame; False for anything else)."""
    shape = getattr(X, "shape", None)
    return shape is not None and len(shape) == 2 and algebraic_size(*shape)


def centred_gram_error_bound(n: int, d: int) -> float:
    """A bound on each entry's rounding error of the centred rows' Gram matrix, on either path, at sizes centred
    algebraically (else the canonical :func:`gram_error_bound`, which the formed rows' Gram matrix meets).

    With u the unit roundoff, E the canonical bound (rows of norm <= 1, ||m|| <= 1) and C the rows clipped again
    (at most :data:`MAX_CLIPPED_SHARE` n of them, else the rows are formed): G errs by at most E; S (exact sums of
    terms truncated to 2^-40, then a float) by n 2^-40 + 2 u n, so each of S m^T and m S^T by n 2^-40 + 3 u n;
    n m m^T by 2 u n; the three additions and the symmetrisation by 4 u 8 n; the correction's two Gram matrices,
    summed by blocks as G is, by E 5 |C| / n (their terms' absolute sum is at most |C| + 4 |C|), and its rows, formed
    with three roundings per entry, by 40 u per row. Together at most (1 + 5 share) E + n 2^-39 + 50 u n; rounded up
    to (1.25 + 5 share) E + n 2^-38 + 64 u n. A function of n and d alone, and the same function at every n up to
    :data:`ALGEBRAIC_MAX_D` columns, whether or not these rows are centred algebraically: which path runs is chosen
    from n x d, and n is private under add/remove, so a bound that changed at that size would move the noise scale
    between two neighbours that straddle it.
    """
    canonical = gram_error_bound(n, d)
    if int(d) > ALGEBRAIC_MAX_D:
        return canonical
    return (1.25 + 5.0 * MAX_CLIPPED_SHARE) * canonical + n * 2.0**-38 + 64.0 * UNIT_ROUNDOFF * n


class CentredRows(PreparedData):
    """The centred, re-clipped rows of a release, kept as the raw rows (with the column scales that divide them, if
    any), their factors, the mean and one weight per row (1/R, or the clip factor of a row clipped again), with their
    Gram matrix (formed algebraically, or by :func:`prepare_centred`'s pass; None: formed on first use, as
    :func:`dppca_core.data.prepare.prepare` of the centred rows forms it). ``gram_error``: the Gram matrix's rounding
    bound (default :func:`centred_gram_error_bound`)."""

    def __init__(self, data: PreparedData, mean, weights, n_clipped: int, gram, gram_error: float | None = None):
        super().__init__(
            data.n,
            data.d,
            data.data_norm,
            gram=gram,
            n_clipped=n_clipped,
            compiled_norms=True,
            gram_error=centred_gram_error_bound(data.n, data.d) if gram_error is None else gram_error,
        )
        source, divisors, factors = data.row_parts()
        self._parts = (source, factors, mean, weights)
        self._divisors = divisors

    @property
    def gram(self) -> np.ndarray:
        """The Gram matrix of the centred rows; formed on first use where it was not (each block centred in a
        buffer and added with its weights, as :func:`dppca_core.data.prepare.prepare` adds the centred rows)."""
        if self._gram is None:
            with self._lock:
                if self._gram is None:
                    self._gram = _centred_pass(self, self._parts[2], with_gram=True)[2]
        return self._gram

    @property
    def has_rows(self) -> bool:
        return True

    @property
    def rows(self) -> np.ndarray:
        """The centred rows, formed on first use: what :func:`prepare_centred` forms, bit for bit."""
        if self._rows is None:
            with self._lock:
                if self._rows is None:
                    rows = self.form_rows(0, self.n, np.empty((self.n, self.d)))
                    rows.setflags(write=False)
                    self._rows = rows
        return self._rows

    def form_rows(self, a: int, b: int, out: np.ndarray, check: bool = True) -> np.ndarray:
        """Rows a to b of :attr:`rows`, bit for bit, formed into the first b - a rows of ``out`` (returned)."""
        from ..compiled import kernels

        if self._rows is not None:
            out[: b - a] = self._rows[a:b]
            return out[: b - a]
        source, factors, mean, weights = self._parts
        block = kernels.scaled_centred(
            source[a:b], factors[a:b], mean, self.data_norm, out=out[: b - a], divisors=self._divisors
        )
        return scale_rows(block, weights[a:b], block)

    def scaled_parts(self) -> tuple:
        return self.rows, None

    def row_parts(self) -> tuple:
        return self.rows, None, None

    def rows_at(self, index: np.ndarray) -> np.ndarray:
        """The centred rows at ``index`` (a new array), formed from their parts without forming the others."""
        from ..compiled import kernels

        if self._rows is not None:
            return self._rows[index]
        source, factors, mean, weights = self._parts
        block = kernels.scaled_centred(source[index], factors[index], mean, self.data_norm, divisors=self._divisors)
        return scale_rows(block, weights[index], block)

    def _site_gram(self, idx: np.ndarray) -> np.ndarray:
        self.rows  # noqa: B018 - formed first: the sites' Gram matrices are sums over the formed rows
        return super()._site_gram(idx)

    def project(self, components: np.ndarray) -> np.ndarray:
        """The rows' projections on ``components``, each row formed in a buffer: the bits projecting
        :attr:`rows` gives (:func:`dppca_core.compiled.kernels.fixed_order_project`), without forming them."""
        from ..compiled.centred import centred_project

        if self._rows is None:
            source, factors, mean, weights = self._parts
            out = centred_project(source, factors, mean, self.data_norm, weights, components, self._divisors)
            if out is not None:
                return out
        return super().project(components)

    def score_cells(self, components: np.ndarray, edges: list) -> np.ndarray:
        """Each row's cell of the score plot: :func:`dppca_core.compiled.cells.flat_cells` of :meth:`project`'s
        projections on one or two ``components``, found a block of rows at a time without the n x k projections
        while the rows are not formed (the same cells)."""
        from ..compiled.cells import flat_cells
        from ..compiled.centred import centred_cells

        cells = None
        if self._rows is None:
            source, factors, mean, weights = self._parts
            cells = centred_cells(source, factors, mean, self.data_norm, weights, components, edges, self._divisors)
        return flat_cells(self.project(components), edges) if cells is None else cells


def centre(data: PreparedData, mean: np.ndarray) -> PreparedData:
    """The rows of ``data`` centred with ``mean`` (in the units of the scaled rows) and clipped to R again, with
    their Gram matrix: algebraically where :func:`centre_algebraically` can, else by :func:`prepare_centred`; the
    same rows, clip count and rounding bound either way."""
    centred = centre_algebraically(data, mean)
    if centred is not None:
        return centred
    formed = prepare_centred(data, mean)
    formed._gram_error = centred_gram_error_bound(formed.n, formed.d)
    return formed


def prepare_centred(data: PreparedData, mean: np.ndarray, *, with_gram: bool = True) -> PreparedData:
    """The rows of ``data`` centred with ``mean`` (a point of the unit ball, in the units of the scaled rows), times
    R, and clipped to R again, with their Gram matrix: bit for bit the ``rows``, ``gram`` and ``n_clipped`` of
    ``prepare(centred_copy, R, gram_now=True)`` for ``centred_copy`` the rows :func:`dppca_core.compiled.kernels.
    scaled_centred` (or ``centred``) forms, in one pass by blocks and without an n x d array.

    Each block of :func:`block_rows` rows is centred into a buffer, its rows' norms and clip factors computed
    (:meth:`GramAccumulator.block_scales`, as :func:`prepare` does) and added to the Gram matrix as :func:`prepare`
    adds it (the same blocks, the same products: the same bits). The result keeps the rows as their parts and one
    weight per row (:class:`CentredRows`, the canonical rounding bound): whatever reads them forms them a block at a
    time, or whole on first use. ``with_gram=False``: the clip factors only (the Gram matrix on first use, the same
    bits), for a mechanism that reads rows alone. Rows already formed are centred into a new array as before."""
    source, divisors, factors = data.row_parts()
    if factors is None:
        return _formed_centred(source, mean, data.data_norm)
    weights, clipped, gram = _centred_pass(data, mean, with_gram)
    return CentredRows(data, mean, weights, clipped, gram, gram_error=gram_error_bound(data.n, data.d))


def _centred_pass(data: PreparedData, mean: np.ndarray, with_gram: bool) -> tuple:
    """(each centred row's weight, 1/R or its clip factor; the clipped count; their Gram matrix or None): one pass
    by blocks over ``data``'s parts (a :class:`PreparedData` or :class:`CentredRows`), each block centred in a
    buffer."""
    from ..compiled import kernels

    source, factors, mean, divisors = _parts_of(data, mean)
    n, d, radius = data.n, data.d, data.data_norm
    probe = GramAccumulator(d, radius, want_sum=False, compiled_norms=n * d >= COMPILED_NORMS_MIN_SIZE)
    step = block_rows(d)
    gram = BlockGram(d, radius, min(step, n)) if with_gram else None
    weights, clipped, buf = np.empty(n), 0, np.empty((min(step, n), d))
    for a in range(0, n, step):
        block = kernels.scaled_centred(
            source[a : a + step], factors[a : a + step], mean, radius, out=buf[: min(step, n - a)], divisors=divisors
        )
        s, over = probe.block_scales(block, first_row=a)
        clipped += int(over.sum())
        weights[a : a + block.shape[0]] = 1.0 / radius if s is None else s
        if gram is not None:
            gram.add(block, s, in_place=True)
    return weights, clipped, None if gram is None else gram.result()


def _parts_of(data: PreparedData, mean: np.ndarray) -> tuple:
    """(raw rows, their factors, the mean, the column divisors) of data prepared from rows, or of centred rows."""
    if isinstance(data, CentredRows):
        source, factors, mean, _ = data._parts
        return source, factors, mean, data._divisors
    source, divisors, factors = data.row_parts()
    return source, factors, mean, divisors


def _formed_centred(rows: np.ndarray, mean: np.ndarray, radius: float) -> PreparedData:
    """Formed rows centred into a new array, clipped and prepared (their Gram matrix in the same pass)."""
    from ..compiled import kernels
    from .prepare import prepare

    return prepare(kernels.centred(rows, mean, radius), radius, gram_now=True, owned=True)


def centre_algebraically(data: PreparedData, mean: np.ndarray) -> CentredRows | None:
    """:class:`CentredRows` for ``data`` centred with ``mean``, or None where the algebraic route does not apply:
    not :func:`algebraic_size`, no Gram matrix, exact sums or kept norms from the first pass, a radius outside the
    range whose squares are safe, no numba, or more than :data:`MAX_CLIPPED_SHARE` of the rows clipped again."""
    from ..compiled.centred import compiled_centred_project
    from ..privacy.exact import SUM_BITS

    source, divisors, factors = data.row_parts() if data.has_rows else (None, None, None)
    n, d, radius = data.n, data.d, data.data_norm
    ready = factors is not None and data.sq_norms is not None and data.gram_formed and data.row_sums is not None
    if not (ready and algebraic_size(n, d) and SAFE_RADIUS[0] <= radius <= SAFE_RADIUS[1]):
        return None
    if compiled_centred_project() is None:
        return None
    mean = np.ascontiguousarray(mean, dtype=float)
    suspects = _suspects(source, divisors, factors, data.sq_norms, mean)
    clipped, factor, formed = _clipped_again(source, divisors, factors, mean, radius, suspects)
    if clipped.size > MAX_CLIPPED_SHARE * n:
        return None
    weights = np.full(n, 1.0 / radius)
    weights[clipped] = factor
    sums = np.array([float(np.ldexp(float(t), -SUM_BITS)) for t in data.row_sums])
    cross = np.outer(sums, mean)
    gram = data.gram - (cross + cross.T) + float(n) * np.outer(mean, mean)
    gram += _correction(formed, factor, radius)
    gram = (gram + gram.T) / 2.0
    gram.setflags(write=False)
    return CentredRows(data, mean, weights, int(clipped.size), gram)


def _suspects(source, divisors, factors, sq_norms, mean) -> np.ndarray:
    """The rows that centring with ``mean`` may push to norm >= 1 - :data:`CANDIDATE_MARGIN` (a superset of those
    it pushes beyond 1): first by the triangle inequality ||z - m|| <= ||z|| + ||m||, then, for the rows left, by
    ||z - m||^2 = ||z||^2 - 2 z.m + ||m||^2 (each term within a few (d + 4) u of its value, far inside the margin),
    in one compiled pass (:func:`dppca_core.compiled.centred.suspects`).

    Rows divided by column scales c (``divisors``) are not divided here: z.m = f sum_j x_j (m_j / c_j), each product
    within 2u of (x_j / c_j) m_j, so the sum stays within (d + 4) u of z.m (|z.m| <= ||z|| ||m|| <= 1). A product
    that is not finite makes its row a suspect."""
    from ..compiled.centred import suspects

    m2 = float(mean @ mean)
    limit = 1.0 - CANDIDATE_MARGIN
    with np.errstate(over="ignore", invalid="ignore"):
        weights = mean if divisors is None else mean / divisors
    return suspects(source, weights, factors, sq_norms, m2, limit - np.sqrt(m2), limit * limit)


def _clipped_again(source, divisors, factors, mean, radius, suspects) -> tuple:
    """(the rows clipped again, their clip factors, their centred rows before clipping): the suspects formed and
    clipped as :func:`prepare_centred` forms and clips every row (the same kernels and norms: the same bits)."""
    from ..compiled import kernels

    d = source.shape[1]
    formed = kernels.scaled_centred(source[suspects], factors[suspects], mean, radius, divisors=divisors)
    probe = GramAccumulator(d, radius, want_sum=False, compiled_norms=True)
    s, over = probe.block_scales(formed)
    if s is None:
        return suspects[:0], np.empty(0), formed[:0]
    return suspects[over], s[over], formed[over]


def _correction(formed: np.ndarray, factor: np.ndarray, radius: float) -> np.ndarray:
    """sum over the rows clipped again of r r^T - y y^T (r the clipped row, y the row at scale 1/R): two Gram
    matrices summed by blocks as the first pass sums G (:func:`dppca_core.data.gram.scaled_gram`)."""
    if formed.shape[0] == 0:
        return np.zeros((formed.shape[1], formed.shape[1]))
    plain = np.full(formed.shape[0], 1.0 / radius)
    return scaled_gram(formed, factor, radius) - scaled_gram(formed, plain, radius)

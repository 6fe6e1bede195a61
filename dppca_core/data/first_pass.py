"""The first pass of :func:`dppca_core.data.prepare.prepare` over a table's rows, block by block: each row's norm and
clip factor, the clipped count, and (asked for) the Gram matrix of the scaled rows, their exact column sums and the
squared norms, every block read once while it is in cache.

A release that scales its columns (public bounds or private scales) passes its column scales here as ``divisors``:
each block is divided as it is read, into a buffer of :func:`dppca_core.data.gram.block_rows` rows, and everything
above is computed from that buffer, so the quotients, the norms, the factors, the Gram matrix and the sums are those
of the divided table (bit for bit: a quotient is correctly rounded wherever it is computed) without forming it.
"""

from __future__ import annotations

import numpy as np

from ..compiled.columns import scale_rows
from ..compiled.loops import row_sq_norms
from .gram import GramAccumulator, BlockGram, block_rows, divide_block


def first_pass(
    X: np.ndarray,
    radius: float,
    with_gram: bool = False,
    compiled_norms: bool = False,
    with_sums: bool = False,
    sq_norms: np.ndarray | None = None,
    keep_sq: bool = False,
    divisors: np.ndarray | None = None,
) -> tuple:
    """(each row's factor s_i = min(1, R/||y_i||)/R, the clipped count, the Gram matrix of the scaled rows s_i y_i
    (``with_gram``, else None), their exact column sums (``with_sums``; else, or for an entry out of range, None),
    the squared norms (``keep_sq``, else None)), for the rows y_i of X, or of ``X / divisors`` when given (each block
    divided as it is read). ``sq_norms`` given (the squared norms of those rows, as :func:`dppca_core.data.gram.
    block_sq_norms` or :func:`dppca_core.data.gram.divided_sq_norms` computes them) are read instead of computed."""
    from ..compiled.kernels import scaled_row_sums
    from ..privacy.exact import SUM_BITS, TERM_LIMIT

    n, d = X.shape
    probe = GramAccumulator(d, radius, want_sum=False, compiled_norms=compiled_norms)
    step = block_rows(d)
    scales, clipped = np.empty(n), 0
    gram = BlockGram(d, radius, min(step, n)) if with_gram else None
    sums = [0] * d if with_sums else None
    kept = sq_norms if sq_norms is not None or not keep_sq else np.empty(n)
    buf = None if divisors is None else (gram.buf if gram is not None else np.empty((min(step, n), d)))
    for a in range(0, n, step):
        raw, factors = X[a : a + step], scales[a : a + step]
        over = -1
        if sq_norms is not None and divisors is not None and sums is not None:
            over = probe.clip_factors(sq_norms[a : a + step], factors)  # the norms decide: no entry read yet
        if over >= 0:
            s = None if over == 0 else factors
            block = _divided_block(raw, divisors, s, factors, gram, buf)  # each entry divided once, for sums and G
        else:
            B = divide_block(raw, divisors, buf)
            sq = row_sq_norms(B, compiled_norms) if sq_norms is None else sq_norms[a : a + step]
            if kept is not None and sq_norms is None:  # computed as block_scales computes them, and kept
                kept[a : a + step] = sq
            over = probe.clip_factors(sq, factors)
            if over < 0:  # a norm that is not finite, or a radius whose squares are unsafe: the entries decide
                s, flags = probe.block_scales(B, first_row=a, sq=sq)
                factors[:] = 1.0 / radius if s is None else s
                over = int(flags.sum())
            s = None if over == 0 else factors
            formed = gram.buf[: B.shape[0]] if gram is not None and sums is not None and gram.forms(s) else None
            if gram is not None and formed is None:
                gram.add(B, s)
            if sums is not None:  # scaled once for G and the sums
                block = scaled_row_sums(B, factors, SUM_BITS, TERM_LIMIT, formed=formed)
            if formed is not None:
                gram.add_formed(formed)
        clipped += over
        if sums is not None:  # integers: the block sums add up to the sums of one pass, in any order
            sums = None if block is None else [t + b for t, b in zip(sums, block)]
    return scales, clipped, None if gram is None else gram.result(), sums, kept if keep_sq else None


def _divided_block(raw, divisors, s, factors, gram, buf) -> list | None:
    """The exact sums of one block of a first pass with column divisors whose factors (``factors``; ``s`` as
    :meth:`GramAccumulator.block_scales` gives them) its norms decided, the Gram matrix fed: each entry divided
    once, in the pass that sums the scaled rows and writes the rows the Gram matrix reads (scaled where it forms
    them, else divided: the rows :func:`divide_block` and the Gram matrix's own products give, bit for bit)."""
    from ..compiled.columns import divided_row_sums
    from ..privacy.exact import SUM_BITS, TERM_LIMIT

    forms = gram is not None and gram.forms(s)
    into = buf[: raw.shape[0]]  # the Gram matrix's own buffer where there is one: it reads the rows from there
    block = divided_row_sums(raw, divisors, factors, SUM_BITS, TERM_LIMIT, into, scaled=forms)
    if forms:
        gram.add_formed(into)
    elif gram is not None:
        gram.add(into, None if s is None else factors)
    return block


def prepare_rescaled(data, factors: np.ndarray, check: bool = True):
    """The rows of ``data`` (a :class:`dppca_core.data.prepare.PreparedData`) multiplied by ``factors`` (one per
    row), prepared at radius 1: the n, d, clip count and Gram matrix ``prepare(data.rows * factors[:, None], 1.0)``
    gives, bit for bit (the same blocks of :func:`block_rows` rows, the same products, norms, clip factors and
    sums), without forming either n x d array: each block formed (:meth:`PreparedData.row_blocks`), multiplied in
    a buffer and added while it is in cache. No rows are kept (the result reads as statistics: n and the Gram
    matrix, with the canonical rounding bound). ``check``: as :meth:`PreparedData.form_rows` (False for a caller
    whose earlier pass checked the rows)."""
    from .prepare import COMPILED_NORMS_MIN_SIZE, PreparedData

    n, d = data.n, data.d
    step = block_rows(d)
    probe = GramAccumulator(d, 1.0, want_sum=False, compiled_norms=n * d >= COMPILED_NORMS_MIN_SIZE)
    gram = BlockGram(d, 1.0, min(step, n))
    buf = np.empty((min(step, n), d))
    clipped = 0
    for a, block in data.row_blocks(step, check):
        rescaled = scale_rows(block, factors[a : a + block.shape[0]], buf[: block.shape[0]])
        s, over = probe.block_scales(rescaled, first_row=a)
        clipped += int(over.sum())
        gram.add(rescaled, s, in_place=True)
    return PreparedData(n, d, 1.0, gram=gram.result(), n_clipped=clipped)

"""prepare(): blockwise clipping into the Gram matrix, rows formed on demand, per-site Gram matrices memoised."""

import tracemalloc

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.data.prepare import GramAccumulator, block_rows, prepare
from dppca_core.data.sites import split_sites


def reference(X, R):
    """Rows clipped by the textbook formula, with norms computed safely for huge and tiny entries."""
    peak = np.abs(X).max(axis=1)
    peak = np.where(peak > 0, peak, 1.0)
    norms = np.linalg.norm(X / peak[:, None], axis=1) * peak
    over = norms > R
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        rows = np.where(over[:, None], X / np.where(over, norms, 1.0)[:, None], X / R)
    return rows, int(over.sum())


@pytest.mark.parametrize("scale", [1e-200, 1e-3, 0.3, 1.0, 7.0, 1e200, 1e300])
@pytest.mark.parametrize("R", [1e-150, 0.5, 1.0, 3.0, 1e150])
def test_gram_rows_and_count_match_the_textbook_clipping(scale, R):
    rng = np.random.default_rng(int(np.log10(scale) + 400) * 7 + int(np.log10(R) + 200))
    # more rows than one block, so several blocks (with and without clipped rows) are summed
    X = rng.standard_normal((2 * block_rows(6) + 17, 6)) * scale * rng.uniform(0.1, 2.0, size=(1, 1))
    X[5] = 0.0  # a zero row is never clipped
    rows, clipped = reference(X, R)
    p = prepare(X, R)
    assert p.n_clipped == clipped
    # every scaled row has norm <= 1 (up to a few ulps), and the Gram matrix is that of the scaled rows
    # (sums of ~25k terms of size <= 1: rounding ~1e-12 relative to the trace)
    assert np.linalg.norm(p.rows, axis=1).max() <= 1 + 1e-12
    assert np.allclose(p.rows, rows, rtol=1e-13, atol=0)
    G = rows.T @ rows
    assert np.max(np.abs(p.gram - G)) <= 1e-12 * max(np.trace(G), 1e-300)


def test_rows_already_on_the_radius_are_not_counted_as_clipped():
    X = np.random.default_rng(1).standard_normal((500, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)  # norms 1 up to an ulp or two
    assert prepare(X, 1.0).n_clipped == 0
    assert prepare(X * 1.001, 1.0).n_clipped == 500


def test_prepare_keeps_no_copy_of_x_and_forms_rows_only_when_asked():
    X = np.random.default_rng(2).standard_normal((200_000, 20)) * 0.5  # 32 MB, about a third of rows clipped
    from dppca_core.compiled.loops import row_sq_norms

    row_sq_norms(X[:2])  # the compiled kernel is loaded once per process (numba's import): not per call
    tracemalloc.start()
    try:
        p = prepare(X, 1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one block and its scaled copy (2 x 2 MB), the d x d matrices and one scale per row (1.6 MB): far below
    # a copy of X (32 MB), which the old code made twice
    assert peak < 0.25 * X.nbytes, peak
    assert p.n_clipped > 0 and p.has_rows and p._rows is None
    rows, _ = reference(X, 1.0)
    assert np.allclose(p.rows, rows, rtol=1e-13, atol=0) and not p.rows.flags.writeable


def test_changing_x_after_prepare_is_detected():
    X = np.random.default_rng(3).standard_normal((300, 3))
    p = prepare(X, 1.0)
    X[10] *= 5.0
    with pytest.raises(ValueError, match="modified afterwards"):
        p.rows


def test_non_finite_values_are_refused_with_their_position():
    X = np.ones((3 * block_rows(3), 3))
    X[2 * block_rows(3) + 4, 2] = np.nan
    with pytest.raises(ValueError, match=rf"NaN or infinite values \(first at row {2 * block_rows(3) + 4}, column 2\)"):
        prepare(X)
    with pytest.raises(ValueError, match="NaN or infinite"):
        prepare([[1.0, np.inf], [0.0, 1.0]])


def test_accumulator_merge_and_sum():
    rng = np.random.default_rng(4)
    A, B = rng.standard_normal((400, 5)), rng.standard_normal((300, 5)) * 3
    one = GramAccumulator(5, 2.0)
    one.add(np.vstack([A, B]))
    two = GramAccumulator(5, 2.0)
    two.add(A)
    other = GramAccumulator(5, 2.0)
    other.add(B)
    two.merge(other)
    rows, clipped = reference(np.vstack([A, B]), 2.0)
    for acc in (one, two):
        assert acc.n == 700 and acc.n_clipped == clipped
        assert np.allclose(acc.gram, rows.T @ rows, rtol=1e-12) and np.allclose(acc.sum, rows.sum(axis=0))
    with pytest.raises(ValueError, match="different"):
        two.merge(GramAccumulator(5, 1.0))


def test_site_grams_are_memoised_per_partition_and_exact():
    X = np.random.default_rng(5).standard_normal((1000, 4))
    labels = np.array(list("abc"))[np.random.default_rng(6).integers(0, 3, 1000)]
    p = prepare(X, 1.5)
    rows, _ = reference(X, 1.5)
    for sites in (4, [100, 400, 500], labels):
        part = p.site_partition(sites)
        assert p.site_partition(sites) is part  # memoised: a second run does not rebuild it
        idx = split_sites(1000, sites) if not isinstance(sites, list) else np.split(np.arange(1000), [100, 500])
        for g, i in zip(part.grams, idx):
            assert np.allclose(g, rows[i].T @ rows[i], rtol=1e-12)
        assert part.sizes.tolist() == [len(i) for i in idx]
    assert p.site_partition(np.array([100, 400, 500])) is p.site_partition([100, 400, 500])
    assert p._rows is None  # site Gram matrices were built from X and the scales, without forming the rows


def test_gram_from_chunks_matches_prepare():
    X = np.random.default_rng(8).standard_normal((900, 6)) * 2
    streamed = dc.gram_from_chunks(np.array_split(X, 7), data_norm=1.5)
    direct = prepare(X, 1.5)
    assert streamed.n == 900 and streamed.n_clipped == direct.n_clipped
    assert np.allclose(streamed.gram, direct.gram, rtol=1e-12) and not streamed.has_rows


def test_narrow_data_get_the_gram_in_the_norm_pass_and_wide_data_on_first_use():
    from dppca_core.data.prepare import FUSED_GRAM_MAX_D

    rng = np.random.default_rng(11)
    for d in (FUSED_GRAM_MAX_D, FUSED_GRAM_MAX_D + 1):
        X = rng.standard_normal((3 * block_rows(d) + 5, d)) * 0.4  # some rows clipped, some not
        p = prepare(X, 1.0)
        assert (p._gram is not None) == (d <= FUSED_GRAM_MAX_D)
        rows, _ = reference(X, 1.0)
        assert np.max(np.abs(p.gram - rows.T @ rows)) <= 1e-12 * np.trace(rows.T @ rows)
        assert not p.gram.flags.writeable
    assert prepare(X[:, :4], 1.0, gram_now=False)._gram is None  # callers that only read rows skip it


def test_rows_at_gathers_scaled_rows_without_materialising_and_notices_changes():
    rng = np.random.default_rng(12)
    X = rng.standard_normal((5000, 7)) * 0.5  # some rows clipped
    p = prepare(X, 1.0)
    order = rng.permutation(5000)
    expected, _ = reference(X, 1.0)
    assert np.allclose(p.rows_at(order[:900]), expected[order[:900]], rtol=1e-13, atol=0)
    assert np.array_equal(p.rows_at(order[:900]), prepare(X, 1.0).rows[order[:900]])  # same arithmetic as rows
    assert p._rows is None  # nothing materialised
    X[order[3]] *= 10.0  # changed after prepare
    with pytest.raises(ValueError, match="modified"):
        p.rows_at(order[:900])
    q = prepare(rng.standard_normal((300, 3)), 1.0)
    assert np.array_equal(q.rows_at(np.arange(5)), q.rows[:5])  # after materialising, read from the rows


def test_squared_row_norms_agree_with_einsum_and_do_not_depend_on_layout():
    from dppca_core.compiled.loops import row_sq_norms

    X = np.random.default_rng(5).standard_normal((3001, 20)) * np.logspace(-3, 3, 20)
    sq = row_sq_norms(X)
    assert np.allclose(sq, np.einsum("ij,ij->i", X, X), rtol=1e-14, atol=0)
    # the same row gives the same bits whatever block or memory layout it arrives in (scale factors are
    # recomputed and compared when rows are gathered later)
    assert np.array_equal(row_sq_norms(np.asfortranarray(X)), sq)
    assert np.array_equal(row_sq_norms(X[::-1])[::-1], sq)
    assert np.array_equal(row_sq_norms(X[1000:1017]), sq[1000:1017])
    bad = X[:4].copy()
    bad[1, 3], bad[2, 0] = np.nan, np.inf
    out = row_sq_norms(bad)
    assert np.isnan(out[1]) and np.isinf(out[2]) and np.isfinite(out[[0, 3]]).all()


@pytest.mark.parametrize("n", [5000, 200_000])  # einsum below COMPILED_NORMS_MIN_SIZE entries, compiled above
def test_prepared_fortran_ordered_rows_are_gathered_without_a_false_modification_alarm(n):
    from dppca_core.data.prepare import COMPILED_NORMS_MIN_SIZE

    X = np.asfortranarray(np.random.default_rng(6).standard_normal((n, 7)))  # most rows clipped at R = 1.5
    p = prepare(X, 1.5)
    assert p._compiled_norms == (X.size >= COMPILED_NORMS_MIN_SIZE)
    order = np.random.default_rng(7).permutation(n)
    assert p.n_clipped > n // 5
    for size in (777, 1, 13_000):
        assert np.array_equal(p.rows_at(order[:size]), prepare(np.ascontiguousarray(X), 1.5).rows[order[:size]])
    assert np.allclose(p.rows, X * np.minimum(1.0, 1.5 / np.linalg.norm(X, axis=1))[:, None] / 1.5, rtol=1e-14)
    with pytest.raises(ValueError, match="NaN or infinite"):
        prepare(np.where(np.arange(7) == 3, np.nan, X[:50]), 1.5)


@pytest.mark.parametrize("d", [7, 40])
@pytest.mark.parametrize("R", [1.0, 3.7])
@pytest.mark.parametrize("clipped_first", [True, False])
def test_centring_in_one_pass_gives_the_bits_of_centring_then_preparing(d, R, clipped_first):
    """prepare_centred: the rows and Gram matrix prepare() gives for the centred copy, bit for bit, with the same
    rows clipped after centring (some blocks without a clipped row, some with)."""
    from dppca_core.compiled import kernels
    from dppca_core.data.centring import prepare_centred

    rng = np.random.default_rng(d)
    n = 3 * block_rows(d) + 17
    X = rng.normal(size=(n, d))
    radii = rng.uniform(0.0, 1.5 if clipped_first else 0.99, n)  # above 1: clipped in the first pass
    radii[block_rows(d) : 2 * block_rows(d)] *= 0.05  # a block whose rows stay within R of the mean: none clipped
    X *= (R * radii / np.linalg.norm(X, axis=1))[:, None]
    data = prepare(X, R, gram_now=False)
    mean = np.full(d, 0.9 / np.sqrt(d))  # far from the rows' mean: many rows clipped again after centring
    source, factors = data.scaled_parts()
    centred = kernels.centred(source, mean, R) if factors is None else kernels.scaled_centred(source, factors, mean, R)
    expected = prepare(centred, R, owned=True, gram_now=True)
    fused = prepare_centred(data, mean)
    assert fused.n_clipped == expected.n_clipped and 0 < fused.n_clipped < n
    assert np.array_equal(fused.gram.view(np.int64), expected.gram.view(np.int64))
    assert np.array_equal(fused.rows.view(np.int64), expected.rows.view(np.int64))
    assert np.all(np.linalg.norm(fused.rows, axis=1) <= 1.0 + 1e-12)


@pytest.mark.parametrize("d", [7, 40])
def test_centring_forms_no_copy_and_its_rows_are_those_of_the_centred_copy(d):
    """prepare_centred keeps the centred rows as their parts (issue 64: no n x d array in the release path at any
    width): the Gram matrix and clipped count of its pass, and the rows formed on first use, a block at a time, or
    gathered, are those of the centred copy prepared, bit for bit; without the Gram matrix, it comes on first use
    with the same bits."""
    from dppca_core.compiled import kernels
    from dppca_core.data.centring import CentredRows, prepare_centred

    kernels.warm_up()  # the compiled centring runs at every size once numba is imported (the numpy loop without it)
    rng = np.random.default_rng(d)
    n = 3 * block_rows(d) + 17
    X = rng.normal(size=(n, d)) * rng.uniform(0.0, 1.2, (n, 1))  # some rows clipped before centring, some after
    mean = np.full(d, 0.5 / np.sqrt(d))
    data = prepare(X, 1.0, gram_now=False)
    source, factors = data.scaled_parts()
    expected = prepare(kernels.scaled_centred(source, factors, mean, 1.0), 1.0, owned=True, gram_now=True)
    lazy = prepare_centred(data, mean)
    assert isinstance(lazy, CentredRows) and lazy.n_clipped == expected.n_clipped > 0
    assert np.array_equal(lazy.gram.view(np.int64), expected.gram.view(np.int64))
    index = rng.permutation(n)[:500]
    assert np.array_equal(lazy.rows_at(index).view(np.int64), expected.rows[index].view(np.int64))
    blocks = np.vstack([block.copy() for _, block in lazy.row_blocks(1000)])
    assert not lazy.rows_formed and np.array_equal(blocks.view(np.int64), expected.rows.view(np.int64))
    assert np.array_equal(lazy.rows.view(np.int64), expected.rows.view(np.int64))
    later = prepare_centred(data, mean, with_gram=False)
    assert not later.gram_formed and later.n_clipped == expected.n_clipped
    assert np.array_equal(later.gram.view(np.int64), expected.gram.view(np.int64))


@pytest.mark.parametrize("d", [3, 40])
def test_the_exact_row_sums_formed_in_the_norm_pass_are_those_of_a_separate_pass(d):
    from dppca_core.privacy.exact import FixedSums

    rng = np.random.default_rng(d)
    X = rng.normal(size=(2 * block_rows(d) + 5, d)) * rng.uniform(0.0, 2.0, (2 * block_rows(d) + 5, 1))
    data = prepare(X, 1.5, gram_now=False, row_sums=True)
    assert data.n_clipped > 0
    source, factors = data.scaled_parts()
    assert data.row_sums == FixedSums.of_scaled_rows(source, factors).totals == FixedSums(data.rows).totals
    assert prepare(X, 1.5).row_sums is None


@pytest.mark.parametrize("n,d", [(300, 5), (70_001, 20)])  # the second: the compiled norms, blocks and a partial one
def test_shared_squared_norms_give_the_same_prepared_data(n, d):
    """A private radius reads the rows' squared norms once and hands them to prepare (a pass less): the factors,
    clipped count, exact sums and rows are those prepare computes itself, and the rows still notice a change of X."""
    from dppca_core.data.gram import block_sq_norms
    from dppca_core.data.prepare import COMPILED_NORMS_MIN_SIZE

    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, d)) * np.exp(rng.uniform(-3, 2, (n, 1)))  # norms over five orders, many clipped
    sq = block_sq_norms(X, compiled=X.size >= COMPILED_NORMS_MIN_SIZE)
    shared = prepare(X, 2.0, row_sums=True, sq_norms=sq)
    own = prepare(X, 2.0, row_sums=True)
    assert np.array_equal(shared._scales, own._scales) and shared.n_clipped == own.n_clipped > 0
    assert shared.row_sums == own.row_sums and np.array_equal(shared.rows, own.rows)
    with pytest.raises(ValueError, match="squared row norms"):
        prepare(X, 2.0, sq_norms=sq[:-1])
    as_list = prepare(X[:50].tolist(), 2.0, sq_norms=np.zeros(50))  # a converted copy: its own norms, not these
    assert np.array_equal(as_list.rows, prepare(X[:50], 2.0).rows)
    changed = prepare(X, 2.0, sq_norms=sq)
    X[7] *= 3.0
    with pytest.raises(ValueError, match="modified"):
        changed.rows

"""The compiled loops of the publishable path: the fixed-order projection gives the bits of the column loop it
replaces and each row's result depends on that row alone; the fixed-point sums are the exact integer sums."""

import math

import numpy as np
import pytest

from dppca_core.privacy import exact
from dppca_core.compiled import cells, columns, kernels
from dppca_core.privacy.exact import SUM_BITS, FixedSums

pytest.importorskip("numba")  # imported here, so the compiled loops run at every size (kernels.compiled_worth)


def column_loop(rows, components):
    """The projection as scores.project computed it before the kernel (the reference bits)."""
    out = np.zeros((rows.shape[0], components.shape[1]))
    for j in range(rows.shape[1]):
        out += rows[:, j : j + 1] * components[j]
    return out


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def awkward_rows(rng, n, d):
    """Rows of norm <= 1 with entries of very different sizes, signed zeros and exact ties."""
    X = rng.standard_normal((n, d)) * rng.choice([1.0, 1e-8, 1e8], size=(1, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    X[::7, 0] = -0.0
    X[::11] = X[0]
    return X


@pytest.mark.parametrize(
    "n,d,k",
    # the compiled loop takes eight columns at a time: d below, at and above multiples of 8 (a remainder of 1 and 7)
    [(1, 1, 1), (5, 3, 2), (63, 4, 1), (64, 20, 2), (65, 20, 5), (1000, 7, 7), (3001, 30, 3), (200, 100, 100)]
    + [(300, 8, 3), (129, 9, 9), (1000, 17, 6), (97, 23, 23), (40, 64, 1)],
)
def test_projection_has_the_bits_of_the_column_loop(n, d, k):
    rng = np.random.default_rng(n * 1000 + d)
    X = awkward_rows(rng, n, d)
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    want = column_loop(X, V)
    for compiled in (True, False):
        got = kernels.fixed_order_project(X, V, compiled=compiled)
        assert got.shape == (n, k)
        assert np.array_equal(bits(got), bits(want)), compiled
    # a strided view (every other row, components as a non-contiguous slice) gives the same bits
    W = np.linalg.qr(rng.standard_normal((d, 2 * k)))[0][:, ::2]
    assert np.array_equal(bits(kernels.fixed_order_project(X[::2], W)), bits(column_loop(X[::2], W)))


def test_projection_of_a_row_depends_on_that_row_alone():
    rng = np.random.default_rng(3)
    X = awkward_rows(rng, 777, 13)
    V = np.linalg.qr(rng.standard_normal((13, 4)))[0]
    whole = kernels.fixed_order_project(X, V)
    perm = rng.permutation(777)
    assert np.array_equal(bits(kernels.fixed_order_project(X[perm], V)), bits(whole[perm]))
    extra = np.vstack([rng.standard_normal((5, 13)) * 1e6, X, rng.standard_normal((70, 13))])
    assert np.array_equal(bits(kernels.fixed_order_project(extra, V)[5:782]), bits(whole))
    for i in (0, 63, 64, 500, 776):
        assert np.array_equal(bits(kernels.fixed_order_project(X[i : i + 1], V)[0]), bits(whole[i]))


def test_projection_refuses_mismatched_shapes_and_handles_no_rows():
    with pytest.raises(ValueError, match="cannot project"):
        kernels.fixed_order_project(np.ones((3, 4)), np.ones((5, 2)))
    assert kernels.fixed_order_project(np.zeros((0, 4)), np.ones((4, 2))).shape == (0, 2)


def exact_column_sums(terms):
    """Each term truncated toward zero to a multiple of 2^-SUM_BITS, summed as Python integers (no float sum)."""
    return [sum(math.trunc(math.ldexp(float(t), SUM_BITS)) for t in column) for column in terms.T]


def test_fixed_sums_are_the_exact_integer_sums():
    rng = np.random.default_rng(9)
    terms = rng.uniform(-1, 1, size=(2500, 6)) * np.array([1, 1e-3, 1e-12, 2.0**-45, 0.5, 1])
    terms[3] = [1.0, -1.0, -0.0, 5e-324, -(2.0**-40), 1.0 + 1e-12]
    want = exact_column_sums(terms)
    assert FixedSums(terms).totals == want
    assert FixedSums(terms[:1000]).add(terms[1000:]).totals == want
    for compiled in (True, False):
        assert kernels.fixed_point_column_sums(terms, SUM_BITS, 1.0 + 1e-12, compiled).tolist() == want


def test_fixed_sums_across_integer_chunks(monkeypatch):
    rng = np.random.default_rng(1)
    terms = rng.uniform(-1, 1, size=(50, 3))
    monkeypatch.setattr(exact, "_SUM_CHUNK", 7)
    assert FixedSums(terms).totals == exact_column_sums(terms)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1.0 + 1e-9, -2.0])
def test_fixed_sums_refuse_terms_outside_the_unit_interval(bad):
    terms = np.zeros((300, 2))
    terms[217, 1] = bad
    sums = FixedSums(width=2)
    with pytest.raises(ValueError, match="terms in"):
        sums.add(terms)
    assert sums.totals == [0, 0]  # nothing added from a refused block
    for compiled in (True, False):
        assert kernels.fixed_point_column_sums(terms, SUM_BITS, 1.0 + 1e-12, compiled) is None


def blockwise_variance_sums(rows, V, rotate):
    """The variance terms as parts._variance_terms sums them block by block: projections, products, squared norms."""
    k = V.shape[1]
    iu = np.triu_indices(k)
    sums = FixedSums(width=(len(iu[0]) if rotate else k) + 1)
    for a in range(0, rows.shape[0], 97):
        block = rows[a : a + 97]
        Y = column_loop(block, V)
        products = (Y[:, iu[0]] * Y[:, iu[1]]) if rotate else Y * Y
        sums.add(np.column_stack([products, np.einsum("ij,ij->i", block, block)]))
    return sums.totals


@pytest.mark.parametrize("rotate", [False, True])
@pytest.mark.parametrize("n,d,k", [(1, 3, 1), (130, 6, 2), (1000, 20, 5), (257, 40, 40)])
def test_projected_product_sums_are_the_blockwise_sums(rotate, n, d, k):
    rng = np.random.default_rng(n + d + k)
    X = awkward_rows(rng, n, d)
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    first, second = np.triu_indices(k) if rotate else (np.arange(k), np.arange(k))
    norms = np.einsum("ij,ij->i", X, X)
    want = blockwise_variance_sums(X, V, rotate)
    assert FixedSums.of_projected_products(X, V, first, second, norms).totals == want
    for compiled in (True, False):
        assert kernels.projected_product_sums(X, V, first, second, norms, SUM_BITS, 1.0 + 1e-12, compiled) == want
        kept = np.full((n, k), np.nan)  # the projections the pass computed, kept for the score plot
        assert (
            kernels.projected_product_sums(
                X, V, first, second, norms, SUM_BITS, 1.0 + 1e-12, compiled, projections=kept
            )
            == want
        )
        assert np.array_equal(bits(kept), bits(kernels.fixed_order_project(X, V, compiled=False)))


@pytest.mark.parametrize("n,d,k", [(1, 3, 1), (130, 6, 2), (1000, 21, 5), (257, 40, 40)])
def test_without_norms_the_pass_sums_each_rows_squared_norm_in_column_order(n, d, k):
    """norms=None: the squared norms the pass computes are fixed_order_sq_norms (each row's own, summed in column
    order), compiled or not; and that loop is the column-by-column sum, wherever the row sits."""
    rng = np.random.default_rng(n + d + k)
    X = awkward_rows(rng, n, d)
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    first, second = np.arange(k), np.arange(k)
    norms = kernels.fixed_order_sq_norms(X)
    expected = np.zeros(n)
    for j in range(d):
        expected = expected + X[:, j] * X[:, j]
    assert np.array_equal(bits(norms), bits(expected))
    assert np.array_equal(bits(kernels.fixed_order_sq_norms(X[1:])), bits(norms[1:]))
    want = kernels.projected_product_sums(X, V, first, second, norms, SUM_BITS, 1.0 + 1e-12, False)
    for compiled in (True, False):
        assert kernels.projected_product_sums(X, V, first, second, None, SUM_BITS, 1.0 + 1e-12, compiled) == want
    assert FixedSums.of_projected_products(X, V, first, second).totals == want


def test_projected_product_sums_refuse_rows_outside_the_unit_ball():
    X = np.full((10, 2), 0.9)  # norm 1.27: the squared norm is out of range
    with pytest.raises(ValueError, match="terms in"):
        FixedSums.of_projected_products(X, np.eye(2), [0, 1], [0, 1], np.einsum("ij,ij->i", X, X))
    for compiled in (True, False):
        assert (
            kernels.projected_product_sums(X, np.eye(2), [0], [0], np.einsum("ij,ij->i", X, X), SUM_BITS, 1.0, compiled)
            is None
        )


@pytest.mark.parametrize("compiled", [True, False])
def test_clipped_square_sums_are_the_sums_of_the_clipped_squares(compiled):
    from dppca_core.pipeline.choices import clipped_squares

    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 6)) * np.array([1.0, 1e3, 1e-3, 5.0, 0.2, 80.0])
    X[3] = [-0.0, 1e308, -1e-320, 5.0, -0.2, 80.0]
    bounds = np.array([2.0, 1500.0, 0.004, 5.0, 0.1, 1e9])
    want = FixedSums(clipped_squares(X, bounds)).totals
    assert columns.clipped_square_sums(X, bounds, SUM_BITS, 1.0 + 1e-12, compiled) == want
    X[9, 2] = np.nan
    assert columns.clipped_square_sums(X, bounds, SUM_BITS, 1.0 + 1e-12, compiled) is None


@pytest.mark.parametrize("compiled", [True, False])
def test_clipped_square_sums_stay_exact_across_the_float_runs(compiled):
    # 9,000 rows: three runs of EXACT_FLOAT_ROWS summed as floats, every term at the largest it can be (1, from
    # values at or beyond the bound, infinities included) in one column and just below 1 in another
    rng = np.random.default_rng(15)
    X = np.column_stack([np.full(9000, 3.0), np.full(9000, 2.0 * (1 - 2**-40)), rng.standard_normal(9000)])
    X[::7, 0] = -np.inf
    bounds = np.array([2.0, 2.0, 0.5])
    want = FixedSums(np.minimum(np.abs(X) / bounds, 1.0) ** 2).totals
    assert 9000 > 2 * kernels.EXACT_FLOAT_ROWS and want[0] == 9000 << SUM_BITS
    assert columns.clipped_square_sums(X, bounds, SUM_BITS, 1.0 + 1e-12, compiled) == want


@pytest.mark.parametrize("compiled", [True, False])
def test_centred_rows_have_the_bits_of_numpys_two_passes(compiled):
    rng = np.random.default_rng(6)
    X = awkward_rows(rng, 513, 9)
    mean = rng.standard_normal(9) * 1e-3
    for scale in (1.0, 3.7, 1e-300):
        assert np.array_equal(bits(kernels.centred(X, mean, scale, compiled)), bits((X - mean) * scale))


def test_fixed_sums_of_clipped_squares():
    from dppca_core.pipeline.choices import clipped_squares

    X = np.random.default_rng(8).standard_normal((300, 4)) * 3
    bounds = np.array([1.0, 2.0, 4.0, 8.0])
    assert FixedSums.of_clipped_squares(X, bounds).totals == FixedSums(clipped_squares(X, bounds)).totals
    with pytest.raises(ValueError, match="terms in"):
        FixedSums.of_clipped_squares(np.full((3, 4), np.nan), bounds)  # infinities clip to the bound; NaN has no place


@pytest.mark.parametrize("compiled", [True, False])
def test_scaled_centred_rows_have_the_bits_of_forming_the_rows_then_centring(compiled):
    rng = np.random.default_rng(7)
    X = awkward_rows(rng, 513, 9)
    factors = np.abs(rng.standard_normal(513)) + 0.5
    mean = rng.standard_normal(9) * 1e-3
    for scale in (1.0, 3.7, 1e-300):
        want = kernels.centred(X * factors[:, None], mean, scale, compiled=False)
        assert np.array_equal(bits(kernels.scaled_centred(X, factors, mean, scale, compiled)), bits(want))


def test_rows_formed_in_place_from_an_owned_array_equal_the_checked_ones():
    from dppca_core.pipeline.parts import _exact_row_sums
    from dppca_core.data.prepare import prepare

    X = np.random.default_rng(3).standard_normal((5000, 7)) * 2.0  # many rows clipped
    checked = prepare(X.copy(), 3.0)
    owned = prepare(X.copy(), 3.0, owned=True)
    source, factors = owned.scaled_parts()
    assert factors is not None and source.shape == X.shape
    assert _exact_row_sums(owned).totals == FixedSums(checked.rows).totals  # summed without forming the rows
    assert np.array_equal(bits(owned.rows), bits(checked.rows))
    assert owned.scaled_parts()[1] is None and not owned.rows.flags.writeable
    assert np.array_equal(bits(owned.gram), bits(checked.gram))


@pytest.mark.parametrize("compiled", [True, False])
def test_cells_of_the_score_plot_are_those_of_a_binary_search(compiled):
    """Values on, just below and just above every edge, and beyond both ends, in grids of 1 to 100 cells."""
    if compiled and cells.compiled_cells() is None:  # loading it imports numba: the kernel then runs at any size
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(11)
    for bins in (1, 2, 6, 24, 37, 100):
        lo = rng.uniform(-2.0, 0.0)
        edges = np.linspace(lo, lo + rng.uniform(1e-6, 3.0), bins + 1)
        values = np.concatenate(
            [
                rng.uniform(edges[0] - 1, edges[-1] + 1, 3000),
                edges,
                np.nextafter(edges, -np.inf),
                np.nextafter(edges, np.inf),
                [-1e300, 1e300],
            ]
        )
        want = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, bins - 1)
        assert np.array_equal(cells.cell_index(edges, values, compiled), want)


@pytest.mark.parametrize("compiled", [True, False])
def test_sums_of_scaled_rows_are_those_of_the_formed_rows(compiled):
    if compiled and kernels.compiled_scaled_sums() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(12)
    X = awkward_rows(rng, 700, 6)
    factors = rng.uniform(0.25, 1.0, 700)  # clip factors of rows that stay in the unit ball
    want = FixedSums(X * factors[:, None]).totals
    assert kernels.scaled_row_sums(X, factors, SUM_BITS, 1.0 + 1e-12, compiled) == want
    assert FixedSums.of_scaled_rows(X, factors).totals == want
    assert kernels.scaled_row_sums(X, factors * 4.0, SUM_BITS, 1.0 + 1e-12, compiled) is None  # entries above 1
    formed = np.full_like(X, np.nan)  # the rows formed in the same pass: the products numpy forms, the same sums
    assert kernels.scaled_row_sums(X, factors, SUM_BITS, 1.0 + 1e-12, compiled, formed=formed) == want
    assert np.array_equal(bits(formed), bits(X * factors[:, None]))


def test_the_first_pass_forms_clipped_blocks_once_for_the_gram_matrix_and_the_sums():
    from dppca_core.data.gram import block_rows
    from dppca_core.data.prepare import prepare

    X = np.random.default_rng(16).standard_normal((40_000, 7)) * 0.5
    X[block_rows(7) :] *= 0.1  # a first block with clipped rows (formed once), a last one without (X^T X)
    data = prepare(X, 1.0, row_sums=True, gram_now=True)
    factors = data.scaled_parts()[1].copy()
    assert 0 < data.n_clipped and np.all(factors[block_rows(7) :] == 1.0)
    rows = data.rows
    assert data.row_sums == FixedSums(rows).totals
    first, last = rows[: block_rows(7)], X[block_rows(7) :]
    want = last.T @ last * 1.0 + first.T @ first  # as BlockGram adds them: raw / R^2 + scaled
    assert np.array_equal(bits(data.gram), bits((want + want.T) / 2.0))


@pytest.mark.parametrize("compiled", [True, False])
def test_exact_sums_at_their_largest_terms_across_float_chunks(compiled):
    """The compiled sums add each run of EXACT_FLOAT_ROWS truncated terms as floats: at the largest term allowed
    (1 + 1e-12, in every row) and over several runs and a partial one, still the exact integers; a refused term in
    the last run still refuses the sums."""
    rows = 2 * kernels.EXACT_FLOAT_ROWS + 123
    limit = 1.0 + 1e-12
    terms = np.full((rows, 4), limit)
    terms[:, 1] = -limit
    terms[::3, 2] = 1.0 - 2.0**-52  # just below 1: its truncation drops bits, in every third row
    terms[:, 3] = np.random.default_rng(3).uniform(-1.0, 1.0, rows)
    want = exact_column_sums(terms)
    assert kernels.fixed_point_column_sums(terms, SUM_BITS, limit, compiled).tolist() == want
    assert kernels.scaled_row_sums(terms, np.ones(rows), SUM_BITS, limit, compiled) == want
    squares = np.sqrt(np.abs(terms[:, [0, 2]]))  # |x| / b with b = 1 gives back each term's square root
    assert columns.clipped_square_sums(squares, np.ones(2), SUM_BITS, limit, compiled) == exact_column_sums(
        np.minimum(squares, 1.0) ** 2
    )
    terms[-5, 3] = 1.0 + 1e-9
    assert kernels.fixed_point_column_sums(terms, SUM_BITS, limit, compiled) is None
    assert kernels.scaled_row_sums(terms, np.ones(rows), SUM_BITS, limit, compiled) is None


def test_exact_sums_refuse_a_range_their_float_runs_cannot_hold():
    """limit * 2^bits must stay below 2^41 (4096 terms then sum exactly in floats): a larger range is refused."""
    terms = np.zeros((3, 2))
    with pytest.raises(ValueError, match="below 2"):
        kernels.fixed_point_column_sums(terms, 41, 1.0)
    with pytest.raises(ValueError, match="below 2"):
        kernels.scaled_row_sums(terms, np.ones(3), SUM_BITS, 2.0)

"""Columns divided by a release's scales as each pass reads them (issue 64): prepare(X, R, column_scales=c) holds the
bits prepare(X / c, R) holds (factors, clip count, norms, Gram matrix, exact sums, rows, projections), centring
included, and a release with column scales publishes what the same release of the divided table publishes, without
ever forming that table."""

import tracemalloc

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.compiled.kernels import fixed_order_project
from dppca_core.data.centring import CentredRows, centre, centre_algebraically, prepare_centred
from dppca_core.data.gram import block_rows, divided_sq_norms
from dppca_core.data.prepare import COMPILED_NORMS_MIN_SIZE, prepare

pytest.importorskip("numba")


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def units_table(n: int, d: int, seed: int, spread: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    """Rows in units far apart, an offset, some rows beyond the radius; and scales of those units (not powers of 2)."""
    rng = np.random.default_rng(seed)
    units = rng.uniform(0.3, 3.0, d) * 10.0 ** rng.integers(-3, 4, d)
    X = (rng.normal(0.0, spread, (n, d)) * rng.uniform(0.2, 1.0, (n, 1)) + 0.1) * units
    return X, units * rng.uniform(0.9, 1.1, d)


def same(a, b) -> bool:
    return a.shape == b.shape and np.array_equal(bits(a), bits(b))


@pytest.mark.parametrize(
    "n,d,given",
    [(2 * block_rows(6) + 17, 6, False), (2 * block_rows(6) + 17, 6, True), (60_001, 20, True), (9_001, 40, False)],
)
def test_prepared_with_column_scales_holds_the_bits_of_the_divided_table(n, d, given):
    """The first pass divides each block as it reads it (with the norms given, as a private radius gives them, in the
    one pass that sums and feeds G): every statistic is the divided copy's, bit for bit."""
    X, c = units_table(n, d, seed=n + d)
    copy = X / c
    compiled = X.size >= COMPILED_NORMS_MIN_SIZE
    sq = divided_sq_norms(X, c, compiled) if given else None
    kw = dict(gram_now=True, row_sums=True, keep_sq_norms=True)
    want = prepare(copy, 1.3, sq_norms=sq, **kw)
    got = prepare(X, 1.3, sq_norms=sq, column_scales=c, **kw)
    assert 0 < got.n_clipped == want.n_clipped < n
    assert same(got._scales, want._scales) and same(got.sq_norms, want.sq_norms)
    assert same(got.gram, want.gram) and got.row_sums == want.row_sums
    V = np.linalg.qr(np.random.default_rng(d).normal(size=(d, 3)))[0]
    assert same(got.project(V), fixed_order_project(want.rows, V))  # formed a block at a time
    a, b = np.empty((n, 3)), np.empty((n, 3))
    assert got.projected_products(V, [0, 1], [0, 2], a).totals == want.projected_products(V, [0, 1], [0, 2], b).totals
    assert same(a, b)
    index = np.random.default_rng(1).permutation(n)[:999]
    assert same(got.rows_at(index), want.rows[index])
    assert not got.rows_formed  # nothing above formed the n x d rows
    assert same(got.rows, want.rows)
    wide = prepare(X, 1.3, gram_now=False, column_scales=c)  # the Gram matrix on first use, divided as it is read
    assert same(wide.gram, prepare(copy, 1.3, gram_now=False).gram)


@pytest.mark.parametrize("length", [0.2, 0.6])
def test_centred_rows_of_a_divided_table_are_those_of_the_divided_copy(length):
    """Centring with the private mean: the rows clipped again, the Gram matrix, the projections and the score plot's
    cells are those of the divided copy, bit for bit, algebraically and formed."""
    n, d = 60_001, 20
    X, c = units_table(n, d, seed=3, spread=0.25)
    copy = X / c
    kw = dict(gram_now=True, row_sums=True, keep_sq_norms=True)
    want, got = prepare(copy, 1.0, **kw), prepare(X, 1.0, column_scales=c, **kw)
    mean = copy.mean(axis=0) / np.linalg.norm(copy.mean(axis=0)) * length
    a, b = centre_algebraically(got, mean), centre_algebraically(want, mean)
    assert isinstance(a, CentredRows) and 0 < a.n_clipped == b.n_clipped
    assert same(a.gram, b.gram)
    V = np.linalg.qr(np.random.default_rng(4).normal(size=(d, 2)))[0]
    edges = [np.linspace(-0.6, 0.6, 31)] * 2
    assert same(a.project(V), b.project(V)) and same(a.score_cells(V, edges), b.score_cells(V, edges))
    formed_got, formed_want = prepare_centred(got, mean), prepare_centred(want, mean)
    assert formed_got.n_clipped == formed_want.n_clipped == a.n_clipped
    assert same(formed_got.gram, formed_want.gram) and same(formed_got.rows, formed_want.rows)
    assert same(a.rows, formed_want.rows)  # formed on first use: the formed path's rows
    assert centre(prepare(X[:5000], 1.0, column_scales=c, **kw), mean).n_clipped == (
        centre(prepare(copy[:5000], 1.0, **kw), mean).n_clipped
    )


OPTIONS = dict(
    k="auto",
    epsilon=1.0,
    variance_target=0.9,
    center="private",
    data_norm="private",
    radius_bounds=(0.01, 100.0),
    budget=dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1),
)


@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
def test_a_release_with_column_bounds_publishes_what_the_divided_table_publishes(neighbors):
    """scale="bounds" divides the columns in every pass: the release publishes the mean, radius, variances, score
    plot, components and every noise scale of the same release of the divided table, bit for bit."""
    X, c = units_table(60_001, 20, seed=5)
    scaled = dc.release_pca("analyze_gauss", X, neighbors=neighbors, seed=7, scale="bounds", column_bounds=c, **OPTIONS)
    plain = dc.release_pca("analyze_gauss", X / c, neighbors=neighbors, seed=7, **OPTIONS)
    a, b = scaled.published(), plain.published()
    assert a["facts"] == b["facts"]
    assert same(scaled.components, plain.components) and same(scaled.eigenvalues, plain.eigenvalues)
    for key in ("mean", "radius", "total_variance", "explained_variance_ratio", "scores"):
        assert dc.release.to_plain(a["outputs"][key]) == dc.release.to_plain(b["outputs"][key]), key


def test_a_release_with_every_private_choice_forms_no_copy_of_the_table():
    """Private column scales, a private radius, a private mean, k = "auto" and a score plot: the release's traced peak
    memory stays far below the table's size (the scaled copy alone was the table's size; what is left is a few blocks
    of rows and a few floats per row)."""
    X, _ = units_table(200_001, 20, seed=6)
    options = dict(OPTIONS, scale="private", column_bounds=np.abs(X).max(axis=0) * 2.0)
    options["budget"] = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, scale=0.1)
    dc.release_pca("analyze_gauss", X, seed=1, **options)  # kernels loaded
    tracemalloc.start()
    try:
        dc.release_pca("analyze_gauss", X, seed=1, **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * X.nbytes, (peak, X.nbytes)


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 1025])
def test_divided_centred_rows_project_and_find_cells_as_their_divided_copy(n):
    """The kernels with column divisors (rows in SIMD lanes for one or two components, four rows at a time beyond):
    the projections and cells of the divided copy's centred rows, at every tail of a block."""
    from dppca_core.compiled.cells import flat_cells
    from dppca_core.compiled.centred import centred_cells, centred_project

    rng = np.random.default_rng(n)
    source, factors, mean = rng.normal(size=(n, 9)) * 50.0, rng.uniform(0.1, 1, n), rng.normal(0, 0.1, 9)
    c, weights = rng.uniform(20.0, 80.0, 9), rng.uniform(0.2, 0.5, n)
    V = np.linalg.qr(rng.normal(size=(9, 3)))[0]
    for k in (1, 2, 3):
        want = centred_project(source / c, factors, mean, 2.5, weights, V[:, :k])
        assert same(centred_project(source, factors, mean, 2.5, weights, V[:, :k], c), want), k
    edges = [np.linspace(-0.4, 0.3, 8), np.linspace(-0.6, 0.3, 8)]
    for k in (1, 2):
        got = centred_cells(source, factors, mean, 2.5, weights, V[:, :k], edges[:k], c)
        assert np.array_equal(
            got, flat_cells(centred_project(source / c, factors, mean, 2.5, weights, V[:, :k]), edges[:k])
        )

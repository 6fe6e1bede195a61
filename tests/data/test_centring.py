"""Algebraic centring (dppca_core.data.centring): the same centred rows, clip count and projections as forming them
(prepare_centred), bit for bit; a Gram matrix within its stated rounding bound; the same noise scales in a release
whichever path ran."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dppca_core as dc
from dppca_core.compiled.kernels import fixed_order_project
from dppca_core.data import centring
from dppca_core.data.centring import (
    CentredRows,
    algebraic_size,
    centre,
    centre_algebraically,
    centred_gram_error_bound,
    prepare_centred,
)
from dppca_core.data.gram import gram_error_bound
from dppca_core.data.prepare import prepare

pytest.importorskip("numba")

#: 60,001 rows of 20 columns: past the compiled size (2^20 entries), with a tail that is not a multiple of 4
N, D = 60_001, 20


def table(seed: int, shift: float = 0.0, spread: float = 0.25) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, spread, (N, D)) * rng.uniform(0.2, 1.0, D)
    return X + shift


def first_pass(X, R):
    return prepare(X, R, gram_now=True, row_sums=True, keep_sq_norms=True)


def unit_mean(X, R, length):
    """A mean in the units of the scaled rows, of the given length (<= 1)."""
    m = X.mean(axis=0)
    return m / max(np.linalg.norm(m), 1e-300) * length


CASES = {
    "zero mean": (0, 0.0, 1.0, 0.0),
    "small mean, radius 1": (1, 0.05, 1.0, 0.2),
    "a mean that clips some rows again": (2, 0.15, 1.3, 0.5),
    "radius 3.7": (3, 0.5, 3.7, 0.9),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_rows_projections_and_count_are_those_formed(case):
    seed, shift, R, length = CASES[case]
    X = table(seed, shift)
    data = first_pass(X, R)
    mean = unit_mean(X, R, length)
    algebraic = centre_algebraically(data, mean)
    formed = prepare_centred(first_pass(X, R), mean)
    assert isinstance(algebraic, CentredRows)
    assert algebraic.n_clipped == formed.n_clipped
    V = np.linalg.qr(np.random.default_rng(seed).normal(size=(D, 7)))[0]
    for k in (1, 2, 5, 7):  # the row kernel's domain (k <= 5) and the blocked kernel's
        assert np.array_equal(algebraic.project(V[:, :k]), fixed_order_project(formed.rows, V[:, :k])), k
    bound = centred_gram_error_bound(N, D) + gram_error_bound(N, D)
    assert np.max(np.abs(algebraic.gram - formed.gram)) <= bound
    assert np.array_equal(algebraic.gram, algebraic.gram.T)
    assert np.array_equal(algebraic.rows, formed.rows)  # formed on first use, the same bits


def test_rows_clipped_again_are_corrected_in_the_gram_matrix():
    X = table(2, 0.15)
    mean = unit_mean(X, 1.3, 0.5)
    algebraic = centre_algebraically(first_pass(X, 1.3), mean)
    assert 0 < algebraic.n_clipped <= centring.MAX_CLIPPED_SHARE * N  # the case exercises the correction
    rows = prepare_centred(first_pass(X, 1.3), mean).rows
    exact = rows.T @ rows  # the clipped rows' Gram matrix, another summation order
    assert np.max(np.abs(algebraic.gram - exact)) <= centred_gram_error_bound(N, D) + gram_error_bound(N, D)
    # without the correction the matrix would be off by the clipped rows' excess, far beyond the bound
    naive = first_pass(X, 1.3).gram - np.outer(X.sum(0) / 1.3, mean)
    assert np.max(np.abs(naive - exact)) > 1.0


def test_many_rows_clipped_again_form_the_rows_with_the_same_bound():
    X = table(4, 0.0, spread=1.0)  # every raw row beyond R = 1: clipped to the sphere, then most pushed out again
    mean = unit_mean(table(5, 1.0), 1.0, 0.6)
    assert centre_algebraically(first_pass(X, 1.0), mean) is None
    formed = centre(first_pass(X, 1.0), mean)
    assert not formed.rows_formed  # centred by a pass over blocks, its rows kept as their parts (issue 64)
    assert formed.n_clipped > centring.MAX_CLIPPED_SHARE * N
    assert formed.gram_error == centred_gram_error_bound(N, D)


def test_the_route_needs_the_first_pass_and_the_size():
    X = table(6, 0.1)
    mean = unit_mean(X, 1.0, 0.3)
    assert centre_algebraically(prepare(X, 1.0, gram_now=False, row_sums=True, keep_sq_norms=True), mean) is None
    assert centre_algebraically(prepare(X, 1.0, gram_now=True, row_sums=False, keep_sq_norms=True), mean) is None
    assert centre_algebraically(prepare(X, 1.0, gram_now=True, row_sums=True), mean) is None
    small = X[:1000]
    assert not algebraic_size(*small.shape)
    assert centre_algebraically(first_pass(small, 1.0), mean) is None
    # formed below the size, with the bound of the algebraic route all the same (issue 54: one bound at every n)
    assert centre(first_pass(small, 1.0), mean).gram_error == centred_gram_error_bound(1000, D)
    wide = np.random.default_rng(7).normal(0, 0.1, (40_000, 40))
    assert not algebraic_size(*wide.shape)


def test_the_bound_does_not_jump_where_the_route_starts():
    """n is private under add/remove: two neighbours on either side of the size from which the rows are centred
    algebraically must get the bound of one formula, else the noise scale would tell them apart (issue 54)."""
    for d in (1, 5, 8, 32):
        last = -(-centring.COMPILED_NORMS_MIN_SIZE // d) - 1  # the largest n centred by forming the rows
        assert not algebraic_size(last, d) and algebraic_size(last + 1, d)
        below, above = centred_gram_error_bound(last, d), centred_gram_error_bound(last + 1, d)
        assert below > (1 + 5 * centring.MAX_CLIPPED_SHARE) * gram_error_bound(last, d)
        assert 0 <= above - below < 1e-4 * below  # one more row (and perhaps one more block), not another formula


def test_the_bound_exceeds_the_canonical_one_where_the_route_applies():
    assert algebraic_size(N, D)
    assert centred_gram_error_bound(N, D) >= (1 + 5 * centring.MAX_CLIPPED_SHARE) * gram_error_bound(N, D)
    assert centred_gram_error_bound(N, D) < 1e-4  # still far below any noise a release adds


def release(X, monkeypatch, algebraic: bool, neighbors: str):
    if not algebraic:
        monkeypatch.setattr(centring, "centre_algebraically", lambda data, mean: None)
    rel = dc.release_pca(
        "analyze_gauss",
        X,
        2,
        1.0,
        1e-6,
        neighbors,
        seed=11,
        center="private",
        data_norm=1.3,
        budget=dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1),
    )
    monkeypatch.undo()
    return rel


@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
def test_a_release_publishes_the_same_whichever_path_ran(monkeypatch, neighbors):
    X = table(8, 0.15)
    fast, formed = (release(X, monkeypatch, flag, neighbors) for flag in (True, False))
    a, b = fast.published(), formed.published()
    assert a["facts"] == b["facts"]  # every noise scale and grid: the path shows in nothing published
    assert np.array_equal(a["outputs"]["mean"], b["outputs"]["mean"])
    assert np.array_equal(a["outputs"]["scores"]["counts"], b["outputs"]["scores"]["counts"])
    # the Gram matrices differ in their last bits only: so do the components, far below the noise
    assert np.allclose(fast.components, formed.components, atol=1e-9)
    step = a["facts"]["eigenvalue_grid"]
    assert np.allclose(fast.eigenvalues, formed.eigenvalues, atol=step)
    assert fast.diagnostics["rows_clipped_after_centring"] == formed.diagnostics["rows_clipped_after_centring"]


@pytest.mark.parametrize("n", [1, 4, 5, 6, 7, 9])
def test_the_kernel_projects_every_tail_of_rows(n):
    from dppca_core.compiled.centred import centred_project
    from dppca_core.compiled.kernels import scaled_centred

    rng = np.random.default_rng(n)
    source, factors, mean = rng.normal(size=(n, 9)), rng.uniform(0.1, 1, n), rng.normal(0, 0.1, 9)
    weights = rng.uniform(0.2, 0.5, n)
    rows = scaled_centred(source, factors, mean, 2.5) * weights[:, None]
    V = np.linalg.qr(rng.normal(size=(9, 3)))[0]
    for k in (1, 2, 3):
        got = centred_project(source, factors, mean, 2.5, weights, V[:, :k])
        assert np.array_equal(got, fixed_order_project(rows, V[:, :k], compiled=False)), k


@pytest.mark.parametrize("n", [1, 5, 1023, 1024, 1025, 3001])
def test_the_cells_kernel_places_every_row_where_its_projection_falls(n):
    from dppca_core.compiled.cells import flat_cells
    from dppca_core.compiled.centred import CELL_BLOCK_ROWS, centred_cells, centred_project

    assert CELL_BLOCK_ROWS == 1024  # the sizes above end a block early, on it and just after it
    rng = np.random.default_rng(n)
    source, factors, mean = rng.normal(size=(n, 9)), rng.uniform(0.1, 1, n), rng.normal(0, 0.1, 9)
    weights = rng.uniform(0.2, 0.5, n)
    V = np.linalg.qr(rng.normal(size=(9, 2)))[0]
    projections = centred_project(source, factors, mean, 2.5, weights, V)
    # a frame the projections overflow on every side (the end cells), and a fine one with many edges hit
    for lo, hi, bins in ((-0.3, 0.2, 7), (-3.0, 3.0, 40)):
        edges = [np.linspace(lo, hi, bins + 1), np.linspace(lo * 2, hi, bins + 1)]
        for k in (1, 2):
            got = centred_cells(source, factors, mean, 2.5, weights, V[:, :k], edges[:k])
            assert np.array_equal(got, flat_cells(projections[:, :k], edges[:k])), (lo, k)


def test_centred_rows_find_the_cells_of_their_projections_formed_or_not():
    X = table(10, 0.15)
    algebraic = centre_algebraically(first_pass(X, 1.3), unit_mean(X, 1.3, 0.5))
    V = np.linalg.qr(np.random.default_rng(10).normal(size=(D, 2)))[0]
    edges = [np.linspace(-0.5, 0.5, 25)] * 2
    found = algebraic.score_cells(V, edges)
    assert algebraic._rows is None and np.bincount(found).size > 100  # the rows spread over many cells
    algebraic.rows  # noqa: B018 - formed: the cells then come from their projections
    assert np.array_equal(algebraic.score_cells(V, edges), found)


def test_the_exact_sums_of_projected_products_are_those_of_the_formed_rows():
    from dppca_core.privacy.exact import FixedSums

    X = table(9, 0.15)
    mean = unit_mean(X, 1.3, 0.5)
    algebraic = centre_algebraically(first_pass(X, 1.3), mean)
    rows = prepare_centred(first_pass(X, 1.3), mean).rows
    V = np.linalg.qr(np.random.default_rng(9).normal(size=(D, 4)))[0]
    first, second = np.triu_indices(4)
    got_proj, want_proj = np.empty((N, 4)), np.empty((N, 4))
    got = algebraic.projected_products(V, first, second, got_proj)
    want = FixedSums.of_projected_products(rows, V, first, second, None, want_proj)
    assert algebraic._rows is None  # read a block at a time, never formed whole
    assert got.totals == want.totals
    assert np.array_equal(got_proj, want_proj)


@settings(max_examples=12, deadline=None)
@given(
    d=st.integers(1, 32),
    seed=st.integers(0, 2**16),
    radius=st.sampled_from([0.01, 0.5, 1.0, 2.0, 37.0]),
    spread=st.sampled_from([0.1, 0.5, 1.0, 3.0]),
    length=st.floats(0.0, 1.0),
    on_sphere=st.integers(0, 64),
)
def test_any_narrow_table_is_centred_as_its_formed_rows(d, seed, radius, spread, length, on_sphere):
    """Random shapes, radii, spreads and means, with rows placed exactly on the sphere of radius R around the mean
    (where rounding decides the clip): the route, when it applies, gives the formed rows' clip count and
    projections bit for bit and a Gram matrix within the bound; else it declines."""
    rng = np.random.default_rng(seed)
    n = -(-(1 << 20) // d) + int(rng.integers(0, 7))
    X = rng.normal(0.0, spread * radius, (n, d)) * rng.uniform(0.1, 1.0, d)
    direction = rng.normal(size=d)
    mean = direction / np.linalg.norm(direction) * length
    toward = rng.normal(size=(on_sphere, d))
    X[:on_sphere] = (mean + toward / np.linalg.norm(toward, axis=1, keepdims=True)) * radius
    algebraic = centre_algebraically(first_pass(X, radius), mean)
    formed = prepare_centred(first_pass(X, radius), mean)
    if algebraic is None:
        assert formed.n_clipped > centring.MAX_CLIPPED_SHARE * n
        return
    assert algebraic.n_clipped == formed.n_clipped
    V = np.linalg.qr(rng.normal(size=(d, min(d, 3))))[0]
    assert np.array_equal(algebraic.project(V), fixed_order_project(formed.rows, V))
    assert np.max(np.abs(algebraic.gram - formed.gram)) <= centred_gram_error_bound(n, d) + gram_error_bound(n, d)

"""The variances of a release read off the Gram matrix under replace-one (issue 43): when the route is taken, that it
depends on public facts only, and that both routes compute the same statistic within their stated rounding bounds."""

import numpy as np
import pytest

from dppca_core.data.prepare import PreparedData, prepare
from dppca_core.pipeline.parts import (
    GRAM_ROUTE_ERROR_SHARE,
    _gram_terms_error,
    _variance_terms,
    private_variances,
    reads_the_gram,
)
from dppca_core.privacy import gaussian_mu
from dppca_core.privacy.shares import Share
from tests.helpers import spiked_rows

X, _ = spiked_rows(2000, 8, 2, seed=3)
V = np.linalg.qr(np.random.default_rng(4).standard_normal((8, 8)))[0]
SHARE = Share(1.0, 0.0, 0.0, mu=gaussian_mu(1.0, 1e-6))


def test_the_gram_route_is_taken_only_under_replace_one_with_a_formed_gram_and_a_small_bound():
    formed = prepare(X, 1.0, gram_now=True)
    assert formed.gram_formed and reads_the_gram(formed, "replace")
    assert not reads_the_gram(formed, "add_remove")  # n private: a bound that grows with n would tell it
    later = prepare(X, 1.0, gram_now=False)
    assert not later.gram_formed and not reads_the_gram(later, "replace")  # forming it would cost a pass n d^2
    later.gram  # a run that reads it forms it: from then on it is free
    assert reads_the_gram(later, "replace")
    loose = PreparedData(formed.n, formed.d, 1.0, rows=formed.rows, gram=formed.gram, gram_error=1e-3)
    assert _gram_terms_error(loose.n, loose.d, loose.gram_error) > GRAM_ROUTE_ERROR_SHARE * np.sqrt(2)
    assert not reads_the_gram(loose, "replace")  # the noise would grow by more than 0.1%: the exact pass instead


@pytest.mark.parametrize("rotate", [False, True])
def test_both_routes_compute_the_statistic_within_their_bounds(rotate):
    data = prepare(X, 1.0, gram_now=True)
    from_gram, gram_error, _ = _variance_terms(data, V, rotate, neighbors="replace")
    sums, rows_error, _ = _variance_terms(data, V, rotate, neighbors="add_remove")
    from_rows = sums.values()  # the exact fixed-point sums, as floats
    exact = V.T @ (X.T @ X) @ V  # rows of norm <= 1: prepare leaves them as they are
    want = np.append(exact[np.triu_indices(8)] if rotate else np.diag(exact), np.trace(X.T @ X))
    assert from_gram.shape == want.shape == from_rows.shape
    # each route within its own stated bound of the float64 reference (itself within ~1e-12 of the exact value)
    assert np.max(np.abs(from_gram - want)) <= gram_error + 1e-11
    assert np.max(np.abs(from_rows - want)) <= rows_error * len(X) + 1e-11
    assert 0 < gram_error <= GRAM_ROUTE_ERROR_SHARE * np.sqrt(2)


def test_neighbours_get_the_same_route_and_the_same_noise_scale():
    """Replace one row: the route and the noise scale are functions of n, d and the relation alone."""
    other = X.copy()
    other[0] = -X[0] / np.linalg.norm(X[0])  # a different row at the radius
    scales, grids = set(), set()
    for rows in (X, other):
        data = prepare(rows, 1.0, gram_now=True)
        assert reads_the_gram(data, "replace")
        out = private_variances(data, V[:, :3], SHARE, "replace", np.random.default_rng(0))
        scales.add(out["noise"].noise_scale)
        grids.add(out["noise"].step)
    assert len(scales) == 1 and len(grids) == 1


def test_a_release_under_replace_one_matches_the_rows_route_up_to_its_noise():
    """The same seed through both routes: the released variances differ by at most a few grid steps (the statistic
    moves by ~1e-13, the noise calibration by less than 0.1%), so nothing a user reads changes."""
    data = prepare(X, 1.0, gram_now=True)
    gram_route = private_variances(data, V[:, :3], SHARE, "replace", np.random.default_rng(7))
    rows_data = prepare(X, 1.0, gram_now=False)  # no Gram formed: the exact pass over the rows
    rows_route = private_variances(rows_data, V[:, :3], SHARE, "replace", np.random.default_rng(7))
    assert gram_route["noise"].noise_scale == pytest.approx(rows_route["noise"].noise_scale, rel=1e-3)
    scale = gram_route["noise"].noise_scale
    assert np.allclose(gram_route["variances"], rows_route["variances"], atol=1e-3 * scale)

"""No branch on a private quantity shows in what is published (issue 54).

A release picks some kernels by the size of the table (``n x d``), and n is private when neighbours add or remove
a row. Every value compared with a threshold (a row's norm against a candidate radius, against R when clipping) is
therefore computed with the same bits on either path: each squared norm summed in column order, no fast-math. The
construction of the privacy review: D holds 131,071 rows of 8 columns (just below the size from which the compiled
loop runs) of which 2,000 sit at the first candidate radius, so close that a reassociated sum and numpy's ``einsum``
put them on either side of it; D' is D plus a zero row. Drawn with the same seed, the two releases must publish the
same counts above every candidate (the zero row is below each), and the row count must differ by exactly one.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dppca_core as dc
from dppca_core.compiled.loops import _row_sq_norms_kernel, compiled_row_sq_norms, row_sq_norms
from dppca_core.data.gram import block_sq_norms, row_norms
from dppca_core.data.prepare import COMPILED_NORMS_MIN_SIZE
from dppca_core.pipeline.choices import DEFAULT_RADIUS_BOUNDS, RADIUS_BINS, radius_edges

D = 8
N = COMPILED_NORMS_MIN_SIZE // D - 1  # n x d just below the compiled loop's size; one row more reaches it
AT_CANDIDATE = 2000


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=40),
        elements=st.floats(allow_nan=False, allow_infinity=False, width=64),
    )
)
def test_the_compiled_and_numpy_norms_give_the_same_bits(X):
    if compiled_row_sq_norms() is None:
        pytest.skip("numba is not installed: one path only")
    assert np.array_equal(bits(row_sq_norms(X, compiled=True)), bits(row_sq_norms(X, compiled=False)))
    assert np.array_equal(bits(block_sq_norms(X, True)), bits(block_sq_norms(X, False)))


def _reassociating_sq_norms():
    """The library's squared-norm loop compiled free to reorder and fuse its sum (what the compiled norms were before
    issue 54), or None without numba. Compiled here and never cached, so no cache can hand this build to the
    library."""
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(fastmath={"reassoc", "contract"})(_row_sq_norms_kernel)


def straddling_rows(candidate: float, count: int, rng) -> np.ndarray:
    """``count`` rows whose norm is ``candidate`` up to a few ulps, each put below it by numpy's ``einsum`` and at or
    above it by a reassociated sum."""
    fast = _reassociating_sq_norms()
    found = []
    while sum(len(f) for f in found) < count:
        U = rng.normal(size=(200_000, D)) * rng.uniform(0.2, 5.0, D)
        X = U * (candidate / np.linalg.norm(U, axis=1))[:, None]
        X *= 1.0 + rng.integers(-4, 5, size=(X.shape[0], 1)) * np.finfo(float).eps
        a = np.sqrt(np.einsum("ij,ij->i", X, X)) >= candidate
        b = np.sqrt(fast(X, np.empty(X.shape[0]))) >= candidate
        found.append(X[~a & b])
    return np.concatenate(found)[:count]


def first_candidate() -> float:
    edges = radius_edges(DEFAULT_RADIUS_BOUNDS, RADIUS_BINS)
    return float(edges[(edges.size - 1) // 2])


def test_rows_at_a_candidate_are_counted_alike_below_and_above_the_compiled_size():
    if _reassociating_sq_norms() is None:
        pytest.skip("numba is not installed: the library runs one path only")
    rng = np.random.default_rng(54)
    c = first_candidate()
    rest = rng.normal(size=(N - AT_CANDIDATE, D)) * (0.01 * c)  # far below every candidate probed
    D1 = np.vstack([straddling_rows(c, AT_CANDIDATE, rng), rest])
    D2 = np.vstack([D1, np.zeros((1, D))])
    assert D1.size < COMPILED_NORMS_MIN_SIZE <= D2.size
    # the squared norms of the rows both tables share are the same bits, whichever loop ran
    assert np.array_equal(bits(block_sq_norms(D1, False)), bits(block_sq_norms(D2, True)[:-1]))
    assert np.array_equal(bits(row_norms(D1)), bits(row_norms(D2)[:-1]))

    def counts(X):
        release = dc.release_pca("analyze_gauss", X, 2, 1.0, 1e-6, "add_remove", data_norm="private", seed=7)
        return release.published()["outputs"]["radius"]["counts"]

    a, b = np.asarray(counts(D1)), np.asarray(counts(D2))
    assert b[0] - a[0] == 1  # the noisy row count: the zero row, and the same noise
    assert a.shape == b.shape and np.array_equal(a[1:], b[1:]), (a, b)

"""The scaled copy of a release that scales its columns: the bits numpy's division gives, the row norms the clipping
reads, and the entries that are not finite found in the same pass."""

from __future__ import annotations

import numpy as np
import pytest

from dppca_core.compiled import columns
from dppca_core.data.gram import block_rows, block_sq_norms, scaled_copy


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def units_rows(rng, n):
    """Columns in units 1000x apart, signed zeros, huge and tiny entries (subnormal quotients included)."""
    X = rng.standard_normal((n, 5)) * np.array([1.0, 1e3, 1e-3, 1e300, 1e-300])
    X[::9, 0] = -0.0
    return X


@pytest.mark.parametrize("compiled", [True, False])
def test_divided_columns_have_numpys_bits_and_count_what_is_not_finite(compiled):
    rng = np.random.default_rng(21)
    X = units_rows(rng, 701)
    scales = np.array([0.3, 7e2, 3e-3, 1e-10, 1e10])  # a quotient overflows: it is X's entries that are counted
    out = np.empty_like(X)
    with np.errstate(over="ignore"):
        want = X / scales
        assert columns.divide_columns(X, scales, out, compiled) == 0
    assert np.array_equal(bits(out), bits(want))
    X[5, 2], X[600, 4], X[7, 0] = np.nan, np.inf, -np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        assert columns.divide_columns(X, scales, out, compiled) == 3


def test_the_scaled_copy_reads_the_norms_block_sq_norms_reads():
    rng = np.random.default_rng(22)
    X = units_rows(rng, 2 * block_rows(5) + 17)[:, :3]  # three blocks, the last one short
    scales = np.array([0.5, 900.0, 2e-3])
    for compiled in (True, False):
        copy, sq = scaled_copy(X, scales, compiled)
        assert np.array_equal(bits(copy), bits(X / scales))
        assert np.array_equal(bits(sq), bits(block_sq_norms(X / scales, compiled)))


def test_the_scaled_copy_says_where_the_first_bad_entry_is():
    X = np.ones((300, 4))
    X[123, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite values \\(first at row 123, column 2\\)"):
        scaled_copy(X, np.ones(4), True)

"""The passes of a release that scales its columns, without a scaled copy: the bits numpy's division gives, the row
norms the clipping reads (the bits of dividing first, then taking the norms), the entries that are not finite found
in the same pass, and the first pass's exact sums with the rows its Gram matrix reads."""

from __future__ import annotations

import numpy as np
import pytest

from dppca_core.compiled import columns
from dppca_core.compiled.kernels import fixed_point_column_sums
from dppca_core.data.gram import block_rows, block_sq_norms, divided_sq_norms


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


def test_the_divided_norms_are_the_norms_of_the_divided_table_bit_for_bit():
    """The division x_ij / s_j then the norms, block by block without the divided table, give the bits of dividing the
    whole table (as the scaled copy did) and then taking its norms, on the compiled loop and on numpy's."""
    rng = np.random.default_rng(22)
    X = units_rows(rng, 2 * block_rows(5) + 17)[:, :3]  # three blocks, the last one short
    scales = np.array([0.5, 900.0, 2e-3])
    for compiled in (True, False):
        assert np.array_equal(bits(divided_sq_norms(X, scales, compiled)), bits(block_sq_norms(X / scales, compiled)))
    wide = rng.standard_normal((3001, 40)) * rng.uniform(1e-3, 1e3, 40)  # a tail not a multiple of the vector width
    scales = rng.uniform(1e-3, 1e3, 40)
    assert np.array_equal(bits(divided_sq_norms(wide, scales, True)), bits(block_sq_norms(wide / scales, False)))


def test_the_divided_norms_say_where_the_first_bad_entry_is():
    X = np.ones((300, 4))
    X[123, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite values \\(first at row 123, column 2\\)"):
        divided_sq_norms(X, np.ones(4), True)


@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("compiled", [True, False])
def test_divided_row_sums_are_those_of_the_divided_then_scaled_rows(scaled, compiled):
    """The first pass's kernel: the exact sums of (x_i / s) f_i and the rows it writes (scaled, or divided only) are
    the integers and bits of dividing, multiplying and summing in turn."""
    rng = np.random.default_rng(23)
    X = rng.standard_normal((5001, 6)) * np.array([1.0, 1e3, 1e-3, 5.0, 0.2, 250.0])
    X[::11, 1] = -0.0
    scales = np.array([0.7, 1e3, 2e-3, 4.0, 0.3, 300.0])
    divided = X / scales
    factors = 1.0 / np.maximum(np.linalg.norm(divided, axis=1), 1.0)
    rows = np.empty_like(X)
    got = columns.divided_row_sums(X, scales, factors, 40, 1.0, rows, scaled, compiled)
    want = fixed_point_column_sums(divided * factors[:, None], 40, 1.0, compiled=False)
    assert got == want.tolist()
    assert np.array_equal(bits(rows), bits(divided * factors[:, None] if scaled else divided))
    X[7, 3] = np.inf
    with np.errstate(invalid="ignore"):
        assert columns.divided_row_sums(X, scales, factors, 40, 1.0, rows, scaled, compiled) is None


@pytest.mark.parametrize("divided", [True, False])
@pytest.mark.parametrize("compiled", [True, False])
def test_scaled_rows_are_numpys_quotients_and_products(divided, compiled):
    rng = np.random.default_rng(24)
    X = units_rows(rng, 3001)
    scales = np.array([0.3, 7e2, 3e-3, 1e-10, 1e10])
    factors = rng.uniform(1e-3, 2.0, 3001)
    out = np.empty_like(X)
    with np.errstate(over="ignore"):
        want = (X / scales if divided else X) * factors[:, None]
        got = columns.scale_rows(X, factors, out, scales if divided else None, compiled)
    assert got is out and np.array_equal(bits(out), bits(want))


def test_clip_factors_are_those_of_block_scales_bit_for_bit():
    """The first pass reads each row's clip factor from one compiled pass over the squared norms: the factors and the
    clipped count of GramAccumulator.block_scales, bit for bit; -1 where the norms do not decide (a norm that is not
    finite), as block_scales then reads the entries."""
    from dppca_core.data.gram import GramAccumulator

    rng = np.random.default_rng(25)
    for radius in (1.0, 0.37, 1e10):
        B = rng.standard_normal((5000, 7)) * radius * rng.uniform(0.05, 0.6, (5000, 1))
        B[:9] /= np.linalg.norm(B[:9], axis=1, keepdims=True) / radius  # rows on the radius: not clipped
        probe = GramAccumulator(7, radius, want_sum=False, compiled_norms=True)
        sq = block_sq_norms(B, True)
        s, over = probe.block_scales(B, sq=sq)
        out = np.empty(5000)
        assert probe.clip_factors(sq, out) == int(over.sum()) > 0
        assert np.array_equal(bits(out), bits(s))
        sq[17] = np.inf
        assert probe.clip_factors(sq, out) == -1

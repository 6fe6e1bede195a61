"""The compiled loops of the publishable path: the fixed-order projection gives the bits of the column loop it
replaces and each row's result depends on that row alone; the fixed-point sums are the exact integer sums."""
import math

import numpy as np
import pytest

from dppca_core import exact, kernels
from dppca_core.exact import SUM_BITS, FixedSums

pytest.importorskip("numba")  # imported here, so the compiled loops run at every size (kernels.compiled_worth)


def column_loop(rows, components):
    """The projection as scores.project computed it before the kernel (the reference bits)."""
    out = np.zeros((rows.shape[0], components.shape[1]))
    for j in range(rows.shape[1]):
        out += rows[:, j:j + 1] * components[j]
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


@pytest.mark.parametrize("n,d,k", [(1, 1, 1), (5, 3, 2), (63, 4, 1), (64, 20, 2), (65, 20, 5), (1000, 7, 7),
                                   (3001, 30, 3), (200, 100, 100)])
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
        assert np.array_equal(bits(kernels.fixed_order_project(X[i:i + 1], V)[0]), bits(whole[i]))


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

"""CoinPress's clipped whitened rows (issue 64 item 3): the compiled kernel and the numpy loops give the same bits,
every row's result depends on that row alone (its norm is compared with the radius: docs/privacy.md, rule 2), and
the step's Gram matrix read a block at a time is that of the formed rows."""

import numpy as np
import pytest

from dppca_core.compiled.kernels import fixed_order_project_numpy
from dppca_core.compiled.loops import fixed_order_sq_norms
from dppca_core.compiled.kernels import clipped_whitened, compiled_clipped_whitened
from dppca_core.data.prepare import prepare
from dppca_core.mechanisms.coinpress import CHUNK_ROWS, clipped_gram

pytest.importorskip("numba")


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def reference(rows, A, radius):
    """The definition, written out with numpy: fixed-order map, fixed-order norms, the clip factor."""
    W = fixed_order_project_numpy(rows, A.T)
    norms = np.sqrt(fixed_order_sq_norms(W))
    return W * np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None]


@pytest.mark.parametrize("n,d", [(1, 3), (7, 8), (129, 20), (3001, 20), (600, 100)])
def test_compiled_and_numpy_clip_the_same_rows_to_the_same_bits(n, d):
    assert compiled_clipped_whitened() is not None
    rng = np.random.default_rng(n + d)
    rows = rng.normal(size=(n, d)) / np.sqrt(d) * rng.uniform(0.0, 1.5, (n, 1))
    rows[0] = 0.0  # a zero row: norm 0, factor 1
    A = rng.normal(size=(d, d)) * 2.0
    radius = float(np.median(np.linalg.norm(rows @ A.T, axis=1))) if n > 1 else 0.5
    want = reference(rows, A, radius)
    for compiled in (True, False):
        got = clipped_whitened(rows, A.T, radius, np.empty((n, d)), compiled)
        assert np.array_equal(bits(got), bits(want)), compiled
    assert np.all(np.linalg.norm(want, axis=1) <= radius * (1 + 1e-12))


def test_a_rows_clipped_value_does_not_depend_on_where_it_sits():
    """Shifting the rows by one position (another row in front, a block split elsewhere) changes no row's bits."""
    rng = np.random.default_rng(5)
    rows = rng.normal(size=(1000, 20)) * 0.2
    A = rng.normal(size=(20, 20))
    out = clipped_whitened(rows, A.T, 1.0, np.empty((1000, 20)))
    shifted = clipped_whitened(np.vstack([rows[-1:], rows]), A.T, 1.0, np.empty((1001, 20)))
    assert np.array_equal(bits(shifted[1:]), bits(out))
    one = clipped_whitened(rows[437:438], A.T, 1.0, np.empty((1, 20)))
    assert np.array_equal(bits(one), bits(out[437:438]))


def test_a_steps_gram_read_a_block_at_a_time_is_that_of_the_formed_rows():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2 * CHUNK_ROWS + 77, 12)) * rng.uniform(0.05, 0.6, (1, 12))
    data = prepare(X, 1.0, gram_now=False)
    A = np.diag(rng.uniform(0.5, 4.0, 12))
    got = clipped_gram(data, A, 1.5)
    assert not data.rows_formed
    rows = prepare(X, 1.0, gram_now=False).rows
    want = np.zeros((12, 12))
    for a in range(0, rows.shape[0], CHUNK_ROWS):
        W = reference(rows[a : a + CHUNK_ROWS], A, 1.5)
        want += W.T @ W
    assert np.array_equal(bits(got), bits(want))

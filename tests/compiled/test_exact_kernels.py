"""The compiled exact samplers give the Python samplers' draws bit for bit: the same words in the same order, and
every event they leave to the Python code (a tie of first digits, a value at a cell boundary) handed over with the
generator put back where the draw started, so the Python sampler reads the same stream."""

import ctypes
import threading
from fractions import Fraction

import numpy as np
import pytest

from dppca_core.privacy import exact
from dppca_core.compiled import exact_kernels

pytest.importorskip("numba")

DRAWS = {"normal": exact.rounded_normal, "laplace": exact.rounded_laplace}
SIZES = (0, 1, 2, 9, exact.VECTOR_MIN - 1, exact.VECTOR_MIN, 300, 2000)


def both(draw, size, scale, make_rng, monkeypatch):
    """(compiled, Python): each draw and the generator's next word after it."""
    out = []
    for compiled in (True, False):
        monkeypatch.setattr(exact, "COMPILED", compiled)
        rng = make_rng()
        out.append((draw(size, scale, rng), int(rng.bit_generator.random_raw())))
    return out


@pytest.mark.parametrize("kind", sorted(DRAWS))
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scale", [Fraction(1, 3), Fraction(3, 2), Fraction(1000003, 1024), Fraction(2**40 + 1, 7)])
def test_compiled_draws_are_the_python_draws(kind, size, scale, monkeypatch):
    (a, next_a), (b, next_b) = both(DRAWS[kind], size, scale, lambda: np.random.default_rng(size + 17), monkeypatch)
    assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)
    assert next_a == next_b  # the generator is left where the Python sampler leaves it


@pytest.mark.parametrize("bit_generator", [np.random.PCG64DXSM, np.random.Philox, np.random.SFC64])
def test_every_64_bit_generator_gives_the_same_draws(bit_generator, monkeypatch):
    for size in (5, 400):
        (a, na), (b, nb) = both(
            exact.rounded_normal, size, Fraction(7, 2), lambda: np.random.Generator(bit_generator(3)), monkeypatch
        )
        assert np.array_equal(a, b) and na == nb


def test_the_secure_generator_gives_the_same_draws(monkeypatch):
    randomgen = pytest.importorskip("randomgen")
    (a, na), (b, nb) = both(
        exact.rounded_laplace,
        500,
        Fraction(5),
        lambda: np.random.Generator(randomgen.ChaCha(seed=8, rounds=20)),
        monkeypatch,
    )
    assert np.array_equal(a, b) and na == nb


class TieStream:
    """A bit generator stand-in whose words come from a tiny set, so first digits tie often: its C entry point
    (a ctypes callback) and ``random_raw`` read one shared sequence."""

    values = np.array([1 << 62, 1 << 63, 3 << 62, (1 << 64) - 1, 12345], dtype=np.uint64)

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.lock = threading.Lock()
        self._callback = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(lambda state: self._next())
        self.ctypes = type("Interface", (), {"next_uint64": self._callback, "state_address": 0})()

    def _next(self):
        return int(self.values[self._rng.integers(self.values.size)])

    @property
    def state(self):
        return self._rng.bit_generator.state

    @state.setter
    def state(self, value):
        self._rng.bit_generator.state = value

    def random_raw(self, size=None):
        if size is None:
            return self._next()
        return np.array([self._next() for _ in range(int(size))], dtype=np.uint64)


TieStream.__name__ = "PCG64"  # read as a 64-bit generator by samplers.WordSource


class FakeGenerator:
    def __init__(self, seed):
        self.bit_generator = TieStream(seed)


@pytest.mark.parametrize("kind", sorted(DRAWS))
@pytest.mark.parametrize("size", [3, 40, exact.VECTOR_MIN + 5])
def test_ties_of_first_digits_are_left_to_the_python_sampler(kind, size, monkeypatch):
    """Words from a set of five values tie at almost every comparison: the kernel stops at the first tie and the
    Python sampler, which decides ties on further digits, gives the same draw as it does alone."""
    fake = FakeGenerator(0)
    before = fake.bit_generator.state
    assert exact_kernels.draw(size, Fraction(3), fake, kind == "laplace", size >= exact.VECTOR_MIN) is None
    assert fake.bit_generator.state == before  # put back where the draw started
    (a, na), (b, nb) = both(DRAWS[kind], size, Fraction(3), lambda: FakeGenerator(5), monkeypatch)
    assert np.array_equal(a, b) and na == nb


def test_values_at_a_cell_boundary_are_left_to_the_python_sampler(monkeypatch):
    """A huge scale puts every value within the float margin of a boundary: each draw goes to the Python sampler."""
    scale = Fraction(2**56 + 1, 3)
    for lockstep, size in ((False, 4), (True, exact.VECTOR_MIN)):
        rng = np.random.default_rng(2)
        assert exact_kernels.draw(size, scale, rng, False, lockstep) is None
        assert rng.bit_generator.state == np.random.default_rng(2).bit_generator.state
        (a, na), (b, nb) = both(exact.rounded_normal, size, scale, lambda: np.random.default_rng(2), monkeypatch)
        assert np.array_equal(a, b) and na == nb

"""Fresh randomness: ChaCha20 keyed with the operating system's 256 bits, directly (issue 34, item 7)."""

import pickle

import numpy as np
import pytest

from dppca_core.privacy import randomness
from dppca_core.privacy.randomness import secure_generator

KEY_BYTES = 32  # ChaCha20: a 256-bit key

KNOWN = bytes(range(1, KEY_BYTES + 1))  # 32 distinct bytes standing in for the operating system's


@pytest.fixture
def known_os_bytes(monkeypatch):
    calls = []

    def token_bytes(size):
        calls.append(size)
        return KNOWN

    monkeypatch.setattr(randomness.secrets, "token_bytes", token_bytes)
    return calls


def _key_words(generator) -> np.ndarray:
    return np.asarray(generator.bit_generator.state["state"]["keysetup"], dtype=np.uint32)


def test_the_key_is_the_operating_systems_256_bits_as_read(known_os_bytes):
    """ChaCha20's key is eight 32-bit words: they must be the 32 bytes the operating system gave, unchanged (a
    SeedSequence in between would hash them into a 128-bit pool first)."""
    g = secure_generator()
    words = _key_words(g)
    assert words.size * 32 == 256 and known_os_bytes == [KEY_BYTES]
    assert words.astype("<u4").tobytes() == KNOWN
    assert g.bit_generator.state["state"]["rounds"] == 20
    assert np.array_equal(g.bit_generator.state["state"]["ctr"], [0, 0])


def test_two_generators_with_the_same_key_give_the_same_stream_and_others_differ(known_os_bytes, monkeypatch):
    """The key alone fixes the stream (nothing else, e.g. a second entropy source, enters it)."""
    a, b = secure_generator(), secure_generator()
    assert np.array_equal(a.bit_generator.random_raw(8), b.bit_generator.random_raw(8))
    monkeypatch.undo()
    c, d = secure_generator(), secure_generator()
    assert not np.array_equal(_key_words(c), _key_words(d))


def test_spawned_children_get_their_own_256_bit_keys_from_the_operating_system(monkeypatch):
    """Generator.spawn (the public stream of a streaming mechanism) keeps working; each child is keyed with fresh
    operating-system bytes, not from a 128-bit SeedSequence."""
    fresh = iter([bytes([i]) * KEY_BYTES for i in range(1, 10)])
    monkeypatch.setattr(randomness.secrets, "token_bytes", lambda size: next(fresh))
    parent = secure_generator()
    children = parent.spawn(2)
    assert [_key_words(c).astype("<u4").tobytes() for c in children] == [bytes([2]) * 32, bytes([3]) * 32]
    assert all(type(c.bit_generator).__name__ == "ChaCha" for c in children)
    assert _key_words(children[0].spawn(1)[0]).astype("<u4").tobytes() == bytes([4]) * 32


def test_a_fresh_generator_pickles_with_its_state():
    """A fresh generator shipped to a worker continues the same stream (its class is importable by name)."""
    g = secure_generator()
    copy = pickle.loads(pickle.dumps(g))
    assert np.array_equal(copy.bit_generator.random_raw(4), g.bit_generator.random_raw(4))


def test_bulk_noise_of_a_fresh_release_comes_from_aes_keyed_with_128_bits_from_the_operating_system(monkeypatch):
    """Issue 64: a mechanism that draws noise in bulk draws it, for a release to publish, from AES-128 in counter mode
    (the processor's AES instructions) keyed directly with 16 fresh bytes from the operating system."""
    if not randomness.hardware_aes():
        pytest.skip("no AES instructions here: the bulk noise stays on ChaCha20")
    fresh = iter([bytes([7]) * KEY_BYTES, bytes(range(1, 17))])
    asked = []

    def token_bytes(size):
        asked.append(size)
        return next(fresh)

    monkeypatch.setattr(randomness.secrets, "token_bytes", token_bytes)
    bulk = randomness.bulk_generator(secure_generator())
    assert type(bulk.bit_generator).__name__ == "AESCounter" and asked == [KEY_BYTES, 16]
    seed = np.asarray(bulk.bit_generator.state["s"]["seed"][:2], dtype=np.uint64)
    assert seed.astype("<u8").tobytes() == bytes(range(1, 17))  # the key as given: no SeedSequence in between
    assert np.array_equal(bulk.bit_generator.state["s"]["counter"][:2], [0, 0])


def test_a_seeded_generator_draws_its_bulk_noise_itself():
    """Exploration stays reproducible: a seeded (or any caller's) generator is its own bulk generator."""
    for rng in (np.random.default_rng(3), np.random.Generator(np.random.PCG64(4))):
        assert randomness.bulk_generator(rng) is rng


def test_private_oja_draws_its_fresh_noise_from_the_bulk_generator(monkeypatch):
    import dppca_core as dc
    from dppca_core.mechanisms import streaming

    seen = []
    real = streaming.bulk_generator

    def spy(rng):
        out = real(rng)
        seen.append((type(rng.bit_generator).__name__, type(out.bit_generator).__name__))
        return out

    monkeypatch.setattr(streaming, "bulk_generator", spy)
    X = np.random.default_rng(0).normal(size=(500, 4)) / 3
    release = dc.run("private_oja", X, 1, 1.0, 1e-6)
    assert release.published()["fresh_randomness"] is True
    expected = "AESCounter" if randomness.hardware_aes() else "ChaCha"
    assert seen == [("ChaCha", expected)]
    dc.run("private_oja", X, 1, 1.0, 1e-6, seed=1)
    assert seen[-1] == ("PCG64", "PCG64")

"""The generators of many audit trials at the cost of one: PCG64 streams of a SeedSequence's children, together.

Every audit trial runs on ``Generator(PCG64(child))`` for its own child ``child`` of its chunk's seed sequence
(:mod:`.core`). Building one costs about 15 microseconds (spawning the child hashes its entropy, seeding PCG64
hashes it again), which is most of a trial of a small mechanism. Both hashes are fixed arithmetic on 32-bit words
(numpy's ``SeedSequence``, after O'Neill's ``seed_seq``; numpy keeps its streams stable across versions), the same
for every child but its last spawn-key word: here they run for all of a chunk's children at once, in numpy, and
give each child's PCG64 state, which one reused generator takes in turn (:class:`TrialGenerators`).

The arithmetic is checked against numpy's own ``PCG64(child)`` on the first child of every batch; a batch that
disagrees (a numpy that changed its seeding) is drawn with numpy's own generators instead, so the streams are
numpy's in every case.
"""

from __future__ import annotations

import numpy as np

_MASK32 = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_SHIFT = np.uint32(16)
#: PCG64's 128-bit multiplier (O'Neill's PCG_DEFAULT_MULTIPLIER_128)
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341
_MASK128 = (1 << 128) - 1


def _int_words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, lowest first (0 is one word), as SeedSequence reads it."""
    value = int(value)
    if value < 0:
        raise ValueError("seed words must be non-negative.")
    words = [] if value else [0]
    while value:
        words.append(value & _MASK32)
        value >>= 32
    return words


def _entropy_words(entropy) -> list[int]:
    if isinstance(entropy, (int, np.integer)):
        return _int_words(entropy)
    words = []
    for value in np.asarray(entropy).ravel().tolist() if isinstance(entropy, np.ndarray) else entropy:
        words += _int_words(value)
    return words


class _Hash:
    """SeedSequence's hash: a multiplier that moves on after every use (the same for every child). Takes a Python
    int (one word) or a uint32 array (one word per child)."""

    def __init__(self, start: int, mult: int):
        self.const, self.mult = start, mult

    def __call__(self, value):
        value = value ^ self.const
        self.const = (self.const * self.mult) & _MASK32
        if isinstance(value, np.ndarray):
            value = value * np.uint32(self.const)
            return value ^ (value >> _SHIFT)
        value = (value * self.const) & _MASK32
        return value ^ (value >> 16)


def _mix(x, y):
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        out = np.uint32(_MIX_L) * np.asarray(x, dtype=np.uint32) - np.uint32(_MIX_R) * y
        return out ^ (out >> _SHIFT)
    out = (_MIX_L * x - _MIX_R * y) & _MASK32
    return out ^ (out >> 16)


def children_pools(parent: np.random.SeedSequence, indices) -> np.ndarray:
    """The entropy pools (len(indices) x pool_size, uint32) of ``parent``'s children ``indices``:
    ``SeedSequence(parent.entropy, spawn_key=parent.spawn_key + (i,), pool_size=parent.pool_size).pool``.

    A child's entropy is its parent's words (run entropy padded to the pool, then the parent's spawn key) and one
    last word, its index; every step before that word is the same for all children, so it runs once, on Python
    integers."""
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    if indices.size and (indices.min() < 0 or indices.max() >= 1 << 32):
        raise ValueError("children are numbered from 0 to 2^32 - 1 here.")
    pool_size = int(parent.pool_size)
    run = _entropy_words(parent.entropy)
    run += [0] * max(0, pool_size - len(run))  # a spawn key is present: the run entropy is padded to the pool
    prefix = run + [w for key in parent.spawn_key for w in _int_words(key)]
    hashmix = _Hash(_INIT_A, _MULT_A)
    pool = _mix_entropy(prefix, pool_size, hashmix)  # SeedSequence.mix_entropy up to the last word ...
    last = indices.astype(np.uint32)
    out = np.empty((indices.size, pool_size), dtype=np.uint32)
    with np.errstate(over="ignore"):
        for dst in range(pool_size):  # ... and its last step: the child's index mixed into each pool word
            out[:, dst] = _mix(pool[dst], hashmix(last))
    return out


def _mix_entropy(entropy: list[int], pool_size: int, hashmix: _Hash) -> list[int]:
    """SeedSequence.mix_entropy of the words ``entropy`` (at least ``pool_size`` of them), with ``hashmix``'s
    multiplier moving on as it goes."""
    pool = [hashmix(entropy[i]) for i in range(pool_size)]
    for src in range(pool_size):
        for dst in range(pool_size):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for src in range(pool_size, len(entropy)):
        for dst in range(pool_size):
            pool[dst] = _mix(pool[dst], hashmix(entropy[src]))
    return pool


def generate_state64(pools: np.ndarray, n_words: int) -> np.ndarray:
    """SeedSequence.generate_state(n_words, np.uint64) for every pool at once (count x n_words, uint64)."""
    count, pool_size = pools.shape
    hashmix = _Hash(_INIT_B, _MULT_B)
    out = np.empty((count, 2 * n_words), dtype=np.uint32)
    with np.errstate(over="ignore"):
        for i in range(2 * n_words):
            out[:, i] = hashmix(pools[:, i % pool_size])
    return out[:, 0::2].astype(np.uint64) | (out[:, 1::2].astype(np.uint64) << np.uint64(32))


def pcg64_states(parent: np.random.SeedSequence, indices) -> list[tuple[int, int]]:
    """(state, inc) of ``PCG64(child)`` for ``parent``'s children ``indices``: PCG64 seeds with four 64-bit words
    s0, s1, i0, i1 and takes two steps (O'Neill's ``pcg_setseq_128_srandom_r``)."""
    pools = children_pools(parent, indices)
    words = generate_state64(pools, 4).astype(">u8").tobytes()  # s0 s1 i0 i1 per child
    out = []
    for at in range(0, 32 * pools.shape[0], 32):
        inc = ((int.from_bytes(words[at + 16 : at + 32], "big") << 1) | 1) & _MASK128
        out.append((((inc + int.from_bytes(words[at : at + 16], "big")) * _PCG_MULT + inc) & _MASK128, inc))
    return out


def child(parent: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """``parent``'s i-th child (what ``parent.spawn`` gives it)."""
    return np.random.SeedSequence(
        parent.entropy, spawn_key=tuple(parent.spawn_key) + (int(i),), pool_size=parent.pool_size
    )


class TrialGenerators:
    """``Generator(PCG64(child_i))`` for ``parent``'s children ``indices`` in turn, as one reused generator: each is
    valid until the next is drawn (keep draws, never the generator)."""

    def __init__(self, parent: np.random.SeedSequence, indices):
        self.parent = parent
        self.indices = [int(i) for i in indices]

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self):
        if not self.indices:
            return
        states = pcg64_states(self.parent, self.indices)
        reference = np.random.PCG64(child(self.parent, self.indices[0])).state
        if reference["state"] != {"state": states[0][0], "inc": states[0][1]}:
            for i in self.indices:  # numpy seeds differently from the arithmetic above: its own generators
                yield np.random.Generator(np.random.PCG64(child(self.parent, i)))
            return
        bit_generator = np.random.PCG64(0)
        generator = np.random.Generator(bit_generator)
        template = dict(reference)
        for state, inc in states:
            template["state"] = {"state": state, "inc": inc}
            bit_generator.state = template
            yield generator

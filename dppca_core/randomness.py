"""Where a release's randomness comes from, and whether anyone else can regenerate it.

Two sources, never mixed within one release:

* **fresh** (``seed=None``): a numpy Generator over ChaCha20 (``randomgen.ChaCha``, 20 rounds), keyed with 256 bits
  from the operating system (:func:`secrets.randbits`). ChaCha20 is a stream cipher: seeing any number of its
  outputs does not reveal its key or its other outputs. This is the only source a release to publish may use.
  (numpy's default PCG64 is a fine statistical generator but not a cryptographic one: its state can be recovered
  from enough of its outputs, and an attacker who knows almost every published count knows almost every noise
  draw.)
* **seeded** (an int, a SeedSequence or a Generator the caller passes): reproducible, for exploring. Anyone who
  holds the seed regenerates the noise and subtracts it, so a seeded release says so in what it publishes
  (``Release.published()["fresh_randomness"]`` is False) and :func:`dppca_core.publish` refuses it.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from numbers import Integral

import numpy as np

#: number of ChaCha rounds (20: the cipher as standardised, RFC 8439)
CHACHA_ROUNDS = 20


def secure_generator() -> np.random.Generator:
    """A numpy Generator over ChaCha20 keyed from the operating system's entropy (never reproducible).

    The key comes through a :class:`numpy.random.SeedSequence` of 256 bits of :func:`secrets.randbits`, so
    ``Generator.spawn`` gives independent child streams (used for public draws such as a random order).
    """
    from randomgen import ChaCha

    return np.random.Generator(ChaCha(np.random.SeedSequence(secrets.randbits(256)), rounds=CHACHA_ROUNDS))


@dataclass(frozen=True)
class RandomSource:
    """A release's generator and whether the caller chose its seed (then its noise can be regenerated)."""

    rng: np.random.Generator
    seeded: bool


def random_source(seed) -> RandomSource:
    """The source of a release's randomness from ``seed``.

    None: fresh (:func:`secure_generator`). An int >= 0 or a SeedSequence: numpy's default generator seeded with it.
    A Generator: used as is, and counted as seeded (the caller holds its state). A RandomSource: passed through (how
    one release hands its source to the parts it is made of).
    """
    if isinstance(seed, RandomSource):
        return seed
    if seed is None:
        return RandomSource(secure_generator(), seeded=False)
    if isinstance(seed, np.random.Generator):
        return RandomSource(seed, seeded=True)
    if isinstance(seed, np.random.SeedSequence) or (isinstance(seed, Integral) and not isinstance(seed, bool)):
        if isinstance(seed, Integral) and seed < 0:
            raise ValueError(f"seed must be >= 0 (got {seed}).")
        return RandomSource(np.random.default_rng(seed), seeded=True)
    raise ValueError(f"seed must be None (fresh randomness, for a release to publish), a non-negative int or a numpy "
                     f"Generator (reproducible, for exploring); got {type(seed).__name__}.")

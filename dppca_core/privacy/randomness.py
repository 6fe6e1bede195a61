"""Where a release's randomness comes from, and whether anyone else can regenerate it.

Two sources, never mixed within one release:

* **fresh** (``seed=None``): a numpy Generator over ChaCha20 (``randomgen.ChaCha``, 20 rounds) whose 256-bit key is
  32 bytes from the operating system (:func:`secrets.token_bytes`), set directly as the key (never passed through a
  :class:`numpy.random.SeedSequence`, whose pool holds 128 bits). ChaCha20 is a stream cipher: seeing any number of
  its outputs does not reveal its key or its other outputs. This is the only source a release to publish may use.
  (numpy's default PCG64 is a fine statistical generator but not a cryptographic one: its state can be recovered
  from enough of its outputs, and an attacker who knows almost every published count knows almost every noise
  draw.)
* **seeded** (an int, a SeedSequence or a Generator the caller passes): reproducible, for exploring. Anyone who
  holds the seed regenerates the noise and subtracts it, so a seeded release says so in what it publishes
  (``Release.published()["fresh_randomness"]`` is False) and :func:`dppca_core.publish` refuses it.

A mechanism that draws noise in bulk (Private Oja: one Gaussian vector per row) asks :func:`bulk_generator` for
the generator it draws it from: for a fresh release, AES-128 in counter mode (``randomgen.AESCounter``, the
processor's AES instructions) keyed with 128 fresh bits from the operating system, a cryptographically secure
generator too and, here, 2.2 times faster at drawing normals than ChaCha20 (docs/privacy.md, "Randomness and
seeds"); for a seeded one, its own generator, so that exploration draws what it always drew.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import randomgen

#: number of ChaCha rounds (20: the cipher as standardised, RFC 8439)
CHACHA_ROUNDS = 20
#: bytes of a ChaCha20 key (256 bits, RFC 8439 section 2.3)
KEY_BYTES = 32
#: bytes of an AES-128 key (FIPS 197)
AES_KEY_BYTES = 16


def os_key(size: int = KEY_BYTES) -> int:
    """A key of ``size`` bytes (256 bits by default) from the operating system's cryptographic source, read as one
    little-endian integer (the order randomgen stores the key's 32-bit words in)."""
    return int.from_bytes(secrets.token_bytes(size), "little")


class ChaCha(randomgen.ChaCha):
    """randomgen's ChaCha20 keyed directly with 256 bits from the operating system, whose children are too.

    ``randomgen.ChaCha(key=...)`` sets the key as given (its ``seed`` argument would run through a SeedSequence).
    ``Generator.spawn`` asks the bit generator for children: the stock ``spawn`` would seed them from a
    SeedSequence of 128 bits; here each child gets its own fresh 256-bit key from the operating system (a fresh
    stream is never reproducible, so nothing is lost). The name stays ``ChaCha``: the exact samplers recognise
    the bit generators that give 64-bit words by name (:mod:`dppca_core.privacy.exact`).
    """

    def spawn(self, n_children: int) -> list:
        return [type(self)(key=os_key(), counter=0, rounds=CHACHA_ROUNDS) for _ in range(int(n_children))]


def secure_generator() -> np.random.Generator:
    """A numpy Generator over ChaCha20 keyed with 256 bits from the operating system (never reproducible).

    The key is set directly (:func:`os_key`); ``Generator.spawn`` gives child streams keyed the same way (used for
    public draws such as a random order).

    Returns
    -------
    numpy.random.Generator
        A generator over ``randomgen.ChaCha`` (20 rounds), for every release drawn to publish (``seed=None``).

    Examples
    --------
    >>> import dppca_core as dc
    >>> rng = dc.secure_generator()
    >>> type(rng.bit_generator).__name__
    'ChaCha'
    >>> 0 <= rng.random() < 1
    True
    """
    return np.random.Generator(ChaCha(key=os_key(), counter=0, rounds=CHACHA_ROUNDS))


@functools.cache
def hardware_aes() -> bool:
    """Whether randomgen's AES counter generator runs on the processor's AES instructions here (AES-NI): without
    them it computes AES in software from tables, slower than ChaCha20 and open to cache-timing attacks."""
    return bool(randomgen.AESCounter(key=0).use_aesni)


def bulk_generator(rng: np.random.Generator) -> np.random.Generator:
    """The generator to draw a large amount of noise from (e.g. one Gaussian vector per row).

    For the fresh generator of a release to publish (:func:`secure_generator`'s, recognised by its bit generator's
    class), a new Generator over AES-128 in counter mode (``randomgen.AESCounter``) whose key is
    :data:`AES_KEY_BYTES` bytes from the operating system, set directly (:func:`os_key`), where the processor has
    AES instructions (:func:`hardware_aes`); else the ChaCha20 generator itself. For any other generator (seeded,
    for exploring), ``rng`` itself: a seeded run draws exactly what it drew before.

    Parameters
    ----------
    rng : numpy.random.Generator
        The release's generator.

    Returns
    -------
    numpy.random.Generator
        Cryptographically secure and never reproducible when ``rng`` is; ``rng`` otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> from dppca_core.privacy.randomness import bulk_generator
    >>> seeded = np.random.default_rng(0)
    >>> bulk_generator(seeded) is seeded
    True
    >>> type(bulk_generator(dc.secure_generator()).bit_generator).__name__ in ("AESCounter", "ChaCha")
    True
    """
    if type(rng.bit_generator) is not ChaCha or not hardware_aes():
        return rng
    return np.random.Generator(randomgen.AESCounter(key=os_key(AES_KEY_BYTES)))


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
    raise ValueError(
        f"seed must be None (fresh randomness, for a release to publish), a non-negative int or a numpy "
        f"Generator (reproducible, for exploring); got {type(seed).__name__}."
    )

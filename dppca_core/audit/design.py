"""What a mechanism declares to be audited: the neighbouring inputs, the statistic, and its public randomness.

This module sits below the mechanisms: it imports numpy and nothing else of the package, so a mechanism module
can declare its own :class:`AuditDesign` (the registry's ``audit_design`` hook) without importing the attack
code (:mod:`dppca_core.audit.core`), which runs mechanisms through :func:`dppca_core.run`.

Public randomness. Some guarantees condition on data-independent draws (Private Oja's and DP-PCA's order of
the rows and start vector): each record is protected by the noise of its own step whatever those draws are, so
the guarantee holds even for an attacker who knows them. Such a mechanism draws them from a child stream,
:func:`public_stream` (``rng.spawn(1)[0]``), never from the generator that makes its noise. The audit gives
each trial a fresh :class:`numpy.random.SeedSequence`; it rebuilds the first child of that sequence
(:func:`replay_public_stream`) and hands it to the design's ``public_draws``, so the test knows the public
draws without ever holding the state of the noise generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class AuditDesign:
    """Neighbouring inputs and a test statistic on what the guarantee covers.

    ``D`` and ``D_prime`` are what :func:`dppca_core.run` receives (rows, or a mechanism's own input);
    ``score(published) -> float`` is larger when the release points to D'. ``k`` is the number of components
    to run with. ``statistic`` names the score (the Audit page explains each name).

    ``public_draws(generator)``: for mechanisms whose guarantee conditions on data-independent randomness, the
    draws the test may know. It receives the mechanism's public stream (:func:`replay_public_stream`) and
    returns what the mechanism draws from it; ``score(published, public)`` then also receives that.
    ``datasets(public) -> (D, D_prime)``: neighbours chosen after the public draws (the canary placed where the
    public order uses it first, pointing where the public start vector makes it count most). The guarantee
    holds for every value of the public draws, so a test with neighbours that depend on them only is still a
    test of the claim (the error-rate inequalities hold for each value, hence on average).

    ``release(data, rng, epsilon, delta, neighbors) -> (published dict, PrivacyCurve)``: what to attack when
    the guarantee is stated for something other than the release a third party sees (a local mechanism's
    message to the untrusted aggregator); default: :meth:`dppca_core.Release.published` of a run.
    ``params``: mechanism parameters the design runs with (the caller's own parameters take precedence).
    ``threshold(published, trials, confidence) -> float``: the test's threshold, fixed by the design's theory
    from the run's public parameters (read from one published release, the same for every trial) instead of
    being chosen on a share of the trials; every trial then evaluates it (None: chosen on the selection share, as
    without one). ``note``: where the design attacks,
    in plain words.

    ``statistics``: candidate statistics for a release whose best test is not known in advance (a third party's
    implementation, :func:`dppca_core.audit.audit_external`). ``score`` then returns one value per name, and the
    audit keeps the candidate whose selection trials give the strongest bound; the evaluation trials read the
    bound of that one only, so the choice does not bias it. ``statistic`` names the family.

    ``bounded_range``: the release is an exponential mechanism, whose privacy loss lies in an interval of width
    epsilon (:mod:`.bounds`); ``threshold`` then returns two thresholds (upper tail, lower tail), both fixed in
    advance, and the audit reads the width of the loss's range from the two tests (conversion "range") besides the
    distribution-free bound.

    ``score_batch(published_list) -> array`` (optional): the scores of many releases at once, each equal to what
    ``score`` gives it (the audit checks the first of every batch against ``score`` and scores one by one where
    they differ); used with a mechanism's batch path (registry ``audit_batch``).
    """

    D: object
    D_prime: object
    k: int
    score: Callable[..., float]
    statistic: str
    public_draws: Callable[[np.random.Generator], object] | None = None
    params: dict = field(default_factory=dict)
    datasets: Callable[[object], tuple] | None = None
    release: Callable | None = None
    threshold: Callable[[dict, int, float], float] | None = None
    note: str = ""
    statistics: tuple = ()
    score_batch: Callable[[list], np.ndarray] | None = None
    bounded_range: bool = False


def public_stream(rng: np.random.Generator) -> np.random.Generator:
    """The child stream a mechanism draws its public (data-independent) randomness from: ``rng.spawn(1)[0]``.

    Works for any numpy Generator whose bit generator was built from a :class:`numpy.random.SeedSequence`
    (``numpy.random.default_rng(seed)``, or a cryptographically secure bit generator seeded that way). Spawning
    depends on the seed sequence only, not on the noise generator's state, which is what lets the audit replay
    these draws (:func:`replay_public_stream`) without the state that makes the noise.
    """
    try:
        return rng.spawn(1)[0]
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(
            f"this mechanism draws its public randomness from a child stream (Generator.spawn), which "
            f"the given {type(rng).__name__} does not support ({exc}); pass an int seed, None, or a "
            "numpy Generator whose bit generator was built from a numpy.random.SeedSequence."
        ) from None


def replay_public_stream(seed_sequence: np.random.SeedSequence, bit_generator=np.random.PCG64) -> np.random.Generator:
    """The stream :func:`public_stream` returns for a generator ``Generator(bit_generator(seed_sequence))``
    that has not spawned yet: its first child, rebuilt from the sequence's entropy and spawn key alone."""
    child = np.random.SeedSequence(
        seed_sequence.entropy, spawn_key=tuple(seed_sequence.spawn_key) + (0,), pool_size=seed_sequence.pool_size
    )
    return np.random.Generator(bit_generator(child))


__all__ = ["AuditDesign", "public_stream", "replay_public_stream"]

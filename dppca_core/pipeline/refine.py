"""Refine instead of replace (issue 60): several releases of the same noisy statistic on the same data, combined into
one by inverse-variance weighting.

A Gaussian release of a statistic S is S + N(0, sigma_i^2) per entry, mu_i = Delta / sigma_i. Weighting the releases by
1 / sigma_i^2 gives S + N(0, sigma^2) with 1 / sigma^2 = sum 1 / sigma_i^2, i.e. Delta / sigma = sqrt(sum mu_i^2): exactly
one release at the composed mu, the guarantee the releases have together (Gaussian DP composes by adding mu^2). So
a coarse first look followed by a refinement wastes nothing: together they are as accurate as one release at their
composed budget. Applies where a release is a noisy statistic plus post-processing: Analyze Gauss (the noisy
second-moment matrix) drawn as a whole release (no mean, scales, radius, eigenvalue or score share, which each use
their own draw of other statistics). Refused in words elsewhere.
"""

from __future__ import annotations

import numpy as np

from ..linalg import top_eigenvectors
from ..privacy.curves import total
from ..release import Release


def refinable(release: Release) -> str | None:
    """Why ``release`` cannot be refined, in words, or None when it can."""
    if release.state is None:
        return (
            f"{release.mechanism}'s release is not one noisy statistic plus post-processing (or it spent part of its "
            "budget on a mean, scales, a radius, eigenvalues or a score plot, each from its own draw): a later release "
            "cannot be combined with it. Refinement applies to Analyze Gauss released as a whole."
        )
    return None


def refine(releases) -> Release:
    """One release from ``releases`` (the same mechanism, statistic, radius, relation and k on the same data): their
    noisy statistics averaged with weights 1 / sigma_i^2, the components and eigenvalues computed from the average,
    and the composed guarantee of all of them (:func:`dppca_core.privacy.total`).

    Parameters
    ----------
    releases : sequence of Release
        At least two, each with a refinement state (:func:`refinable` says why not).

    Returns
    -------
    Release
        Its noise s.d. is that of one release at the composed budget: (sum 1 / sigma_i^2)^(-1/2). Seeded when any
        of them was (then :func:`dppca_core.publish` refuses it).

    Raises
    ------
    ValueError
        In words: fewer than two releases, one that cannot be refined, or releases of different statistics.
    """
    releases = list(releases)
    if len(releases) < 2:
        raise ValueError("refine() combines at least two releases of the same statistic.")
    for release in releases:
        why = refinable(release)
        if why:
            raise ValueError(why)
    first = releases[0]
    same = ("k", "d", "data_norm", "n")
    for release in releases[1:]:
        if release.mechanism != first.mechanism or release.neighbors != first.neighbors:
            raise ValueError("refine() combines releases of one mechanism under one neighbouring relation.")
        if release.state["statistic"] != first.state["statistic"] or any(
            release.parameters.get(p) != first.parameters.get(p) for p in same
        ):
            raise ValueError(
                "these releases are not of the same statistic (another radius, k, d or number of rows): they cannot "
                "be combined. Draw the refinement with the first release's settings, changing only epsilon."
            )
    weights = np.array([1.0 / r.state["sigma"] ** 2 for r in releases])
    matrix = sum(w * r.state["matrix"] for w, r in zip(weights, releases)) / weights.sum()
    sigma = float(1.0 / np.sqrt(weights.sum()))
    values, vectors = top_eigenvectors(matrix, first.k)
    curve, epsilon, delta = total([r.privacy for r in releases], [r.delta for r in releases])
    return Release(
        mechanism=first.mechanism,
        components=vectors,
        epsilon=epsilon,
        delta=delta,
        neighbors=first.neighbors,
        guarantee=first.guarantee,
        privacy=curve,
        noise_scale=sigma,
        eigenvalues=values,
        outputs={"trace": float(np.trace(matrix)), "refined_from": len(releases)},
        parameters=dict(first.parameters),
        facts={
            **first.facts,
            "refinement": {"releases": len(releases), "noise_scales": [r.noise_scale for r in releases]},
        },
        seeded=any(r.seeded for r in releases),
        schema=first.schema,
        state={"statistic": first.state["statistic"], "matrix": matrix, "sigma": sigma},
    )

"""What one run of a mechanism publishes, and, kept apart, what it does not.

A :class:`Release` separates two things on purpose:

* the **published** part (:meth:`Release.published`): the released components, the eigenvalues where the
  mechanism privatises them, other outputs its privacy proof covers (e.g. the iterates of a noisy power
  method), the privacy parameters, the neighbouring relation, the exact privacy curve, the public parameters
  and data-independent facts such as the noise scale. This is everything a user may hand to a third party,
  and every export of the project (reports, downloads, the scikit-learn estimator's attributes) is built
  from it;
* the **non-private diagnostics** (:attr:`Release.diagnostics`, a :class:`NonPrivateDiagnostics`):
  anything computed from the raw data without noise (how many rows were clipped, timings, a Gibbs chain's
  intermediate states, a sampler's acceptance rate, truncation counts). They are for exploring on the
  analyst's own machine; the guarantee does not cover them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .data.diagnostics import NonPrivateDiagnostics
from .data.schema import UNDECLARED, PublicSchema
from .privacy import PrivacyCurve
from .reading import number


@dataclass(frozen=True)
class Release:
    """What a mechanism releases, with the guarantee it earns.

    Parameters
    ----------
    mechanism : str
        Registry name of the mechanism.
    components : ndarray of shape (d, k)
        Orthonormal columns spanning the released subspace.
    epsilon, delta : float
        The privacy parameters the release satisfies (``delta = 0`` for pure DP, ``epsilon = inf`` when there
        is no guarantee).
    neighbors : str
        Neighbouring relation of the guarantee ("replace" or "add_remove").
    guarantee : str
        "pure", "approximate", "none" or "retracted" (the claimed guarantee does not hold).
    privacy : PrivacyCurve
        The exact guarantee: mu-GDP for Gaussian mechanisms (tighter than the (epsilon, delta) pair),
        pure, (epsilon, delta), or none.
    noise_scale : float or None
        Standard deviation (Gaussian) or scale (Laplace) of the noise added per entry, in units of the
        statistic named by ``facts["noise_on"]`` with rows scaled to norm <= 1; None where no additive noise
        is used. Data-independent.
    eigenvalues : ndarray of shape (k,) or None
        Private eigenvalue estimates of X^T X / data_norm^2, only for mechanisms that privatise them.
    outputs : dict
        Further outputs covered by the guarantee (e.g. ``iterates`` of a noisy power method).
    parameters : dict
        Public parameters of the run: k, d, data_norm, n (only under replace-one, where n is public) and the
        mechanism's own parameters (sites as sizes, never as per-row labels).
    facts : dict
        Data-independent facts (what the noise is added to, per-site noise levels, communication cost).
    caveat : str
        A caveat on the guarantee (e.g. an MCMC sampler), empty if none.
    diagnostics : NonPrivateDiagnostics
        Quantities computed from the raw data without noise. NOT covered by the guarantee; never published.
    seeded : bool
        True when the caller chose the seed (or passed a generator): anyone who holds it regenerates the noise, so
        the release is for exploring and :func:`publish` refuses it. False for fresh operating-system randomness
        (``seed=None``, :func:`dppca_core.privacy.randomness.secure_generator`).
    state : dict or None
        The noisy statistic the release's outputs are post-processing of (e.g. Analyze Gauss's noisy second-moment
        matrix with its noise s.d.), kept so that a later release of the same statistic can refine this one
        (:func:`dppca_core.pipeline.refine.refine`). As private as the release itself (it is the mechanism's output),
        never published (it is not in :meth:`published`: the floating-point noise of a whole matrix is not meant for
        a third party), None where no refinement applies.
    schema : PublicSchema or None
        The public schema of the table the release was drawn from, when it was given as a
        :class:`dppca_core.data.schema.Table` (None for plain rows, whose columns the caller chose). One whose
        columns were suggested by reading the cells (``declared=False``) is refused by :func:`publish`.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 3
    >>> release = dc.run("analyze_gauss", X, k=2, epsilon=1.0, seed=0)
    >>> release.guarantee, release.neighbors, release.seeded
    ('approximate', 'replace', True)
    >>> print(release.guarantee_text().split(":")[0])
    (epsilon = 1, delta = 10⁻⁶) for neighbours that replace one row (n public and fixed)
    """

    mechanism: str
    components: np.ndarray
    epsilon: float
    delta: float
    neighbors: str
    guarantee: str
    privacy: PrivacyCurve
    noise_scale: float | None = None
    eigenvalues: np.ndarray | None = None
    outputs: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    caveat: str = ""
    diagnostics: NonPrivateDiagnostics = field(default_factory=NonPrivateDiagnostics)
    seeded: bool = True
    schema: PublicSchema | None = None
    state: dict | None = field(default=None, repr=False, compare=False)

    @property
    def k(self) -> int:
        return self.components.shape[1]

    def published(self) -> dict:
        """Exactly what this release may publish, as a plain JSON-serialisable dict.

        Components, privatised eigenvalues and other covered outputs, the guarantee (parameters, relation,
        exact privacy curve and a sentence in words), public parameters and data-independent facts, and whether
        the noise came from fresh operating-system randomness (``fresh_randomness``; False when the caller chose
        the seed: then the noise can be regenerated and the release is not fit to publish). Nothing from :attr:`diagnostics`. An infinite epsilon (no guarantee) is written as None.
        """
        return {
            "mechanism": self.mechanism,
            "guarantee": self.guarantee,
            "epsilon": None if math.isinf(self.epsilon) else float(self.epsilon),
            "delta": float(self.delta),
            "neighbors": self.neighbors,
            "privacy": self.privacy.as_dict(),
            "guarantee_text": self.guarantee_text(),
            "parameters": to_plain(self.parameters),
            "noise_scale": None if self.noise_scale is None else float(self.noise_scale),
            "facts": to_plain(self.facts),
            "components": to_plain(self.components),
            "eigenvalues": None if self.eigenvalues is None else to_plain(self.eigenvalues),
            "outputs": to_plain(self.outputs),
            "fresh_randomness": not self.seeded,
        }

    def guarantee_text(self) -> str:
        """One sentence, in plain words, of what this release guarantees."""
        from .privacy import describe_neighbors

        relation = describe_neighbors(self.neighbors)
        if self.guarantee == "none":
            return "No privacy: this is the exact, non-private answer."
        if self.guarantee == "retracted":
            return (
                f"Claimed {number(self.epsilon)}-DP, but the claim is false (the paper was retracted): "
                "an attacker can tell neighbouring datasets apart with high probability."
            )
        if self.guarantee == "pure":
            text = (
                f"epsilon = {number(self.epsilon)} (pure DP) for neighbours that {relation}: any outcome "
                f"is at most e^{number(self.epsilon)} = {number(np.exp(min(self.epsilon, 700)), 3)} times more likely "
                "with any one person's row than without it."
            )
        else:
            text = (
                f"(epsilon = {number(self.epsilon)}, delta = {number(self.delta)}) for neighbours that {relation}: "
                f"outcome probabilities change by a factor of at most e^{number(self.epsilon)}, except on "
                f"events of total probability at most delta = {number(self.delta)}."
            )
        if self.privacy.kind == "gdp":
            text += f" Exactly: {self.privacy.describe()}."
        return f"{text} Caveat: {self.caveat}" if self.caveat else text

    def __repr__(self) -> str:
        d, k = self.components.shape
        return (
            f"Release(mechanism={self.mechanism!r}, d={d}, k={k}, epsilon={self.epsilon:g}, delta={self.delta:g}, "
            f"neighbors={self.neighbors!r}, guarantee={self.guarantee!r}, privacy={self.privacy.describe()!r})"
        )


def publish(release: Release, nonprivate_choices=()) -> dict:
    """A publishable release: ``release.published()``, refused when its noise can be regenerated.

    Parameters
    ----------
    release : Release
        Drawn with ``seed=None`` (fresh operating-system randomness). A release drawn with a caller-supplied seed or
        generator raises ValueError: whoever holds the seed regenerates the noise and subtracts it. So does a release
        with no guarantee of its own (the exact ``non_private`` reference) or a retracted one (``wishart_sn``): what
        they publish is not covered by any proof (:func:`dppca_core.publishable.refusal`).
    nonprivate_choices : sequence of str
        Data-dependent choices made before the release that were not private (e.g. "centring with the data's own
        mean", "clipping radius read from the data"). With any, the export states no guarantee and names them:
        a release is only as private as its least private step.

    Raises
    ------
    ValueError
        In words: a seeded release, a mechanism without a guarantee, or a release drawn from a
        :class:`dppca_core.data.schema.Table` whose columns nobody declared (suggested from the cells).

    Returns
    -------
    dict
        What may be handed to a third party, with ``"export": "publishable release"``.

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 3
    >>> public = dc.publish(dc.run("analyze_gauss", X, k=2, epsilon=1.0))  # seed=None: fresh randomness
    >>> public["fresh_randomness"], public["guarantee"], len(public["components"])
    (True, 'approximate', 5)
    >>> dc.publish(dc.run("analyze_gauss", X, k=2, epsilon=1.0, seed=0))
    Traceback (most recent call last):
        ...
    ValueError: this release was drawn with a caller-supplied seed or generator: ...
    """
    if not isinstance(release, Release):
        raise ValueError(
            f"publish() takes a Release (from dppca_core.run or release_pca), not {type(release).__name__}."
        )
    if release.seeded:
        raise ValueError(
            "this release was drawn with a caller-supplied seed or generator: anyone who holds it can "
            "regenerate the noise and subtract it. Draw the release to publish with seed=None (fresh "
            "randomness from the operating system)."
        )
    if release.schema is not None and not release.schema.declared:
        raise ValueError(f"{release.mechanism}: {UNDECLARED}")
    if release.guarantee in ("none", "retracted"):
        from .publishable import refusal

        why = refusal(release.mechanism) or f"this release states no guarantee ({release.guarantee})."
        raise ValueError(f"{release.mechanism}: {why} Its release cannot be published.")
    out = {"export": "publishable release", **release.published()}
    choices = [str(c) for c in nonprivate_choices]
    if choices:
        out.update(
            guarantee="none",
            epsilon=None,
            delta=0.0,
            privacy=PrivacyCurve.none().as_dict(),
            nonprivate_choices=choices,
            guarantee_text="No privacy guarantee: these data-dependent choices were not private: "
            + "; ".join(choices)
            + ". The mechanism's own calibration does not cover them.",
        )
    return out


def to_plain(value):
    """Recursively turn arrays and numpy scalars into lists and Python numbers (JSON-serialisable)."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_plain(value.tolist())
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value

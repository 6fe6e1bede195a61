"""The result of one run of a mechanism."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Release:
    """What a mechanism releases, with the guarantee it earns.

    Attributes
    ----------
    components : ndarray of shape (d, k)
        Orthonormal columns spanning the released subspace.
    epsilon, delta : float
        The privacy parameters the release satisfies (``delta = 0`` for pure DP,
        ``epsilon = inf`` for the non-private reference).
    neighbors : str
        Neighbouring relation of the guarantee ("replace" or "add_remove").
    guarantee : str
        "pure", "approximate", "none" or "retracted" (the claimed guarantee does not hold).
    noise_scale : float or None
        Standard deviation (Gaussian) or scale (Laplace) of the noise added per entry, in
        units of the statistic the mechanism perturbs with rows scaled to norm <= 1
        (see ``diagnostics["noise_on"]``); None where no additive noise is used.
    mechanism : str
        Registry name of the mechanism.
    eigenvalues : ndarray of shape (k,) or None
        Released eigenvalue estimates of X^T X / data_norm^2, when the mechanism releases them.
    diagnostics : dict
        Iterations, timings (seconds), warnings and mechanism-specific traces.
    """

    components: np.ndarray
    epsilon: float
    delta: float
    neighbors: str
    guarantee: str
    noise_scale: float | None
    mechanism: str
    eigenvalues: np.ndarray | None = None
    diagnostics: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return self.components.shape[1]

    def guarantee_text(self) -> str:
        """One sentence, in plain words, of what this release guarantees."""
        from .privacy import describe_neighbors

        relation = describe_neighbors(self.neighbors)
        if self.guarantee == "none":
            return "No privacy: this is the exact, non-private answer."
        if self.guarantee == "retracted":
            return (
                f"Claimed {self.epsilon:g}-DP, but the claim is false (the paper was retracted): "
                "an attacker can tell neighbouring datasets apart with high probability."
            )
        if self.guarantee == "pure":
            text = (
                f"epsilon = {self.epsilon:g} (pure DP) for neighbours that {relation}: any outcome "
                f"is at most e^{self.epsilon:g} = {np.exp(min(self.epsilon, 700)):.3g} times more likely "
                "with any one person's row than without it."
            )
        else:
            text = (
                f"(epsilon = {self.epsilon:g}, delta = {self.delta:g}) for neighbours that {relation}: "
                f"outcome probabilities change by a factor of at most e^{self.epsilon:g}, except on "
                f"events of total probability at most delta = {self.delta:g}."
            )
        caveat = self.diagnostics.get("guarantee_caveat")
        return f"{text} Caveat: {caveat}" if caveat else text

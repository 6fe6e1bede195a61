"""The ledger of a complete release: every private step records what it publishes and what it costs, once.

A release (:func:`dppca_core.release_pca`) is a chain of small steps (scale, radius, mean, subspace, eigenvalues,
k, score plot); each returns its published outputs, its public parameters, its facts (noise scales, grids) and the
privacy curve it spends, and :meth:`Ledger.record` keeps them in the order the steps ran. :meth:`Ledger.close`
composes the curves once (:func:`dppca_core.privacy.compose`: exact for Gaussian parts, basic composition
otherwise) and checks that the composition earns the stated (epsilon, delta), so no step can spend more than its
share unnoticed. Models: OpenDP's adaptive composition of a PCA chain and diffprivlib's budget accountant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..privacy import PrivacyCurve, compose


@dataclass
class Step:
    """What one step of a release gives the ledger: its privacy curve (None for a free step: post-processing or
    public information), and the published outputs, facts and public parameters it adds."""

    curves: list = field(default_factory=list)
    outputs: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)


class Ledger:
    """The steps of one release, in order: their outputs, facts, parameters and privacy curves."""

    def __init__(self):
        self.outputs, self.facts, self.parameters, self.curves = {}, {}, {}, []

    def record(self, step: Step) -> None:
        self.outputs.update(step.outputs)
        self.facts.update(step.facts)
        self.parameters.update(step.parameters)
        self.curves.extend(step.curves)

    def close(
        self, epsilon: float, delta: float, guarantee: str, retracted: PrivacyCurve | None = None
    ) -> tuple[PrivacyCurve, str]:
        """(the composed curve of every step, the guarantee the release states).

        ``delta`` is the release's total delta (0 for a pure-DP release); a mechanism whose guarantee was retracted
        keeps its own curve (``retracted``). RuntimeError when the composition does not earn ``epsilon`` at
        ``delta``: the split would be wrong.
        """
        if guarantee == "retracted":
            return retracted, guarantee
        privacy = compose(self.curves, delta=delta if delta > 0 else None)
        earned = privacy.epsilon_at(delta) if delta > 0 else privacy.epsilon
        if earned > epsilon * (1 + 1e-6):
            raise RuntimeError(f"the parts compose to epsilon = {earned:.6g} > {epsilon:g}; the split is wrong.")
        return privacy, "pure" if delta == 0 else "approximate"


__all__ = ["Ledger", "Step"]

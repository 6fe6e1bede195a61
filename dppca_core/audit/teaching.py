"""The teaching example of the risk view: what an audit of a guarantee would see, simulated on the worst case the
guarantee allows (re-exported by :mod:`dppca_core.risk`, where it was first defined)."""

from __future__ import annotations

import math

import numpy as np


#: trials per dataset of the teaching example's simulated audit (the Audit page runs real ones)
TEACHING_TRIALS = 2000


def worst_case_scores(obj, trials: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` draws of the best test's statistic on D and on D', for the pair of output laws that meets the
    guarantee's trade-off curve exactly (the worst case it allows; larger values point to D').

    mu-GDP: N(0, 1) against N(mu, 1) (Dong, Roth & Su 2022, Definition 2.6). (epsilon, delta)-DP: four outputs
    0 ... 3 with probabilities (delta, (1 - delta) e^eps / (1 + e^eps), (1 - delta) / (1 + e^eps), 0) on D and
    the reverse on D' (Kairouz, Oh & Viswanath 2015, the pair whose trade-off is the (epsilon, delta) curve); with
    delta = 0 this is randomized response.
    """
    from ..risk import curve_of

    curve = curve_of(obj)
    if curve.kind == "none":
        raise ValueError(
            "a release without a guarantee has no worst case to simulate: an attacker can be right " "every time."
        )
    if curve.kind == "gdp":
        return rng.standard_normal(trials), curve.mu + rng.standard_normal(trials)
    d, e = curve.delta, math.exp(min(curve.epsilon, 700.0))
    law = np.array([d, (1.0 - d) * e / (1.0 + e), (1.0 - d) / (1.0 + e), 0.0])
    return rng.choice(4, size=trials, p=law).astype(float), rng.choice(4, size=trials, p=law[::-1]).astype(float)


def teaching_audit(obj, delta: float, trials: int = TEACHING_TRIALS, seed: int = 0, confidence: float = 0.95):
    """(the attack's trade-off curve, its one-line reading) of an audit of the guarantee's worst case, simulated with
    ``trials`` draws per dataset (:func:`worst_case_scores`): the same curve, band and reading as the Audit page's
    (:func:`dppca_core.audit.curve.tradeoff_curve`), for a class to see that a tight attack's curve lies on the
    claimed one, its band straddling it, and that the audit's lower bound stays below the claim. ``delta``: the
    delta at which epsilon is read (that of a pure or (epsilon, delta) claim is its own)."""
    from ..risk import curve_of, epsilon_at
    from .curve import tradeoff_curve

    curve = curve_of(obj)
    if curve.kind != "gdp":
        delta = curve.delta
    scores_d, scores_dp = worst_case_scores(curve, trials, np.random.default_rng(seed))
    attack = tradeoff_curve(scores_d, scores_dp, curve, delta, confidence)
    return attack, attack.reading(epsilon_at(curve, delta))

"""Privacy curves and their composition: :class:`PrivacyCurve` (the exact curve a release earns: Gaussian DP with
its mu, pure epsilon, or an (epsilon, delta) point), the conversions between mu, rho (zCDP) and epsilon, and
:func:`compose`, which every release with several parts goes through once (Dong, Roth & Su 2022, Corollary 3.3 for
Gaussian parts; basic composition otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from ..reading import number
from .calibration import gaussian_delta, gaussian_epsilon


def composed_mu(mus) -> float:
    """GDP parameter of an adaptive composition of mu_t-GDP mechanisms.

    Parameters
    ----------
    mus : iterable of float
        Each step's GDP parameter.

    Returns
    -------
    float
        sqrt(sum mu_t^2) (Dong, Roth & Su 2022, Corollary 3.3).

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.composed_mu([0.3, 0.4])
    0.5
    """
    mus = np.asarray(mus, dtype=float)
    return float(np.sqrt(np.sum(mus**2)))


CURVE_KINDS = ("gdp", "pure", "approx", "none")


def _finite_nonnegative(value, name: str) -> float:
    """``value`` as a float; ValueError in words unless it is a finite number >= 0."""
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 (got {value!r}).")
    return value


#: how each kind of guarantee is named: in a sentence, and in a legend (:meth:`PrivacyCurve.describe`'s ``short``)
CURVE_NAMES = {
    "gdp": ("{mu}-Gaussian DP (exact for the Gaussian noise added)", "μ = {mu} Gaussian DP"),
    "pure": ("{epsilon}-DP (pure)", "ε = {epsilon} (pure DP)"),
    "approx": ("({epsilon}, {delta})-DP", "(ε, δ) = ({epsilon}, {delta})"),
}


@dataclass(frozen=True)
class PrivacyCurve:
    """The exact privacy guarantee of one release, as a family of (epsilon, delta) pairs.

    ``kind`` is

    * ``"gdp"``: mu-Gaussian DP (Dong, Roth & Su 2022): every test of "D or D'?" with false-positive rate
      alpha has false-negative rate at least Phi(Phi^-1(1 - alpha) - mu). The Gaussian mechanism with
      sensitivity Delta and noise sigma is exactly (Delta / sigma)-GDP, and adaptive compositions of Gaussian
      steps are sqrt(sum mu_t^2)-GDP, so this is the exact guarantee of every Gaussian mechanism here.
    * ``"pure"``: epsilon-DP (delta = 0).
    * ``"approx"``: (epsilon, delta)-DP, where nothing tighter is proven (e.g. histograms mixed with Gaussians).
    * ``"none"``: no guarantee (the non-private reference, or a retracted mechanism).

    Parameters
    ----------
    kind : {"gdp", "pure", "approx", "none"}
        Which guarantee (above); the class methods :meth:`gdp`, :meth:`pure`, :meth:`approx` and :meth:`none` build
        each with its checks.
    epsilon, delta : float
        For "pure" (delta 0) and "approx".
    mu : float, optional
        For "gdp".

    Raises
    ------
    ValueError
        For a kind that is not one of the four.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> curve = privacy.PrivacyCurve.gdp(0.5)
    >>> print(curve.describe())
    0.5-Gaussian DP (exact for the Gaussian noise added)
    >>> round(curve.epsilon_at(1e-6), 4)  # the epsilon it earns at delta = 1e-6
    2.2541
    """

    kind: str
    epsilon: float = math.inf
    delta: float = 0.0
    mu: float | None = None

    def __post_init__(self):
        if self.kind not in CURVE_KINDS:
            raise ValueError(f"kind must be one of {CURVE_KINDS}, not {self.kind!r}.")

    @classmethod
    def gdp(cls, mu: float) -> "PrivacyCurve":
        mu = _finite_nonnegative(mu, "mu")
        return cls("gdp", mu=mu)

    @classmethod
    def pure(cls, epsilon: float) -> "PrivacyCurve":
        return cls("pure", epsilon=float(epsilon), delta=0.0)

    @classmethod
    def approx(cls, epsilon: float, delta: float) -> "PrivacyCurve":
        return cls("approx", epsilon=float(epsilon), delta=float(delta))

    @classmethod
    def none(cls) -> "PrivacyCurve":
        return cls("none")

    def delta_at(self, epsilon: float) -> float:
        """Smallest delta such that the release is (epsilon, delta)-DP (1 where nothing is known)."""
        if self.kind == "gdp":
            return gaussian_delta(float(epsilon), self.mu)
        if self.kind in ("pure", "approx") and epsilon >= self.epsilon:
            return self.delta
        return 1.0

    def epsilon_at(self, delta: float) -> float:
        """Smallest epsilon such that the release is (epsilon, delta)-DP (inf where none is known)."""
        if self.kind == "gdp":
            return gaussian_epsilon(self.mu, delta)
        if self.kind in ("pure", "approx") and delta >= self.delta:
            return self.epsilon
        return math.inf

    def false_negative_floor(self, alpha):
        """The trade-off function: the smallest false-negative rate any test can have at false-positive ``alpha``.

        GDP: Phi(Phi^-1(1 - alpha) - mu). (epsilon, delta)-DP: max(0, 1 - delta - e^eps alpha,
        e^-eps (1 - delta - alpha)) (Kairouz, Oh & Viswanath 2015). No guarantee: 0.
        """
        alpha = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        if self.kind == "gdp":
            return ndtr(ndtri(1.0 - alpha) - self.mu)
        if self.kind == "none":
            return np.zeros_like(alpha)
        eps, delta = self.epsilon, self.delta
        return np.maximum.reduce(
            [
                np.zeros_like(alpha),
                1.0 - delta - math.exp(min(eps, 700.0)) * alpha,
                math.exp(-eps) * (1.0 - delta - alpha),
            ]
        )

    @classmethod
    def from_dict(cls, spec: dict) -> "PrivacyCurve":
        """The curve :meth:`as_dict` describes (a published ``privacy`` dict)."""
        kind = spec["kind"]
        if kind == "gdp":
            return cls.gdp(spec["mu"])
        if kind == "pure":
            return cls.pure(spec["epsilon"])
        if kind == "approx":
            return cls.approx(spec["epsilon"], spec["delta"])
        return cls.none()

    def as_dict(self) -> dict:
        """Plain, JSON-serialisable description (infinite epsilon as None)."""
        out = {"kind": self.kind}
        if self.kind == "gdp":
            out["mu"] = self.mu
        elif self.kind in ("pure", "approx"):
            out.update(epsilon=self.epsilon, delta=self.delta)
        return out

    def describe(self, short: bool = False) -> str:
        """The guarantee in words (``CURVE_NAMES``): "0.5-Gaussian DP (exact for ...)", or ``short`` (a legend's
        size) "μ = 0.5 Gaussian DP"; every number as ``dppca_core.reading.number`` writes it."""
        if self.kind not in CURVE_NAMES:
            return "no guarantee" if short else "no privacy guarantee"
        words = CURVE_NAMES[self.kind][short]
        return words.format(mu=number(self.mu), epsilon=number(self.epsilon), delta=number(self.delta))


def zcdp_to_gdp_mu(rho: float) -> float:
    """mu = sqrt(2 rho): the Gaussian-DP parameter of a Gaussian step stated as rho-zCDP, exactly.

    The Gaussian mechanism with l2 sensitivity Delta and noise s.d. sigma is Delta^2 / (2 sigma^2)-zCDP (Bun &
    Steinke 2016, Proposition 1.6) and exactly (Delta / sigma)-GDP (Dong, Roth & Su 2022, Theorem 2.7): for a
    Gaussian step both say the same, with rho = mu^2 / 2. Papers calibrated in zCDP (CoinPress; Dong, Liang & Yi
    2022) therefore carry over to GDP with nothing lost, and their additive composition (rho adds) is GDP's
    (mu^2 adds, :func:`composed_mu`), which unlike zCDP's conversion to (epsilon, delta) is exact.

    Parameters
    ----------
    rho : float
        The zCDP parameter of a Gaussian step.

    Returns
    -------
    float
        mu.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.zcdp_to_gdp_mu(0.125)
    0.5
    """
    rho = _finite_nonnegative(rho, "rho")
    return math.sqrt(2.0 * rho)


def gdp_to_zcdp_rho(mu: float) -> float:
    """rho = mu^2 / 2: the zCDP parameter of a mu-GDP Gaussian step (the inverse of :func:`zcdp_to_gdp_mu`).

    Parameters
    ----------
    mu : float
        The GDP parameter.

    Returns
    -------
    float
        rho.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.gdp_to_zcdp_rho(0.5)
    0.125
    """
    mu = _finite_nonnegative(mu, "mu")
    return mu * mu / 2.0


def split_mu(mu: float, weights) -> list[float]:
    """The GDP parameter of each of several adaptive Gaussian steps that share ``mu`` in proportion to ``weights``.

    Step i gets mu_i = sqrt(w_i / sum w) mu, i.e. the share w_i / sum w of mu^2 (of rho = mu^2 / 2 in zCDP terms:
    the per-iteration rho split of CoinPress, Biswas et al. 2020, Algorithm 2, and the halves of Dong, Liang & Yi
    2022, Algorithm 1). Adaptive composition of Gaussian steps adds mu_i^2 (Dong, Roth & Su 2022, Corollary 3.3),
    so the steps together are exactly mu-GDP.

    Parameters
    ----------
    mu : float
        The GDP parameter of all the steps together.
    weights : sequence of float
        Each step's share (not negative, summing to more than 0).

    Returns
    -------
    list of float
        Each step's mu.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> parts = privacy.split_mu(0.5, [3, 1])
    >>> round(privacy.composed_mu(parts), 12)
    0.5
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 1 or weights.size == 0 or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError(f"weights must be a non-empty list of positive numbers (got {weights!r}).")
    mu = float(mu)
    if not (math.isfinite(mu) and mu > 0):
        raise ValueError(f"mu must be a finite number > 0 (got {mu!r}).")
    return [math.sqrt(w) * mu for w in weights / weights.sum()]


def pure_to_gdp_mu(epsilon: float) -> float:
    """Smallest mu such that every epsilon-DP mechanism is mu-GDP: mu = 2 Phi^-1(e^eps / (1 + e^eps)).

    Proof. The epsilon-DP trade-off function f(alpha) = max(0, 1 - e^eps alpha, e^-eps (1 - alpha)) is
    piecewise linear with a single interior kink at alpha* = 1 / (1 + e^eps), where f(alpha*) = alpha*. The
    GDP curve G_mu is convex with G_mu(0) = 1 and G_mu(1) = 0, so G_mu lies below every chord; hence
    f >= G_mu everywhere iff G_mu(alpha*) <= alpha*, i.e. Phi^-1(1 - alpha*) - mu <= Phi^-1(alpha*), i.e.
    mu >= 2 Phi^-1(1 - alpha*). Equality gives the smallest such mu. (epsilon, delta)-DP with delta > 0 implies
    no finite GDP parameter, because its curve starts at 1 - delta < 1 = G_mu(0).

    Parameters
    ----------
    epsilon : float
        The pure guarantee.

    Returns
    -------
    float
        The smallest mu.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> round(privacy.pure_to_gdp_mu(1.0), 6)
    1.232035
    """
    epsilon = _finite_nonnegative(epsilon, "epsilon")
    # e^eps / (1 + e^eps) = 1 - x with x = 1 / (1 + e^eps); Phi^-1(1 - x) = -Phi^-1(x) keeps precision for
    # large epsilon. x underflows to 0 (mu = inf: no finite GDP bound is representable) beyond epsilon ~ 745.
    x = math.exp(-epsilon - math.log1p(math.exp(-epsilon)))
    return max(0.0, float(-2.0 * ndtri(x))) if x > 0.0 else math.inf


def compose(curves, delta: float | None = None) -> PrivacyCurve:
    """The guarantee of several releases computed from the same data (adaptively or not), as one PrivacyCurve.

    Count what is *published*: the private mean, the private eigenvalues and the components of one release are
    already covered by that release's own curve (its mechanism accounts for all of them), and several releases
    (analyses) on the same data compose. Repetitions in a sweep are not releases: a sweep reruns a mechanism to
    show the spread of its output on the analyst's own machine, and only the runs that are actually published
    count here.

    Rules (each a theorem about every mechanism with the given guarantees, not only ours):

    * any curve of kind "none": no guarantee (kind "none");
    * all "gdp": sqrt(sum mu_i^2)-GDP. Exact: Gaussian DP composes this way and the bound is attained by
      Gaussian mechanisms (Dong, Roth & Su 2022, Corollary 3.3);
    * all "pure": (sum epsilon_i)-DP (basic composition, Dwork & Roth 2014, Theorem 3.16); as a pure-DP
      statement it cannot be improved, since the privacy losses can all reach their maximum at once;
    * mixtures of "pure" and "approx" only: (sum epsilon_i, sum delta_i)-DP (basic composition);
    * mixtures with a "gdp" part: ``delta`` (the total delta you accept) is required and must exceed the sum of
      the approximate parts' deltas; the GDP part spends the rest, delta_G = delta - sum delta_approx.
      Route 1 (basic composition): epsilon = sum epsilon_pure + sum epsilon_approx + epsilon_GDP(mu_G, delta_G),
      where mu_G = sqrt(sum mu_i^2) and epsilon_GDP is the exact GDP reading (:func:`gaussian_epsilon`).
      Route 2 (only with pure parts): each epsilon_i-DP part is mu_i-GDP with mu_i = :func:`pure_to_gdp_mu`
      (epsilon_i), so the GDP and pure parts together are sqrt(mu_G^2 + sum mu_i^2)-GDP (composition of GDP is
      exact and monotone, Dong, Roth & Su 2022, Theorem 3.2 / Corollary 3.3), plus the approximate parts by basic
      composition. Both routes are valid; the one with the smaller epsilon at ``delta`` is returned: a "gdp"
      curve when route 2 wins and there is no approximate part (a whole curve, valid at every delta), else an
      "approx" curve (epsilon, delta).

    Cross-checked against Google's dp-accounting privacy-loss distributions in tests/test_risk.py.

    Parameters
    ----------
    curves : iterable of PrivacyCurve
        The guarantees of the releases published from the same data.
    delta : float, optional
        Where a composition must be read as an (epsilon, delta) pair (pure with Gaussian steps, approximate ones),
        the delta to read it at.

    Returns
    -------
    PrivacyCurve
        The guarantee of publishing them all.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> both = privacy.compose([privacy.PrivacyCurve.gdp(0.3), privacy.PrivacyCurve.gdp(0.4)])
    >>> print(both.describe())
    0.5-Gaussian DP (exact for the Gaussian noise added)
    >>> privacy.compose([privacy.PrivacyCurve.pure(0.5), privacy.PrivacyCurve.pure(0.25)]).epsilon
    0.75
    """
    curves = list(curves)
    if not curves:
        raise ValueError("compose() needs at least one PrivacyCurve (e.g. [release.privacy for release in releases]).")
    for c in curves:
        if not isinstance(c, PrivacyCurve):
            raise ValueError(f"compose() takes PrivacyCurve objects (e.g. release.privacy), not {type(c).__name__}.")
    kinds = {c.kind for c in curves}
    if "none" in kinds:
        return PrivacyCurve.none()
    if kinds == {"gdp"}:
        return PrivacyCurve.gdp(composed_mu([c.mu for c in curves]))
    pure_eps = [c.epsilon for c in curves if c.kind == "pure"]
    approx = [(c.epsilon, c.delta) for c in curves if c.kind == "approx"]
    if kinds == {"pure"}:
        return PrivacyCurve.pure(math.fsum(pure_eps))
    eps_a = math.fsum(e for e, _ in approx)
    delta_a = math.fsum(d for _, d in approx)
    if "gdp" not in kinds:
        return PrivacyCurve.approx(math.fsum(pure_eps) + eps_a, delta_a)
    if delta is None:
        raise ValueError(
            "composing Gaussian-DP releases with pure or (epsilon, delta) ones needs a total delta: "
            "pass delta=..., e.g. the sum of the releases' deltas."
        )
    delta = float(delta)
    if not (math.isfinite(delta) and delta_a < delta < 1.0):
        raise ValueError(
            f"delta must lie strictly between the approximate parts' total delta ({delta_a:g}) and 1 "
            f"(got {delta!r}); the Gaussian parts need some delta of their own."
        )
    delta_g = delta - delta_a
    mu_g = composed_mu([c.mu for c in curves if c.kind == "gdp"])
    eps_route1 = math.fsum(pure_eps) + eps_a + gaussian_epsilon(mu_g, delta_g)
    if pure_eps and max(pure_eps) < 700.0:
        mu_all = composed_mu([mu_g] + [pure_to_gdp_mu(e) for e in pure_eps])
        eps_route2 = eps_a + gaussian_epsilon(mu_all, delta_g)
        if eps_route2 < eps_route1:
            return PrivacyCurve.gdp(mu_all) if not approx else PrivacyCurve.approx(eps_route2, delta)
    return PrivacyCurve.approx(eps_route1, delta)


def total(curves, deltas) -> tuple:
    """(the composed curve, epsilon, delta) of several spends on the same data, each a curve with the delta it stated:
    :func:`compose` read at the sum of the stated deltas (a Gaussian spend states the delta it was read at, so
    the total keeps the room every spend was given). The one total every document states: the publishable file's
    "together", the budget book, the planner's total with its stand-in and earlier spends.

    Parameters
    ----------
    curves : sequence of PrivacyCurve
        The spends' curves.
    deltas : sequence of float
        The delta each spend stated.

    Returns
    -------
    tuple
        (PrivacyCurve, epsilon, delta): the composed curve and the pair it is stated at.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> spends = [privacy.PrivacyCurve.gdp(0.3), privacy.PrivacyCurve.gdp(0.4)]
    >>> curve, epsilon, delta = privacy.total(spends, [1e-6, 1e-6])
    >>> curve.mu, round(epsilon, 4), delta
    (0.5, 2.1785, 2e-06)
    """
    curves, deltas = list(curves), [float(d) for d in deltas]
    if len(curves) != len(deltas) or not curves:
        raise ValueError("total() takes one stated delta per curve, and at least one curve.")
    delta = math.fsum(deltas)
    curve = compose(curves, delta=delta if delta > 0 else None)
    if curve.kind == "none":
        return curve, math.inf, delta
    return curve, (curve.epsilon_at(delta) if delta > 0 else curve.epsilon), delta

"""One share of a privacy budget, and the exact release of a vector from it.

A complete release (:func:`dppca_core.release_pca`) splits its total (epsilon, delta) into shares, one per part
(radius, scales, mean, subspace, variances, scores). :func:`allocate` calibrates every share so that they compose
exactly to the total; :func:`release_vector` publishes one statistic from its share with exact noise on a grid
(:mod:`dppca_core.privacy.exact`, calibrated by :func:`dppca_core.privacy.grid_noise`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .exact import FixedSums, noisy_on_grid
from .calibration import gaussian_epsilon, gaussian_mu, sensitivity
from .curves import PrivacyCurve
from .grid import GridNoise, grid_noise


@dataclass(frozen=True)
class Share:
    """The calibration of one part: its weight, and either mu (Gaussian) or (epsilon, delta)."""

    weight: float
    epsilon: float
    delta: float
    mu: float | None = None  # Gaussian parts: the GDP parameter they may use

    def curve(self) -> PrivacyCurve:
        return PrivacyCurve.gdp(self.mu) if self.mu is not None else PrivacyCurve.pure(self.epsilon)

    def split(self, parts: int) -> "Share":
        """Each of ``parts`` equal parts of this share (mu / sqrt(parts), or epsilon / parts and delta / parts): that
        many releases side by side, or adaptively one after another, compose back to this share."""
        parts = int(parts)
        if parts < 1:
            raise ValueError("a share splits into at least one part.")
        return Share(
            self.weight / parts,
            self.epsilon / parts,
            self.delta / parts,
            None if self.mu is None else self.mu / math.sqrt(parts),
        )

    def halves(self) -> "Share":
        """Each of two equal parts of this share: a statistic and a count released side by side."""
        return self.split(2)


def allocate(weights: dict, epsilon: float, delta: float, subspace_curve: str) -> dict:
    """Calibration of every part with a positive weight (weights sum to 1), composing exactly to (epsilon, delta).

    ``subspace_curve`` is the kind of privacy curve the subspace mechanism earns: "gdp" (Gaussian: every part
    gets mu_i = sqrt(w_i) mu*(epsilon, delta), since Gaussian DP composes as sqrt(sum mu_i^2); Dong, Roth & Su
    2022, Cor. 3.3), "pure" (every part gets epsilon_i = w_i epsilon with Laplace noise, delta = 0: basic
    composition), or "approx" (epsilon_i = w_i epsilon, delta_i = w_i delta; the other parts Gaussian).
    """
    weights = {p: float(w) for p, w in weights.items() if w > 0}
    if subspace_curve == "gdp":
        mu = gaussian_mu(epsilon, delta)
        return {
            p: Share(w, gaussian_epsilon(math.sqrt(w) * mu, delta), delta, math.sqrt(w) * mu)
            for p, w in weights.items()
        }
    if subspace_curve == "pure":
        return {p: Share(w, w * epsilon, 0.0) for p, w in weights.items()}
    out = {}
    for p, w in weights.items():
        eps_i, delta_i = w * epsilon, w * delta
        out[p] = Share(w, eps_i, delta_i, None if p == "subspace" else gaussian_mu(eps_i, delta_i))
    return out


def release_vector(
    values,
    share: Share,
    rng: np.random.Generator,
    *,
    l2: float,
    l1: float,
    integer: bool = False,
    computation_error: float = 0.0,
    name: str = "statistic",
) -> tuple[np.ndarray, GridNoise]:
    """Publish ``values`` (an exact statistic of sensitivity ``l2`` / ``l1``) from ``share``, exactly.

    Gaussian shares round the Gaussian mechanism's noise to the grid, pure shares the Laplace mechanism's
    (:func:`dppca_core.privacy.grid_noise`). ``values``: floats, or exact sums (:class:`dppca_core.privacy.exact.FixedSums`).
    ``integer``: the values are exact integers (counts), released on the grid of 1 with integer noise.
    ``computation_error``: for floats, a bound on the floating-point error of each computed value; for exact sums,
    a bound on the error of each row's term (including :attr:`~dppca_core.privacy.exact.FixedSums.TRUNCATION`). It must not
    depend on the data (it is published through the noise scale): in particular not on n under add/remove. Returns
    the published values (multiples of the grid step; int64 for integer statistics) and the calibration.
    """
    if not isinstance(values, FixedSums):
        values = np.asarray(values, dtype=float)
    size = max(len(values) if isinstance(values, FixedSums) else values.size, 1)
    noise = _calibrated(size, share.mu, share.epsilon, float(l2), float(l1), bool(integer), float(computation_error))
    noisy = noisy_on_grid(values, noise.step, noise.scale, rng, laplace=noise.laplace, name=name)
    return (np.rint(noisy).astype(np.int64) if integer else noisy), noise


@lru_cache(maxsize=1024)
def _calibrated(
    size: int, mu: float | None, epsilon: float, l2: float, l1: float, integer: bool, error: float
) -> GridNoise:
    """The grid and noise of one release (:func:`dppca_core.privacy.grid_noise`): Gaussian when ``mu`` is given, else
    Laplace. Memoised: a pure function of numbers whose result is immutable, and a release calibrates the same
    vectors at every run (the radius search alone releases up to nine counts from one share)."""
    if mu is not None:
        return grid_noise(size, l2=l2, mu=mu, integer=integer, computation_error=error)
    return grid_noise(size, l1=l1, epsilon=epsilon, integer=integer, computation_error=error)


def release_counts(
    counts, share: Share, neighbors: str, rng: np.random.Generator, name: str = "histogram"
) -> tuple[np.ndarray, GridNoise]:
    """Publish the counts of a histogram over public bins: one row moves between two cells (replace: L2 sqrt(2),
    L1 2) or enters one (add/remove: 1). Integer noise, integer counts."""
    return release_vector(
        counts,
        share,
        rng,
        l2=sensitivity("histogram_l2", neighbors),
        l1=sensitivity("histogram_l1", neighbors),
        integer=True,
        name=name,
    )

"""What a mechanism declares about its error: its rate, a first-order level, and the regimes where the rate holds.

A mechanism module declares a :class:`Rate` in its registry entry (``rate=``) next to its code;
:mod:`dppca_core.theory` reads it (``theory.rate``, ``theory.fit_rate``'s curves, ``theory.measure_slope``), so a
new mechanism brings its theory with it. This module sits below the mechanisms: it imports numpy and
:mod:`dppca_core.privacy` only.

A *rate* gives how the subspace error ||sin Theta||_F scales with n, d, k, epsilon, delta, s and the data noise, up
to constants, as two terms: ``"privacy"`` (the error the noise adds, against the non-private answer on the same
rows) and ``"statistical"`` (the sampling error, against the population). Every privacy term uses the exact noise
calibration of the mechanism (analytic Gaussian mechanism, GDP composition).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..privacy import gaussian_sigma, sensitivity


@dataclass(frozen=True)
class Point:
    """One setting at which a rate is evaluated: rows ``n``, features ``d``, components ``k``, the budget, the
    sparsity ``s``, the number of ``sites`` and the data noise ``sigma_data`` (Example 4.1's sigma)."""

    n: int
    d: int
    k: int
    epsilon: float
    delta: float
    s: int | None = None
    sites: int = 5
    sigma_data: float = 1.0

    @property
    def spread(self) -> float:
        """sqrt(k (d - k)): how many directions the noise moves the subspace along (Davis-Kahan)."""
        return math.sqrt(max(self.k * (self.d - self.k), 1))

    @property
    def statistical(self) -> float:
        """sqrt(k (d - k) / n): the sampling error of the top-k subspace, up to its constant."""
        return math.sqrt(self.k * max(self.d - self.k, 1) / self.n)

    @property
    def gram_sigma(self) -> float:
        """Analyze Gauss's noise s.d. on upper(X^T X) under replace-one (analytic Gaussian mechanism)."""
        return gaussian_sigma(sensitivity("gram_upper", "replace"), self.epsilon, self.delta)


@dataclass(frozen=True)
class Regime:
    """A setting in which one term of a mechanism's rate dominates and its assumptions hold.

    ``law`` names the data: "spiked" (``datasets.spiked_covariance`` with ``data``'s arguments) or "example41"
    (``datasets.liu_example_41``). ``grid`` are the values of ``axis`` ("n", "eps" or "sigma"); the other
    quantities are ``n``, ``epsilon``, ``delta`` and the data arguments. ``reference`` is "sample" (error against
    the non-private top-k subspace of the same rows: the privacy term alone) or "population" (against the planted
    subspace). ``why`` says in words why the regime holds.
    """

    axis: str
    grid: tuple
    term: str
    law: str
    data: dict
    n: int
    k: int = 1
    epsilon: float = 1.0
    delta: float = 1e-6
    reference: str = "sample"
    reps: int = 12
    params: dict = field(default_factory=dict)
    why: str = ""


@dataclass(frozen=True)
class Rate:
    """A mechanism's theory: ``formula`` (the rate in words, with its paper and theorem), ``terms(point) ->
    (privacy, statistical)`` up to constants, ``one_pass`` (the error the dashboard shows includes the statistical
    term: a one-pass method pays it even against the sample), ``first_order(eigenvalues, point)`` (the first-order
    prediction of sqrt(E ||sin Theta||_F^2) against the sample subspace, or None) and ``regimes`` (label -> a
    :class:`Regime` where the rate holds; the label is the axis, or the axis and the dominant term, e.g.
    "n, privacy")."""

    formula: str
    terms: Callable[[Point], tuple[float, float]]
    one_pass: bool = False
    first_order: Callable[[np.ndarray, Point], float] | None = None
    regimes: Mapping[str, Regime] = field(default_factory=dict)


def spiked(d, k, spike, sparsity=None, seed=0) -> dict:
    """The data arguments of a spiked-covariance regime (``law="spiked"``)."""
    return {"d": d, "k": k, "spike": spike, "sparsity": sparsity, "seed": seed}


# d = 10, k = 2, spikes 30 and 22.5 over noise 1: the eigengap of the scaled rows (~0.14 of their total variance)
# is large, and the noise levels of the central mechanisms keep every error under ~0.3, far from the random level
# 1.26.
CENTRAL_N = dict(law="spiked", data=spiked(10, 2, 30.0), grid=(2000, 8000, 32000), n=0, k=2, epsilon=1.0)
CENTRAL_EPS = dict(law="spiked", data=spiked(10, 2, 30.0), grid=(0.5, 1.0, 2.0), n=8000, k=2)
#: :func:`privacy_regimes`' n and eps for a mechanism whose noise is several times the central Gaussian mechanism's
#: (private_power's 20 noisy steps, dps_pca's S sites and T steps, dist_local's n / S rows): its regimes start at twice
#: CENTRAL_N's n on the n axis and four times CENTRAL_EPS's n on the epsilon axis
NOISIER = {"n": {"grid": (4000, 16000, 64000)}, "eps": {"n": 32000}}


def privacy_regimes(why_n: str, why_eps: str, n: dict | None = None, eps: dict | None = None, **both) -> dict:
    """The two regimes most rates declare, where the privacy term dominates: "n" (:data:`CENTRAL_N`'s setting with
    ``both`` and ``n`` over it) and "eps" (:data:`CENTRAL_EPS`'s with ``both`` and ``eps``), e.g.
    ``privacy_regimes(..., n={"grid": (4000, 16000, 64000)}, eps={"n": 32000}, reps=8)``."""
    return {
        "n": Regime("n", term="privacy", why=why_n, **{**CENTRAL_N, **both, **(n or {})}),
        "eps": Regime("eps", term="privacy", why=why_eps, **{**CENTRAL_EPS, **both, **(eps or {})}),
    }


# -- first-order perturbation theory, valid while the error is small (used by the mechanisms' ``first_order``) --


def _gaps(eigenvalues, k: int):
    lam = np.asarray(eigenvalues, dtype=float)
    return lam[:k, None], lam[None, k:]


def input_noise_rms(sd: float, eigenvalues, k: int) -> float:
    """Symmetric noise of entry s.d. ``sd`` on C (input perturbation): E ||sin Theta||^2 = sd^2 sum_{i<=k<j}
    1 / (lambda_i - lambda_j)^2."""
    top, rest = _gaps(eigenvalues, k)
    return sd * math.sqrt(float(np.sum(1.0 / (top - rest) ** 2)))


def power_noise_rms(sd: float, eigenvalues, k: int) -> float:
    """Noisy power iterations, Gaussian s.d. ``sd`` on C Q each step, converged: the error of entry (j, i) is an
    AR(1) with factor lambda_j / lambda_i, so E ||sin Theta||^2 = sd^2 sum_{i<=k<j} 1 / (lambda_i^2 - lambda_j^2)."""
    top, rest = _gaps(eigenvalues, k)
    return sd * math.sqrt(float(np.sum(1.0 / (top**2 - rest**2))))


def exponential_rms(epsilon_each: float, eigenvalues, k: int) -> float:
    """Exponential mechanism exp((eps_i / 2) u^T C u), Laplace approximation at the top: each direction j has
    variance 1 / (eps_i (lambda_i - lambda_j))."""
    top, rest = _gaps(eigenvalues, k)
    return math.sqrt(float(np.sum(1.0 / (epsilon_each * (top - rest)))))


__all__ = [
    "CENTRAL_EPS",
    "CENTRAL_N",
    "NOISIER",
    "Point",
    "Rate",
    "Regime",
    "exponential_rms",
    "gram_noise_rate",
    "input_noise_rms",
    "power_noise_rate",
    "power_noise_rms",
    "privacy_regimes",
    "spiked",
]


def gram_noise_rate(
    formula: str, factor: Callable[[Point], float], why_n: str, why_eps: str, n: dict | None = None
) -> Rate:
    """The rate of a mechanism whose eigenvectors see Analyze Gauss's noise on X^T X times ``factor(point)`` (sqrt(2)
    at half of mu^2, sqrt(S) when each of S sites adds its own): the privacy term, the first-order level and the n and
    epsilon regimes of the central Gaussian mechanism (``n`` over the n regime's setting), scaled."""
    return Rate(
        formula,
        terms=lambda p: (factor(p) * p.gram_sigma * p.spread / p.n, p.statistical),
        first_order=lambda lam, p: input_noise_rms(p.gram_sigma * factor(p), lam, p.k),
        regimes=privacy_regimes(why_n, why_eps, n=n),
    )


def power_noise_rate(
    formula: str,
    step_sd: Callable[[Point], float],
    terms: Callable[[Point], tuple[float, float]],
    why_n: str,
    why_eps: str,
) -> Rate:
    """The rate of a noisy power method whose every step adds Gaussian noise of s.d. ``step_sd(point)`` to C Q
    (private_power, dps_pca): its ``terms``, the first-order level of converged noisy iterations
    (:func:`power_noise_rms`) and the n and epsilon regimes of a mechanism noisier than the central Gaussian one
    (:data:`NOISIER`)."""
    return Rate(
        formula,
        terms=terms,
        first_order=lambda lam, p: power_noise_rms(step_sd(p), lam, p.k),
        regimes=privacy_regimes(why_n, why_eps, **NOISIER),
    )

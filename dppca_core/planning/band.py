"""The spectra a noisy stand-in is consistent with: a joint confidence band on the eigenvalues behind a released
spectrum, from its public noise scale alone (post-processing: no data is read here).

A spectrum released with noise is not the data's spectrum. Planning on it as if it were promises what the data need
not keep (issue 55: a stand-in released at ε = 0.1 from 406 rows, whose noise made the top eigengap look wide, gave a
plan that fresh releases on the rows met 0 times in 60). The plan instead runs on every spectrum the released one is
consistent with, at :data:`STANDIN_LEVEL`: each variance is known to lie in ``[low, high]``, jointly for all of them,
with that probability over the stand-in's own noise.

* :func:`gram_band` — eigenvalues of a Gram matrix released with symmetric Gaussian noise E of scale sigma (Analyze
  Gauss: the upper triangle, diagonal included, i.i.d. N(0, sigma^2)). Weyl's inequality, |lambda_i(A + E) -
  lambda_i(A)| <= ||E|| for every i at once, whatever A, with ||E|| at its ``level`` quantile. A bootstrap of the noise
  around the released values gives narrower bands where the eigenvalues are well apart, but it covers the truth far
  less often than it claims where they are not (measured: 29% instead of 95% for a tail of ten equal variances
  spread apart by the noise, exactly the case where a plan goes wrong), so the band is Weyl's.
* :func:`value_band` — values released each with its own Gaussian noise (a release's eigenvalue share): a joint
  band by Bonferroni.
* :func:`mean_shift` — a spectrum of rows centred with a private mean holds, besides the data's covariance, the
  rank-one term n (mu - mu_hat)(mu - mu_hat)^T (positive semi-definite): each eigenvalue may be too large by up to
  its norm, whose ``level`` quantile this gives.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

#: the probability that every variance of a noisy stand-in lies in its band (over the stand-in's own noise)
STANDIN_LEVEL = 0.95
#: draws of the Monte Carlo of the noise matrix's norm (fewer for large matrices, whose norm varies less)
NORM_DRAWS = 4000
NORM_DRAWS_LARGE = 500
#: above this many features the norm's quantile is a bound (2 sqrt(d) and Gaussian concentration), not a Monte Carlo
MONTE_CARLO_MAX_D = 60


@functools.lru_cache(maxsize=64)
def noise_norm_quantile(d: int, level: float = STANDIN_LEVEL) -> float:
    """An upper bound on the ``level`` quantile of the spectral norm ||G|| of a d x d symmetric matrix whose upper
    triangle (diagonal included) is i.i.d. N(0, 1): the noise of Analyze Gauss at sigma = 1. A seeded Monte Carlo of
    NORM_DRAWS draws (NORM_DRAWS_LARGE beyond 30 features; the same for every call), read at the order statistic two standard errors above the
    quantile's; beyond MONTE_CARLO_MAX_D features, 2 sqrt(d) + 1 (the mean of ||G|| is below 2 sqrt(d) plus a term
    that vanishes with d) plus Gaussian concentration (||G|| is sqrt(2)-Lipschitz in the normals)."""
    d = int(d)
    if d > MONTE_CARLO_MAX_D:
        return 2.0 * math.sqrt(d) + 1.0 + math.sqrt(2.0) * math.sqrt(2.0 * math.log(1.0 / (1.0 - level)))
    rng = np.random.default_rng(np.random.SeedSequence([55, d]))
    draws = NORM_DRAWS if d <= 30 else NORM_DRAWS_LARGE
    norms = np.empty(draws)
    for b in range(draws):
        G = np.triu(rng.standard_normal((d, d)))
        G = G + np.triu(G, 1).T
        norms[b] = np.max(np.abs(np.linalg.eigvalsh(G)))
    index = math.ceil(level * draws + 2.0 * math.sqrt(draws * level * (1.0 - level)))
    return float(np.sort(norms)[min(index, draws - 1)])


def gram_band(values, sigma: float, level: float = STANDIN_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(low, high): bounds on the eigenvalues of a positive semi-definite A (descending), jointly at ``level``, from
    the eigenvalues ``values`` of A + E released with E symmetric Gaussian of scale ``sigma`` (same units): Weyl's
    ``values`` +- sigma times :func:`noise_norm_quantile`, low at least 0 (A is positive semi-definite)."""
    lam = np.sort(np.asarray(values, dtype=float).ravel())[::-1]
    weyl = float(sigma) * noise_norm_quantile(lam.size, level)
    low = np.maximum(lam - weyl, 0.0)
    return low, np.maximum(lam + weyl, low)


def value_band(values, sd, level: float = STANDIN_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) around ``values`` each released with Gaussian noise of standard deviation ``sd`` (a number or one
    per value), jointly at ``level`` (Bonferroni over the values), low >= 0."""
    values = np.asarray(values, dtype=float).ravel()
    sd = np.broadcast_to(np.asarray(sd, dtype=float), values.shape)
    z = float(stats.norm.ppf(1.0 - (1.0 - level) / (2.0 * max(values.size, 1))))
    low = np.maximum(values - z * sd, 0.0)
    return low, np.maximum(values + z * sd, low)


def mean_shift(sum_sd: float, n: float, d: int, level: float = STANDIN_LEVEL) -> float:
    """The ``level`` quantile of n ||mu - mu_hat||^2 for a mean released as a sum with Gaussian noise of standard
    deviation ``sum_sd`` per coordinate, divided by n (mu_hat - mu = noise / n): sum_sd^2 chi^2_d / n. In the units
    of the Gram matrix of the rows the sum was taken over."""
    return float(sum_sd) ** 2 * float(stats.chi2.ppf(level, int(d))) / float(n)


def release_band(pub: dict, eig: np.ndarray, d: int, count: float, level: float = STANDIN_LEVEL):
    """(low, high) of the d eigenvalues behind a published release's variances ``eig`` (descending, the Gram
    matrix's units; the d - k it did not release share the rest of its total evenly), from the noise it publishes:
    :func:`value_band` for variances from an eigenvalue share, :func:`gram_band` for Analyze Gauss's own eigenvalues
    (Weyl's band, the unreleased tail as wide, when fewer than d were released), the lower ends widened by
    :func:`mean_shift` for a release centred with a private mean of ``count`` rows. None: no known noise."""
    facts = pub.get("facts", {})
    total = pub.get("outputs", {}).get("total_variance")
    k = eig.size
    full = np.r_[eig, np.full(d - k, max(float(total or 0.0) - float(eig.sum()), 0.0) / max(d - k, 1))]
    if "eigenvalue_noise_scale" in facts:  # each variance with its own noise (an eigenvalue share)
        noise = float(facts["eigenvalue_noise_scale"])
        low, high = value_band(full, np.r_[np.full(k, noise), np.full(d - k, noise / max(d - k, 1))], level)
    elif facts.get("noise_on") == "upper(X^T X)" and pub.get("noise_scale"):  # Analyze Gauss's own eigenvalues
        sigma = float(pub["noise_scale"])
        if k == d:
            low, high = gram_band(eig, sigma, level)
        else:
            weyl = sigma * noise_norm_quantile(d, level)
            low, high = np.maximum(full - weyl, 0.0), full + weyl
    else:
        return None
    # sorted each on its own: if every value lies in its interval under some pairing, the i-th largest lies between
    # the i-th largest lower and upper ends
    low, high = np.sort(low)[::-1], np.sort(high)[::-1]
    sum_sd = facts.get("mean_noise_scale")
    if sum_sd and pub.get("parameters", {}).get("center") == "private":
        low = low - mean_shift(float(sum_sd), count, d, level)  # the private mean's rank-one term
    low = np.maximum(low, 0.0)
    return low, np.maximum(high, low)

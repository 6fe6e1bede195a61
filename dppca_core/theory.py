"""Theoretical error rates (up to constants) of the mechanisms, for overlays beside measurements.

A *rate* gives how the subspace error ||sin Theta||_F scales with n, d, k, epsilon, delta and s; constants are
unknown, so the dashboard scales each rate to its first measured point and labels it as a rate, not a value.
"""
from __future__ import annotations

import math

import numpy as np

from .privacy import composed_gaussian_sigma, gaussian_sigma, sensitivity

RATES = {
    "analyze_gauss": "Dwork et al. 2014 (Thm 3) / Davis-Kahan: sigma sqrt(k(d-k)) / gap, gap ∝ n",
    "cape_pca": "Imtiaz & Sarwate: pooled Analyze Gauss level, sigma sqrt(k(d-k)) / n",
    "dist_conventional": "Imtiaz & Sarwate: sqrt(S) x pooled Analyze Gauss level",
    "dist_local": "Analyze Gauss on n/S rows",
    "mod_sulq": "Chaudhuri et al. 2013: beta sqrt(k(d-k)), beta ∝ d sqrt(log(d^2/delta)) / (n eps)",
    "private_power": "Hardt & Price 2014 (Cor 1.1): sigma_step sqrt(k d log d) / gap",
    "ppca_exponential": "Chaudhuri et al. 2013 (Thm 6): sample complexity ∝ d k / (eps gap), error ∝ d k / (eps n)",
    "amin_iterative": "Amin et al. 2019: like the exponential mechanism, d k / (eps n) per vector",
    "ldp_gaussian": "Wang & Xu (Thm 2): sqrt(k) d sqrt(log(1/delta)) / (eps sqrt(n))",
    "ldp_sparse": "Wang & Xu (Thm 4): s sqrt(k log d log(1/delta)) / (eps sqrt(n))",
    "dps_pca": "Ge et al. 2018 (Thm 4.3): sqrt(s (k + log d) / n) + privacy term sqrt(T d) sigma / n",
    "private_oja": "Liu et al. 2022 (Thm 3.3): sqrt(d/n) + d log(1/delta) / (eps n)",
    "dp_pca": "Liu et al. 2022 (Cor 5.2): sqrt(d/n) + d sqrt(log(1/delta)) / (eps n)",
}


def _one(mechanism, n, d, k, epsilon, delta, s, sites):
    k = min(k, d - 1) if d > 1 else 1
    spread = math.sqrt(max(k * (d - k), 1))
    if mechanism in ("analyze_gauss", "cape_pca", "dist_conventional", "dist_local"):
        sigma = gaussian_sigma(sensitivity("gram_upper", "replace"), epsilon, delta)
        factor = {"dist_conventional": math.sqrt(sites), "dist_local": sites}.get(mechanism, 1.0)
        return factor * sigma * spread / n
    if mechanism == "mod_sulq":
        return (d + 1) / (n * epsilon) * math.sqrt(2 * math.log((d * d + d) / delta)) * spread
    if mechanism == "private_power":
        return composed_gaussian_sigma(math.sqrt(2), epsilon, delta, 20) * math.sqrt(k * d * math.log(d + 1)) / n
    if mechanism in ("ppca_exponential", "amin_iterative"):
        return d * k / (epsilon * n)
    if mechanism == "ldp_gaussian":
        return math.sqrt(k) * d * gaussian_sigma(math.sqrt(2), epsilon, delta) / math.sqrt(n)
    if mechanism == "ldp_sparse":
        return s * math.sqrt(k * math.log(d + 1)) * gaussian_sigma(math.sqrt(2), epsilon, delta) / math.sqrt(n)
    if mechanism == "dps_pca":
        return math.sqrt(s * (k + math.log(d + 1)) / n) + composed_gaussian_sigma(
            math.sqrt(2), epsilon, delta, 10) * math.sqrt(d) / n
    if mechanism == "private_oja":
        return math.sqrt(d / n) + d * math.log(1 / delta) / (epsilon * n)
    if mechanism == "dp_pca":
        return math.sqrt(d / n) + d * math.sqrt(math.log(1 / delta)) / (epsilon * n)
    return None


def rate(mechanism: str, axis: str, xs, *, n: int, d: int, k: int, epsilon: float, delta: float,
         s: int | None = None, sites: int = 5) -> np.ndarray:
    """The rate of ``mechanism`` along ``axis`` ("eps", "n", "d", "delta", "k" or "s") at the points ``xs``.

    Other quantities are held at the given values. Raises ValueError for a mechanism without a known rate.
    """
    if mechanism not in RATES:
        raise ValueError(f"no theoretical rate is known for {mechanism!r}.")
    base = {"n": n, "d": d, "k": k, "epsilon": epsilon, "delta": delta, "s": s or d, "sites": sites}
    key = {"eps": "epsilon"}.get(axis, axis)
    if key not in base:
        raise ValueError(f"unknown axis {axis!r}.")
    out = []
    for x in np.asarray(xs, dtype=float):
        point = dict(base)
        point[key] = int(x) if key in ("n", "d", "k", "s") else float(x)
        out.append(_one(mechanism, **point))
    return np.array(out, dtype=float)

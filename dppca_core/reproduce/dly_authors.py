"""Dong, Liang & Yi's combined routine as the authors' code runs it (``AdaptiveCov`` of their public repository
hkustDB/PrivateCovariance, ``adaptive/algos.py`` with ``adaptive/utils.py``), written again in numpy: the reference
our ``tail_sensitive`` with ``route="auto"`` is measured against (:mod:`.dong_liang_yi`).

It is a port, not a mechanism of this product: rho-zCDP throughout (no exact GDP conversion), continuous Laplace and
Gaussian noise in floating point (no exact noise on a grid), and the authors' own choices kept where ours differ
(docs/mechanisms.md#tail_sensitive lists them): a noisy trace shifted up by a tail margin; tail bounds at a failure
probability beta for the noise it predicts; the Gaussian mechanism's predicted error scaled by tau (not tau^2) in the
sparse vector step's queries and by tau^2 in the final choice, both read at the radius where the walk stopped while
the rows are clipped one step above; the clipping excess counted from bins of the row norms at their upper edges;
80 candidate radii (down to 2^-79); the separate release built from an SVD of the noisy matrix.

Every draw comes from ``rng`` (the authors' code draws from torch's and numpy's global generators).
"""

from __future__ import annotations

import math

import numpy as np

#: the authors' default failure probability (``--beta``)
BETA = 0.1
#: their last candidate exponent: -min(d n, -int(log2(1e-24))) = -79 for any real data
LAST_EXPONENT = 79


def gaussian_tailbound(d: int, b: float) -> float:
    """sqrt(d + 2 sqrt(d ln(1/b)) + 2 ln(1/b)): a standard Gaussian vector of R^d exceeds it with probability <= b."""
    return math.sqrt(d + 2.0 * math.sqrt(d * math.log(1.0 / b)) + 2.0 * math.log(1.0 / b))


def wigner_tailbound(d: int, b: float) -> float:
    """The authors' bound on the spectral norm of a d x d symmetric matrix of standard Gaussian entries."""
    theta = min((math.log(d) / d) ** 0.3, 0.5)
    core = (1.0 + theta) * (2.0 * math.sqrt(d) + 6.0 * math.sqrt(math.log(d)) / math.sqrt(math.log(1.0 + theta)))
    return core + math.sqrt(2.0 * math.log(2.0 / b))


def wigner_fnormbound(d: int, b: float) -> float:
    """The authors' bound on the Frobenius norm of the same matrix."""
    return math.sqrt(
        d * d + 2.0 * math.sqrt(d * math.log(2.0 / b)) * (1.0 + math.sqrt(2.0 * (d - 1))) + 6.0 * math.log(2.0 / b)
    )


def symmetric_standard(d: int, rng: np.random.Generator) -> np.ndarray:
    """Upper triangle (diagonal included) i.i.d. N(0, 1), mirrored (the authors' ``get_gauss_wigner_matrix``)."""
    upper = np.triu(rng.standard_normal((d, d)))
    return upper + np.triu(upper, 1).T


def bin_counts(norms: np.ndarray, levels: int) -> np.ndarray:
    """How many rows fall in each bin (2^-l, 2^(1-l)], l = 1 ... levels - 1 (a row of norm 1 in bin 1; rows shorter
    than the last edge in none): the authors' ``get_bincounts`` (bin 0 stays empty)."""
    positive = norms[norms > 0]
    bins = -np.floor(np.log2(positive)).astype(np.int64)
    bins = np.where(positive > 2.0 ** (-bins.astype(float)), bins, bins + 1)
    bins = np.maximum(bins, 1)
    return np.bincount(bins[bins < levels], minlength=levels).astype(float)


def gauss_cov(X: np.ndarray, rho: float, radius: float, rng: np.random.Generator, clamp: bool) -> np.ndarray:
    """``GaussCov`` (delta = 0): X^T X / n plus symmetric Gaussian noise of s.d. sqrt(2) r^2 / (n sqrt(2 rho)); with
    ``clamp`` its eigenvalues clamped to [0, r^2]."""
    n, d = X.shape
    noisy = X.T @ X / n + math.sqrt(2.0) * radius**2 / n / math.sqrt(2.0 * rho) * symmetric_standard(d, rng)
    if not clamp:
        return noisy
    values, vectors = np.linalg.eigh(noisy)
    return (vectors * np.clip(values, 0.0, radius**2)) @ vectors.T


def separate_cov(X: np.ndarray, rho: float, radius: float, rng: np.random.Generator) -> np.ndarray:
    """``SeparateCov`` with clamping: the singular vectors of ``GaussCov`` at rho / 2 (left and right, as an SVD gives
    them), with the singular values of X^T X / n plus Gaussian noise of s.d. sqrt(2) r^2 / (n sqrt(rho)), clamped to
    [0, r^2]."""
    n, d = X.shape
    left, _, right_t = np.linalg.svd(gauss_cov(X, 0.5 * rho, radius, rng, clamp=False))
    values = np.linalg.svd(X.T @ X / n, compute_uv=False)
    noisy = values + math.sqrt(2.0) * radius**2 / n / math.sqrt(rho) * rng.standard_normal(d)
    return (left * np.clip(noisy, 0.0, radius**2)) @ right_t


def sparse_vector(queries: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
    """AboveThreshold against 0: the index of the first query whose value plus Laplace(4 / epsilon) reaches the
    threshold plus Laplace(2 / epsilon), or the number of queries (the authors' ``SVT``)."""
    threshold = rng.laplace(scale=2.0 / epsilon)
    noisy = np.asarray(queries, dtype=float) + rng.laplace(scale=4.0 / epsilon, size=len(queries))
    above = np.flatnonzero(noisy >= threshold)
    return int(above[0]) if above.size else len(queries)


def adaptive_cov(X: np.ndarray, rho: float, rng: np.random.Generator, beta: float = BETA) -> tuple[np.ndarray, dict]:
    """(the covariance estimate, what the routine chose): ``AdaptiveCov`` at rho-zCDP for rows of norm <= 1.

    rho / 8 buys a trace, rho / 8 the sparse vector step (epsilon = sqrt(rho) / 2), 3 rho / 4 the release at the
    radius chosen: the Gaussian mechanism or the separate release, whichever the authors' bounds predict smaller."""
    n, d = X.shape
    trace = float(np.einsum("ij,ij->", X, X)) / n
    margin = math.sqrt(8.0 / rho * math.log(8.0 / beta))
    trace = min(max(trace + (2.0 / math.sqrt(rho) / n * rng.standard_normal() + margin / n), 1e-16), 1.0)
    rho1, beta1 = 0.75 * rho, 0.75 * beta
    eta, nu = gaussian_tailbound(d, 0.5 * beta1), wigner_tailbound(d, 0.5 * beta1)
    sep1 = 2.0**1.25 * math.sqrt(trace) / math.sqrt(n) / rho1**0.25 * math.sqrt(nu) / 6.0
    sep2 = math.sqrt(2.0) * eta / math.sqrt(rho1) / n
    gauss1 = wigner_fnormbound(d, beta1) / math.sqrt(rho1) / n
    levels = min(d * n, LAST_EXPONENT) + 1
    norms = np.linalg.norm(X, axis=1)
    counts = bin_counts(norms, levels)
    edges = 4.0 ** (1.0 - np.arange(levels))  # each bin counted at its upper edge, squared
    tau = 2.0 ** -np.arange(levels, dtype=float)
    excess = np.cumsum(counts * edges) - np.cumsum(counts) * tau**2  # bins 0 ... l, above tau_l
    noise = np.minimum(tau * gauss1, tau * sep1 + tau**2 * sep2)  # the Gaussian term scaled by tau, as theirs
    stop = sparse_vector(excess - n * noise, math.sqrt(rho) / 2.0, rng)
    radius = min(2.0 ** (1 - stop), 1.0)  # one step above where the walk stopped
    scale = np.minimum(1.0, radius / np.where(norms > 0, norms, 1.0))
    clipped = X * scale[:, None]
    at_stop = 2.0**-stop  # the errors the choice reads: at the radius where the walk stopped
    gauss = at_stop * at_stop * gauss1
    separate = at_stop * sep1 + at_stop * at_stop * sep2
    if separate >= gauss:
        estimate = gauss_cov(clipped, rho1, radius, rng, clamp=True)
    else:
        estimate = separate_cov(clipped, rho1, radius, rng)
    return estimate, {"radius": radius, "route": "gauss" if separate >= gauss else "tail", "trace": trace}

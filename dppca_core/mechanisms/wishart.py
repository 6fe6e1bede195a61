"""The Wishart 'symmetric noise' (SN) mechanism of Imtiaz & Sarwate (ICASSP 2016). RETRACTED: not private."""

from __future__ import annotations

import math

import numpy as np

from ..linalg import top_eigenvectors
from ..registry import Output
from .sources import builtin_mechanism

RETRACTION = (
    "RETRACTED by its authors (2017): not differentially private. Wishart noise is supported on the PSD cone, "
    "so X^T X + E reveals when a neighbour's row is missing: P[Y - A_D is not PSD] = 1 - e^(-epsilon) under D' "
    "and 0 under D (docs/papers.md#wishart-sn-retraction), so no delta below 1 - e^(-epsilon) holds. Kept for teaching and audits only."
)


def wishart_scale(epsilon: float) -> float:
    """Entry s.d. of Z: the paper's Sigma = I / (2 epsilon) read as a variance (docs/mechanisms.md#wishart_sn)."""
    return math.sqrt(1.0 / (2.0 * epsilon))


def wishart_noise(d: int, epsilon: float, rng) -> np.ndarray:
    """E = Z Z^T ~ Wishart_d(I/(2 epsilon), d + 1): always positive semi-definite, which is the flaw."""
    Z = rng.normal(0.0, wishart_scale(epsilon), size=(d, d + 1))
    return Z @ Z.T


@builtin_mechanism(
    name="wishart_sn",
    title="Wishart symmetric noise (SN) — retracted, NOT private",
    paper="Imtiaz & Sarwate (ICASSP 2016), Symmetric Matrix Perturbation for DP-PCA — retracted",
    model="central",
    audit_statistic="psd_support",
    guarantee="retracted",
    uses_delta=False,
    releases_eigenvalues=True,
    caveat=RETRACTION,
    notes=(
        "As published: A = X^T X plus E = Z Z^T, Z d x (d+1) with i.i.d. N(0, 1/(2 epsilon)) entries (the paper's "
        "variance; the authors' code used it as a standard deviation). The claimed pure epsilon-DP is false. "
        + RETRACTION
    ),
)
def wishart_sn(data, k, epsilon, delta, neighbors, rng):
    scale = wishart_scale(epsilon)
    values, vectors = top_eigenvectors(data.gram + wishart_noise(data.d, epsilon, rng), k)
    return Output(
        vectors, noise_scale=scale, eigenvalues=values, caveat=RETRACTION, facts={"noise_on": "X^T X (Wishart, PSD)"}
    )

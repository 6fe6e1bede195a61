"""The Wishart 'symmetric noise' (SN) mechanism of Imtiaz & Sarwate (ICASSP 2016). RETRACTED: not private."""
from __future__ import annotations

import math

from ..linalg import top_eigenvectors
from ..registry import Output, mechanism

RETRACTION = (
    "RETRACTED by its authors (2017): not differentially private. Wishart noise is supported on the PSD cone, "
    "so X^T X + E reveals when a neighbour's row is missing: P[Y - A_D is not PSD] = 1 - e^(-epsilon) under D' "
    "and 0 under D (ALGORITHMS.md §6.2), so no delta below 1 - e^(-epsilon) holds. Kept for teaching and audits only."
)


@mechanism(
    name="wishart_sn",
    title="Wishart symmetric noise (SN) — retracted, NOT private",
    paper="Imtiaz & Sarwate (ICASSP 2016), Symmetric Matrix Perturbation for DP-PCA — retracted",
    model="central",
    guarantee="retracted",
    uses_delta=False,
    caveat=RETRACTION,
    notes=(
        "As published: A = X^T X plus E = Z Z^T, Z d x (d+1) with i.i.d. N(0, 1/(2 epsilon)) entries (the paper's "
        "variance; the authors' code used it as a standard deviation). The claimed pure epsilon-DP is false. "
        + RETRACTION
    ),
)
def wishart_sn(data, k, epsilon, delta, neighbors, rng):
    scale = math.sqrt(1.0 / (2.0 * epsilon))
    Z = rng.normal(0.0, scale, size=(data.d, data.d + 1))
    values, vectors = top_eigenvectors(data.gram + Z @ Z.T, k)
    return Output(vectors, noise_scale=scale, eigenvalues=values,
                  diagnostics={"noise_on": "X^T X (Wishart, PSD)"})

"""Local-model PCA of Wang & Xu (ALGORITHMS.md §3): each user perturbs its own x x^T."""
from __future__ import annotations

import math

from ..linalg import symmetric_gaussian, top_eigenvectors
from ..privacy import gaussian_sigma, sensitivity
from ..registry import Output, mechanism

PAPER_WX = "Wang & Xu, Principal Component Analysis in the Local Differential Privacy Model (IJCAI 2019 / journal)"


def ldp_noise_sigma(epsilon: float, delta: float) -> float:
    """Per-user noise s.d. on upper(x x^T): LDP is a replace relation, so Delta = sqrt(2) (§3.1)."""
    return gaussian_sigma(sensitivity("gram_upper", "replace"), epsilon, delta)


def noisy_local_covariance(data, epsilon, delta, rng):
    """S~ = (1/n) sum_i (x_i x_i^T + Z_i) and the per-user noise s.d.

    The sum of n independent symmetric N(0, sigma^2) matrices is one symmetric N(0, n sigma^2)
    matrix, so the server's output has exactly the distribution of the protocol's.
    """
    sigma = ldp_noise_sigma(epsilon, delta)
    total = data.gram + symmetric_gaussian(data.d, sigma * math.sqrt(data.n), rng)
    return total / data.n, sigma


@mechanism(
    name="ldp_gaussian",
    title="Local Gaussian mechanism (LDP PCA)",
    paper=PAPER_WX + ", Algorithm 1",
    model="local",
    guarantee="approximate",
    relations=("replace",),
    notes=(
        "Every user releases x x^T + Z_i (symmetric Gaussian noise on the upper triangle); the server averages and "
        "takes the top-k eigenvectors. (epsilon, delta)-LDP: each user's message is private on its own. Correction: "
        "local DP compares any two inputs x, x' of one user, a replace relation, so the sensitivity of upper(x x^T) is "
        "sqrt(2), not the paper's 1; the paper's sigma^2 = 2 ln(1.25/delta)/epsilon^2 is under-calibrated (claimed "
        "(1, 1e-4) is really (1, 1.57e-4)) and uses the classic formula outside epsilon < 1. Here sigma = analytic "
        "Gaussian mechanism with sensitivity sqrt(2). The simulation draws the sum of the users' noise in one go "
        "(same distribution). noise_scale is the per-user s.d."
    ),
)
def ldp_gaussian(data, k, epsilon, delta, neighbors, rng):
    cov, sigma = noisy_local_covariance(data, epsilon, delta, rng)
    values, vectors = top_eigenvectors(cov, k)
    return Output(vectors, noise_scale=sigma, eigenvalues=values * data.n,
                  diagnostics={"noise_on": "upper(x x^T) of each user", "messages": data.n,
                               "numbers_per_user": data.d * (data.d + 1) // 2})

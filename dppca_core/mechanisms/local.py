"""Local-model PCA of Wang & Xu (ALGORITHMS.md §3): each user perturbs its own x x^T."""
from __future__ import annotations

import math

import numpy as np

from ..fantope import fantope_l1_admm
from ..linalg import symmetric_gaussian, thin_qr, top_eigenvectors
from ..privacy import PrivacyCurve, gaussian_sigma, sensitivity
from ..registry import Output, Param, mechanism

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
    audit_statistic="gram_entry",
    releases_eigenvalues=True,
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
    return Output(vectors, noise_scale=sigma, eigenvalues=values * data.n, privacy=_ldp_curve(sigma),
                  facts={"noise_on": "upper(x x^T) of each user", "messages": data.n,
                         "numbers_per_user": data.d * (data.d + 1) // 2})


def _ldp_curve(sigma: float) -> PrivacyCurve:
    """Each user's message is (sqrt(2) / sigma)-GDP (local DP: any two inputs of one user)."""
    return PrivacyCurve.gdp(sensitivity("gram_upper", "replace") / sigma)


def default_sparse_penalty(n: int, d: int, sigma: float, zeta: float = 0.05) -> float:
    """lambda = (sigma/sqrt(n)) sqrt(2 ln(d(d+1)/zeta)) + sqrt(2 ln(d^2)/n) (ALGORITHMS.md §3.2, derived).

    An upper bound, with probability 1 - zeta, on the largest entry of the noise in S~ (entry s.d.
    sigma/sqrt(n), union bound over d(d+1)/2 entries) plus the sampling term for ||x|| <= 1. Public: it depends
    on n, d, epsilon and delta only.
    """
    return sigma / np.sqrt(n) * np.sqrt(2 * np.log(d * (d + 1) / zeta)) + np.sqrt(2 * np.log(d * d) / n)


@mechanism(
    name="ldp_sparse",
    title="Local sparse PCA (Fantope + l1, ADMM)",
    paper=PAPER_WX + ", Algorithm 2",
    model="local",
    guarantee="approximate",
    relations=("replace",),
    params=(
        Param("penalty", "float", None,
              "l1 penalty lambda; default (sigma/sqrt(n)) sqrt(2 ln(d(d+1)/0.05)) + sqrt(2 ln(d^2)/n).",
              low=0.0, high=1e6, log=True),
        Param("sparsity", "int", None, "Optional: keep the s rows of largest norm of the output (post-processing).",
              low=1, high=100000),
        Param("max_iter", "int", 300, "ADMM iterations at most.", low=1, high=5000),
        Param("rho", "float", 1.0, "Initial ADMM penalty (adapted by residual balancing).", low=1e-4, high=1e4,
              log=True),
    ),
    notes=(
        "Same local perturbation as ldp_gaussian (sensitivity sqrt(2), analytic Gaussian mechanism), then the "
        "Fantope-constrained l1-penalised problem max <S~, X> - lambda ||X||_1, 0 <= X <= I, tr X = k, solved by ADMM "
        "with exact Fantope projection, and the top-k eigenvectors of the sparse solution. Post-processing of the "
        "users' messages: same (epsilon, delta)-LDP. The paper's Theorem 4 writes 'lambda <= ...' where its proof needs "
        "lambda >= ||S~ - Sigma||_max; the default penalty is that bound. Cost O(d^3) per ADMM iteration."
    ),
)
def ldp_sparse(data, k, epsilon, delta, neighbors, rng, penalty, sparsity, max_iter, rho):
    cov, sigma = noisy_local_covariance(data, epsilon, delta, rng)
    lam = default_sparse_penalty(data.n, data.d, sigma) if penalty is None else penalty
    Y, info = fantope_l1_admm(cov, k, lam, rho=rho, max_iter=max_iter)
    _, vectors = top_eigenvectors(Y, k)
    if sparsity is not None and sparsity < data.d:
        if sparsity < k:
            raise ValueError(f"sparsity = {sparsity} is below k = {k}; keep at least k rows.")
        keep = np.argsort(-np.linalg.norm(vectors, axis=1), kind="stable")[:sparsity]
        mask = np.zeros(data.d, dtype=bool)
        mask[keep] = True
        vectors = thin_qr(np.where(mask[:, None], vectors, 0.0))
    vectors[np.abs(vectors) < 1e-12] = 0.0
    # the solver only sees the users' noisy messages, so its iteration count and residuals are covered
    return Output(vectors, noise_scale=sigma, privacy=_ldp_curve(sigma), outputs={"solver": info},
                  facts={"penalty": lam, "noise_on": "upper(x x^T) of each user"},
                  diagnostics={"warnings": [] if info["converged"] else
                               [f"ADMM stopped after {max_iter} iterations before converging."]})

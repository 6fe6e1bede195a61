"""Exponential-mechanism PCA: PPCA (Chaudhuri, Sarwate & Sinha) and iterative eigenvector sampling (Amin et al.)."""
from __future__ import annotations

import numpy as np

from ..bingham import orthogonal_complement, sample_matrix_bingham, sample_vector_bingham
from ..linalg import fix_signs, thin_qr
from ..privacy import laplace_scale, sensitivity
from ..registry import Output, Param, mechanism

MCMC_CAVEAT = (
    "For k > 1 the sample comes from a finite Gibbs chain (Hoff 2009), not exactly from the exponential "
    "mechanism's law, so the pure epsilon-DP guarantee is approximate (no formal bound for finite sweeps). "
    "k = 1 uses an exact sampler and is exactly epsilon-DP."
)


@mechanism(
    name="ppca_exponential",
    title="PPCA (exponential mechanism, matrix Bingham)",
    paper="Chaudhuri, Sarwate & Sinha (NIPS 2012 / JMLR 2013), PPCA",
    model="central",
    guarantee="pure",
    uses_delta=False,
    caveat=MCMC_CAVEAT,
    params=(Param("sweeps", "int", 200, "Gibbs sweeps for k > 1 (each redraws every column once).",
                  low=1, high=5000),),
    notes=(
        "Samples V with density proportional to exp((epsilon / (2 Delta_u)) tr(V^T X^T X V)) w.r.t. the uniform "
        "measure on orthonormal frames. The utility sum_i ||V^T x_i||^2 changes by at most Delta_u = 1 when one row "
        "(norm <= 1) is replaced, added or removed, so this is the exponential mechanism: epsilon-DP for exact "
        "samples. k = 1: exact Kent-Ganeiber-Mardia rejection sampler. k > 1: Hoff's column-wise Gibbs sampler "
        "with a data-independent random start; each column is drawn exactly from its conditional. "
        "(Liu et al.'s appendix quotes the density without the 1/2, which is only 2 epsilon-DP under replace-one.)"
    ),
)
def ppca_exponential(data, k, epsilon, delta, neighbors, rng, sweeps):
    B = epsilon / (2.0 * sensitivity("quadratic_score", neighbors)) * data.gram
    if k == 1:
        sample = sample_vector_bingham(B, rng)
        return Output(fix_signs(sample.x[:, None]), diagnostics={"acceptance_rate": 1.0 / sample.attempts,
                                                                 "sampler": "exact (KGM rejection)"})
    V, info = sample_matrix_bingham(B, k, rng, sweeps=sweeps)
    return Output(fix_signs(thin_qr(V)), diagnostics={
        **info, "sampler": "Gibbs (approximate)", "guarantee_caveat": MCMC_CAVEAT})


@mechanism(
    name="amin_iterative",
    title="Iterative eigenvector sampling (Amin et al.)",
    paper="Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii (ICML 2019), Differentially Private Covariance Estimation",
    model="central",
    guarantee="pure",
    uses_delta=False,
    params=(Param("eigenvalue_share", "float", 0.2,
                  "Fraction of epsilon spent on Laplace eigenvalue estimates (0: release none); the rest is split "
                  "evenly over the k eigenvector draws.", low=0.0, high=0.9),),
    notes=(
        "Releases noisy eigenvalues (Laplace, L1 sensitivity of the spectrum of X^T X: 1 add/remove, 2 replace, by "
        "Weyl interlacing) and then eigenvectors one at a time: u_i is drawn exactly from exp(eps_i/(2 Delta_u) "
        "u^T C_i u) on the sphere of the complement of the vectors already released (C_i = C projected there; "
        "post-processing of released vectors), Delta_u = 1. Pure epsilon-DP by basic composition. The paper writes "
        "exp(eps_i/4 u^T C u), i.e. it assumes a score range of 2; for rows of norm <= 1 the range is 1 under both "
        "relations, so eps_i/2 is the exact exponential-mechanism calibration (the paper's choice is valid but "
        "spends twice the noise). The eigenvalues are not needed for the subspace: eigenvalue_share = 0 gives all "
        "the budget to the eigenvectors. This is the algorithm behind IBM diffprivlib's and OpenDP's PCA; both ship "
        "a vector-Bingham sampler with an inverted acceptance test (it hangs for realistic n and samples a more "
        "concentrated law than the proof assumes). Ours uses the exact KGM sampler."
    ),
)
def amin_iterative(data, k, epsilon, delta, neighbors, rng, eigenvalue_share):
    eps_values = epsilon * eigenvalue_share
    eps_vector = (epsilon - eps_values) / k
    C = data.gram
    eigenvalues, scale = None, None
    if eps_values > 0:
        scale = laplace_scale(sensitivity("gram_eigenvalues_l1", neighbors), eps_values)
        noisy = np.linalg.eigvalsh(C) + rng.laplace(0.0, scale, size=data.d)
        eigenvalues = np.sort(noisy)[::-1][:k]
    weight = eps_vector / (2.0 * sensitivity("quadratic_score", neighbors))
    released = np.zeros((data.d, 0))
    rates = []
    for _ in range(k):
        P = orthogonal_complement(released, data.d)
        sample = sample_vector_bingham(weight * (P.T @ C @ P), rng)
        released = np.hstack([released, (P @ sample.x)[:, None]])
        rates.append(1.0 / sample.attempts)
    return Output(fix_signs(thin_qr(released)), noise_scale=scale, eigenvalues=eigenvalues,
                  diagnostics={"epsilon_eigenvalues": eps_values, "epsilon_per_vector": eps_vector,
                               "acceptance_rate": float(np.mean(rates)), "noise_on": "eigenvalues of X^T X (Laplace)"})

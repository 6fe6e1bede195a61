"""Exponential-mechanism PCA: PPCA (Chaudhuri, Sarwate & Sinha) and iterative eigenvector sampling (Amin et al.).

Both sample from Bingham laws built from the utility u(V) = tr(V^T C V) = sum_i ||V^T x_i||^2, C = X^T X of
rows with norm <= 1. Replacing one row changes u by ||V^T x||^2 - ||V^T x'||^2 in [-1, 1]; adding or removing
one changes it by ||V^T x||^2 in [0, 1]. So the range is Delta_u = 1 under both relations (docs/privacy.md#sensitivity).
Sampling with density ∝ exp(eps u / (2 Delta_u)) is the eps-DP exponential mechanism (McSherry & Talwar 2007);
under add/remove the utility is monotone (every u(V) moves the same way), so exp(eps u / Delta_u) is eps-DP
too (privacy.exponential_weight). Both hold for exact samples.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..privacy.bingham import MAX_CONCENTRATION, complement_compression, sample_matrix_bingham, sample_vector_bingham
from ..linalg import fix_signs, thin_qr
from ..privacy import PrivacyCurve, exponential_weight, sensitivity, summation_error
from ..registry import Output, Param
from .sources import builtin_mechanism
from .rates import Rate, exponential_rms, privacy_regimes, spiked
from ..privacy.shares import Share, release_vector

#: What both mechanisms declare alike: central, pure epsilon-DP (no delta), audited by the log-density ratio of the
#: exponential mechanism's draw.
exponential_mechanism = functools.partial(
    builtin_mechanism, model="central", guarantee="pure", uses_delta=False, audit_statistic="log_density_ratio"
)
#: Copies of the Gibbs state kept for convergence plots (diagnostics["iterates"]).
MAX_ITERATES = 100

MCMC_CAVEAT = (
    "For k > 1 the sample comes from a finite Gibbs chain (Hoff 2009), not exactly from the exponential "
    "mechanism's law, so the pure epsilon-DP guarantee is approximate: there is no formal bound for a finite "
    "number of sweeps (docs/papers.md#item-27). k = 1 uses an exact sampler and is exactly epsilon-DP."
)


def _bingham_weight(epsilon: float, neighbors: str) -> float:
    """The exponential mechanism's multiplier of u(V) = tr(V^T C V): eps/2 (replace), eps (add/remove)."""
    return exponential_weight(sensitivity("quadratic_score", neighbors), epsilon, neighbors)


def _check_samplable(data, weight: float, epsilon: float, name: str) -> None:
    """Refuse an epsilon whose Bingham law the exact sampler cannot draw in double precision, from public
    quantities only: ||weight C||_F <= weight tr(C) <= weight n for rows of norm <= 1, and the sampler needs
    q ||weight C|| <= MAX_CONCENTRATION (:mod:`dppca_core.privacy.bingham`) with q <= d."""
    bound = data.d * weight * data.n
    if bound > MAX_CONCENTRATION:
        usable = epsilon * MAX_CONCENTRATION / bound
        raise ValueError(
            f"epsilon = {epsilon:g} is too large for {name}: its Bingham law is too concentrated to sample exactly "
            f"in double precision (d = {data.d}). The usable range is epsilon x n <= {usable * data.n:.2g} here "
            f"(n = {data.n}: epsilon <= {usable:.2g}); at such an epsilon the sample is the top eigenvectors up to "
            "a negligible angle already."
        )


PPCA_RATE = Rate(
    "Chaudhuri et al. 2013 (Thm 6, sample complexity n ~ d / (eps gap (1 - rho))): sin ~ sqrt(d / (eps n gap))",
    terms=lambda p: (math.sqrt(p.k * p.d / (p.epsilon * p.n)), p.statistical),
    first_order=lambda lam, p: exponential_rms(p.epsilon, lam, p.k),
    regimes=privacy_regimes(
        "exact k = 1 sampler; concentrated (eps n gap >> d): sin^2 ~ d/(eps n gap)",
        "sin^2 ~ d/(eps n gap)",
        data=spiked(10, 1, 30.0),
        k=1,
    ),
)


@exponential_mechanism(
    name="ppca_exponential",
    rate=PPCA_RATE,
    ordered_basis=False,
    title="PPCA (exponential mechanism, matrix Bingham)",
    paper="Chaudhuri, Sarwate & Sinha (NIPS 2012 / JMLR 2013), PPCA",
    caveat="k > 1: sampled by finite MCMC (Gibbs), so pure epsilon-DP holds only approximately; k = 1 is exact.",
    params=(
        Param(
            "sweeps",
            "int",
            200,
            "Gibbs sweeps for k > 1 (each redraws every column once); ignored " "for k = 1, which is sampled exactly.",
            low=1,
            high=5000,
        ),
    ),
    notes=(
        "Samples V with density proportional to exp(w tr(V^T X^T X V)) w.r.t. the uniform (Haar) measure on "
        "orthonormal frames. The utility sum_i ||V^T x_i||^2 changes by at most Delta_u = 1 when one row "
        "(norm <= 1) is replaced, added or removed, so w = epsilon / 2 is the exponential mechanism under "
        "replace-one (the paper's exp((n eps / 2) tr(V^T A V)), A = X^T X / n). Under add/remove the utility "
        "is monotone (adding a row raises u(V) for every V), so w = epsilon is epsilon-DP too and the product "
        "uses it: half the temperature for the same guarantee. Both hold for exact samples. k = 1: exact "
        "Kent-Ganeiber-Mardia rejection sampler, exactly epsilon-DP. k > 1: Hoff's column-wise Gibbs sampler "
        "from a data-independent random start; each column is drawn exactly from its conditional, but after "
        "finitely many sweeps the law is only close to the target, so the guarantee is approximate (the paper "
        "used Hoff's rstiefel the same way). Non-private diagnostics (never published, because they are "
        "computed with the exact C): tr(V^T C V) per sweep (trace_energy), the acceptance rate and thinned "
        "iterates. (Liu et al.'s appendix quotes the density without the 1/2, which under replace-one is only "
        "2 epsilon-DP.)"
    ),
)
def ppca_exponential(data, k, epsilon, delta, neighbors, rng, sweeps):
    """PPCA: one draw from the matrix Bingham law exp(w tr(V^T C V)) (CSS 2013, Section 3)."""
    weight = _bingham_weight(epsilon, neighbors)
    _check_samplable(data, weight, epsilon, "ppca_exponential")
    B = weight * data.gram
    if k == 1:
        sample = sample_vector_bingham(B, rng)
        # the number of proposals depends on the data (through the envelope): not private
        return Output(
            fix_signs(sample.x[:, None]),
            privacy=PrivacyCurve.pure(epsilon),
            facts={"sampler": "exact (Kent-Ganeiber-Mardia rejection)", "bingham_weight": weight},
            diagnostics={"acceptance_rate": sample.acceptance_rate, "proposals": sample.attempts},
        )
    V, info = sample_matrix_bingham(B, k, rng, sweeps=sweeps, max_iterates=MAX_ITERATES)
    # Only the chain's last state is the released sample. Its intermediate states and the energy trace
    # tr(V^T C V) use the exact C: together they reveal C itself, so they are diagnostics, never published.
    return Output(
        fix_signs(thin_qr(V)),
        privacy=PrivacyCurve.pure(epsilon),
        caveat=MCMC_CAVEAT,
        facts={"sampler": "Gibbs (Hoff 2009; approximate)", "sweeps": info["sweeps"], "bingham_weight": weight},
        diagnostics={
            "trace_energy": [t / weight for t in info["trace"]],
            "acceptance_rate": info["acceptance_rate"],
            "proposals": info["proposals"],
            "iterates": info["iterates"],
            "iterate_sweeps": info["iterate_sweeps"],
        },
    )


AMIN_RATE = Rate(
    "Amin et al. 2019: each vector an exponential-mechanism draw with eps_i = 0.8 eps / k: sqrt(k d / (eps n gap))",
    terms=lambda p: (math.sqrt(p.k * p.k * p.d / (0.8 * p.epsilon * p.n)), p.statistical),
    # the default eigenvalue_share 0.2, the rest split over the k vectors
    first_order=lambda lam, p: exponential_rms(0.8 * p.epsilon / p.k, lam, p.k),
    regimes=privacy_regimes("exact vector draws with eps_i = 0.4 eps each; concentrated", "sin^2 ~ k d/(eps n gap)"),
)


@exponential_mechanism(
    name="amin_iterative",
    rate=AMIN_RATE,
    title="Iterative eigenvector sampling (Amin et al.)",
    paper="Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii (NeurIPS 2019), Differentially Private Covariance "
    "Estimation, Algorithm 1",
    releases_eigenvalues=True,
    # with k = 1 and no eigenvalues the release is one exponential-mechanism draw on the sphere, the part the
    # log-density test reads exactly (the eigenvalues' share would only move the budget away from it)
    audit_params={"eigenvalue_share": 0.0},
    params=(
        Param(
            "eigenvalue_share",
            "float",
            None,
            "Fraction of epsilon spent on Laplace eigenvalue estimates (0: release none); the rest is split "
            "evenly over the k eigenvector draws. Default: 0.2 under replace-one, 0 under add/remove (where the "
            "eigen-solver's rounding error, which grows with the private n, cannot be bounded in advance).",
            low=0.0,
            high=0.9,
        ),
    ),
    notes=(
        "Releases noisy eigenvalues of C = X^T X (Laplace; L1 sensitivity of the spectrum 1 under add/remove and "
        "2 under replace, by Weyl interlacing) and then eigenvectors one at a time: u_i is drawn exactly (KGM "
        "rejection sampler) from exp(w_i u^T C_i u) on the unit sphere of the complement of the vectors already "
        "released, C_i = P_i^T C P_i (a post-processing of released vectors), Delta_u = 1, w_i = eps_i / 2 "
        "(replace) or eps_i (add/remove, where the utility is monotone). Pure epsilon-DP by basic composition: "
        "eps_0 + sum_i eps_i = epsilon. Only the top k of the d noisy eigenvalues are shown (post-processing). "
        "The eigenvalues are not needed for the subspace: eigenvalue_share = 0 gives the whole budget to the "
        "eigenvectors. "
        "Constants: the paper writes exp(eps_i / 4 u^T C u) and Lap(2 / eps_0). Both match a replace-one reading "
        "with triangle-inequality bounds (score range 2, spectrum L1 sensitivity 2); the exact score range is 1 "
        "under either relation, so eps_i / 2 is the exact exponential-mechanism calibration under replace-one "
        "and the paper's eps_i / 4 is valid but spends twice the noise. The Laplace scale here is 2 / eps_0 (as in "
        "the paper), the noise exact and rounded to a grid (docs/privacy.md#numerics); eigenvalues under replace-one "
        "only (their rounding error grows with the private n under add/remove). "
        "This is the algorithm behind IBM diffprivlib's and OpenDP's PCA; both ship a vector-Bingham sampler "
        "with an inverted acceptance test (it hangs for realistic n and samples a more concentrated law than the "
        "proof assumes). Ours is the exact sampler, checked against quadrature and importance sampling."
    ),
)
def amin_iterative(data, k, epsilon, delta, neighbors, rng, eigenvalue_share):
    """Amin et al. (2019) Algorithm 1, stopped after k eigenvectors, with the budget split eps_0 + k eps_i."""
    if eigenvalue_share is None:
        eigenvalue_share = 0.2 if neighbors == "replace" else 0.0
    if eigenvalue_share > 0 and neighbors != "replace":
        raise ValueError(
            "amin_iterative releases its eigenvalues only under neighbors='replace': their rounding error "
            "grows with n, which is private under add/remove. Pass eigenvalue_share=0, or use "
            "release_pca's eigenvalue share (computed exactly row by row)."
        )
    eps_values = epsilon * eigenvalue_share
    eps_vector = (epsilon - eps_values) / k
    _check_samplable(data, _bingham_weight(eps_vector, neighbors), epsilon, "amin_iterative")
    eigenvalues, scale = None, None
    if eps_values > 0:
        # released exactly on a grid (dppca_core.privacy.exact): eigvalsh is backward stable, each eigenvalue within
        # p(d) u ||C|| of the exact one; we take p(d) = 10 d (an assumption on LAPACK's dsyevd, stated in
        # docs/privacy.md) on top of the Gram matrix's own rounding error
        err = data.d * data.gram_error + summation_error(10 * data.d, data.n)
        noisy, noise = release_vector(
            np.linalg.eigvalsh(data.gram),
            Share(1.0, eps_values, 0.0),
            rng,
            l2=math.inf,
            l1=sensitivity("gram_eigenvalues_l1", neighbors),
            computation_error=err,
            name="eigenvalues",
        )
        scale = noise.noise_scale
        eigenvalues = np.sort(noisy)[::-1][:k]
    weight = _bingham_weight(eps_vector, neighbors)
    vectors, rates = _iterative_vectors(data.gram, k, weight, rng)
    return Output(
        fix_signs(thin_qr(vectors)),
        noise_scale=scale,
        eigenvalues=eigenvalues,
        privacy=PrivacyCurve.pure(epsilon),
        facts={
            "epsilon_eigenvalues": eps_values,
            "epsilon_per_vector": eps_vector,
            "bingham_weight": weight,
            "sampler": "exact (Kent-Ganeiber-Mardia rejection)",
            "noise_on": "eigenvalues of X^T X (Laplace); eigenvectors by the exponential mechanism",
        },
        diagnostics={"acceptance_rate": float(np.mean(rates))},
    )


def _iterative_vectors(C: np.ndarray, k: int, weight: float, rng: np.random.Generator):
    """k orthonormal vectors, the i-th drawn from exp(weight u^T C_i u) on the complement of the first i-1."""
    d = C.shape[0]
    released = np.zeros((d, 0))
    rates = []
    for _ in range(k):
        C_i, lift = complement_compression(C, released)  # C_i = P_i^T C P_i without forming P_i
        sample = sample_vector_bingham(weight * C_i, rng)
        released = np.hstack([released, lift(sample.x)[:, None]])
        rates.append(sample.acceptance_rate)
    return released, rates

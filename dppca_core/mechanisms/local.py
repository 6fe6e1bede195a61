"""Local-model PCA of Wang & Xu: each user perturbs its own x x^T."""

from __future__ import annotations

import functools
import math

import numpy as np

from .fantope import fantope_l1_admm
from ..linalg import symmetric_gaussian, thin_qr, top_eigenvectors
from ..privacy import PrivacyCurve, gaussian_sigma, sensitivity
from ..registry import Output, Param
from .sources import builtin_mechanism
from .rates import Rate, input_noise_rms, privacy_regimes, spiked

PAPER_WX = "Wang & Xu, Principal Component Analysis in the Local Differential Privacy Model (IJCAI 2019 / journal)"


def ldp_noise_sigma(epsilon: float, delta: float) -> float:
    """Per-user noise s.d. on upper(x x^T): LDP is a replace relation, so Delta = sqrt(2) (e1 vs e2)."""
    return gaussian_sigma(sensitivity("gram_upper", "replace"), epsilon, delta)


def ldp_message(x, epsilon: float, delta: float, rng: np.random.Generator):
    """One user's randomised report (Wang & Xu, Algorithm 1, step 1): x x^T + Z, Z symmetric with i.i.d.
    N(0, sigma^2) upper triangle, and its exact privacy curve (the registry's ``local_randomizer``).

    Local DP is a statement about this message alone: it is (sqrt(2)/sigma)-GDP for any two inputs x, x' of
    norm <= 1, so it is what the audit attacks (:func:`dppca_core.audit.local_message_design`).
    """
    x = np.asarray(x, dtype=float)
    sigma = ldp_noise_sigma(epsilon, delta)
    return np.outer(x, x) + symmetric_gaussian(x.size, sigma, rng), _ldp_curve(sigma)


def noisy_local_covariance(data, epsilon, delta, rng):
    """S~ = (1/n) sum_i (x_i x_i^T + Z_i) over the users' messages (:func:`ldp_message`) and the per-user noise s.d.

    The sum of n independent symmetric N(0, sigma^2) matrices is one symmetric N(0, n sigma^2)
    matrix, so the server's output has exactly the distribution of the protocol's.
    """
    sigma = ldp_noise_sigma(epsilon, delta)
    total = data.gram + symmetric_gaussian(data.d, sigma * math.sqrt(data.n), rng)
    return total / data.n, sigma


#: What both of the paper's mechanisms declare alike: each user's message (:func:`ldp_message`) is the level their
#: (epsilon, delta) guarantee is stated at and the audit attacks, under local DP's relation (any two inputs of one
#: user: replace).
wang_xu_mechanism = functools.partial(
    builtin_mechanism,
    model="local",
    audit_statistic="ldp_message",
    local_randomizer=ldp_message,
    guarantee="approximate",
    relations=("replace",),
)


def _local_regimes(why_n: str, why_eps: str, eps_n: int, **both) -> dict:
    """:func:`privacy_regimes` where the users' noise dominates, for both mechanisms: its error is below the random
    level only once n eps^2 gap^2 >> d ln(1/delta), so n from 20,000 at epsilon = 8, and epsilon from 4 (at
    ``eps_n`` rows)."""
    n = {"grid": (20000, 80000, 320000), "epsilon": 8.0}
    return privacy_regimes(why_n, why_eps, n=n, eps={"grid": (4.0, 8.0, 16.0), "n": eps_n}, **both)


LDP_GAUSSIAN_RATE = Rate(
    "Wang & Xu (Thm 2): sigma(eps, delta) sqrt(k(d-k)) / (sqrt(n) gap)",
    terms=lambda p: (p.gram_sigma * p.spread / math.sqrt(p.n), p.statistical),
    first_order=lambda lam, p: input_noise_rms(p.gram_sigma * math.sqrt(p.n), lam, p.k),
    regimes=_local_regimes(
        "each user's noise sigma enters S~ with s.d. sigma/sqrt(n); error well below the random level only once "
        "n eps^2 gap^2 >> d ln(1/delta)",
        "error proportional to the per-user sigma(eps, delta)",
        eps_n=80000,
    ),
)


@wang_xu_mechanism(
    name="ldp_gaussian",
    rate=LDP_GAUSSIAN_RATE,
    title="Local Gaussian mechanism (LDP PCA)",
    paper=PAPER_WX + ", Algorithm 1",
    releases_eigenvalues=True,
    notes=(
        "Every user releases x x^T + Z_i (symmetric Gaussian noise on the upper triangle); the server averages and "
        "takes the top-k eigenvectors. (epsilon, delta)-LDP: each user's message is private on its own. Correction: "
        "local DP compares any two inputs x, x' of one user, a replace relation, so the sensitivity of upper(x x^T) is "
        "sqrt(2), not the paper's 1; the paper's sigma^2 = 2 ln(1.25/delta)/epsilon^2 is under-calibrated (claimed "
        "(1, 1e-4) is really (1, 1.57e-4)) and uses the classic formula outside epsilon < 1. Here sigma = analytic "
        "Gaussian mechanism with sensitivity sqrt(2). The simulation draws the sum of the users' noise in one go "
        "(same distribution). noise_scale is the per-user s.d. Rate: S~ - S is a symmetric Gaussian matrix with entry "
        "s.d. sigma/sqrt(n), so the error is about 2 sigma sqrt(d) / (sqrt(n) gap) (Davis-Kahan, gap = lambda_k - "
        "lambda_{k+1} of the covariance of the scaled rows): slope -1/2 in n and, with the analytic calibration, "
        "about -1 in epsilon (exactly the slope of sigma(epsilon, delta)). It holds while that is well below the "
        "random-subspace level sqrt(k(1 - k/d)), i.e. n epsilon^2 gap^2 >> d ln(1/delta); Wang & Xu's own synthetic "
        "settings (gap 1/(10p)) are far outside it."
    ),
)
def ldp_gaussian(data, k, epsilon, delta, neighbors, rng):
    cov, sigma = noisy_local_covariance(data, epsilon, delta, rng)
    values, vectors = top_eigenvectors(cov, k)
    return Output(
        vectors,
        noise_scale=sigma,
        eigenvalues=values * data.n,
        privacy=_ldp_curve(sigma),
        facts={
            "noise_on": "upper(x x^T) of each user",
            "messages": data.n,
            "numbers_per_user": data.d * (data.d + 1) // 2,
        },
    )


def _ldp_curve(sigma: float) -> PrivacyCurve:
    """Each user's message is (sqrt(2) / sigma)-GDP (local DP: any two inputs of one user)."""
    return PrivacyCurve.gdp(sensitivity("gram_upper", "replace") / sigma)


def default_sparse_penalty(n: int, d: int, sigma: float, noisy_cov=None, zeta: float = 0.05) -> float:
    """lambda = z * max_{a<=b} sqrt((sigma^2 + S_aa S_bb + S_ab^2) / n), z = sqrt(2 ln(d(d+1)/zeta)).

    Wang & Xu's proof of Theorem 4 needs lambda >= ||S~ - Sigma||_max (their statement's '<=' is a typo). Entry
    (a, b) of S~ - Sigma is the average of n independent terms: the user's noise, s.d. sigma, plus the sampling
    deviation x_a x_b - Sigma_ab, whose variance is Sigma_aa Sigma_bb + Sigma_ab^2 for Gaussian rows (Isserlis).
    Over the d(d+1)/2 entries a union bound gives the quantile z, so with probability about 1 - zeta every entry
    is below lambda. The paper's lambda = Theta(lambda_1 sqrt(log(1/delta) log p / n) / epsilon) is the same
    quantity in its normalisation: sqrt(log p / n) times the noise multiplier sqrt(log(1/delta))/epsilon and the
    data's scale. Here the scale is read from the released S~ (``noisy_cov``, diagonal clipped at 0), which is
    post-processing of the users' messages: no extra privacy cost. For rows scaled to norm <= 1 the entries of
    Sigma are O(1/d), so this term is O(1/(d sqrt(n))), not the sqrt(2 ln(d^2)/n) of a worst-case range bound,
    which exceeds the signal itself. Without ``noisy_cov`` only the privacy noise is bounded.
    """
    z = np.sqrt(2 * np.log(d * (d + 1) / zeta))
    spread = 0.0
    if noisy_cov is not None:
        S = (np.asarray(noisy_cov) + np.asarray(noisy_cov).T) / 2.0
        diag = np.clip(np.diag(S), 0.0, None)
        spread = float(np.max(np.outer(diag, diag) + S**2))
    return float(z * np.sqrt((sigma**2 + spread) / n))


LDP_SPARSE_RATE = Rate(
    "Wang & Xu (Thm 4): s lambda / gap, lambda ~ sigma(eps, delta) sqrt(log d / n)",
    terms=lambda p: (
        p.gram_sigma * p.s * math.sqrt(p.k * math.log(p.d + 1) / p.n),
        math.sqrt(p.s * math.log(p.d + 1) / p.n),
    ),
    regimes=_local_regimes(
        "support recovered at every n (lambda below the support's entries) and the users' noise dominates the "
        "sampling term: error ~ s lambda / gap",
        "support recovered; lambda ~ sigma(eps, delta) / sqrt(n)",
        eps_n=160000,
        data=spiked(20, 1, 30.0, sparsity=4),
        k=1,
        reference="population",
    ),
)


@wang_xu_mechanism(
    name="ldp_sparse",
    rate=LDP_SPARSE_RATE,
    ordered_basis=False,
    title="Local sparse PCA (Fantope + l1, ADMM)",
    paper=PAPER_WX + ", Algorithm 2",
    params=(
        Param(
            "penalty",
            "float",
            None,
            "l1 penalty lambda; default: a 95% bound on the largest entry of S~ - Sigma, "
            "sqrt(2 ln(d(d+1)/0.05)) max_ab sqrt((sigma^2 + S~_aa S~_bb + S~_ab^2)/n) (noise + sampling, the "
            "data's scale read from the noisy S~).",
            low=0.0,
            high=1e6,
            log=True,
        ),
        Param(
            "sparsity",
            "int",
            None,
            "Optional: keep the s rows of largest norm of the output (post-processing).",
            low=1,
            high=100000,
        ),
        Param("max_iter", "int", 300, "ADMM iterations at most.", low=1, high=5000),
        Param(
            "rho", "float", 1.0, "Initial ADMM penalty (adapted by residual balancing).", low=1e-4, high=1e4, log=True
        ),
    ),
    notes=(
        "Same local perturbation as ldp_gaussian (sensitivity sqrt(2), analytic Gaussian mechanism), then the "
        "Fantope-constrained l1-penalised problem max <S~, X> - lambda ||X||_1, 0 <= X <= I, tr X = k, solved by ADMM "
        "with exact Fantope projection, and the top-k eigenvectors of the sparse solution. Post-processing of the "
        "users' messages: same (epsilon, delta)-LDP. The paper's Theorem 4 writes 'lambda <= ...' where its proof needs "
        "lambda >= ||S~ - Sigma||_max; the default penalty is a 95% bound on that maximum in our normalisation: "
        "sqrt(2 ln(d(d+1)/0.05)) max_ab sqrt((sigma^2 + S_aa S_bb + S_ab^2)/n), the users' noise plus the sampling "
        "deviation of x_a x_b (Gaussian fourth moments), with the data's second moments S read from the noisy S~ "
        "(post-processing: free). The paper's lambda = Theta(lambda_1 sqrt(log(1/delta) log p/n)/epsilon) is this "
        "bound in its own scaling; a worst-case sampling term sqrt(2 ln(d^2)/n) ignores that entries of the covariance "
        "of rows of norm <= 1 are O(1/d) and wipes out the signal. Rate: error about s lambda / gap (Vu et al.), so "
        "slope -1/2 in n, and proportional to sigma(epsilon, delta) (about 1/epsilon) where the users' noise dominates "
        "the sampling term (sigma^2 >> S_aa S_bb); at very large epsilon it levels off at the sampling floor. The "
        "support is recovered once lambda is below the support's smallest covariance entries (F1 >= 0.9 on a 6-sparse "
        "spike 30, d = 40, n = 20,000 from epsilon ~ 50) and F1 falls as epsilon falls. Cost O(d^3) per ADMM iteration."
    ),
)
def ldp_sparse(data, k, epsilon, delta, neighbors, rng, penalty, sparsity, max_iter, rho):
    cov, sigma = noisy_local_covariance(data, epsilon, delta, rng)
    lam = default_sparse_penalty(data.n, data.d, sigma, cov) if penalty is None else penalty
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
    # the solver and the default penalty only see the users' noisy messages, so the penalty, the iteration count
    # and the residuals are covered (post-processing); the penalty is not a data-independent fact
    return Output(
        vectors,
        noise_scale=sigma,
        privacy=_ldp_curve(sigma),
        outputs={"solver": info, "penalty": lam},
        facts={"noise_on": "upper(x x^T) of each user"},
        diagnostics={
            "warnings": [] if info["converged"] else [f"ADMM stopped after {max_iter} iterations before converging."]
        },
    )

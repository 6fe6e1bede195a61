"""Central-model input and iterate perturbation: the baselines of every paper (docs/mechanisms.md)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..linalg import (
    fix_signs,
    random_orthonormal,
    stacked_symmetric_gaussian,
    stacked_top_eigenvectors,
    symmetric_gaussian,
    thin_qr,
    top_eigenvectors,
)
from ..privacy import (
    PrivacyCurve,
    composed_gaussian_sigma,
    composed_mu,
    gaussian_mu,
    gaussian_sigma,
    laplace_scale,
    sensitivity,
)
from ..registry import Output, Param
from .sources import builtin_mechanism
from .rates import Rate, input_noise_rms, power_noise_rate, privacy_regimes

PAPER_AG = "Dwork, Talwar, Thakurta & Zhang (STOC 2014), Analyze Gauss"
PAPER_CSS = "Chaudhuri, Sarwate & Sinha (NIPS 2012 / JMLR 2013)"
PAPER_HP = "Hardt & Price (NIPS 2014), The Noisy Power Method"
#: What this module's mechanisms declare alike: central, their eigenvalues released (the eigenpairs of a noisy or exact
#: X^T X), attacked at an entry of X^T X, (epsilon, delta) unless they say otherwise.
central_mechanism = functools.partial(
    builtin_mechanism, model="central", guarantee="approximate", audit_statistic="gram_entry", releases_eigenvalues=True
)


@central_mechanism(
    name="non_private",
    title="Non-private PCA (reference)",
    paper="exact eigendecomposition",
    family="reference",  # the line every private release is measured against: not kin of any of them
    guarantee="none",
    uses_delta=False,
    notes="Exact top-k eigenvectors of X^T X of the clipped rows (numpy.linalg.eigh). No privacy: the reference.",
)
def non_private(data, k, epsilon, delta, neighbors, rng):
    values, vectors = top_eigenvectors(data.gram, k)
    return Output(vectors, noise_scale=None, eigenvalues=values, facts={"noise_on": "none"})


def _gram_noise_batch(base: np.ndarray, scale: float, k: int, generators, times: float = 1.0) -> list[dict]:
    """Runs of a mechanism that adds symmetric Gaussian noise of s.d. ``scale`` to ``base`` and releases the top-k
    eigenpairs (eigenvalues times ``times``) and the trace: one per generator, for an audit (registry
    ``audit_batch``).

    Each run's noise is drawn from its own generator exactly as the mechanism draws it
    (``symmetric_gaussian``); the rest is the same elementwise arithmetic on a stack, ``eigh`` of a stack
    decomposes each matrix alone and the trace of a stack reduces each diagonal as the trace of one matrix does,
    so each entry equals that run's published components, eigenvalues and outputs (tested; the audit also checks
    the first run of every batch against a full run).
    """
    d = base.shape[0]
    draws = np.array([rng.normal(0.0, scale, size=(d, d)) for rng in generators]).reshape(-1, d, d)
    noisy = base + stacked_symmetric_gaussian(draws)
    values, vectors = stacked_top_eigenvectors(noisy, k)
    if times != 1.0:
        values = values * times
    traces = np.trace(noisy, axis1=1, axis2=2).tolist()  # the same reduction of each diagonal as np.trace of one
    return [
        {"components": vectors[t], "eigenvalues": values[t], "outputs": {"trace": traces[t]}}
        for t in range(noisy.shape[0])
    ]


def _analyze_gauss_batch(data, k, epsilon, delta, neighbors, generators):
    sigma = gaussian_sigma(sensitivity("gram_upper", neighbors), epsilon, delta)
    return _gram_noise_batch(data.gram, sigma, k, generators)


#: Davis-Kahan on the noisy Gram matrix; the eigengap of X^T X grows like n, so the error falls like 1/n
ANALYZE_GAUSS_RATE = Rate(
    "Dwork et al. 2014 (Thm 3) / Davis-Kahan: sigma(eps, delta) sqrt(k(d-k)) / (n gap)",
    terms=lambda p: (p.gram_sigma * p.spread / p.n, p.statistical),
    first_order=lambda lam, p: input_noise_rms(p.gram_sigma, lam, p.k),
    regimes=privacy_regimes(
        "privacy-dominated against the sample subspace; eigengap of X^T X grows like n",
        "noise sigma(eps, delta) of the analytic Gaussian mechanism",
    ),
)


@central_mechanism(
    name="analyze_gauss",
    rate=ANALYZE_GAUSS_RATE,
    title="Analyze Gauss",
    paper=PAPER_AG,
    audit_batch=_analyze_gauss_batch,
    notes=(
        "Adds symmetric Gaussian noise to the upper triangle of C = X^T X and releases the top-k "
        "eigenvectors. Sensitivity of upper(C): 1 under add/remove (the paper's relation), sqrt(2) "
        "under replace-one (e1 vs e2). Noise from the analytic Gaussian mechanism (exact for every "
        "epsilon); the paper's classic formula sqrt(2 ln(1.25/delta))/epsilon is proven only for epsilon < 1."
    ),
)
def analyze_gauss(data, k, epsilon, delta, neighbors, rng):
    delta_2 = sensitivity("gram_upper", neighbors)
    sigma = gaussian_sigma(delta_2, epsilon, delta)
    noisy = data.gram + symmetric_gaussian(data.d, sigma, rng)
    values, vectors = top_eigenvectors(noisy, k)
    # eigenpairs and trace of the noisy matrix are post-processing of it: they are covered too
    return Output(
        vectors,
        noise_scale=sigma,
        eigenvalues=values,
        privacy=PrivacyCurve.gdp(delta_2 / sigma),
        outputs={"trace": float(np.trace(noisy))},
        facts={"noise_on": "upper(X^T X)"},
        state={"statistic": "upper(X^T X)", "matrix": noisy, "sigma": sigma},  # what a refinement combines
    )


def mod_sulq_beta(n: int, d: int, epsilon: float, delta: float) -> float:
    """Noise s.d. of MOD-SuLQ on A = X^T X / n (Chaudhuri, Sarwate & Sinha 2013, Algorithm 1).

    beta = (d+1)/(n eps) sqrt(2 ln((d^2+d)/(2 sqrt(2 pi) delta))) + 1/(n sqrt(eps)).
    Their density-ratio proof (union bound over the d(d+1)/2 entries) covers replace-one.
    """
    log_term = math.log((d * d + d) / (2.0 * math.sqrt(2.0 * math.pi) * delta))
    return (d + 1) / (n * epsilon) * math.sqrt(2.0 * max(log_term, 0.0)) + 1.0 / (n * math.sqrt(epsilon))


def _mod_sulq_batch(data, k, epsilon, delta, neighbors, generators):
    gaussian_mu(epsilon, delta)
    beta = mod_sulq_beta(data.n, data.d, epsilon, delta)
    runs = _gram_noise_batch(data.gram / data.n, beta, k, generators, times=data.n)
    for run in runs:  # MOD-SuLQ publishes no trace
        del run["outputs"]["trace"]
    return runs


MOD_SULQ_RATE = Rate(
    "Chaudhuri et al. 2013: beta sqrt(k(d-k)) / gap, beta = (d+1) sqrt(2 ln(d^2/delta)) / (n eps) + 1 / (n sqrt(eps))",
    terms=lambda p: (mod_sulq_beta(p.n, p.d, p.epsilon, p.delta) * p.spread, p.statistical),
    first_order=lambda lam, p: input_noise_rms(p.n * mod_sulq_beta(p.n, len(lam), p.epsilon, p.delta), lam, p.k),
    regimes=privacy_regimes(
        "beta ~ d/(n eps): privacy-dominated against the sample",
        "beta ~ 1/eps (plus a small 1/sqrt(eps) term)",
        n={"grid": (8000, 32000, 128000), "epsilon": 2.0},
        eps={"n": 64000, "grid": (1.0, 2.0, 4.0)},
    ),
)


@central_mechanism(
    name="mod_sulq",
    rate=MOD_SULQ_RATE,
    title="MOD-SuLQ",
    paper=PAPER_CSS,
    relations=("replace",),
    audit_batch=_mod_sulq_batch,
    notes=(
        "Symmetric Gaussian noise of s.d. beta on A = X^T X / n with the paper's own beta "
        "(a direct density-ratio proof with a union bound over entries, valid for replace-one; "
        "n must be public, so add/remove is not offered). Valid but its noise is about 1.1 d times that of Analyze "
        "Gauss calibrated for replace-one with the analytic Gaussian mechanism (21x at d = 20, epsilon = 1, "
        "delta = 1e-6; docs/mechanisms.md#mod_sulq); the proof assumes epsilon, delta as in the paper. "
        "noise_scale is beta, on the normalised A."
    ),
)
def mod_sulq(data, k, epsilon, delta, neighbors, rng):
    # The paper's beta is not the analytic calibration, but its exact GDP reading below needs the same double
    # precision: beyond the analytic calibration's usable range at this delta, gaussian_mu says so (ValueError).
    gaussian_mu(epsilon, delta)
    beta = mod_sulq_beta(data.n, data.d, epsilon, delta)
    noisy = data.gram / data.n + symmetric_gaussian(data.d, beta, rng)
    values, vectors = top_eigenvectors(noisy, k)
    # The paper proves (epsilon, delta) directly; the noise is Gaussian with sensitivity sqrt(2)/n on upper(A),
    # so the exact guarantee is (sqrt(2) / (n beta))-GDP, which implies the paper's claim.
    mu = sensitivity("gram_upper", "replace") / data.n / beta
    return Output(
        vectors,
        noise_scale=beta,
        eigenvalues=values * data.n,
        privacy=PrivacyCurve.gdp(mu),
        facts={"noise_on": "upper(X^T X / n)"},
    )


def _l1_sensitivity_gram_times_basis(d: int, p: int, neighbors: str) -> float:
    """L1 sensitivity of C Q (Q orthonormal d x p) for rows with norm <= 1.

    ||x x^T Q||_1 = ||x||_1 ||Q^T x||_1 <= sqrt(d) * sqrt(p); replace-one doubles it (triangle).
    """
    one_row = math.sqrt(d) * math.sqrt(p)
    return one_row if neighbors == "add_remove" else 2.0 * one_row


def _power_sd(p) -> float:
    """The noise s.d. of each of the 20 steps on C Q (exact GDP composition)."""
    return composed_gaussian_sigma(sensitivity("gram_times_basis", "replace", block_size=p.k), p.epsilon, p.delta, 20)


PRIVATE_POWER_RATE = power_noise_rate(
    "Hardt & Price 2014 (Cor 1.1): sqrt(L) sigma(eps, delta) sqrt(k d) / (n gap), L = 20 steps (exact GDP "
    "composition)",
    _power_sd,
    terms=lambda p: (_power_sd(p) * math.sqrt(p.k * p.d) / p.n, p.statistical),
    why_n="20 iterations converge ((lambda_3/lambda_2)^20 ~ 1e-9); per-step noise sqrt(20) sigma",
    why_eps="per-step noise sqrt(20) sigma(eps, delta)",
)


@central_mechanism(
    name="private_power",
    rate=PRIVATE_POWER_RATE,
    title="Private (noisy) power method",
    paper=PAPER_HP,
    family="noisy iterations",  # noise on each of L iterates, not once on X^T X as its module's other mechanisms
    audit_statistic="power_iterates",
    releases_eigenvalues=False,
    params=(
        Param("iterations", "int", 20, "Number of noisy power iterations L (data-independent).", low=1, high=500),
        Param("block_size", "int", None, "Block size p >= k of the iterate; default k.", low=1, high=1000),
        Param(
            "noise",
            "choice",
            "gaussian",
            "'gaussian': (epsilon, delta)-DP, per-step noise by exact GDP composition over L steps; "
            "'laplace': pure epsilon-DP, Laplace noise with epsilon split evenly over L steps.",
            choices=("gaussian", "laplace"),
        ),
    ),
    notes=(
        "Noisy power method on C = X^T X with a random data-independent start. Row-level calibration "
        "(docs/mechanisms.md#private_power): the Frobenius sensitivity of C Q is 1 (add/remove) or sqrt(2) (replace, p >= 2; "
        "1 for p = 1), and L adaptive Gaussian steps compose exactly in GDP: sigma = sqrt(L) Delta / mu*(eps, delta). "
        "Hardt & Price's own calibration is for entry-level neighbours (one matrix entry changes) and is not a "
        "row-level guarantee. The pure variant uses Laplace noise with L1 sensitivity sqrt(d p) (x2 under replace) "
        "and basic composition. The iteration count must not be chosen from the data spectrum."
    ),
)
def private_power(data, k, epsilon, delta, neighbors, rng, iterations, block_size, noise):
    p = k if block_size is None else block_size
    if p < k or p > data.d:
        raise ValueError(f"block_size = {p} is out of range: choose k = {k} <= block_size <= d = {data.d}.")
    if noise == "gaussian":
        delta_2 = sensitivity("gram_times_basis", neighbors, block_size=p)
        scale = composed_gaussian_sigma(delta_2, epsilon, delta, iterations)
        draw = lambda: rng.normal(0.0, scale, size=(data.d, p))  # noqa: E731
    else:
        scale = laplace_scale(_l1_sensitivity_gram_times_basis(data.d, p, neighbors), epsilon / iterations)
        draw = lambda: rng.laplace(0.0, scale, size=(data.d, p))  # noqa: E731
    Q = random_orthonormal(data.d, p, rng)
    iterates = [Q]
    for _ in range(iterations):
        Y = data.gram @ Q + draw()  # the only data access: L noisy releases in total
        Q = thin_qr(Y)
        iterates.append(Q)  # post-processing of the noisy releases so far: covered by the composition
    # Top-k left singular vectors of the last released Y: post-processing, no extra query.
    left, _, _ = np.linalg.svd(Y, full_matrices=False)
    components = fix_signs(left[:, :k])
    pure = noise == "laplace"
    return Output(
        components,
        noise_scale=scale,
        guarantee="pure" if pure else None,
        delta=0.0 if pure else None,
        privacy=PrivacyCurve.pure(epsilon) if pure else PrivacyCurve.gdp(composed_mu([delta_2 / scale] * iterations)),
        outputs={"iterates": iterates},
        facts={"iterations": iterations, "block_size": p, "noise": noise, "noise_on": "X^T X Q (per step)"},
    )

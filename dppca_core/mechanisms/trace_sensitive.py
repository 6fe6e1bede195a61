"""Trace-sensitive covariance (Dong, Liang & Yi, NeurIPS 2022, "Differentially Private Covariance Revisited").

The covariance is released as its eigenvectors and its eigenvalues separately: the eigenvectors are those of
C + E (the Gaussian mechanism on the upper triangle of C = X^T X, as Analyze Gauss), the eigenvalues are the
exact spectrum of C plus Gaussian noise (l2 sensitivity sqrt(2) under replace-one, by Hoffman-Wielandt). The
estimate P~ Lambda~ P~^T has Frobenius error O~(d^(1/4) sqrt(tr / n) + sqrt(d) / n) in the paper's normalisation
(Sigma = C / n, rho-zCDP with rho constant), against O~(d / n) for the noisy matrix itself: the eigenvector error
is weighted by eigenvalues that are accurate, so a small trace (or a spectrum that falls fast) keeps it small.
For the subspace alone it is Analyze Gauss with part of the budget.
"""

from __future__ import annotations

import math

import numpy as np

from ..audit.design import AuditDesign
from ..linalg import symmetric_gaussian, top_eigenvectors
from ..data.prepare import prepare
from ..privacy import PrivacyCurve, composed_mu, gaussian_mu, sensitivity, split_mu, summation_error
from ..registry import Output, Param, mechanism
from .rates import gram_noise_rate
from ..privacy.shares import Share, release_vector

PAPER_DLY = "Dong, Liang & Yi, Differentially Private Covariance Revisited (NeurIPS 2022), Algorithm 1"
#: Background of the audit design: squared norms along e1 and e2 far apart, so that the noisy spectrum keeps
#: its order and stays inside [0, n] (sorting and clamping then change nothing).
AUDIT_BACKGROUND = (200, 60)


def eigenvalue_error(data) -> float:
    """A bound on the rounding error of each computed eigenvalue of C: LAPACK's symmetric eigensolver is backward
    stable, each eigenvalue within p(d) u ||C|| of the exact one, p(d) = 10 d assumed (as for amin_iterative,
    docs/privacy.md#numerics), on top of the Gram matrix's own rounding. It grows with n: replace-one only."""
    return data.d * data.gram_error + summation_error(10 * data.d, data.n)


def noisy_parts(data, mu_vectors: float, mu_values: float, rng: np.random.Generator):
    """The two Gaussian releases the proof composes: (the noisy matrix C + E, the noisy spectrum of C on its grid,
    the spectrum's calibration).

    E is symmetric with upper entries N(0, sigma^2), sigma = sqrt(2) / mu_vectors (the upper triangle of C moves by
    at most sqrt(2) when a row of norm <= 1 is replaced). The spectrum lambda(C), sorted, moves by at most
    ||x x^T - x' x'^T||_F <= sqrt(2) in l2 (Hoffman-Wielandt); it is released with exact noise on a grid
    (:func:`dppca_core.privacy.shares.release_vector`) at GDP parameter mu_values.
    """
    delta_2 = sensitivity("gram_upper", "replace")
    noisy_matrix = data.gram + symmetric_gaussian(data.d, delta_2 / mu_vectors, rng)
    spectrum = np.sort(np.linalg.eigvalsh(data.gram))[::-1]
    values, noise = release_vector(
        spectrum,
        Share(1.0, 0.0, 0.0, mu=mu_values),
        rng,
        l2=sensitivity("gram_eigenvalues_l2", "replace"),
        l1=np.inf,
        computation_error=eigenvalue_error(data),
        name="eigenvalues",
    )
    return noisy_matrix, values, noise


def trace_sensitive_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """Both Gaussian releases of the proof, attacked together (the registry's ``audit_design`` hook), d = 2.

    The proof composes two Gaussian mechanisms: the noisy matrix (whose eigenvectors are published) and the noisy
    spectrum. The design attacks that pair (:func:`noisy_parts`), the level the guarantee is stated at: the
    canary e1 (D) or e2 (D') on a background of AUDIT_BACKGROUND rows along e1 and e2, so that the matrix moves by
    upper(e2 e2^T - e1 e1^T) (its whole sensitivity sqrt(2)) and the spectrum by (-1, +1) (its whole sqrt(2)) at
    once. The score is the exact Gaussian log-likelihood ratio of D' against D over both.
    """
    if statistic not in ("auto", "both_parts"):
        return None
    D, D_prime = canary_pair("trace_sensitive", neighbors, d, AUDIT_BACKGROUND)
    a, b = AUDIT_BACKGROUND

    def release(data, rng, epsilon, delta, neighbors):
        mu_vectors, mu_values = split_mu(gaussian_mu(epsilon, delta), (0.5, 0.5))
        matrix, values, noise = noisy_parts(data, mu_vectors, mu_values, rng)
        curve = PrivacyCurve.gdp(composed_mu([mu_vectors, noise.curve().mu]))
        return {
            "matrix": matrix.tolist(),
            "values": values.tolist(),
            "matrix_sd": float(np.sqrt(2) / mu_vectors),
            "values_sd": noise.noise_scale,
        }, curve

    score = both_parts_score(D, D_prime)
    return AuditDesign(
        D,
        D_prime,
        2,
        score,
        "both_parts",
        release=release,
        note=f"both Gaussian releases the proof composes (the noisy matrix and the noisy spectrum; "
        f"canary e1 / e2 on a background of {a} + {b} unit rows along e1, e2)",
    )


def canary_pair(name: str, neighbors: str, d: int, background: tuple[int, int]):
    """The neighbours of the both-parts designs, d = 2 and replace-one only: the canary e1 (D) or e2 (D') on a
    background of ``background`` unit rows along e1 and e2."""
    if neighbors != "replace":
        raise ValueError(f"{name} has a guarantee for replace-one neighbours only; audit it with neighbors='replace'.")
    if d != 2:
        raise ValueError(f"the {name} design is written for d = 2; audit it with d=2.")
    a, b = background
    rows = np.vstack([np.tile(np.eye(2)[0], (a, 1)), np.tile(np.eye(2)[1], (b, 1))])
    return prepare(np.vstack([np.eye(2)[0], rows])), prepare(np.vstack([np.eye(2)[1], rows]))


def both_parts_score(D, D_prime):
    """The exact Gaussian log-likelihood ratio of D' against D over a published noisy matrix and noisy spectrum (the
    fields "matrix", "values" and their noise s.d.s "matrix_sd", "values_sd")."""
    upper = np.triu_indices(2)
    means = [(data.gram[upper], np.sort(np.linalg.eigvalsh(data.gram))[::-1]) for data in (D, D_prime)]

    def score(published: dict) -> float:
        llr = 0.0
        observed = (np.asarray(published["matrix"])[upper], np.asarray(published["values"]))
        for part, sd in enumerate((published["matrix_sd"], published["values_sd"])):
            shift = means[1][part] - means[0][part]
            llr += (float(shift @ (observed[part] - means[0][part])) - 0.5 * float(shift @ shift)) / sd**2
        return llr

    return score


TRACE_SENSITIVE_RATE = gram_noise_rate(
    "Dong, Liang & Yi 2022: eigenvectors of the Gaussian mechanism at half of rho: sqrt(2) sigma(eps, delta) "
    "sqrt(k(d-k)) / (n gap); covariance (Frobenius, Sigma = C / n) O~(d^(1/4) sqrt(tr / n) + sqrt(d) / n)",
    lambda p: math.sqrt(2.0),  # Analyze Gauss's noise at half of mu^2 (vector_share 0.5)
    why_n="Analyze Gauss's eigenvectors at half of mu^2",
    why_eps="sqrt(2) sigma(eps, delta) on X^T X",
)


@mechanism(
    name="trace_sensitive",
    color="#d2a5a5",
    rate=TRACE_SENSITIVE_RATE,
    title="Trace-sensitive covariance (separate eigenvalues and eigenvectors)",
    paper=PAPER_DLY,
    model="central",
    guarantee="approximate",
    relations=("replace",),
    releases_eigenvalues=True,
    audit_statistic="both_parts",
    audit_descriptions={
        "both_parts": "the exact Gaussian likelihood ratio over both releases of the proof, the noisy "
        "matrix and the noisy spectrum, each moved by its whole sensitivity at once"
    },
    audit_design=trace_sensitive_audit_design,
    params=(
        Param(
            "vector_share",
            "float",
            0.5,
            "Share of the budget (of rho, i.e. of mu^2) spent on the eigenvectors; "
            "the eigenvalues get the rest (the paper splits rho in halves).",
            low=0.05,
            high=0.95,
        ),
    ),
    notes=(
        "Dong, Liang & Yi (2022), Algorithm 1: the eigenvectors P~ of C + E (E symmetric Gaussian, sensitivity "
        "sqrt(2) of upper(C) under replace-one) and the eigenvalues lambda(C) + N(0, s^2 I) (sensitivity sqrt(2) of "
        "the sorted spectrum in l2, Hoffman-Wielandt) with the budget split in halves of rho; the covariance "
        "estimate is P~ Lambda~ P~^T, the noisy eigenvalues sorted and clamped to [0, n] (post-processing, as the "
        "authors' code does). The two Gaussian releases compose exactly in Gaussian DP (rho = mu^2 / 2 for each). "
        "The top-k columns of P~ are the components and the top-k of Lambda~ the eigenvalues; with k = d the "
        "release is the whole covariance estimate. The paper's worst case: Frobenius error "
        "O~(d^(1/4) sqrt(tr/n) + sqrt(d)/n) for Sigma = C/n against O~(d/n) for the Gaussian mechanism (tr the "
        "trace of Sigma, at most 1): it wins for the covariance when d is large against n or the spectrum is "
        "skewed (small trace). For the subspace alone it is Analyze Gauss with half the budget and loses to it. "
        "The spectrum is released with exact noise on a grid; its rounding bound grows with n, so the guarantee is "
        "stated for replace-one (n public, as the paper's Sigma = X X^T / n). The tail-sensitive variant (a "
        "private clipping radius chosen by the sparse vector technique) is tail_sensitive."
    ),
)
def trace_sensitive(data, k, epsilon, delta, neighbors, rng, vector_share):
    mu_vectors, mu_values = split_mu(gaussian_mu(epsilon, delta), (vector_share, 1.0 - vector_share))
    noisy_matrix, values, noise = noisy_parts(data, mu_vectors, mu_values, rng)
    _, vectors = top_eigenvectors(noisy_matrix, data.d)
    spectrum = np.clip(np.sort(values)[::-1], 0.0, float(data.n))  # post-processing: sorted, in [0, n]
    return Output(
        vectors[:, :k],
        noise_scale=float(np.sqrt(2) / mu_vectors),
        eigenvalues=spectrum[:k],
        privacy=PrivacyCurve.gdp(composed_mu([mu_vectors, noise.curve().mu])),
        outputs={"spectrum": spectrum, "eigenvalue_noise_sd": noise.noise_scale},
        facts={
            "mu_vectors": mu_vectors,
            "mu_values": noise.curve().mu,
            "noise_on": "upper(X^T X) (eigenvectors) and the spectrum of X^T X (eigenvalues)",
        },
    )

"""CoinPress covariance (Biswas, Dong, Kamath & Ullman, NeurIPS 2020), and PCA as its post-processing.

The data need only a loose public bound on their spread: here the clipping radius (rows of norm <= 1 after
:func:`dppca_core.data.prepare`) and, optionally, a smaller prior bound u on the top eigenvalue of the per-row second
moment. Each step maps the rows by a public matrix A_t (the current confidence ellipsoid: after it the second
moment is believed to be at most the identity), clips the mapped rows to the radius a whitened row should have,
adds Gaussian noise to their second moment and shrinks the ellipsoid with the noisy estimate. The last step's
estimate, mapped back, is the covariance; its top-k eigenvectors are the components (post-processing).

Privacy: each step is a Gaussian mechanism on the upper triangle of sum_i w_i w_i^T for clipped rows w_i of norm
<= r_t, sensitivity sqrt(2) r_t^2 under replace-one (docs/privacy.md#sensitivity, scaled by r_t^2), with A_t a
function of the earlier released steps only. Adaptive Gaussian steps compose exactly in Gaussian DP: the
paper's rho split (zCDP) is a split of mu^2 (:func:`dppca_core.privacy.split_mu`).
"""

from __future__ import annotations

import math

import numpy as np

from ..audit.design import AuditDesign
from ..compiled.kernels import clipped_whitened
from ..linalg import symmetric_gaussian, top_eigenvectors
from ..data.prepare import prepare
from ..privacy import PrivacyCurve, composed_mu, gaussian_mu, sensitivity, split_mu
from ..registry import Output, Param
from .sources import n_public_mechanism
from .rates import Rate, privacy_regimes

PAPER_COINPRESS = (
    "Biswas, Dong, Kamath & Ullman, CoinPress: Practical Private Mean and Covariance Estimation "
    "(NeurIPS 2020), Algorithms 2-3"
)
#: Rows of the CoinPress audit design: enough that the background fixes every ellipsoid to a few per cent.
AUDIT_ROWS = 2000
#: Rows a step maps, clips and adds at a time: the block and its mapped rows stay in the second-level cache.
CHUNK_ROWS = 2048


def whitened_radius(d: int, beta: float) -> float:
    """gamma = sqrt(d + 2 sqrt(d ln(1/beta)) + 2 ln(1/beta)): a standard Gaussian vector in R^d has norm above
    gamma with probability at most beta (Laurent & Massart 2000, Lemma 1), so a row whitened by the current
    ellipsoid is clipped with about that probability (the radius of the paper's clipping step)."""
    log = math.log(1.0 / beta)
    return math.sqrt(d + 2.0 * math.sqrt(d * log) + 2.0 * log)


def step_weights(iterations: int, final_share: float) -> list[float]:
    """Shares of mu^2 (of rho) per step: ``final_share`` for the last, the rest split evenly over the others (the
    paper's experiments use 3/4 for the last step). One step takes everything."""
    if iterations == 1:
        return [1.0]
    return [(1.0 - final_share) / (iterations - 1)] * (iterations - 1) + [final_share]


def wigner_norm_bound(d: int, sigma: float, beta: float) -> float:
    """A bound on the spectral norm of a symmetric d x d matrix whose upper triangle is i.i.d. N(0, sigma^2), exceeded
    with probability about beta: E||E|| <= 2 sigma sqrt(d) (up to lower-order terms), and ||E|| is a
    sqrt(2) sigma-Lipschitz function of the independent entries, so it exceeds its mean by s with probability at
    most exp(-s^2 / (4 sigma^2)) (Gaussian concentration): s = 2 sigma sqrt(ln(1/beta))."""
    return sigma * (2.0 * math.sqrt(d) + 2.0 * math.sqrt(math.log(1.0 / beta)))


def spectral_norm(A: np.ndarray) -> float:
    """||A||_2, the largest singular value."""
    return float(np.sqrt(np.linalg.eigvalsh(A.T @ A)[-1]))


def reads_rows(radius: float, norm_A: float) -> bool:
    """Whether a step at ``radius`` with a map of spectral norm ``norm_A`` reads the rows: below ||A||_2 (up to
    rounding) a row of norm <= 1 may map beyond the radius; at or above, none does and the Gram matrix serves."""
    return radius < norm_A * (1.0 - 1e-12)


def clipped_gram(data, A: np.ndarray, radius: float, norm_A: float | None = None, check: bool = True) -> np.ndarray:
    """sum_i w_i w_i^T for w_i = A x_i clipped to norm ``radius``. When radius >= ||A||_2 (``norm_A``; up to
    rounding) no row is clipped (every row has norm <= 1) and the sum is A (X^T X) A^T, read from the Gram matrix
    without the rows. Else the rows are read a block of :data:`CHUNK_ROWS` at a time (``data.row_blocks``, ``check``
    as there: no copy of X), mapped, measured and clipped in one compiled pass whose bits do not depend on the path
    (:func:`dppca_core.compiled.kernels.clipped_whitened`), and each block's clipped rows added by one product."""
    if not reads_rows(radius, spectral_norm(A) if norm_A is None else norm_A):
        return A @ data.gram @ A.T
    d = data.d
    out = np.zeros((d, d))
    components = np.ascontiguousarray(A.T)
    buf = np.empty((min(CHUNK_ROWS, data.n), d))
    for _, block in data.row_blocks(CHUNK_ROWS, check):
        W = clipped_whitened(block, components, radius, buf[: block.shape[0]])
        out += W.T @ W
    return out


def _inverse_sqrt(U: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((U + U.T) / 2.0)
    return (vectors / np.sqrt(values)) @ vectors.T


def _psd_part(Z: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((Z + Z.T) / 2.0)
    return (vectors * np.maximum(values, 0.0)) @ vectors.T


def sampling_eta(n: int, d: int) -> float:
    """The authors' code's inflation of each ellipsoid: (2 sqrt(d/n) + d/n) / 2, a bound on the sampling error of
    a whitened Gaussian second moment (it ignores the privacy noise)."""
    return 0.5 * (2.0 * math.sqrt(d / n) + d / n)


def coinpress_steps(data, mus, prior: float, beta: float, rng: np.random.Generator, eta_rule: str = "sampling") -> dict:
    """The CoinPress iterations (Algorithm 3, one step per entry of ``mus``) on rows of norm <= 1.

    Step t: radius r_t = min(gamma, ||A_t||_2) (a row of norm <= 1 maps to norm <= ||A_t||_2, so the data bound
    can only lower the paper's radius gamma); Y_t = clipped whitened Gram + symmetric Gaussian noise of s.d.
    sigma_t = sqrt(2) r_t^2 / mu_t; Z_t = Y_t / n estimates A_t Sigma A_t^T (Sigma = X^T X / n). Before the next
    step, U_t = PSD(Z_t) + eta_t I with eta_t the authors' sampling term (:func:`sampling_eta`, ``eta_rule``
    "sampling") or a bound on the noise's spectral norm ("noise"), and A_{t+1} = U_t^{-1/2} A_t.
    Returns the last Z and A (the estimate of Sigma is A^{-1} Z A^{-T}) and every step's public quantities.
    """
    n, d = data.n, data.d
    gamma = whitened_radius(d, beta)
    A = np.eye(d) / math.sqrt(prior)
    steps = {"whitening": [], "radii": [], "noise_sd": [], "eta": [], "mus": []}
    Z, read = None, False
    for t, mu_t in enumerate(mus):
        norm_A = spectral_norm(A)
        radius = min(gamma, norm_A)
        delta_2 = sensitivity("gram_upper", "replace") * radius**2
        sigma = delta_2 / mu_t
        # the rows are checked against their stored factors by the first step that reads them, not again
        Y = clipped_gram(data, A, radius, norm_A, check=not read) + symmetric_gaussian(d, sigma, rng)
        read = read or reads_rows(radius, norm_A)
        Z = Y / n
        eta = wigner_norm_bound(d, sigma / n, beta) if eta_rule == "noise" else sampling_eta(n, d)
        for key, value in (
            ("whitening", A.copy()),
            ("radii", radius),
            ("noise_sd", sigma),
            ("eta", eta),
            ("mus", delta_2 / sigma),
        ):
            steps[key].append(value)
        if t + 1 < len(mus):
            A = _inverse_sqrt(_psd_part(Z) + eta * np.eye(d)) @ A
    steps.update(Z=Z, A=A, gamma=gamma)
    return steps


def coinpress_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """The exact likelihood ratio of every step (the registry's ``audit_design`` hook), d = 2.

    D holds the canary e1 in row 0 and a background of unit rows alternating e2, e1 (AUDIT_ROWS rows in all);
    D' replaces the canary by e2. With this isotropic background every ellipsoid is close to a multiple of the
    identity, so the mapped canaries A_t e1 and A_t e2 are orthogonal, on the axes and of norm about ||A_t||_2 = r_t:
    each step's noisy Gram moves by nearly its whole sensitivity sqrt(2) r_t^2. The test knows each A_t (published:
    ``outputs["whitening"]``) and recovers each step's noisy Gram from the release: the earlier ones from the next
    ellipsoid (U_t = (A_{t+1} A_t^{-1})^{-2}, the PSD projection being inactive on this data), the last one from
    the full spectrum (k = d). The score is the exact Gaussian log-likelihood ratio of D' against D summed over the
    steps, the test every Gaussian composition is tight for.
    """
    if statistic not in ("auto", "step_likelihood"):
        return None
    if neighbors != "replace":
        raise ValueError(
            "CoinPress has a guarantee for replace-one neighbours only; audit it with neighbors='replace'."
        )
    if d != 2:
        raise ValueError("the CoinPress design is written for d = 2; audit it with d=2.")
    background = np.tile(np.eye(2)[[1, 0]], (AUDIT_ROWS // 2, 1))[: AUDIT_ROWS - 1]
    D = prepare(np.vstack([np.eye(2)[0], background]))
    D_prime = prepare(np.vstack([np.eye(2)[1], background]))

    def score(published: dict) -> float:
        out = published["outputs"]
        whitening = [np.asarray(A, dtype=float) for A in out["whitening"]]
        grams = _recovered_grams(published, whitening)
        llr = 0.0
        for A, radius, sigma, Y in zip(whitening, out["clip_radii"], out["noise_sd"], grams):
            norm_A = spectral_norm(A)
            mean_d = clipped_gram(D, A, radius, norm_A)[UPPER_2]
            shift = clipped_gram(D_prime, A, radius, norm_A)[UPPER_2] - mean_d
            llr += (float(shift @ (Y[UPPER_2] - mean_d)) - 0.5 * float(shift @ shift)) / sigma**2
        return llr

    return AuditDesign(
        D,
        D_prime,
        2,
        score,
        "step_likelihood",
        note=f"every step's noisy Gram (canary e1 / e2, an isotropic background of "
        f"{AUDIT_ROWS - 1} unit rows): the exact likelihood ratio over the steps",
    )


#: the upper triangle of a 2 x 2 matrix (the audit design's d)
UPPER_2 = np.triu_indices(2)


def _recovered_grams(published: dict, whitening: list) -> list:
    """Each step's noisy whitened Gram Y_t from a release with k = d (see :func:`coinpress_audit_design`)."""
    out = published["outputs"]
    n = published["parameters"]["n"]
    grams = []
    for t in range(len(whitening) - 1):
        step = whitening[t + 1] @ np.linalg.inv(whitening[t])  # U_t^{-1/2}
        U = np.linalg.inv(step @ step)
        grams.append(n * (U - out["eta"][t] * np.eye(U.shape[0])))
    V = np.asarray(published["components"], dtype=float)
    values = np.asarray(published["eigenvalues"], dtype=float)
    A = whitening[-1]
    grams.append(A @ ((V * values) @ V.T) @ A.T)
    return grams


# CoinPress's rate holds once its ellipsoids have converged (eta_t ~ noise / n small): from n = 16,000 at
# epsilon = 1 on the central law (at 2,000 the slope is -1.5, the whitening still improving with n).
COINPRESS_RATE = Rate(
    "Biswas et al. 2020, read for the subspace: whitened noise sigma(eps, delta) gamma^2 / sqrt(w_T) on a Gram "
    "matrix whose spikes are ~1: sigma gamma^2 sqrt(k(d-k)) / (sqrt(w_T) n) x sqrt(lambda_k lambda_k+1) / gap, "
    "gamma^2 ~ d + 2 sqrt(d ln 10) + 2 ln 10, w_T = 3/4",
    # the last step's noise in whitened units (3/4 of mu^2), where the planted spikes are ~1
    terms=lambda p: (p.gram_sigma * whitened_radius(p.d, 0.1) ** 2 / math.sqrt(0.75) * p.spread / p.n, p.statistical),
    regimes=privacy_regimes(
        "ellipsoids converged: the last step's whitened noise sigma gamma^2 / sqrt(3/4) over spikes of ~1",
        "noise sigma(eps, delta) of the last step, ellipsoids converged",
        n={"grid": (16000, 64000, 256000)},
        eps={"n": 64000, "grid": (1.0, 2.0, 4.0)},
        reps=8,
    ),
)


@n_public_mechanism(
    name="coinpress",
    rate=COINPRESS_RATE,
    title="CoinPress (iterative private covariance)",
    paper=PAPER_COINPRESS,
    needs_rows=True,
    releases_eigenvalues=True,
    audit_statistic="step_likelihood",
    audit_descriptions={
        "step_likelihood": "the exact Gaussian likelihood ratio of every step's noisy Gram matrix, "
        "rebuilt from the published ellipsoids and the full spectrum (the test "
        "every Gaussian composition is tight for)"
    },
    audit_design=coinpress_audit_design,
    params=(
        Param(
            "iterations",
            "int",
            4,
            "Number of CoinPress steps t (data-independent); each shrinks the confidence "
            "ellipsoid once. 1 step is Analyze Gauss with the whole budget.",
            low=1,
            high=20,
        ),
        Param(
            "final_share",
            "float",
            0.75,
            "Share of the budget (of rho, i.e. of mu^2) spent on the last step; the "
            "others split the rest evenly (the paper's experiments use 3/4).",
            low=0.05,
            high=1.0,
        ),
        Param(
            "prior",
            "float",
            1.0,
            "Public upper bound u on the top eigenvalue of the per-row second moment "
            "X^T X / n, in units of the clipping radius squared (1: only what the clipping radius implies). A "
            "tighter prior needs fewer steps.",
            low=1e-8,
            high=1.0,
            log=True,
        ),
        Param(
            "beta",
            "float",
            0.1,
            "Failure probability of the whitened clipping radius and of the noise bound "
            "that inflates each ellipsoid (utility only, not privacy).",
            low=1e-6,
            high=0.5,
            log=True,
        ),
        Param(
            "eta_rule",
            "choice",
            "sampling",
            "How much each ellipsoid is inflated before the next step: "
            "'sampling', the authors' (2 sqrt(d/n) + d/n) / 2, a sampling term that ignores the privacy noise and "
            "shrinks the ellipsoid fast; 'noise', a bound on this step's noise, which keeps every row inside but "
            "shrinks slowly (utility only, not privacy).",
            choices=("sampling", "noise"),
        ),
    ),
    notes=(
        "Private covariance with a loose prior (Biswas et al. 2020): step t maps every row by a public matrix A_t "
        "(A_1 = I / sqrt(u)), clips the mapped rows to r_t = min(gamma, ||A_t||_2) with gamma^2 = d + "
        "2 sqrt(d ln(1/beta)) + 2 ln(1/beta), releases their second moment with symmetric Gaussian noise, and sets "
        "A_{t+1} = (PSD(Z_t) + eta_t I)^(-1/2) A_t. The last step's estimate mapped back, A^-1 Z A^-T, is the "
        "covariance; its top-k eigenpairs are released (post-processing). Sensitivity of each step's Gram: "
        "sqrt(2) r_t^2 under replace-one (n public, as in the paper's normalised estimate); mu_t = sqrt(w_t) mu "
        "with mu = mu*(epsilon, delta) and the paper's split w (last step 3/4, the others share 1/4): the steps "
        "compose exactly in Gaussian DP, which is the paper's zCDP split read with rho = mu^2 / 2, converted to "
        "(epsilon, delta) exactly instead of by rho + 2 sqrt(rho ln(1/delta)). Departures, both utility only: "
        "the radius never exceeds ||A_t||_2 (a row of norm <= 1 cannot map further), and eta_rule='noise' offers "
        "an inflation that bounds the spectral norm of the step's noise (2 sqrt(d) + 2 sqrt(ln(1/beta)) noise s.d.s, "
        "Gaussian concentration). "
        "Published beyond the components and eigenvalues: each step's map A_t, radius, noise s.d. and eta_t "
        "(functions of the earlier released steps). eta_t is the authors' sampling term (2 sqrt(d/n) + d/n) / 2 by "
        "default ('noise': a bound on the step's noise, safer and slower). It beats Analyze Gauss when the rows lie "
        "well inside the "
        "clipping radius (a loose radius): the noise then shrinks with the ellipsoid, while Analyze Gauss's stays "
        "at the radius. When the rows fill the radius, the split budget costs it."
    ),
)
def coinpress(data, k, epsilon, delta, neighbors, rng, iterations, final_share, prior, beta, eta_rule):
    if iterations > 1 and final_share >= 1.0:
        raise ValueError(
            "final_share = 1 leaves nothing for the earlier steps; choose final_share < 1 or " "iterations = 1."
        )
    mus = split_mu(gaussian_mu(epsilon, delta), step_weights(iterations, final_share))
    steps = coinpress_steps(data, mus, prior, beta, rng, eta_rule)
    inverse = np.linalg.inv(steps["A"])
    estimate = data.n * inverse @ steps["Z"] @ inverse.T  # of X^T X, post-processing of the released steps
    values, vectors = top_eigenvectors(estimate, k)
    # the first step's noise s.d. is public (r_1 = min(gamma, 1 / sqrt(u))); the later ones are in outputs
    return Output(
        vectors,
        noise_scale=steps["noise_sd"][0],
        eigenvalues=values,
        privacy=PrivacyCurve.gdp(composed_mu(mus)),
        outputs={
            "whitening": steps["whitening"],
            "clip_radii": steps["radii"],
            "noise_sd": steps["noise_sd"],
            "eta": steps["eta"],
        },
        facts={
            "iterations": iterations,
            "step_mu": mus,
            "gamma": steps["gamma"],
            "noise_on": "upper(sum of clipped whitened w w^T), each step",
        },
    )

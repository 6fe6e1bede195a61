"""Trace-sensitive covariance (Dong, Liang & Yi, NeurIPS 2022, "Differentially Private Covariance Revisited").

The covariance is released as its eigenvectors and its eigenvalues separately: the eigenvectors are those of
C + E (the Gaussian mechanism on the upper triangle of C = X^T X, as Analyze Gauss), the eigenvalues are the
exact spectrum of C plus Gaussian noise (l2 sensitivity sqrt(2) under replace-one, by Hoffman-Wielandt). The
estimate P~ Lambda~ P~^T has Frobenius error O~(d^(1/4) sqrt(tr / n) + sqrt(d) / n) in the paper's normalisation
(Sigma = C / n, rho-zCDP with rho constant), against O~(d / n) for the noisy matrix itself: the eigenvector error
is weighted by eigenvalues that are accurate, so a small trace (or a spectrum that falls fast) keeps it small.
For the subspace alone it is Analyze Gauss with part of the budget.

With ``route="auto"`` (the choice the paper's combined routine makes, without its clipping step, which is
:mod:`.tail_sensitive`) a share of the budget buys a private trace first, and that value alone picks the release with
the smaller predicted error: this algorithm or the Gaussian mechanism (Analyze Gauss) on the rest of the budget.
"""

from __future__ import annotations

import math

import numpy as np

from ..audit.design import AuditDesign
from ..linalg import symmetric_gaussian, top_eigenvectors
from ..data.prepare import prepare
from ..privacy import PrivacyCurve, composed_mu, gaussian_mu, sensitivity, split_mu, summation_error
from ..registry import Output, Param
from .sources import n_public_mechanism
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


def private_trace(value: float, computation_error: float, mu_trace: float, rng: np.random.Generator):
    """The private trace both of Dong, Liang & Yi's routines start with: (tr C + Gaussian noise, on its grid; the
    noise's calibration). ``value`` is the computed tr C = sum_i ||x_i||^2 (sensitivity 1 under replace-one: one
    term in [0, 1] changes) and ``computation_error`` a bound on its rounding; released with exact noise on a grid
    (:func:`dppca_core.privacy.shares.release_vector`) at GDP parameter ``mu_trace``."""
    trace, noise = release_vector(
        [float(value)],
        Share(1.0, 0.0, 0.0, mu=mu_trace),
        rng,
        l2=sensitivity("gram_trace", "replace"),
        l1=np.inf,
        computation_error=computation_error,
        name="trace",
    )
    return float(trace[0]), noise


def noise_error(
    radius: float, trace: float, d: int, n: int, mu_vectors: float, mu_values: float, vector_factor: float = 1.0
) -> float:
    """The Frobenius error (of Sigma = C / n) the trace-sensitive algorithm adds on rows clipped at ``radius`` (public:
    a function of released values), the level the tail-sensitive sparse vector step and the route choice compare.

    Its two terms are those of the paper's bound O~(d^(1/4) sqrt(tr / n) + sqrt(d) / n), at their expected size: the
    eigenvalues' noise, sigma_lambda sqrt(d) / n, and the eigenvectors' error, 2 sqrt(tr ||E||_2 / n) times
    ``vector_factor``, with ||E||_2 ~ 2 sigma_v sqrt(d) (the edge of the semicircle of a symmetric Gaussian matrix) and
    tr = min(trace, radius^2) the trace of the clipped rows' Sigma. Both noise s.d.s scale with radius^2 (sensitivity
    sqrt(2) radius^2).
    """
    sd_vectors = math.sqrt(2.0) * radius**2 / mu_vectors
    sd_values = math.sqrt(2.0) * radius**2 / mu_values
    vectors = 2.0 * math.sqrt(min(max(trace, 0.0), radius**2) * 2.0 * sd_vectors * math.sqrt(d) / n)
    return vector_factor * vectors + sd_values * math.sqrt(d) / n


#: The route choice takes the eigenvector term of :func:`noise_error` at 1/6 of its size, as the authors' code's
#: combined routine does with its own bound: the bound is a worst case over spectra (measured on their trace-1
#: generator, n = 1,000, d = 100: 0.85 predicted against 0.14 measured), the Gaussian mechanism's is its exact rms.
ROUTE_VECTOR_FACTOR = 1.0 / 6.0
ROUTES = ("trace", "auto")
ROUTE_TRACE_SHARE = 0.125  # the authors' combined routine spends rho / 8 on its trace


def gaussian_error(d: int, n: int, mu: float) -> float:
    """The Frobenius error (of Sigma = C / n) of the Gaussian mechanism at GDP parameter ``mu``: its noise matrix E
    (d^2 entries of variance sigma^2, sigma = sqrt(2) / mu) has E ||E||_F^2 = sigma^2 d^2, so sigma d / n in rms."""
    return math.sqrt(2.0) / mu * d / n


def route_errors(radius: float, trace_sigma: float, d: int, n: int, mu_main: float, vector_share: float) -> dict:
    """The two predicted Frobenius errors (of Sigma = C / n) the route compares, on rows clipped at ``radius``, both
    at the budget ``mu_main`` left for the release: {"trace": the trace-sensitive release's (:func:`noise_error`, its
    eigenvector term times ROUTE_VECTOR_FACTOR, ``vector_share`` of mu_main^2 on the eigenvectors), "gauss": the
    Gaussian mechanism's (:func:`gaussian_error`)}. Both noise s.d.s scale with radius^2 (sensitivity sqrt(2)
    radius^2); ``trace_sigma`` is the private trace of Sigma. Public values only."""
    mu_vectors, mu_values = split_mu(mu_main, (vector_share, 1.0 - vector_share))
    return {
        "trace": noise_error(radius, trace_sigma, d, n, mu_vectors, mu_values, ROUTE_VECTOR_FACTOR),
        "gauss": radius**2 * gaussian_error(d, n, mu_main),
    }


def choose_route(trace_sigma: float, d: int, n: int, mu_main: float, vector_share: float, radius: float = 1.0) -> str:
    """The route: "trace" when the trace-sensitive release's predicted error is below the Gaussian mechanism's
    (:func:`route_errors`, at ``radius``: 1 here, the clipping radius in :mod:`.tail_sensitive`), else "gauss".
    Post-processing of the private trace (and radius): public values only."""
    errors = route_errors(radius, trace_sigma, d, n, mu_main, vector_share)
    return "trace" if errors["trace"] < errors["gauss"] else "gauss"


def branch_parts(data, route: str, mu_main: float, vector_share: float, rng: np.random.Generator) -> dict:
    """The branch ``route`` picked, run on ``data`` (rows in the unit ball) at ``mu_main``: "trace", the trace-sensitive
    pair (:func:`noisy_parts`, split by ``vector_share``); "gauss", the Gaussian mechanism's noisy matrix C + E alone
    (Analyze Gauss: its eigenvalues are those of the noisy matrix, post-processing). Either is at most mu_main-GDP
    (the trace branch a hair less: its spectrum's grid)."""
    if route == "trace":
        mu_vectors, mu_values = split_mu(mu_main, (vector_share, 1.0 - vector_share))
        matrix, values, noise = noisy_parts(data, mu_vectors, mu_values, rng)
        return {
            "matrix": matrix,
            "values": values,
            "matrix_sd": math.sqrt(2.0) / mu_vectors,
            "values_sd": noise.noise_scale,
        }
    matrix_sd = sensitivity("gram_upper", "replace") / mu_main
    return {
        "matrix": data.gram + symmetric_gaussian(data.d, matrix_sd, rng),
        "values": None,
        "matrix_sd": matrix_sd,
        "values_sd": None,
    }


def route_parts(data, mu_trace: float, mu_main: float, vector_share: float, rng: np.random.Generator) -> dict:
    """The releases of the auto route, in order: the private trace (:func:`private_trace`), the route it picks
    (:func:`choose_route`), then the chosen branch at ``mu_main`` (:func:`branch_parts`). The curve of the whole
    composes the trace with the branch's total, mu_main, whichever ran (the trace branch spends a hair less: its
    grid)."""
    gram_trace = float(np.trace(data.gram))
    # d diagonal entries, each within gram_error, then their sum (at most n): a bound on n and d alone, so the noise
    # scale published with the trace does not depend on the rows
    error = data.d * data.gram_error + summation_error(data.d, data.n)
    trace, trace_noise = private_trace(gram_trace, error, mu_trace, rng)
    route = choose_route(float(np.clip(trace / data.n, 0.0, 1.0)), data.d, data.n, mu_main, vector_share)
    parts = {"route": route, "trace": trace, "trace_sd": trace_noise.noise_scale}
    parts.update(branch_parts(data, route, mu_main, vector_share, rng))
    parts["curve"] = PrivacyCurve.gdp(composed_mu([trace_noise.curve().mu, mu_main]))
    return parts


def trace_sensitive_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """Both Gaussian releases of the proof, attacked together (the registry's ``audit_design`` hook), d = 2.

    The proof composes two Gaussian mechanisms: the noisy matrix (whose eigenvectors are published) and the noisy
    spectrum. The design attacks that pair (:func:`noisy_parts`), the level the guarantee is stated at: the
    canary e1 (D) or e2 (D') on a background of AUDIT_BACKGROUND rows along e1 and e2, so that the matrix moves by
    upper(e2 e2^T - e1 e1^T) (its whole sensitivity sqrt(2)) and the spectrum by (-1, +1) (its whole sqrt(2)) at
    once. The score is the exact Gaussian log-likelihood ratio of D' against D over both.
    """
    if statistic == "route_auto":
        return route_audit_design(d, neighbors)
    if statistic not in ("auto", "both_parts"):
        return None

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

    note = "both Gaussian releases the proof composes (the noisy matrix and the noisy spectrum; {canary})"
    return canary_design("trace_sensitive", neighbors, d, AUDIT_BACKGROUND, "both_parts", release, note)


def route_audit_design(d: int, neighbors: str) -> AuditDesign:
    """route="auto" attacked as a whole (statistic "route_auto"), d = 2: the canary pair of the both-parts design,
    the release runs every part of the route (private trace, choice, chosen branch) at the default shares.

    Both neighbours have the same trace (every row has norm 1), so the route is chosen alike on both, and at d = 2 it
    is the Gaussian branch (its predicted error equals the trace branch's eigenvalue term alone, :func:`choose_route`):
    the score is the exact likelihood ratio over the noisy matrix, which moves by its whole sensitivity sqrt(2). It
    reaches the branch's share of mu^2 (7/8), not the trace's. The trace branch is :func:`noisy_parts`, which the
    both-parts design attacks.
    """

    def release(data, rng, epsilon, delta, neighbors):
        mu_trace, mu_main = split_mu(gaussian_mu(epsilon, delta), (ROUTE_TRACE_SHARE, 1.0 - ROUTE_TRACE_SHARE))
        parts = route_parts(data, mu_trace, mu_main, 0.5, rng)
        return published_branch(parts), parts["curve"]

    note = (
        "route auto as a whole (private trace, choice, the Gaussian branch it picks at d = 2; {canary}): the exact "
        "likelihood ratio over the noisy matrix"
    )
    return canary_design("trace_sensitive", neighbors, d, AUDIT_BACKGROUND, "route_auto", release, note)


def published_branch(parts: dict) -> dict:
    """What a route="auto" design's release publishes of the branch that ran (:func:`branch_parts`'s fields): the
    route, the noisy matrix and its noise s.d., and on the trace branch the noisy spectrum and its s.d."""
    published = {"route": parts["route"], "matrix": parts["matrix"].tolist(), "matrix_sd": parts["matrix_sd"]}
    if parts["values"] is not None:
        published.update(values=parts["values"].tolist(), values_sd=parts["values_sd"])
    return published


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


def canary_design(name, neighbors, d, background, statistic, release, note) -> AuditDesign:
    """A design of the both-parts family, d = 2: the :func:`canary_pair` on ``background``, scored by
    :func:`both_parts_score` for ``statistic``, with the mechanism's ``release`` and its ``note`` (where "{canary}"
    stands for the canary's description)."""
    D, D_prime = canary_pair(name, neighbors, d, background)
    a, b = background
    canary = f"canary e1 / e2 on a background of {a} + {b} unit rows along e1, e2"
    return AuditDesign(
        D, D_prime, 2, both_parts_score(D, D_prime), statistic, release=release, note=note.format(canary=canary)
    )


def both_parts_score(D, D_prime):
    """The exact Gaussian log-likelihood ratio of D' against D over a published noisy matrix and noisy spectrum (the
    fields "matrix", "values" and their noise s.d.s "matrix_sd", "values_sd"; the matrix alone without "values_sd")."""
    upper = np.triu_indices(2)
    means = [(data.gram[upper], np.sort(np.linalg.eigvalsh(data.gram))[::-1]) for data in (D, D_prime)]

    def score(published: dict) -> float:
        llr = 0.0
        observed = (np.asarray(published["matrix"])[upper], np.asarray(published.get("values", np.nan)))
        for part, sd in enumerate((published["matrix_sd"], published.get("values_sd"))):
            if sd is None:  # the Gaussian branch of route "auto": the noisy matrix alone
                continue
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


@n_public_mechanism(
    name="trace_sensitive",
    rate=TRACE_SENSITIVE_RATE,
    title="Trace-sensitive covariance (separate eigenvalues and eigenvectors)",
    paper=PAPER_DLY,
    releases_eigenvalues=True,
    audit_statistic="both_parts",
    audit_descriptions={
        "both_parts": "the exact Gaussian likelihood ratio over both releases of the proof, the noisy "
        "matrix and the noisy spectrum, each moved by its whole sensitivity at once",
        "route_auto": "the automatic route run whole (private trace, then the release it picks): the exact "
        "Gaussian likelihood ratio over the noisy matrix of the release it picked",
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
        Param(
            "route",
            "choice",
            "trace",
            "'trace': always the trace-sensitive release. 'auto': spend trace_share of the budget on a private "
            "trace, then run whichever of this release and the Gaussian mechanism (Analyze Gauss) that trace "
            "predicts to be more accurate for the covariance, on the rest of the budget (the paper's choice).",
            choices=ROUTES,
        ),
        Param(
            "trace_share",
            "float",
            ROUTE_TRACE_SHARE,
            "With route 'auto': the share of the budget (of mu^2) for the private trace; unused otherwise.",
            low=0.01,
            high=0.5,
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
        "private clipping radius chosen by the sparse vector technique) is tail_sensitive. With route='auto' "
        "(the paper's choice between the two, without clipping) trace_share of mu^2 buys a private trace "
        "tr C + N(0, 1/mu_t^2); from it alone (post-processing) the route compares the predicted covariance errors "
        "at the rest of the budget, sqrt(2) d / (mu n) for the Gaussian mechanism against this release's "
        "2 sqrt(tr ||E|| / n) / 6 + sigma_lambda sqrt(d) / n, and runs the smaller: this release or Analyze Gauss. "
        "The output 'route' says which ran; trace and branch compose exactly to mu*-GDP."
    ),
)
def trace_sensitive(data, k, epsilon, delta, neighbors, rng, vector_share, route, trace_share):
    if route == "auto":
        return _auto_route(data, k, epsilon, delta, rng, vector_share, trace_share)
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


def _auto_route(data, k, epsilon, delta, rng, vector_share, trace_share):
    """route="auto": the private trace, then the release it picks (:func:`route_parts`). The route, the trace and
    the branch's noise levels are published (post-processing of the private trace); the facts are the same whichever
    branch runs."""
    mu_trace, mu_main = split_mu(gaussian_mu(epsilon, delta), (trace_share, 1.0 - trace_share))
    parts = route_parts(data, mu_trace, mu_main, vector_share, rng)
    noisy_values, vectors = top_eigenvectors(parts["matrix"], data.d)
    values = noisy_values if parts["route"] == "gauss" else parts["values"]
    spectrum = np.clip(np.sort(values)[::-1], 0.0, float(data.n))  # post-processing: sorted, in [0, n]
    outputs = {
        "route": parts["route"],
        "spectrum": spectrum,
        "trace": parts["trace"],
        "trace_noise_sd": parts["trace_sd"],
    }
    if parts["values_sd"] is not None:
        outputs["eigenvalue_noise_sd"] = parts["values_sd"]
    return Output(
        vectors[:, :k],
        noise_scale=float(parts["matrix_sd"]),
        eigenvalues=spectrum[:k],
        privacy=parts["curve"],
        outputs=outputs,
        facts={
            "mu_trace": mu_trace,
            "mu_main": mu_main,
            "noise_on": "tr(X^T X); then upper(X^T X) and its spectrum (route trace) or upper(X^T X) alone "
            "(route gauss, the Gaussian mechanism)",
        },
    )

"""Tail-sensitive covariance (Dong, Liang & Yi, NeurIPS 2022, "Differentially Private Covariance Revisited", the
second algorithm): the trace-sensitive algorithm (:mod:`.trace_sensitive`) run on the rows clipped at a radius tau <= 1
chosen privately with the sparse vector technique.

Rows of norm far below the public bound (skewed data: most rows short, a few long) waste the Gaussian noise, which
is calibrated to the bound: clipping at tau scales every sensitivity, hence every noise s.d., by tau^2, at the cost of
a bias, the clipping excess sum_i max(||x_i||^2 - tau^2, 0) / n in Frobenius norm. The radius is the first of the
candidates tau_j = 2^-j where that excess outgrows the noise error the algorithm would add at tau_j (AboveThreshold),
and one step above it. Privacy, under replace-one (n public): a private trace (Gaussian), the sparse vector step
(pure epsilon_0-DP: each query moves by less than 1) and the two Gaussian releases of the trace-sensitive algorithm on
the clipped rows, composed exactly in Gaussian DP (the pure step through its exact GDP conversion).

With ``route="auto"`` it is the paper's combined routine (as the authors' code runs it): the queries set the excess
against the smaller of the Gaussian mechanism's predicted error and this algorithm's, and at the radius the smaller
of the two picks the release (:func:`.trace_sensitive.choose_route`, shared with trace_sensitive's own route).
"""

from __future__ import annotations

import math

import numpy as np

from ..audit.design import AuditDesign
from ..compiled.kernels import COMPILE_MIN_WORK
from ..compiled.loops import row_sq_norms
from ..data.first_pass import prepare_rescaled
from ..linalg import top_eigenvectors
from ..privacy import (
    PrivacyCurve,
    composed_mu,
    gaussian_mu,
    grid_step,
    pure_epsilon_for_mu,
    pure_to_gdp_mu,
    sensitivity,
    sparse_vector_scales,
    split_mu,
    summation_error,
)
from ..privacy.exact import exact_scale, noisy_on_grid
from ..registry import Output, Param
from .sources import n_public_mechanism
from .rates import gram_noise_rate
from .trace_sensitive import (
    branch_parts,
    canary_design,
    noise_error,
    noisy_parts,
    private_trace,
    published_branch,
)

PAPER_DLY_TAIL = (
    "Dong, Liang & Yi, Differentially Private Covariance Revisited (NeurIPS 2022), the tail-sensitive " "algorithm"
)
#: Background of the audit design: unit rows along e1 and e2, far apart in number (the noisy spectrum keeps its
#: order inside [0, n]) and many (the clipping excess at tau = 1/2 is ~1,500, so the sparse vector step keeps tau = 1)
AUDIT_BACKGROUND = (1500, 500)
#: default shares of mu^2 (of rho): the sparse vector step, the trace, and the eigenvectors' part of the rest
DEFAULT_SHARES = (0.125, 0.125, 0.5)
#: candidate radii 1, 1/2, ..., 2^-(L-1): route "tail" 12 (down to R/2048); route "auto" the authors' 80 (to 2^-79)
DEFAULT_LEVELS = 12
AUTO_LEVELS = 80
#: "tail": always the trace-sensitive release on the clipped rows; "auto": the combined routine (tail_parts)
ROUTES = ("tail", "auto")
#: the failure probability of the authors' tail bounds (their default --beta), which route "auto" steers by
AUTHORS_BETA = 0.1


def candidate_radii(levels: int) -> np.ndarray:
    """The candidate clipping radii 1, 1/2, 1/4, ... (``levels`` of them, in units of the public bound R)."""
    return 2.0 ** -np.arange(int(levels), dtype=float)


def clipping_excess(sq_norms: np.ndarray, radius: float, out: np.ndarray | None = None) -> float:
    """sum_i max(||x_i||^2 - radius^2, 0): n times the Frobenius bound on the bias of clipping at ``radius``. ``out``
    (the shape of ``sq_norms``): the terms are written there, not into new arrays (the same terms, the same sum)."""
    terms = np.subtract(sq_norms, radius * radius, out=out)
    return float(np.sum(np.maximum(terms, 0.0, out=terms)))


def above_threshold(queries, epsilon: float, computation_error: float, rng: np.random.Generator) -> tuple[int, float]:
    """AboveThreshold (Dwork & Roth 2014, Algorithm 1) against the threshold 0, with exact noise on a grid: (the index
    of the first query whose noisy value reaches the noisy threshold, or len(queries); the epsilon it spends).

    Each query moves by less than 1 between neighbours (``clipping_excess``), and its computed value by at most
    ``computation_error`` more. On the grid gamma the rounded queries move by at most ``shift`` = ceil(1 / gamma + 1 +
    2 e / gamma) steps, a whole number: the proof's shifts (the threshold by ``shift``, the stopping query by 2 ``shift``)
    then map the rounded Laplace noise onto itself with a probability ratio of at most e^(shift / b) per shift, as for
    continuous noise, so the scales 2 shift / epsilon and 4 shift / epsilon (in steps) make the index epsilon-DP.
    """
    step = grid_step(sparse_vector_scales(sensitivity("clipping_excess", "replace"), epsilon)[0])
    shift = math.ceil(sensitivity("clipping_excess", "replace") / step + 1.0 + 2.0 * computation_error / step)
    threshold_scale, query_scale = (exact_scale(b) for b in sparse_vector_scales(shift, epsilon))
    threshold = noisy_on_grid(np.zeros(1), step, threshold_scale, rng, laplace=True, name="threshold")[0]
    noisy = noisy_on_grid(np.asarray(queries, dtype=float), step, query_scale, rng, laplace=True, name="queries")
    above = np.flatnonzero(noisy >= threshold)  # every query's noise drawn: the same law as drawing until the stop
    spent = max(2.0 * shift / float(threshold_scale), 4.0 * shift / float(query_scale))
    return (int(above[0]) if above.size else len(noisy)), spent


def budget(epsilon: float, delta: float, svt_share: float, trace_share: float, vector_share: float) -> dict:
    """The GDP parameter of each part, sharing mu*(epsilon, delta)^2 (the paper's shares of rho): the sparse vector
    step (as the pure epsilon whose exact GDP conversion is its mu), the trace, the release after them ("mu_main") and
    its split between the eigenvectors and the eigenvalues ("vector_share" of mu_main^2)."""
    rest = 1.0 - svt_share - trace_share
    if not (svt_share > 0 and trace_share > 0 and rest > 0):
        raise ValueError(
            f"the sparse vector and trace shares must be > 0 and leave a part for the covariance (got "
            f"{svt_share:g} and {trace_share:g})."
        )
    mu_svt, mu_trace, mu_main = split_mu(gaussian_mu(epsilon, delta), (svt_share, trace_share, rest))
    mu_vectors, mu_values = split_mu(mu_main, (vector_share, 1.0 - vector_share))
    return {
        "epsilon_svt": pure_epsilon_for_mu(mu_svt),
        "mu_trace": mu_trace,
        "mu_main": mu_main,
        "vector_share": vector_share,
        "mu_vectors": mu_vectors,
        "mu_values": mu_values,
    }


def predicted_error(radius: float, trace_sigma: float, d: int, n: int, mus: dict) -> float:
    """The Frobenius error (of Sigma = C / n) the trace-sensitive algorithm would add on rows clipped at ``radius``, the
    level route "tail"'s sparse vector queries set the clipping excess against (public: a function of the released
    trace of Sigma ``trace_sigma`` and of public values; :func:`noise_error`)."""
    return noise_error(radius, trace_sigma, d, n, mus["mu_vectors"], mus["mu_values"])


def gaussian_tailbound(d: int, b: float) -> float:
    """sqrt(d + 2 sqrt(d ln(1/b)) + 2 ln(1/b)): a standard Gaussian vector of R^d exceeds it with probability at most b
    (Laurent & Massart 2000), the authors' bound on the eigenvalue noise's norm."""
    return math.sqrt(d + 2.0 * math.sqrt(d * math.log(1.0 / b)) + 2.0 * math.log(1.0 / b))


def wigner_tailbound(d: int, b: float) -> float:
    """The authors' bound, at failure probability b, on the spectral norm of a d x d symmetric matrix of standard
    Gaussian entries (about 2 sqrt(d) times (1 + theta), plus a concentration term)."""
    theta = min((math.log(d) / d) ** 0.3, 0.5)
    edge = (1.0 + theta) * (2.0 * math.sqrt(d) + 6.0 * math.sqrt(math.log(d)) / math.sqrt(math.log(1.0 + theta)))
    return edge + math.sqrt(2.0 * math.log(2.0 / b))


def wigner_fnormbound(d: int, b: float) -> float:
    """The authors' bound, at failure probability b, on the Frobenius norm of the same matrix (about d)."""
    spread = 2.0 * math.sqrt(d * math.log(2.0 / b)) * (1.0 + math.sqrt(2.0 * (d - 1)))
    return math.sqrt(d * d + spread + 6.0 * math.log(2.0 / b))


def authors_terms(trace_sigma: float, d: int, n: int, mus: dict, beta: float = AUTHORS_BETA) -> dict:
    """The three terms of the authors' combined routine (their ``AdaptiveCov``), in units of Sigma = C / n for rows of
    norm <= 1, each a tail bound at failure probability 3 beta / 4 on the noise of the release after the trace and
    the sparse vector step (mu_main, split by vector_share): "vectors", 2 sqrt(trace nu sigma_v) / 6 (the eigenvector
    term of the separate release, nu the bound on a symmetric Gaussian matrix's spectral norm, taken at 1/6 as theirs);
    "values", eta sigma_lambda (the noisy eigenvalues, eta the bound on a Gaussian vector's norm); "gauss", omega
    sigma_g (the Gaussian mechanism's noise matrix, omega the bound on its Frobenius norm). Public values only."""
    beta_main = 0.75 * beta
    mu_vectors, mu_values = split_mu(mus["mu_main"], (mus["vector_share"], 1.0 - mus["vector_share"]))
    sd = {name: math.sqrt(2.0) / (n * mu) for name, mu in (("v", mu_vectors), ("l", mu_values), ("g", mus["mu_main"]))}
    return {
        "vectors": 2.0 * math.sqrt(trace_sigma * wigner_tailbound(d, 0.5 * beta_main) * sd["v"]) / 6.0,
        "values": gaussian_tailbound(d, 0.5 * beta_main) * sd["l"],
        "gauss": wigner_fnormbound(d, beta_main) * sd["g"],
    }


def authors_offsets(radii: np.ndarray, terms: dict) -> np.ndarray:
    """What each of route "auto"'s queries sets the excess against, per row (times n gives the query's offset), as the
    authors' code scales the terms of :func:`authors_terms` with the radius tau: the smaller of tau times the Gaussian
    mechanism's term (tau, not the tau^2 its noise scales by) and tau times the eigenvector term plus tau^2 times the
    eigenvalue term."""
    return np.minimum(radii * terms["gauss"], radii * terms["vectors"] + radii**2 * terms["values"])


def authors_branch(stop_radius: float, terms: dict) -> str:
    """The branch the authors' routine picks, reading the terms at the radius where the walk stopped (the rows are
    clipped one step above it): "gauss" when the separate release's tau terms + tau^2 terms are not below the Gaussian
    mechanism's tau^2 term, else "trace". Public values only."""
    separate = stop_radius * terms["vectors"] + stop_radius**2 * terms["values"]
    return "gauss" if separate >= stop_radius**2 * terms["gauss"] else "trace"


def clipped_unit_rows(data, norms: np.ndarray, radius: float, check: bool = True):
    """The rows of ``data`` clipped at ``radius`` and divided by it (back in the unit ball), prepared: n and their
    Gram matrix, formed a block at a time without a copy of the rows (:func:`dppca_core.data.first_pass.
    prepare_rescaled`: the bits of preparing the clipped copy; ``check`` as there)."""
    scale = np.divide(1.0, norms, out=np.full(len(norms), 1.0 / radius), where=norms > radius)
    return prepare_rescaled(data, scale, check)


def row_sq_norms_of(data) -> np.ndarray:
    """The squared norm of every row of ``data``, each summed in column order (the bits of
    :func:`dppca_core.compiled.loops.row_sq_norms` of ``data.rows``), the rows formed a block at a time."""
    compiled = data.n * data.d >= COMPILE_MIN_WORK  # the same bits either way: speed only
    out = np.empty(data.n)
    for a, block in data.row_blocks():
        out[a : a + block.shape[0]] = row_sq_norms(block, compiled)
    return out


def tail_parts(data, mus: dict, levels: int, rng: np.random.Generator, route: str = "tail") -> dict:
    """The releases of the proof, in order: the noisy trace, the sparse vector step's stop, then, on the rows clipped
    at the radius and divided by it (unit scale), the trace-sensitive algorithm's two Gaussian releases (route "tail";
    route "auto": the branch the authors' routine picks, :func:`authors_branch`, that pair or the Gaussian mechanism's
    noisy matrix, :func:`branch_parts`), and the curve of the whole: every part mu-GDP (the pure step through
    :func:`pure_to_gdp_mu`), composed exactly.

    The queries' offsets and the branch are functions of the released trace and stop and of public values
    (post-processing), chosen before the parts they steer run: the parts compose adaptively, and the curve counts the
    branch at mu_main whichever ran (each branch is at most mu_main-GDP, so the curve is an upper bound that does not
    depend on the branch, hence not on the data)."""
    n, d = data.n, data.d
    sq_norms = row_sq_norms_of(data)
    error = summation_error(n + d + 2, n)  # each ||x||^2 within gamma_d, their sum within gamma_n n
    trace, trace_noise = private_trace(float(sq_norms.sum()), error, mus["mu_trace"], rng)
    radii = candidate_radii(levels)
    if route == "tail":
        trace_sigma = float(np.clip(trace / n, 0.0, 1.0))
        offsets = [n * predicted_error(r, trace_sigma, d, n, mus) for r in radii]
    else:  # the authors' trace: shifted up by the tail bound of its noise at beta / 8, in (0, 1]
        margin = trace_noise.noise_scale * math.sqrt(2.0 * math.log(8.0 / AUTHORS_BETA))
        trace_sigma = float(np.clip((trace + margin) / n, 1e-16, 1.0))
        terms = authors_terms(trace_sigma, d, n, mus)
        offsets = list(n * authors_offsets(radii, terms))
    work = np.empty(n)  # one buffer for every level's terms
    queries = [clipping_excess(sq_norms, r, work) - o for r, o in zip(radii, offsets)]
    stop, epsilon_svt = above_threshold(queries, mus["epsilon_svt"], summation_error(n + d + 3, n + max(offsets)), rng)
    radius = float(radii[max(stop - 1, 0)])  # one step above the first radius whose excess outgrew the noise
    norms = np.sqrt(sq_norms)
    unit = clipped_unit_rows(data, norms, radius, check=False)  # checked by the pass that took the norms
    parts = {"stop": stop, "radius": radius, "trace": trace, "trace_sd": trace_noise.noise_scale}
    parts.update(epsilon_svt=epsilon_svt, clipped_rows=int(np.sum(norms > radius)))
    mus_used = [trace_noise.curve().mu, pure_to_gdp_mu(epsilon_svt)]
    if route == "tail":
        parts["route"] = "tail"
        parts["matrix"], parts["values"], noise = noisy_parts(unit, mus["mu_vectors"], mus["mu_values"], rng)
        parts["matrix_sd"], parts["values_sd"] = np.sqrt(2) / mus["mu_vectors"], noise.noise_scale
        mus_used += [mus["mu_vectors"], noise.curve().mu]
    else:
        branch = authors_branch(2.0**-stop, terms)  # read where the walk stopped, as the authors' code does
        parts.update(branch_parts(unit, branch, mus["mu_main"], mus["vector_share"], rng))
        parts["route"] = "tail" if branch == "trace" else "gauss"
        mus_used.append(mus["mu_main"])
    parts["curve"] = PrivacyCurve.gdp(composed_mu(mus_used))
    return parts


def tail_sensitive_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """The whole release attacked where its signal is (the registry's ``audit_design`` hook), d = 2.

    The canary e1 (D) or e2 (D') on a background of AUDIT_BACKGROUND unit rows along e1 and e2: every row has norm 1,
    so the trace is the same on D and D' and the clipped rows divided by any radius are the rows themselves. The
    release runs every part of the proof (trace, sparse vector step, both Gaussian releases); the score is the exact
    Gaussian log-likelihood ratio of D' against D over the unit-scale noisy matrix and spectrum, which move by their
    whole sensitivity sqrt(2) each. The trace and the stop carry no signal here: the audit reaches the two Gaussian
    parts' share of mu^2 (3/4 by default), not the whole.
    """
    if statistic == "route_auto":
        return route_audit_design(d, neighbors)
    if statistic not in ("auto", "both_parts"):
        return None

    def release(data, rng, epsilon, delta, neighbors):
        mus = budget(epsilon, delta, *DEFAULT_SHARES)
        parts = tail_parts(data, mus, DEFAULT_LEVELS, rng)
        return {
            "matrix": parts["matrix"].tolist(),
            "values": parts["values"].tolist(),
            "radius": parts["radius"],
            "matrix_sd": float(np.sqrt(2) / mus["mu_vectors"]),
            "values_sd": parts["values_sd"],
        }, parts["curve"]

    note = (
        "the whole release (private trace, sparse vector step, both Gaussian releases; {canary}): the exact "
        "likelihood ratio over the noisy matrix and spectrum"
    )
    return canary_design("tail_sensitive", neighbors, d, AUDIT_BACKGROUND, "both_parts", release, note)


def route_audit_design(d: int, neighbors: str) -> AuditDesign:
    """route="auto" attacked as a whole (statistic "route_auto"), d = 2: the canary pair of the both-parts design, the
    release runs every part of the combined routine (private trace, sparse vector step, branch choice, chosen branch)
    at the default shares.

    Every row has norm 1, so the trace, the clipping excesses (hence the stop and the radius) and the branch are alike
    on both neighbours, and the clipped rows divided by the radius are the rows themselves. At d = 2 the branch is the
    Gaussian one at every radius (its predicted error equals the trace-sensitive release's eigenvalue term alone,
    :func:`route_errors`): the score is the exact likelihood ratio over the unit-scale noisy matrix, which moves by its
    whole sensitivity sqrt(2). It reaches the branch's share of mu^2 (3/4), not the trace's or the sparse vector
    step's. The other branch is the pair the both-parts design attacks.
    """

    def release(data, rng, epsilon, delta, neighbors):
        parts = tail_parts(data, budget(epsilon, delta, *DEFAULT_SHARES), AUTO_LEVELS, rng, "auto")
        return {**published_branch(parts), "radius": parts["radius"]}, parts["curve"]

    note = (
        "route auto as a whole (private trace, sparse vector step, choice, the Gaussian branch it picks at d = 2; "
        "{canary}): the exact likelihood ratio over the noisy matrix"
    )
    return canary_design("tail_sensitive", neighbors, d, AUDIT_BACKGROUND, "route_auto", release, note)


#: Analyze Gauss's rate with its noise times sqrt(8/3) (the eigenvectors get 3/8 of mu^2), at radius 1: on the
#: spiked law (typical row norm R/2) the sparse vector step keeps tau = 1 from n ~ 8,000 on; below, the radius falls
#: as n falls and the error with it (measured slope -0.79 on n = 2,000-32,000), so the n regime starts there.
TAIL_SENSITIVE_RATE = gram_noise_rate(
    "Dong, Liang & Yi 2022, tail-sensitive: the eigenvectors of the Gaussian mechanism at 3/8 of rho on rows "
    "clipped at tau <= 1: sqrt(8/3) tau^2 sigma(eps, delta) sqrt(k(d-k)) / (n gap) (tau = 1 when the rows fill "
    "the radius); covariance (Frobenius, Sigma = C / n) O~(tau d^(1/4) sqrt(tr / n) + tau^2 sqrt(d) / n + "
    "excess(tau) / n)",
    lambda p: math.sqrt(8.0 / 3.0),  # Analyze Gauss's noise at 3/8 of mu^2, radius 1
    why_n="Analyze Gauss's eigenvectors at 3/8 of mu^2, n large enough for tau = 1",
    why_eps="sqrt(2) tau^2 sigma(eps, delta) on the clipped X^T X, tau = 1 at n = 8,000",
    n={"grid": (8000, 32000, 128000)},
)


@n_public_mechanism(
    name="tail_sensitive",
    rate=TAIL_SENSITIVE_RATE,
    title="Tail-sensitive covariance (private clipping radius, then separate eigenvalues and eigenvectors)",
    short_name="Tail-sensitive covariance",
    paper=PAPER_DLY_TAIL,
    releases_eigenvalues=True,
    needs_rows=True,
    audit_statistic="both_parts",
    audit_descriptions={
        "both_parts": "the exact Gaussian likelihood ratio over the noisy matrix and the noisy "
        "spectrum of the whole release (trace, sparse vector step and both Gaussian "
        "parts run), each moved by its whole sensitivity at once",
        "route_auto": "the combined routine run whole (private trace, sparse vector step, then the release it "
        "picks at the radius): the exact Gaussian likelihood ratio over the noisy matrix of the release it picked",
    },
    audit_design=tail_sensitive_audit_design,
    params=(
        Param(
            "svt_share",
            "float",
            DEFAULT_SHARES[0],
            "Share of the budget (of rho, i.e. of mu^2) for the sparse "
            "vector step that picks the clipping radius (a pure step, converted exactly).",
            low=0.01,
            high=0.5,
        ),
        Param(
            "trace_share",
            "float",
            DEFAULT_SHARES[1],
            "Share of mu^2 for the private trace the radius choice " "reads.",
            low=0.01,
            high=0.5,
        ),
        Param(
            "vector_share",
            "float",
            DEFAULT_SHARES[2],
            "Of the rest, the share of mu^2 spent on the eigenvectors; " "the eigenvalues get the remainder.",
            low=0.05,
            high=0.95,
        ),
        Param(
            "levels",
            "int",
            None,
            "Number of candidate radii 1, 1/2, 1/4, ... (in units of the clipping radius R); default 12 with route "
            "'tail', 80 with route 'auto' (the authors' candidates, down to 2^-79).",
            low=1,
            high=AUTO_LEVELS,
        ),
        Param(
            "route",
            "choice",
            "tail",
            "'tail': always the trace-sensitive release on the clipped rows. 'auto': the authors' combined routine "
            "with their tail bounds and scalings, which picks the radius against the smaller of the two predicted "
            "errors and runs whichever of that release and the Gaussian mechanism (Analyze Gauss) the private trace "
            "predicts to be more accurate for the covariance.",
            choices=ROUTES,
        ),
    ),
    notes=(
        "Dong, Liang & Yi (2022), the tail-sensitive algorithm: a private trace (Gaussian), then the sparse vector "
        "technique (AboveThreshold) walks down the radii 1, 1/2, 1/4, ... and stops at the first tau_j where the "
        "clipping excess sum_i max(||x_i||^2 - tau_j^2, 0) exceeds n times the noise error the trace-sensitive "
        "algorithm would add at tau_j; the rows are clipped at the radius one step above and released as by "
        "trace_sensitive (eigenvectors of C + E, noisy spectrum), every noise s.d. times tau^2. Each query moves by "
        "less than 1 under replace-one, so the step is pure epsilon_0-DP; it is converted exactly to GDP "
        "(pure_to_gdp_mu) and composed with the three Gaussian parts: the release is mu*(eps, delta)-GDP. Default "
        "shares of mu^2: 1/8 sparse vector, 1/8 trace, 3/8 eigenvectors, 3/8 eigenvalues (the authors' split of rho). "
        "It wins when most rows are far shorter than the clipping bound (skewed norms); when the rows fill the "
        "bound it keeps tau = 1 and is trace_sensitive with 3/4 of the budget. Replace-one only (n public). "
        "With route='auto' (the paper's combined routine, steered as the authors' code steers it: their tail bounds at "
        "beta = 0.1, the trace shifted up by its noise's tail bound, 80 candidate radii) each sparse vector query "
        "sets the excess against n times the smaller of the Gaussian mechanism's bound omega sigma_g times tau_j (not "
        "tau_j^2, as theirs) and this release's, tau_j 2 sqrt(t nu sigma_v) / 6 + tau_j^2 eta sigma_lambda; the "
        "same two read at the radius where the walk stopped decide which runs on the rows clipped one step above, "
        "with the remaining mu_m: this release or Analyze Gauss (post-processing of the released trace and stop). "
        "The output 'route' ('tail' or 'gauss') says which ran; the curve counts the branch at mu_m whichever ran, "
        "so it is mu*-GDP either way."
    ),
)
def tail_sensitive(data, k, epsilon, delta, neighbors, rng, svt_share, trace_share, vector_share, levels, route):
    mus = budget(epsilon, delta, svt_share, trace_share, vector_share)
    levels = levels if levels is not None else (DEFAULT_LEVELS if route == "tail" else AUTO_LEVELS)
    parts = tail_parts(data, mus, levels, rng, route)
    scale = parts["radius"] ** 2  # back from the unit-scale rows: a power of two, so the grids stay exact
    noisy_values, vectors = top_eigenvectors(parts["matrix"], data.d)
    values = noisy_values if parts["values"] is None else parts["values"]  # Gaussian branch: the noisy matrix's
    spectrum = scale * np.clip(np.sort(values)[::-1], 0.0, float(data.n))  # sorted, in [0, n tau^2]
    outputs = {"route": parts["route"]} if route == "auto" else {}
    outputs.update(spectrum=spectrum)
    if parts["values"] is not None:
        outputs["eigenvalue_noise_sd"] = scale * parts["values_sd"]
    outputs.update(clipping_radius=parts["radius"], trace=parts["trace"], trace_noise_sd=parts["trace_sd"])
    return Output(
        vectors[:, :k],
        noise_scale=float(scale * parts["matrix_sd"]),  # the branch's noise on upper(X^T X), back in R's units
        eigenvalues=spectrum[:k],
        privacy=parts["curve"],
        outputs=outputs,
        facts=_facts(mus, parts, levels, route),
        diagnostics={"rows_above_radius": parts["clipped_rows"]},
    )


def _facts(mus: dict, parts: dict, levels: int, route: str) -> dict:
    """The facts of a release: the same whichever branch route "auto" ran."""
    if route == "tail":
        return {
            "mu_trace": mus["mu_trace"],
            "epsilon_svt": parts["epsilon_svt"],
            "mu_vectors": mus["mu_vectors"],
            "mu_values": mus["mu_values"],
            "levels": int(levels),
            "noise_on": "tr(X^T X); the clipping excess at each radius (sparse vector); upper(X^T X) and "
            "its spectrum on the rows clipped at the chosen radius",
        }
    return {
        "mu_trace": mus["mu_trace"],
        "epsilon_svt": parts["epsilon_svt"],
        "mu_main": mus["mu_main"],
        "levels": int(levels),
        "noise_on": "tr(X^T X); the clipping excess at each radius (sparse vector); on the rows clipped at the "
        "chosen radius, upper(X^T X) and its spectrum (route tail) or upper(X^T X) alone (route gauss)",
    }

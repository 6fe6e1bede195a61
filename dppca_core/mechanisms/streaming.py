"""One-pass streaming PCA of Liu, Kong, Jain & Oh (NeurIPS 2022): Private Oja and DP-PCA.

Both estimate the top eigenvector (k = 1) from one pass over the rows in a data-independent random order.
Every record is used in exactly one step (or one batch), so under replace-one with public n the whole run is
(epsilon, delta)-DP when each step is (parallel composition over disjoint records); the other steps are post-processing.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..compiled.loops import oja_steps
from ..audit.design import AuditDesign, public_stream
from ..data.prepare import prepare
from ..privacy import PrivacyCurve, gaussian_mu, gaussian_sigma
from ..privacy.randomness import bulk_generator
from ..registry import Output, Param
from .sources import n_public_mechanism
from .dp_pca_steps import batch_plan, eigen_groups, batches, gradient_ascent, min_batch_size
from .rates import Rate, Regime

PAPER_LKJO = "Liu, Kong, Jain & Oh, DP-PCA: Statistically Optimal and Differentially Private PCA (NeurIPS 2022)"
TOP_ONLY = "The paper's algorithms estimate the top eigenvector only (k = 1)."
#: What both of the paper's mechanisms declare alike: n public (each row in one step or batch of a public order:
#: parallel composition; add/remove would move the batches), a sequential pass over the rows themselves, the top
#: eigenvector only, and repetitions on two threads (the compiled pass releases the GIL).
liu_mechanism = functools.partial(
    n_public_mechanism,
    needs_rows=True,
    max_k=1,
    caveat=TOP_ONLY,
    threaded_reps=True,
)
LR_PARAMS = (
    Param(
        "lr_c1",
        "float",
        2.0,
        "Learning rate eta_t = c1 / (c2 + t): c1 (data-independent).",
        low=1e-4,
        high=1e4,
        log=True,
    ),
    Param("lr_c2", "float", 10.0, "Learning rate eta_t = c1 / (c2 + t): c2 (data-independent).", low=0.0, high=1e6),
)


def public_start(n: int, d: int, rng: np.random.Generator):
    """The public draws every run starts with: a uniformly random order of the n rows and a uniformly random
    unit start vector, both from ``rng``, the run's public stream (:func:`_start`).

    Both are data-independent, and the guarantee conditions on them (each record is protected by the noise of
    its own step whatever the order), so it holds even if they are published; the audit replays them.
    """
    order = rng.permutation(n)
    w = rng.standard_normal(d)
    return order, w / np.linalg.norm(w)


def _start(data, rng):
    """:func:`public_start` for ``data``, drawn from the child stream ``rng.spawn(1)[0]``
    (:func:`dppca_core.audit.design.public_stream`), never from the generator that makes the noise: the audit
    rebuilds that child from the run's seed sequence and so knows the order and start vector without ever
    holding the noise generator's state. The rows themselves are gathered a batch at a time
    (``data.rows_at``), so no reordered copy of X is kept."""
    return public_start(data.n, data.d, public_stream(rng))


#: Rows of an audit run at most: below 100 rows a run publishes the iterate of every step
#: (trace_every = max(1, n // 50) = 1), which the audit reads after the canary's step.
OJA_AUDIT_ROWS = 50
#: A learning rate small enough for each audited step to be linear in its noise (privacy does not depend on
#: it: the noise scales with the step).
OJA_AUDIT_LR = 1e-3
#: DP-PCA's gradient-step audit: 20 rows make one batch (T = ceil((ln 20)^2 / 16) = 1) far below the batch size
#: the private range needs, so the batch's mean gradient is released over the public range with noise of
#: sensitivity 1/B: a Gaussian step, the one the canary sits in.
DP_PCA_AUDIT_ROWS = 20


def canary_pair(w: np.ndarray):
    """(x, x', u): unit rows at +45 and -45 degrees from the unit vector ``w`` in the plane of w and u, u a unit
    vector orthogonal to w.

    A step of Oja's rule or of DP-PCA at iterate w moves by a multiple of the gradient g = x x^T w = x / sqrt(2);
    its component orthogonal to w is +1/2 u for x and -1/2 u for x', so the two gradients differ by exactly u:
    the whole sensitivity (1) and all of it in the direction the normalised iterate shows (its radial part is
    lost to the normalisation)."""
    j = int(np.argmin(np.abs(w)))
    u = -w[j] * w
    u[j] += 1.0
    u /= np.linalg.norm(u)
    return (w + u) / math.sqrt(2.0), (w - u) / math.sqrt(2.0), u


def first_step_design(rows: int, d: int, statistic: str, params: dict, note: str) -> AuditDesign:
    """The canary in the row the public order uses first, at 45 degrees from the public start vector w0 (x on
    D, x' on D', every other row zero), and the score of the first published iterate w1.

    With a small learning rate w1 is proportional to w0 + eta (g + noise) and r = (w1 . u) / (w1 . w0) equals
    eta (g + noise) . u up to O(eta^2): a Gaussian whose mean moves by eta between D and D' (x and x' differ by
    u in that direction) with the step's own noise s.d. times eta, i.e. exactly the step's mu. The score is -r
    (larger on D')."""

    def datasets(public):
        order, w0 = public
        x, x_prime, _ = canary_pair(w0)
        D, D_prime = np.zeros((rows, d)), np.zeros((rows, d))
        D[order[0]], D_prime[order[0]] = x, x_prime
        return prepare(D), prepare(D_prime)

    def score(published: dict, public) -> float:
        _, w0 = public
        after = np.asarray(published["outputs"]["iterates"][0], dtype=float)[:, 0]
        return -float(after @ canary_pair(w0)[2]) / float(after @ w0)

    return AuditDesign(
        None,
        None,
        1,
        score,
        statistic,
        public_draws=lambda rng: public_start(rows, d, rng),
        params=params,
        datasets=datasets,
        note=note,
    )


def oja_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """Audit design for Private Oja (the registry's ``audit_design`` hook): the step the canary is used in.

    The guarantee is that of one noisy step, whatever the order and start vector (public randomness), so the
    test knows them (replayed from the run's public stream: :func:`public_start`) and the canary sits in the
    row of the first step, at 45 degrees from the start vector (:func:`canary_pair`): the step's sensitivity is
    reached in full, orthogonally to the iterate, and the score (:func:`first_step_design`) is the Gaussian
    log-likelihood ratio of that step up to O(eta^2). The other rows are zero (pure-noise steps). Returns None
    for statistics other than "auto" / "oja_step" (left to the generic designs).
    """
    if statistic not in ("auto", "oja_step"):
        return None
    if neighbors != "replace":
        raise ValueError(
            "Private Oja has a guarantee for replace-one neighbours only; audit it with " "neighbors='replace'."
        )
    return first_step_design(
        min(n, OJA_AUDIT_ROWS),
        d,
        "oja_step",
        {"lr_c1": OJA_AUDIT_LR},
        "the canary's own Oja step (public order and start vector replayed)",
    )


def dp_pca_audit_design(d: int, n: int, neighbors: str, statistic: str, epsilon: float, delta: float, **_):
    """Audit designs for DP-PCA (the registry's ``audit_design`` hook), one per step its proof composes.

    * "gradient_step" (default): the Gaussian step of the batch the canary sits in
      (:func:`first_step_design`, :data:`DP_PCA_AUDIT_ROWS` rows: one batch released over the public range
      with the whole budget, so the run is exactly gaussian_mu(epsilon, delta)-GDP).
    * "range_histogram": Algorithm 4's stability histogram (:func:`_histogram_design`), whose released bin
      becomes the published scale estimate.
    Other statistics are left to the generic designs (None).
    """
    if statistic not in ("auto", "gradient_step", "range_histogram"):
        return None
    if neighbors != "replace":
        raise ValueError("DP-PCA has a guarantee for replace-one neighbours only; audit it with neighbors='replace'.")
    if statistic == "range_histogram":
        return _histogram_design(d, epsilon, delta)
    rows = min(n, DP_PCA_AUDIT_ROWS)
    if rows < 8:
        raise ValueError("DP-PCA needs batches of at least 8 rows: audit it with n >= 8.")
    return first_step_design(
        rows,
        d,
        "gradient_step",
        {"lr_c1": OJA_AUDIT_LR},
        "the canary's own gradient step (one batch over the public range; public order and " "start vector replayed)",
    )


def _histogram_design(d: int, epsilon: float, delta: float, zeta: float = 0.01) -> AuditDesign:
    """Algorithm 4's histogram on one batch large enough for the private range (batch_size = the smallest
    such batch, so T = 1), with the canary's group toggling between two bins that hold half the groups each.

    Groups are consecutive pair differences of the first half-batch in the public order. Each group gets one
    non-zero row, c w0 (first row of its first pair), so its top eigenvalue is c^4 / (2 size) and its label is
    set by c (in the middle of bin a, the highest a row of norm <= 1 reaches, or of bin b two bins lower). The canary (the first group's row) is in
    bin a on D and bin b on D'; the others are split evenly between a and b. The released scale estimate
    2^(bin/4) is the argmax of the noisy counts (Laplace(2/epsilon) each): the score is 1 when it names b,
    1/2 when no bin is released, 0 otherwise.
    """
    rows = min_batch_size(d, epsilon, delta, zeta / 2.0)
    rows += rows % 2
    half = rows // 2
    groups = eigen_groups(epsilon, delta, zeta / 2.0)
    size = (half // 2) // groups
    top_bin = math.floor(4.0 * math.log2(1.0 / (2.0 * size))) - 1  # the highest bin a row of norm <= 1 fills
    labels = {"a": top_bin, "b": top_bin - 2}
    # c^4 / (2 size) in the middle of its bin (4 log2 of it at label + 1/2), clear of the bin edges
    levels = {key: (2.0 * size * 2.0 ** ((label + 0.5) / 4.0)) ** 0.25 for key, label in labels.items()}

    def datasets(public):
        order, w0 = public
        D = np.zeros((rows, d))
        for j in range(1, groups):
            D[order[2 * j * size]] = (levels["a"] if j % 2 else levels["b"]) * w0
        D_prime = D.copy()
        D[order[0]], D_prime[order[0]] = levels["a"] * w0, levels["b"] * w0
        return prepare(D), prepare(D_prime)

    def score(published: dict, public) -> float:
        if published["outputs"]["bottom_count"]:
            return 0.5
        return float(math.isclose(published["outputs"]["scale_estimates"][0], 2.0 ** (labels["b"] / 4.0)))

    return AuditDesign(
        None,
        None,
        1,
        score,
        "range_histogram",
        public_draws=lambda rng: public_start(rows, d, rng),
        params={"batch_size": rows, "zeta": zeta},
        datasets=datasets,
        note=f"Algorithm 4's range histogram ({groups} groups of a {rows}-row batch; its share of "
        "the budget is the whole (epsilon, delta): the half-batches are disjoint)",
    )


#: the setting every regime of Private Oja shares: Liu et al.'s Example 4.1, against the population
_oja_regime = functools.partial(
    Regime, term="privacy", law="example41", reference="population", params={"lr_c1": 8.0}, reps=8
)


PRIVATE_OJA_RATE = Rate(
    "Liu et al. 2022 (Thm 3.3, parallel-composition calibration): sqrt((V + alpha(eps, delta)^2 d) / n) / gap",
    # step noise eta_t alpha against the data noise's sampling error
    terms=lambda p: (
        gaussian_sigma(1.0, p.epsilon, p.delta) * math.sqrt(p.d / p.n),
        p.sigma_data * math.sqrt(p.d / p.n),
    ),
    one_pass=True,
    regimes={
        "n": _oja_regime(
            "n",
            grid=(10000, 20000, 40000),
            data={"d": 10, "sigma": 0.1, "seed": 0},
            n=0,
            epsilon=16.0,
            why="Example 4.1, gap 1/4: lr_c1 gap = 2 > 1/2 (Oja converges at rate 1/n); the per-step "
            "noise eta alpha dominates the data noise",
        ),
        "eps": _oja_regime(
            "eps",
            grid=(8.0, 16.0, 32.0),
            data={"d": 10, "sigma": 0.1, "seed": 0},
            n=20000,
            why="error proportional to alpha(eps, delta) = sigma_AGM(eps, delta, 1)",
        ),
        "sigma": _oja_regime(
            "sigma",
            grid=(0.1, 0.03, 0.01),
            data={"d": 10, "seed": 0},
            n=10000,
            epsilon=8.0,
            why="the privacy noise does not depend on the data noise: flat",
        ),
    },
)


#: how the audit reads Private Oja's own design (the Audit page shows it)
OJA_STEP_READING = (
    "the likelihood ratio of the canary's own step, read from the published iterate after it (the "
    "order and start vector are public randomness the guarantee does not rely on; the audit replays "
    "them and puts the canary at 45° from the start vector; small learning rate)"
)


@liu_mechanism(
    name="private_oja",
    rate=PRIVATE_OJA_RATE,
    title="Private Oja (streaming, top eigenvector)",
    paper=PAPER_LKJO + ", Algorithm 2",
    audit_statistic="oja_step",
    audit_descriptions={"oja_step": OJA_STEP_READING},
    audit_design=oja_audit_design,
    params=LR_PARAMS,
    notes=(
        "One pass of Oja's rule w <- normalise(w + eta_t x_t x_t^T w + eta_t alpha z_t) in a random order. "
        "Rows have norm <= 1 and w is a unit vector, so every step direction x x^T w lies in the ball of radius 1/2 "
        "around w/2 (no clipping needed): a replacement changes one step by at most eta_t (the ball's diameter; the "
        "paper's triangle bound 2 eta_t beta is twice that), so with noise s.d. eta_t alpha and "
        "alpha = sigma_AGM(epsilon, delta, 1) that step is (epsilon, delta)-DP and, each record being used once, the "
        "whole run is (parallel composition; replace-one with public n and a data-independent order). The paper "
        "instead calibrates alpha by amplification by shuffling with unspecified constants C, C' (valid only for "
        "epsilon = O(sqrt(log(n/delta)/n))). Rate: with this calibration every step carries noise of s.d. "
        "eta_t alpha in each of d directions, so the error behaves like sqrt((V + alpha^2 d / lambda_1^2) / n) / "
        "gap-ratio: slope -1/2 in n, and, where the privacy part dominates (always, for rows of norm <= 1 and "
        "epsilon below about 10), proportional to alpha(epsilon, delta), i.e. about 1/epsilon. It holds when the "
        "learning rate is large enough for Oja's rule to converge: lr_c1 (lambda_1 - lambda_2) > 1/2 (Jain et al. "
        "2016) — with the defaults, an eigengap above 1/4 of the rows' squared norm scale; below that the error "
        "falls more slowly than n^-1/2. Its privacy term does not vanish when the data are noiseless (Example 4.1). "
        "Learning-rate defaults are fixed in advance, not tuned on the data."
    ),
)
def private_oja(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2):
    order, w = _start(data, rng)
    alpha = gaussian_sigma(1.0, epsilon, delta)
    w, trace = _oja_pass(data, order, w, lr_c1, lr_c2, alpha, rng, trace_every=max(1, data.n // 50))
    # one record per step, each step (1/alpha)-GDP in that record: the whole trajectory is (1/alpha)-GDP
    return Output(
        w[:, None] * np.sign(w[np.argmax(np.abs(w))]),
        noise_scale=alpha,
        privacy=PrivacyCurve.gdp(1.0 / alpha),
        outputs={"iterates": [v[:, None] for v in trace]},
        facts={
            "noise_on": "each Oja step (s.d. eta_t alpha)",
            "steps": data.n,
            "first_step_noise_sd": lr_c1 / (lr_c2 + 1) * alpha,
        },
    )


def _oja_pass(data, order, w, c1, c2, alpha, rng, trace_every, chunk=8192):
    """One noisy Oja pass over the rows of ``data`` in ``order``; returns the last iterate and every
    ``trace_every``-th one.

    The learning rates and the noise (standard normals drawn chunk by chunk, which numpy's Generator produces
    identically to one big draw, scaled by eta_t alpha) are prepared a chunk at a time; the sequential steps run
    in :func:`dppca_core.compiled.loops.oja_steps` (compiled by numba when it is installed). The noise, n d normals,
    comes from :func:`dppca_core.privacy.randomness.bulk_generator`: for a release to publish, AES-128 in counter
    mode keyed from the operating system; seeded, ``rng`` itself.
    """
    n, d = data.n, data.d
    w = np.array(w, dtype=float)
    trace = []
    rng = bulk_generator(rng)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        steps = np.arange(start + 1, stop + 1, dtype=float)
        etas = c1 / (c2 + steps)
        noise = rng.standard_normal((stop - start, d))
        noise *= (alpha * etas)[:, None]  # a step moves by at most eta_t when one record is replaced
        frames = np.empty((stop // trace_every - start // trace_every, d))
        written = oja_steps(data.rows_at(order[start:stop]), w, etas, noise, start, trace_every, frames)
        trace.extend(frames[:written].copy())
    return w, trace


def _dp_pca_terms(p) -> tuple[float, float]:
    T = batches(p.n)
    return (
        T * p.sigma_data * p.d * gaussian_sigma(1.0, p.epsilon, p.delta) / p.n,
        p.sigma_data * math.sqrt(T * p.d / p.n),
    )


#: the setting every regime of DP-PCA shares: Liu et al.'s Example 4.1 at d = 5, against the population
_dp_pca_regime = functools.partial(Regime, term="privacy", law="example41", reference="population", reps=16)


DP_PCA_RATE = Rate(
    "Liu et al. 2022 (Thm 5.1 / Cor 5.2): sqrt(T V / n) + T r sqrt(d) sigma(eps, delta) / n, T ~ (ln n)^2 / 16, "
    "r ~ spread of the gradients (~ data noise)",
    terms=_dp_pca_terms,
    one_pass=True,
    regimes={
        "n, statistical": _dp_pca_regime(
            "n",
            term="statistical",
            data={"d": 5, "sigma": 0.5, "seed": 0},
            grid=(40000, 80000, 160000, 320000),
            n=0,
            epsilon=8.0,
            why="d = 5, eps = 8: every batch is large enough for Algorithms 4-5; data noise sigma = 0.5 dominates the "
            "privacy noise and lambda_2/lambda_1 = 0.2 lets ~8 power-like steps converge: sqrt(T V / n), T ~ "
            "(ln n)^2 / 16",
        ),
        "n, privacy": _dp_pca_regime(
            "n",
            data={"d": 5, "sigma": 0.1, "seed": 0},
            grid=(20000, 40000, 80000, 160000),
            n=0,
            why="every batch large enough for Algorithms 4-5, public-range route (radius >= 1 at sigma = 0.1): noise "
            "sigma_AGM(1/m, eps, delta) with m = B/2 ~ n/T",
        ),
        "eps": _dp_pca_regime(
            "eps",
            data={"d": 5, "sigma": 0.1, "seed": 0},
            grid=(0.25, 0.5, 1.0),
            n=80000,
            why="public-range route (radius >= 1) at every epsilon: noise sigma_AGM(1/m, eps, delta), "
            "privacy-dominated",
        ),
        "sigma": _dp_pca_regime(
            "sigma",
            data={"d": 5, "seed": 0},
            grid=(0.004, 0.002, 0.001),
            n=40000,
            params={"K": 1.63, "a": 0.5},
            why="truncated route: radius ~ data noise, so error ~ sigma -> 0 (Example 4.1 tail constants "
            "a = 1/2, K = 1.63)",
        ),
    },
)


#: how the audit reads DP-PCA's own designs (the Audit page shows it)
DP_PCA_READINGS = {
    "gradient_step": "the canary's own gradient step, read from the published iterate after it (public order and "
    "start vector replayed; the canary at 45° from the start vector)",
    "range_histogram": "which bin Algorithm 4's histogram released (the canary's group moves between two bins that "
    "hold half the groups each)",
}


@liu_mechanism(
    name="dp_pca",
    rate=DP_PCA_RATE,
    title="DP-PCA (minibatch private gradient ascent)",
    paper=PAPER_LKJO + ", Algorithms 3-5",
    gaussian_dp=False,
    audit_statistic="gradient_step",
    audit_descriptions=DP_PCA_READINGS,
    audit_design=dp_pca_audit_design,
    params=(
        Param(
            "lr_c1",
            "float",
            1000.0,
            "Learning rate eta_t = c1 / (c2 + t) over the batches: c1. The default "
            "makes the first steps power-method steps (eta_t lambda_1 >> 1 for rows of norm <= 1 unless "
            "lambda_1 < 0.01): a run has only about (ln n)^2 / 16 batches.",
            low=1e-4,
            high=1e5,
            log=True,
        ),
        Param("lr_c2", "float", 1.0, "Learning rate eta_t = c1 / (c2 + t) over the batches: c2.", low=0.0, high=1e6),
        Param(
            "batch_size",
            "int",
            None,
            "Minibatch size B; default: the paper's B = 16 n/(ln n)^2, raised to the "
            "smallest batch in which the private sub-routines can release (a function of d, epsilon, delta).",
            low=8,
            high=10**7,
        ),
        Param(
            "split_budget",
            "bool",
            False,
            "Give Algorithms 4 and 5 (epsilon/2, delta/2) each, as the paper does "
            "(default: each gets (epsilon, delta), valid because the two halves of a batch are disjoint).",
        ),
        Param(
            "K",
            "float",
            4.0,
            "Sub-Weibull constant K of the gradients (4 for Gaussian data, Remark 3.4).",
            low=0.1,
            high=100.0,
        ),
        Param("a", "float", 1.0, "Sub-Weibull exponent a (1 for Gaussian data).", low=0.1, high=4.0),
        Param("zeta", "float", 0.01, "Failure probability zeta of the analysis.", low=1e-6, high=0.5, log=True),
    ),
    notes=(
        "Per minibatch: the first half privately estimates the spread of the gradients x x^T w (Algorithm 4: top "
        "eigenvalues of groups of pair differences, halved because a difference has twice the covariance, "
        "stability-based histogram over bins 2^(i/4), C1 = 16), the second half privately estimates the mean gradient "
        "(Algorithm 5: per-coordinate stability histograms find a centre, gradients are truncated to a radius "
        "r = 3 K sqrt(2 Lambda) ln^a(m d / zeta) around it, Gaussian noise by the analytic GM). Sensitivity: "
        "every gradient x x^T w of a row of norm <= 1 lies in the ball of radius 1/2 around w/2 (so two differ by at "
        "most 1, and coordinate j lies in [w_j/2 - 1/2, w_j/2 + 1/2]); truncation is a projection onto a box, so a "
        "replacement moves the mean by at most min(box diagonal, 1)/m — the paper's 2 r sqrt(d)/m (with its "
        "triangle-inequality 2 where 1 suffices), cut where the box sticks out of the public range and never above "
        "1/m. From public m, d and the released scale only, "
        "the mean is taken over the public range with Algorithm 5's whole budget when r >= 1/2 or when that gives less "
        "noise; otherwise the centre histograms get just enough budget to release (at most half) and the Gaussian "
        "step the rest; a coordinate whose histogram releases nothing keeps the whole public range. "
        "Batch schedule (Theorem 5.1): B = 16 n/(ln n)^2, i.e. T = (ln n)^2/16 iterations (7-12 for n from 2e4 to "
        "1e6). The sub-routines can only release anything when B reaches a minimum batch of about "
        "4 (2/eps_h) ln(d/(delta_h zeta)) rows (eps_h, delta_h the per-coordinate histogram budget: ~9,000 rows at "
        "d = 20, epsilon = 1, delta = 1e-6; it grows like d/epsilon); below it (n below ~1e5 there) each batch's "
        "mean gradient is released over the public range instead, with the whole batch and budget (sensitivity 1/B; "
        "facts['private_range'] says which, and outputs['mean_routes'] names each batch's route: 'truncated', 'public "
        "range' or 'fallback'). The default learning rate makes the first steps power-method steps. "
        "Rate: error ~ sqrt(T V / n) + T r sqrt(d) sigma(epsilon, delta) / n with T ~ (ln n)^2 / 16: slope about "
        "-1/2 in n where the data noise dominates, about -1 (-0.9 with T's growth) where privacy dominates, and "
        "the epsilon slope of sigma(epsilon, delta) (about -0.9). The privacy part shrinks with the spread of the "
        "gradients once r falls below the public range: at Example 4.1, d = 20, n = 2e5, with the Gaussian-data "
        "defaults K = 4, a = 1 for data noise sigma below about 2e-4, and with a = 1/2, K = 1.63 (which Example "
        "4.1's Gaussian gradient noise satisfies) below about 1e-2, where the error becomes proportional to sigma — "
        "unlike Private Oja's. The rate also needs lambda_2/lambda_1 small enough for ~T power-like steps to "
        "converge. Privacy: replace-one with public n (the paper's add/remove Definition 2.3 does not fit "
        "index-based batches or data-centred truncation). Batches and the two halves of a batch are disjoint, so by "
        "parallel composition Algorithms 4 and 5 may each use the full (epsilon, delta) — the paper's "
        "(epsilon/2, delta/2) split is available as split_budget. Inside Algorithm 5 the d coordinate histograms "
        "compose by the paper's advanced composition when their total epsilon is <= 0.9 (the lemma's condition) and "
        "by basic composition otherwise, whichever is larger, and with the Gaussian step by basic composition. When "
        "Algorithm 4 returns ⊥ the previous scale is reused (the first scale is the public bound 1 for rows of norm "
        "<= 1, i.e. no truncation)."
    ),
)
def dp_pca(data, k, epsilon, delta, neighbors, rng, lr_c1, lr_c2, batch_size, split_budget, K, a, zeta):
    order, w = _start(data, rng)
    B, T, private_range = batch_plan(data.n, data.d, epsilon, delta, zeta, split_budget, batch_size)
    settings = dict(
        epsilon=epsilon, delta=delta, split_budget=split_budget, zeta=zeta, K=K, a=a, lr_c1=lr_c1, lr_c2=lr_c2
    )
    w, steps = gradient_ascent(
        lambda t: data.rows_at(order[t * B : (t + 1) * B]), T, B, w, private_range, rng, **settings
    )
    # The scale estimates, the number of empty histograms (bottoms), each step's noise level and route are
    # functions of the private histogram outputs and public sizes, so they are covered; how many entries were
    # truncated is not.
    return Output(
        w[:, None] * np.sign(w[np.argmax(np.abs(w))]),
        noise_scale=float(np.median(steps["sigmas"])),
        privacy=dp_pca_curve(epsilon, delta, private_range),
        outputs={
            "bottom_count": steps["bottoms"],
            "noise_sd_per_step": steps["sigmas"],
            "scale_estimates": steps["scales"],
            "mean_routes": steps["routes"],
            "iterates": steps["iterates"],
        },
        facts={
            "batches": T,
            "batch_size": B,
            "private_range": private_range,
            "noise_on": "mean gradient of each half-batch"
            if private_range
            else "mean gradient of each batch (public range: batches too small for Algorithms 4-5)",
        },
        diagnostics={"truncated_entries": steps["truncations"]},
    )


def dp_pca_curve(epsilon, delta, private_range) -> PrivacyCurve:
    """The guarantee of a DP-PCA pass (disjoint batches: parallel composition): (epsilon, delta) with the private
    range; over the public range every batch is one Gaussian step of sensitivity 1/B at the whole budget, so the
    run is exactly gaussian_mu(epsilon, delta)-GDP."""
    return PrivacyCurve.approx(epsilon, delta) if private_range else PrivacyCurve.gdp(gaussian_mu(epsilon, delta))

"""Distributed mechanisms: DPS-PCA (Ge et al. 2018) and capePCA with its baselines (Imtiaz & Sarwate).

Every site (data provider) holds disjoint rows; a person is in exactly one site, so guarantees
computed per site hold for the whole release (parallel composition) when the sites' noise is
independent. capePCA's correlated noise needs the joint-view check (docs/mechanisms.md, cape_pca).

Every mechanism here reads only the per-site Gram matrices and site sizes
(:meth:`dppca_core.data.prepare.PreparedData.site_partition`, memoised per partition), so all of them run from
rows or from sufficient statistics with a site column (:func:`dppca_core.data.stats.sufficient_stats`).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ..linalg import random_orthonormal, symmetric_gaussian, thin_qr, top_eigenvectors
from ..privacy import PrivacyCurve, cape_noise_design, composed_gaussian_sigma, composed_mu, gaussian_sigma, sensitivity
from ..registry import SITES_PARAM, Output, Param
from .sources import builtin_mechanism
from .central import ANALYZE_GAUSS_RATE
from .rates import NOISIER, Rate, gram_noise_rate, input_noise_rms, power_noise_rate, privacy_regimes

PAPER_GE = "Ge, Wang, Wang & Liu, Minimax-Optimal Privacy-Preserving Sparse PCA in Distributed Systems (AISTATS 2018)"
PAPER_CAPE = "Imtiaz & Sarwate, Distributed Differentially-Private Algorithms for Matrix and Tensor Factorization"
#: What this module's mechanisms declare alike: (epsilon, delta) under replace-one, the sites' sizes public (with
#: sites given as a count or sizes, removing a row shifts the site boundaries, so add/remove is not offered).
distributed_mechanism = functools.partial(
    builtin_mechanism, model="distributed", guarantee="approximate", relations=("replace",)
)
#: The audit of a distributed mechanism on one site: where the sites add independent noise, a person's guarantee is
#: that of their own site's messages (parallel composition), and with one site the release is that site's noisy
#: statistic without the other sites' independent noise on top (dps_pca, dist_conventional, otd_conventional).
ONE_SITE_AUDIT = {"sites": 1}


def _truncate_rows(V: np.ndarray, s_hat: int) -> np.ndarray:
    """Keep the s_hat rows of largest Euclidean norm, zero the others (Ge et al. Threshold)."""
    if s_hat >= V.shape[0]:
        return V
    keep = np.argsort(-np.linalg.norm(V, axis=1), kind="stable")[:s_hat]
    out = np.zeros_like(V)
    out[keep] = V[keep]
    return out


def _orthonormal_after_truncation(V, s_hat, rng):
    """ThinQR(Threshold(V)); a column zeroed out entirely is refilled at random on the kept rows."""
    T = _truncate_rows(V, s_hat)
    if np.linalg.matrix_rank(T) < V.shape[1]:
        rows = np.flatnonzero(np.linalg.norm(T, axis=1) > 0)
        rows = rows if rows.size >= V.shape[1] else np.arange(V.shape[0])[: max(s_hat, V.shape[1])]
        T = np.zeros_like(V)
        T[rows] = rng.standard_normal((rows.size, V.shape[1]))
    return thin_qr(T)


def _dps_sd(p) -> float:
    """The noise s.d. of each of the 10 steps on the pooled C Q: sqrt(S) x one site's (exact GDP composition)."""
    delta_2 = sensitivity("gram_times_basis", "replace", block_size=p.k)
    return composed_gaussian_sigma(delta_2, p.epsilon, p.delta, 10) * math.sqrt(p.sites)


DPS_PCA_RATE = power_noise_rate(
    "Ge et al. 2018 (Thm 4.3): privacy term sqrt(S T) sigma(eps, delta) sqrt(k(d-k)) / (n gap) + "
    "sqrt(s (k + log d) / n)",
    _dps_sd,
    terms=lambda p: (_dps_sd(p) * p.spread / p.n, math.sqrt(p.s * (p.k + math.log(p.d + 1)) / p.n)),
    why_n="10 iterations converge; noise sqrt(S T) sigma, no truncation (sparsity = d)",
    why_eps="noise sqrt(S T) sigma(eps, delta)",
)


@distributed_mechanism(
    name="dps_pca",
    rate=DPS_PCA_RATE,
    ordered_basis=False,
    title="DPS-PCA: distributed noisy truncated power method",
    paper=PAPER_GE + ", Algorithm 1",
    audit_statistic="power_iterates",
    audit_params=ONE_SITE_AUDIT,
    params=(
        SITES_PARAM,
        Param(
            "sparsity",
            "int",
            None,
            "Row sparsity s_hat kept by the truncation (paper: 2s-5s); default d (none).",
            low=1,
            high=100000,
        ),
        Param("iterations", "int", 10, "Number of noisy power iterations T (paper: 10).", low=1, high=200),
        Param(
            "init",
            "choice",
            "auto",
            "'random': data-independent start; 'noisy_diagonal': start on the s_hat largest entries of a noisy "
            "diag(X^T X), whose budget is composed with the iterations; 'auto': the noisy diagonal when a sparsity "
            "is set (the warm start the paper's analysis assumes), else random.",
            choices=("auto", "random", "noisy_diagonal"),
        ),
    ),
    notes=(
        "Each provider i sends C_i Q + G_i with its OWN Gaussian noise G_i (the paper's pseudo-code draws one G shared "
        "by all providers, which lets the server cancel it: n_i H_i - n_j H_j is noise-free). The server sums, takes a "
        "thin QR, keeps the s_hat rows of largest norm and re-orthonormalises. Calibration: the Frobenius sensitivity of "
        "C_i Q is sqrt(2) (replace, k >= 2), 1 (replace, k = 1, or add/remove) and T adaptive steps compose exactly in "
        "GDP, sigma = sqrt(T) Delta / mu*(eps, delta), 6-27x less noise than the paper's reconstructed "
        "nu = 2T sqrt(2 ln(2T/delta))/epsilon (basic composition, classic formula, triangle-inequality sensitivity), "
        "which needs epsilon < 1. Each person is in one provider, so the run is (epsilon, delta)-DP against the "
        "server under replace-one (the paper's relation). Add/remove is not offered: with sites given as a count or "
        "sizes, removing a row shifts the site boundaries and changes several providers' messages at once. "
        "Communication: d k numbers per provider per iteration. The per-iteration iterates are published in "
        "outputs['iterates'] (post-processing of the noisy sums, covered by the composition) for convergence "
        "traces."
    ),
)
def dps_pca(data, k, epsilon, delta, neighbors, rng, sites, sparsity, iterations, init):
    part = data.site_partition(sites)
    grams, sizes = part.grams, part.sizes
    s_hat = data.d if sparsity is None else min(int(sparsity), data.d)
    if s_hat < k:
        raise ValueError(f"sparsity s_hat = {s_hat} is below k = {k}; keep at least k rows (s_hat >= k).")
    if init == "auto":  # a public rule: the sparsity parameter, never the data
        init = "noisy_diagonal" if s_hat < data.d else "random"
    steps = iterations + (init == "noisy_diagonal")
    delta_step = sensitivity("gram_times_basis", neighbors, block_size=k)
    sigma = composed_gaussian_sigma(delta_step, epsilon, delta, steps)
    step_mus = [delta_step / sigma] * iterations
    if init == "noisy_diagonal":
        # diag(C) has L2 sensitivity sqrt(2) (replace) / 1 (add/remove), like upper(C) (docs/privacy.md#sensitivity)
        delta_diag = sensitivity("gram_upper", neighbors)
        sigma_diag = composed_gaussian_sigma(delta_diag, epsilon, delta, steps)
        step_mus.append(delta_diag / sigma_diag)
        noisy_diag = sum(np.diag(g) + rng.normal(0.0, sigma_diag, data.d) for g in grams)
        start = np.zeros((data.d, k))
        top = np.argsort(-noisy_diag, kind="stable")[:s_hat]
        start[top] = rng.standard_normal((top.size, k))
    else:
        start = random_orthonormal(data.d, k, rng)
    Q = _orthonormal_after_truncation(start, s_hat, rng)
    iterates = [Q]
    for _ in range(iterations):
        K = sum(g @ Q + rng.normal(0.0, sigma, size=Q.shape) for g in grams)
        Q = _orthonormal_after_truncation(thin_qr(K), s_hat, rng)
        iterates.append(Q)
    # each person is in one provider, and each provider's messages compose to mu-GDP (parallel across sites)
    return Output(
        Q,
        noise_scale=sigma,
        privacy=PrivacyCurve.gdp(composed_mu(step_mus)),
        outputs={"iterates": iterates},  # post-processing of the noisy sums: covered
        facts={
            "iterations": iterations,
            "site_sizes": sizes.tolist(),
            "sparsity": s_hat,
            "noise_on": "X_i^T X_i Q per provider and step",
            "aggregate_noise_sd": sigma * math.sqrt(len(sizes)),
            "communication": {
                "messages": 2 * len(sizes) * iterations,
                "numbers": 2 * len(sizes) * iterations * data.d * k,
            },
        },
    )


def _site_sigmas(sizes, epsilon, delta):
    """AG noise s.d. each site needs on its normalised A_s = C_s / N_s under replace-one (Delta = sqrt(2)/N_s)."""
    return np.array([gaussian_sigma(sensitivity("gram_upper", "replace") / int(m), epsilon, delta) for m in sizes])


def _correlated_symmetric(cov, d, rng):
    """S symmetric d x d matrices whose upper-triangle entries are i.i.d. across entries, N(0, cov) across sites."""
    S = cov.shape[0]
    iu = np.triu_indices(d)
    if not np.any(cov):
        return np.zeros((S, d, d))
    vals, vecs = np.linalg.eigh(cov)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    draws = root @ rng.standard_normal((S, iu[0].size))
    out = np.zeros((S, d, d))
    out[:, iu[0], iu[1]] = draws
    out[:, iu[1], iu[0]] = draws
    return out


#: What capePCA and its two baselines declare alike: Imtiaz & Sarwate's sites (their sizes public, so replace-one:
#: sensitivity sqrt(2)/N_s), Gaussian noise on each site's A_s = C_s / N_s, attacked at a Gram entry, and the
#: eigenvalues of the noisy aggregate released.
cape_mechanism = functools.partial(distributed_mechanism, audit_statistic="gram_entry", releases_eigenvalues=True)

#: CAPE's scale of the cancelling noise (capePCA here, capeAGN in dppca_core.tensor.mechanisms)
KAPPA_PARAM = Param(
    "kappa",
    "float",
    100.0,
    "Scale of the cancelling noise e (larger: joint view closer to ideal).",
    low=1.0,
    high=1e6,
    log=True,
)

#: the correlated noise cancels in the average: the pooled Analyze Gauss's rate, level and regimes
CAPE_PCA_RATE = dataclasses.replace(
    ANALYZE_GAUSS_RATE, formula="Imtiaz & Sarwate: pooled Analyze Gauss level, sigma sqrt(k(d-k)) / (n gap)"
)


@cape_mechanism(
    name="cape_pca",
    rate=CAPE_PCA_RATE,
    title="capePCA: correlated-noise distributed PCA",
    paper=PAPER_CAPE + ", Algorithm 1 (CAPE, Algorithm 3)",
    params=(SITES_PARAM, KAPPA_PARAM),
    notes=(
        "A trusted noise generator gives site s noise e_s with sum_s mu_s e_s = 0, the aggregator gives it f_s, the "
        "site adds its own g_s and sends A_s + e_s + f_s + g_s; the aggregator removes f_s and averages, so e cancels and "
        "the final noise equals the pooled Analyze Gauss level. Corrections to the paper: sensitivity sqrt(2)/N_s "
        "(replace-one), not 1/N_s; e_s and f_s symmetric like g_s (otherwise the aggregator symmetrises them away); "
        "the aggregator sees all messages jointly, so the guarantee is checked on the joint view (GDP Mahalanobis "
        "norm) and all noise is inflated if needed; unequal site sizes use a feasible design (the paper's closed form "
        "gives negative variances). Trust: the noise generator is trusted and never colludes with the aggregator; sites "
        "are honest-but-curious; the aggregator colluding with S-1 sites weakens site s's protection by up to sqrt(S) "
        "(it learns e_s), so zero colluders with the aggregator are tolerated for the stated guarantee; f_s protects "
        "against eavesdroppers and colluding sites. Communication: one message from each site (d(d+1)/2 numbers), plus "
        "e_s and f_s sent to it: 3S messages."
    ),
)
def cape_pca(data, k, epsilon, delta, neighbors, rng, sites, kappa):
    part = data.site_partition(sites)
    grams, sizes = part.grams, part.sizes
    design = cape_noise_design(sizes, epsilon, delta, kappa)
    S, d = len(sizes), data.d
    e = _correlated_symmetric(design["cov_e"], d, rng)
    f = np.stack([symmetric_gaussian(d, math.sqrt(v), rng) for v in design["var_f"]])
    g = np.stack([symmetric_gaussian(d, math.sqrt(v), rng) for v in design["var_g"]])
    messages = [grams[s] / sizes[s] + e[s] + f[s] + g[s] for s in range(S)]
    w = design["weights"]
    aggregate = sum(w[s] * (messages[s] - f[s]) for s in range(S))
    values, vectors = top_eigenvectors(aggregate, k)
    final_sd = float(np.sqrt(np.sum(w**2 * design["var_g"])))
    # the aggregator's joint view of all messages is max_s mu_joint[s]-GDP for a person at site s; the
    # released aggregate and its eigenpairs are post-processing of that view. Every fact below is a function
    # of the public site sizes, epsilon and delta only.
    return Output(
        vectors,
        noise_scale=final_sd,
        eigenvalues=values * data.n,
        privacy=PrivacyCurve.gdp(float(np.max(design["mu_joint"]))),
        facts={
            "site_sizes": sizes.tolist(),
            "noise_on": "upper(X^T X / n) after aggregation",
            "site_noise_sd": np.sqrt(design["var_g"]).tolist(),
            "per_site_target_sd": design["tau"].tolist(),
            "joint_view_mu": design["mu_joint"].tolist(),
            "mu_target": design["mu_target"],
            "inflation": design["inflation"],
            "communication": {"messages": 3 * S, "numbers": 3 * S * d * (d + 1) // 2},
        },
    )


DIST_CONVENTIONAL_RATE = gram_noise_rate(
    "Imtiaz & Sarwate: sqrt(S) x pooled Analyze Gauss level",
    lambda p: math.sqrt(p.sites),
    why_n="sqrt(S) x pooled noise, S = 5 sites",
    why_eps="sqrt(S) x pooled noise",
)


@cape_mechanism(
    name="dist_conventional",
    rate=DIST_CONVENTIONAL_RATE,
    title="Distributed conventional (each site adds its own noise)",
    paper=PAPER_CAPE + " (baseline 'conv')",
    audit_params=ONE_SITE_AUDIT,
    params=(SITES_PARAM,),
    notes=(
        "Each site releases its own Analyze Gauss A_s + G_s at the full (epsilon, delta) (sites hold disjoint data, "
        "so parallel composition applies; the authors' demo code's epsilon/S per site handicaps this baseline "
        "unjustifiably), with sensitivity sqrt(2)/N_s (replace-one); the aggregator averages with weights N_s/N. "
        "Noise variance about S times the pooled level. Trust: none beyond an honest aggregator's view being "
        "public. Communication: S messages of d(d+1)/2 numbers."
    ),
)
def dist_conventional(data, k, epsilon, delta, neighbors, rng, sites):
    part = data.site_partition(sites)
    grams, sizes = part.grams, part.sizes
    tau = _site_sigmas(sizes, epsilon, delta)
    w = sizes / sizes.sum()
    aggregate = sum(w[s] * (grams[s] / sizes[s] + symmetric_gaussian(data.d, tau[s], rng)) for s in range(len(sizes)))
    values, vectors = top_eigenvectors(aggregate, k)
    # each site's own message is (sqrt(2)/N_s / tau_s)-GDP; a person is in one site
    mu = float(np.max(sensitivity("gram_upper", "replace") / sizes / tau))
    return Output(
        vectors,
        noise_scale=float(np.sqrt(np.sum(w**2 * tau**2))),
        eigenvalues=values * data.n,
        privacy=PrivacyCurve.gdp(mu),
        facts={
            "site_sizes": sizes.tolist(),
            "site_noise_sd": tau.tolist(),
            "noise_on": "upper(X^T X / n) after aggregation",
            "communication": {"messages": len(sizes), "numbers": len(sizes) * data.d * (data.d + 1) // 2},
        },
    )


#: its first-order level is against the site's own sample (theory.measure_slope analyses site 0 alone)
DIST_LOCAL_RATE = Rate(
    "Analyze Gauss on n/S rows: S x pooled level",
    terms=lambda p: (p.sites * p.gram_sigma * p.spread / p.n, p.statistical),
    first_order=lambda lam, p: input_noise_rms(p.gram_sigma, lam, p.k),
    regimes=privacy_regimes("Analyze Gauss on n/S rows", "Analyze Gauss on n/S rows", **NOISIER),
)


@cape_mechanism(
    name="dist_local",
    rate=DIST_LOCAL_RATE,
    title="Distributed local (one site alone)",
    paper=PAPER_CAPE + " (baseline 'local')",
    params=(SITES_PARAM, Param("site", "int", 0, "Which site analyses its own data alone (0-based).", low=0, high=49)),
    notes=(
        "Analyze Gauss on one site's rows only (sensitivity sqrt(2)/N_s, replace-one): what a site gets without "
        "collaborating. No communication."
    ),
)
def dist_local(data, k, epsilon, delta, neighbors, rng, sites, site):
    part = data.site_partition(sites)
    if site >= len(part):
        raise ValueError(f"site = {site} does not exist: choose 0 <= site < {len(part)} (the number of sites).")
    size = int(part.sizes[site])
    tau = _site_sigmas([size], epsilon, delta)[0]
    noisy = part.grams[site] / size + symmetric_gaussian(data.d, tau, rng)
    values, vectors = top_eigenvectors(noisy, k)
    mu = sensitivity("gram_upper", "replace") / size / tau
    return Output(
        vectors,
        noise_scale=tau,
        eigenvalues=values * size,
        privacy=PrivacyCurve.gdp(mu),
        facts={
            "site_sizes": part.sizes.tolist(),
            "site": site,
            "site_rows": size,
            "noise_on": "upper(X_s^T X_s / N_s)",
            "communication": {"messages": 0, "numbers": 0},
        },
    )

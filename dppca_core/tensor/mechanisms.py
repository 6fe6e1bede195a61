"""Private orthogonal tensor decomposition: AGN, AVN and capeAGN with their baselines (Imtiaz & Sarwate).

All mechanisms release a decomposition of the moments of a mixture of spherical Gaussians or a single topic
model (:mod:`.moments`) in two stages: a private M2 gives the whitening W, a private M3 projected on W gives
an orthogonally decomposable K x K x K tensor, and the tensor power method (:mod:`.power`) recovers the
components a_k (``components``, d x K, not orthonormal) and the weights w_k (``outputs["weights"]``).

Noise is added to the unique coordinates of the symmetric moments only and the noisy matrix and tensor are
rebuilt by mirroring (:mod:`.symmetric`), so every released number is a function of noisy coordinates:
W's eigenpairs, the projected tensor M3(W, W, W) and the decomposition are post-processing. With K = d the
release determines the noisy M2 and M3 exactly, which is what the audit attacks.

Neighbouring relation: replace one sample (row or document), n and the site sizes public. Sensitivities and
calibrations: :mod:`.calibration`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..privacy import PrivacyCurve, composed_mu, gaussian_mu, gaussian_sigma
from ..registry import SITES_PARAM, Output, Param
from ..mechanisms.distributed import KAPPA_PARAM, ONE_SITE_AUDIT
from ..mechanisms.sources import builtin_mechanism
from ..data.sites import split_sites
import dppca_core.tensor.calibration as cal
from .auditing import STATISTIC as AUDIT_STATISTIC
from .auditing import tensor_audit_design
from .metrics import to_distributions
from .moments import prepare_tensor_input
from .power import decompose, whiten
from .symmetric import from_unique, from_upper, multilinear, n_unique, n_upper

#: What every tensor mechanism declares alike: its task, its guarantee ((epsilon, delta) unless it says otherwise) and
#: relation (replace-one), its input (the samples' moments), its audit design and how the audit reads it.
tensor_mechanism = functools.partial(
    builtin_mechanism,
    task="tensor",
    guarantee="approximate",
    relations=("replace",),
    prepare_input=prepare_tensor_input,
    audit_design=tensor_audit_design,
    audit_descriptions={
        AUDIT_STATISTIC: "the likelihood ratio of the noisy second and third moments rebuilt from the "
        "published whitening and projected tensor (K = d)"
    },
)

PAPER = "Imtiaz & Sarwate, Distributed Differentially-Private Algorithms for Matrix and Tensor Factorization"
PAPER_CENTRAL = PAPER + ", App. E (AGN/AVN, from Imtiaz & Sarwate, ICASSP 2018)"

COMMON_PARAMS = (
    Param(
        "split",
        "float",
        0.5,
        "Share of epsilon (and delta) spent on M2, which gives the whitening; the rest "
        "goes to M3. The paper splits equally.",
        low=0.05,
        high=0.95,
    ),
    Param(
        "sigma2",
        "float",
        0.05,
        "Mixture of Gaussians only: the public noise variance sigma^2 of each coordinate, "
        "in the data's original units (paper: 0.05). Ignored for the topic model.",
        low=0.0,
        high=100.0,
    ),
    Param(
        "mean_bound",
        "float",
        None,
        "Mixture of Gaussians only: a public bound on the norm of every component "
        "mean a_k, in the data's original units (the paper's model: 1). The released means are projected onto "
        "the ball of that radius (post-processing). Default: data_norm, the bound every mean of clipped samples "
        "meets. Ignored for the topic model, whose topics are projected onto the probability simplex.",
        low=1e-6,
        high=1e6,
        log=True,
    ),
    Param("restarts", "int", 20, "Random starts per component of the tensor power method.", low=1, high=500),
    Param("iterations", "int", 30, "Power iterations per start (and again for the best start).", low=1, high=1000),
)
#: the tensor mechanisms of one data holder, and those of several sites (each takes the sites too)
central_tensor_mechanism = functools.partial(tensor_mechanism, model="central", params=COMMON_PARAMS)
distributed_tensor_mechanism = functools.partial(
    tensor_mechanism, model="distributed", params=(SITES_PARAM,) + COMMON_PARAMS
)

SENSITIVITY_NOTE = (
    "Sensitivities (replace one sample, rows scaled to norm <= 1 by the public data_norm): upper(M2) sqrt(2)/n for "
    "both models (the paper's 1/n for the mixture bounds the spectral norm, not the l2 norm Gaussian noise needs); "
    "unique(M3) sqrt(2)/n for the topic model and (2 + 2 s^2 sqrt(d + 8))/n for the mixture, s^2 = sigma^2 / "
    "data_norm^2 (the paper's (2 + 6 d sigma^2)/n is looser). Topic-model moments are symmetrised before any noise "
    "(the paper's raw averages over ordered words are not symmetric, and symmetric noise would leave their "
    "antisymmetric part exact). Noise goes on the d(d+1)/2 and d(d+1)(d+2)/6 unique entries and is mirrored. "
    "Gaussian scales use the analytic Gaussian mechanism (valid for every epsilon), not the classic formula."
)


def unique_noise(size: int, sd: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. N(0, sd^2) noise for ``size`` unique coordinates: every Gaussian noise draw goes through here."""
    return rng.normal(0.0, sd, size)


def _sensitivities(data, n: int, sigma2: float) -> tuple[float, float]:
    return cal.m2_sensitivity(n), cal.m3_sensitivity(data.model, n, data.d, data.scaled_variance(sigma2))


def mean_radius(data, mean_bound) -> float:
    """The radius of the public ball every mixture mean lies in, in data units: the declared ``mean_bound``
    (the model's ||a_k|| <= bound), never more than data_norm (every mean of clipped samples is inside it)."""
    return data.data_norm if mean_bound is None else min(float(mean_bound), data.data_norm)


def project_components(data, components: np.ndarray, mean_bound=None) -> np.ndarray:
    """Components (in the scaled units of the moments) onto the public set the model declares, in data units.

    Mixture: each mean is scaled back by data_norm and projected onto the ball of radius
    :func:`mean_radius` (the Euclidean projection: shrink to the radius when longer). A noisy whitening can blow
    a component up to any length; left at the clipping radius (2.3-3.0 for the paper's models) such a component
    is farther from every true mean than a random guess, inside the declared ball it is not (docs/tensor.md).
    Topic model: the paper's projection onto the probability simplex (:func:`~.metrics.to_distributions`).
    Post-processing with public bounds only.
    """
    if data.model != "mog":
        return to_distributions(components)
    # in the scaled units (the ball's radius over data_norm, at most 1), then back: no overflow at any data_norm
    norms = np.linalg.norm(components, axis=0)
    radius = mean_radius(data, mean_bound) / data.data_norm
    return (components * np.minimum(1.0, radius / np.maximum(norms, 1e-300))) * data.data_norm


def _release(data, stages, rng, restarts, iterations, mean_bound, noise_scale, privacy, facts) -> Output:
    """Decompose the noisy ``stages`` (M2, its whitening, the whitened M3), map the components back to data units
    onto the public set, and sort everything into the Output."""
    M2hat, wh, whitened = stages
    dec = decompose(M2hat, whitened, wh, rng, restarts, iterations)
    components = project_components(data, dec.components, mean_bound)
    outputs = {
        "weights": dec.weights,
        "tensor_eigenvalues": dec.tensor_eigenvalues,
        "whitening": wh.W,
        "m2_eigenvalues": wh.eigenvalues,
        "m2_eigenvectors": wh.U,
        "whitened_tensor": dec.whitened_tensor,
    }
    return Output(components, noise_scale=noise_scale, privacy=privacy, outputs=outputs, facts=facts)


def _units_fact(data) -> str:
    return (
        "moments of the rows divided by data_norm (components are scaled back to data units and projected onto "
        "the ball of radius mean_bound, at most data_norm)"
        if data.model == "mog"
        else "moments of one-hot words; components post-processed to distributions "
        "(negatives set to 0, columns summing to 1)"
    )


def _stage_facts(data, delta2, delta3, sd2, sd3, budgets) -> dict:
    """The facts of a two-stage release: its sensitivities, noise s.d.s, coordinates, stage budgets and units,
    every one a function of public quantities."""
    eps1, d1, eps2, d2 = budgets
    return {
        "model": data.model,
        "noise_on": "unique entries of M3 (M2: see m2_noise_sd)",
        "m2_sensitivity": delta2,
        "m3_sensitivity": delta3,
        "m2_noise_sd": sd2,
        "m3_noise_sd": sd3,
        "m2_coordinates": n_upper(data.d),
        "m3_coordinates": n_unique(data.d),
        "stage_budgets": {"m2": {"epsilon": eps1, "delta": d1}, "m3": {"epsilon": eps2, "delta": d2}},
        "units": _units_fact(data),
    }


# -- central ---------------------------------------------------------------------------------------------------


@central_tensor_mechanism(
    name="otd_non_private",
    title="Tensor decomposition, non-private (pooled)",
    paper="Anandkumar, Ge, Hsu, Kakade & Telgarsky, Tensor Decompositions for Learning Latent Variable Models "
    "(JMLR 2014)",
    guarantee="none",
    notes=(
        "Exact moments of the pooled data, whitening with M2, tensor power method with restarts and deflation. "
        "The reference every private variant is compared with; no privacy."
    ),
)
def otd_non_private(data, k, epsilon, delta, neighbors, rng, split, sigma2, mean_bound, restarts, iterations):
    u2, u3 = data.moments(sigma2=sigma2)
    M2 = from_upper(u2, data.d)
    wh = whiten(M2, k)
    stages = M2, wh, multilinear(from_unique(u3, data.d), wh.W)
    facts = {"model": data.model, "units": _units_fact(data)}
    return _release(data, stages, rng, restarts, iterations, mean_bound, noise_scale=None, privacy=None, facts=facts)


def _noisy_stages(data, u2, u3, k, sd2, sd3, rng):
    """Gaussian noise of s.d. sd2 on upper(M2) and sd3 on unique(M3): the noisy M2, its whitening and the
    whitened noisy M3."""
    M2hat = from_upper(u2 + unique_noise(u2.size, sd2, rng), data.d)
    wh = whiten(M2hat, k)
    M3hat = from_unique(u3 + unique_noise(u3.size, sd3, rng), data.d)
    return M2hat, wh, multilinear(M3hat, wh.W)


def agn_at_scales(data, k, sd2, sd3, rng, sigma2=0.05, mean_bound=None, restarts=20, iterations=30) -> np.ndarray:
    """AGN's components with given noise s.d.s on M2 and M3 (the noise a paper's calibration gives), onto the
    model's public set: a diagnostic for comparing calibrations, not a release (no guarantee is attached)."""
    u2, u3 = data.moments(sigma2=sigma2)
    M2hat, wh, whitened = _noisy_stages(data, u2, u3, k, sd2, sd3, rng)
    return project_components(data, decompose(M2hat, whitened, wh, rng, restarts, iterations).components, mean_bound)


def _agn_stages(data, idx, k, epsilon, delta, split, sigma2, rng):
    """Analyze-Gauss-style noise on upper(M2) and unique(M3) of one data holder, the samples ``idx`` (None: all of
    them); returns the noisy stages (M2, its whitening, the whitened tensor), M3's noise s.d., the two stages' GDP
    parameters and the stage facts."""
    u2, u3 = data.moments(idx, sigma2=sigma2)
    budgets = cal.split_budget(epsilon, delta, split)
    eps1, d1, eps2, d2 = budgets
    delta2, delta3 = _sensitivities(data, data.n if idx is None else idx.size, sigma2)
    sd2, sd3 = gaussian_sigma(delta2, eps1, d1), gaussian_sigma(delta3, eps2, d2)
    stages = _noisy_stages(data, u2, u3, k, sd2, sd3, rng)
    return stages, sd3, [delta2 / sd2, delta3 / sd3], _stage_facts(data, delta2, delta3, sd2, sd3, budgets)


@central_tensor_mechanism(
    name="otd_agn",
    title="AGN: private tensor decomposition with Gaussian noise",
    paper=PAPER_CENTRAL + ", Algorithm 4",
    notes=(
        "Gaussian noise on upper(M2) (scale from (split eps, split delta)) and on the unique entries of M3 (the "
        "rest of the budget); W from the noisy M2, the noisy M3 projected on W, then the tensor power method. "
        "(eps1 + eps2, delta1 + delta2) by composition; the release states the exact composed guarantee, "
        "sqrt(mu1^2 + mu2^2)-Gaussian DP, which is tighter. " + SENSITIVITY_NOTE
    ),
)
def otd_agn(data, k, epsilon, delta, neighbors, rng, split, sigma2, mean_bound, restarts, iterations):
    stages, sd3, stage_mu, facts = _agn_stages(data, None, k, epsilon, delta, split, sigma2, rng)
    facts["stage_mu"] = stage_mu
    privacy = PrivacyCurve.gdp(composed_mu(stage_mu))
    return _release(data, stages, rng, restarts, iterations, mean_bound, sd3, privacy, facts)


@central_tensor_mechanism(
    name="otd_avn",
    title="AVN: private tensor decomposition with l2 K-norm (vector) noise",
    paper=PAPER_CENTRAL + ", Algorithm 5",
    notes=(
        "M2 as in AGN with (split eps, delta): all of delta goes to this Gaussian stage. M3 gets one draw of the "
        "l2 K-norm mechanism on its d(d+1)(d+2)/6 unique entries, density proportional to exp(-beta ||b||), "
        "beta = eps2 / Delta3: uniform direction, radius Gamma(shape d(d+1)(d+2)/6, rate beta). That stage is pure "
        "eps2-DP, so the whole release is (eps, delta)-DP (approximate, because of the Gaussian M2 stage). The "
        "per-coordinate noise s.d. sqrt(m + 1)/beta grows with the number m of unique entries, so at equal "
        "epsilon AVN is much noisier than AGN except in very small dimensions. " + SENSITIVITY_NOTE
    ),
)
def otd_avn(data, k, epsilon, delta, neighbors, rng, split, sigma2, mean_bound, restarts, iterations):
    u2, u3 = data.moments(sigma2=sigma2)
    eps1, eps2 = split * epsilon, (1.0 - split) * epsilon
    delta2, delta3 = _sensitivities(data, data.n, sigma2)
    sd2 = gaussian_sigma(delta2, eps1, delta)
    M2hat = from_upper(u2 + unique_noise(u2.size, sd2, rng), data.d)
    wh = whiten(M2hat, k)
    M3hat = from_unique(u3 + cal.sample_knorm(u3.size, delta3, eps2, rng), data.d)
    sd3 = cal.knorm_coordinate_sd(delta3, eps2, u3.size)
    facts = _stage_facts(data, delta2, delta3, sd2, sd3, (eps1, delta, eps2, 0.0))
    facts.update(
        m3_noise="l2 K-norm: uniform direction, radius Gamma(m, rate beta)",
        m3_rate_beta=cal.knorm_rate(delta3, eps2),
        stage_mu=[delta2 / sd2, None],
    )
    # (eps1, delta) Gaussian stage composed with a pure eps2 stage: (eps1 + eps2, delta) by basic composition
    stages, privacy = (M2hat, wh, multilinear(M3hat, wh.W)), PrivacyCurve.approx(epsilon, delta)
    return _release(data, stages, rng, restarts, iterations, mean_bound, sd3, privacy, facts)


# -- distributed -----------------------------------------------------------------------------------------------


def _sites(data, sites):
    parts = split_sites(data.n, sites)
    return parts, np.array([p.size for p in parts], dtype=float)


def _site_moments(data, sites, sigma2):
    """What both collaborating variants start from: the sites' sizes, their weights N_s / N, the per-sample
    sensitivities c2, c3 (a site's are c / N_s) and each site's moments (upper(M2_s), unique(M3_s))."""
    parts, sizes = _sites(data, sites)
    moments = [data.moments(idx, sigma2=sigma2) for idx in parts]
    return sizes, sizes / float(data.n), _sensitivities(data, 1, sigma2), moments


def _sites_release(data, stages, run, mu, sizes, sensitivities, variances, budgets, site_facts: dict) -> Output:
    """The release of a collaborating variant: the aggregator's noisy ``stages`` decomposed (``run``: the generator,
    restarts, iterations and mean bound), mu-GDP, with the stage facts at the pooled level (a site's sensitivity
    c / N_s, weighted by N_s / N, is c / N; the noise s.d. of the weighted average of the sites' own noise, of
    ``variances`` for M2 and M3, one per site), the site sizes and then ``site_facts``."""
    (c2, c3), N = sensitivities, float(data.n)
    weights = sizes / N
    sd2, sd3 = (float(np.sqrt(np.sum(weights**2 * var))) for var in variances)
    facts = _stage_facts(data, c2 / N, c3 / N, sd2, sd3, budgets)
    facts.update(site_sizes=sizes.astype(int).tolist(), **site_facts)
    return _release(data, stages, *run, sd3, PrivacyCurve.gdp(mu), facts)


def _correlated(cov: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """S x size draws: i.i.d. across coordinates, N(0, cov) across the S sites (the noise generator's e)."""
    vals, vecs = np.linalg.eigh(cov)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    return root @ rng.standard_normal((cov.shape[0], size))


@distributed_tensor_mechanism(
    name="otd_cape_agn",
    title="capeAGN: correlated-noise distributed tensor decomposition",
    paper=PAPER + ", Algorithm 2 (CAPE, Algorithm 3)",
    audit_params=ONE_SITE_AUDIT,  # the aggregator's view of one site is that site's message (the pooled AGN level)
    params=(SITES_PARAM,) + COMMON_PARAMS + (KAPPA_PARAM,),
    notes=(
        "Two CAPE rounds. Round 1: site s sends upper(M2_s) + e_s + f_s + g_s (e from a trusted noise generator "
        "with sum_s (N_s/N) e_s = 0, f from the aggregator, g its own); the aggregator removes f, averages with "
        "weights N_s/N (e cancels, the noise is the pooled AGN level), whitens and sends W. Round 2: the same "
        "noise on the unique entries of M3_s, and site s sends only the projection (M3_s + e + f + g)(W, W, W), "
        "K^3 numbers; the aggregator removes f's projection, averages and runs the power method. Corrections "
        "to the paper: e and f symmetric like g (built on unique entries); the aggregator's joint view of all "
        "messages is checked exactly (GDP Mahalanobis norm of each site's change, the capePCA design with "
        "variances scaled by the stage's sensitivity) and every s.d. inflated if needed; unequal sites use "
        "the feasible design of capePCA. Privacy: each round is mu_r-GDP for every person against the "
        "aggregator, and the rounds compose to sqrt(mu_1^2 + mu_2^2)-GDP; this gives (eps1 + eps2, delta1 + "
        "delta2). Trust: noise generator trusted and never colluding with the aggregator; honest-but-curious "
        "sites; an aggregator colluding with sites learns their e and weakens the others' protection. "
        + SENSITIVITY_NOTE
    ),
)
def otd_cape_agn(
    data, k, epsilon, delta, neighbors, rng, sites, split, sigma2, mean_bound, restarts, iterations, kappa
):
    sizes, weights, (c2, c3), moments = _site_moments(data, sites, sigma2)
    S, d = sizes.size, data.d
    budgets = eps1, d1, eps2, d2 = cal.split_budget(epsilon, delta, split)
    design2 = cal.cape_design(sizes, c2, eps1, d1, kappa)
    design3 = cal.cape_design(sizes, c3, eps2, d2, kappa)
    m2, m3 = n_upper(d), n_unique(d)

    # round 1: M2
    e2 = _correlated(design2["cov_e"], m2, rng)
    f2 = [unique_noise(m2, math.sqrt(v), rng) for v in design2["var_f"]]
    sent2 = [moments[s][0] + e2[s] + f2[s] + unique_noise(m2, math.sqrt(design2["var_g"][s]), rng) for s in range(S)]
    M2hat = from_upper(sum(weights[s] * (sent2[s] - f2[s]) for s in range(S)), d)
    wh = whiten(M2hat, k)

    # round 2: M3, projected on W at the sites
    e3 = _correlated(design3["cov_e"], m3, rng)
    whitened = np.zeros((k, k, k))
    for s in range(S):
        f3 = unique_noise(m3, math.sqrt(design3["var_f"][s]), rng)
        g3 = unique_noise(m3, math.sqrt(design3["var_g"][s]), rng)
        sent3 = multilinear(from_unique(moments[s][1] + e3[s] + f3 + g3, d), wh.W)
        whitened += weights[s] * (sent3 - multilinear(from_unique(f3, d), wh.W))

    mu2 = cal.joint_view_mu_scaled(sizes, c2, design2["cov_e"], design2["var_g"])
    mu3 = cal.joint_view_mu_scaled(sizes, c3, design3["cov_e"], design3["var_g"])
    mu = float(np.max(np.sqrt(mu2**2 + mu3**2)))
    run, variances = (rng, restarts, iterations, mean_bound), (design2["var_g"], design3["var_g"])
    site_facts = dict(
        site_noise_sd={"m2": np.sqrt(design2["var_g"]).tolist(), "m3": np.sqrt(design3["var_g"]).tolist()},
        joint_view_mu={"m2": mu2.tolist(), "m3": mu3.tolist()},
        mu_target={"m2": gaussian_mu(eps1, d1), "m3": gaussian_mu(eps2, d2)},
        inflation={"m2": design2["inflation"], "m3": design3["inflation"]},
        communication={"messages": 7 * S, "numbers": S * (3 * m2 + 2 * m3 + d * k + n_unique(k))},
    )
    return _sites_release(data, (M2hat, wh, whitened), run, mu, sizes, (c2, c3), variances, budgets, site_facts)


@distributed_tensor_mechanism(
    name="otd_conventional",
    title="Distributed tensor decomposition, conventional (each site adds its own noise)",
    paper=PAPER + " (baseline 'conv')",
    audit_params=ONE_SITE_AUDIT,
    notes=(
        "Each site adds AGN noise for its own N_s at the full budget (a person is in one site: parallel "
        "composition) to upper(M2_s); the aggregator averages with weights N_s/N, whitens and sends W; each site "
        "sends (M3_s + G_s)(W, W, W) with G_s its own AGN noise on the unique entries; the aggregator averages "
        "and decomposes. The averaged noise has about S times the pooled variance. " + SENSITIVITY_NOTE
    ),
)
def otd_conventional(data, k, epsilon, delta, neighbors, rng, sites, split, sigma2, mean_bound, restarts, iterations):
    sizes, weights, (c2, c3), moments = _site_moments(data, sites, sigma2)
    S, d = sizes.size, data.d
    budgets = eps1, d1, eps2, d2 = cal.split_budget(epsilon, delta, split)
    tau2 = np.array([gaussian_sigma(c2 / m, eps1, d1) for m in sizes])
    tau3 = np.array([gaussian_sigma(c3 / m, eps2, d2) for m in sizes])
    m2, m3 = n_upper(d), n_unique(d)
    M2hat = from_upper(sum(weights[s] * (moments[s][0] + unique_noise(m2, tau2[s], rng)) for s in range(S)), d)
    wh = whiten(M2hat, k)
    whitened = sum(
        weights[s] * multilinear(from_unique(moments[s][1] + unique_noise(m3, tau3[s], rng), d), wh.W) for s in range(S)
    )
    mu = float(np.max(np.sqrt((c2 / sizes / tau2) ** 2 + (c3 / sizes / tau3) ** 2)))
    run, variances = (rng, restarts, iterations, mean_bound), (tau2**2, tau3**2)
    site_facts = dict(
        site_noise_sd={"m2": tau2.tolist(), "m3": tau3.tolist()},
        communication={"messages": 3 * S, "numbers": S * (m2 + d * k + n_unique(k))},
    )
    return _sites_release(data, (M2hat, wh, whitened), run, mu, sizes, (c2, c3), variances, budgets, site_facts)


@distributed_tensor_mechanism(
    name="otd_local",
    title="Distributed tensor decomposition, local (one site alone)",
    paper=PAPER + " (baseline 'local')",
    params=(SITES_PARAM,)
    + COMMON_PARAMS
    + (Param("site", "int", 0, "Which site works alone (0-based).", low=0, high=49),),
    notes="AGN on one site's samples only (sensitivities with its N_s): what a site gets without collaborating. "
    + SENSITIVITY_NOTE,
)
def otd_local(data, k, epsilon, delta, neighbors, rng, sites, split, sigma2, mean_bound, restarts, iterations, site):
    parts, sizes = _sites(data, sites)
    if site >= len(parts):
        raise ValueError(f"site = {site} does not exist: choose 0 <= site < {len(parts)} (the number of sites).")
    idx = parts[site]
    stages, sd3, stage_mu, facts = _agn_stages(data, idx, k, epsilon, delta, split, sigma2, rng)
    facts.update(
        site_sizes=sizes.astype(int).tolist(),
        site=site,
        site_samples=int(idx.size),
        communication={"messages": 0, "numbers": 0},
    )
    privacy = PrivacyCurve.gdp(composed_mu(stage_mu))
    return _release(data, stages, rng, restarts, iterations, mean_bound, sd3, privacy, facts)

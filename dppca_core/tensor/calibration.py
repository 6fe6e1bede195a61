"""Sensitivities of the tensor moments and the noise calibrations built on them.

Neighbouring relation: replace one sample (one mixture row or one document); n (and each site's N_s) is public.
Noise is added to the unique coordinates of the symmetric moments (:mod:`.symmetric`), so every sensitivity
below is the l2 norm of the change of those coordinates. Every Gaussian scale comes from
:mod:`dppca_core.privacy`; the one new primitive (the l2 K-norm mechanism) is derived here.

Derivations (rows x, y of norm <= 1 for the mixture, after dividing by the public radius R;
one-hot words for the topic model):

* M2, both models: upper(x x^T - y y^T) has l2 norm at most sqrt(2) (x = e1, y = e2 attains it; in general
  ||upper(A)||^2 <= (||A||_F^2 + sum_i A_ii^2) / 2 <= 2), hence **Delta_2 = sqrt(2) / n**. The paper's 1/n for
  the mixture bounds the spectral norm of the change, which is not what Gaussian noise on the entries needs.
  The symmetrised topic-model M2 changes by sym(e_a e_b^T) - sym(e_c e_f^T); the upper coordinates of
  sym(e_a e_b^T) are non-negative with norm <= 1, and two non-negative vectors of norm <= 1 are at distance
  <= sqrt(2), so the same bound holds.
* M3, topic model: the unique coordinates of sym(e_a (x) e_b (x) e_c) are non-negative with norm
  1/sqrt(6), 1/sqrt(3) or 1 (three distinct, two equal, three equal words), so **Delta_3 = sqrt(2) / n**
  (attained by the documents (a, a, a) and (b, b, b)).
* M3, mixture: replacing x by y changes n M3 by x(x)x(x)x - y(x)y(x)y - s^2 T(x - y), where s^2 = sigma^2 / R^2 and
  T(v) = sum_d (v (x) e_d (x) e_d + e_d (x) v (x) e_d + e_d (x) e_d (x) v) comes from the mean in the correction term.
  ||unique(x(x)x(x)x - y(x)y(x)y)|| <= ||x(x)x(x)x - y(x)y(x)y||_F <= 2 (x = -y attains it) and ||unique(T(v))|| =
  sqrt(d + 8) ||v|| exactly (see :func:`dppca_core.tensor.symmetric.delta_tensor`) with ||x - y|| <= 2, hence
  **Delta_3 = (2 + 2 s^2 sqrt(d + 8)) / n**. The paper's (2 + 6 d sigma^2) / n is a looser bound on the full
  tensor's Frobenius norm.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import cape_noise_design, joint_view_mu


def m2_sensitivity(n: int) -> float:
    """l2 sensitivity of upper(M2) under replace-one, both models: sqrt(2) / n."""
    return math.sqrt(2.0) / n


def m3_sensitivity(model: str, n: int, d: int, s2: float = 0.0) -> float:
    """l2 sensitivity of unique(M3) under replace-one: sqrt(2)/n (topic model), (2 + 2 s2 sqrt(d+8))/n (mixture).

    ``s2`` is the mixture's noise variance in the scaled units of the rows (sigma^2 / data_norm^2).
    """
    if model == "stm":
        return math.sqrt(2.0) / n
    if model == "mog":
        if not (math.isfinite(s2) and s2 >= 0):
            raise ValueError(f"the mixture noise variance must be a finite number >= 0 (got {s2!r}).")
        return (2.0 + 2.0 * s2 * math.sqrt(d + 8.0)) / n
    raise ValueError(f"unknown model {model!r}; use 'mog' or 'stm'.")


def paper_m3_sensitivity(model: str, n: int, d: int, sigma2: float = 0.0) -> float:
    """The sensitivities the paper states (for comparison only): sqrt(2)/n (topic), 2/n + 6 d sigma^2/n (mixture)."""
    return math.sqrt(2.0) / n if model == "stm" else (2.0 + 6.0 * d * sigma2) / n


# -- the l2 K-norm mechanism (pure DP) ---------------------------------------------------------------------------


def knorm_rate(sensitivity: float, epsilon: float) -> float:
    """Rate beta = epsilon / Delta of the l2 K-norm mechanism, density proportional to exp(-beta ||b||_2) on R^m.

    Derivation: for outputs y = f(D) + b, the density ratio at any y is
    exp(-beta ||y - f(D)||) / exp(-beta ||y - f(D')||) <= exp(beta ||f(D) - f(D')||) <= exp(beta Delta)
    (triangle inequality), so beta = epsilon / Delta gives pure epsilon-DP. The density is spherically
    symmetric: the direction b / ||b|| is uniform on the sphere and the radius r has density proportional to
    r^(m-1) exp(-beta r) (the surface area of the radius-r sphere times the density), i.e. Gamma(shape m,
    rate beta), an Erlang law (a sum of m Exp(beta) variables).
    """
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number > 0 (got {sensitivity!r}).")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0 (got {epsilon!r}).")
    return epsilon / sensitivity


def knorm_coordinate_sd(sensitivity: float, epsilon: float, dim: int) -> float:
    """Standard deviation of each coordinate of the K-norm noise: sqrt(m + 1) / beta.

    E ||b||^2 = E r^2 = m (m + 1) / beta^2 for r ~ Gamma(m, beta), shared equally by the m coordinates.
    """
    return math.sqrt(dim + 1.0) / knorm_rate(sensitivity, epsilon)


def sample_knorm(dim: int, sensitivity: float, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """One draw b in R^dim from the density proportional to exp(-(epsilon / sensitivity) ||b||_2)."""
    beta = knorm_rate(sensitivity, epsilon)
    direction = rng.standard_normal(dim)
    direction /= np.linalg.norm(direction)
    radius = rng.gamma(shape=dim, scale=1.0 / beta)
    return radius * direction


# -- correlated noise (CAPE) for a statistic of per-sample sensitivity c / N_s --------------------------------


def cape_design(sizes, per_sample_sensitivity: float, epsilon: float, delta: float, kappa: float = 100.0) -> dict:
    """CAPE noise variances for a statistic whose sensitivity at site s is c / N_s (c = ``per_sample_sensitivity``).

    Reuses :func:`dppca_core.privacy.cape_noise_design`, which designs the noise for the
    normalised Gram matrix (c = sqrt(2)). Every variance of that design is proportional to c^2: the targets
    tau_s = sigma_AGM(c / N_s, epsilon, delta) are linear in c, and the feasible design (rho, the weights w_s and
    the constant of the cancelling noise) is homogeneous in them. Multiplying every standard deviation by
    r = c / sqrt(2) therefore keeps each site's joint-view GDP parameter (Delta_s sqrt((C^-1)_ss), with Delta_s
    and C^(-1/2) both scaled by r and 1/r) exactly equal to the matrix design's, which is at most mu*(epsilon,
    delta) after its own inflation. :func:`joint_view_mu_scaled` recomputes it for the scaled design.
    """
    sizes = np.asarray(sizes, dtype=float)
    base = cape_noise_design(sizes, epsilon, delta, kappa)
    r2 = (per_sample_sensitivity / math.sqrt(2.0)) ** 2
    out = dict(base)
    out.update(
        var_g=base["var_g"] * r2,
        var_f=base["var_f"] * r2,
        cov_e=base["cov_e"] * r2,
        tau=base["tau"] * math.sqrt(r2),
        tau_c=base["tau_c"] * math.sqrt(r2),
        scale=math.sqrt(r2),
        per_sample_sensitivity=float(per_sample_sensitivity),
    )
    return out


def joint_view_mu_scaled(sizes, per_sample_sensitivity: float, cov_e, var_g) -> np.ndarray:
    """Each site's joint-view GDP parameter for a statistic of sensitivity c / N_s, per unique coordinate:
    (c / N_s) sqrt((C^-1)_ss) with C = Cov(e) + diag(var_g) (:func:`joint_view_mu` has c = sqrt(2))."""
    return joint_view_mu(sizes, cov_e, var_g) * per_sample_sensitivity / math.sqrt(2.0)


def split_budget(epsilon: float, delta: float, split: float) -> tuple[float, float, float, float]:
    """(eps1, delta1, eps2, delta2): a share ``split`` of epsilon and delta to the M2 stage, the rest to M3."""
    if not (0.0 < split < 1.0):
        raise ValueError(f"split = {split!r} must lie strictly between 0 and 1 (the share of the budget for M2).")
    return split * epsilon, split * delta, (1.0 - split) * epsilon, (1.0 - split) * delta

"""Second moments of a sampler on the sphere against their exact values (tests/privacy/test_bingham.py and the
exponential mechanisms' tests/mechanisms/test_exponential.py)."""

import numpy as np


#: how many combined standard errors a sampled moment may stray from the exact one
Z = 5.0


def moments_agree(samples, exact, exact_se=0.0, z=Z):
    """True when every E[x_i^2] of ``samples`` matches ``exact`` within z combined standard errors."""
    sq = samples**2
    se = np.sqrt(sq.var(axis=0, ddof=1) / len(sq) + np.asarray(exact_se) ** 2) + 1e-15
    mean = sq.mean(axis=0)
    return bool(np.all(np.abs(mean - exact) < z * se)), {"sampler": mean, "reference": exact, "se": se}


def quadrature_moments_s2(lams):
    """E[x_i^2] under f ∝ exp(-sum lam_i x_i^2) on S^2 on a fine (theta, phi) grid.

    The pole sits on the axis with lam = 0 (the mode), so the peak is resolved at high concentration.
    """
    order = np.argsort(lams)
    theta = np.linspace(0, np.pi, 3001)
    phi = np.linspace(0, 2 * np.pi, 601)[:-1]
    T, P = np.meshgrid(theta, phi, indexing="ij")
    coords = [np.cos(T), np.sin(T) * np.cos(P), np.sin(T) * np.sin(P)]
    log_f = -sum(lams[order[i]] * coords[i] ** 2 for i in range(3))
    weights = np.exp(log_f - log_f.max()) * np.sin(T)
    moments = np.empty(3)
    for i in range(3):
        moments[order[i]] = np.sum(weights * coords[i] ** 2) / np.sum(weights)
    return moments

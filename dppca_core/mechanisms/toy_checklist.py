"""A toy mechanism (issue 58's checklist run, removed again): Gaussian noise on XᵀX under a name of its own."""

from __future__ import annotations

from ..linalg import symmetric_gaussian, top_eigenvectors
from ..privacy import PrivacyCurve, gaussian_sigma, sensitivity
from ..registry import Output, Provenance, mechanism
from .rates import CENTRAL_EPS, CENTRAL_N, Rate, Regime

TOY_RATE = Rate(
    "toy: sigma(eps, delta) sqrt(k(d-k)) / (n gap)",
    terms=lambda p: (p.gram_sigma * p.spread / p.n, p.statistical),
    regimes={
        "n": Regime("n", term="privacy", why="toy", **CENTRAL_N),
        "eps": Regime("eps", term="privacy", why="toy", **CENTRAL_EPS),
    },
)


@mechanism(
    name="toy_checklist",
    title="Toy of the checklist run",
    paper="none: a toy",
    model="central",
    guarantee="approximate",
    releases_eigenvalues=True,
    audit_statistic="gram_entry",
    rate=TOY_RATE,
    provenance=Provenance(
        read="nothing: a toy written for the checklist of issue 58",
        calibration="the analytic Gaussian mechanism on upper(XᵀX), as Analyze Gauss",
        structure="inferred",
        proof="replace one row and add or remove one row, as Analyze Gauss.",
    ),
    notes="Symmetric Gaussian noise on X^T X, the top-k eigenvectors released.",
)
def toy_checklist(data, k, epsilon, delta, neighbors, rng):
    delta_2 = sensitivity("gram_upper", neighbors)
    sigma = gaussian_sigma(delta_2, epsilon, delta)
    values, vectors = top_eigenvectors(data.gram + symmetric_gaussian(data.d, sigma, rng), k)
    return Output(vectors, noise_scale=sigma, eigenvalues=values, privacy=PrivacyCurve.gdp(delta_2 / sigma))

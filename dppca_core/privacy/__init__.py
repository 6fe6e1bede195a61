"""Privacy: every noise scale (calibration), privacy curves and their composition (curves), the grid every
published value is rounded to (grid) and exact noise on it (exact, with its scalar and vector samplers), the budget's
shares of a release (shares), the secure generator (randomness), and the private samplers the mechanisms draw
from (histogram, bingham).

``from dppca_core.privacy import gaussian_sigma`` and the other calibration names work as before the package
existed; the modules below import each other directly, never through this file.
"""

from .calibration import (
    NEIGHBOR_RELATIONS,
    cape_noise_design,
    check_neighbors,
    classic_gaussian_sigma,
    composed_gaussian_sigma,
    describe_neighbors,
    exponential_weight,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_mu,
    gaussian_sigma,
    joint_view_mu,
    laplace_scale,
    pure_epsilon_for_mu,
    sensitivity,
    sparse_vector_scales,
)
from .curves import (
    CURVE_KINDS,
    PrivacyCurve,
    compose,
    composed_mu,
    gdp_to_zcdp_rho,
    pure_to_gdp_mu,
    split_mu,
    total,
    zcdp_to_gdp_mu,
)
from .grid import GRID_BITS, UNIT_ROUNDOFF, GridNoise, grid_noise, grid_step, summation_error

__all__ = [
    "CURVE_KINDS",
    "GRID_BITS",
    "NEIGHBOR_RELATIONS",
    "UNIT_ROUNDOFF",
    "GridNoise",
    "PrivacyCurve",
    "cape_noise_design",
    "check_neighbors",
    "classic_gaussian_sigma",
    "compose",
    "composed_gaussian_sigma",
    "composed_mu",
    "describe_neighbors",
    "exponential_weight",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mu",
    "gaussian_sigma",
    "gdp_to_zcdp_rho",
    "grid_noise",
    "grid_step",
    "joint_view_mu",
    "laplace_scale",
    "pure_epsilon_for_mu",
    "pure_to_gdp_mu",
    "sensitivity",
    "sparse_vector_scales",
    "split_mu",
    "summation_error",
    "total",
    "zcdp_to_gdp_mu",
]

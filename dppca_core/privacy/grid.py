"""Noise on a grid: the calibration of every published "value + noise" (drawn exactly by
:mod:`dppca_core.privacy.exact`), with the rounding-error bounds of float sums that the grid must cover.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .calibration import check_sensitivity
from .curves import PrivacyCurve

#: the noise of a released value spans 2^GRID_BITS to 2^(GRID_BITS + 1) grid steps, so rounding the statistic to the
#: grid (half a step per coordinate) adds at most sqrt(m) steps to an L2 sensitivity, a 2^-GRID_BITS share of it
GRID_BITS = 20


#: unit roundoff of float64
UNIT_ROUNDOFF = 2.0**-53

#: the computation error a calibration counts is at least this share of the exact sensitivity spread over the
#: coordinates (2^-11 Delta / sqrt(m) for Gaussian noise, 2^-11 Delta / m for Laplace), which adds at most 2^-10 of
#: the sensitivity to the noise. Below it the noise scale is the same whatever the bound on the rounding error, so it
#: does not depend on n: n is private under add/remove, and every rounding-error bound grows with n (issue 54)
ERROR_FLOOR_SHARE = 2.0**-11


def summation_error(n_terms: int, magnitude: float) -> float:
    """A bound on the rounding error of a float64 sum of ``n_terms`` terms of total absolute value ``magnitude``.

    gamma_n * magnitude with gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
    ed., eq. 4.4): valid for any order of summation, so for BLAS and numpy's pairwise sums alike.

    Parameters
    ----------
    n_terms : int
        How many terms are summed.
    magnitude : float
        Their total absolute value.

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.summation_error(1000, 1.0) < 1e-12
    True
    """
    nu = max(int(n_terms), 1) * UNIT_ROUNDOFF
    if nu >= 0.5:
        raise ValueError(f"a sum of {n_terms} terms is beyond float64's error analysis.")
    return nu / (1.0 - nu) * float(magnitude)


@dataclass(frozen=True)
class GridNoise:
    """The calibration of one published vector: its grid, its noise in grid steps and its guarantee.

    Parameters
    ----------
    step : float
        The grid gamma, a power of two (1 for integer statistics such as counts).
    scale : Fraction
        Noise scale in grid steps: the standard deviation of the Gaussian whose rounding is added, or the Laplace
        scale b. Rounded up to 40 significant bits (never less noise than calibrated).
    sensitivity : float
        Sensitivity of the rounded statistic in grid steps (L2 for Gaussian noise, L1 for Laplace), with the
        rounding and the floating-point error of computing the statistic added.
    laplace : bool

    Examples
    --------
    >>> from dppca_core import privacy
    >>> noise = privacy.grid_noise(3, l2=1.0, mu=0.5)  # three values of L2 sensitivity 1, a 0.5-GDP share
    >>> noise.laplace, noise.step == privacy.grid_step(noise.noise_scale)
    (False, True)
    >>> print(noise.curve().describe())
    0.5-Gaussian DP (exact for the Gaussian noise added)
    """

    step: float
    scale: Fraction
    sensitivity: float
    laplace: bool = False

    @property
    def noise_scale(self) -> float:
        """The noise scale in the statistic's own units."""
        return float(self.scale) * self.step

    def curve(self) -> "PrivacyCurve":
        """The exact guarantee: the rounded release is a post-processing of the Gaussian (Laplace) mechanism on the
        rounded statistic, so it is (sensitivity / scale)-GDP (or pure epsilon-DP with epsilon = sensitivity / b)."""
        ratio = self.sensitivity / float(self.scale)
        return PrivacyCurve.pure(ratio) if self.laplace else PrivacyCurve.gdp(ratio)


def grid_step(noise_scale: float) -> float:
    """The power-of-two grid on which a value with noise of scale ``noise_scale`` is released (2^GRID_BITS to
    2^(GRID_BITS + 1) steps per noise scale).

    Parameters
    ----------
    noise_scale : float
        The noise's standard deviation (or Laplace scale) in the statistic's units.

    Returns
    -------
    float
        A power of two.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> privacy.grid_step(1.0) == 2.0**-20
    True
    """
    if not (math.isfinite(noise_scale) and noise_scale > 0):
        raise ValueError(f"the noise scale must be a finite number > 0 (got {noise_scale!r}).")
    return math.ldexp(1.0, math.floor(math.log2(noise_scale)) - GRID_BITS)


def grid_noise(
    size: int,
    *,
    l2: float | None = None,
    mu: float | None = None,
    l1: float | None = None,
    epsilon: float | None = None,
    integer: bool = False,
    computation_error: float = 0.0,
) -> GridNoise:
    """Calibrate the exact release of a vector of ``size`` values: Gaussian (``l2``, ``mu``) or Laplace (``l1``,
    ``epsilon``).

    Parameters
    ----------
    size : int
        Number of values released.
    l2, mu : float
        L2 sensitivity of the exact statistic and the Gaussian-DP parameter its share may spend.
    l1, epsilon : float
        L1 sensitivity and the pure epsilon (Laplace).
    integer : bool
        The statistic is an integer vector computed exactly (counts): released on the grid of 1, no rounding.
    computation_error : float
        A bound on the floating-point error of each computed value (see :func:`summation_error`). Two neighbouring
        datasets' computed values differ by at most the exact sensitivity plus twice this per coordinate. Counted
        as at least :func:`error_floor` of the sensitivity, so that a bound below it (one that grows with n, a
        private number under add/remove) leaves the noise scale the same to the last bit.

    Notes
    -----
    The statistic s is computed as s_hat with ``|s_hat_j - s_j| <= e``, rounded to q = round(s_hat / gamma), and
    q + round(scale * G) is released. ||q(D) - q(D')||_2 <= Delta / gamma + sqrt(m) (1 + 2 e / gamma): the rounding
    moves each coordinate by at most half a step, the computation by at most e. Since q is on the grid,
    q + round(scale G) = round(q + scale G): a post-processing of the Gaussian mechanism with that sensitivity, hence
    exactly (sensitivity / scale)-GDP. Laplace: the same with L1 norms (m instead of sqrt(m)).

    Returns
    -------
    GridNoise
        The grid step, the noise scale in steps and the guarantee (``curve()``).

    Raises
    ------
    ValueError
        Unless exactly one of (``l2``, ``mu``) and (``l1``, ``epsilon``) is given, with values in range.

    Examples
    --------
    >>> from dppca_core import privacy
    >>> noise = privacy.grid_noise(3, l2=1.0, mu=0.5)
    >>> print(noise.curve().describe())
    0.5-Gaussian DP (exact for the Gaussian noise added)
    """
    from .exact import exact_scale

    size = int(size)
    gaussian = mu is not None
    if gaussian == (epsilon is not None) or (gaussian and l2 is None) or (not gaussian and l1 is None):
        raise ValueError("grid_noise takes either l2 and mu (Gaussian) or l1 and epsilon (Laplace).")
    budget = mu if gaussian else epsilon
    exact = l2 if gaussian else l1
    if not (math.isfinite(budget) and budget > 0):
        raise ValueError(f"{'mu' if gaussian else 'epsilon'} must be a finite number > 0 (got {budget!r}).")
    check_sensitivity(exact)
    if integer:
        step, slack = 1.0, 0.0
    else:
        step = grid_step(exact / budget)
        counted = max(float(computation_error), error_floor(exact, size, gaussian))
        per_coordinate = 1.0 + 2.0 * counted / step
        slack = (math.sqrt(size) if gaussian else size) * per_coordinate
    total = exact / step + slack
    return GridNoise(step=step, scale=exact_scale(total / budget), sensitivity=total, laplace=not gaussian)


def error_floor(sensitivity: float, size: int, gaussian: bool = True) -> float:
    """The least computation error :func:`grid_noise` counts for a vector of ``size`` values of this exact
    sensitivity: :data:`ERROR_FLOOR_SHARE` of it per coordinate in L2 (Gaussian: / sqrt(size)) or L1 (Laplace:
    / size). It costs at most 2^-10 of the sensitivity in noise, and makes the noise scale the same for every
    bound on the rounding error below it: a public function of the sensitivity and the size alone."""
    spread = math.sqrt(max(int(size), 1)) if gaussian else max(int(size), 1)
    return ERROR_FLOOR_SHARE * float(sensitivity) / spread

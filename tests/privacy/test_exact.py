"""Exact integer noise: the samplers draw exactly the rounded Gaussian and Laplace laws, ties between uniform digits
are decided exactly, and the grid calibration earns the guarantee it states (checked against dp-accounting)."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import chisquare

from dppca_core.privacy import exact
from dppca_core.privacy.exact import noisy_on_grid, on_grid, rounded_laplace, rounded_normal
from dppca_core.privacy.samplers import round_scaled, LazyUniform, WordSource
from dppca_core.privacy.vector_samplers import _Extensions, _less, _less_exact, _vector_round
from dppca_core.privacy import GRID_BITS, grid_noise, grid_step
from dppca_core.privacy.grid import error_floor

SCALES = [Fraction(1, 3), Fraction(13, 10), Fraction(5), Fraction(17)]


def _normal_pmf(ks, s):
    return ndtr((ks + 0.5) / s) - ndtr((ks - 0.5) / s)


def _laplace_pmf(ks, b):
    cdf = lambda x: np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))
    return cdf(ks + 0.5) - cdf(ks - 0.5)


def _chi_square_p(sample, pmf):
    ks = np.arange(sample.min(), sample.max() + 1)
    p = pmf(ks)
    observed = np.bincount(sample - sample.min(), minlength=ks.size)
    keep = p * sample.size > 20  # cells with enough expected counts; the rest pooled into one
    obs = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(p[keep], 1.0 - p[keep].sum()) * sample.size
    if expected[-1] < 5:
        obs, expected = obs[:-1], expected[:-1] * obs[:-1].sum() / expected[:-1].sum()
    return chisquare(obs, expected).pvalue


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("batch", [1, 4096], ids=["one at a time", "vectorised"])
def test_rounded_normal_has_the_exact_law(scale, batch):
    """round(scale G) takes j with probability Phi((j + 1/2)/scale) - Phi((j - 1/2)/scale). 80,000 draws per case
    (30,000 one at a time); a wrong law (2% more spread, or floor instead of round) drives the p-value below 1e-6
    (test_the_chi_square_check_has_power)."""
    rng = np.random.default_rng(int(scale * 1000) + batch)
    draws = 80_000 if batch > 1 else 30_000
    sample = np.concatenate([rounded_normal(batch, scale, rng) for _ in range(draws // batch)])
    assert _chi_square_p(sample, lambda ks: _normal_pmf(ks, float(scale))) > 1e-4
    assert abs(sample.mean()) < 5 * float(scale + 1) / np.sqrt(sample.size)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("batch", [1, 4096], ids=["one at a time", "vectorised"])
def test_rounded_laplace_has_the_exact_law(scale, batch):
    rng = np.random.default_rng(int(scale * 1000) + batch + 7)
    draws = 80_000 if batch > 1 else 30_000
    sample = np.concatenate([rounded_laplace(batch, scale, rng) for _ in range(draws // batch)])
    assert _chi_square_p(sample, lambda ks: _laplace_pmf(ks, float(scale))) > 1e-4


def test_the_chi_square_check_has_power():
    """A law with 2% more spread, or one that truncates instead of rounding, is rejected by the same check."""
    rng = np.random.default_rng(0)
    wide = rounded_normal(80_000, Fraction(102, 100) * 5, rng)
    assert _chi_square_p(wide, lambda ks: _normal_pmf(ks, 5.0)) < 1e-6
    floored = np.floor(rng.normal(0, 5.0, 80_000)).astype(np.int64)
    assert _chi_square_p(floored, lambda ks: _normal_pmf(ks, 5.0)) < 1e-6


def test_a_generator_with_32_bit_raw_words_still_gives_the_exact_law():
    """numpy's MT19937 gives 32-bit raw words: read as 64-bit digits they would not be uniform."""
    rng = np.random.Generator(np.random.MT19937(4))
    sample = rounded_normal(40_000, Fraction(5), rng)
    assert _chi_square_p(sample, lambda ks: _normal_pmf(ks, 5.0)) > 1e-4


def test_a_seed_reproduces_and_fresh_generators_differ():
    a = rounded_normal(300, Fraction(7), np.random.default_rng(5))
    assert np.array_equal(a, rounded_normal(300, Fraction(7), np.random.default_rng(5)))
    assert not np.array_equal(a, rounded_normal(300, Fraction(7), np.random.default_rng(6)))


def test_ties_in_the_first_digit_are_decided_on_further_digits():
    words = WordSource(np.random.default_rng(1))
    assert _less_exact(words, [5, 1], [5, 2]) and not _less_exact(words, [5, 3], [5, 2])
    a, b = [9], [9]
    result = _less_exact(words, a, b)  # decided by fresh digits, drawn for both and kept
    assert len(a) == len(b) >= 2 and result == (a[-1] < b[-1]) and a[:-1] == b[:-1]
    # vectorised: a tie at position 1 extends the stored deviate's digits in place, and the fresh one's in z_ext
    stored = _Extensions()
    z = np.array([3, 7, 1], dtype=np.uint64)
    y = np.array([4, 7, 0], dtype=np.uint64)
    z_ext = _Extensions()
    out = _less(words, z, y, stored, np.array([10, 11, 12]), z_ext)
    assert out[0] and not out[2]
    y_digits, z_digits = stored.digits(11, 7), z_ext.digits(11, 7)
    assert len(y_digits) >= 2 and len(z_digits) >= 2 and out[1] == (z_digits[1] < y_digits[1])
    # a later comparison with the same stored deviate reads the digits it already has
    again = _less(words, np.array([7], dtype=np.uint64), np.array([7], dtype=np.uint64), stored, np.array([11]))
    assert stored.digits(11, 7)[:2] == y_digits[:2] and again.dtype == bool


def test_grid_cells_near_a_boundary_are_decided_exactly():
    """Values within rounding error of a cell boundary go to integer arithmetic and agree with it; others agree
    with it too."""
    scale = Fraction(3, 2)
    words = WordSource(np.random.default_rng(2))
    # x with scale * (k + x) + 1/2 = 2 exactly at x = 1/2 + ... : pick digits straddling the boundary
    k = np.array([0, 1, 0, 1], dtype=np.int64)
    firsts = np.array([1 << 63, (1 << 62) // 3 * 2, 12345, (1 << 63) + 5], dtype=np.uint64)
    ext = _Extensions()
    fast = _vector_round(words, k, firsts, ext, scale)
    for i in range(4):
        u = LazyUniform(words)
        u.digits = ext.digits(i, firsts[i])
        assert fast[i] == round_scaled(int(k[i]), u, scale)


def test_grid_release_publishes_multiples_of_the_grid_exactly():
    values = np.array([1.0 / 3.0, -2.5e3, 7.123456789])
    out = noisy_on_grid(values, 2.0**-10, Fraction(50), np.random.default_rng(0))
    steps = out / 2.0**-10
    assert np.array_equal(steps, np.rint(steps)) and np.all(np.abs(out - values) < 0.05 * 2.0**-10 * 50 * 40)
    assert np.array_equal(on_grid([0.75, -0.25, 0.125], 0.5), [2, 0, 0])  # ties go to even (numpy's rint)
    with pytest.raises(ValueError, match="too large"):
        on_grid([1e300], 1e-10)
    big = on_grid([2.0**70 + 2.0**20], 1.0)  # beyond int64: exact Python integers
    assert big.dtype == object and big[0] == 2**70 + 2**20
    out = noisy_on_grid([2.0**70], 1.0, Fraction(3), np.random.default_rng(0))
    assert abs(out[0] - 2.0**70) <= 2.0**18


def test_grid_calibration_adds_the_rounding_to_the_sensitivity():
    noise = grid_noise(20, l2=2.0, mu=0.075, computation_error=1e-9)
    sigma = 2.0 / 0.075
    assert noise.step == grid_step(sigma) and 2**GRID_BITS <= sigma / noise.step < 2 ** (GRID_BITS + 1)
    counted = max(1e-9, error_floor(2.0, 20))  # a computation error below the public floor counts as the floor
    assert noise.sensitivity == pytest.approx(2.0 / noise.step + np.sqrt(20) * (1 + 2 * counted / noise.step))
    assert noise.sensitivity <= (1 + 2**-10) * 2.0 / noise.step + np.sqrt(20)
    # below the floor the bound on the rounding error (which grows with n) leaves the calibration the same bits
    assert grid_noise(20, l2=2.0, mu=0.075, computation_error=0.0) == noise
    assert noise.curve().mu <= 0.075 and noise.noise_scale == pytest.approx(sigma, rel=2**-10 + 1e-4)
    counts = grid_noise(576, l2=np.sqrt(2), mu=0.075, integer=True)
    assert counts.step == 1.0 and counts.sensitivity == pytest.approx(np.sqrt(2))
    pure = grid_noise(5, l1=2.0, epsilon=0.1)
    assert pure.laplace and pure.curve().epsilon <= 0.1
    floor = error_floor(2.0, 5, gaussian=False)  # Laplace: the floor spread over the L1 norm
    assert pure.sensitivity == pytest.approx(2.0 / pure.step + 5 * (1 + 2 * floor / pure.step))
    with pytest.raises(ValueError, match="either"):
        grid_noise(3, l2=1.0, epsilon=1.0)


def test_grid_curves_match_dp_accounting():
    """The rounded release is a post-processing of the Gaussian (Laplace) mechanism with the grid sensitivity and
    scale: its stated curve is that mechanism's exact curve, which dp-accounting computes independently."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    for noise in (grid_noise(20, l2=2.0, mu=0.3), grid_noise(1, l2=1.0, mu=1.0, integer=True)):
        sigma = float(noise.scale)
        reference = pld.from_gaussian_mechanism(
            sigma, sensitivity=noise.sensitivity, value_discretization_interval=1e-4
        )
        for eps in (0.1, 0.5, 1.0, 2.0):
            assert noise.curve().delta_at(eps) == pytest.approx(reference.get_delta_for_epsilon(eps), abs=1e-6)
    lap = grid_noise(1, l1=1.0, epsilon=0.7, integer=True)
    reference = pld.from_laplace_mechanism(
        float(lap.scale), sensitivity=lap.sensitivity, value_discretization_interval=1e-4
    )
    assert reference.get_delta_for_epsilon(lap.curve().epsilon + 1e-3) == pytest.approx(0.0, abs=1e-6)
    assert lap.curve().epsilon == pytest.approx(0.7, rel=1e-8)


def test_the_rounded_gaussian_is_no_less_private_than_its_curve_states():
    """Numerically, for a count of sensitivity 1: the exact hockey-stick divergence of round(G) vs 1 + round(G)
    never exceeds the Gaussian curve (post-processing can only help), and dp-accounting's discrete Gaussian at the
    same scale is close to both (the law the issue names, for comparison)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    noise = grid_noise(1, l2=1.0, mu=0.8, integer=True)
    s = float(noise.scale)
    ks = np.arange(-int(40 * s) - 2, int(40 * s) + 3)
    p, q = _normal_pmf(ks, s), _normal_pmf(ks - 1, s)
    discrete = pld.from_discrete_gaussian_mechanism(s, sensitivity=1)
    for eps in (0.0, 0.3, 0.8, 1.5):
        exact_delta = max(np.sum(np.maximum(p - np.exp(eps) * q, 0)), np.sum(np.maximum(q - np.exp(eps) * p, 0)))
        assert exact_delta <= noise.curve().delta_at(eps) + 1e-12
        assert discrete.get_delta_for_epsilon(eps) == pytest.approx(noise.curve().delta_at(eps), abs=0.02)


def test_vector_and_scalar_paths_cover_both_sizes():
    assert exact.VECTOR_MIN > 1
    small = rounded_normal(exact.VECTOR_MIN - 1, Fraction(3), np.random.default_rng(0))
    large = rounded_normal(exact.VECTOR_MIN, Fraction(3), np.random.default_rng(0))
    assert small.dtype == large.dtype == np.int64


def test_a_release_calibrates_as_grid_noise_does_memoised_or_not():
    """release_vector's calibration is memoised (shares._calibrated): the grid and noise it returns are grid_noise's
    for the same numbers, Gaussian and Laplace, floats and counts, whether or not the cache holds them already."""
    from dppca_core.privacy.shares import Share, _calibrated, release_vector

    gaussian, pure = Share(0.1, 0.5, 1e-7, 0.3), Share(0.1, 0.4, 0.0)
    cases = [
        (gaussian, dict(l2=2.0, l1=9.0, computation_error=1e-9), dict(l2=2.0, mu=0.3, computation_error=1e-9)),
        (gaussian, dict(l2=1.0, l1=1.0, integer=True), dict(l2=1.0, mu=0.3, integer=True)),
        (pure, dict(l2=7.0, l1=2.0, computation_error=1e-9), dict(l1=2.0, epsilon=0.4, computation_error=1e-9)),
    ]
    for share, given, calibrated in cases:
        want = grid_noise(4, **calibrated)
        for _ in range(2):  # the first call fills the cache, the second reads it
            _, noise = release_vector(np.zeros(4), share, np.random.default_rng(0), **given)
            assert noise == want and noise.scale == want.scale and type(noise.scale) is type(want.scale)
    assert _calibrated.cache_info().hits >= 3


def test_gaussian_epsilon_takes_numpy_numbers_and_is_the_uncached_root():
    from dppca_core.privacy import calibration

    plain = calibration._gaussian_epsilon.__wrapped__(0.7, 1e-6)  # the function the cache wraps, run afresh
    assert calibration.gaussian_epsilon(0.7, 1e-6) == plain
    assert calibration.gaussian_epsilon(np.float64(0.7), np.array(1e-6)) == plain
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        calibration.gaussian_epsilon(0.7, 0.0)

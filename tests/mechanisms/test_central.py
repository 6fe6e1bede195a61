"""The central mechanisms of dppca_core/mechanisms/central.py: the non-private reference, Analyze Gauss, MOD-SuLQ
and the private power method, against their theory (and their golden cases, recorded at the end)."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from tests.helpers import spiked_rows

X_SMALL, _ = spiked_rows(400, 8, 3, seed=1)


def test_non_private_equals_eigh():
    X = X_SMALL
    rel = dc.run("non_private", X, 3, 1.0)
    vals, vecs = np.linalg.eigh(X.T @ X)
    top = vecs[:, ::-1][:, :3]
    assert np.abs(np.abs(np.sum(rel.components * top, axis=0)) - 1).max() < 1e-10
    assert np.allclose(rel.eigenvalues, vals[::-1][:3], atol=1e-10)
    assert rel.guarantee == "none" and rel.epsilon == math.inf


@pytest.mark.parametrize("name", ["analyze_gauss", "private_power", "mod_sulq"])
def test_error_falls_with_n(name):
    def mean_err(n):
        X, U = spiked_rows(n, 6, 2, seed=3)
        return np.mean([metrics.subspace_distance(dc.run(name, X, 2, 1.0, seed=s).components, U) for s in range(6)])

    assert mean_err(40000) < 0.7 * mean_err(1000)


def test_analyze_gauss_matches_first_order_perturbation_theory():
    # First-order eigenvector perturbation (Stewart & Sun; Davis-Kahan in the small-noise limit):
    # E||sin Theta||_F^2 ~= sigma^2 * sum_{i<=k<j} 1/(lambda_i - lambda_j)^2 for symmetric noise whose
    # off-diagonal entries in any orthonormal basis have variance sigma^2. Measured RMS error over 60 draws
    # must sit within 25% of it (Monte Carlo s.e. of the mean square ~ 1/sqrt(60) relative, i.e. 13%).
    X, _ = spiked_rows(20000, 10, 3, seed=4)
    k, eps, delta = 3, 2.0, 1e-6
    lam, vecs = np.linalg.eigh(X.T @ X)
    lam, vecs = lam[::-1], vecs[:, ::-1]
    ref = vecs[:, :k]
    prepared = dc.prepare(X)
    sq = [
        metrics.subspace_distance(dc.run("analyze_gauss", prepared, k, eps, delta, seed=s).components, ref) ** 2
        for s in range(60)
    ]
    sigma = dc.privacy.gaussian_sigma(math.sqrt(2), eps, delta)
    predicted = sigma**2 * sum(1 / (lam[i] - lam[j]) ** 2 for i in range(k) for j in range(k, len(lam)))
    assert predicted < 0.1  # small-noise regime where the first-order theory applies
    assert 0.8 < math.sqrt(np.mean(sq) / predicted) < 1.25


@pytest.mark.parametrize(
    "name,stat,ratio",
    [
        ("analyze_gauss", None, math.sqrt(2)),
        ("private_power", None, math.sqrt(2)),
    ],
)
def test_replace_noise_is_sqrt2_times_add_remove(name, stat, ratio):
    rep = dc.run(name, X_SMALL, 3, 1.0, neighbors="replace", seed=0)
    add = dc.run(name, X_SMALL, 3, 1.0, neighbors="add_remove", seed=0)
    assert rep.noise_scale / add.noise_scale == pytest.approx(ratio)


def test_private_power_block_one_has_sensitivity_one_under_replace():
    rep = dc.run("private_power", X_SMALL, 1, 1.0, neighbors="replace", seed=0)
    add = dc.run("private_power", X_SMALL, 1, 1.0, neighbors="add_remove", seed=0)
    assert rep.noise_scale == pytest.approx(add.noise_scale)


def test_private_power_noise_is_gdp_composed():
    rel = dc.run("private_power", X_SMALL, 2, 1.0, 1e-6, seed=0, iterations=16)
    assert rel.noise_scale == pytest.approx(4 * dc.privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-6))
    pure = dc.run("private_power", X_SMALL, 2, 1.0, seed=0, noise="laplace")
    assert pure.guarantee == "pure" and pure.delta == 0.0


def test_mod_sulq_beta_formula_and_relation():
    rel = dc.run("mod_sulq", X_SMALL, 2, 0.5, 1e-4, seed=0)
    n, d, eps, delta = 400, 8, 0.5, 1e-4
    beta = (d + 1) / (n * eps) * math.sqrt(2 * math.log((d * d + d) / (2 * math.sqrt(2 * math.pi) * delta))) + 1 / (
        n * math.sqrt(eps)
    )
    assert rel.noise_scale == pytest.approx(beta)
    with pytest.raises(ValueError, match="replace"):
        dc.run("mod_sulq", X_SMALL, 2, 0.5, neighbors="add_remove")


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
audit/analyze_gauss 9244315ff3048f534c49d2c3 f309626f2130be04
audit/analyze_gauss_add_remove e8f325d5db2a0775ca4c7afc f309626f2130be04
audit/analyze_gauss_d3_n30 f2be62a8e720b03746717972 f309626f2130be04
audit/mod_sulq 67dbcf43692fc2e9f989f9b4 f309626f2130be04
audit/non_private 60331e4c0af1b77176d4e95c 842bdbf23c4e2dbe
audit/private_power e304198df83ad72c02b56181 f309626f2130be04
release/analyze_gauss ff376b8bee2ca99fcf06d3cc 497513c8c55ecce8
release/mod_sulq 41f75a5d4c6206145a0c1ab0 f59141622e8d2387
release/non_private 6b4f075b023affcc00045da0 96541b961d4a6274
release/private_power fb609fd92ded0c038f6093d6 165ba6b737a54d8c
run/analyze_gauss 33a9684518ed906e30290d00 98e420d8994064c2
run/analyze_gauss/add_remove ff8b96a1737db8da9aa7328f bd07355ccebd1064
run/mod_sulq e739700be1f95f014b07abe8 3497564257a95c12
run/mod_sulq/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
run/non_private 2be03f9a2db61050abbbfaec 7ea1564fee7be80d
run/non_private/add_remove acd192c5ba596f4bd9a1feba 2b367688fdb07576
run/private_power b199a6d37fb12a58c1d6f038 fc5370776d084bce
run/private_power/add_remove d0e873b3121c07491930f5dd f5439b4f16c8adb3
run/private_power/laplace 29ad22dbe2e2ec741fc4a388 449b4f4d2cda7f2b
"""

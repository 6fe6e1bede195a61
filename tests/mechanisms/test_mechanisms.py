"""Behaviour every registered mechanism must have, plus statistical checks of the central ones."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.mechanisms.wishart import wishart_noise
from tests.helpers import spiked_rows

X_SMALL, _ = spiked_rows(400, 8, 3, seed=1)
PRIVATE = [m for m in dc.mechanism_names("pca") if dc.get_mechanism(m).guarantee in ("pure", "approximate")]


def test_list_mechanisms_columns_and_values():
    table = dc.list_mechanisms()
    for col in ("name", "title", "paper", "model", "guarantee", "parameters", "notes"):
        assert col in table.columns
    assert set(table["guarantee"]) <= {"pure", "approximate", "none", "retracted"}
    assert set(table["model"]) <= {"central", "local", "distributed"}
    row = table.set_index("name").loc["wishart_sn"]
    assert row["guarantee"] == "retracted" and "RETRACTED" in row["notes"]
    assert {"non_private", "analyze_gauss", "mod_sulq", "private_power", "wishart_sn"} <= set(table["name"])


def test_non_private_equals_eigh():
    X = X_SMALL
    rel = dc.run("non_private", X, 3, 1.0)
    vals, vecs = np.linalg.eigh(X.T @ X)
    top = vecs[:, ::-1][:, :3]
    assert np.abs(np.abs(np.sum(rel.components * top, axis=0)) - 1).max() < 1e-10
    assert np.allclose(rel.eigenvalues, vals[::-1][:3], atol=1e-10)
    assert rel.guarantee == "none" and rel.epsilon == math.inf


@pytest.mark.parametrize("name", dc.mechanism_names("pca"))
@pytest.mark.parametrize("k", [1, 3])
def test_orthonormal_and_deterministic(name, k):
    max_k = dc.get_mechanism(name).max_k
    if max_k is not None and k > max_k:
        with pytest.raises(ValueError, match=f"k <= {max_k}"):
            dc.run(name, X_SMALL, k, 1.0, seed=7)
        return
    a = dc.run(name, X_SMALL, k, 1.0, seed=7)
    b = dc.run(name, X_SMALL, k, 1.0, seed=7)
    c = dc.run(name, X_SMALL, k, 1.0, seed=8)
    assert a.components.shape == (8, k)
    assert np.allclose(a.components.T @ a.components, np.eye(k), atol=1e-10)
    assert np.array_equal(a.components, b.components)
    if a.guarantee != "none":
        assert not np.array_equal(a.components, c.components)
    assert a.mechanism == name and a.neighbors == "replace"


@pytest.mark.parametrize("name", PRIVATE)
def test_error_falls_with_epsilon(name):
    k = min(2, dc.get_mechanism(name).max_k or 2)
    X, U = spiked_rows(3000, 6, k, seed=2)

    def mean_err(eps):
        return np.mean([metrics.subspace_distance(dc.run(name, X, k, eps, seed=s).components, U) for s in range(6)])

    low, high = mean_err(0.05), mean_err(50.0)
    # with epsilon 1000x larger the privacy noise is at least ~30x smaller; demand a clear drop
    assert high < 0.7 * low, (low, high)


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


def test_wishart_is_flagged_retracted_and_fails_the_support_attack():
    # docs/papers.md#wishart-sn-retraction: with D' lacking the row u = e1, P[Y - A_D not PSD] = 1 - e^{-eps} under D'
    # and 0 under D. 400 trials each: binomial s.e. ~0.024, so 0.63 +- 0.1 is a 4-s.e. band.
    rng = np.random.default_rng(0)
    d, eps = 5, 1.0
    others = rng.normal(size=(30, d))
    others /= np.linalg.norm(others, axis=1, keepdims=True) * 2
    u = np.eye(d)[0]
    D, D_prime = np.vstack([others, u]), np.vstack([others, np.zeros(d)])
    A_D = D.T @ D
    flagged = {"D": 0, "D'": 0}
    for name, data in (("D", D), ("D'", D_prime)):
        gram = dc.prepare(data).gram
        for t in range(400):
            Y = gram + wishart_noise(d, eps, np.random.default_rng(t))
            flagged[name] += np.linalg.eigvalsh(Y - A_D).min() < -1e-9
    assert flagged["D"] == 0
    assert abs(flagged["D'"] / 400 - (1 - math.exp(-eps))) < 0.1
    rel = dc.run("wishart_sn", X_SMALL, 2, 1.0, seed=0)
    assert rel.guarantee == "retracted" and "claim is false" in rel.guarantee_text()


def test_shared_gram_gives_same_result_as_rows():
    prepared = dc.prepare(X_SMALL)
    a = dc.run("analyze_gauss", prepared, 2, 1.0, seed=3)
    b = dc.run("analyze_gauss", X_SMALL, 2, 1.0, seed=3)
    assert np.allclose(a.components, b.components)


def test_streaming_gram_equals_in_memory():
    chunks = np.array_split(X_SMALL * 3.0, 7)
    streamed = dc.gram_from_chunks(chunks, data_norm=2.0)
    direct = dc.prepare(X_SMALL * 3.0, data_norm=2.0)
    assert streamed.n == direct.n and streamed.n_clipped == direct.n_clipped
    assert np.allclose(streamed.gram, direct.gram)
    rel = dc.run("analyze_gauss", streamed, 2, 1.0, data_norm=2.0, seed=0)
    assert rel.components.shape == (8, 2)

"""CoinPress (Biswas, Dong, Kamath & Ullman 2020): calibration, release boundary, accuracy, k, seeds, audit design."""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.mechanisms.coinpress import (
    AUDIT_ROWS,
    coinpress_audit_design,
    step_weights,
    whitened_radius,
    wigner_norm_bound,
)
from tests.helpers import spiked_rows
from tests.new_mechanisms import accepted_by_release_pca_and_estimator, no_noise_free_field, pld_epsilon

X, U = spiked_rows(20000, 8, 2, seed=1)
#: the same rows ten times inside the clipping radius: a loose radius, CoinPress's setting
LOOSE = X / 10.0


@pytest.mark.parametrize("eps,delta,iterations", [(1.0, 1e-5, 4), (0.5, 1e-6, 3), (4.0, 1e-5, 2)])
def test_steps_compose_to_the_claim_in_dp_accounting(eps, delta, iterations):
    rel = dc.run("coinpress", LOOSE, 2, eps, delta, seed=0, iterations=iterations)
    sigmas = rel.outputs["noise_sd"]
    sens = [math.sqrt(2.0) * r**2 for r in rel.outputs["clip_radii"]]  # upper(sum w w^T), rows of norm <= r
    assert len(sigmas) == iterations
    assert pld_epsilon(zip(sigmas, sens), delta) == pytest.approx(eps, rel=1e-3)
    assert rel.privacy.kind == "gdp" and rel.privacy.epsilon_at(delta) == pytest.approx(eps, rel=1e-6)
    # the split: the last step has final_share of mu^2, the others share the rest evenly
    mus = np.array(sens) / np.array(sigmas)
    assert mus[-1] ** 2 / np.sum(mus**2) == pytest.approx(0.75 if iterations > 1 else 1.0, rel=1e-9)


def test_zcdp_rho_is_half_mu_squared_and_exact_in_dp_accounting():
    # a rho-zCDP Gaussian step (sigma = Delta / sqrt(2 rho)) is exactly sqrt(2 rho)-GDP ...
    rho, sens = 0.08, 1.7
    sigma = sens / math.sqrt(2.0 * rho)
    mu = privacy.zcdp_to_gdp_mu(rho)
    assert mu == pytest.approx(sens / sigma) and privacy.gdp_to_zcdp_rho(mu) == pytest.approx(rho)
    exact = privacy.gaussian_epsilon(mu, 1e-6)
    assert pld_epsilon([(sigma, sens)], 1e-6) == pytest.approx(exact, rel=1e-3)
    # ... and the usual zCDP conversion (Bun & Steinke 2016, Prop. 1.3) is valid but loose
    assert rho + 2.0 * math.sqrt(rho * math.log(1e6)) > 1.2 * exact
    # the paper's split of rho over 4 steps (1/12, 1/12, 1/12, 3/4) composes back to rho, in dp-accounting too
    mus = privacy.split_mu(mu, step_weights(4, 0.75))
    assert sum(m * m / 2.0 for m in mus) == pytest.approx(rho)
    assert pld_epsilon([(sens / m, sens) for m in mus], 1e-6) == pytest.approx(exact, rel=1e-3)
    with pytest.raises(ValueError):
        privacy.split_mu(mu, [1.0, 0.0])


def test_the_radius_never_exceeds_what_a_row_can_reach():
    rel = dc.run("coinpress", X, 2, 1.0, 1e-5, seed=0, prior=0.25)
    radii = rel.outputs["clip_radii"]
    gamma = whitened_radius(8, 0.1)
    assert gamma == pytest.approx(math.sqrt(8 + 2 * math.sqrt(8 * math.log(10)) + 2 * math.log(10)))
    assert radii[0] == pytest.approx(2.0) and max(radii) == pytest.approx(gamma)  # ||A_1|| = 1 / sqrt(u) = 2
    for A, r in zip(rel.outputs["whitening"], radii):
        assert r == pytest.approx(min(gamma, np.linalg.norm(np.asarray(A), 2)))


def test_eta_bounds_the_noise_spectral_norm():
    rng = np.random.default_rng(0)
    d, sigma = 8, 0.3
    norms = []
    for _ in range(300):
        E = np.triu(rng.normal(0, sigma, (d, d)))
        norms.append(np.linalg.norm(E + np.triu(E, 1).T, 2))
    assert np.mean(np.array(norms) > wigner_norm_bound(d, sigma, 0.1)) < 0.1


def test_release_boundary():
    rel = dc.run("coinpress", LOOSE, 2, 1.0, 1e-5, seed=3)
    pub = rel.published()
    assert set(pub["outputs"]) == {"whitening", "clip_radii", "noise_sd", "eta"}
    assert "seconds" not in str(pub) and "rows_clipped" not in str(pub["outputs"])
    # what is published is a function of the noisy steps: on a neighbour the settings are the same ...
    X_prime = LOOSE.copy()
    X_prime[0] = np.eye(8)[3]
    other = dc.run("coinpress", X_prime, 2, 1.0, 1e-5, seed=3)
    assert other.facts == rel.facts and other.noise_scale == rel.noise_scale
    assert other.privacy == rel.privacy
    # ... and no published field is a noise-free function of the data
    assert no_noise_free_field("coinpress", LOOSE[:400], X_prime[:400], 2) is None


def test_accurate_at_large_epsilon_and_better_than_analyze_gauss_with_a_loose_radius():
    big = [
        metrics.subspace_distance(dc.run("coinpress", LOOSE, 2, 200.0, 1e-5, seed=s).components, U) for s in range(3)
    ]
    sample = dc.run("non_private", LOOSE, 2, 1.0).components
    assert max(big) < 0.12 and metrics.subspace_distance(sample, U) < 0.1
    cp = [metrics.subspace_distance(dc.run("coinpress", LOOSE, 2, 1.0, 1e-5, seed=s).components, U) for s in range(8)]
    ag = [
        metrics.subspace_distance(dc.run("analyze_gauss", LOOSE, 2, 1.0, 1e-5, seed=s).components, U) for s in range(8)
    ]
    assert np.median(cp) < 0.05 and np.median(ag) > 0.4, (np.median(cp), np.median(ag))


@pytest.mark.parametrize("k", [1, 3, 8])
def test_shape_k_and_seeds(k):
    a = dc.run("coinpress", X[:2000], k, 2.0, 1e-6, seed=11)
    b = dc.run("coinpress", X[:2000], k, 2.0, 1e-6, seed=11)
    c = dc.run("coinpress", X[:2000], k, 2.0, 1e-6, seed=12)
    assert a.components.shape == (8, k) and a.eigenvalues.shape == (k,)
    assert np.allclose(a.components.T @ a.components, np.eye(k), atol=1e-10)
    assert np.all(np.diff(a.eigenvalues) <= 0)
    assert np.array_equal(a.components, b.components) and np.array_equal(a.eigenvalues, b.eigenvalues)
    assert not np.array_equal(a.components, c.components)


def test_one_step_is_analyze_gauss_noise():
    rel = dc.run("coinpress", X[:500], 2, 1.0, 1e-5, seed=0, iterations=1)
    assert rel.outputs["noise_sd"][0] == pytest.approx(privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5))
    with pytest.raises(ValueError, match="final_share"):
        dc.run("coinpress", X[:500], 2, 1.0, 1e-5, seed=0, iterations=3, final_share=1.0)
    with pytest.raises(ValueError, match="replace"):
        dc.run("coinpress", X[:500], 2, 1.0, 1e-5, neighbors="add_remove")


def test_release_pca_and_the_estimator_accept_it():
    rel, model = accepted_by_release_pca_and_estimator("coinpress", LOOSE[:3000], 2)
    assert rel.privacy.kind == "gdp"


def test_audit_design_reads_nearly_the_whole_mu():
    # the log-likelihood ratio of a mu_eff-GDP Gaussian test has means -+ mu_eff^2 / 2 and s.d. mu_eff
    design = coinpress_audit_design(d=2, n=20, neighbors="replace", statistic="auto")
    eps, delta, trials = 4.0, 1e-5, 60
    scores = [
        [
            design.score(dc.run("coinpress", data, 2, eps, delta, seed=1000 * side + s).published())
            for s in range(trials)
        ]
        for side, data in enumerate((design.D, design.D_prime))
    ]
    mu = privacy.gaussian_mu(eps, delta)
    gap = np.mean(scores[1]) - np.mean(scores[0])  # mu_eff^2 in expectation
    assert 0.8 * mu**2 < gap < 1.1 * mu**2, (gap, mu**2)
    assert np.std(scores[0]) == pytest.approx(math.sqrt(gap), rel=0.3)
    assert design.D.n == AUDIT_ROWS and design.k == 2


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
run/coinpress 6f9436235615580c10d5d0a0 fe5bf1b71cb95a19
run/coinpress/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
"""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from tests.helpers import spiked_rows

X, U = spiked_rows(2000, 10, 2, seed=0)


def test_ppca_captures_most_energy_on_toy_problem():
    # ALGORITHMS.md §2.3.2: 200 sweeps on d=10, n=2000, eps=1, k=2 captured ~90% of the optimal variance.
    # Our rows are scaled to norm <= 1/2 on average, so use eps = 4 for a comparable concentration.
    ratios = [metrics.captured_energy_ratio(dc.run("ppca_exponential", X, 2, 4.0, seed=s).components, X.T @ X)
              for s in range(3)]
    assert np.mean(ratios) > 0.8


def test_mcmc_caveat_only_for_k_above_one():
    one = dc.run("ppca_exponential", X, 1, 1.0, seed=0)
    two = dc.run("ppca_exponential", X, 2, 1.0, seed=0, sweeps=5)
    assert "guarantee_caveat" not in one.diagnostics and "Caveat" not in one.guarantee_text()
    assert "Caveat" in two.guarantee_text()
    assert one.diagnostics["sampler"].startswith("exact")
    assert two.diagnostics["sampler"].startswith("Gibbs") and "approximate" in two.diagnostics["guarantee_caveat"]
    assert one.guarantee == "pure" and one.delta == 0.0
    assert dc.get_mechanism("ppca_exponential").caveat


def test_amin_laplace_scale_per_relation_and_budget_split():
    rep = dc.run("amin_iterative", X, 2, 1.0, seed=0, neighbors="replace", eigenvalue_share=0.5)
    add = dc.run("amin_iterative", X, 2, 1.0, seed=0, neighbors="add_remove", eigenvalue_share=0.5)
    assert rep.noise_scale == pytest.approx(privacy.laplace_scale(2.0, 0.5))
    assert rep.noise_scale / add.noise_scale == pytest.approx(2.0)
    assert rep.eigenvalues.shape == (2,)
    assert rep.diagnostics["epsilon_per_vector"] == pytest.approx(0.25)
    none = dc.run("amin_iterative", X, 2, 1.0, seed=0, eigenvalue_share=0.0)
    assert none.eigenvalues is None and none.noise_scale is None


@pytest.mark.parametrize("name", ["ppca_exponential", "amin_iterative"])
def test_error_falls_with_epsilon_and_bad_params(name):
    def err(eps):
        return np.mean([metrics.subspace_distance(dc.run(name, X, 2, eps, seed=s, **({"sweeps": 50} if name.startswith("ppca") else {})).components, U) for s in range(4)])
    assert err(200.0) < 0.5 * err(0.5)
    bad = {"sweeps": 0} if name.startswith("ppca") else {"eigenvalue_share": 1.0}
    with pytest.raises(ValueError, match="out of range"):
        dc.run(name, X, 2, 1.0, **bad)

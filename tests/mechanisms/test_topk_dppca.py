"""Top-k DP-PCA by deflation (Düngler & Sanyal 2025): calibration, release boundary, accuracy, k, seeds, audit."""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.mechanisms.dp_pca_steps import dp_pca_schedule
from dppca_core.mechanisms.topk_dppca import topk_audit_design
from tests.helpers import spiked_rows
from tests.new_mechanisms import accepted_by_release_pca_and_estimator, no_noise_free_field, pld_epsilon

X, U = spiked_rows(8000, 6, 3, seed=5)


def test_each_step_is_the_whole_guarantee_in_dp_accounting():
    # 8,000 rows in 2 parts: batches too small for Algorithms 4-5, so each batch's mean gradient is one Gaussian step
    # of sensitivity 1/B at the whole budget, and the parts and batches are disjoint (parallel composition)
    rel = dc.run("topk_dp_pca", X, 2, 1.0, 1e-5, seed=0)
    B = rel.facts["batch_size"]
    assert not rel.facts["private_range"] and rel.facts["rows_per_part"] == 4000
    assert (B, rel.facts["batches_per_part"]) == dp_pca_schedule(4000, 6, 1.0, 1e-5)[:2]
    sigmas = rel.outputs["noise_sd_per_step"]
    assert len(sigmas) == 2 * rel.facts["batches_per_part"] and len(set(sigmas)) == 1
    assert pld_epsilon([(sigmas[0], 1.0 / B)], 1e-5) == pytest.approx(1.0, rel=1e-3)
    assert rel.privacy == privacy.PrivacyCurve.gdp(privacy.gaussian_mu(1.0, 1e-5))


def test_with_the_private_range_the_claim_is_dp_pcas():
    rows, _ = spiked_rows(60000, 3, 2, seed=6)
    rel = dc.run("topk_dp_pca", rows, 2, 8.0, 1e-6, seed=0)
    assert rel.facts["private_range"] and rel.privacy == privacy.PrivacyCurve.approx(8.0, 1e-6)
    assert set(rel.outputs["mean_routes"]) <= {"truncated", "public range"}


def test_k1_is_dp_pca_draw_for_draw():
    a = dc.run("topk_dp_pca", X, 1, 1.0, 1e-5, seed=3)
    b = dc.run("dp_pca", X, 1, 1.0, 1e-5, seed=3)
    assert np.array_equal(a.components, b.components) and a.outputs["iterates"][-1].shape == (6, 1)


@pytest.mark.parametrize("k", [2, 3, 6])
def test_shape_k_and_seeds(k):
    a = dc.run("topk_dp_pca", X, k, 2.0, 1e-6, seed=11)
    b = dc.run("topk_dp_pca", X, k, 2.0, 1e-6, seed=11)
    c = dc.run("topk_dp_pca", X, k, 2.0, 1e-6, seed=12)
    assert a.components.shape == (6, k)
    assert np.allclose(a.components.T @ a.components, np.eye(k), atol=1e-10)
    assert len(a.outputs["iterates"]) == k * a.facts["batches_per_part"]
    assert np.array_equal(a.components, b.components) and not np.array_equal(a.components, c.components)


def test_release_boundary():
    rel = dc.run("topk_dp_pca", X, 2, 1.0, 1e-5, seed=1)
    assert set(rel.published()["outputs"]) == {
        "bottom_count",
        "noise_sd_per_step",
        "scale_estimates",
        "mean_routes",
        "iterates",
    }
    assert "truncated_entries" in rel.diagnostics and "truncated_entries" not in str(rel.published())
    X_prime = X.copy()
    X_prime[0] = -X[0]
    assert dc.run("topk_dp_pca", X_prime, 2, 1.0, 1e-5, seed=1).facts == rel.facts
    assert no_noise_free_field("topk_dp_pca", X[:400], X_prime[:400], 2) is None


def test_accurate_at_large_epsilon():
    rows, V = spiked_rows(40000, 6, 2, spikes=(4.0, 2.0), noise=0.1, seed=7)
    errors = [
        metrics.subspace_distance(dc.run("topk_dp_pca", rows, 2, 100.0, 1e-6, seed=s).components, V) for s in range(3)
    ]
    assert max(errors) < 0.1, errors


def test_release_pca_and_the_estimator_accept_it():
    rel, _ = accepted_by_release_pca_and_estimator("topk_dp_pca", X, 2)
    # release_pca orders the deflation's vectors by its private variances (ordered_basis=False)
    assert not dc.get_mechanism("topk_dp_pca").ordered_basis


def test_audit_design_is_the_first_parts_step():
    design = topk_audit_design(d=2, n=20, neighbors="replace", statistic="auto", epsilon=1.0, delta=1e-5)
    assert design.k == 2 and design.statistic == "gradient_step" and design.params == {"lr_c1": 1e-3}
    with pytest.raises(ValueError, match="replace"):
        topk_audit_design(d=2, n=20, neighbors="add_remove", statistic="auto", epsilon=1.0, delta=1e-5)


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
run/topk_dp_pca caeac3d470dbdd7479a9af4f 2b3058978469acaa
run/topk_dp_pca/add_remove 08a0f04d4e609ebc008bdd8d a1b262b6e8311932
"""

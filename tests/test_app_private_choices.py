"""Column scaling and k chosen privately inside the one budget: the library's experiment path the app runs
(experiments.ScaleRule, repeat with a private scaling and with k="auto")."""
from collections import Counter

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import experiments
from dppca_core.choices import choose_k
from dppca_core.datasets import load_sample

#: public bounds on the wine sample's 13 columns (a chemist's ranges, fixed in advance; as test_app_presenter)
BOUNDS = [15, 6, 4, 30, 170, 4, 6, 1, 4, 14, 2, 4, 1700]
PROLINE = 12


def _wine():
    return load_sample("wine").X


# -- the library path the app runs -----------------------------------------------------------------------------

def test_each_repetition_scales_privately_as_release_pca_does():
    """repeat(scale=ScaleRule) is release_pca(scale="private") on the raw rows with the repetition's seed: the same
    scales and components, repetition by repetition; the reference is the PCA of the exactly scaled rows."""
    X = _wine()
    rule = experiments.ScaleRule(BOUNDS)
    inp = experiments.prepare_input(X, 2 * np.sqrt(13), "private", rule)
    assert inp.scale == rule and np.array_equal(inp.rows, X)
    exact = rule.exact_scales(X)
    np.testing.assert_allclose(exact[PROLINE], np.sqrt(np.mean(X[:, PROLINE] ** 2)), rtol=1e-12)  # inside its bound
    centred = X / exact - (X / exact).mean(axis=0)
    top = np.linalg.eigh(centred.T @ centred)[1][:, ::-1][:, :2]
    assert dc.metrics.subspace_distance(inp.reference.vectors[:, :2], top) < 1e-9
    split = dc.BudgetSplit.with_extras(scale=0.1, mean=0.1)
    reps = experiments.repeat("analyze_gauss", inp.data, 2, 10.0, 1e-6, "replace", 3, 5, reference=inp.reference,
                              budget=split, center="private", scale=inp.scale, rows=inp.rows)
    assert reps.scales.shape == (3, 13)
    for rep in range(3):
        direct = dc.release_pca("analyze_gauss", X, 2, 10.0, 1e-6, "replace", 2 * np.sqrt(13),
                                np.random.default_rng(experiments.rep_seed(5, rep, "analyze_gauss")), budget=split,
                                center="private", scale="private", column_bounds=BOUNDS)
        np.testing.assert_array_equal(reps.scales[rep], direct.outputs["column_scales"])
        np.testing.assert_allclose(reps.components[rep], direct.components, atol=1e-9)
    # at epsilon = 10 the private scales are within a factor 2 of the exact ones
    assert np.all((reps.scales > exact / 2) & (reps.scales < exact * 2))


def test_each_repetition_chooses_k_by_the_rule_and_is_scored_at_its_own_k():
    X = _wine() / np.array(BOUNDS, dtype=float)
    data = dc.prepare(X, np.sqrt(13))
    reference = experiments.Reference.of(data)
    split = dc.BudgetSplit.with_extras(eigenvalues=0.1)
    reps = experiments.repeat("analyze_gauss", data, "auto", 0.5, 1e-6, "replace", 12, 3, reference=reference,
                              budget=split, release_args={"variance_target": 0.6}, s=4)
    assert reps.k.shape == (12,) and len(set(reps.k)) > 1  # the repetitions kept different k's
    assert isinstance(reps.components, list) and [V.shape[1] for V in reps.components] == list(reps.k)
    for rep in range(12):
        direct = dc.release_pca("analyze_gauss", data, "auto", 0.5, 1e-6, "replace", np.sqrt(13),
                                np.random.default_rng(experiments.rep_seed(3, rep, "analyze_gauss")), budget=split,
                                variance_target=0.6)
        kept = choose_k(direct.outputs["candidate_ratios"], 0.6)
        assert reps.k[rep] == kept == direct.parameters["k"]
        ref = reference.vectors[:, :kept]  # the exact top-k of the release's own k
        assert reps.distance[rep] == pytest.approx(dc.metrics.subspace_distance(direct.components, ref), abs=1e-9)
        best = reference.eigenvalues[:kept].sum()
        energy = 100 * dc.metrics.captured_energy(direct.components, reference.gram) / best
        assert reps.energy[rep] == pytest.approx(energy, rel=1e-9)
    assert reps.f1.shape == (12,)  # support scored at each release's own k (s = 4, no planted support)
    text = experiments.describe_k(reps.k)
    top, count = Counter(reps.k.tolist()).most_common(1)[0]
    assert text.startswith(f"{top} in {count} of 12 releases")


def test_a_public_k_keeps_its_numbers_and_stacked_components():
    """No behaviour change with k public: one reps x d x k array, and the numbers of the same seeds."""
    data = dc.prepare(_wine() / np.array(BOUNDS, dtype=float), np.sqrt(13))
    reference = experiments.Reference.of(data)
    reps = experiments.repeat("analyze_gauss", data, 2, 1.0, 1e-6, "replace", 3, 0, reference=reference)
    assert isinstance(reps.components, np.ndarray) and reps.components.shape == (3, 13, 2) and reps.k is None
    for rep in range(3):
        direct = dc.run("analyze_gauss", data, 2, 1.0, 1e-6, "replace", np.sqrt(13),
                        np.random.default_rng(experiments.rep_seed(0, rep, "analyze_gauss")))
        assert reps.distance[rep] == dc.metrics.subspace_distance(direct.components, reference.vectors[:, :2])

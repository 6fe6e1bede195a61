"""The release boundary: what ``Release.published()`` contains is covered by the guarantee, nothing else.

Neighbours D, D' differ in one row; on D that row has norm 5 and is clipped to the radius 1, on D' it is
0.5 e2. A field that is identical across seeds on D carries no noise; if it then differs on D', it
identifies the dataset and refutes every delta < 1. These tests fail on a release that publishes a
clipped-row count, a timing, a Gibbs chain's trace, or any other exact function of the data.
"""

import json
import pickle

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import metrics
from dppca_core.audit.statistics import leaves as _leaves  # the audit's own flattening of a published dict
from dppca_core.release import NonPrivateDiagnostics
from tests.support.releases import CASES, NAMES, SEEDS, boundary_neighbours, k_for, mechanism_params


def _published(name, X, neighbors, seed):
    return dc.run(name, X, k_for(name), 1.0, 1e-5, neighbors, seed=seed, **mechanism_params(name)).published()


@pytest.mark.parametrize("name,neighbors", CASES)
def test_no_published_field_is_noise_free_and_data_dependent(name, neighbors):
    D, D_prime = boundary_neighbours(neighbors)
    on_d = [_leaves(_published(name, D, neighbors, s)) for s in SEEDS]
    on_dp = _leaves(_published(name, D_prime, neighbors, 0))
    assert set(on_dp) == set(on_d[0]) or neighbors == "add_remove"
    for path, value in on_d[0].items():
        if all(leaves.get(path) == value for leaves in on_d[1:]):  # no noise on D ...
            assert on_dp.get(path) == value, f"{name}: published field {path} is noise-free and data-dependent"


@pytest.mark.parametrize("name", NAMES)
def test_no_published_number_is_an_exact_function_of_the_data(name):
    D, _ = boundary_neighbours("replace")
    rel = dc.run(name, D, k_for(name), 1.0, 1e-5, seed=0, **mechanism_params(name))
    gram = dc.prepare(D).gram
    frames = [rel.components] + [np.asarray(Q)[:, : rel.k] for Q in rel.outputs.get("iterates", [])]
    exact = [metrics.captured_energy(V, gram) for V in frames] + [np.trace(gram), np.linalg.norm(gram)]
    pub = rel.published()
    numbers = [v for v in _leaves(pub).values() if isinstance(v, float)]
    for target in exact:
        assert not any(abs(v - target) <= 1e-9 * max(1.0, abs(target)) for v in numbers), (name, target)


#: the mechanisms that clip rows to the radius (spatial_sign reads rows as given: its prepare_input, no radius)
CLIPPING = [m for m in NAMES if dc.get_mechanism(m).prepare_input is None]


@pytest.mark.parametrize("name", CLIPPING)
def test_a_clipped_row_changes_nothing_published(name):
    # the row of norm 5 is clipped to e1: the run must publish exactly what a run on the pre-clipped data does
    D, _ = boundary_neighbours("replace")
    pre_clipped = D.copy()
    pre_clipped[0] = [1.0, 0.0, 0.0, 0.0]
    a = dc.run(name, D, k_for(name), 1.0, 1e-5, seed=7, **mechanism_params(name))
    b = dc.run(name, pre_clipped, k_for(name), 1.0, 1e-5, seed=7, **mechanism_params(name))
    assert json.dumps(a.published(), sort_keys=True) == json.dumps(b.published(), sort_keys=True)
    assert a.diagnostics["rows_clipped"] == 1 and b.diagnostics["rows_clipped"] == 0  # only a diagnostic


@pytest.mark.parametrize("name", dc.mechanism_names("pca"))
def test_published_is_plain_json_without_diagnostics(name):
    D, _ = boundary_neighbours("replace")
    rel = dc.run(name, D, k_for(name), 1.0, 1e-5, seed=0, **mechanism_params(name))
    text = json.dumps(rel.published(), allow_nan=False)
    for word in ("rows_clipped", "seconds", "warnings", "acceptance", "trace_energy", "truncated", "proposals"):
        assert word not in text, (name, word)
    assert isinstance(rel.diagnostics, NonPrivateDiagnostics) and not rel.diagnostics.covered_by_guarantee
    assert "NOT covered" in repr(rel.diagnostics)


def test_ppca_gibbs_chain_is_not_published_and_cannot_be_attacked():
    # Before the boundary, each thinned Gibbs iterate came with tr(V^T C V) computed with the exact C, which
    # recovers C to ~1e-14 and separates neighbours every time. Now neither is published, and a scan of
    # every published field over 40 runs on each neighbour finds nothing that separates them.
    D, D_prime = boundary_neighbours("replace")
    runs = {
        name: [dc.run("ppca_exponential", X, 2, 1.0, seed=s, sweeps=3) for s in range(40)]
        for name, X in (("D", D), ("D'", D_prime))
    }
    rel = runs["D"][0]
    assert "trace_energy" in rel.diagnostics and "iterates" in rel.diagnostics  # still there to explore
    pub = rel.published()
    assert set(pub["outputs"]) == set() and pub["eigenvalues"] is None
    leaves = {name: [_leaves(r.published()) for r in rs] for name, rs in runs.items()}
    for path in leaves["D"][0]:
        same_d = len({repr(x[path]) for x in leaves["D"]}) == 1
        same_dp = len({repr(x[path]) for x in leaves["D'"]}) == 1
        assert not (same_d and same_dp and leaves["D"][0][path] != leaves["D'"][0][path]), path


def test_n_is_published_only_where_it_is_public():
    D, _ = boundary_neighbours("replace")
    assert dc.run("analyze_gauss", D, 2, 1.0, seed=0).published()["parameters"]["n"] == 30
    assert "n" not in dc.run("analyze_gauss", D, 2, 1.0, neighbors="add_remove", seed=0).published()["parameters"]


def test_site_labels_are_published_as_sizes_only():
    D, _ = boundary_neighbours("replace")
    labels = np.array(["north"] * 12 + ["south"] * 18)
    pub = dc.run("cape_pca", D, 2, 1.0, seed=0, sites=labels).published()
    assert pub["parameters"]["sites"] == [12, 18]
    assert "north" not in json.dumps(pub)


def test_privacy_curve_earns_the_stated_claim():
    D, _ = boundary_neighbours("replace")
    for name in ("analyze_gauss", "private_power", "dps_pca", "cape_pca", "private_oja", "ldp_gaussian"):
        rel = dc.run(name, D, 1, 0.7, 1e-6, seed=0, **mechanism_params(name))
        assert rel.privacy.kind == "gdp"
        assert rel.privacy.delta_at(0.7) <= 1e-6 * (1 + 1e-6)
    assert dc.run("ppca_exponential", D, 1, 0.7, seed=0).privacy.kind == "pure"
    assert dc.run("wishart_sn", D, 1, 0.7, seed=0).privacy.kind == "none"


def test_estimator_keeps_only_the_published_release():
    D, _ = boundary_neighbours("replace")
    est = dc.DPPCA(n_components=2, epsilon=1.0, random_state=0).fit(D)
    blob = pickle.dumps(est)
    assert b"rows_clipped" not in blob and b"NonPrivateDiagnostics" not in blob
    assert est.release_["guarantee"] == "approximate"

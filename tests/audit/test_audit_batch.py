"""Batched audits: the trials' generators computed together are numpy's own, a mechanism's batch path publishes
what its runs publish, and an audit through it gives the result of the one-release-per-trial audit."""

import dataclasses

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.audit import audit, core, seeding
from dppca_core.audit.design import AuditDesign
from dppca_core.linalg import stacked_symmetric_gaussian, stacked_top_eigenvectors, symmetric_gaussian, top_eigenvectors
from tests.helpers import spiked_rows

BATCHED = [name for name in dc.mechanism_names() if dc.get_mechanism(name).audit_batch is not None]
PARENTS = [
    np.random.SeedSequence(0),
    np.random.SeedSequence(2**200 + 5).spawn(3)[2],
    np.random.SeedSequence([1, 2, 3, 2**40], pool_size=8),
    np.random.SeedSequence(7, spawn_key=(3, 2**35)),
]


def test_some_mechanisms_declare_a_batch_path():
    assert {"analyze_gauss", "mod_sulq"} <= set(BATCHED)


@pytest.mark.parametrize("parent", PARENTS, ids=range(len(PARENTS)))
def test_children_states_are_numpys(parent):
    kids = np.random.SeedSequence(parent.entropy, spawn_key=parent.spawn_key, pool_size=parent.pool_size).spawn(40)
    pools = seeding.children_pools(parent, range(40))
    states = seeding.pcg64_states(parent, range(40))
    for i, kid in enumerate(kids):
        assert np.array_equal(pools[i], kid.pool)
        assert seeding.child(parent, i).spawn_key == kid.spawn_key
        assert np.random.PCG64(kid).state["state"] == {"state": states[i][0], "inc": states[i][1]}
    streams = [g.standard_normal(4).tolist() for g in seeding.TrialGenerators(parent, [5, 9, 39, 6])]
    assert streams == [np.random.default_rng(kids[i]).standard_normal(4).tolist() for i in (5, 9, 39, 6)]


def test_a_numpy_that_seeds_otherwise_gets_its_own_generators(monkeypatch):
    monkeypatch.setattr(seeding, "_PCG_MULT", 12345)  # the arithmetic no longer matches numpy's
    parent = np.random.SeedSequence(3)
    got = [g.integers(1 << 60) for g in seeding.TrialGenerators(parent, range(6))]
    assert got == [np.random.default_rng(seeding.child(parent, i)).integers(1 << 60) for i in range(6)]


@pytest.mark.parametrize("d,k", [(2, 2), (3, 3), (6, 2), (12, 12)])
def test_stacked_linear_algebra_matches_one_matrix_at_a_time(d, k):
    draws = np.array([np.random.default_rng(t).normal(0.0, 0.3, size=(d, d)) for t in range(300)])
    stacked = stacked_symmetric_gaussian(draws)
    values, vectors = stacked_top_eigenvectors(stacked, k)
    for t in range(300):
        one = symmetric_gaussian(d, 0.3, np.random.default_rng(t))
        assert np.array_equal(stacked[t], one)
        v, V = top_eigenvectors(one, k)
        assert np.array_equal(values[t], v) and np.array_equal(vectors[t], V)


def _fields(published):
    return {key: dc.release.to_plain(published[key]) for key in ("components", "eigenvalues", "outputs")}


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
@pytest.mark.parametrize("d,k", [(2, 2), (5, 3)])
def test_batch_path_publishes_what_each_run_publishes(name, neighbors, d, k):
    spec = dc.get_mechanism(name)
    if neighbors not in spec.relations:
        pytest.skip(f"{name} has no {neighbors} guarantee")
    X, _ = spiked_rows(40, d, 1, seed=d)
    release = core._MechanismRelease(name, k, 0.7, 1e-5, neighbors, {})
    parent = np.random.SeedSequence(11)
    runs = release.batch(X, seeding.TrialGenerators(parent, range(25)))
    assert len(runs) == 25
    for i, batch_run in enumerate(runs):
        one = dc.run(name, X, k, 0.7, 1e-5, neighbors, seed=np.random.default_rng(seeding.child(parent, i)))
        assert _fields(batch_run) == _fields(one.published())


def _result(result):
    return {
        f.name: dc.release.to_plain(getattr(result, f.name)) for f in dataclasses.fields(result) if f.name != "seconds"
    }


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("neighbors", ["replace", "add_remove"])
def test_batched_audit_equals_the_audit_one_release_at_a_time(name, neighbors, monkeypatch):
    if neighbors not in dc.get_mechanism(name).relations:
        pytest.skip(f"{name} has no {neighbors} guarantee")
    kwargs = dict(trials=3 * core.CHUNK_TRIALS + 17, seed=4, neighbors=neighbors, d=3, n=12)
    batched = audit(name, 1.0, 1e-6, **kwargs)
    monkeypatch.setattr(core._MechanismRelease, "batched", property(lambda self: False))
    one_by_one = audit(name, 1.0, 1e-6, **kwargs)
    assert _result(batched) == _result(one_by_one)


def test_the_batch_path_is_used(monkeypatch):
    calls = []
    original = core._MechanismRelease.batch

    def spy(self, data, generators):
        calls.append(len(generators))
        return original(self, data, generators)

    monkeypatch.setattr(core._MechanismRelease, "batch", spy)
    audit("analyze_gauss", 1.0, 1e-6, trials=2 * core.CHUNK_TRIALS, seed=0)
    # the first chunk's first SCAN_TRIALS trials run one by one (their releases are scanned); the rest in batches
    assert calls == [core.CHUNK_TRIALS - core.SCAN_TRIALS] * 2 + [core.CHUNK_TRIALS] * 2


def test_a_batch_score_that_disagrees_is_not_used():
    design = AuditDesign(
        None, None, 1, lambda pub: float(pub["x"]), "toy", score_batch=lambda runs: np.zeros(len(runs))
    )
    job = core.TrialJob(None, design)
    runs = [{"x": 1.5}, {"x": -2.0}]
    assert job._scores(runs).tolist() == [1.5, -2.0]
    agreeing = dataclasses.replace(design, score_batch=lambda runs: np.array([r["x"] for r in runs]))
    assert core.TrialJob(None, agreeing)._scores(runs).tolist() == [1.5, -2.0]


def test_a_batch_path_that_drifted_from_the_mechanism_is_not_used(monkeypatch):
    """Every chunk checks its first batched release against a full run: a mechanism changed under the batch path
    (here its noise halved) is audited one release at a time, and the audit sees the change."""
    from dppca_core.mechanisms import central

    original = central.symmetric_gaussian
    monkeypatch.setattr(central, "symmetric_gaussian", lambda d, sigma, rng: original(d, sigma / 2.0, rng))
    calls = []
    monkeypatch.setattr(core.TrialJob, "_scores", lambda self, runs: calls.append(len(runs)))
    result = audit("analyze_gauss", 1.0, 1e-5, trials=2 * core.CHUNK_TRIALS, seed=4)
    assert calls == []  # no batch was scored
    monkeypatch.undo()
    monkeypatch.setattr(central, "symmetric_gaussian", lambda d, sigma, rng: original(d, sigma / 2.0, rng))
    monkeypatch.setattr(core._MechanismRelease, "batched", property(lambda self: False))
    assert _result(result) == _result(audit("analyze_gauss", 1.0, 1e-5, trials=2 * core.CHUNK_TRIALS, seed=4))

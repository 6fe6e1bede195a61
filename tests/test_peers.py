"""Adapters of other libraries' PCA: claims read from the library, clear messages when a library cannot be used,
and the comparison's runs and time budget."""

import numpy as np
import pytest

from dppca_core import peers


@pytest.fixture(autouse=True)
def fresh_status():
    peers.status.cache_clear()
    yield
    peers.status.cache_clear()


def test_unknown_library_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="choose one of"):
        peers.status("tensorflow_privacy")
    with pytest.raises(ValueError, match="ours:"):
        peers.setting("ours_analyze_gauss", epsilon=1.0, n=10, d=2, k=1)


def test_a_library_that_does_not_import_gets_the_version_that_works(monkeypatch):
    real = peers.importlib.import_module

    def failing(name, *args):
        if name.startswith("diffprivlib"):
            raise ImportError("cannot import name 'DOUBLE' from 'sklearn.tree._tree'")
        return real(name, *args)

    monkeypatch.setattr(peers, "_version", lambda dist: "0.6.6" if dist == "diffprivlib" else "1.9.1")
    monkeypatch.setattr(peers.importlib, "import_module", failing)
    message = peers.status("diffprivlib")
    assert "does not import" in message and "scikit-learn 1.8.0" in message and "DOUBLE" in message
    assert "diffprivlib" not in peers.available()
    with pytest.raises(ValueError, match="scikit-learn 1.8.0"):
        peers.setting("diffprivlib", epsilon=1.0, n=10, d=2, k=1)


def test_a_missing_library_says_what_to_install(monkeypatch):
    monkeypatch.setattr(peers, "_version", lambda dist: None)
    assert "is not installed; install opendp 0.16.0" in peers.status("opendp")


def test_opendp_claim_is_read_from_its_privacy_map():
    if peers.status("opendp"):
        pytest.skip(peers.status("opendp"))
    for epsilon in (0.5, 2.0):
        peer = peers.setting("opendp", epsilon=epsilon, n=10, d=3, k=2)
        assert peer.epsilon == pytest.approx(epsilon) and peer.delta == 0.0 and peer.neighbors == "replace"
    rows = np.random.default_rng(0).normal(size=(10, 3)) * 0.3  # distinct eigenvalues (see the next test)
    out = peer.release(rows, 0)
    assert np.asarray(out["components"]).shape == (3, 2) and np.asarray(out["eigenvalues"]).shape == (2,)


def test_ours_states_the_release_claim_and_gaussian_family():
    peer = peers.setting("ours:analyze_gauss", epsilon=0.7, delta=1e-6, n=10, d=3, k=2)
    assert (peer.epsilon, peer.delta, peer.neighbors, peer.output_family) == (0.7, 1e-6, "replace", "gaussian")
    assert "0.7" in peer.claim and peer.domain == "rows within 1 of 0"


def test_sklearn_is_a_control_without_a_claim_and_is_refuted():
    result, peer = peers.audit_peer("sklearn", epsilon=1.0, n=10, d=2, k=2, trials=200, seed=0)
    assert not peer.private and "none" in peer.claim
    assert result.violated and result.mechanism == peers.title("sklearn")


def test_fit_runs_scores_each_repetition():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(300, 4)) * [3.0, 1.0, 0.5, 0.5]
    rows -= rows.mean(axis=0)
    rows /= np.linalg.norm(rows, axis=1).max()
    gram = rows.T @ rows
    exact = peers.fit_runs("sklearn", rows, gram, k=1, epsilon=1.0, delta=1e-6, reps=2, seed=0)
    assert exact.distance.shape == (2,) and np.allclose(exact.distance, 0, atol=1e-9)
    assert np.allclose(exact.energy, 100.0) and np.all(exact.fit_seconds >= 0)
    noisy = peers.fit_runs("ours:analyze_gauss", rows, gram, k=1, epsilon=0.05, delta=1e-6, reps=3, seed=0)
    assert noisy.distance.shape == (3,) and np.all(noisy.energy <= 100.0 + 1e-9)
    again = peers.fit_runs("ours:analyze_gauss", rows, gram, k=1, epsilon=0.05, delta=1e-6, reps=3, seed=0)
    assert np.array_equal(noisy.distance, again.distance)  # seeded repetitions


def test_time_budget_stops_a_peer_that_did_not_finish():
    import time

    result, problem = peers.with_time_budget(time.sleep, 0.5, 60)
    assert result is None and problem == "did not finish in 0.5 s"
    assert peers.with_time_budget(sum, 60, [1, 2]) == (3, None)
    result, problem = peers.with_time_budget(peers.setting, 60, "tensorflow_privacy", epsilon=1.0, n=4, d=2, k=1)
    assert result is None and problem.startswith("failed: ValueError: unknown library")


def test_compare_one_gives_runs_over_the_grid_and_a_verdict():
    rows = np.random.default_rng(1).normal(size=(60, 3)) * [2.0, 1.0, 0.5]
    rows /= np.linalg.norm(rows, axis=1).max()
    runs, verdict = peers.compare_one(
        "sklearn",
        rows,
        rows.T @ rows,
        k=1,
        epsilons=[0.5, 2.0],
        epsilon=1.0,
        delta=1e-6,
        reps=2,
        seed=0,
        audit_trials=200,
    )
    assert [r.epsilon for r in runs] == [0.5, 1.0, 2.0] and verdict.startswith("refuted")


def test_opendp_raises_on_data_with_repeated_eigenvalues():
    # documented in docs/peers.md: whether OpenDP 0.16.0's PCA fails depends on the data (two rows 0.5 e1 and
    # 0.5 e2 fail, their neighbour with 0.45 e2 does not); if this starts passing, update the note
    if peers.status("opendp"):
        pytest.skip(peers.status("opendp"))
    peer = peers.setting("opendp", epsilon=1.0, n=10, d=2, k=2)
    tied, untied = np.zeros((10, 2)), np.zeros((10, 2))
    tied[0], tied[1] = [0.5, 0.0], [0.0, 0.5]
    untied[0], untied[1] = [0.5, 0.0], [0.0, 0.45]
    peer.release(untied, 0)
    with pytest.raises(Exception, match="decision boundary"):
        peer.release(tied, 0)

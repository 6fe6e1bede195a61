"""A release to publish: fresh cryptographic randomness, never a caller's seed, and no guarantee after a non-private step."""

import json

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.privacy.randomness import random_source, secure_generator


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).normal(size=(400, 6)) * np.r_[3, 2, 1, 0.3, 0.3, 0.3] / 8


def test_seed_none_draws_from_chacha20_keyed_by_the_operating_system():
    from randomgen import ChaCha

    g = secure_generator()
    assert isinstance(g.bit_generator, ChaCha)
    assert g.bit_generator.state["state"]["rounds"] == 20
    # two fresh generators never share a stream (a shared one would be a fixed key)
    assert not np.array_equal(secure_generator().integers(0, 2**63, 4), secure_generator().integers(0, 2**63, 4))
    assert random_source(None).seeded is False
    assert random_source(3).seeded is True
    assert random_source(np.random.default_rng(3)).seeded is True


def test_a_seeded_release_says_so_and_cannot_be_published(X):
    """With seed=0 anyone regenerates the noise: tr(X^T X) of the README example came back exactly. The release
    records that its randomness was not fresh, and publish() refuses it."""
    seeded = dc.run("analyze_gauss", X, 2, 1.0, 1e-6, seed=0)
    assert seeded.published()["fresh_randomness"] is False
    with pytest.raises(ValueError, match="seed=None"):
        dc.publish(seeded)
    fresh = dc.run("analyze_gauss", X, 2, 1.0, 1e-6, seed=None)
    assert fresh.published()["fresh_randomness"] is True
    out = dc.publish(fresh)
    assert out["export"] == "publishable release" and out["guarantee"] == "approximate"
    assert "seed" not in json.dumps({k: v for k, v in out.items() if k != "fresh_randomness"})


def test_release_pca_and_the_estimator_record_the_source(X):
    budget = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)
    assert dc.release_pca("analyze_gauss", X, 2, 1.0, budget=budget, center="private", seed=1).seeded
    assert not dc.release_pca("analyze_gauss", X, 2, 1.0, budget=budget, center="private", seed=None).seeded
    assert dc.DPPCA(2, random_state=0).fit(X).release_["fresh_randomness"] is False
    assert dc.DPPCA(2).fit(X).release_["fresh_randomness"] is True


def test_a_nonprivate_choice_removes_the_guarantee_and_names_the_choice(X):
    fresh = dc.run("analyze_gauss", X - X.mean(axis=0), 2, 1.0, 1e-6, seed=None)
    out = dc.publish(fresh, nonprivate_choices=["centring with the data's own mean"])
    assert out["guarantee"] == "none" and out["epsilon"] is None and out["privacy"] == {"kind": "none"}
    assert "centring with the data's own mean" in out["guarantee_text"]
    assert out["nonprivate_choices"] == ["centring with the data's own mean"]


def test_publish_refuses_what_is_not_a_release():
    with pytest.raises(ValueError, match="takes a Release"):
        dc.publish({"components": [[1.0]]})

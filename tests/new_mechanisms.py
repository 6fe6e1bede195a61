"""Checks shared by the tests of the issue-39 mechanisms (coinpress, trace_sensitive, topk_dp_pca)."""

import numpy as np
from dp_accounting import pld

import dppca_core as dc
from dppca_core.audit.statistics import deterministic_field, leaves
from dppca_core.estimator import DPPCA


def no_noise_free_field(mechanism, X, X_prime, k, seeds=range(6), **params):
    """The audit's scan: a published field constant over every run on X, constant over every run on X' and different
    between them would carry no noise. Returns its path (None: there is none)."""
    runs = [
        [leaves(dc.run(mechanism, data, k, 1.0, 1e-6, seed=s, **params).published()) for s in seeds]
        for data in (X, X_prime)
    ]
    return deterministic_field(*runs)


def accepted_by_release_pca_and_estimator(mechanism, X, k):
    """release_pca with a private mean and eigenvalue share, and the estimator, run the mechanism like the others."""
    budget = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)
    rel = dc.release_pca(mechanism, X, k, 4.0, 1e-6, center="private", budget=budget, seed=0)
    assert rel.mechanism == mechanism and rel.components.shape == (X.shape[1], k)
    assert np.allclose(rel.components.T @ rel.components, np.eye(k), atol=1e-8)
    model = DPPCA(n_components=k, mechanism=mechanism, epsilon=4.0, random_state=0).fit(X)
    assert model.components_.shape == (k, X.shape[1])
    assert model.transform(X[:3]).shape == (3, k)
    return rel, model


def pld_epsilon(parts, delta):
    """epsilon at delta of the adaptive composition of Gaussian steps [(noise s.d., l2 sensitivity), ...], by
    dp-accounting's privacy-loss distributions (independent code; discretised to 1e-4 in epsilon)."""
    dist = None
    for sigma, sens in parts:
        step = pld.privacy_loss_distribution.from_gaussian_mechanism(
            standard_deviation=sigma, sensitivity=sens, value_discretization_interval=1e-4
        )
        dist = step if dist is None else dist.compose(step)
    return dist.get_epsilon_for_delta(delta)


def design_releases(design, epsilon, delta, trials, seed=0):
    """[runs on D, runs on D']: ``trials`` published releases of an audit design on each side (one generator)."""
    rng = np.random.default_rng(seed)
    return [
        [design.release(data, rng, epsilon, delta, "replace")[0] for _ in range(trials)]
        for data in (design.D, design.D_prime)
    ]

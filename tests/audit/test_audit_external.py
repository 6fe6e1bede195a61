"""audit_external: a black-box DP-PCA audited on its declared domain refutes false claims (no noise, too little
noise, a domain declared wrongly) and never refutes a correct release at its claim."""

import functools

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.audit import audit_external
from dppca_core.audit.external import candidate_statistics, checked_release, neighbouring_datasets
from dppca_core.privacy import gaussian_sigma, sensitivity

CLAIM = dict(epsilon=1.0, delta=1e-5)


def sklearn_pca(X, seed, k=2):
    from sklearn.decomposition import PCA

    model = PCA(n_components=k, svd_solver="full").fit(X)
    return {"components": model.components_.T, "eigenvalues": model.explained_variance_, "mean": model.mean_}


def analyze_gauss(X, seed, epsilon=1.0, delta=1e-5):
    published = dc.run("analyze_gauss", X, 2, epsilon, delta, "replace", seed=seed).published()
    return {"components": published["components"], "eigenvalues": published["eigenvalues"]}


def hand_written_gauss(X, seed, epsilon=1.0, delta=1e-5, assumed_norm=1.0):
    """Analyze Gauss written by hand without clipping: calibrated for rows of norm ``assumed_norm``."""
    rng = np.random.default_rng(seed)
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    sigma = gaussian_sigma(sensitivity("gram_upper") * assumed_norm**2, epsilon, delta)
    noise = np.triu(rng.normal(0.0, sigma, (d, d)))
    values, vectors = np.linalg.eigh(X.T @ X + noise + np.triu(noise, 1).T)
    return {"components": vectors[:, ::-1], "eigenvalues": values[::-1]}


def test_sklearn_claimed_at_epsilon_one_is_refuted():
    # no noise: the components identify the dataset; 100 evaluation trials without an error bound each rate by
    # the 97.5% Clopper-Pearson limit 0.036, so epsilon >= log(0.96 / 0.036) = 3.3 > 1
    result = audit_external(sklearn_pca, epsilon=1.0, n=10, d=2, k=2, trials=200, seed=0, label="sklearn")
    assert result.violated and result.statistic == "published field"
    assert result.leaked_field.startswith(("components", "eigenvalues", "mean"))
    assert result.epsilon_lower > 3.0 and "contradicted" in result.verdict()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_analyze_gauss_is_not_refuted_at_its_claim(seed):
    result = audit_external(analyze_gauss, **CLAIM, n=10, d=2, k=2, trials=1000, seed=seed, output_family="gaussian")
    assert not result.violated, result.verdict()
    assert result.conversion == "gdp" and result.statistic in candidate_statistics(
        {"components": 0, "eigenvalues": 0}, "gaussian", 2, 2
    )


def test_analyze_gauss_at_four_times_its_claim_is_refuted():
    # run at epsilon = 4 (mu = 1.24 against the claimed 0.27): the GDP reading of 1,000 evaluation trials
    # finds mu >= 1 (measured 3.2 as epsilon), far above the claim
    result = audit_external(
        functools.partial(analyze_gauss, epsilon=4.0),
        **CLAIM,
        n=10,
        d=2,
        k=2,
        trials=2000,
        seed=0,
        output_family="gaussian",
    )
    assert result.violated and result.epsilon_lower > 2.0


def test_distribution_free_reading_also_refutes_four_times_the_claim():
    result = audit_external(functools.partial(analyze_gauss, epsilon=4.0), **CLAIM, n=10, d=2, k=2, trials=2000, seed=0)
    assert result.conversion == "point" and result.violated


def test_a_wrapper_with_its_domain_declared_wrongly_is_refuted():
    # calibrated for rows of norm 0.25 but declared (and not clipped) for rows of norm 1: 16 times too little
    # noise, mu = 4.3 against 0.27
    broken = functools.partial(hand_written_gauss, assumed_norm=0.25)
    result = audit_external(
        broken, **CLAIM, data_norm=1.0, n=10, d=2, k=2, trials=400, seed=0, output_family="gaussian"
    )
    assert result.violated and result.epsilon_lower > 3.0


def test_the_same_wrapper_declared_correctly_is_not_refuted():
    result = audit_external(
        hand_written_gauss, **CLAIM, data_norm=1.0, n=10, d=2, k=2, trials=1000, seed=0, output_family="gaussian"
    )
    assert not result.violated, result.verdict()


def test_a_correct_opendp_configuration_is_not_refuted():
    pytest.importorskip("opendp")
    from dppca_core import peers

    if peers.status("opendp"):
        pytest.skip(peers.status("opendp"))
    result, peer = peers.audit_peer("opendp", epsilon=1.0, n=10, d=2, k=2, trials=300, seed=0)
    assert peer.epsilon == pytest.approx(1.0) and peer.delta == 0.0
    assert not result.violated, result.verdict()


def test_neighbours_lie_inside_the_declared_domain_and_differ_in_one_row():
    origin = np.array([0.5, -1.0, 2.0])
    D, Dp = neighbouring_datasets(6, 3, 2.0, origin, "replace")
    assert D.shape == Dp.shape == (6, 3)
    assert np.all(np.linalg.norm(D - origin, axis=1) <= 2.0 + 1e-12)
    assert np.all(np.linalg.norm(Dp - origin, axis=1) <= 2.0 + 1e-12)
    assert np.count_nonzero(np.any(D != Dp, axis=1)) == 1
    # orthogonal rows at the domain's edge: the second-moment change has Frobenius norm sqrt(2) R^2
    u, v = D[0] - origin, Dp[0] - origin
    assert np.linalg.norm(np.outer(u, u) - np.outer(v, v)) == pytest.approx(np.sqrt(2) * 4.0)
    D, Dr = neighbouring_datasets(6, 3, 2.0, origin, "add_remove")
    assert Dr.shape == (5, 3) and np.array_equal(D[1:], Dr)


def test_an_audit_is_reproducible_and_identical_on_a_dask_scheduler():
    pytest.importorskip("dask")
    args = dict(**CLAIM, n=10, d=2, k=2, trials=600, seed=5, output_family="gaussian")
    first = audit_external(analyze_gauss, **args)
    again = audit_external(analyze_gauss, **args, scheduler="threads")
    assert np.array_equal(first.scores_d, again.scores_d) and first.epsilon_lower == again.epsilon_lower


def test_origin_moves_the_domain():
    # a release that is private around the origin (1, 1) only when the audit puts its rows there
    origin = np.array([1.0, 1.0])
    centred = lambda X, seed: hand_written_gauss(np.asarray(X) - origin, seed)  # noqa: E731
    result = audit_external(
        centred, **CLAIM, origin=origin, n=10, d=2, k=2, trials=600, seed=0, output_family="gaussian"
    )
    assert not result.violated


@pytest.mark.parametrize(
    "release,message",
    [
        (lambda X, seed: [1, 2], "mapping with at least 'components'"),
        (lambda X, seed: {"components": np.eye(3)}, "must have shape (2, 2)"),
        (lambda X, seed: 1 / 0, "release callable failed"),
    ],
)
def test_bad_release_output_gets_a_clear_error(release, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        audit_external(release, epsilon=1.0, n=10, d=2, k=2, trials=100)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(data_norm=0), "data_norm"),
        (dict(data_norm="wide"), "data_norm"),
        (dict(origin=[1.0]), "origin"),
        (dict(k=3), "k"),
        (dict(output_family="laplace"), "output_family"),
        (dict(neighbors="swap"), "neighbo"),
        (dict(epsilon=-1), "epsilon"),
    ],
)
def test_bad_settings_get_a_clear_error(kwargs, message):
    settings = dict(epsilon=1.0, n=10, d=2, k=2, trials=100) | kwargs
    with pytest.raises(ValueError, match=message):
        audit_external(analyze_gauss, **settings)


def test_checked_release_keeps_k_columns_and_plain_values():
    out = checked_release({"components": np.eye(3), "eigenvalues": np.arange(3.0), "n": 4}, 3, 2)
    assert np.asarray(out["components"]).shape == (3, 2) and out["n"] == 4 and isinstance(out["eigenvalues"], list)


def test_audit_release_keeps_the_candidate_statistic_that_separates_on_the_selection_share():
    # two candidates: pure noise, and a Gaussian shift of 3 (mu = 3); the second must be chosen and bound
    from dppca_core.audit import AuditDesign, audit_release
    from dppca_core.privacy import PrivacyCurve

    def release(data, rng):
        return {"noise": float(rng.normal()), "signal": float(data + rng.normal())}, PrivacyCurve.gdp(3.0)

    def design(first: str, second: str) -> AuditDesign:
        """The two candidates in this order."""

        def score(pub):
            return np.array([pub[first], pub[second]])

        return AuditDesign(0.0, 3.0, 1, score, "two candidates", statistics=(first, second))

    result = audit_release(release, design("noise", "signal"), 1.0, 1e-5, trials=1000, seed=0, selection_share=0.5)
    assert result.statistic == "signal" and result.violated and result.mu_lower > 2.0
    swapped = design("signal", "noise")
    assert audit_release(release, swapped, 1.0, 1e-5, trials=1000, seed=0, selection_share=0.5).statistic == "signal"

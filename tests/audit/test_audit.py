"""The privacy audit attacks what a release publishes: it refutes false claims, comes close to true Gaussian
claims, and never refutes a correct mechanism (at its confidence)."""

import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import binomtest, norm

import dppca_core as dc
from dppca_core import registry
from dppca_core.audit import (
    AuditCancelled,
    audit,
    clopper_pearson,
    epsilon_lower_bound,
    mu_lower_bound,
    public_stream,
    replay_public_stream,
)
from dppca_core.mechanisms import central, dp_pca_steps, streaming
from dppca_core.privacy import gaussian_epsilon, gaussian_mu

PRIVATE = [
    (m, nb)
    for m in dc.mechanism_names("pca")
    if dc.get_mechanism(m).guarantee in ("pure", "approximate")
    for nb in dc.get_mechanism(m).relations
]


def test_wishart_is_shown_not_private():
    # PSD noise: the test never flags D and flags D' with probability 1 - e^-eps = 0.632, so delta >= 0.632;
    # with 750 evaluation trials the 97.5% one-sided CP bounds leave delta_lower above 0.5.
    result = audit("wishart_sn", 1.0, trials=1000, seed=0)
    assert result.violated and result.statistic == "psd_support"
    assert result.false_positive_rate == 0.0
    assert result.false_negative_rate == pytest.approx(math.exp(-1.0), abs=0.06)
    assert result.delta_lower > 0.5
    assert "contradicted" in result.verdict()


def test_non_private_is_flagged_through_a_field_without_noise():
    result = audit("non_private", 1.0, 1e-5, trials=200, seed=1)
    assert result.violated and result.leaked_field is not None and result.statistic == "published field"
    assert result.false_positive_rate == 0.0 and result.false_negative_rate == 0.0
    assert result.delta_lower > 0.9  # 150 evaluation trials without an error: CP bound 0.024 on each rate
    assert result.leaked_field in result.verdict()


@pytest.mark.parametrize("name,neighbors", PRIVATE)
def test_correct_mechanisms_are_not_refuted(name, neighbors):
    result = audit(name, 1.0, 1e-5, neighbors=neighbors, trials=400, seed=2)
    assert result.leaked_field is None, result.leaked_field
    assert not result.violated, result
    assert result.epsilon_lower <= 1.0


def test_analyze_gauss_audit_reaches_more_than_half_of_the_claim():
    # mu* (1, 1e-5) = 0.268. With 7,500 evaluation trials the CP margins cost about 0.06 in mu, so mu_lower is
    # about 0.2 and the epsilon it implies at delta = 1e-5 is about 0.7 (0.5 is the target, 1.0 the claim).
    result = audit("analyze_gauss", 1.0, 1e-5, trials=10_000, seed=0)
    assert result.conversion == "gdp" and result.statistic == "gram_entry"
    assert 0.5 <= result.epsilon_lower <= 1.0 and not result.violated
    assert 0.5 <= result.ratio <= 1.0
    assert result.mu_lower <= result.mu_claimed


def test_audit_catches_a_mechanism_run_at_three_times_the_claimed_epsilon():
    # run at eps = 3 (mu = 0.71) but claimed at eps = 1: mu_lower ~ 0.6 implies eps ~ 2.5 > 1
    result = audit("analyze_gauss", 1.0, 1e-5, trials=4000, seed=3, run_epsilon=3.0)
    assert result.violated and result.epsilon_lower > 1.0
    assert "contradicted" in result.verdict() and "1e-05" in result.verdict()


def test_audit_catches_half_the_claimed_noise(monkeypatch):
    # a broken implementation: the noise is half of what the calibration (and the privacy curve) says.
    # True mu = 0.54 at a claim of mu* = 0.27, so mu_lower ~ 0.45 implies eps ~ 1.8 > 1.
    original = central.symmetric_gaussian
    monkeypatch.setattr(central, "symmetric_gaussian", lambda d, sigma, rng: original(d, sigma / 2.0, rng))
    result = audit("analyze_gauss", 1.0, 1e-5, trials=4000, seed=4)
    assert result.violated and result.epsilon_lower > 1.0


def test_audit_catches_a_published_count_of_clipped_rows(monkeypatch):
    # a leak of the kind the release boundary forbids: a deterministic function of the data among the facts
    spec = dc.get_mechanism("analyze_gauss")

    def leaky(data, k, epsilon, delta, neighbors, rng):
        out = spec.func(data, k, epsilon, delta, neighbors, rng)
        out.facts["first_row_energy"] = float(data.gram[0, 0])
        return out

    monkeypatch.setitem(registry._REGISTRY, "analyze_gauss", dataclasses.replace(spec, func=leaky))
    result = audit("analyze_gauss", 1.0, 1e-5, trials=200, seed=5)
    assert result.violated and result.leaked_field == "facts.first_row_energy"


def test_gdp_reading_of_one_test():
    # a mu-GDP test at the midpoint threshold has alpha = beta = Phi(-mu/2): the reading gives mu back
    mu = 0.8
    alpha = norm.cdf(-mu / 2)
    assert mu_lower_bound(alpha, alpha) == pytest.approx(mu, rel=1e-12)
    assert mu_lower_bound(0.5, 0.6) == 0.0
    assert gaussian_epsilon(float(mu_lower_bound(alpha, alpha)), 1e-5) > 0


def test_clopper_pearson_and_bound_arithmetic():
    lo, hi = clopper_pearson(0, 100, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9)
    lo, hi = clopper_pearson(30, 100, 0.95)
    ci = binomtest(30, 100).proportion_ci(0.95, method="exact")
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert epsilon_lower_bound(0.1, 0.1, 0.0) == pytest.approx(math.log(0.9 / 0.1))
    assert epsilon_lower_bound(0.5, 0.5, 0.0) == 0.0


def test_audit_is_deterministic_and_validates():
    a = audit("analyze_gauss", 1.0, trials=60, seed=5)
    b = audit("analyze_gauss", 1.0, trials=60, seed=5)
    assert np.array_equal(a.scores_d, b.scores_d) and a.epsilon_lower == b.epsilon_lower
    with pytest.raises(ValueError, match="trials"):
        audit("analyze_gauss", 1.0, trials=3)
    with pytest.raises(ValueError, match="statistic"):
        audit("analyze_gauss", 1.0, statistic="magic")
    with pytest.raises(ValueError, match="epsilon"):
        audit("analyze_gauss", 0.0)
    with pytest.raises(ValueError, match="k = 1"):
        audit("private_power", 1.0, trials=60, statistic="power_iterates", k=2)


def test_private_oja_is_audited_at_the_canarys_step():
    # The canary is in the first step's row at 45 degrees from the public start vector, so the step's whole
    # sensitivity shows orthogonally to the iterate: the score's separation is mu* = 0.268 itself. With 1,500
    # evaluation trials the Clopper-Pearson margins take about 0.12 off mu, so the bound is above a quarter of
    # the claim (it was 3% for a design that ignored the order, about half with a fixed canary).
    result = audit("private_oja", 1.0, 1e-5, trials=2000, seed=0)
    assert result.statistic == "oja_step" and result.conversion == "gdp"
    assert not result.violated and 0.25 <= result.ratio <= 1.0
    # ... and it has the power to refute a run with less noise than the claim needs (mu 0.71 instead of 0.27)
    weak = audit("private_oja", 1.0, 1e-5, trials=1000, seed=3, run_epsilon=3.0)
    assert weak.violated and weak.epsilon_lower > 1.2


def _public_draws_of(seed_sequence, rows, d):
    return streaming.public_start(rows, d, replay_public_stream(seed_sequence))


@pytest.mark.parametrize("name", ["private_oja", "dp_pca"])
def test_streaming_designs_put_the_canary_where_the_public_draws_use_it_first(name):
    design = (
        streaming.oja_audit_design(2, 20, "replace", "auto")
        if name == "private_oja"
        else streaming.dp_pca_audit_design(2, 20, "replace", "auto", 1.0, 1e-5)
    )
    order, w0 = public = _public_draws_of(np.random.SeedSequence(4), 20, 2)
    D, D_prime = design.datasets(public)
    moved = np.flatnonzero(np.linalg.norm(D.rows - D_prime.rows, axis=1))
    assert moved.tolist() == [order[0]]  # only the row of the first step differs
    x, x_prime = D.rows[order[0]], D_prime.rows[order[0]]
    assert np.linalg.norm(x) == pytest.approx(1.0) and np.linalg.norm(x_prime) == pytest.approx(1.0)
    assert x @ w0 == pytest.approx(2**-0.5) and x_prime @ w0 == pytest.approx(2**-0.5)  # 45 degrees
    # the two gradients x x^T w0 differ by a unit vector orthogonal to w0: the whole sensitivity, all visible
    diff = x * (x @ w0) - x_prime * (x_prime @ w0)
    assert np.linalg.norm(diff) == pytest.approx(1.0) and diff @ w0 == pytest.approx(0.0, abs=1e-12)
    assert np.count_nonzero(np.linalg.norm(D.rows, axis=1)) == 1


@pytest.mark.parametrize("name", ["private_oja", "dp_pca"])
def test_public_draws_come_from_their_own_stream_and_are_replayed(name):
    sequence = np.random.SeedSequence(11)
    design = (
        streaming.oja_audit_design(2, 20, "replace", "auto")
        if name == "private_oja"
        else streaming.dp_pca_audit_design(2, 20, "replace", "auto", 1.0, 1e-5)
    )
    public = _public_draws_of(sequence, 20, 2)
    D, _ = design.datasets(public)
    rng = np.random.Generator(np.random.PCG64(sequence))
    rng.standard_normal(7)  # the noise generator's state moves: the public stream does not depend on it
    release = dc.run(name, D, 1, 1.0, 1e-5, seed=rng, lr_c1=1e-4)
    first = np.asarray(release.outputs["iterates"][0])[:, 0]
    # with a tiny learning rate the first iterate is the start vector moved by about 1e-5 x (gradient + noise)
    assert np.linalg.norm(first - public[1]) < 1e-3
    other = _public_draws_of(np.random.SeedSequence(12), 20, 2)
    assert np.linalg.norm(first - other[1]) > 1e-2


def test_public_stream_needs_a_spawnable_generator():
    assert isinstance(public_stream(np.random.default_rng(1)), np.random.Generator)
    with pytest.raises(ValueError, match="SeedSequence"):
        public_stream(object())


def test_audit_design_module_sits_below_the_mechanisms():
    # the design types import nothing of the package, so mechanisms declare designs without an import cycle
    import ast
    import inspect

    from dppca_core.audit import design

    tree = ast.parse(inspect.getsource(design))
    imported = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert all(
        not isinstance(node, ast.ImportFrom) or (node.level == 0 and not node.module.startswith("dppca"))
        for node in imported
    )


def test_dp_pca_gradient_step_is_gaussian_and_audited():
    release = dc.run("dp_pca", np.eye(2)[np.arange(20) % 2], 1, 1.0, 1e-5, seed=0)
    assert release.facts["private_range"] is False
    assert release.privacy.kind == "gdp" and release.privacy.mu == pytest.approx(gaussian_mu(1.0, 1e-5))
    weak = audit("dp_pca", 1.0, 1e-5, trials=1000, seed=3, run_epsilon=3.0)
    assert weak.statistic == "gradient_step" and weak.conversion == "gdp" and weak.violated


def test_dp_pca_histogram_design_toggles_the_canarys_group_between_two_bins():
    design = streaming.dp_pca_audit_design(2, 20, "replace", "range_histogram", 1.0, 1e-5)
    rows = design.params["batch_size"]
    order, w0 = public = _public_draws_of(np.random.SeedSequence(2), rows, 2)
    D, D_prime = design.datasets(public)
    groups = dp_pca_steps.eigen_groups(1.0, 1e-5, design.params["zeta"] / 2)
    size = (rows // 4) // groups

    def labels(data):  # Algorithm 4's group labels, in the public order
        grads = data.rows[order[: rows // 2]] * (data.rows[order[: rows // 2]] @ w0)[:, None]
        diffs = grads[1::2] - grads[0::2]
        tops = [np.linalg.eigvalsh(b.T @ b)[-1] / (2 * size) for b in diffs[: groups * size].reshape(groups, size, 2)]
        return np.floor(4 * np.log2(tops)).astype(int)

    a, b = labels(D), labels(D_prime)
    assert (a[1:] == b[1:]).all() and a[0] - b[0] == 2  # only the canary's group moves, two bins down
    values, counts = np.unique(a, return_counts=True)
    assert len(values) == 2 and abs(counts[0] - counts[1]) <= 1  # two bins holding half the groups each
    assert abs(D.rows.shape[0] - rows) == 0


def test_local_mechanisms_are_audited_at_the_users_message():
    # the message's score M22 - M11 separates e1 from e2 by exactly the mu the randomiser is calibrated for
    for name in ("ldp_gaussian", "ldp_sparse"):
        result = audit(name, 1.0, 1e-5, trials=2000, seed=1)
        assert result.statistic == "ldp_message" and result.conversion == "gdp" and not result.violated
        assert result.ratio >= 0.5
        separation = (result.scores_d_prime.mean() - result.scores_d.mean()) / result.scores_d.std()
        assert separation == pytest.approx(gaussian_mu(1.0, 1e-5), abs=0.08)  # 1,500 trials: s.e. about 0.04
        assert audit(name, 1.0, 1e-5, trials=1000, seed=2, run_epsilon=2.0).violated
    aggregate = audit("ldp_gaussian", 1.0, 1e-5, trials=200, seed=1, statistic="gram_entry")
    assert aggregate.statistic == "gram_entry" and not aggregate.violated
    with pytest.raises(ValueError, match="replace"):
        audit("ldp_gaussian", 1.0, 1e-5, trials=200, neighbors="add_remove")


def test_log_density_score_is_the_exact_log_likelihood_ratio():
    from dppca_core.audit import log_density_design

    spec = dc.get_mechanism("ppca_exponential")
    design = log_density_design(spec, 2, 20, "replace", 1.0)
    w, theta = 0.5, 0.3
    v = np.array([math.cos(theta), math.sin(theta)])
    grid = np.linspace(0.0, 2 * math.pi, 200_001)[:-1]
    circle = np.stack([np.cos(grid), np.sin(grid)])

    def log_density(gram):  # log of exp(w v'Cv) / mean over the circle of exp(w u'Cu), by quadrature
        energy = np.einsum("in,ij,jn->n", circle, gram, circle)
        return w * v @ gram @ v - math.log(np.mean(np.exp(w * energy)))

    expected = log_density(design.D_prime.gram) - log_density(design.D.gram)
    published = {"facts": {"bingham_weight": w}, "components": v[:, None].tolist()}
    assert design.score(published) == pytest.approx(expected, abs=1e-9)
    with pytest.raises(ValueError, match="d = 2"):
        log_density_design(spec, 3, 20, "replace", 1.0)


def test_pure_mechanisms_run_at_twice_the_claim_are_refuted():
    result = audit("ppca_exponential", 1.0, trials=2000, seed=0, run_epsilon=3.0)
    assert result.statistic == "log_density_ratio" and result.conversion == "range" and result.violated


def test_exact_epsilon_is_the_target_where_the_noise_exceeds_the_claim():
    result = audit("mod_sulq", 1.0, 1e-5, trials=200, seed=0)
    release = dc.run("mod_sulq", np.eye(2)[np.arange(20) % 2], 2, 1.0, 1e-5, seed=0)
    assert result.epsilon_exact == pytest.approx(release.privacy.epsilon_at(1e-5))
    assert result.epsilon_exact < 0.5 and result.target == result.epsilon_exact
    assert result.target_ratio == pytest.approx(result.epsilon_lower / result.epsilon_exact)
    exact_ag = audit("analyze_gauss", 1.0, 1e-5, trials=200, seed=0)
    assert exact_ag.epsilon_exact == pytest.approx(1.0, rel=1e-6) and exact_ag.target == pytest.approx(1.0, rel=1e-6)


def test_distributed_mechanisms_are_audited_at_one_sites_message():
    result = audit("dist_conventional", 1.0, 1e-5, trials=200, seed=0)
    assert "sites" in dc.get_mechanism("dist_conventional").audit_params
    two = audit("dist_conventional", 1.0, 1e-5, trials=200, seed=0, sites=2)  # the aggregate of two sites
    assert not result.violated and not two.violated


def test_dask_run_equals_the_serial_run():
    distributed = pytest.importorskip("distributed")
    serial = audit("analyze_gauss", 1.0, 1e-5, trials=600, seed=3)
    fractions = []
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        on_cluster = audit("analyze_gauss", 1.0, 1e-5, trials=600, seed=3, scheduler=client, progress=fractions.append)
    local = audit("analyze_gauss", 1.0, 1e-5, trials=600, seed=3, scheduler="synchronous")
    for other in (on_cluster, local):
        assert np.array_equal(serial.scores_d, other.scores_d)
        assert np.array_equal(serial.scores_d_prime, other.scores_d_prime)
        assert serial.epsilon_lower == other.epsilon_lower and serial.threshold == other.threshold
    assert fractions[-1] == 1.0 and sorted(fractions) == fractions


def test_progress_can_cancel_and_bad_schedulers_are_refused():
    with pytest.raises(AuditCancelled):
        audit("analyze_gauss", 1.0, trials=600, seed=0, progress=lambda f: False)
    with pytest.raises(ValueError, match="scheduler"):
        audit("analyze_gauss", 1.0, trials=600, seed=0, scheduler=3.5)
    with pytest.raises(ValueError, match="seed"):
        audit("analyze_gauss", 1.0, trials=60, seed=-1)


def test_tensor_design_puts_the_canary_at_the_edge_of_the_domain():
    from dppca_core.tensor import auditing

    design = auditing.tensor_audit_design(2, 20, "replace", "auto", epsilon=1.0, delta=1e-5)
    assert design.params == auditing.MOG_AUDIT_PARAMS and design.params["sigma2"] == 0.0
    # with 95% of the budget on M3 the canary that loads it most is the antipode of e1 (2/n, the bound itself)
    rows, rows_prime = design.D._rows, design.D_prime._rows  # the scaled rows the moments are computed from
    np.testing.assert_allclose(rows[0], [1.0, 0.0])
    np.testing.assert_allclose(rows_prime[0], [-1.0, 0.0], atol=1e-12)
    assert not rows[1:].any() and not rows_prime[1:].any()


def test_tensor_run_at_three_times_the_claim_is_refuted():
    result = audit("otd_agn", 1.0, 1e-5, trials=600, seed=0, run_epsilon=3.0, restarts=1, iterations=1)
    assert result.statistic == "moment_likelihood_ratio" and result.violated

"""The reproductions of the seed papers: each gives the qualitative shape the paper (or our correction of it)
predicts on a tiny grid, the command writes its files, and the Reproduce page renders its figure.

Every reproduction runs here with ``overrides`` that shrink its grid (seconds, not minutes); seeds are fixed, so
a run is reproducible, and each tolerance below says where it comes from.
"""

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dppca_core import metrics
from dppca_core import reproduce as rp
from dppca_core.mechanisms.local import ldp_noise_sigma

TINY = {
    "wang_xu_low_dim": dict(n=20_000, ks=(5, 10), n_grid=(5000, 20_000), p_grid=(40,), eps_grid=(0.5, 1e5), reps=2),
    "wang_xu_sparse": dict(n=2000, p=40, k=3, s_grid=(6,), s_eps=6, eps_grid=(1.0,), reps=1),
    "ge_convergence": dict(n=5000, d=50, k=2, s=5, s_hat=10, T=6, eps_a=(0.5, 2.0), delta_b=(0.01, 0.5), reps=2),
    "ge_comparison": dict(d_a=60, n_a=5000, k_a=2, eps_a=(1.0,), d_b=(30,), n_b=20_000, sweeps=5, reps=1),
    # n = 50,000 at d = 5: above the 43,257 rows from which DP-PCA runs Algorithms 4-5 at eps = 0.5
    "liu_example_41": dict(n=50_000, d=5, sigmas=(0.1, 0.001), reps=1),
    "liu_spiked": dict(ns=(5000, 80_000), eps=(0.9,), reps=8),  # one rep sd ~0.2 at 80k rows: 8 reps
    "imtiaz_2016_sn": dict(d=20, k=5, ns=(5000,), eps_grid=(0.01, 10.0), attack_eps=(1.0,), attack_trials=400, reps=1),
    "cape_pca": dict(
        D=30, K=5, sites=5, ns_grid=(200,), ns_eps=200, eps_grid=(1.0,), delta_grid=(0.01,), eps_n=1.0, reps=3
    ),
    "cape_agn": dict(eps_grid=(0.1, 1.0, 10.0), ns_grid=(1000,), reps=5),
    "coinpress_covariance": dict(ns=(3000, 8000), iterations=(1, 3), reps=3),
    "dly_dimension": dict(ns=(1000,), dims=(25, 400), reps=2),
    "dly_skewed": dict(n=5000, d=50, buckets=(1, 8), reps=2),
    "topk_spiked": dict(ns=(10_000,), reps=2),
    "topk_low_d": dict(ns=(100_000,), sigmas=(0.025,), reps=1),
}


@pytest.fixture(scope="module")
def tiny():
    """Every reproduction once on its tiny grid (shared by the tests of this module)."""
    return {key: rp.reproduce(key, overrides=overrides) for key, overrides in TINY.items()}


def mean(rep, panel_prefix, series, x=None):
    s = rep.summary
    s = s[s.panel.str.startswith(panel_prefix) & (s.series == series)]
    if x is not None:
        s = s[np.isclose(s.x, x)]
    assert not s.empty, (panel_prefix, series, x, sorted(rep.summary.series.unique()))
    return float(s["mean"].iloc[0])


def test_every_paper_has_its_reproductions_and_the_scenario_lists_the_papers():
    from ui import scenario

    assert set(rp.REPRODUCTIONS) == set(rp.SPECS) == set(TINY)
    assert scenario.FIELDS["rpaper"].allowed() == tuple(rp.PAPERS)
    assert scenario.FIELDS["rgrid"].allowed() == rp.GRIDS
    for key in rp.REPRODUCTIONS:
        # the default grid is the scaled-down one: never more repetitions than the full grid
        assert rp.config(key, "default")["reps"] <= rp.config(key, "full")["reps"]


def test_frames_are_tidy_texts_filled_and_figures_drawn(tiny):
    for key, rep in tiny.items():
        columns = "reproduction panel series mechanism algorithm x_name x rep value metric seconds".split()
        assert list(rep.frame.columns) == columns, key
        assert (rep.frame.algorithm.str.len() > 5).all(), key  # every point says what produced it
        assert (rep.frame.reproduction == key).all() and np.isfinite(rep.frame.value).all(), key
        for text in (rep.claim, rep.finding, rep.difference, rep.settings):
            assert len(text) > 80 and not re.search(r"\bnan\b", text.lower()), (key, text)  # every number found
            assert "ALGORITHMS" not in text and "shared" not in text.lower(), (key, text)  # product text
        fig = rp.figure(rep)
        assert isinstance(fig, go.Figure) and len(fig.data) >= 2, key
        assert {p.name for p in rep.panels} >= set(rep.frame.panel), key


@pytest.mark.parametrize("key", ["ge_convergence", "ge_comparison", "wang_xu_sparse", "cape_agn"])
def test_a_difference_names_the_grid_only_where_it_is_not_the_paper_s(key):
    difference = rp.SPECS[key].steps.difference  # reads the settings only: no run needed
    assert "Default grid:" in difference(rp.config(key, "default")), key
    full = json.loads(json.dumps(rp.config(key, "full")))  # a task's settings come back from JSON as lists
    assert "Default grid:" not in difference(full), key
    smaller = {"ge_convergence": {"n": 20_000}, "ge_comparison": {"d_b": [40, 60]}}.get(key, {})
    assert not smaller or "Default grid:" in difference({**full, **smaller}), key  # any setting the text names


def test_wang_xu_algorithm_1_setting_is_noise_dominated_until_epsilon_is_huge(tiny):
    rep = tiny["wang_xu_low_dim"]
    # At eps = 0.5, n = 2e4 the server's noise per entry is sigma/sqrt(n) ~ 0.06, 24x the eigengap 1/(10p): the
    # estimate is a random subspace. A random k-subspace's distance sqrt(2k - 2||U^T V||^2) has s.d. about 0.06
    # at p = 40, so the mean of 2 repetitions stays within 0.2 (> 4 s.d.) of sqrt(2k(1 - k/p)).
    assert ldp_noise_sigma(0.5, 1e-4) / math.sqrt(20_000) > 20 * (1 / 400)
    for k in (5, 10):
        level = math.sqrt(2) * metrics.random_subspace_distance(40, k)
        assert abs(mean(rep, "(a) against k", "ldp_gaussian (Algorithm 1)", k) - level) < 0.2
        assert mean(rep, "(a) against k", "non-private PCA", k) < 0.3 * level  # the data do hold the signal
    level = math.sqrt(2) * metrics.random_subspace_distance(40, 5)
    # fewer rows: even more noise per entry (sigma / sqrt(n)), still the random level
    assert abs(mean(rep, "(b) against n", "ldp_gaussian (Algorithm 1)", 5000) - level) < 0.2
    # at eps = 1e5 the noise is ~1e-5 per entry, far below the gap: the private estimate learns V
    assert mean(rep, "(d) against ε", "ldp_gaussian (Algorithm 1)", 1e5) < 0.3 * level
    assert "random-subspace level" in rep.finding and "Noise-dominated" in rep.difference


def test_wang_xu_algorithm_2_setting_is_noise_dominated(tiny):
    rep = tiny["wang_xu_sparse"]
    # noise s.d. per entry ~0.1 at n = 2000, eps = 1 against eigenvalues ~1/(5p) = 0.005: no better than random
    # (at least 80% of the random level; the estimate can be farther than random when it picks the wrong rows)
    level = math.sqrt(2) * metrics.random_subspace_distance(40, 3)
    assert mean(rep, "(a) against the sparsity", "ldp_sparse (Algorithm 2)", 6) > 0.8 * level
    assert "Noise-dominated" in rep.difference


def test_dps_pca_converges_and_more_privacy_costs_accuracy(tiny):
    rep = tiny["ge_convergence"]
    for label in ("ε = 0.5", "ε = 2"):
        start, final = mean(rep, "(a)", label, 0), mean(rep, "(a)", label, 6)
        assert final < 0.25 * start, label  # geometric convergence: 6 steps at ratio lambda_3/lambda_2 << 1
    # privacy-dominated final error is proportional to the noise sigma ~ 1/mu*(eps, delta): larger eps, smaller error
    assert mean(rep, "(a)", "ε = 2", 6) < mean(rep, "(a)", "ε = 0.5", 6)
    assert mean(rep, "(b)", "δ = 0.5", 6) < mean(rep, "(b)", "δ = 0.01", 6)
    assert "times less noise" in rep.difference  # the paper's nu against our exact calibration


def test_ge_comparison_order_dps_ppca_mod_sulq(tiny):
    rep = tiny["ge_comparison"]
    assert mean(rep, "(a)", "DPS-PCA") < mean(rep, "(a)", "MOD-SuLQ")
    # MOD-SuLQ's noise grows like d (union bound), PPCA's exponential mechanism like sqrt(d / (eps n gap))
    assert mean(rep, "(b)", "DPS-PCA") < mean(rep, "(b)", "PPCA (Gibbs)") < mean(rep, "(b)", "MOD-SuLQ")


@pytest.mark.parametrize("panel", ["ε = 0.5: inside Theorem 5.1", "ε = 1: outside Theorem 5.1"])
def test_dp_pca_beats_private_oja_as_the_data_noise_falls(tiny, panel):
    rep = tiny["liu_example_41"]
    oja_hi, oja_lo = mean(rep, panel, "Private Oja", 0.1), mean(rep, panel, "Private Oja", 0.001)
    tails_hi, tails_lo = (mean(rep, panel, "DP-PCA (K = 1.63, a = 1/2)", s) for s in (0.1, 0.001))
    # Private Oja's privacy noise 2 eta alpha does not depend on sigma (Theorem 3.3): no large drop
    assert oja_lo > 0.3 * oja_hi
    # DP-PCA's truncation radius follows the gradients' spread ~ sigma (Theorem 5.1): its error falls with sigma
    assert tails_lo < 0.5 * tails_hi
    assert tails_lo < oja_lo / 5 and mean(rep, panel, "DP-PCA (K = 4, a = 1)", 0.001) < oja_lo / 5
    # the paper's algorithm ran (n = 50,000 is above both thresholds), truncating once sigma is small
    frame = rep.frame[rep.frame.panel.str.startswith(panel) & (rep.frame.mechanism == "dp_pca")]
    assert frame.algorithm.str.startswith("Algorithms 3–5").all()
    assert (frame[frame.x == 0.001].algorithm == "Algorithms 3–5, Algorithm 5 truncating").any()
    assert "Theorem 5.1 is stated for ε < 0.9" in rep.difference


def test_liu_spiked_dp_pca_error_falls_with_n(tiny):
    rep = tiny["liu_spiked"]
    early, late = (mean(rep, "d = 10", "DP-PCA, ε = 0.9", n) for n in (5000, 80_000))
    # privacy term ~ d/(eps n) and statistical term ~ sqrt(d/n) both fall 16-fold; on this grid the few batches
    # (T ~ ln(n)^2) leave an optimisation error too, so the measured mean falls about 2-fold (0.82 -> 0.38 over
    # 8 reps; one rep's sd is ~0.2 at n = 80,000, so the mean's ~0.07): 0.6 keeps > 2 sd of margin
    assert late < 0.6 * early
    assert late < mean(rep, "d = 10", "Private Oja, ε = 0.9", 80_000)


def test_every_reproduction_csv_says_which_algorithm_produced_each_point(tiny, tmp_path):
    rp.write(list(tiny.values()), tmp_path)
    for key in tiny:
        frame = pd.read_csv(tmp_path / f"{key}.csv")
        assert "algorithm" in frame.columns and frame.algorithm.notna().all() and (frame.algorithm != "").all(), key
    frame = pd.read_csv(tmp_path / "liu_spiked.csv")
    dp = frame[(frame.series == "DP-PCA, ε = 0.9")]
    # d = 10, eps = 0.9: Algorithms 4-5 need a batch of ~6,400 rows, which B = n / ceil((ln n)^2 / 16) reaches from
    # n ~ 50,000 (a function of n, d, eps, delta only): 5,000 rows run the fallback, 80,000 the paper's algorithm
    assert dp[dp.x == 5000].algorithm.str.startswith("fallback").all()
    assert dp[dp.x == 80_000].algorithm.str.startswith("Algorithms 3–5").all() and (dp.x == 80_000).sum() == 8
    from dppca_core.reproduce.liu import rows_needed

    assert 5000 < rows_needed(10, 0.9) <= 80_000
    rep = tiny["liu_spiked"]
    assert rep.marks and rep.marks[0][1] == rows_needed(10, 0.9)  # the figure's dotted line
    fig = rp.figure(rep)
    assert any(t.name and t.name.startswith("marker: fallback") for t in fig.data)  # the legend names the markers
    assert "the fallback at n = 5,000" in rep.finding and "Algorithms 4–5 at n = 80,000" in rep.finding


def test_the_paper_s_own_noise_is_drawn_and_marked_where_it_is_not_private(tiny):
    expected = {
        "wang_xu_low_dim": "Algorithm 1, the paper's noise",
        "ge_convergence": "ε = 0.5, the paper's ν",
        "imtiaz_2016_sn": "Analyze Gauss, the paper's noise",
        "cape_pca": "capePCA, the paper's noise",
        "cape_agn": "capeAGN, the paper's noise",
        "liu_spiked": "DP-PCA, the paper's ε/2 split, ε = 0.9",
    }
    for key, series in expected.items():
        assert series in set(tiny[key].frame.series), (key, sorted(set(tiny[key].frame.series)))
    sn = tiny["imtiaz_2016_sn"].frame
    ag = sn[(sn.series == "Analyze Gauss, the paper's noise") & sn.panel.str.contains("against ε")]
    ag = ag.groupby("x").algorithm.first()
    # the authors' Analyze Gauss: the classic formula with sensitivity 1 where the relation needs sqrt(2). At
    # delta = 0.1 its slack covers the missing sqrt(2) at eps = 0.01 (sigma 225 against the 5.4 that eps needs) but
    # not at eps = 10 (0.22 against 0.40): not private as stated there
    assert ag[0.01] == rp.kit.PAPER_NOISE_OK and ag[10.0] == rp.kit.PAPER_NOISE_WRONG
    ppm = sn[sn.series == "power method, the paper's noise"].algorithm
    assert ppm.str.contains("not private as stated").all()  # entry-level noise: no row-level guarantee
    # with the paper's power-method calibration SN comes out ahead at eps = 10 as in the paper; with ours the
    # order is reversed at small eps, and the texts say why
    assert "reversed" in tiny["imtiaz_2016_sn"].finding and "Hardt & Price" in tiny["imtiaz_2016_sn"].difference
    ge = tiny["ge_convergence"].frame
    assert (ge[ge.series.str.contains("paper's ν")].algorithm == rp.kit.PAPER_NOISE_OK).all()  # over-noised
    nu = mean(tiny["ge_convergence"], "(c)", "ε = 0.5, the paper's ν", 6)
    assert nu > 3 * mean(tiny["ge_convergence"], "(a)", "ε = 0.5", 6)  # 7-29x the noise: a much larger error


def test_cape_agn_mixture_at_the_smallest_epsilon_is_no_worse_than_random_vectors(tiny):
    """Issue: with the means projected onto the clipping radius's ball (2.3 at D = 10) capeAGN scored 1.97
    against random vectors' 1.06 at eps = 0.1; onto the model's public unit ball it sits below (median over the
    repetitions)."""
    frame = tiny["cape_agn"].frame
    at = frame[frame.panel.str.startswith("MOG") & frame.panel.str.contains("against ε") & (frame.x == 0.1)]
    medians = at.groupby("series").value.median()
    assert medians["capeAGN"] <= medians["random vectors"], medians
    assert "at or below the random level" in tiny["cape_agn"].finding


def test_every_reproduction_lists_the_paper_s_claims_with_a_status(tiny):
    for key, rep in tiny.items():
        assert rep.claims, key
        for claim in rep.claims:
            assert claim.status in (rp.REPRODUCED, rp.NOT_REPRODUCED, rp.REVERSED, rp.NOT_RUN), (key, claim)
            assert len(claim.why) > 20 and claim.reproduction == key and "nan" not in claim.why.lower(), claim
    statuses = {c.claim: c.status for c in tiny["imtiaz_2016_sn"].claims}
    assert statuses["SN outperforms the private power method (PPM)"] == rp.REVERSED
    md = "\n".join(rp.papers_claims(list(tiny.values())))
    assert "python -m dppca_core.reproduce --only liu_spiked --out DIR" in md and "| reversed |" in md


def test_sn_is_flagged_retracted_and_the_attack_matches_theory(tiny):
    rep = tiny["imtiaz_2016_sn"]
    assert "SN (Wishart, retracted: not private)" in set(rep.frame.series)
    assert "not differentially private" in rep.difference and "retracted" in rep.difference
    # the PSD test detects D' with probability 1 - e^-1 = 0.632; 400 trials: binomial s.d. 0.024, allow 4 s.d.
    detected = mean(rep, "the attack", "attack: detection rate under D′", 1.0)
    assert abs(detected - (1 - math.exp(-1))) < 0.1
    assert mean(rep, "the attack", "attack: false alarms under D", 1.0) == 0.0  # E is PSD: never a false alarm
    sn = "SN (Wishart, retracted: not private)"
    assert mean(rep, "captured energy against ε", sn, 10.0) > mean(rep, "captured energy against ε", sn, 0.01)


def test_cape_pca_matches_pooled_and_beats_conventional_and_local(tiny):
    rep = tiny["cape_pca"]
    cape, pooled = mean(rep, "(a)", "capePCA", 1.0), mean(rep, "(a)", "pooled DP (Analyze Gauss)", 1.0)
    conv, local = mean(rep, "(a)", "conventional", 1.0), mean(rep, "(a)", "local (one site)", 1.0)
    # capePCA's aggregate noise equals the pooled level by design (only the draws differ; the band over 3
    # repetitions is ~0.03 wide); conventional has S = 5 times the pooled variance, local S^2 times
    assert abs(cape - pooled) < 0.05
    assert cape > conv + 0.1 and conv > local + 0.1


def test_cape_agn_below_conventional_and_local_for_mog_and_stm(tiny):
    rep = tiny["cape_agn"]
    for model in ("MOG", "STM"):
        for eps in (1.0, 10.0):
            cape = mean(rep, f"{model} (D = 10, K = 5): against ε", "capeAGN", eps)
            assert cape < mean(rep, f"{model} (D = 10, K = 5): against ε", "conventional", eps), (model, eps)
            assert cape < mean(rep, f"{model} (D = 10, K = 5): against ε", "local (one site)", eps), (model, eps)
        # larger epsilon: less noise on both moments, capeAGN approaches the non-private error
        assert mean(rep, f"{model} (D = 10, K = 5): against ε", "capeAGN", 10.0) < mean(
            rep, f"{model} (D = 10, K = 5): against ε", "capeAGN", 1.0
        )
    assert len(rep.paper_figure) == 4 and any("MOG" in line for line in rep.paper_figure)


def test_coinpress_steps_beat_one_step_and_follow_the_paper(tiny):
    # the paper: t = 1 gives 2.84 and 1.34 at n = 3,000 and 8,000, t = 3 gives 0.31 and 0.13 (100 runs); one run's
    # error has a spread of about 15%, so 3 runs sit within 25% of those values
    rep = tiny["coinpress_covariance"]
    panel = "the authors' inflation"
    for n, one, three in ((3000, 2.843, 0.306), (8000, 1.340, 0.1328)):
        assert mean(rep, panel, "t = 1", n) == pytest.approx(one, rel=0.25)
        assert mean(rep, panel, "t = 3", n) < 1.25 * three
    assert mean(rep, panel, "t = 3", 8000) < 0.2 * mean(rep, panel, "t = 1", 8000)


def test_trace_sensitive_beats_the_gaussian_mechanism_at_large_d_and_trace_1(tiny):
    # Frobenius error at trace 1, n = 1,000: the Gaussian mechanism's noise matrix alone has norm ~ sigma d / n (0.9 at
    # d = 400), the trace-sensitive estimate ~ d^(1/4) sqrt(1/n) up to logs (0.15 measured): a factor 6, far from noise
    rep = tiny["dly_dimension"]
    panel = "n = 1,000"
    assert mean(rep, panel, "trace-sensitive (separate)", 400) < 0.4 * mean(rep, panel, "Gaussian mechanism", 400)
    assert mean(rep, panel, "Gaussian mechanism", 400) > 8 * mean(rep, panel, "Gaussian mechanism", 25)


def test_tail_sensitive_wins_on_skewed_norms_and_keeps_the_radius_at_one_bucket(tiny):
    # n = 5,000, d = 50, 8 Zipf norm buckets (most rows at norm 1/128): measured 0.0020 (tail-sensitive) against
    # 0.0057 (trace-sensitive) and 0.023 (Gaussian mechanism), 3 runs; with one bucket (every row at the radius) it
    # keeps tau = 1 and pays its quarter of the budget: above trace-sensitive (0.041 against 0.036)
    rep = tiny["dly_skewed"]
    panel = "n = 5,000"
    assert mean(rep, panel, "tail-sensitive", 8) < 0.6 * mean(rep, panel, "trace-sensitive (separate)", 8)
    assert mean(rep, panel, "tail-sensitive", 8) < 0.2 * mean(rep, panel, "Gaussian mechanism", 8)
    assert mean(rep, panel, "tail-sensitive", 1) > mean(rep, panel, "trace-sensitive (separate)", 1)
    # the combined routine (route auto): on skewed norms it clips too (0.0021 against trace-sensitive's 0.0058); with
    # one bucket it runs the Gaussian mechanism at 3/4 of mu^2 (sqrt(4/3) x 0.029 = 0.034, measured 0.034), below the
    # tail-sensitive algorithm's 0.042; the authors' code, ported, does the same (0.0022 and 0.034: our routine steers
    # with their bounds and scalings, so the two differ by the calibration and the exact clipping excess only)
    assert mean(rep, panel, "combined (auto)", 8) < 0.6 * mean(rep, panel, "trace-sensitive (separate)", 8)
    assert mean(rep, panel, "combined (auto)", 1) < 0.9 * mean(rep, panel, "tail-sensitive", 1)
    # (two runs each: the radius the sparse vector step picks varies from run to run, so 25% at N = 8; at N = 1 both
    # run the Gaussian mechanism at the same noise, 5%)
    for n_buckets, spread in ((1, 0.05), (8, 0.25)):
        ported = mean(rep, panel, "combined, the authors' code (ported)", n_buckets)
        assert mean(rep, panel, "combined (auto)", n_buckets) == pytest.approx(ported, rel=spread)
    assert [c.status for c in rep.claims] == [rp.REPRODUCED] * 4


def test_topk_claims_are_not_run_where_its_algorithm_never_ran_and_judged_where_it_did(tiny):
    # at d = 200, n = 10,000 each of k-DP-PCA's two parts runs DP-PCA's fallback on 5,000 rows (error ~0.35-0.4
    # against input perturbation's ~0.05): the claims about k-DP-PCA are "not run", never "reversed"
    rep = tiny["topk_spiked"]
    assert mean(rep, "σ = 0.025", "k-DP-PCA", 10_000) > 2 * mean(
        rep, "σ = 0.025", "DP-Gauss-1 (input perturbation)", 10_000
    )
    assert {c.status for c in rep.claims} == {rp.NOT_RUN}
    assert "structure inferred from the abstract; rows only" in rep.difference
    # at d = 20, n = 100,000 each part's batches are large enough: Algorithms 4-5 run (the algorithm column) and
    # the claim is judged (measured 0.031 against input perturbation's 0.0014: reversed)
    low = tiny["topk_low_d"]
    points = low.summary[low.summary.series == "k-DP-PCA"]
    assert points.algorithm.str.startswith("Algorithms 3–5").all()
    statuses = [c.status for c in low.claims if "below the baselines" in c.claim]
    assert statuses == [rp.REVERSED]


def test_tasks_are_deterministic_json_and_independent_of_other_tasks():
    tasks = rp.plan("cape_agn", overrides=TINY["cape_agn"], seed=3)
    task = json.loads(json.dumps(tasks[1]))  # what the page caches on: a JSON round trip
    assert rp.run_task(task) == rp.run_task(tasks[1])
    other = rp.plan("cape_agn", overrides=TINY["cape_agn"], seed=4)[1]
    assert rp.run_task(other) != rp.run_task(tasks[1])  # another seed: fresh data and noise


def test_bad_settings_are_refused_with_a_fix():
    for call, words in (
        (lambda: rp.reproduce("nope"), "choose one of"),
        (lambda: rp.plan("cape_pca", grid="huge"), "grid must be"),
        (lambda: rp.plan("cape_pca", reps=0), "reps must be"),
        (lambda: rp.plan("cape_pca", seed=-1), "seed must be"),
        (lambda: rp.plan("cape_pca", overrides={"bogus": 1}), "no setting"),
        (lambda: rp.reproduce_paper("nope"), "unknown paper"),
        (lambda: rp.write([], "x"), "nothing to write"),
    ):
        with pytest.raises(ValueError, match=words):
            call()


def test_command_writes_csv_standalone_pages_and_index(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        rp.main(["--only", "imtiaz_2016_sn", "--only", "liu_spiked", "--out", str(out), "--reps", "1", "--quiet"]) == 0
    )
    for key in ("imtiaz_2016_sn", "liu_spiked"):
        frame = pd.read_csv(out / f"{key}.csv")
        assert len(frame) > 0 and set(frame.reproduction) == {key}
        page = (out / f"{key}.html").read_text(encoding="utf-8")
        assert page.count("plotly.js v") == 1  # the library embedded once: the page works offline
        assert "What the paper reports" in page and "Where ours differs" in page
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="liu_spiked.html"' in index and "plotly.js v" not in index
    timings = pd.read_csv(out / "timings.csv")
    assert set(timings.reproduction) == {"imtiaz_2016_sn", "liu_spiked"} and (timings.seconds > 0).all()
    assert "imtiaz_2016:" in capsys.readouterr().out


def test_combined_page_embeds_plotly_once(tiny, tmp_path):
    reps = [tiny["liu_example_41"], tiny["cape_pca"]]
    paths = rp.write(reps, tmp_path, combined=True)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert index.count("plotly.js v") == 1 and index.count("Plotly.newPlot") == 2
    assert {p.name for p in paths} == {"liu_example_41.csv", "cape_pca.csv", "index.html", "manifest.json"}
    assert "../papers.md#item-17" in index
    md = rp.to_markdown(reps[1], image="reproduce/cape_pca.png")
    assert "![" in md and "(papers.md#item-17)" in md


@pytest.mark.skipif(
    shutil.which("chromium") is None and not __import__("os").path.exists("/usr/bin/chromium"),
    reason="needs a Chromium for Playwright",
)
def test_png_rendering(tiny, tmp_path):
    pytest.importorskip("playwright")
    (path,) = rp.render_png([tiny["liu_spiked"]], tmp_path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


@pytest.mark.skipif(
    shutil.which("chromium") is None and not __import__("os").path.exists("/usr/bin/chromium"),
    reason="needs a Chromium for Playwright",
)
def test_png_rendering_inside_a_running_event_loop(tiny, tmp_path):
    """A Jupyter kernel (or an open Playwright session) has a running asyncio loop: rendering still works."""
    pytest.importorskip("playwright")
    import asyncio

    async def render():
        return rp.render_png([tiny["liu_spiked"]], tmp_path)

    from concurrent.futures import ThreadPoolExecutor

    # A thread of its own, so that the test does not depend on whether this one already runs a loop.
    with ThreadPoolExecutor(max_workers=1) as pool:
        (path,) = pool.submit(asyncio.run, render()).result()
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reproduce_page_renders_its_figure_and_stops(app_test):
    at = app_test(rpaper="imtiaz_2016", rreps="1")
    at.switch_page("pages/reproduce.py").run()
    # settings that are not shipped wait for a click (tests/app/test_app_live_budget.py)
    assert not at.get("plotly_chart")
    at.button(key="live_reproduce").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 1
    assert any("retracted" in h.value for h in at.subheader)
    shown = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "What the paper reports" in shown and "not differentially private" in shown
    assert "Which algorithm produced each point" in [e.label for e in at.expander]
    claims = pd.concat([t.value for t in at.table])  # the claims, one by one
    assert "reversed" in set(claims["here"]) and claims["why, and the measurement"].str.len().min() > 20
    assert at.session_state["scenario"]["rpaper"] == "imtiaz_2016"
    at.button(key="stop_reproduce").click().run()
    assert not at.get("plotly_chart") and any("stopped" in i.value for i in at.info)
    at.button(key="run_reproduce").click().run()  # resumes from the cache
    assert len(at.get("plotly_chart")) == 1 and not at.error


SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "reproduce"


@pytest.mark.parametrize("key", rp.REPRODUCTIONS)
def test_shipped_files_are_what_the_current_code_computes(key):
    """The Reproduce page serves docs/reproduce/ when its settings match: those files must be this code's output.
    The manifest's settings must equal the current default grid, and the cheapest task's rows recomputed now
    must equal the shipped rows (same seeds; the tolerance covers floating-point summation order only)."""
    rep = rp.load(key, SHIPPED)
    assert rep is not None, f"docs/reproduce/ is stale for {key}: re-run the command in docs/reproduce.md"
    assert rep.algorithms and rep.claims
    fresh = pd.DataFrame(rp.run_task(rp.plan(key)[0]))  # the first task: one data set and its noise
    blank = fresh.algorithm == ""
    fresh.loc[blank, "algorithm"] = fresh.loc[blank, "mechanism"].map(rp.core.default_algorithm)
    cols = ["panel", "series", "x", "rep"]
    merged = fresh.merge(rep.frame, on=cols, suffixes=("", "_shipped"), how="left")
    assert merged.value_shipped.notna().all(), merged[merged.value_shipped.isna()][cols]
    np.testing.assert_allclose(merged.value, merged.value_shipped, rtol=1e-6, atol=1e-9)
    assert (merged.algorithm == merged.algorithm_shipped).all()


def test_load_refuses_files_made_with_other_settings(tmp_path):
    rep = rp.reproduce("cape_agn", overrides=TINY["cape_agn"])
    rp.write([rep], tmp_path)
    assert rp.load("cape_agn", tmp_path) is None  # made on an overridden grid, not the default one
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["cape_agn"]["config"] = json.loads(json.dumps(rp.config("cape_agn")))
    manifest["cape_agn"]["reps"] = rp.config("cape_agn")["reps"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    loaded = rp.load("cape_agn", tmp_path)  # settings now claim the default grid: served as is
    assert loaded is not None and loaded.frame.value.tolist() == rep.frame.value.tolist()
    assert rp.load("cape_agn", tmp_path, seed=1) is None and rp.load("cape_pca", tmp_path) is None


def test_reproduce_page_serves_the_shipped_run_without_computing_and_runs_live_on_request(app_test):
    # the paper of two reproductions that is quickest to run live (Dong et al.: about a CPU second, docs/reproduce.md)
    at = app_test(rpaper="dong_liang_yi")
    at.switch_page("pages/reproduce.py").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert len(at.get("plotly_chart")) == 2 and not at.get("progress")
    assert any("shipped with the app" in i.value for i in at.info)
    assert not any(b.key == "stop_reproduce" for b in at.button)  # nothing runs, nothing to stop
    at.button(key="live_reproduce").click().run(timeout=600)
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2 and not any("shipped with the app" in i.value for i in at.info)
    assert any(b.key == "stop_reproduce" for b in at.button)


def test_a_figure_drawn_for_a_page_leaves_the_reproductions_name_to_the_page():
    """title=False: the page shows the name as its heading; the figure's own title was the name again (a loop variable
    shadowed the flag), too long for the chart at 1280x720 (the browser sweeps found it cut at the chart's edge)."""
    from dppca_core import reproduce as rp

    rep = rp.load("wang_xu_low_dim", rp_shipped_folder())
    assert rp.figure(rep, title=False).layout.title.text.startswith("Mean and 95% band over")
    assert rp.figure(rep).layout.title.text.startswith(rep.title.replace("&", "&amp;"))


def rp_shipped_folder():
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "docs" / "reproduce"

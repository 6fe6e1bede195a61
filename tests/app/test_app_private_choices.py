"""Column scaling and k chosen privately inside the one budget, from the library's experiment path to the app's
pages and exports: the Data page's "Scale each column privately" (a scale share), Explore's published scales and
chosen k's, the Report's statement, budget bar and tables, the script and the Trade-offs CSV that follow the same
configuration, and the publishable release that states its guarantee (or none after scaling from the data)."""

import io
import json
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core.pipeline import experiments
from dppca_core.pipeline.choices import choose_k
from dppca_core.data.datasets import load_sample
from tests.support.app import assert_clean, plain
from tests.support.downloads import releases_offered, report_table, offered, run_script
from tests.support.releases import release_pca_per_repetition
from ui import scenario

#: public bounds on the wine sample's 13 columns (a chemist's ranges, fixed in advance; as test_app_presenter)
BOUNDS = [15, 6, 4, 30, 170, 4, 6, 1, 4, 14, 2, 4, 1700]
PROLINE = 12
WINE_SCALED = {
    "src": "sample:wine",
    "scale": "private",
    "bounds": ",".join(map(str, BOUNDS)),
    "R": repr(2 * np.sqrt(13)),
    "mechs": "analyze_gauss",
    "eps": "10.0",
}
K_SCALED = {
    "src": "sample:wine",
    "scale": "bounds",
    "bounds": ",".join(map(str, BOUNDS)),
    "R": repr(np.sqrt(13)),
    "kfrom": "private",
    "mechs": "analyze_gauss",
}
K_SAID = re.compile(r"k chosen privately by each release \(published\): (.+?)\. Each")


def _wine():
    return load_sample("wine").X


def _statement(at) -> list:
    """The Report's statement that every data-dependent choice is private (the summary repeats it in a list item)."""
    return [plain(m.value) for m in at.markdown if plain(m.value).startswith("Every choice that depends on the data")]


# -- the library path the app runs -----------------------------------------------------------------------------


def test_each_repetition_scales_privately_as_release_pca_does():
    """repeat(options with scale="private") is release_pca(scale="private") on the raw rows with the repetition's seed: the same
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
    options = dc.ReleaseOptions(
        k=2,
        epsilon=10.0,
        data_norm=2 * np.sqrt(13),
        budget=split,
        center="private",
        scale="private",
        column_bounds=BOUNDS,
    )
    reps = experiments.repeat("analyze_gauss", inp, options, reps=3, seed=5)
    assert reps.scales.shape == (3, 13)
    for rep, direct in enumerate(release_pca_per_repetition("analyze_gauss", X, options, reps=3, seed=5)):
        np.testing.assert_array_equal(reps.scales[rep], direct.outputs["column_scales"])
        np.testing.assert_allclose(reps.components[rep], direct.components, atol=1e-9)
    # at epsilon = 10 the private scales are within a factor 2 of the exact ones
    assert np.all((reps.scales > exact / 2) & (reps.scales < exact * 2))


def test_each_repetition_chooses_k_by_the_rule_and_is_scored_at_its_own_k():
    X = _wine() / np.array(BOUNDS, dtype=float)
    data = dc.prepare(X, np.sqrt(13))
    reference = experiments.Reference.of(data)
    split = dc.BudgetSplit.with_extras(eigenvalues=0.1)
    options = dc.ReleaseOptions(k="auto", epsilon=0.5, data_norm=np.sqrt(13), budget=split, variance_target=0.6)
    reps = experiments.repeat("analyze_gauss", data, options, reps=12, seed=3, reference=reference, s=4)
    assert reps.k.shape == (12,) and len(set(reps.k)) > 1  # the repetitions kept different k's
    assert isinstance(reps.components, list) and [V.shape[1] for V in reps.components] == list(reps.k)
    for rep in range(12):
        direct = dc.release_pca(
            "analyze_gauss",
            data,
            "auto",
            0.5,
            1e-6,
            "replace",
            np.sqrt(13),
            np.random.default_rng(experiments.rep_seed(3, rep, "analyze_gauss")),
            budget=split,
            variance_target=0.6,
        )
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
    options = dc.ReleaseOptions(k=2, data_norm=np.sqrt(13))
    reps = experiments.repeat("analyze_gauss", data, options, reps=3, seed=0, reference=reference)
    assert isinstance(reps.components, np.ndarray) and reps.components.shape == (3, 13, 2) and reps.k is None
    for rep in range(3):
        direct = dc.run(
            "analyze_gauss",
            data,
            2,
            1.0,
            1e-6,
            "replace",
            np.sqrt(13),
            np.random.default_rng(experiments.rep_seed(0, rep, "analyze_gauss")),
        )
        assert reps.distance[rep] == dc.metrics.subspace_distance(direct.components, reference.vectors[:, :2])


def test_links_carry_the_new_choices_and_only_when_they_differ():
    vals = {
        **scenario.DEFAULTS,
        "scale": "private",
        "bounds": "1.0,2.0",
        "bscale": 0.2,
        "kfrom": "private",
        "kvar": 0.8,
    }
    query = scenario.to_query(vals)
    assert query == {"scale": "private", "bounds": "1.0,2.0", "bscale": "0.2", "kfrom": "private", "kvar": "0.8"}
    back, notices = scenario.from_query(query)
    assert back == vals and not notices
    assert not {"bscale", "kfrom", "kvar"} & set(scenario.to_query({**scenario.DEFAULTS, "bscale": 0.1}))
    back, notices = scenario.from_query({"kvar": "1.5", "bscale": "0.9", "kfrom": "secret", "scale": "max"})
    assert (back["kvar"], back["bscale"], back["kfrom"], back["scale"]) == (0.9, 0.1, "public", "none")
    assert len(notices) == 4


def test_private_scaling_is_a_private_choice_and_its_bounds_are_named_when_read_from_the_data():
    base = {**scenario.DEFAULTS, "scale": "private", "bounds": "1.0,2.0"}
    assert scenario.nonprivate_choices(base) == []
    assert scenario.budget(base).scale == 0.1
    chosen = scenario.nonprivate_choices({**base, "sfrom": "hints"})  # the root-mean-square uses the bounds
    assert len(chosen) == 1 and "scaling bounds" in chosen[0]
    assert scenario.budget({**scenario.DEFAULTS, "kfrom": "private", "beig": 0.1}).eigenvalues == 0.1
    with pytest.raises(ValueError, match="eigenvalue share"):
        scenario.budget({**scenario.DEFAULTS, "kfrom": "private"})
    with pytest.raises(ValueError, match="a public bound per column: 3"):
        scenario.scale_rule(base, 3)


# -- the app: scaling privately ---------------------------------------------------------------------------------


def test_the_data_page_offers_private_scaling_with_its_share(app_test):
    """The bounds typed in the popover: "Scale each column privately" makes every release scale privately (a public
    R = 2 sqrt(d) unless R is private); the share slider and the caption say so, and proline no longer dominates."""
    at = app_test(src="sample:wine", bounds=",".join(map(str, BOUNDS)), R="2000.0", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    at.button(key="scale_privately").click().run()
    assert_clean(at)
    vals = at.session_state["scenario"]
    assert (vals["scale"], vals["sfrom"], vals["rfrom"]) == ("private", "public", "public")
    assert vals["R"] == pytest.approx(2 * np.sqrt(13))
    assert "scaling share of the budget" in [s.label for s in at.slider]
    assert any("Each release scales each column privately" in c.value for c in at.caption)
    assert not [w for w in at.warning if "of the variance" in w.value]  # the reference: exactly scaled columns
    assert scenario.nonprivate_choices(vals) == []


def test_bounds_filled_from_the_data_stay_named_when_scaled_privately(app_test):
    at = app_test(src="sample:wine", R="2000.0", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/data.py").run()
    at.button(key="scale_from_data").click().run()
    at.button(key="scale_off").click().run()
    at.button(key="scale_privately").click().run()  # the editor holds the bounds read from the data
    assert_clean(at)
    vals = at.session_state["scenario"]
    assert (vals["scale"], vals["sfrom"]) == ("private", "hints")
    assert any("scaling bounds" in c for c in scenario.nonprivate_choices(vals))


def test_explore_shows_the_scales_each_release_chose(app_test):
    at = app_test(**WINE_SCALED, reps="3")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    (table,) = [df.value for df in at.dataframe if "Analyze Gauss: first release" in df.value.columns]
    assert list(table["column"])[PROLINE] == "proline"
    exact = experiments.ScaleRule(BOUNDS).exact_scales(_wine())
    first = table["Analyze Gauss: first release"].astype(float).to_numpy()
    assert np.all((first > exact / 2) & (first < exact * 2))  # epsilon = 10: near the exact root-mean-squares


def test_report_with_private_scaling_states_every_choice_private_and_publishes_the_guarantee(app_test, downloads):
    """On the wine sample each release scales privately: the Report says every choice is private and lists the
    scale share (statement, budget bar, budget table), and the release to publish states its guarantee, says
    scale="private", spends the share, and its first component is no longer proline alone."""
    at = app_test(**WINE_SCALED, reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    statement = _statement(at)
    assert len(statement) == 1 and "each column scaled privately (10% of the budget)" in statement[0]
    (shares,) = [df.value for df in at.dataframe if "part" in df.value.columns]
    assert shares.set_index("part").loc["scale", "share"] == "10%"
    bars = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    (bar,) = [b for b in bars if b["layout"]["title"]["text"].startswith("How one release")]
    assert any(t["name"] == "scaling (column scales)" and t["x"] == [10.0] for t in bar["data"])
    assert [df.value for df in at.dataframe if "Analyze Gauss: first release" in df.value.columns]
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    assert "Column scales chosen privately" in doc
    released = releases_offered(at, downloads)["analyze_gauss"]
    assert released["guarantee"] != "none" and released["epsilon"] == 10.0
    assert released["parameters"]["scale"] == "private" and released["parameters"]["budget"]["scale"] == 0.1
    assert released["facts"]["budget"]["scale"]["share"] == 0.1
    assert len(released["outputs"]["column_scales"]) == 13
    assert abs(np.asarray(released["components"])[PROLINE, 0]) < 0.7
    # the same release without scaling: proline alone
    plain_release = dc.release_pca("analyze_gauss", _wine(), 2, 10.0, 1e-6, "replace", 2000.0, 0)
    assert abs(plain_release.components[PROLINE, 0]) > 0.95


@pytest.mark.parametrize(
    "query",
    [{"scale": "bounds", "sfrom": "hints", "R": repr(np.sqrt(13))}, {"scale": "private", "sfrom": "hints"}],
    ids=["hint scaling", "hint bounds"],
)
def test_scaling_with_bounds_read_from_the_data_makes_the_release_state_no_guarantee(app_test, downloads, query):
    at = app_test(**{**WINE_SCALED, **query}, reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert any(plain(m.value).startswith("Not every choice that depends on the data is private") for m in at.markdown)
    released = releases_offered(at, downloads)["analyze_gauss"]
    assert released["guarantee"] == "none" and released["epsilon"] is None


def test_the_script_reproduces_the_report_with_private_scaling_and_k(app_test, downloads, tmp_path):
    at = app_test(**WINE_SCALED, kfrom="private", beig="0.1", center="private", reps="3", seed="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    shown = report_table(at)
    assert experiments.K_COLUMN in shown.columns
    script = offered(at, downloads)["Python script"].decode()
    said = " ".join(script.split())  # the options as one line (the script wraps them)
    assert "scale='private', column_bounds=(15.0, 6.0" in said and "k='auto'" in said and "variance_target=0.9" in said
    path = tmp_path / "scenario.py"
    path.write_text(script)
    out = run_script(path, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == shown.to_string(index=False).strip()


# -- the app: k chosen privately --------------------------------------------------------------------------------


def test_explore_shows_the_k_each_release_chose_by_the_library_rule(app_test):
    """Explore lists the k's chosen; each is the rule applied to that release's private ratios (the same releases,
    rebuilt with the repetitions' seeds); the loadings compare the releases that chose the most frequent k."""
    at = app_test(**K_SCALED, beig="0.1", reps="6", seed="2", view="loadings")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    said = [K_SAID.search(plain(m.value)).group(1) for m in at.markdown if K_SAID.search(plain(m.value))]
    assert len(said) == 1
    inp = experiments.prepare_input(_wine(), np.sqrt(13), "none", tuple(map(float, BOUNDS)))
    kept = []
    for rep in range(6):
        release = dc.release_pca(
            "analyze_gauss",
            inp.data,
            "auto",
            1.0,
            1e-6,
            "replace",
            np.sqrt(13),
            np.random.default_rng(experiments.rep_seed(2, rep, "analyze_gauss")),
            budget=dc.BudgetSplit.with_extras(eigenvalues=0.1),
            variance_target=0.9,
        )
        assert release.parameters["k"] == choose_k(release.outputs["candidate_ratios"], 0.9)
        kept.append(release.parameters["k"])
    assert len(set(kept)) > 1 and said[0] == experiments.describe_k(kept)
    top = experiments.k_counts(kept)[0][0]
    assert any(f"releases that chose k = {top}" in plain(c.value) for c in at.caption)
    assert "components k' is not used" in " ".join(plain(c.value) for c in at.caption)
    assert at.number_input(key=scenario.WIDGET_PREFIX + "k").disabled  # the sidebar's k is greyed out


def test_a_zero_eigenvalue_share_says_so_and_offers_the_fix(app_test):
    at = app_test(**K_SCALED, reps="2")  # the eigenvalues' share: 0, its default
    at.switch_page("pages/explore.py").run()
    assert not at.exception
    (error,) = [plain(e.value) for e in at.error]
    assert "eigenvalue share" in error and "that share is 0" in error
    at.button(key="k_give_eig").click().run()
    assert_clean(at)
    assert at.session_state["scenario"]["beig"] == scenario.K_EIGENVALUE_SHARE
    assert [m for m in at.markdown if K_SAID.search(plain(m.value))]
    at.switch_page("pages/report.py")
    at.session_state["scenario"]["beig"] = 0.0
    at.run()
    assert not at.exception and any("eigenvalue share" in plain(e.value) for e in at.error)


def test_choosing_k_privately_gives_the_eigenvalues_a_share(app_test):
    at = app_test(src="sample:wine", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/explore.py").run()
    at.radio(key="w:kfrom").set_value("private").run()
    assert_clean(at)
    vals = at.session_state["scenario"]
    assert vals["kfrom"] == "private" and vals["beig"] == scenario.K_EIGENVALUE_SHARE
    assert "kfrom=private" in scenario.query_string(vals)


def test_report_states_the_k_rule_and_publishes_each_k_with_its_ratios(app_test, downloads):
    at = app_test(**K_SCALED, beig="0.1", reps="3")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    statement = _statement(at)
    assert len(statement) == 1
    assert "k chosen privately from the eigenvalue share (explained-variance target 0.9)" in statement[0]
    bars = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any(t.startswith("How one release") and "k chosen privately from the eigenvalue share" in t for t in bars)
    assert [df.value for df in at.dataframe if "k chosen over repetitions" in df.value.columns]
    released = releases_offered(at, downloads)["analyze_gauss"]
    assert released["guarantee"] != "none"
    assert released["parameters"]["k"] == choose_k(released["outputs"]["candidate_ratios"], 0.9)
    assert released["parameters"]["k_rule"]["variance_target"] == 0.9
    assert np.asarray(released["components"]).shape == (13, released["parameters"]["k"])


def test_tradeoffs_records_the_k_chosen_and_refuses_to_sweep_k(app_test, downloads):
    at = app_test(**K_SCALED, beig="0.1", sreps="2", sweep="eps")
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    csv = offered(at, downloads)["Download results (CSV)"].decode()
    table = pd.read_csv(io.StringIO(csv), comment="#")
    assert "k chosen" in table.columns and table["k chosen"].str.contains("of 2 release").all()
    at = app_test(**K_SCALED, beig="0.1", sreps="2", sweep="k")
    at.switch_page("pages/tradeoffs.py").run()
    assert not at.exception and any("cannot be swept" in plain(e.value) for e in at.error)


def test_pages_without_complete_releases_say_they_analyse_the_columns_unscaled(app_test):
    """The Distributed page runs no complete release, so it has no private scaling step: it says so and analyses
    the columns in their units, never divided by their exact (non-private) scales."""
    from ui import data

    at = app_test(**WINE_SCALED, reps="2")
    at.switch_page("pages/distributed.py").run()
    assert_clean(at)
    assert data.NO_PRIVATE_SCALING in [i.value for i in at.info]
    prepared = data.prepare(data.load_dataset(at.session_state["scenario"]), at.session_state["scenario"])
    assert prepared.data.n == 178 and not hasattr(prepared, "scale")  # the plain input, not the exactly scaled one

"""R chosen privately inside each release (issue 22), from the library's experiment path to the app's pages and
exports: the Data page's third "R comes from", Explore's and the Report's private R, the budget breakdown and the
statement that every data-dependent choice is private, and the publishable release that states its guarantee."""

import json
import re

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.pipeline import experiments
from tests.support.app import assert_clean
from tests.support.downloads import PRIVATE_R, releases_offered, upload_wine, offered
from tests.support.releases import release_pca_per_repetition
from ui import report_words, scenario, script_export
from ui.text import md_escape


def _rows(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 6)) * np.array([6.0, 3.0, 2.0, 1.0, 1.0, 1.0])


# -- the library path the app runs -----------------------------------------------------------------------------


def test_each_repetition_chooses_r_as_release_pca_does():
    """repeat(options with data_norm="private") is release_pca(data_norm="private") on the rows clipped to the rule's upper bound, with
    the repetition's seed: the same R and the same components, repetition by repetition."""
    X = _rows()
    rule = experiments.RadiusRule((0.5, 500.0), 0.9)
    inp = experiments.prepare_input(X, "private", "private", radius=rule)
    split = dc.BudgetSplit.with_extras(mean=0.1, radius=0.1)
    options = dc.ReleaseOptions(
        k=2, data_norm="private", radius_bounds=(0.5, 500.0), radius_quantile=0.9, budget=split, center="private"
    )
    reps = experiments.repeat("analyze_gauss", inp, options, reps=3, seed=7)
    for rep, direct in enumerate(release_pca_per_repetition("analyze_gauss", X, options, reps=3, seed=7)):
        assert reps.radius[rep] == direct.outputs["radius"]["value"]
        np.testing.assert_allclose(reps.components[rep], direct.components, atol=1e-9)
    # R near the 0.9 quantile of the norms of the centred rows (binary search over 128 log cells: within 1.3x)
    target = np.quantile(np.linalg.norm(X - X.mean(axis=0), axis=1), 0.9)
    assert np.all((reps.radius > target / 1.3) & (reps.radius < target * 1.3))


def test_the_results_table_shows_the_published_radius_and_the_reference_is_the_unclipped_pca():
    X = _rows(seed=1)
    inp = experiments.prepare_input(X, "private", radius=experiments.RadiusRule((0.5, 500.0)))
    assert inp.release_radius == "private" and inp.data.data_norm == 500.0 and inp.data.n_clipped == 0
    exact = np.linalg.eigh(X.T @ X)[1][:, ::-1][:, :2]
    assert dc.metrics.subspace_distance(inp.reference.vectors[:, :2], exact) < 1e-9
    options = dc.ReleaseOptions(k=2, data_norm="private", radius_bounds=(0.5, 500.0))
    table, results = experiments.compare(
        inp, dict.fromkeys(["analyze_gauss", "private_power"], options), reps=4, seed=0
    )
    assert experiments.RADIUS_COLUMN in table.columns
    for res in results.values():
        assert res.radius.shape == (4,) and np.all((res.radius >= 0.5) & (res.radius <= 500.0))


@pytest.mark.parametrize(
    "bounds, quantile, words",
    [
        ((5.0, 1.0), 0.9, "the lower first"),
        ((0.0, 1.0), 0.9, "positive"),
        ((1.0, 10.0), 1.0, "strictly between 0 and 1"),
    ],
)
def test_a_radius_rule_out_of_range_is_refused_with_the_fix(bounds, quantile, words):
    with pytest.raises(ValueError, match=words):
        experiments.RadiusRule(bounds, quantile)


def test_streamed_statistics_cannot_choose_r_privately(tmp_path):
    path = tmp_path / "rows.csv"
    np.savetxt(path, _rows(200), delimiter=",", header="a,b,c,d,e,f", comments="")
    stats = dc.sufficient_stats(str(path), data_norm=100.0)
    with pytest.raises(ValueError, match="public R"):
        experiments.prepare_input(stats, "private")


# -- the app ----------------------------------------------------------------------------------------------------


def test_the_data_page_offers_r_chosen_privately_with_its_bounds_and_share(app_test):
    at = app_test(src="sample:wine", **PRIVATE_R, reps="2")
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    labels = [w.label for w in at.number_input] + [s.label for s in at.slider]
    assert {"smallest R", "largest R", "target quantile of the row norms", "radius share of the budget"} <= set(labels)
    assert "public clipping radius R" not in labels  # the public number is not asked for
    assert not [b for b in at.button if b.key == "use_hint_R"]  # no R hint read from the data
    assert any("Each release chooses R privately" in c.value for c in at.caption)


def test_explore_shows_the_r_each_release_chose(app_test):
    at = app_test(src="sample:wine", **PRIVATE_R, reps="3", mechs="analyze_gauss")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    said = [m.value for m in at.markdown if "Clipping radius chosen privately" in m.value]
    assert len(said) == 1
    first = float(re.search(r"R = ([0-9.,]+) in the first", said[0].replace("\\", "")).group(1).replace(",", ""))
    assert 1.0 <= first <= 10000.0


def test_report_states_every_choice_private_draws_the_split_and_publishes_the_guarantee(app_test, downloads):
    """The Report with R chosen privately on an upload: the statement, the budget bar, the radius table, the HTML
    record holding both, and a publishable release that states its full guarantee and publishes R."""
    at = app_test(src="upload", **PRIVATE_R, reps="2", mechs="analyze_gauss", center="private")
    upload_wine(at)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    statement = report_words.privacy_statement({**scenario.DEFAULTS, "rfrom": "private", "center": "private"})
    assert statement.startswith("Every choice that depends on the data is private")
    assert any(md_escape(statement) in m.value for m in at.markdown)
    charts = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert "How one release's (ε, δ) is split" in charts
    radii = [df.value for df in at.dataframe if "R of the first release" in df.value.columns]
    assert len(radii) == 1
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    assert "Clipping radius chosen privately" in doc and "How one release" in doc and statement in doc
    released = releases_offered(at, downloads)["analyze_gauss"]
    assert released["guarantee"] != "none" and released["epsilon"] == 1.0
    radius = released["outputs"]["radius"]["value"]
    assert 1.0 <= radius <= 10000.0 and released["parameters"]["data_norm"] == radius
    assert "seed" not in json.dumps(released).lower()


def test_r_from_the_hints_still_makes_the_release_state_no_guarantee(app_test, downloads):
    at = app_test(src="upload", rfrom="hints", R="2000.0", reps="2", mechs="analyze_gauss")
    upload_wine(at)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert any(m.value.startswith("Not every choice that depends on the data is private") for m in at.markdown)
    assert releases_offered(at, downloads)["analyze_gauss"]["guarantee"] == "none"


def test_the_script_reproduces_the_report_with_a_private_r():
    vals = {**scenario.DEFAULTS, "rfrom": "private", "rlo": 1.0, "rhi": 100.0, "src": "sample:wine"}
    script = script_export.build_script(vals, has_labels=True)
    said = " ".join(script.split())  # the options as one line (the script wraps them)
    assert "data_norm='private'" in said and "radius_bounds=(1.0, 100.0), radius_quantile=0.9" in said
    compile(script, "dppca_scenario.py", "exec")


def test_the_oracle_radius_is_the_exact_quantile_and_needs_rows():
    X = _rows(500, seed=2)
    data = dc.prepare(X, 1000.0)
    assert experiments.oracle_radius(data, 0.8) == pytest.approx(np.quantile(np.linalg.norm(X, axis=1), 0.8), rel=1e-12)
    with pytest.raises(ValueError, match="strictly between"):
        experiments.oracle_radius(data, 1.0)


def test_tradeoffs_sweeps_the_private_r_against_an_oracle_r(app_test, downloads):
    """Trade-offs with R chosen privately and the oracle on: each mechanism has a solid curve (private R) and a
    dashed one (the exact quantile: not private), on the same grid, and the CSV says which R each row used."""
    at = app_test(src="sample:wine", **PRIVATE_R, oracle="true", mechs="analyze_gauss", sreps="3", sweep="eps")
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    import plotly.io as pio

    (chart,) = [
        f for f in (pio.from_json(c.proto.spec) for c in at.get("plotly_chart")) if "against" in f.layout.title.text
    ]
    curves = [t for t in chart.data if t.mode == "lines+markers"]
    assert [t.name for t in curves] == ["Analyze Gauss", "Analyze Gauss · oracle R (not private)"]
    solid, dashed = curves
    assert list(solid.x) == list(dashed.x) and dashed.line.dash == "longdash"
    csv = offered(at, downloads)["Download results (CSV)"].decode()
    assert "chosen privately" in csv and "oracle R (not private)" in csv
    # at the largest epsilon the radius step's noise is small: both choices of R land close together
    import io

    import pandas as pd

    table = pd.read_csv(io.StringIO(csv), comment="#")
    top = table[table["eps"] == table["eps"].max()].set_index("R")["mean"]
    assert abs(top["chosen privately"] - top["oracle R (not private)"]) < 0.1

"""Exports of two kinds, never mixed: exploration records (the Report's HTML and script, the Trade-offs and
Reproduce CSVs) and publishable releases (the releases JSON). Tested through the pages' own download buttons."""

import html as html_lib
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tests.support.app import assert_clean, plain, plotly_array
from ui import exploration_record, notebooks, release_file, report, scenario
from tests.helpers import draw_releases
from tests.support.releases import CASES
from tests.support.downloads import (
    first_visible_text,
    offered,
    releases_offered,
    report_table,
    open_wine_upload,
    run_script,
)

ROOT = Path(__file__).resolve().parents[2]
WINE = ROOT / "sample_data" / "wine.csv"


# -- exploration records -------------------------------------------------------------------------------------


def test_report_html_escapes_user_text_and_links_the_scenario():
    link = "http://localhost:8501/report?eps=1.0&mechs=analyze_gauss"
    doc = exploration_record.build_html(
        scenario.DEFAULTS, link, {}, [], {}, 'Uploaded file <a href="http://evil">x</a>.csv'
    )
    assert doc.startswith("<!DOCTYPE html>")
    assert '<a href="http://evil">' not in doc and "&lt;a href=" in doc
    assert f'href="{link.replace("&", "&amp;")}"' in doc  # the scenario is a link, wrapped by CSS
    assert "overflow-wrap:anywhere" in doc


def test_build_html_embeds_plotly_once():
    figs = [go.Figure(go.Bar(y=[1, 2])), go.Figure(go.Bar(y=[3, 1]))]
    doc = exploration_record.build_html(scenario.DEFAULTS, "?x=1", {}, figs, {}, "synthetic")
    assert doc.count("plotly.js v") == 1 and '<script src="http' not in doc  # embedded once, no CDN script
    assert doc.count("Plotly.newPlot") == 2


class _Seeded:
    guarantee, guarantee_text = "approximate", "text"
    published = {
        "mechanism": "analyze_gauss",
        "guarantee": "approximate",
        "components": [[0.123456789]],
        "eigenvalues": [9.87654321],
        "outputs": {},
        "parameters": {"k": 1},
    }


@pytest.mark.parametrize("src", ["upload", "server:survey.csv", "sample:wine"])
def test_record_of_data_the_app_did_not_make_leaves_out_the_seeded_numbers(src):
    """A seeded run's numbers beside the seed let anyone regenerate the noise: only synthesised data show them."""
    private = exploration_record.build_html(
        {**scenario.DEFAULTS, "src": src}, "?seed=3", {"analyze_gauss": _Seeded()}, [], {}, "up"
    )
    public = exploration_record.build_html(
        scenario.DEFAULTS, "?seed=3", {"analyze_gauss": _Seeded()}, [], {}, "synthetic"
    )
    assert "0.123456789" not in private and "9.87654321" not in private and "approximate" in private
    assert "0.123456789" in public


def test_report_of_private_data_is_an_exploration_record_not_a_release(app_test, downloads):
    """Issue 22: the Report of an uploaded table embeds the exact PCA (loadings trace, scree) and was titled and
    worded as a report of 'Published releases'. Its title and first line now say it is an exploration record that
    describes the raw data and stays with the data owner."""
    at = open_wine_upload(app_test, "report")
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    title = re.search(r"<title>(.*?)</title>", doc).group(1)
    assert "exploration record" in title.lower() and "not a release" in title.lower()
    first = first_visible_text(doc)
    assert first.startswith("Exploration record, not a release") and "data owner" in first, first
    assert "non-private" in doc.lower()  # the exact PCA is in it, and labelled
    assert "Published releases" not in doc and "publishable" not in doc.lower()


def test_server_file_report_has_no_seeded_release_beside_the_seed(app_test, downloads, monkeypatch, tmp_path):
    """Issue 22: a server file was treated as public data, so the record held seeded releases beside the seed."""
    from ui import server_files

    rng = np.random.default_rng(0)
    pd.DataFrame(rng.normal(size=(500, 4)) * [3, 2, 1, 0.5], columns=list("abcd")).to_csv(
        tmp_path / "t.csv", index=False
    )
    monkeypatch.setenv(server_files.DATA_DIR_ENV, str(tmp_path))
    at = app_test(src="server:?", R="8.0", seed="3", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/data.py").run()
    at.text_input(key="server_path").set_value("t.csv")
    at.button(key="server_read").click().run()
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    assert "seed=3" in doc  # the link records the seed ...
    runs = json.loads(html_lib.unescape(re.search(r"<pre>(.*?)</pre>", doc, re.S).group(1)))
    assert all("components" not in pub and "eigenvalues" not in pub for pub in runs.values())  # ... so no numbers
    assert first_visible_text(doc).startswith("Exploration record, not a release")


def test_report_of_an_upload_shows_its_n_and_d_and_no_synthetic_setting(app_test, downloads):
    at = open_wine_upload(app_test, "report")
    shown = " ".join(plain(m.value) for m in at.markdown)
    assert "178 rows × 13 features" in shown and "people" not in shown  # a wine is no person (issue 57)
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    doc = html_lib.unescape(re.sub(r"<script.*?</script>", "", doc, flags=re.S))  # the text, not plotly.js
    assert "178 rows × 13 features" in doc
    for unused in ("dseed", "spike", "planted", "rank", "2,000 rows", "2000 rows", "bscores", "sreps", "logy", "amech"):
        assert unused not in shown, unused
        assert unused not in doc, unused


def test_script_prints_the_report_table_from_any_folder(app_test, downloads, tmp_path):
    query = {"mechs": "analyze_gauss,private_power", "eps": "2.0", "reps": "3", "seed": "4", "k": "2", "s": "3"}
    at = app_test(**query)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    shown = report_table(at).to_string(index=False)
    script = offered(at, downloads)["Python script"].decode()
    assert script.splitlines()[0].startswith('"""Exploration record of data the app synthesised')  # nothing private
    path = tmp_path / "scenario.py"
    path.write_text(script)
    out = run_script(path, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == shown.strip()


def test_script_reproduces_an_upload_with_private_centring_and_a_budget_split(app_test, downloads, tmp_path):
    """Issue 31: with a private mean and a budget split the page showed one table and its script printed another
    (the script ignored the split and the centring). Both now run the same library path."""
    columns = ("alcohol", "malic_acid", "ash", "magnesium", "proline", "color_intensity")
    split = {"center": "private", "bmean": "0.2", "beig": "0.1"}
    at = open_wine_upload(
        app_test, "report", columns, **split, mechs="analyze_gauss,private_power", reps="3", seed="2", k="2"
    )
    shown = report_table(at).to_string(index=False)
    script = offered(at, downloads)["Python script"].decode()
    path = tmp_path / "scenario.py"
    path.write_text(script)
    out = run_script(path, tmp_path, WINE)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == shown.strip()
    assert script.splitlines()[0].startswith('"""Exploration record, not a release')


# -- publishable releases ------------------------------------------------------------------------------------


def test_releases_to_publish_use_fresh_randomness_not_the_seed(app_test, downloads):
    at = app_test(mechs="analyze_gauss,ppca_exponential", reps="2", k="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    table = report_table(at)
    assert list(table["mechanism"]) == ["Analyze Gauss", "PPCA"]
    assert "Download the publishable releases (JSON)" not in offered(at, downloads)  # only after drawing
    first = releases_offered(at, downloads)
    second = releases_offered(at, downloads)
    comps = [r["analyze_gauss"]["components"] for r in (first, second)]
    assert comps[0] != comps[1]  # unpredictable noise: the scenario's seed (which the link records) is never used
    for release in first.values():
        assert release["export"] == "publishable release" and release["fresh_randomness"] is True
        assert release["guarantee"] in ("approximate", "pure") and "nonprivate_choices" not in release
    assert "seed" not in json.dumps(first)


def test_release_after_empirical_centring_or_a_radius_from_the_hints_states_no_guarantee(app_test, downloads):
    """Issue 22: with empirical centring (labelled not private on the Data page) the export still stated the full
    (epsilon, delta) guarantee; the centred Gram's sensitivity is 2, not the sqrt(2) calibrated."""
    at = app_test(mechs="analyze_gauss", center="empirical", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    release = releases_offered(at, downloads)["analyze_gauss"]
    assert release["guarantee"] == "none" and release["epsilon"] is None
    assert any("empirical" in c for c in release["nonprivate_choices"])
    assert "No privacy guarantee" in release["guarantee_text"]
    assert any("no guarantee" in plain(w.value) for w in at.warning)  # and the page said so before drawing

    at = app_test(mechs="analyze_gauss", rfrom="hints", reps="2")
    at.switch_page("pages/report.py").run()
    release = releases_offered(at, downloads)["analyze_gauss"]
    assert release["guarantee"] == "none" and any("radius R" in c for c in release["nonprivate_choices"])


def test_release_follows_the_pages_budget_split_and_private_centring(app_test, downloads):
    """Issue 22: "Draw releases to publish" ran the bare mechanism (dc.run), ignoring the budget split and the
    private centring the page showed: what was published was not what was analysed."""
    at = app_test(mechs="analyze_gauss,private_power", center="private", bmean="0.2", beig="0.1", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    for mech, release in releases_offered(at, downloads).items():
        budget = release["facts"]["budget"]
        assert budget["mean"]["share"] == pytest.approx(0.2) and budget["eigenvalues"]["share"] == pytest.approx(0.1)
        assert budget["subspace"]["share"] == pytest.approx(0.7), mech
        assert release["parameters"]["center"] == "private" and len(release["outputs"]["mean"]) == 20
        assert release["outputs"]["explained_variance_ratio"] and release["epsilon"] == 1.0


SPLITS = {
    "whole budget to the subspace": {},
    "private mean, spectrum and scores": {"center": "private", "bmean": 0.1, "beig": 0.1, "bscores": 0.1},
    # R chosen privately (issue 22): its upper bound is the radius the rows were prepared with
    "private radius, mean and spectrum": {
        "rfrom": "private",
        "rlo": 0.01,
        "rhi": 1.0,
        "bradius": 0.1,
        "center": "private",
        "bmean": 0.1,
        "beig": 0.1,
    },
}


@pytest.mark.parametrize("split", list(SPLITS))
@pytest.mark.parametrize("name,neighbors", CASES)
def test_no_publishable_export_holds_a_noise_free_data_dependent_field_or_a_seed(name, neighbors, split, monkeypatch):
    """The release boundary, run over the app's publishable export (every mechanism, relation and split): no field
    takes one value on every draw from D and another single value on every draw from the neighbour D' (it would
    name the dataset: the audit's scan for noise-free fields). The operating system's entropy is replaced by fixed
    keys so that the test is reproducible; the releases are still drawn through the fresh (ChaCha20) path that
    publish() accepts."""
    import types

    import dppca_core as dc
    from dppca_core.privacy import randomness
    from dppca_core.audit.statistics import leaves as _leaves
    from tests.support.releases import SEEDS, boundary_neighbours, k_for, mechanism_params

    key = {"value": 0}
    monkeypatch.setattr(
        randomness,
        "secrets",
        types.SimpleNamespace(token_bytes=lambda size: (key["value"] % 256**size).to_bytes(size, "little")),
    )

    mech_params = {f"{name}.{key}": value for key, value in mechanism_params(name).items()}
    vals = {
        **scenario.DEFAULTS,
        "mechs": name,
        "k": k_for(name),
        "nb": neighbors,
        "delta": 1e-5,
        **SPLITS[split],
        **mech_params,
    }
    D, D_prime = boundary_neighbours(neighbors)

    if dc.get_mechanism(name).guarantee == "retracted":  # never drawn for the file, and publish() refuses it
        assert release_file.publishable_releases(dc.prepare(D, 1.0), [name], vals) == {}
        with pytest.raises(ValueError, match="retracted"):
            dc.publish(dc.run(name, D, k_for(name), 1.0, 1e-5, neighbors, seed=None, **mechanism_params(name)))
        return

    def export(X, seed):
        key["value"] = 2**200 + seed  # a fixed 256-bit key per draw
        text = release_file.releases_json(release_file.publishable_releases(dc.prepare(X, 1.0), [name], vals))
        assert "seed" not in text.split("\n", 1)[1]  # the first line may say "no seed"; nothing else names one
        whole = json.loads(text)
        assert list(whole["releases"]) == [name]
        return _leaves({k: v for k, v in whole.items() if k != "created"})  # the whole file, in words included

    draws = range(2 * len(SEEDS))
    on_d, on_dp = [export(D, s) for s in draws], [export(D_prime, s) for s in draws]
    for path, value in on_d[0].items():
        if all(leaves.get(path) == value for leaves in on_d[1:]):  # no noise on D ...
            other = {json.dumps(leaves.get(path)) for leaves in on_dp}
            assert (
                other == {json.dumps(value)} or len(other) > 1
            ), f"{name}, {split}: exported field {path} is noise-free and data-dependent"


def test_releases_json_refuses_anything_but_published_fresh_releases():
    with pytest.raises(ValueError, match="publish"):
        release_file.releases_json({"analyze_gauss": _Seeded.published})


# -- every download names its kind on its first line ---------------------------------------------------------


def test_every_download_names_its_kind_in_its_first_line(app_test, downloads):
    seen = {}
    at = app_test(mechs="analyze_gauss", reps="2", sreps="2", rreps="1", src="sample:wine", R="2000.0")
    for page in ("pages/tradeoffs.py", "pages/report.py", "pages/reproduce.py"):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        if page == "pages/report.py":
            draw_releases(at)
        if page == "pages/reproduce.py":  # settings that are not shipped are computed on a click
            at.button(key="live_reproduce").click().run()
        seen.update({(page, label): data for label, data in offered(at, downloads).items()})
    kinds = {}
    for (page, label), data in seen.items():
        text = data.decode()
        first = text.splitlines()[0]
        if text.startswith("<!DOCTYPE html>"):
            title = re.search(r"<title>(.*?)</title>", text).group(1).lower()
            if "publishable" in title:  # the brief and the slides made from the publishable file
                kind = "release" if first_visible_text(text).startswith("Publishable") else None
            else:
                kind = "record" if "exploration record" in title else None
                assert first_visible_text(text).startswith("Exploration record"), label
        elif first.startswith('"""'):
            kind = "record" if first.startswith('"""Exploration record') else None
        elif first.startswith("# DP-PCA Explorer scenario file"):  # the sidebar's: settings, no data (every page)
            kind = "scenario" if label == "Scenario file" else None
        elif label.endswith("notebook"):  # a notebook says its kind on its first cell
            cell = json.loads(text)["cells"][0]["source"]
            kind = (
                "record"
                if cell.startswith("Exploration record")
                else "release notebook"
                if cell.startswith(notebooks.RELEASE_NOTEBOOK)
                else None
            )
        elif first.startswith("#"):
            kind = "record" if first.startswith("# Exploration record") else None
            pd.read_csv(pd.io.common.StringIO(text), comment="#")  # still a CSV
        else:
            kind = "release" if first.startswith('{"export": "Publishable release') else None
            json.loads(text)
        assert kind is not None, (page, label, first[:120])
        kinds[(page, label)] = kind
    # the wine sample is not data the app made: its records say they describe raw data; reproduce's data are
    assert sum(k == "release" for k in kinds.values()) == 3  # the JSON, the brief and the slides made from it
    assert kinds[("pages/report.py", "Release notebook")] == "release notebook"
    assert kinds[("pages/report.py", "Exploration notebook")] == "record"
    assert {p for (p, label), k in kinds.items() if k == "scenario"} == {
        "pages/tradeoffs.py",
        "pages/report.py",
        "pages/reproduce.py",
    }
    assert {p for p, _ in kinds} == {"pages/tradeoffs.py", "pages/report.py", "pages/reproduce.py"}
    assert any(
        d.decode().startswith("# " + report.PUBLIC_RECORD) for (p, _), d in seen.items() if p == "pages/reproduce.py"
    )
    assert all(
        d.decode().splitlines()[0] != "# " + report.PUBLIC_RECORD
        for (p, _), d in seen.items()
        if p == "pages/tradeoffs.py"
    )


def test_the_docs_quote_the_first_lines_the_exports_carry():
    docs = " ".join((ROOT / "docs" / "privacy.md").read_text(encoding="utf-8").split())
    for line in (report.PRIVATE_RECORD, report.PUBLIC_RECORD):
        assert line in docs.replace("  ", " "), line


# -- issue 55 item 5: the public facts of an uploaded table, and fills that do not mislead ---------------------------


def test_the_facts_of_a_table_are_its_own_not_the_synthetic_defaults():
    """The scenario file of an upload said n = 2000, d = 20 (the synthetic default). The Data page records the
    table's own d (its declared columns) and n (only under replace-one, where it is public)."""
    from ui import data
    from ui.table_hints import table_facts

    vals, _ = scenario.from_fields({"src": "sample:wine"})
    ds = data.load_dataset(vals)
    assert table_facts(vals, ds) == {"d": 13, "n": 178}
    assert table_facts({**vals, "nb": "add_remove"}, ds) == {"d": 13}  # n is private
    synthetic, _ = scenario.from_fields({"n": 300, "d": 6})
    assert table_facts(synthetic, data.load_dataset(synthetic)) == {}
    # recorded, they travel in the scenario file and its link
    from dppca_core.scenario import Scenario

    text = Scenario({**vals, **table_facts(vals, ds)}).to_toml()
    assert "n = 178" in text and "d = 13" in text and "n = 2000" not in text


def test_a_fill_outside_its_columns_values_is_said_to_the_data_owner():
    """A fill of 0 for a body mass (thousands of grams) makes each filled row an outlier the components follow:
    the Data page says so, naming the column and its range; typical public values raise nothing."""
    from dppca_core.data.tables import parse_table
    from tests.messy import MEASUREMENTS, TYPICAL, messy_csv
    from ui.data import TableChoice
    from ui.table_hints import fill_warning

    parsed = parse_table(io.BytesIO(messy_csv()))
    zeros = TableChoice(tuple(MEASUREMENTS), "species", "replace", tuple((c, 0.0) for c in MEASUREMENTS), True)
    words = fill_warning(parsed, zeros)
    assert words and "body_mass_g" in words and "become 0" in words and "for you only" in words
    typical = TableChoice(tuple(MEASUREMENTS), "species", "replace", tuple(TYPICAL.items()), True)
    assert fill_warning(parsed, typical) is None


def test_the_headline_carries_the_clipping_warning_when_most_rows_are_clipped(app_test):
    """'captured energy 99.9%' sat beside a radius that clipped every row. With most rows clipped at a public R, the
    Explore page says so above its cards and the Report's summary says so; at an R that clips none, neither does."""
    for R, warned in (("0.02", True), ("1.0", False)):
        at = app_test(n="400", d="6", R=R, mechs="analyze_gauss", reps="2")
        at.switch_page("pages/explore.py").run()
        assert_clean(at)
        said = [plain(w.value) for w in at.warning if "clipped" in w.value]
        assert bool(said) == warned, (R, said)
        if warned:
            assert "of 400 rows" in said[0] and "captured energy" in said[0]
        at.switch_page("pages/report.py").run()
        assert_clean(at)
        summary = " ".join(plain(m.value) for m in at.markdown if "We compared" in m.value)
        assert ("are longer than R" in summary) == warned, summary


def test_support_f1_and_accuracy_are_shown_beside_their_chance_level_with_features_named(app_test):
    """Support F1 0.30 was shown without the 0.33 a random choice scores, over features numbered 0-5; accuracy
    without the share of the most common class."""
    from dppca_core import metrics

    assert metrics.random_support_f1(6, 2, 2) == pytest.approx(1 / 3)
    at = app_test(n="400", d="6", sparse="2", rank="1", k="1", mechs="analyze_gauss", reps="2", view="support")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    chance = metrics.random_support_f1(6, 2, 2)
    assert [m for m in at.metric if m.label == f"support F1 (random: {chance:.2f})"]
    (heatmap,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Selected features" in c.proto.spec]
    assert list(heatmap["data"][0]["x"]) == [f"x{j}" for j in range(6)]  # the columns' names, not 0-5
    assert any("Chance level" in plain(c.value) and f"F1 = {chance:.2f}" in plain(c.value) for c in at.caption)
    at = app_test(src="sample:wine", R="2000.0", mechs="analyze_gauss", reps="2", view="downstream")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    (table,) = [df.value for df in at.dataframe if "accuracy" in df.value.columns]
    chance_row = table[table["components"].str.startswith("chance")]
    assert chance_row["accuracy"].iloc[0] == pytest.approx(71 / 178, abs=1e-3)  # 71 of the 178 wines: class_1


def test_the_convergence_captions_are_read_off_their_charts(app_test):
    """The DPS-PCA caption promised 'geometric decrease' over lines that zig-zag. Each caption now states each line's
    start, end and lowest point as the chart draws them, and how many steps rose; 'falls at every step' only when
    the line does."""
    from ui.views import convergence_words

    words = convergence_words({"ε = 1": [1.2, 0.6, 0.7, 0.4, 0.5], "ε = 5": [1.2, 0.5, 0.2, 0.1, 0.05]}, 1.3)
    assert "ε = 1: from 1.20 to 0.50 after 4 iterations, lowest 0.40 at iteration 3; it rose in 2 of the 4" in words
    assert "ε = 5: falls at every step, from 1.20 to 0.05" in words and "geometric" not in words
    assert "each lower than the one before" in words  # 0.50 then 0.05, in the legend's order
    at = app_test(mechs="analyze_gauss", reps="2", dreps="2")
    at.switch_page("pages/distributed.py").run()
    assert_clean(at)
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Convergence" in c.proto.spec]
    (caption,) = [plain(c.value) for c in at.caption if "one line per ε" in c.value]
    assert "geometric" not in caption

    for line in chart["data"]:
        if line.get("name", "").startswith("ε"):
            y = list(plotly_array(line["y"]))
            assert f"{line['name']}: " in caption and f"{y[-1]:.2f}" in caption and f"{min(y):.2f}" in caption

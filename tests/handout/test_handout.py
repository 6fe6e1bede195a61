"""The handout (issue 36) and the publishable file's honesty (issue 34 items 3 and 5), through the library and the
pages: only releases with a guarantee in the publishable file, a self-describing file that validates against
docs/publishable-release.schema.json, a brief and a deck made from it alone, budget parts in units that add up
wherever they are shown, exploration records without seeded numbers of private data or a localhost link, exports
built only when asked, and a script that runs from any folder (issue 35 item 9, issue 43 item 2)."""

import html as html_lib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core import publishable
from dppca_core.pipeline.inputs import input_for
from dppca_core.scenario.release import release_options
from tests.support.app import assert_clean, plain
from tests.support.downloads import PRIVATE_R, built_on_press, offered, open_wine_upload, run_script
from dppca_core.handout import brief
from ui import exploration_record, release_file, report, scenario, script_export
from tests.helpers import draw_releases
from tests.support.handout import DIAGNOSTIC_WORDS, shown_text, stray_numbers, validate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(5)
    return rng.normal(size=(400, 5)) * np.r_[3, 2, 1, 0.3, 0.2] / 8


def _file(X, mechs="analyze_gauss,private_power", **settings):
    vals = {**scenario.DEFAULTS, "mechs": mechs, "center": "private", "bmean": 0.1, "beig": 0.1, **settings}
    # the input the releases read, prepared from the scenario's own options (its scaling, centring and R)
    inp = input_for(X, release_options(vals, scenario.mechanisms(vals)[0]))
    published = release_file.publishable_releases(inp.data, scenario.mechanisms(vals), vals)

    class Data:  # what the file reads of a dataset: its columns (no schema declared) and n
        columns = ["height_cm", "weight_kg", "age", "income", "year"]
        n = len(X)

    return release_file.publishable_file(published, vals, Data())


# -- numbers of a handout are numbers of the file ---------------------------------------------------------------


def check_handout(doc: str, file: dict, first: str) -> None:
    text = shown_text(doc)
    assert text.split()[0] == "Publishable" and first in " ".join(text.split()), text[:200]
    lowered = text.lower()
    assert not [w for w in DIAGNOSTIC_WORDS if w in lowered], [w for w in DIAGNOSTIC_WORDS if w in lowered]
    assert "http://" not in doc and "localhost" not in doc
    assert not stray_numbers(text, file), stray_numbers(text, file)


def test_a_number_shown_with_a_power_of_ten_is_read_as_its_value():
    """The handouts write a small number as people read it ("4.69 × 10⁻⁵", reading.py): the check reads it whole, not
    as 4.69 (a private mean that small made the brief's check fail about one run in 150)."""
    file = {"mean": 4.6912e-05, "delta": 1e-06}
    assert stray_numbers("mean 4.69 × 10⁻⁵, δ = 10⁻⁶", file) == []
    assert stray_numbers("mean 4.71 × 10⁻⁵", file) == ["4.71e-5"]  # two hundredths off in the shown digits


# -- issue 34 item 3: only releases with a guarantee ------------------------------------------------------------


@pytest.mark.parametrize("mech", ["non_private", "wishart_sn"])
def test_publish_refuses_a_mechanism_without_a_guarantee(X, mech):
    """Today publish() exported the exact eigenvectors of non_private and the retracted Wishart release, each marked
    fresh, into the file whose first line says "only what each release's privacy proof covers"."""
    release = dc.run(mech, X, 2, 1.0, 1e-6, seed=None)
    with pytest.raises(ValueError, match="cannot be published"):
        dc.publish(release)
    forged = {"export": "publishable release", **release.published()}
    with pytest.raises(ValueError, match="publishable file"):
        publishable.publishable_file({mech: forged})
    assert release_file.publishable_releases(dc.prepare(X, 1.0), [mech, "analyze_gauss"], scenario.DEFAULTS).keys() == {
        "analyze_gauss"
    }


def test_the_report_leaves_them_out_of_the_file_and_says_which_and_why(app_test, downloads):
    at = app_test(mechs="analyze_gauss,non_private,wishart_sn", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    said = " ".join(plain(i.value) for i in at.info)
    assert "Left out of the publishable file" in said and "Non-private PCA" in said and "retracted" in said
    draw_releases(at)
    assert_clean(at)
    files = offered(at, downloads)
    raw = files["Download the publishable releases (JSON)"].decode()
    assert raw.splitlines()[0].startswith('{"export": "Publishable release: only what each release')
    payload = json.loads(raw)
    assert list(payload["releases"]) == ["analyze_gauss"]
    assert {m["mechanism"] for m in payload["left_out"]} == {"non_private", "wishart_sn"}
    assert all(m["reason"] for m in payload["left_out"])
    validate(payload)
    brief_doc = files["Publishable brief (HTML, printable)"].decode()
    assert "Left out (not publishable): Non-private PCA" in shown_text(brief_doc)


def test_nothing_to_draw_when_no_mechanism_has_a_guarantee(app_test):
    at = app_test(mechs="non_private", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert not [b for b in at.button if b.key == "draw_releases"]
    assert any("nothing to publish" in c.value for c in at.caption)


# -- a self-describing file that validates ---------------------------------------------------------------------


def test_the_file_describes_itself_and_validates(X):
    file = _file(X, scale="bounds", bounds="8,8,8,8,8", R=2.0)
    validate(json.loads(release_file.releases_json(file)))
    assert file["format"] == publishable.FORMAT and file["format_version"] == publishable.FORMAT_VERSION
    assert file["schema"]["columns"] == ["height_cm", "weight_kg", "age", "income", "year"]
    settings = file["settings"]
    assert settings["scaling"] == {
        "rule": "bounds",
        "bounds": [8.0] * 5,
        "bounds_from": settings["scaling"]["bounds_from"],
        "words": "each column divided by its public bound",
    }
    assert settings["centring"]["rule"] == "private" and settings["radius"]["value"] == 2.0
    assert settings["k"] == {
        "rule": "public",
        "value": 2,
        "variance_target": None,
        "words": "a number chosen in " "advance",
    }
    assert settings["n"] == 400 and settings["neighbors"] == "replace"
    assert file["releases"]["analyze_gauss"]["title"] == "Analyze Gauss" and "components" in file["units"]
    assert file["together"]["releases"] == 2  # two releases of the same data compose


def test_under_add_remove_n_is_not_in_the_file(X):
    file = _file(X, nb="add_remove")
    assert file["settings"]["n"] is None
    validate(json.loads(release_file.releases_json(file)))


def test_the_schema_a_dataset_declares_is_the_files_schema(X):
    class Schema:
        def as_dict(self):
            return {"columns": ["a", "b", "c", "d", "e"], "replacement": {"b": 0.0}, "label": "group"}

    class Data:
        columns, n, schema = ["a", "b", "c", "d", "e"], 400, Schema()

    published = release_file.publishable_releases(dc.prepare(X, 1.0), ["analyze_gauss"], scenario.DEFAULTS)
    file = release_file.publishable_file(published, scenario.DEFAULTS, Data())
    assert file["schema"] == {
        "columns": ["a", "b", "c", "d", "e"],
        "replacement": {"b": 0.0},
        "label": "group",
        "declared": True,
    }
    validate(json.loads(release_file.releases_json(file)))


NAMES = [m for m in dc.mechanism_names("pca") if not publishable.refusal(m)]


@pytest.mark.parametrize("mech", NAMES)
def test_every_mechanisms_publishable_file_validates(X, mech):
    from tests.support.releases import k_for, mechanism_params

    vals = {
        **scenario.DEFAULTS,
        "mechs": mech,
        "k": k_for(mech),
        "delta": 1e-5,
        **{f"{mech}.{key}": value for key, value in mechanism_params(mech).items()},
    }
    published = release_file.publishable_releases(dc.prepare(X, 1.0), [mech], vals)
    payload = json.loads(release_file.releases_json(release_file.publishable_file(published, vals)))
    validate(payload)
    assert list(payload["releases"]) == [mech]


def test_every_json_the_report_offers_validates(app_test, downloads):
    """The page's own exports: with every choice private, and after a non-private choice (not publishable)."""
    for query in (
        {
            "mechs": "analyze_gauss,ppca_exponential",
            "center": "private",
            "bmean": "0.1",
            "beig": "0.1",
            "bscores": "0.1",
            "k": "2",
        },
        {"mechs": "analyze_gauss", "center": "empirical"},
    ):
        at = app_test(reps="2", **query)
        at.switch_page("pages/report.py").run()
        draw_releases(at)
        assert_clean(at)
        files = offered(at, downloads)
        payload = json.loads(files["Download the publishable releases (JSON)"])
        validate(payload)
        if query.get("center") == "empirical":
            assert payload["export"].startswith("Not publishable") and not publishable.has_guarantee(payload)
            assert "Publishable brief (HTML, printable)" not in files  # nothing to hand out
            assert any("not publishable" in plain(w.value) for w in at.warning)


# -- the brief and the deck, from the file alone -----------------------------------------------------------------


def test_the_brief_and_the_deck_show_only_numbers_of_the_file(X):
    file = json.loads(release_file.releases_json(_file(X, eps=2.0)))  # as a reader of the JSON has it
    check_handout(brief.build_brief(file), file, brief.BRIEF_LINE)
    deck = brief.build_deck(file)
    check_handout(deck, file, brief.DECK_LINE)
    assert "plotly" not in deck.lower()  # no figure library: bars in HTML, numbers as text


def test_the_handout_says_the_guarantee_in_odds_and_the_attackers_best_test(X):
    file = _file(X, eps=1.0)
    words = file["in_words"]["analyze_gauss"]
    curve = publishable.curve_from_dict(file["releases"]["analyze_gauss"]["privacy"])
    from dppca_core import risk

    assert words["odds"]["posterior"] == pytest.approx(risk.posterior_bound(curve, 0.5).posterior)
    assert words["best_test"]["power"] == pytest.approx(1 - float(risk.tradeoff(curve, 0.05)))
    text = shown_text(brief.build_brief(file))
    assert "could move from 50% to at most" in text and "best test" in text
    assert "e^" not in text and "Gaussian DP" not in text  # no jargon
    for deployment in publishable.DEPLOYMENTS:
        assert deployment["name"] in text and f"{deployment['epsilon']:g}" in text
    assert "random" in text and file["recommendation"] in text


def test_a_useless_or_unmeasured_release_is_not_recommended(X):
    noise = np.random.default_rng(1).normal(size=(60, 5))  # no structure, few rows: k/d at best
    file = _file(noise, mechs="analyze_gauss", eps=0.1)
    assert file["recommendation"].startswith("Do not publish")
    file = _file(X, mechs="private_power", beig=0.0)
    assert file["in_words"]["private_power"]["utility"]["captured"] is None
    assert file["recommendation"].startswith("Do not judge")


def test_the_utility_error_is_the_spread_of_the_estimate_over_releases():
    """The standard error the file states (delta method on the eigenvalue share's published noise scale) is the
    spread of the estimate over 200 seeded releases, within the sampling error of a standard deviation from 200 draws
    (about 5%) and the delta method's approximation."""
    X = np.random.default_rng(5).normal(size=(2000, 5)) * np.r_[3, 2, 1, 0.3, 0.2] / 8
    budget = dc.BudgetSplit.with_extras(eigenvalues=0.1)
    est, err = [], []
    for seed in range(200):
        u = publishable.utility(
            dc.release_pca("analyze_gauss", X, 2, 1.0, 1e-6, "replace", 1.0, seed=seed, budget=budget).published()
        )
        est.append(u["estimate"])
        err.append(u["standard_error"])
    assert 0.8 < np.std(est) / np.mean(err) < 1.2
    # without an eigenvalue share nothing honest is published: not measured
    plain_release = dc.release_pca("analyze_gauss", X, 2, 1.0, 1e-6, "replace", 1.0, seed=0).published()
    assert publishable.utility(plain_release)["captured"] is None


def test_no_handout_without_a_guarantee(X):
    vals = {**scenario.DEFAULTS, "center": "empirical"}
    published = release_file.publishable_releases(dc.prepare(X - X.mean(axis=0), 1.0), ["analyze_gauss"], vals, "none")
    file = release_file.publishable_file(published, vals)
    assert file["export"] == publishable.NOT_PUBLISHABLE
    with pytest.raises(ValueError, match="no privacy guarantee"):
        brief.build_brief(file)
    with pytest.raises(ValueError, match="no privacy guarantee"):
        brief.build_deck(file)


# -- budget parts in units that add up, everywhere ---------------------------------------------------------------


def test_percents_add_up_to_100():
    rng = np.random.default_rng(0)
    for _ in range(500):
        shares = rng.dirichlet(np.ones(rng.integers(1, 9)))
        pct = publishable.percents(shares)
        assert sum(pct) == 100 and all(abs(p - 100 * s) < 1 for p, s in zip(pct, shares))


@pytest.mark.parametrize("curve", ["gdp", "pure", "approx"])
def test_budget_parts_add_up_to_the_total_in_their_unit(curve):
    weights = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.15, scores=0.05, radius=0.1).as_dict()
    parts = publishable.split_parts(weights, 1.0, 1e-6, curve)
    assert sum(p["percent"] for p in parts["parts"]) == 100
    amounts = sum(p["amount"] for p in parts["parts"])
    if curve == "gdp":  # Gaussian parts add up in mu^2; the total epsilon is not the sum of the parts' epsilons
        from dppca_core.privacy import gaussian_mu

        assert parts["unit"] == "mu^2" and amounts == pytest.approx(gaussian_mu(1.0, 1e-6) ** 2)
        assert "not the sum" in parts["sentence"]
    else:
        assert parts["unit"] == "epsilon" and amounts == pytest.approx(1.0)


def table_of(doc: str) -> pd.DataFrame:
    """The first HTML table of ``doc`` (pandas' to_html output) as text cells."""
    table = re.search(r"<table.*?</table>", doc, flags=re.S).group(0)
    cells = [
        [
            html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, flags=re.S)
    ]
    return pd.DataFrame(cells[1:], columns=cells[0])


def _percents_in(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"(\d+)%", text)]


def test_every_place_showing_budget_parts_sums_them_to_the_whole(app_test, downloads, X):
    """Lesson step 7 showed 0.291 + 0.887 + 0.291 for ε = 1, the slides 2.677 + 9.39 for ε = 10, the sidebar
    "subspace: 60%" without the radius and scaling shares. Each now shows whole percentages of one unit that add up
    to 100."""
    # Lesson step 7: the headline and the bar
    at = app_test(step="7")
    at.switch_page("pages/lesson.py").run()
    assert_clean(at)
    (headline,) = [plain(m.value) for m in at.markdown if "splits its budget" in m.value]
    assert sum(_percents_in(headline)) == 200 and "= 100%" in headline, headline  # the parts, then their total
    assert "ε = 0.2" not in headline and "not their sum" in headline
    bars = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert sum(t["x"][0] for b in bars for t in b["data"] if t["type"] == "bar") == 100

    # the sidebar: every share that is on, the radius and the scaling included
    at = app_test(
        rfrom="private",
        bradius="0.1",
        scale="private",
        bscale="0.1",
        bounds="1,1,1,1,1,1,1,1,1,1,1,1,1," "1,1,1,1,1,1,1",
        center="private",
        bmean="0.1",
        beig="0.1",
    )
    at.switch_page("pages/explore.py").run()
    (listing,) = [plain(c.value) for c in at.sidebar.caption if c.value.startswith("Every share")]
    assert "radius" in listing and "scaling" in listing and sum(_percents_in(listing)) == 200, listing

    # the Report: the table (per mechanism) and the bar; its slides
    at = app_test(
        mechs="analyze_gauss,ppca_exponential",
        center="private",
        bmean="0.1",
        beig="0.15",
        bscores="0.05",
        reps="2",
        eps="10.0",
        k="2",
    )
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    (shares,) = [df.value for df in at.dataframe if "adds up in" in df.value.columns]
    for mech, rows in shares.groupby("mechanism"):
        parts = rows[rows["part"] != "total"]
        assert sum(int(s.rstrip("%")) for s in parts["share"]) == 100, mech
        assert float(rows[rows["part"] == "total"]["amount"].iloc[0]) == pytest.approx(
            parts["amount"].astype(float).sum(), rel=1e-3
        )
    assert set(shares["adds up in"]) == {"μ²", "ε"}  # Gaussian parts in μ², the pure mechanism's in ε
    bars = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    (bar,) = [b for b in bars if b["layout"]["title"]["text"].startswith("How one release")]
    assert sum(t["x"][0] for t in bar["data"]) == 100
    deck = offered(at, downloads)["Download slides"].decode()
    budget_slides = re.findall(r"How the budget is split(?: \(continued\))?</h2>(.*?)</section>", deck, flags=re.S)
    assert len(budget_slides) == 2  # ten rows: the table continues on a second slide
    assert "not the sum" in shown_text(budget_slides[0]) and "2.677" not in deck
    shown = pd.concat([table_of(part) for part in budget_slides])
    assert len(shown) == len(shares)
    for mech, rows in shown.groupby("mechanism"):
        assert sum(int(str(s).rstrip("%")) for s in rows[rows["part"] != "total"]["share"]) == 100, mech

    # the brief: each budget's legend
    file = _file(X, bscores=0.1)
    for budget in re.findall(r"<div class='bar'.*?\(shares of", brief.build_brief(file), flags=re.S):
        legend = shown_text(budget.split("</div>", 1)[1])
        assert sum(_percents_in(legend)) == 100, legend


# -- exploration records: no seeded numbers of private data, no localhost, built when asked ---------------------


def test_the_record_of_an_upload_leaves_out_its_seeded_runs_numbers(app_test, downloads):
    """Issue 34 item 5: the HTML record and the slides of an upload carried the first seeded run's components (the
    loadings chart) beside the link with its seed, although docs/privacy.md says such a record leaves seeded numbers
    out. The loadings now show the exact PCA alone, and the tables of released values keep only their summaries."""
    at = open_wine_upload(app_test, "report", **PRIVATE_R, bradius="0.1", bscores="0.1")
    files = offered(at, downloads)
    for label in ("HTML report (offline)", "Download slides"):
        doc = files[label].decode()
        assert exploration_record.EXACT_LOADINGS in doc and "true vs private" not in doc, label
        assert "first release" not in doc and "Score plot: rows projected" not in doc, label
    # the page itself (for the data owner, interactive) still compares the seeded runs with the exact PCA
    assert [df.value for df in at.dataframe if "R of the first release" in df.value.columns]

    synthetic = app_test(mechs="analyze_gauss", reps="2")
    synthetic.switch_page("pages/report.py").run()
    doc = offered(synthetic, downloads)["HTML report (offline)"].decode()
    assert (
        "true vs private" in doc and exploration_record.EXACT_LOADINGS not in doc
    )  # the app's own data: nothing private


def test_a_records_link_is_relative_or_the_operators_public_address(app_test, downloads, monkeypatch):
    monkeypatch.delenv(report.PUBLIC_URL_ENV, raising=False)
    vals = {**scenario.DEFAULTS, "eps": 2.0}
    assert report.record_link("report", vals) == "/report?eps=2.0"
    monkeypatch.setenv(report.PUBLIC_URL_ENV, "https://dppca.example.org/")
    assert report.record_link("report", vals) == "https://dppca.example.org/report?eps=2.0"
    monkeypatch.delenv(report.PUBLIC_URL_ENV)
    import streamlit as st

    # the browser's address (what st.context.url gives a real session) never reaches a record
    monkeypatch.setattr(type(st.context), "url", property(lambda self: "http://localhost:8501/report"))
    at = app_test(mechs="analyze_gauss", reps="2", eps="2.0")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    files = offered(at, downloads)
    for label in ("HTML report (offline)", "Download slides"):
        doc = files[label].decode()
        assert "localhost" not in doc and "href='/report?" in doc.replace('"', "'"), label


def test_the_report_builds_its_exports_only_when_asked(app_test, downloads, monkeypatch):
    """Issue 43 item 2: every rerun of the Report built its HTML record, its slides (plotly.js inlined in both) and
    its script. Now a record is built when its button is pressed, once per press."""
    built = []
    real_html = exploration_record.build_html
    monkeypatch.setattr(exploration_record, "build_html", lambda *a, **k: built.append("html") or real_html(*a, **k))
    at = app_test(mechs="analyze_gauss", reps="2")
    at.switch_page("pages/report.py").run()
    at.run()  # a rerun, as a key press makes
    assert_clean(at)
    assert built == []
    assert {"HTML report (offline)", "Download slides"} <= built_on_press(at)
    draw_releases(at)
    assert {
        "Download the publishable releases (JSON)",
        "Publishable brief (HTML, printable)",
        "Publishable slides",
    } <= built_on_press(at)
    files = offered(at, downloads)
    assert built == ["html"]  # built once, when asked
    for label in ("HTML report (offline)", "Download slides"):
        assert files[label].decode().count("plotly.js v") == 1, label  # plotly.js once per export


# -- the downloaded script runs outside the repository ---------------------------------------------------------


def test_the_script_runs_from_another_folder_and_says_how_to_install_when_it_cannot(tmp_path):
    """Issue 35 item 9: the script stopped with "No module named dppca_core" when run from another folder. With the
    project importable (as `pip install -e <project>` makes it) it runs from a temporary folder; without it, it says
    in one line how to install it."""
    path = tmp_path / "dppca_scenario.py"
    path.write_text(script_export.build_script({**scenario.DEFAULTS, "reps": 2}, has_labels=False))
    run = tmp_path / "elsewhere"
    run.mkdir()
    out = run_script(path, run, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Analyze Gauss" in out.stdout
    # no dppca_core for this Python (-S: no site-packages, where `pip install` would have put it; no PYTHONPATH)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-S", str(path)], capture_output=True, text=True, timeout=60, cwd=str(run), env=env
    )
    assert out.returncode == 1 and out.stdout == ""
    (line,) = out.stderr.strip().splitlines()
    assert "No module named 'dppca_core'" in line and "-m pip install -e" in line and "pyproject.toml" in line


def test_the_budget_bar_labels_are_readable_or_absent():
    """Lesson step 7's bar labels were a few pixels high: plotly shrank each label to its segment. Each label is now
    at least BUDGET_LABEL_PX or hidden (the legend names every part), and the segments add up to 100."""
    from dppca_core import figures
    from dppca_core.figures.release import BUDGET_LABEL_PX

    fig = figures.budget_bar({"mean": 0.1, "subspace": 0.77, "eigenvalues": 0.1, "scores": 0.03}, unit="μ²")
    assert fig.layout.uniformtext.minsize >= BUDGET_LABEL_PX >= 12 and fig.layout.uniformtext.mode == "hide"
    assert sum(t.x[0] for t in fig.data) == 100 and [t.text[0] for t in fig.data] == ["10%", "77%", "10%", "3%"]
    assert "μ²" in fig.layout.xaxis.title.text


def test_a_release_whose_curve_is_not_gaussian_still_splits_mu_squared_among_its_gaussian_parts():
    """A sparse score plot spends a slice of δ on its threshold, so the release's curve is an (ε, δ) pair, yet its
    Gaussian parts were allocated shares of μ²: their ε do not add up, their μ² do."""
    X = np.random.default_rng(0).normal(size=(500, 5)) / 3
    budget = dc.BudgetSplit.with_extras(eigenvalues=0.1, scores=0.1)
    pub = dc.release_pca(
        "analyze_gauss", X, 2, 1.0, 1e-6, "replace", 1.0, seed=0, budget=budget, score_kind="sparse"
    ).published()
    assert pub["privacy"]["kind"] == "approx"
    parts = publishable.budget_parts(pub["facts"]["budget"], pub["privacy"], 1.0, 1e-6)
    assert parts["unit"] == "mu^2" and [p["percent"] for p in parts["parts"]] == [80, 10, 10]
    assert sum(p["epsilon"] for p in pub["facts"]["budget"].values()) > 1.0  # what the old display added up


def test_a_total_variance_near_its_noise_is_too_noisy_to_measure():
    """The captured share is a ratio over the noisy total variance T: with T within two noise s.d.s of 0 (a full run
    once drew T just above 0 and the brief said "100% ± 83147%", its text cut off) or a standard error of 100 points
    or more, nothing is estimated; the brief says why, the recommendation says not to publish."""
    X = np.random.default_rng(5).normal(size=(2000, 5)) * np.r_[3, 2, 1, 0.3, 0.2] / 8
    budget = dc.BudgetSplit.with_extras(eigenvalues=0.1)
    pub = dc.release_pca("analyze_gauss", X, 2, 1.0, 1e-6, "replace", 1.0, seed=0, budget=budget).published()
    scale = pub["facts"]["eigenvalue_noise_scale"]
    measured = publishable.utility(pub)
    assert measured["measured"] == "yes" and measured["standard_error"] < 0.1
    for total, ratios in ((1.9 * scale, [0.6, 0.3]), (2.5 * scale, [2.0, 1.5])):  # near 0; an error of 1.1 (110 points)
        near = {**pub, "outputs": {**pub["outputs"], "total_variance": total, "explained_variance_ratio": ratios}}
        u = publishable.utility(near)
        assert u["measured"] == "too noisy" and u["captured"] is None and u["standard_error"] is None, total
    words = {"m": {"title": "Analyze Gauss", "utility": u}}
    assert publishable.recommendation(words, 1.0).startswith("Do not publish")
    html = brief.utility_html({"in_words": words})
    assert "not measured (the noise was larger than the variance it measures)" in html and "% ±" not in html


# -- issue 55 item 4: a handout with the results ------------------------------------------------------------------


def _tables(doc: str) -> list[pd.DataFrame]:
    return [table_of(t) for t in re.findall(r"<table.*?</table>", doc, flags=re.S)]


def page_file(**fields) -> dict:
    """The publishable file the Report's button makes for the scenario ``fields`` (on a small synthetic table), as
    the JSON a reader has."""
    from ui import compute, data

    vals, notices = scenario.from_fields({"n": 400, "d": 5, "center": "private", "bmean": 0.1, "beig": 0.1, **fields})
    assert not notices, notices
    ds = data.load_dataset(vals)
    prep = compute.prepare(ds, vals)
    drawable = [m for m in scenario.mechanisms(vals) if not publishable.refusal(m)]
    published = release_file.publishable_releases(prep.data, drawable, vals, ds.labels, **compute.release_rows(prep))
    return json.loads(release_file.releases_json(release_file.publishable_file(published, vals, ds)))


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _read(cells) -> np.ndarray:
    """Numbers as the handout writes them for a person (dppca_core.reading.number: "1,234", "−2.572 × 10⁻⁵", "10⁻⁶")
    back to floats."""

    def one(text) -> float:
        text = str(text).replace(",", "").replace("−", "-").strip()
        if "×" in text:  # "2.572 × 10⁻⁵"
            mantissa, power = (part.strip() for part in text.split("×"))
            return float(mantissa) * 10.0 ** int(power[2:].translate(_SUPERSCRIPTS))
        if text.lstrip("-").startswith("10") and text[-1] in "⁰¹²³⁴⁵⁶⁷⁸⁹":  # "10⁻⁶"
            sign = -1.0 if text.startswith("-") else 1.0
            return sign * 10.0 ** int(text.lstrip("-")[2:].translate(_SUPERSCRIPTS))
        return float(text)

    return np.vectorize(one, otypes=[float])(np.asarray(cells, dtype=object))


def test_the_brief_and_the_deck_carry_each_releases_results_by_column_name():
    """Each release's loadings by column name (a figure and a table), its private scree with 95% intervals, its
    score plot and the R, scales and mean it used: all read back from the JSON the reader has."""
    file = page_file(eps=4.0, bscores=0.1, scale="bounds", bounds="0.5,0.5,0.5,0.5,0.5", R=1.5)
    columns, releases = file["schema"]["columns"], file["releases"]
    for doc in (brief.build_brief(file), brief.build_deck(file)):
        tables = _tables(doc)
        loadings = [t for t in tables if list(t.get("column", [])) == columns and "PC1" in t]
        used = [t for t in tables if list(t.get("column", [])) == columns and "divided by" in t]
        assert len(loadings) == len(used) == len(releases)
        for (mech, rel), shown, settings in zip(releases.items(), loadings, used):
            title = html_lib.escape(rel["title"])
            assert np.allclose(_read(shown[["PC1", "PC2"]]), rel["components"], atol=5e-4), mech
            for figure in (f"Loadings of {title}&#x27;s components, by column", f"Private scree of {title}"):
                assert re.search(f"<svg[^>]*><title>{re.escape(figure)}</title>", doc), figure
            assert f"<title>Score plot of {title}</title>" in doc
            for column in columns:  # the figure names the columns
                assert re.search(r"<svg.*?>" + re.escape(column) + "</text>", doc, flags=re.S), column
            shares = file["in_words"][mech]["shares"]
            assert shares["measured"] == "yes" and 0 <= min(shares["low"]) and max(shares["high"]) <= 1
            percent = [f"{100 * v:.1f}%" for v in shares["shares"]]
            (scree,) = [t for t in tables if "share of variance" in t and list(t["share of variance"]) == percent]
            assert list(scree["95% from"]) == [f"{100 * v:.1f}%" for v in shares["low"]]
            assert list(settings["divided by"]) == ["0.5"] * 5 and "mean" in settings  # private mean, column units
            mean = np.asarray(rel["outputs"]["mean"]) * 0.5
            assert np.allclose(_read(settings["mean"]), mean, rtol=1e-3), mech
        assert "R = 1.5 (a public bound)" in shown_text(doc)
    slide_titles = re.findall(r"<h2>(.*?)</h2>", brief.build_deck(file))
    for rel in releases.values():
        for head in ("Loadings by column", "Private scree", "Score plot", "What it used"):
            assert f"{head}: {rel['title']}" in slide_titles, (head, slide_titles)


def test_the_report_warns_before_drawing_when_the_brief_could_not_judge_the_releases(app_test, downloads):
    """The default split gives the eigenvalues no share: the brief of its releases could only end "Do not judge these
    directions yet". The Report says so before the draw, and its button gives them a share; then no warning."""
    at = app_test(mechs="analyze_gauss", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    warned = [plain(w.value) for w in at.warning if "Do not judge these directions yet" in w.value]
    assert len(warned) == 1 and "eigenvalues" in warned[0]
    draw_releases(at)
    files = offered(at, downloads)
    first = shown_text(files["Publishable brief (HTML, printable)"].decode())
    assert "Do not judge these directions yet" in first
    assert "share of variance of each" not in first  # it published none it can vouch for: no claim of one
    at.button(key="brief_give_eig").click().run()
    assert_clean(at)
    assert not [w for w in at.warning if "Do not judge" in w.value]
    draw_releases(at)
    brief_text = shown_text(offered(at, downloads)["Publishable brief (HTML, printable)"].decode())
    assert "Do not judge" not in brief_text and "Private scree" in brief_text
    assert "share of variance of each" in brief_text


# -- issue 55 item 5: numbers that hold at face value ---------------------------------------------------------


def _pub(ratios, total, sd, eigenvalue_share=True):
    budget = {"subspace": {"share": 0.9}, **({"eigenvalues": {"share": 0.1}} if eigenvalue_share else {})}
    facts = {"budget": budget, **({"eigenvalue_noise_scale": sd} if eigenvalue_share else {})}
    return {
        "outputs": {"explained_variance_ratio": ratios, "total_variance": total},
        "facts": facts,
        "noise_scale": sd,
        "components": [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]],
    }


@pytest.mark.parametrize(
    "ratios",
    [[0.97, 0.38], [1.59, -0.03], [-0.2, -1.8], [0.5, 0.2]],
    ids=["sum over 1", "one over 1", "negative", "plain"],
)
def test_the_shares_a_reader_gets_lie_in_0_1_and_add_up_to_at_most_1(ratios):
    """The Report's table once had 97% + 38% on a private scree (an axis to 120%), 159% and -3% on others: noise on
    the variances and on their total. The file's shares are post-processed into [0, 1], adding up to at most 1, the
    raw ratios kept as released; a share the noise did not push out is unchanged."""
    from dppca_core import reading

    got = reading.shares(_pub(ratios, total=100.0, sd=1.0))
    assert got["measured"] == "yes"
    assert all(0 <= v <= 1 for v in got["shares"] + got["low"] + got["high"]) and sum(got["shares"]) <= 1 + 1e-12
    assert all(lo <= v <= hi for lo, v, hi in zip(got["low"], got["shares"], got["high"]))
    positive = [max(r, 0.0) for r in ratios]
    if sum(positive) <= 1:
        assert got["shares"] == pytest.approx(positive)
    else:  # the total raised to the sum of the parts: the parts keep their proportions
        assert sum(got["shares"]) == pytest.approx(1.0)
        assert got["shares"][0] * positive[1] == pytest.approx(got["shares"][1] * positive[0])
    # the interval is 1.96 (s / T) sqrt(1 + share^2) on each side, T the total kept at least the parts' sum, in [0, 1]
    kept = max(100.0, 100.0 * sum(positive))
    assert got["high"][0] == pytest.approx(min(got["shares"][0] + 1.96 / kept * np.hypot(1, got["shares"][0]), 1))
    too_noisy = reading.shares(_pub(ratios, total=1.5, sd=1.0))
    assert too_noisy["shares"] is None and too_noisy["measured"] == "too noisy"


def test_a_noisy_release_of_a_small_table_publishes_shares_in_0_1():
    """Analyze Gauss on 150 rows at ε = 0.5: the raw ratios leave [0, 1]; the file's shares and the Explore scree's bars
    (the same function) do not."""
    from ui import views

    X = np.random.default_rng(3).normal(size=(150, 6)) * np.r_[3, 2, 1, 0.5, 0.3, 0.2] / 8
    raw, shown = [], []
    budget = dc.BudgetSplit.with_extras(eigenvalues=0.2)
    for seed in range(6):  # delta 1e-6, replace-one and R = 1: release_pca's defaults
        release = dc.release_pca("analyze_gauss", X, k=2, epsilon=0.5, seed=seed, budget=budget)
        pub = release.published()
        raw += list(pub["outputs"]["explained_variance_ratio"])
        words = publishable.in_words({"analyze_gauss": pub})["analyze_gauss"]["shares"]
        if words["shares"] is not None:
            shown += words["shares"] + words["low"] + words["high"]
            assert sum(words["shares"]) <= 1 + 1e-12

        class Result:
            published = pub

        private, _ = views.private_shares({"analyze_gauss": Result()})
        if private:
            assert list(private["analyze_gauss"][0]) == words["shares"]
    assert min(raw) < 0 or max(raw) > 1 or sum(raw[:2]) > 1  # the case the reader saw
    assert shown and all(0 <= v <= 1 for v in shown)


@pytest.mark.parametrize("rule", ["none", "bounds", "private"])
def test_the_jsons_release_parameters_say_the_scaling_its_settings_say(rule):
    """Each release's parameters.scale said "none" beside settings.scaling.rule "bounds": the rows were divided by
    the public bounds before the release read them. Now both say the same, with the same bounds."""
    fields = {"none": {}, "bounds": {"scale": "bounds", "bounds": "0.5,0.5,0.5,0.5,0.5", "R": 1.5}}.get(
        rule, {"scale": "private", "bounds": "5.0,5.0,5.0,5.0,5.0", "bscale": 0.1}
    )
    file = page_file(mechs="analyze_gauss", **fields)
    validate(file)
    (release,) = file["releases"].values()
    assert release["parameters"]["scale"] == file["settings"]["scaling"]["rule"] == rule
    if rule != "none":
        assert release["parameters"]["column_bounds"] == file["settings"]["scaling"]["bounds"]


def test_a_delta_above_1_over_n_is_said_on_the_report_and_in_the_brief(app_test):
    """δ = 0.01 at n = 406 was accepted silently. The brief (n public under replace-one) and the Report say why it is
    too large; δ = 1e-6 raises nothing."""
    from dppca_core import reading

    assert reading.delta_warning(1e-6, 406) is None and reading.delta_warning(0.01, None) is None
    words = reading.delta_warning(0.01, 406)
    assert "1/n" in words and "406" in words
    loud, quiet = page_file(mechs="analyze_gauss", delta=0.01), page_file(mechs="analyze_gauss")
    assert reading.delta_warning(0.01, 400) in shown_text(brief.build_brief(loud))
    assert reading.delta_warning(0.01, 400) in shown_text(brief.build_deck(loud))
    assert "1/n" not in shown_text(brief.build_brief(quiet))
    at = app_test(n="400", delta="0.01", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert [w for w in at.warning if "larger than 1/n" in w.value]
    at = app_test(n="400", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/report.py").run()
    assert not [w for w in at.warning if "1/n" in w.value]


def test_the_handout_states_one_composed_total_and_says_compose():
    """The brief said two releases' 'guarantees add up' beside their exact composition. It says 'compose', and the
    total it shows (the guarantee sentence and the context table's row) is the exact composition of the file's
    curves (privacy.compose), nothing else."""
    from dppca_core import privacy, risk

    file = page_file(mechs="analyze_gauss,private_power", eps=2.0)
    curves = [publishable.curve_from_dict(rel["privacy"]) for rel in file["releases"].values()]
    delta = sum(rel["delta"] for rel in file["releases"].values())
    exact = risk.epsilon_at(privacy.compose(curves, delta=delta), delta)
    assert file["together"]["epsilon"] == pytest.approx(exact, rel=1e-12) and exact < 2 * 2.0
    for doc in (brief.build_brief(file), brief.build_deck(file)):
        text = " ".join(shown_text(doc).split())
        assert "add up;" not in text and "guarantees add up" not in text
        assert f"their guarantees compose: ε = {exact:.3g}" in text
        (row,) = [t for t in _tables(doc) if "deployment" in t and t["deployment"].str.contains("together").any()]
        together = row[row["deployment"].str.contains("together")]
        assert together["ε"].iloc[0] == f"{exact:.3g}" and "composed" in together["deployment"].iloc[0]

"""Exports: the HTML report, the reproducing script and the published releases, tested without a browser."""
import json
import os
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go

from tests.test_app_pages import assert_clean
from ui import report, scenario

ROOT = Path(__file__).resolve().parents[1]


def _report_table(at):
    frames = [df.value for df in at.dataframe if "subspace distance" in df.value.columns]
    assert frames, "no results table on the Report page"
    return frames[0]


def test_report_html_escapes_user_text_and_links_the_scenario():
    link = "http://localhost:8501/report?eps=1.0&mechs=analyze_gauss"
    doc = report.build_html(scenario.DEFAULTS, link, {}, [], {}, 'Uploaded file <a href="http://evil">x</a>.csv')
    assert doc.startswith("<!DOCTYPE html>")
    assert '<a href="http://evil">' not in doc and "&lt;a href=" in doc
    assert f'href="{link.replace("&", "&amp;")}"' in doc  # the scenario is a link, wrapped by CSS
    assert "overflow-wrap:anywhere" in doc


def test_build_html_embeds_plotly_once():
    figs = [go.Figure(go.Bar(y=[1, 2])), go.Figure(go.Bar(y=[3, 1]))]
    doc = report.build_html(scenario.DEFAULTS, "?x=1", {}, figs, {}, "synthetic")
    assert doc.count("plotly.js v") == 1 and "<script src=\"http" not in doc  # embedded once, no CDN script
    assert doc.count("Plotly.newPlot") == 2


def test_releases_to_publish_use_fresh_randomness_not_the_seed(app_test):
    at = app_test(mechs="analyze_gauss,ppca_exponential", reps="2", k="2")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    table = _report_table(at)
    assert list(table["mechanism"]) == ["analyze_gauss", "ppca_exponential"]
    assert not [b for b in at.get("download_button") if "releases" in b.proto.label]  # only after drawing
    at.button(key="draw_releases").click().run()
    assert [b for b in at.get("download_button") if "releases (JSON)" in b.proto.label]
    first = at.session_state["fresh_releases"]["releases"]["analyze_gauss"]["components"]
    at.button(key="draw_releases").click().run()
    second = at.session_state["fresh_releases"]["releases"]["analyze_gauss"]["components"]
    assert first != second  # unpredictable noise: the scenario's seed (which the link records) is never used
    assert "seed" not in json.dumps(at.session_state["fresh_releases"]["releases"])


def test_html_report_of_an_upload_leaves_out_the_seeded_numbers():
    class Result:
        guarantee, guarantee_text = "approximate", "text"
        published = {"mechanism": "analyze_gauss", "guarantee": "approximate", "components": [[0.123456789]],
                     "eigenvalues": [9.87654321], "outputs": {}, "parameters": {"k": 1}}

    upload = report.build_html({**scenario.DEFAULTS, "src": "upload"}, "?x", {"analyze_gauss": Result()}, [], {}, "up")
    public = report.build_html(scenario.DEFAULTS, "?x", {"analyze_gauss": Result()}, [], {}, "synthetic")
    assert "0.123456789" not in upload and "9.87654321" not in upload and "approximate" in upload
    assert "0.123456789" in public


def test_script_prints_the_report_table_from_any_folder(app_test, tmp_path):
    query = {"mechs": "analyze_gauss,private_power", "eps": "2.0", "reps": "3", "seed": "4", "k": "2", "s": "3"}
    at = app_test(**query)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    shown = _report_table(at).to_string(index=False)
    vals, notices = scenario.from_query(query)
    assert not notices
    path = tmp_path / "scenario.py"
    path.write_text(report.build_script(vals))
    # the package importable as if installed (the script does not rely on the working folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=180, cwd=str(tmp_path),
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == shown.strip()


def test_published_json_has_no_diagnostics(app_test):
    at = app_test(mechs="ppca_exponential", k="2", reps="1", R="0.05")  # R tiny: every row is clipped
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    from ui import compute, data

    vals = at.session_state["scenario"]
    ds = data.load_dataset(vals)
    results, _ = compute.run_selected(ds, data.prepare(ds, vals), vals)
    text = report.published_json(results)
    payload = json.loads(text)
    assert payload["ppca_exponential"]["guarantee"] == "pure"
    for word in ("rows_clipped", "trace_energy", "acceptance", "seconds", "warnings"):
        assert word not in text

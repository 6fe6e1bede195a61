"""The Data page with an analyst's own messy table (issue 34 item 2, issue 35 items 1 and 6): the schema is declared
and recorded in the link, bad cells are replaced by public values, identifier-, time- and constant-like columns are
flagged with a one-click "leave out", neighbours publish the same d, n and shapes, and the bounds grid keeps what
is typed."""

import json

import numpy as np
import pytest

import dppca_core as dc

from tests.messy import MEASUREMENTS, TYPICAL, messy_csv, neighbour_csv
from tests.support.app import assert_clean, metric, plain
from tests.support.releases import assert_same_public_shape
from ui import data, release_file, scenario, session

R = "6000.0"
BOUNDS = [15, 6, 4, 30, 170, 4, 6, 1, 4, 14, 2, 4, 1700]  # wine, as test_app_private_choices


def _open(app_test, raw=None, name="penguins.csv", declare=True, **query):
    """The Data page on an upload; ``declare``: press "Declare this schema" when the page offers it (a schema
    suggested from the cells is declared only by the analyst, issue 54)."""
    at = app_test(src="upload", R=R, mechs="analyze_gauss", reps="1", **query)
    at.session_state["upload"] = {"name": name, "bytes": messy_csv() if raw is None else raw}
    at.switch_page("pages/data.py").run()
    if declare and any(b.key == "declare_schema" for b in at.button):
        at.button(key="declare_schema").click().run()
    return at


def _declared(at) -> list:
    return scenario.declared_columns(at.session_state["scenario"])


def _no_library_words(at):
    shown = " ".join(plain(e.value) for e in [*at.error, *at.warning, *at.info, *at.caption, *at.markdown])
    for word in ("on_bad", "drop_column", "drop_rows", "fill=", "columns="):
        assert word not in shown, word


def test_a_suggested_schema_is_declared_only_by_the_analyst_and_publishes_nothing_until_then(app_test):
    """Issue 54 item 1: the columns suggested from the cells were declared by the page itself, and published."""
    at = _open(app_test, declare=False)
    assert_clean(at)
    assert _declared(at) is None and "cols" not in at.query_params  # explored with the suggestion, undeclared
    assert metric(at, "features d") == "7"
    assert any("Suggested from the cells, not declared yet" in plain(m.value) for m in at.markdown)
    ds = data.upload_dataset(dict(at.session_state["upload"]), at.session_state["scenario"])
    assert data.undeclared_schema(ds) and not ds.schema.declared
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert not any(b.key == "draw_releases" for b in at.button)  # no publish control, and it says why
    assert any("nobody has declared them yet" in plain(w.value) for w in at.warning)
    at.switch_page("pages/data.py").run()
    at.button(key="declare_schema").click().run()
    assert_clean(at)
    assert _declared(at) == ["id", *MEASUREMENTS, "year", "station"]
    assert any("Schema declared" in plain(c.value) for c in at.caption)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert any(b.key == "draw_releases" for b in at.button)


def test_a_messy_upload_opens_without_an_error_and_keeps_every_measurement(app_test):
    at = _open(app_test)
    assert_clean(at)
    _no_library_words(at)
    # the suggestion, declared by the analyst's click: the link records it
    assert _declared(at) == ["id", *MEASUREMENTS, "year", "station"]
    assert at.session_state["scenario"]["label"] == "species"
    assert json.loads(
        at.query_params["cols"][0] if isinstance(at.query_params["cols"], list) else at.query_params["cols"]
    ) == _declared(at)
    assert metric(at, "rows n") == "344" and metric(at, "features d") == "7"
    report_table = [df.value for df in at.dataframe if "bad cells" in df.value.columns][0].set_index("column")
    assert report_table.loc["body_mass_g", "bad cells"] == "2"
    assert report_table.loc["body_mass_g", "a bad cell becomes"] == "0"
    assert report_table.loc["species", "use"] == "label" and report_table.loc["island", "use"] == "left out"
    assert "row number" in report_table.loc["id", "note"] and "year" in report_table.loc["year", "note"]
    assert "constant" in report_table.loc["station", "note"] and "label" in report_table.loc["sex", "note"]


def test_flagged_columns_leave_with_one_click_and_the_link_follows(app_test):
    at = _open(app_test)
    keys = {b.key for b in at.button}
    assert {"leave_out:id", "leave_out:year", "leave_out:station", "leave_out_flagged"} <= keys
    assert not any(k.startswith("leave_out:bill") or k.startswith("leave_out:body") for k in keys)
    at.button(key="leave_out:year").click().run()
    assert_clean(at)
    assert _declared(at) == ["id", *MEASUREMENTS, "station"] and metric(at, "features d") == "6"
    at.button(key="leave_out_flagged").click().run()
    assert_clean(at)
    assert _declared(at) == MEASUREMENTS and metric(at, "features d") == "4"
    assert not any(b.key and b.key.startswith("leave_out") for b in at.button)
    # a copied link reopens the same schema on the same file
    again = app_test(**scenario.to_query(at.session_state["scenario"]))
    again.session_state["upload"] = {"name": "penguins.csv", "bytes": messy_csv()}
    again.switch_page("pages/data.py").run()
    assert_clean(again)
    assert _declared(again) == MEASUREMENTS and metric(again, "features d") == "4"


def test_a_text_column_can_become_the_label_and_the_order_is_declared(app_test):
    at = _open(app_test)
    at.selectbox(key="w:label").set_value("").run()
    assert_clean(at)
    at.button(key="use_label:island").click().run()
    assert_clean(at)
    assert at.session_state["scenario"]["label"] == "island"
    at.multiselect(key="w:cols").set_value(["body_mass_g", "bill_length_mm", "flipper_length_mm"]).run()
    assert_clean(at)
    assert _declared(at) == ["body_mass_g", "bill_length_mm", "flipper_length_mm"]
    assert metric(at, "features d") == "3"


def test_the_public_values_of_bad_cells_are_declared_per_column(app_test):
    at = _open(app_test, cols=json.dumps(MEASUREMENTS), label="species")
    assert_clean(at)
    edits = {j: {"a bad cell becomes": TYPICAL[c]} for j, c in enumerate(MEASUREMENTS)}
    at.session_state["fill_editor"] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    at.run()
    at.button(key="FormSubmitter:fill_form-Use these values").click().run()
    assert_clean(at)
    assert scenario.fill_values(at.session_state["scenario"]) == TYPICAL
    table = [df.value for df in at.dataframe if "bad cells" in df.value.columns][0].set_index("column")
    assert table.loc["body_mass_g", "a bad cell becomes"] == "4200"
    ds = data.upload_dataset(dict(at.session_state["upload"]), at.session_state["scenario"])
    assert ds.schema.as_dict()["replacement"] == TYPICAL and ds.X.shape == (344, 4)


def test_neighbour_uploads_publish_the_same_d_n_and_shapes_through_the_app(app_test):
    """An upload and its neighbour with one more missing cell, read with the page's defaults: the publishable
    releases (ui.release_file.publishable_releases, seed=None) have the same d, n and structure."""
    published = []
    for raw in (messy_csv(), neighbour_csv()):
        at = _open(app_test, raw)
        assert_clean(at)
        vals = at.session_state["scenario"]
        up = at.session_state["upload"]
        ds = data.upload_dataset(dict(up), vals)
        assert ds.schema is not None and ds.schema.as_dict()["columns"] == _declared(at)
        prep = data.prepare(ds, vals)
        out = release_file.publishable_releases(prep.data, ["analyze_gauss"], vals, labels=ds.labels)
        published.append(out["analyze_gauss"])
    a, b = published
    assert a["parameters"]["d"] == b["parameters"]["d"] == 7 and a["parameters"]["n"] == b["parameters"]["n"] == 344
    assert_same_public_shape(a, b)


def test_leaving_rows_out_needs_add_remove_and_then_n_is_not_published(app_test):
    at = _open(app_test, cols=json.dumps(MEASUREMENTS), label="species", badcells="drop_rows")
    assert_clean(at)
    assert metric(at, "rows n") == "344"  # replace-one: n is public, the cells are replaced
    assert any("no row is left out" in plain(c.value) for c in at.caption)
    at = _open(app_test, cols=json.dumps(MEASUREMENTS), label="species", badcells="drop_rows", nb="add_remove")
    assert_clean(at)
    assert metric(at, "rows n") == "336"
    vals = at.session_state["scenario"]
    ds = data.upload_dataset(dict(at.session_state["upload"]), vals)
    out = release_file.publishable_releases(data.prepare(ds, vals).data, ["analyze_gauss"], vals)
    assert "n" not in out["analyze_gauss"]["parameters"]


def test_a_link_whose_columns_are_not_in_the_file_says_so_in_plain_words(app_test):
    at = _open(app_test, cols=json.dumps(["bill_length_mm", "wingspan_mm"]))
    assert not at.exception
    (error,) = at.error
    assert "'wingspan_mm'" in plain(error.value) and "choose the columns again" in plain(error.value)
    _no_library_words(at)
    at.button(key="schema_reset").click().run()
    assert_clean(at)
    assert _declared(at) is None  # the file's own suggestion, shown undeclared until the analyst declares it
    suggested = data.table_choice(at.session_state["scenario"], data.parsed_upload(at.session_state["upload"]))
    assert "wingspan_mm" not in suggested.columns and "bill_length_mm" in suggested.columns


def test_a_new_file_keeps_a_schema_that_fits_it_and_replaces_one_that_does_not(app_test):
    at = app_test(src="upload", R=R, cols=json.dumps(MEASUREMENTS), label="species")
    at.switch_page("pages/data.py").run()
    at.file_uploader[0].set_value(("neighbour.csv", neighbour_csv(), "text/csv")).run()
    assert_clean(at)
    assert _declared(at) == MEASUREMENTS and metric(at, "features d") == "4"
    other = b"height_cm,weight_kg,age,site\n170,70,30,a\n180,,41,b\n165,60,,a\n172,66,52,b\n"
    at.file_uploader[0].set_value(("other.csv", other, "text/csv")).run()
    assert_clean(at)
    assert _declared(at) is None and metric(at, "features d") == "3"  # its own suggestion, not declared
    assert any("does not have every column declared before" in plain(w.value) for w in at.warning)
    at.button(key="declare_schema").click().run()
    assert _declared(at) == ["height_cm", "weight_kg", "age"]


def test_the_messy_upload_reaches_explore(app_test):
    at = _open(app_test, cols=json.dumps(MEASUREMENTS), label="species")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    _no_library_words(at)


# -- server files: the same rule ------------------------------------------------------------------------------


def _server_file(folder, name, missing_row=None):
    rng = np.random.default_rng(5)
    rows = [[f"{v:.4f}" for v in r] for r in rng.normal(size=(500, 3)) * [3.0, 1.0, 0.5]]
    if missing_row is not None:
        rows[missing_row][1] = "NA"
    (folder / name).write_text("a,b,c\n" + "\n".join(",".join(r) for r in rows) + "\n")


def test_a_server_file_and_its_neighbour_with_one_na_have_the_same_n(app_test, monkeypatch, tmp_path):
    """Issue 34 item 2: server files dropped every row with a bad cell (n = 500 against 499)."""
    _server_file(tmp_path, "clean.csv")
    _server_file(tmp_path, "holed.csv", missing_row=17)
    monkeypatch.setenv("DPPCA_DATA_DIR", str(tmp_path))
    ns, published = [], []
    for name in ("clean.csv", "holed.csv"):
        at = app_test(src="server:?", R="8.0", mechs="analyze_gauss", reps="1")
        at.switch_page("pages/data.py").run()
        at.text_input(key="server_path").set_value(name)
        at.text_input(key="server_cols").set_value("a, b, c")
        at.button(key="server_read").click().run()
        assert_clean(at)
        ns.append(metric(at, "rows n"))
        vals = at.session_state["scenario"]
        assert _declared(at) == ["a", "b", "c"]
        stats = at.session_state[session.STREAM_KEY]["stats"]
        assert stats.schema.as_dict()["replacement"] == {"a": 0.0, "b": 0.0, "c": 0.0}
        out = release_file.publishable_releases(stats.prepared(8.0), ["analyze_gauss"], vals)
        published.append(out["analyze_gauss"])
    assert ns == ["500", "500"]
    assert any("1 missing or non-numeric cell(s) replaced" in plain(c.value) for c in at.caption)
    assert_same_public_shape(*published)
    assert published[0]["parameters"]["n"] == 500


# -- the bounds grid (issue 35 item 6) ----------------------------------------------------------------------------


def test_the_bounds_grid_is_a_form_so_typing_reruns_nothing(app_test):
    """The cause of lost bounds: every committed cell reran the whole Data page, and a cell typed while the grid was
    redrawn was lost (reproduced in a browser by typing without waiting). In a form no edit reruns the page."""
    at = app_test(src="sample:wine", R="2000.0", mechs="analyze_gauss", reps="1")
    at.switch_page("pages/data.py").run()
    (editor,) = [e for e in at.data_editor if e.key == "bounds_editor"]
    assert editor.proto.form_id, "the bounds grid reruns the page on every cell"


def test_bounds_typed_and_used_for_R_are_kept_after_leaving_the_page(app_test):
    at = app_test(src="sample:wine", R="2000.0", mechs="analyze_gauss", reps="1")
    at.switch_page("pages/data.py").run()
    at.session_state["bounds_editor"] = {
        "edited_rows": {j: {"public bound": b} for j, b in enumerate(BOUNDS)},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="use_bounds_R").click().run()
    assert_clean(at)
    assert at.session_state["scenario"]["R"] == pytest.approx(np.sqrt(np.sum(np.square(BOUNDS))))
    at.switch_page("pages/explore.py").run()
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    (editor,) = [e for e in at.data_editor if e.key == "bounds_editor"]
    assert editor.value["public bound"].tolist() == BOUNDS


def test_bounds_with_a_gap_are_refused_in_plain_words(app_test):
    at = app_test(src="sample:wine", R="2000.0", mechs="analyze_gauss", reps="1")
    at.switch_page("pages/data.py").run()
    at.session_state["bounds_editor"] = {"edited_rows": {0: {"public bound": 15}}, "added_rows": [], "deleted_rows": []}
    at.run()
    at.button(key="scale_by_bounds").click().run()
    assert not at.exception
    assert any("needs a public bound for every feature: 12 of 13 are empty" in w.value for w in at.warning)
    assert at.session_state["scenario"]["scale"] == "none"


def test_a_server_file_read_with_suggested_columns_publishes_only_once_they_are_declared(
    app_test, monkeypatch, tmp_path
):
    """Issue 54 item 1 for server files: a read with no columns named declared the first rows' suggestion by itself.
    Now it stays a suggestion until the analyst declares it, and the statistics then published are those a read
    with the same columns named gives, bit for bit."""
    _server_file(tmp_path, "clean.csv", missing_row=3)
    monkeypatch.setenv("DPPCA_DATA_DIR", str(tmp_path))
    at = app_test(src="server:?", R="8.0", mechs="analyze_gauss", reps="1")
    at.switch_page("pages/data.py").run()
    at.text_input(key="server_path").set_value("clean.csv")
    at.button(key="server_read").click().run()
    assert_clean(at)
    assert _declared(at) is None and not at.session_state[session.STREAM_KEY]["stats"].schema.declared
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert not any(b.key == "draw_releases" for b in at.button)
    at.switch_page("pages/data.py").run()
    at.button(key="declare_server_schema").click().run()
    assert_clean(at)
    assert _declared(at) == ["a", "b", "c"]
    suggested = at.session_state[session.STREAM_KEY]["stats"]
    named = dc.sufficient_stats(tmp_path / "clean.csv", ["a", "b", "c"], 8.0, on_bad="replace")
    assert named.n == suggested.n and np.array_equal(named.gram, suggested.gram)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert any(b.key == "draw_releases" for b in at.button)

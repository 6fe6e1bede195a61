"""The scenario file (issue 38): every setting and the public schema of the data in versioned TOML, never data rows;
URL -> file -> URL is the identity, a file opened on Home gives the same page as the link, and every page offers it."""

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dppca_core as dc
from dppca_core import scenario as core
from dppca_core.scenario import Scenario
from tests.support.app import PAGES, assert_clean, plain
from tests.support.downloads import offered
from ui import scenario

ROOT = Path(__file__).resolve().parents[2]
DOCS_SCHEMA = ROOT / "docs" / "scenario.schema.json"

names = st.text(min_size=1, max_size=12)
positive = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False)
#: each text setting's valid values (a text setting added later is drawn from its default until it is given one here)
TEXT = {
    "src": st.one_of(
        st.sampled_from(
            [
                "synthetic",
                "upload",
                *(f"preset:{p}" for p in dc.data.datasets.PRESETS),
                *(f"sample:{s}" for s in dc.data.datasets.SAMPLES),
            ]
        ),
        names.map(lambda name: f"server:{name}"),
    ),
    "bounds": st.lists(positive, max_size=6).map(lambda xs: ",".join(repr(x) for x in xs)),
    "cols": st.lists(names, max_size=6, unique=True).map(lambda cs: json.dumps(cs) if cs else ""),
    "label": st.text(max_size=20),
    "fill": st.dictionaries(names, st.floats(-1e6, 1e6, allow_nan=False), max_size=4).map(
        lambda d: json.dumps(d) if d else ""
    ),
    "mechs": st.lists(st.sampled_from(dc.mechanism_names("pca")), max_size=4, unique=True).map(",".join),
    "slabels": st.lists(st.text(min_size=1, max_size=10), min_size=1, max_size=5, unique=True).map(json.dumps)
    | st.just(""),
    "amech": st.sampled_from(dc.mechanism_names()),
    "ptarget": st.lists(st.sampled_from(list(core.PLAN_TARGET_FIELDS)), max_size=5, unique=True).map(",".join),
    "pspec": st.text(max_size=30),
}
#: valid mechanism parameters (the registry validates them; None is the mechanism's own default)
PARAMETERS = {
    "private_power.iterations": st.integers(1, 50),
    "dps_pca.sites": st.sampled_from([3, [300, 700]]),
    "cape_pca.kappa": st.none(),
}


def field_values(field):
    """A strategy for every valid value of ``field``."""
    if field.kind == "bool":
        return st.booleans()
    if field.kind == "choice":
        return st.sampled_from(field.allowed())
    if field.kind == "int":
        return st.integers(int(field.low), int(field.high))
    if field.kind == "float":
        low, high = (field.low, field.high) if field.low is not None else (1e-12, 0.5)
        return st.floats(low, high, allow_nan=False)
    return TEXT.get(field.name, st.just(field.default))


scenarios = st.fixed_dictionaries(
    {name: field_values(f) for name, f in core.FIELDS.items()},
    optional={key: strategy for key, strategy in PARAMETERS.items()},
).map(lambda fields: core.from_fields(fields)[0])


@settings(max_examples=200, deadline=None)
@given(scenarios)
def test_url_to_scenario_file_to_url_is_the_identity(vals):
    query = core.to_query(vals)
    from_link, notices = core.from_query(query)
    assert not notices
    text = Scenario(from_link).to_toml()
    opened = Scenario.from_toml(text)
    assert not opened.notices, opened.notices
    assert opened.to_query() == query
    assert opened.values == from_link
    # every setting is in the file, in its section, whether or not it differs from its default
    doc = tomllib.loads(text)
    assert {
        name for section, block in doc.items() if section in {*core.SECTIONS, core.OTHER_SECTION} for name in block
    } == set(core.FIELDS)


@settings(max_examples=100, deadline=None)
@given(scenarios)
def test_every_scenario_file_validates_against_the_schema_in_docs(vals):
    import jsonschema

    doc = tomllib.loads(core.to_toml(vals))
    errors = list(jsonschema.Draft202012Validator(json.loads(DOCS_SCHEMA.read_text(encoding="utf-8"))).iter_errors(doc))
    assert not errors, [e.message for e in errors[:3]]


def test_the_schema_in_docs_is_the_one_the_library_states():
    """docs/scenario.schema.json is written by `python -m dppca_core.scenario`: run it again after a setting changes."""
    assert json.loads(DOCS_SCHEMA.read_text(encoding="utf-8")) == json.loads(json.dumps(core.file_schema()))


def test_file_round_trip_through_disk_keeps_the_public_schema_as_lists(tmp_path):
    vals, _ = core.from_fields(
        {
            "src": "upload",
            "nb": "add_remove",
            "badcells": "drop_rows",
            "label": "species",
            "cols": json.dumps(["bill_length_mm", "body_mass_g"]),
            "bounds": "60.0,6500.0",
            "fill": json.dumps({"body_mass_g": 4200.0}),
            "private_power.iterations": 7,
        }
    )
    path = Scenario(vals).to_file(tmp_path / "penguins.toml")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# DP-PCA Explorer scenario file") and "no data rows" in text.splitlines()[0]
    doc = tomllib.loads(text)
    assert doc["format"] == "dppca-scenario" and doc["format_version"] == core.FILE_VERSION
    assert doc["schema"] == {
        "cols": ["bill_length_mm", "body_mass_g"],
        "label": "species",
        "badcells": "drop_rows",
        "fill": {"body_mass_g": 4200.0},
    }
    assert doc["preprocessing"]["bounds"] == [60.0, 6500.0]
    assert doc["parameters"] == {"private_power": {"iterations": 7}}
    assert Scenario.from_file(path).values == vals


def test_a_plan_s_targets_confidence_and_stand_in_travel_in_the_link_and_the_file():
    """Issue 37: the plan from targets is part of the scenario: link -> file -> link is the identity, the targets are
    a list in the file's [plan] section, and a target the planner does not know is refused with a notice."""
    query = {
        "ptarget": "subspace_distance,score_readability",
        "pdist": "0.25",
        "pscore": "0.4",
        "pconf": "0.8",
        "pon": "private",
        "peps0": "0.5",
        "pspec": "4, 1, 0.5",
        "ptotal": "7.0",
        "pn": "3000",
    }
    vals, notices = core.from_query(query)
    assert not notices and core.to_query(vals) == query
    text = Scenario(vals).to_toml()
    assert tomllib.loads(text)["plan"] == {
        "ptarget": ["subspace_distance", "score_readability"],
        "pdist": 0.25,
        "penergy": 0.9,
        "pf1": 0.9,
        "peverr": 0.02,
        "pscore": 0.4,
        "pconf": 0.8,
        "pon": "private",
        "pspec": "4, 1, 0.5",
        "ptotal": 7.0,
        "peps0": 0.5,
        "pn": 3000,
    }
    assert Scenario.from_toml(text).to_query() == query
    bad, notices = core.from_query({"ptarget": "subspace_distance,readability", "pon": "exact"})
    assert bad["ptarget"] == "subspace_distance" and bad["pon"] == "law"
    assert any("unknown plan target readability" in n for n in notices) and any("pon" in n for n in notices)


def test_a_parameter_at_its_mechanism_s_default_is_left_out_of_the_file_as_of_the_link():
    """Found by the property test of the app: a parameter set to its default's own value (20 iterations) was written
    to the file but not to the link, so the file opened on Home gave one key more than the link."""
    vals, _ = core.from_fields({"private_power.iterations": 20, "dps_pca.sites": 3})
    assert core.to_query(vals) == {"dps_pca.sites": "3"}
    doc = tomllib.loads(core.to_toml(vals))
    assert doc["parameters"] == {"dps_pca": {"sites": 3}}
    assert Scenario.from_toml(core.to_toml(vals)).values == core.from_query(core.to_query(vals))[0]


def test_a_hand_edited_file_keeps_what_it_can_and_says_what_it_could_not_use():
    text = core.to_toml(scenario.DEFAULTS).replace("eps = 1.0", "eps = -3").replace("k = 2", "k = 4")
    text += "\n[rows]\nfirst = [1.0, 2.0]\n\n[data.extra]\nx = 1\n"
    opened = Scenario.from_toml(text)
    assert opened.values["k"] == 4 and opened.values["eps"] == scenario.DEFAULTS["eps"]
    said = " ".join(opened.notices)
    assert "eps" in said and "rows" in said and "extra" in said


@pytest.mark.parametrize(
    "raw, words",
    [
        (b"\xff\xfe not text", "not text"),
        (b"eps = [", "not a readable scenario file"),
        (b'format = "something-else"\n', "not a DP-PCA Explorer scenario file"),
        (b'format = "dppca-scenario"\nformat_version = 99\n', "Update DP-PCA Explorer"),
        (b"x" * (core.MAX_FILE_BYTES + 1), "larger than"),
    ],
)
def test_what_is_not_a_scenario_file_is_refused_in_plain_words(raw, words):
    with pytest.raises(ValueError, match=words):
        Scenario.from_toml(raw)


# -- in the app ------------------------------------------------------------------------------------------------


def _open_on_home(at, raw: bytes):
    at.file_uploader(key="scenario_file").set_value(("dppca_scenario.toml", raw, "application/toml")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vals=scenarios)
def test_a_scenario_file_opened_on_home_gives_the_link_s_scenario(app_test, vals):
    query = core.to_query(vals)
    by_link = app_test(**query)
    by_link.run()
    by_file = app_test()
    by_file.run()
    _open_on_home(by_file, core.to_toml(vals).encode())
    assert by_file.session_state["scenario"] == by_link.session_state["scenario"]
    assert dict(by_file.query_params) == dict(by_link.query_params)  # the address bar holds it too


def _shown(at) -> list:
    return (
        [plain(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.warning]]
        + [(m.label, m.value) for m in at.metric]
        + [df.value.to_string() for df in at.dataframe]
    )


def test_a_scenario_file_opened_on_home_gives_the_same_page_as_the_link(app_test):
    query = {
        "mechs": "analyze_gauss,private_power",
        "eps": "0.5",
        "n": "400",
        "d": "8",
        "reps": "2",
        "seed": "3",
        "k": "3",
        "center": "private",
        "bmean": "0.2",
        "view": "loadings",
    }
    by_link = app_test(**query)
    by_link.switch_page("pages/explore.py").run()
    assert_clean(by_link)
    by_file = app_test()
    by_file.run()
    _open_on_home(by_file, Scenario.from_query(query).to_toml().encode())
    assert any("Scenario opened" in plain(s.value) for s in by_file.success)
    by_file.switch_page("pages/explore.py").run()
    assert_clean(by_file)
    assert _shown(by_file) == _shown(by_link)


def test_opening_a_file_that_is_not_a_scenario_changes_nothing_and_says_why(app_test):
    at = app_test(eps="2.0")
    at.run()
    before = dict(at.session_state["scenario"])
    _open_on_home(at, b"id,species\n1,Adelie\n")
    assert at.session_state["scenario"] == before
    (error,) = at.error
    assert "could not be opened" in plain(error.value) and "not a readable scenario file" in plain(error.value)


def test_an_upload_scenario_asks_for_its_table_again(app_test):
    at = app_test()
    at.run()
    vals = {**scenario.DEFAULTS, "src": "upload", "cols": json.dumps(["a", "b"]), "label": "c"}
    _open_on_home(at, core.to_toml(vals).encode())
    assert json.loads(at.session_state["scenario"]["cols"]) == ["a", "b"]
    assert any("upload it on the Data page" in plain(i.value) for i in at.info)


def test_every_page_offers_the_scenario_file_without_a_data_row(app_test, downloads):  # noqa: F811
    """An uploaded messy table: the sidebar's file on every page holds the scenario (its declared columns) and not
    one of the table's cells."""
    from tests.messy import messy_csv, messy_rows

    at = app_test(src="upload", R="6000.0", mechs="analyze_gauss", reps="2", sreps="2")
    at.session_state["upload"] = {"name": "penguins.csv", "bytes": messy_csv()}
    cells = {cell for row in messy_rows()[:50] for cell in row[3:7] if cell not in ("", "NA")}
    at.switch_page("pages/data.py").run()
    at.button(key="declare_schema").click().run()  # the schema the file holds is one the analyst declared
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        text = offered(at, downloads)["Scenario file"].decode()
        assert Scenario.from_toml(text).values == at.session_state["scenario"], page
        assert not [cell for cell in cells if cell in text], page
    assert "body_mass_g" in text and 'src = "upload"' in text  # the public schema is in it


def test_presenter_mode_offers_the_scenario_file_on_every_page(app_test, downloads):  # noqa: F811
    """Presenter mode has no sidebar: its "Copy link" box offers the same file, holding presenter mode too."""
    at = app_test(present="true", mechs="analyze_gauss", reps="2", sreps="2", eps="2.0")
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        keys = [button.proto.id for button in at.get("download_button")]
        assert any("download_scenario_file_presenter" in key for key in keys), (page, keys)
        text = offered(at, downloads)["Scenario file"].decode()
        assert Scenario.from_toml(text).values == at.session_state["scenario"], page
        assert "present = true" in text and "eps = 2.0" in text, text


def test_the_library_reads_and_writes_scenario_files_without_streamlit(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; from dppca_core.scenario import Scenario; "
        "Scenario.from_query({'eps': '0.5'}).to_file(sys.argv[1]); "
        "assert Scenario.from_file(sys.argv[1]).values['eps'] == 0.5; "
        "assert 'streamlit' not in sys.modules, 'dppca_core imported streamlit'"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.toml")],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr

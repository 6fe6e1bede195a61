"""Every screen as a teacher, an analyst and a stakeholder read it (issue 57), under AppTest: messages in one
sentence that name where the option is, mechanisms by their titles, the loaded file named where the uploader stands,
a refusal that says what a button needs, numbers at four significant digits, and a word on why a privately chosen R
varies."""

from pathlib import Path
from types import SimpleNamespace

import math

import pandas as pd

from tests.support.app import assert_clean, plain
from ui import planner

WINE = Path(__file__).resolve().parents[2] / "sample_data" / "wine.csv"


def test_a_refusal_is_one_sentence_that_starts_with_a_capital(app_test):
    """ "Cannot compute the dataset with these settings. no file is uploaded..." read as two sentences, the second
    in lowercase."""
    at = app_test(src="upload", mechs="analyze_gauss", reps="2")
    at.switch_page("pages/explore.py").run()
    said = [e.value for e in at.error if "Cannot compute the dataset" in e.value]
    assert said and said[0].startswith("**Cannot compute the dataset with these settings**: no file is uploaded"), said
    assert ". no" not in said[0]


def test_downstream_use_names_the_mechanisms_by_their_titles(app_test):
    at = app_test(src="sample:wine", mechs="analyze_gauss,private_power", k=2, reps=2, R="2000.0", view="downstream")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    (table,) = [df.value for df in at.dataframe if "accuracy" in df.value.columns]
    names = table["components"].tolist()
    assert "Analyze Gauss" in names and "Private power method" in names, names
    assert not {"analyze_gauss", "private_power"} & set(names), names


def test_back_on_the_data_page_the_uploader_names_the_loaded_file(app_test):
    """Coming back to the Data page the uploader was an empty box although the file was loaded."""
    at = app_test(src="upload")
    at.session_state["upload"] = {"name": "wine.csv", "bytes": WINE.read_bytes()}
    at.switch_page("pages/explore.py").run()
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    (uploader,) = at.get("file_uploader")
    label = plain(uploader.proto.label)
    assert "**wine.csv**" in label and "is loaded" in label and "people" not in label, label


def test_scaling_privately_without_bounds_says_bounds_are_needed(app_test):
    at = app_test(src="sample:wine")
    at.switch_page("pages/data.py").run()
    at.button(key="scale_privately").click().run()
    assert not at.exception
    said = " ".join(w.value for w in at.warning)
    assert "Scaling each column privately needs a public bound for every feature: 13 of 13 are empty" in said, said
    assert at.session_state["scenario"]["scale"] == "none"  # nothing applied


def test_a_radius_from_the_link_shows_four_significant_digits_in_its_input(app_test):
    at = app_test(src="sample:wine", R=repr(math.sqrt(6)))
    at.switch_page("pages/data.py").run()
    box = at.number_input(key="w:R")
    assert box.value == math.sqrt(6) and box.proto.format == "%.4g"  # the value exact, shown 2.449


def test_the_planner_table_reads_not_reached_rather_than_infinity():
    tried = pd.DataFrame(
        {
            "mechanism": ["analyze_gauss", "mod_sulq"],
            "title": ["Analyze Gauss", "MOD-SuLQ"],
            "first guess ε": [math.log(3), 0.5],
            "planned ε": [math.inf, 2.0 / 3.0],
        }
    )
    shown = planner.candidates_table(SimpleNamespace(candidates=tried))
    assert shown["planned ε"].tolist() == ["not reached", "0.6667"]
    assert shown["first guess ε"].tolist() == ["1.099", "0.5"] and "mechanism" not in shown


def test_a_privately_chosen_radius_that_varies_says_why(app_test):
    """The Private power method's privately chosen R varied from 2.5 to 153 across repetitions with no word why."""
    at = app_test(src="sample:iris", mechs="private_power", reps=8, rfrom="private", bradius=0.05, eps=0.5)
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    why = [plain(c.value) for c in at.caption if "Why R varies" in c.value]
    assert why and "noisy binary search" in why[0] and "of the 150 rows above R" in why[0], why

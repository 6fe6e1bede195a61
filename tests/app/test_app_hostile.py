"""Hostile links and several sessions: no crash, no injected link, no state shared between sessions."""

import copy
import re
import types

import numpy as np
import pytest

import ui
from tests.support.app import assert_clean, metric
from ui import compute, controls, data, exploration_record, report, scenario, show, text, views

PAGES = [
    "pages/home.py",
    "pages/data.py",
    "pages/explore.py",
    "pages/tradeoffs.py",
    "pages/distributed.py",
    "pages/audit.py",
    "pages/report.py",
]
LINK = "[Log in again](http://evil.example/login)"
HOSTILE = {
    "k": "inf",
    "n": "inf",
    "seed": "1e999",
    "foo.bar": "[" * 5000,
    "private_power.block_size": "NaN",
    "src": LINK,
    "nb": LINK,
    "mechs": "private_power," + LINK,
    "delta": "0.123456",
    "R": "-5",
    "eps": "1e-999",
    "reps": "99999999999999999999999",
    "dsites": "[" * 3000,
    "amech": "<a href='http://evil.example'>x</a>",
}
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\((?!\))|(?<!\\)<a\s|(?<![\w\u200b])https?://", re.IGNORECASE)


def _markdown_sources(at):
    for kind in ("markdown", "caption", "error", "warning", "info", "success"):
        for element in getattr(at, kind):
            yield kind, element.value


def _assert_no_live_link(at):
    for kind, source in _markdown_sources(at):
        assert not UNESCAPED_LINK.search(source), f"{kind} renders a link from user input: {source[:200]!r}"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_survives_a_hostile_link_and_stays_usable(app_test, page):
    at = app_test(**HOSTILE)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    _assert_no_live_link(at)
    assert any("were not used" in w.value for w in at.warning)  # the user is told, once
    vals = at.session_state["scenario"]
    assert (
        vals["k"] == 2
        and vals["n"] == 2000
        and vals["delta"] == 0.123456
        and vals["mechs"] == "analyze_gauss,private_power"
    )
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert not any("were not used" in w.value for w in at.warning)  # shown once only
    assert float(metric(at, "subspace distance")) > 0


def test_parameter_nan_from_the_link_is_refused_not_crashing(app_test):
    at = app_test(mechs="private_power", **{"private_power.block_size": "NaN"})
    at.switch_page("pages/explore.py").run()
    assert_clean_but_notice(at)
    assert float(metric(at, "subspace distance")) > 0


def assert_clean_but_notice(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_uploaded_names_are_shown_as_text(app_test):
    at = app_test(src="upload")
    evil = '<a href="http://evil.example">x</a>'
    raw = f"{evil},[y](http://evil.example),z\n1,2,3\n2,1,4\n3,5,1\n4,4,2\n".encode()
    at.session_state["upload"] = {"name": "[click](http://evil.example).csv", "bytes": raw}
    at.switch_page("pages/data.py").run()
    assert not at.exception
    _assert_no_live_link(at)
    html_doc = exploration_record.build_html(scenario.DEFAULTS, "?x", {}, [], {}, f"Uploaded file {evil}")
    assert evil not in html_doc


def test_synthetic_size_from_a_link_is_capped(app_test):
    at = app_test(n="200000", d="500")
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert int(metric(at, "rows n").replace(",", "")) * 500 <= scenario.MAX_CELLS
    assert any(f"{scenario.MAX_CELLS:,}" in w.value.replace("\\", "") for w in at.warning)


def _module_state():
    """Every module-level list, dict or set of the dashboard's modules (deep-copied)."""
    out = {}
    for module in (ui, compute, controls, data, report, scenario, show, text, views):
        for name, value in vars(module).items():
            if isinstance(value, (list, dict, set)) and not name.startswith("__"):
                out[f"{module.__name__}.{name}"] = copy.deepcopy(value)
            elif isinstance(value, types.ModuleType):
                continue
    return out


def test_sessions_do_not_change_module_state_or_each_other(app_test):
    before = _module_state()
    odd = app_test(delta="0.123456", eps="2.5")
    odd.switch_page("pages/explore.py").run()
    assert odd.select_slider(key="w:delta").value == 0.123456 and odd.select_slider(key="w:eps").value == 2.5
    plain = app_test()
    plain.switch_page("pages/explore.py").run()
    options = plain.select_slider(key="w:delta").options
    assert "0.1" not in options and not any("0.123" in str(o) for o in options)
    assert _module_state() == before


def test_downstream_accuracy_is_not_shared_between_different_labels(app_test):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * [3.0, 1.0, 1.0, 1.0]  # x0 leads the spectrum: the top components carry it
    good = (X[:, 0] > 0).astype(int)
    noise = rng.integers(0, 2, size=300)

    def upload(labels):
        lines = ["a,b,c,d,y"] + [",".join(f"{v:.6f}" for v in row) + f",{lab}" for row, lab in zip(X, labels)]
        return {"name": "t.csv", "bytes": "\n".join(lines).encode()}

    accuracies = []
    for labels in (good, noise):
        at = app_test(
            src="upload",
            mechs="analyze_gauss",
            k=2,
            reps=1,
            R=10.0,
            view="downstream",
            cols='["a","b","c","d"]',
            label="y",
        )
        at.session_state["upload"] = upload(labels)
        at.switch_page("pages/explore.py").run()
        assert not at.exception, [e.value for e in at.exception]
        table = [df.value for df in at.dataframe if "accuracy" in df.value.columns][0]
        accuracies.append(float(table["accuracy"].iloc[0]))
    assert accuracies[0] > 0.75 and accuracies[1] < 0.65, accuracies

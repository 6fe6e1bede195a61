"""The budget book on the Report (issues 54, 55, 60): what a draw will spend is stated before it, and confirmed; each
draw is recorded with its exact curve; a second session, and a restarted server, see what the first spent; a cap
refuses in words and draws nothing."""

from __future__ import annotations

import json
import math

import pytest

from tests.helpers import draw_releases
from tests.support.app import assert_clean, plain
from ui import book as ui_book

QUERY = dict(mechs="analyze_gauss,private_power", reps="2", k="2", eps="1.0", delta="1e-06")


def _statement(at) -> str:
    return " ".join(plain(m.value) for m in at.markdown if "Spent on" in plain(m.value))


def test_a_draw_is_stated_confirmed_recorded_and_seen_by_the_next_session(app_test, monkeypatch, tmp_path):
    at = app_test(**QUERY)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    said = _statement(at)
    assert "nothing in this session" in said and "which compose to" in said
    (button,) = [b for b in at.button if b.key == "draw_releases"]
    assert button.disabled  # nothing is drawn before the spend is confirmed
    draw_releases(at)
    assert_clean(at)
    said = _statement(at)
    assert "in this session" in said and "(2 spend(s))" in said
    path = ui_book.book_path()
    assert str(path).startswith(str(tmp_path))
    # another session on the same table (a restarted server opens the same file): it sees the two spends
    other = app_test(**QUERY)
    monkeypatch.setenv("DPPCA_LEDGER", str(path))
    other.switch_page("pages/report.py").run()
    said = _statement(other)
    assert "nothing in this session" in said and "in every session of this server" in said
    assert said.count("(2 spend(s))") == 1 and "(4 spend(s))" in said  # after this draw: four, composed


def test_a_cap_refuses_in_words_and_draws_nothing(app_test):
    at = app_test(**QUERY)
    at.switch_page("pages/report.py").run()
    table_ids = [t["id"] for t in ui_book.book().tables()]
    assert len(table_ids) == 1
    ui_book.book().set_cap(table_ids[0], 1.2, 1e-5)  # two releases at ε = 1 compose to about 1.4
    at.run()
    assert "This table's cap: ε = 1.2" in _statement(at)
    draw_releases(at)
    assert not at.exception
    assert any("past its cap" in plain(e.value) and "nothing was drawn" in plain(e.value) for e in at.error)
    assert ui_book.book().spent(table_ids[0]).count == 0
    assert not any(b.key == "download_releases" for b in at.button)


@pytest.mark.parametrize("src", ["synthetic"])
def test_the_book_names_the_table_and_exports_its_spends(app_test, src):
    at = app_test(src=src, **QUERY)
    at.switch_page("pages/report.py").run()
    draw_releases(at)
    (table_id,) = [t["id"] for t in ui_book.book().tables()]
    csv = ui_book.ledger_csv(table_id)
    assert csv.startswith("# Exploration record") and csv.count("\n") == 4  # the line, the header, two spends
    assert "Analyze Gauss release" in csv and '""kind"": ""gdp""' in csv


def test_the_page_sets_and_lowers_a_cap_but_never_raises_it(app_test, monkeypatch):
    monkeypatch.setenv("DPPCA_CAP_EPSILON", "5")  # the operator's default for every new table
    at = app_test(**QUERY)
    at.switch_page("pages/report.py").run()
    (table_id,) = [t["id"] for t in ui_book.book().tables()]
    assert ui_book.book().cap(table_id) == (5.0, 1e-5)
    (eps,) = [n for n in at.number_input if n.label == "cap: ε"]
    eps.set_value(2.0)
    at.button(key="FormSubmitter:cap_form-Lower the cap").click().run()
    assert ui_book.book().cap(table_id) == (2.0, 1e-5)
    (eps,) = [n for n in at.number_input if n.label == "cap: ε"]
    eps.set_value(9.0)
    at.button(key="FormSubmitter:cap_form-Lower the cap").click().run()
    assert not at.exception and ui_book.book().cap(table_id) == (2.0, 1e-5)
    assert any("never raised or lifted" in plain(w.value) for w in at.warning)


def test_a_second_release_refines_the_first_instead_of_replacing_it(app_test, downloads):  # noqa: F811
    """Issue 60: drawn at ε = 0.5, then refined at ε = 2 (only ε changed): one more release, combined with the first by
    inverse variance; the file holds the combined release with the composed guarantee of both draws, which is the
    book's total (no earlier spend left over); a mechanism that cannot be refined is not offered."""
    from dppca_core.privacy import PrivacyCurve, gaussian_mu
    from tests.support.downloads import offered

    at = app_test(mechs="analyze_gauss", reps="2", k="2", eps="0.5", delta="1e-06")
    at.switch_page("pages/report.py").run()
    draw_releases(at)
    at.session_state["scenario"]["eps"] = 2.0
    at.run()
    assert any("Refine instead of replace" in plain(m.value) for m in at.markdown)
    (box,) = [c for c in at.checkbox if c.key and c.key.startswith("confirm_refine")]
    box.check().run()
    at.button(key="refine_releases").click().run()
    assert_clean(at)
    file = json.loads([d for d in offered(at, downloads).values() if d.startswith(b'{"export"')][0])
    release = file["releases"]["analyze_gauss"]
    assert release["outputs"]["refined_from"] == 2 and file["spent_before"] == []
    mu = math.hypot(gaussian_mu(0.5, 1e-6), gaussian_mu(2.0, 1e-6))  # the two draws' mu, composed
    assert PrivacyCurve.from_dict(release["privacy"]).mu == pytest.approx(mu, rel=1e-6)
    (table_id,) = [t["id"] for t in ui_book.book().tables()]
    assert ui_book.book().spent(table_id).epsilon == pytest.approx(release["epsilon"], rel=1e-9)


def test_a_release_that_spent_on_other_parts_is_not_offered_a_refinement(app_test):
    at = app_test(mechs="analyze_gauss", reps="2", k="2", beig="0.1")  # an eigenvalue share: its own draw
    at.switch_page("pages/report.py").run()
    draw_releases(at)
    at.session_state["scenario"]["eps"] = 2.0
    at.run()
    assert not any(b.key == "refine_releases" for b in at.button)

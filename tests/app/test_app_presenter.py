"""Presenter mode as a mode of the whole app, short links, the Audit page opening on the scenario, and the warning
when one column dominates because of its units (issue 31)."""

import numpy as np

from tests.support.app import assert_clean, metric, plain


def test_a_gallery_card_keeps_presenter_mode(app_test):
    """Issue 31: "Open" on a Home gallery card switched presenter mode off (present=false in the link)."""
    at = app_test(present="true")
    at.run()
    assert_clean(at)
    at.button(key="gallery:0").click().run()
    assert not at.exception
    assert at.session_state["scenario"]["present"] is True
    assert at.query_params.get("present") in (["true"], "true")
    assert at.select_slider(key="w:eps_presenter")  # the presenter bar, with its dial, on the card's page


def test_presenter_mode_offers_a_short_copy_link(app_test):
    at = app_test(present="true", eps="3.0", mechs="analyze_gauss")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    links = [c.value for c in at.code if "?" in c.value]
    assert links, "no link in the presenter bar"
    query = links[0].split("?", 1)[1]
    # only what differs from the defaults: the three settings of the link (seeds at their defaults stay out)
    assert sorted(p.split("=")[0] for p in query.split("&")) == ["eps", "mechs", "present"], query
    assert len(links[0]) < 120


def test_the_audit_page_opens_on_the_scenario_and_keeps_a_choice_made_there(app_test):
    """Issue 31: the Audit page opened on Analyze Gauss at ε = 1 whatever the scenario said."""
    at = app_test(mechs="wishart_sn,analyze_gauss", eps="0.5")
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    assert at.selectbox(key="w:amech").value == "wishart_sn" and at.number_input(key="w:aeps").value == 0.5
    at.switch_page("pages/explore.py").run()
    at.select_slider(key="w:eps").set_value(2.0).run()
    at.switch_page("pages/audit.py").run()
    assert at.number_input(key="w:aeps").value == 2.0  # still following the scenario
    at.number_input(key="w:aeps").set_value(3.0).run()
    at.switch_page("pages/explore.py").run()
    at.select_slider(key="w:eps").set_value(5.0).run()
    at.switch_page("pages/audit.py").run()
    assert at.number_input(key="w:aeps").value == 3.0  # the user's own choice on the Audit page is kept


#: the wine sample, centred privately, one mechanism (issue 31's scenario but for its R and scaling)
WINE = {"src": "sample:wine", "center": "private", "mechs": "analyze_gauss", "reps": "2"}


def _dominance_warnings(at):
    return [plain(w.value) for w in at.warning if "holds" in w.value and "of the variance" in w.value]


def test_a_column_that_dominates_by_its_units_is_flagged_and_public_scaling_removes_it(app_test):
    """Issue 31: on the wine sample with a public R and private centring, PC1 is proline alone (~100% of the
    energy, its scale 1,000 times the others'), and nothing said so."""
    at = app_test(**WINE, R="2000.0")
    at.switch_page("pages/data.py").run()
    assert_clean(at)
    (warning,) = _dominance_warnings(at)
    assert "proline" in warning and "public bound" in warning
    at.switch_page("pages/explore.py").run()
    assert len(_dominance_warnings(at)) == 1 and at.button(key="goto_scaling")
    # public bounds for the 13 columns (a chemist's ranges, fixed in advance): each column divided by its bound
    bounds = [15, 6, 4, 30, 170, 4, 6, 1, 4, 14, 2, 4, 1700]
    public = app_test(**WINE, scale="bounds", bounds=",".join(map(str, bounds)), R=str(np.sqrt(13)))
    public.switch_page("pages/data.py").run()
    assert_clean(public)
    assert not _dominance_warnings(public)
    assert metric(public, "rows clipped at R") == "0"
    assert public.session_state["scenario"]["sfrom"] == "public"


def test_scaling_read_from_the_data_is_offered_and_named_not_private(app_test):
    at = app_test(**WINE, R="2000.0")
    at.switch_page("pages/data.py").run()
    at.button(key="scale_from_data").click().run()
    assert_clean(at)
    vals = at.session_state["scenario"]
    assert vals["scale"] == "bounds" and vals["sfrom"] == "hints" and vals["R"] == np.sqrt(13)
    assert not _dominance_warnings(at)
    from ui import scenario

    assert any("scaling" in c for c in scenario.nonprivate_choices(vals))
    at.button(key="scale_off").click().run()
    assert at.session_state["scenario"]["scale"] == "none"


def test_the_moving_buttons_have_no_tooltip_and_the_bar_names_the_next_page(app_test):
    """Issue 57: after "next page ▶" or "Next step ▶" the button's tooltip stayed on (the pointer rests on the
    button) over the next page's title or the ε label. The buttons have none; the bar writes the next page's name."""
    at = app_test(present="true")
    at.run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert not any(at.button(key=key).help for key in ("present_prev", "present_next", "present_exit"))
    assert any(m.value == "**Data** · page 4 of 11 · next: Explore" for m in at.markdown)  # Class is page 3
    at.switch_page("pages/lesson.py").run()
    assert not at.button(key="lesson_next").help and not at.button(key="lesson_back").help

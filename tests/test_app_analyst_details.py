"""The smaller items of issue 35 (item 10), each checked in the app: the audit's numbers and δ, visible explanations,
labels that fit, the lesson's words and buttons."""
from tests.test_app_pages import assert_clean


def _metric(at, label):
    return next(m for m in at.metric if m.label == label)


def test_a_refuted_claim_reads_in_words_not_999_percent(app_test):
    at = app_test(mechs="wishart_sn")
    at.switch_page("pages/audit.py").run()
    at.select_slider(key="w:atrials").set_value(500)
    at.button(key="run_audit").click().run()
    assert_clean(at)
    reached = _metric(at, "claim reached")
    assert reached.value == "over 100%" and "refuted" in reached.delta and "× the claim" in reached.delta
    assert "%" not in reached.delta


def test_the_audit_takes_the_scenario_delta(app_test):
    at = app_test(mechs="analyze_gauss", delta="1e-08")
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    assert at.number_input(key="w:adelta").value == 1e-8
    at.number_input(key="w:adelta").set_value(1e-4).run()  # a choice made on the Audit page is kept
    at.switch_page("pages/explore.py").run()
    at.switch_page("pages/audit.py").run()
    assert at.number_input(key="w:adelta").value == 1e-4

"""Audit page, other libraries: an external audit and the comparison run in AppTest without a traceback."""

from tests.support.app import assert_clean


def _audit_page(app_test):
    at = app_test()
    at.run()
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    return at


def _external_audit(app_test, library: str, trials: int):
    """The Audit page after auditing ``library`` with ``trials`` per dataset (no traceback)."""
    at = _audit_page(app_test)
    at.selectbox(key="xa_lib").set_value(library)
    at.select_slider(key="xa_trials").set_value(trials)
    at.button(key="xa_run").click().run()
    assert_clean(at)
    return at


def test_audit_page_refutes_sklearn_as_an_external_library(app_test):
    at = _external_audit(app_test, "sklearn", 200)
    assert any("claim contradicted" in w.value and "carries no noise" in w.value for w in at.warning)
    assert any("published field" in m.value for m in at.metric)


def test_audit_page_audits_ours_through_the_external_interface(app_test):
    at = _external_audit(app_test, "ours:analyze_gauss", 500)
    assert any("no violation found" in s.value for s in at.success)


def test_compare_libraries_lists_each_library_and_our_mechanism(app_test):
    at = _audit_page(app_test)
    at.multiselect(key="cmp_libs").set_value(["sklearn", "ours:analyze_gauss"])
    at.number_input(key="cmp_reps").set_value(2)
    at.button(key="cmp_run").click().run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert set(table["library"]) == {"scikit-learn PCA (not private)", "ours: Analyze Gauss"}
    assert table["status"].eq("ok").all()
    verdicts = {row["library"]: row["audit at your ε"] for _, row in table.iterrows() if row["audit at your ε"]}
    assert verdicts["scikit-learn PCA (not private)"].startswith("refuted")
    assert verdicts["ours: Analyze Gauss"].startswith("no violation")


def test_compare_libraries_without_a_choice_says_what_to_do(app_test):
    at = _audit_page(app_test)
    at.multiselect(key="cmp_libs").set_value([])
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert any("pick at least one library" in e.value for e in at.error)

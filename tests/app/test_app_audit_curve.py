"""The audit as a curve in the app: the Audit page draws it with its reading and numbers (our mechanisms and an external
library), and the Report's exploration record carries it."""

import json

from tests.support.app import assert_clean, plain


def _traces(at, key):
    chart = next(c for c in at.get("plotly_chart") if c.proto.id and key in c.proto.id)
    return json.loads(chart.proto.spec)["data"]


def _audit(app_test, mechanism, factor=1):
    at = app_test()
    at.run()
    at.switch_page("pages/audit.py").run()
    at.selectbox[0].set_value(mechanism)
    at.select_slider[0].set_value(1000)
    at.select_slider[1].set_value(factor)
    at.button(key="run_audit").click().run()
    assert_clean(at)
    return at


def test_audit_page_draws_the_curve_with_its_reading(app_test):
    at = _audit(app_test, "analyze_gauss")
    readings = [plain(m.value) for m in at.markdown if "The best attack we found" in plain(m.value)]
    assert readings and "does no better than ε =" in readings[0]
    assert any("The best attack we found does no better than" in plain(c.value) for c in at.caption)  # text alternative
    assert any("Bonferroni" in c.value for c in at.caption)
    names = [t.get("name", "") for t in _traces(at, "audit_curve")]
    assert any(n.startswith("claim:") for n in names) and any("band" in n for n in names)
    assert not any(n.startswith("beyond the claim") for n in names)
    assert any(n.startswith("the audit's reading:") and "GDP" in n for n in names)  # the GDP reading, drawn on it
    # one trade-off figure only (the curve), beside the statistic's histogram
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
    assert not any("Attack vs claim" in t for t in titles)
    assert sum("trade-off" in t for t in titles) == 1 and any("Test statistic" in t for t in titles)


def test_audit_page_reads_an_exponential_mechanism_through_its_bounded_range(app_test):
    at = _audit(app_test, "amin_iterative")
    assert any("bounded privacy-loss range" in c.value for c in at.caption)
    names = [t.get("name", "") for t in _traces(at, "audit_curve")]
    assert any("exponential mechanism" in n for n in names if n.startswith("claim:"))


def test_audit_page_curve_refutes_the_mechanism_run_at_three_times_its_claim(app_test):
    at = _audit(app_test, "analyze_gauss", factor=3)
    assert any("contradicted" in w.value for w in at.warning)
    assert any("does better than the claim allows" in plain(m.value) for m in at.markdown)
    assert any(t.get("name", "").startswith("beyond the claim") for t in _traces(at, "audit_curve"))


def test_external_audit_draws_its_curve(app_test):
    at = app_test()
    at.run()
    at.switch_page("pages/audit.py").run()
    at.selectbox(key="xa_lib").set_value("ours:analyze_gauss")
    at.select_slider(key="xa_trials").set_value(500)
    at.button(key="xa_run").click().run()
    assert_clean(at)
    names = [t.get("name", "") for t in _traces(at, "external_audit_curve")]
    assert any("band" in n for n in names)
    assert any("The best attack we found" in plain(m.value) for m in at.markdown)


def test_report_record_carries_the_last_audit(app_test, monkeypatch):
    from ui import exploration_record

    made, original = [], exploration_record.Record

    def keep(*args, **kwargs):
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(exploration_record, "Record", keep)
    at = _audit(app_test, "analyze_gauss")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    assert any(h.value == "Last audit" for h in at.subheader)
    assert any("Audit of Analyze Gauss: The best attack we found" in plain(m.value) for m in at.markdown)
    result = at.session_state["audit_result"]
    fig, line = exploration_record.audit_record(result)
    assert line.startswith("Audit of Analyze Gauss: The best attack we found does no better than")
    assert "Audit of Analyze Gauss" in fig.layout.title.text
    assert exploration_record.audit_record(None) is None
    # the HTML record: the curve's figure and its reading in the summary
    html = exploration_record.record_html(made[-1])
    assert "Audit of Analyze Gauss: the attack" in html and "Audit of Analyze Gauss: The best attack we found" in html
    assert "Audit of Analyze Gauss: the attack" in exploration_record.record_deck(made[-1])  # and a slide of its own

"""Distributed, Audit and Explore detail views: they run, and their numbers follow the widgets."""

from tests.support.app import assert_clean, metric
from tests.support.app import plotly_array


def test_distributed_page_compares_and_follows_sites(app_test):
    at = app_test()
    at.run()
    at.switch_page("pages/distributed.py").run()
    assert_clean(at)
    cape, conv = float(metric(at, "capePCA")), float(metric(at, "conventional"))
    assert cape < conv  # correlated noise cancels; conventional carries ~sqrt(S) times the noise
    at.slider(key="w:dsites").set_value(10).run()
    assert_clean(at)
    assert float(metric(at, "conventional")) != conv
    assert any("trusted" in m.value for m in at.markdown)


def test_audit_page_refutes_wishart_and_not_analyze_gauss(app_test):
    at = app_test()
    at.run()
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    at.selectbox[0].set_value("wishart_sn")
    at.select_slider[0].set_value(200)
    at.button[0].click().run()
    assert_clean(at)
    assert any("contradicted" in w.value for w in at.warning)
    at.selectbox[0].set_value("analyze_gauss")
    at.button[0].click().run()
    assert any("no violation" in s.value for s in at.success)
    at.selectbox[0].set_value("private_oja")  # its own design: the canary's step, with the public order replayed
    at.button[0].click().run()
    assert_clean(at)
    assert any("no violation" in s.value for s in at.success)
    assert any("canary's own step" in c.value for c in at.caption)


def test_explore_runs_every_registered_mechanism(app_test):
    import dppca_core as dc

    at = app_test(mechs=",".join(dc.mechanism_names("pca")), k=1, reps=2)
    at.run()
    at.switch_page("pages/explore.py").run()
    assert not at.exception, [e.value for e in at.exception]
    # the only red box allowed is the retraction badge of wishart_sn
    assert all("claim is false" in e.value for e in at.error), [e.value for e in at.error]
    shown = sum(m.label.startswith("subspace distance") for m in at.metric)
    assert shown == len(dc.mechanism_names("pca"))


def test_sessions_are_isolated(app_test):
    # two browser sessions (two AppTest runs share the process and its caches) with different data
    wine = app_test(src="sample:wine")
    synthetic = app_test()
    wine.switch_page("pages/data.py").run()
    synthetic.switch_page("pages/data.py").run()
    assert metric(wine, "rows n") == "178" and metric(synthetic, "rows n") == "2,000"
    wine.switch_page("pages/explore.py").run()
    synthetic.switch_page("pages/explore.py").run()
    wine.switch_page("pages/data.py").run()
    synthetic.switch_page("pages/data.py").run()
    assert metric(wine, "rows n") == "178" and metric(synthetic, "rows n") == "2,000"
    assert "upload" not in synthetic.session_state and "audit_result" not in synthetic.session_state


def test_tradeoffs_overlays_theory_rates(app_test):
    """Each rate is fitted to its curve and drawn only where it fits, named with the fit's error (issue 35 item 4)."""
    import json
    import re

    for chosen in ("subspace_distance", "energy"):
        at = app_test(mechs="analyze_gauss", sreps=3, metric=chosen, shi=100)
        at.switch_page("pages/tradeoffs.py").run()
        assert not at.exception
        traces = []
        for chart in at.get("plotly_chart"):
            traces += json.loads(chart.proto.spec)["data"]
        rate = next(t for t in traces if t.get("name", "").startswith("rate: Analyze Gauss"))
        error = float(re.search(r"fit ±(\d+)%", rate["name"]).group(1))
        assert error <= 20
        ys = list(plotly_array(rate["y"]))
        assert (
            all(b < a for a, b in zip(ys, ys[1:]))
            if chosen == "subspace_distance"
            else all(b > a for a, b in zip(ys, ys[1:]))
        )  # the utility rises with ε: never drawn falling
        assert (
            len(plotly_array(rate["x"])) < 11
        )  # not the whole grid (0.05 to 100): the random level, the floor left out
        assert any("theoretical **rates**" in c.value for c in at.caption)


def test_explore_support_and_downstream_tabs(app_test):
    sparse = app_test(src="preset:wang_xu_sparse", mechs="analyze_gauss,ldp_sparse", k=2, reps=2, view="support")
    sparse.switch_page("pages/explore.py").run()
    assert not sparse.exception
    assert any("largest norm" in c.value for c in sparse.caption)  # the support heatmap is drawn
    labelled = app_test(src="sample:breast_cancer", mechs="analyze_gauss", k=2, reps=2, R=3000.0, view="downstream")
    labelled.switch_page("pages/explore.py").run()
    assert not labelled.exception
    frames = [df.value for df in labelled.dataframe]
    acc = [f for f in frames if "accuracy" in f.columns]
    assert acc and 0.5 < acc[0]["accuracy"].iloc[0] <= 1.0


def test_sweep_stop_is_enabled_only_while_it_runs_and_run_only_once_stopped(app_test):
    """ "Stop the sweep" was always enabled and, pressed after a finished sweep, said "Sweep stopped" (issue 57): once
    the sweep has finished it is greyed out, and "Run the sweep" is enabled only when there is a stopped sweep."""
    from ui.session import SWEEP_STOP_KEY

    at = app_test(mechs="analyze_gauss", sreps=2)
    at.switch_page("pages/tradeoffs.py").run()
    assert at.get("plotly_chart")
    assert at.button(key="stop_sweep_done").disabled and at.button(key="run_sweep").disabled
    at.session_state[SWEEP_STOP_KEY] = True  # what Stop does when pressed while the sweep runs (it interrupts it)
    at.run()
    assert not at.exception and any("Sweep stopped" in i.value for i in at.info)
    assert at.button(key="stop_sweep").disabled and not at.button(key="run_sweep").disabled
    at.button(key="run_sweep").click().run()
    assert not at.exception and not any("Sweep stopped" in i.value for i in at.info)
    assert any(df.value.shape[0] > 0 for df in at.dataframe if "mechanism" in df.value.columns)
    assert at.button(key="stop_sweep_done").disabled and at.button(key="run_sweep").disabled


def test_explore_convergence_tab(app_test):
    at = app_test(mechs="dps_pca,dp_pca", k=1, reps=2, view="convergence")
    at.switch_page("pages/explore.py").run()
    assert not at.exception
    assert any("after each iteration" in c.value for c in at.caption)


def test_an_upload_with_a_bad_cell_keeps_every_row_and_column(app_test):
    at = app_test(src="upload", k="1")
    at.session_state["upload"] = {"name": "bad.csv", "bytes": b"a,b\n1,2\n2,\n3,4\n"}
    at.switch_page("pages/data.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    # the empty cell becomes its column's public value (0): n and d do not depend on it, and the report says so
    assert metric(at, "rows n") == "3" and metric(at, "features d") == "2"
    report = [df.value for df in at.dataframe if "bad cells" in df.value.columns][0]
    assert list(report["use"]) == ["analysed", "analysed"] and report["bad cells"].tolist() == ["0", "1"]
    assert report["a bad cell becomes"].tolist() == ["", "0"]
    at.switch_page("pages/home.py").run()
    assert not at.exception


def test_distributed_sites_from_label_column(app_test):
    at = app_test(src="sample:wine", k=2, R=2000.0)
    at.switch_page("pages/distributed.py").run()
    at.toggle(key="w:dbylabel").set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("3 sites" in c.value for c in at.caption)  # wine has 3 cultivars


def test_risk_view_follows_epsilon_and_composes_releases(app_test):
    import json

    at = app_test(mechs="analyze_gauss,ppca_exponential", view="risk", reps=2, k=2)
    at.switch_page("pages/explore.py").run()
    assert_clean(at)

    def sentences():
        return [m.value for m in at.markdown if "attacker who was 10% sure" in m.value]

    before = sentences()
    from dppca_core import risk

    # pure epsilon: an attacker 10% sure becomes at most p e^eps / (1 - p + p e^eps) sure
    assert len(before) == 2 and f"at most {risk.format_percent(risk.posterior(0.1, 1.0))} sure" in before[1]
    assert any("would compose" in c.value for c in at.caption)
    names = [t.get("name", "") for chart in at.get("plotly_chart") for t in json.loads(chart.proto.spec)["data"]]
    assert any(n.startswith("Analyze Gauss") for n in names) and "random guessing (no information)" in names
    # the teaching example: the Audit page's curve of a simulated audit of the first guarantee, with its reading
    teaching = next(c for c in at.get("plotly_chart") if c.proto.id and "risk_audit_curve" in c.proto.id)
    spec = json.loads(teaching.proto.spec)
    assert "A simulated audit of this guarantee" in spec["layout"]["title"]["text"]
    traces = [t.get("name", "") for t in spec["data"]]
    assert any(n.startswith("claim:") and "Gaussian" in n for n in traces) and any("band" in n for n in traces)
    from tests.support.app import plain

    readings = [plain(m.value) for m in at.markdown if "The best attack we found does no better than" in plain(m.value)]
    assert readings and any(readings[0] in plain(c.value) for c in at.caption)  # its text alternative says the same
    at.select_slider(key="w:eps").set_value(0.1).run()
    after = sentences()
    assert after != before and f"at most {risk.format_percent(risk.posterior(0.1, 0.1))} sure" in after[1]
    assert [
        plain(m.value) for m in at.markdown if "The best attack we found" in plain(m.value)
    ] != readings  # follows ε


def _dotplot_axis_title(at) -> str:
    import json

    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if spec["layout"].get("title", {}).get("text", "").startswith("Quantile dotplot"):
            return spec["layout"]["xaxis"]["title"]["text"]
    raise AssertionError("no dot plot drawn")


def test_spread_metric_round_trips_through_a_link(app_test):
    """Issue 35 item 8: the "Spread of" metric is a scenario field bound to its widget, so a copied link keeps it
    (it was a widget of its own, not in the link: the reopened page showed the subspace distance)."""
    from ui import scenario, session

    at = app_test(mechs="analyze_gauss", reps=3)
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert "distance" in _dotplot_axis_title(at).lower()
    spread = next(w for w in at.get("button_group") if w.key == "w:spreadm")
    spread.set_value("energy").run()
    assert_clean(at)
    assert "energy" in _dotplot_axis_title(at).lower()
    query = scenario.to_query(at.session_state[session.SCENARIO_KEY])
    assert query.get("spreadm") == "energy"
    reopened = app_test(**query)
    reopened.switch_page("pages/explore.py").run()
    assert_clean(reopened)
    assert reopened.session_state["w:spreadm"] == "energy"
    assert "energy" in _dotplot_axis_title(reopened).lower()

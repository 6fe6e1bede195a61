"""The Tensor page under AppTest (widget changes change the numbers, bad settings give a message) and its
figure builders."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dppca_core.figures import tensor as fig_tensor
from tests.support import ROOT
from tests.support.app import assert_clean

PAGE = "pages/tensor.py"


def metric(at, label):
    values = [m.value for m in at.metric if m.label == label]
    assert values, f"no metric {label!r}; metrics: {[m.label for m in at.metric]}"
    return float(values[0])


def test_tensor_page_numbers_follow_the_widgets(app_test):
    at = app_test()
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    low_eps = metric(at, "q_comp · capeAGN")
    pooled = metric(at, "q_comp · non-private (pooled)")
    assert metric(at, "q_comp · random vectors") > 0.5  # MOG: random vectors are ~1 away from the means
    at.select_slider(key="w:teps").set_value(10.0).run()
    assert_clean(at)
    # the noise s.d. of both moments scales like 1/epsilon, so 10x epsilon must cut capeAGN's error a lot,
    # while the non-private reference does not depend on epsilon at all
    assert metric(at, "q_comp · capeAGN") < low_eps / 2
    assert metric(at, "q_comp · non-private (pooled)") == pooled
    assert len(at.get("plotly_chart")) == 4

    at.radio(key="w:tmodel").set_value("STM").run()
    assert_clean(at)
    assert metric(at, "q_comp · random vectors") < 0.6  # topics: distributions, much closer together
    assert at.session_state["scenario"]["tmodel"] == "STM" and at.session_state["scenario"]["teps"] == 10.0
    assert at.query_params["tmodel"] in ("STM", ["STM"])  # the tensor settings are part of the link


def test_tensor_settings_survive_a_page_switch_and_bad_settings_explain_themselves(app_test):
    at = app_test()
    at.switch_page(PAGE).run()
    at.number_input(key="w:tsites").set_value(3).run()
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()
    assert at.number_input(key="w:tsites").value == 3
    assert "S = 3 sites" in " ".join(c.value for c in at.caption)
    at.number_input(key="w:tK").set_value(12).run()  # K > D = 10
    assert not at.exception
    assert any("choose K ≤ D" in e.value.replace("\\", "") for e in at.error)
    at.button(key="tensor_preset:10x5").click().run()  # the paper preset restores a valid (D, K)
    assert_clean(at)
    assert at.session_state["scenario"]["tK"] == 5


def test_figures_draw_bands_baseline_and_escape_labels():
    frame = pd.DataFrame(
        {
            "mechanism": ["otd_cape_agn"] * 2 + ["random vectors"] * 2,
            "epsilon": [1.0, 10.0] * 2,
            "mean": [0.5, 0.1, 1.0, 1.0],
            "lo": [0.4, 0.05, 0.9, 0.9],
            "hi": [0.6, 0.2, 1.1, 1.1],
        }
    )
    fig = fig_tensor.qcomp_sweep(frame, "epsilon", "ε", labels={"otd_cape_agn": "<b>cape</b>"}, marker=1.0)
    names = [t.name for t in fig.data if t.name]
    assert names == ["&lt;b&gt;cape&lt;/b&gt;", "random vectors"]
    assert fig.data[3].line.dash == "dash" and fig.data[3].line.color == "#888"
    assert list(fig.layout.xaxis.ticktext) == ["1", "10"]  # the swept values, written out
    truth = np.eye(4)[:, :2]
    fig = fig_tensor.components_compare(truth, {"otd_agn": truth * 0.9}, labels={"otd_agn": "AGN"})
    assert isinstance(fig, go.Figure) and len(fig.data) == 2 and fig.data[0].zmin == 0
    fig = fig_tensor.weights_compare([0.4, 0.6], {"otd_agn": [0.5, 0.5]})
    assert [t.name for t in fig.data] == ["true", "otd_agn"]
    with pytest.raises(ValueError, match="shape"):
        fig_tensor.components_compare(truth, {"otd_agn": np.eye(3)})
    with pytest.raises(ValueError, match="no results"):
        fig_tensor.qcomp_sweep(frame.iloc[:0], "epsilon", "ε")


def test_the_shipped_default_sweeps_are_the_page_defaults_and_this_code_s_output():
    """The page serves docs/reproduce/tensor_default.json for its default settings: the file must hold the units
    the page asks for at those defaults, with the rows the current code computes (one unit recomputed)."""
    from dppca_core.tensor import experiments as ex
    from ui import scenario

    d = ex.PAGE_DEFAULTS
    fields = {
        "tmodel": d["kind"].upper(),
        "tD": d["D"],
        "tK": d["K"],
        "tsites": d["sites"],
        "tn": d["n_per_site"],
        "teps": d["epsilon"],
        "tdelta": d["delta"],
        "tsplit": d["split"],
        "treps": d["reps"],
        "tseed": d["seed"],
    }
    assert {k: scenario.FIELDS[k].default for k in fields} == fields
    shipped = ex.load_shipped(ROOT / "docs" / "reproduce" / "tensor_default.json")
    units = ex.sweep_units(d["n_per_site"], d["epsilon"], d["reps"])
    keys = [
        ex.unit_key(d["kind"], d["D"], d["K"], d["sites"], n, eps, d["delta"], d["split"], rep, d["seed"])
        for _, n, eps, rep in units
    ]
    assert set(keys) == set(shipped), "docs/reproduce/tensor_default.json is stale: re-run its command"
    _, n, eps, rep = units[-1]
    fresh = ex.repetition(
        ex.model_for(d["kind"], d["D"], d["K"]), d["sites"], n, eps, d["delta"], d["split"], rep, d["seed"]
    )
    old = shipped[keys[-1]]
    assert [(r["mechanism"], r["epsilon"], r["rep"]) for r in fresh] == [
        (r["mechanism"], r["epsilon"], r["rep"]) for r in old
    ]
    assert [r["q_comp"] for r in fresh] == pytest.approx([r["q_comp"] for r in old], rel=1e-9)


def test_a_first_visit_with_the_default_settings_computes_no_sweep(app_test, monkeypatch):
    import streamlit as st

    from dppca_core.tensor import experiments as ex

    def refuse(*args, **kwargs):
        raise AssertionError("the default sweeps should be read from the shipped file")

    st.cache_data.clear()
    monkeypatch.setattr(ex, "repetition", refuse)
    at = app_test()
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 4 and metric(at, "q_comp · random vectors") > 0.5
    at.number_input(key="w:tsites").set_value(3).run()  # other settings are computed (here: refused, an error box)
    assert at.error or at.exception


def test_a_warm_visit_draws_the_same_charts_and_presenter_mode_leaves_the_shared_ones_alone(app_test):
    """The Tensor page's figures are built once per server (ui.show.cached_chart); presenter mode styles a copy."""
    import json

    from ui import show

    def specs(**query):
        at = app_test(**query)
        at.switch_page(PAGE).run()
        assert_clean(at)
        return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]

    first = specs()
    presented = specs(present="true")
    assert all(s["layout"]["font"]["size"] == show.PRESENTER_FONT for s in presented)
    again = specs()
    assert again == first  # the same figures, not restyled by the presenter's visit
    assert all(s["layout"].get("font", {}).get("size") != show.PRESENTER_FONT for s in again)


def test_a_cached_chart_is_built_once_for_the_same_arguments():
    from ui import show

    built = []

    def bars(values, title="t"):
        built.append(values)
        return fig_tensor.weights_compare(values, {}, labels={})

    first = show._built("test.bars", ([0.2, 0.8],), {"title": "a"}, _build=bars)
    assert show._built("test.bars", ([0.2, 0.8],), {"title": "a"}, _build=bars)[0] is first[0]
    show._built("test.bars", ([0.3, 0.7],), {"title": "a"}, _build=bars)
    assert built == [[0.2, 0.8], [0.3, 0.7]]
    assert first[1].startswith("Weights") and list(first[2]["weight w_k"]) == [0.2, 0.8]  # its text alternative

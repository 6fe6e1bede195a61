"""'What if n doubles?' on one's own table (issue 35 item 3): a sweep of n subsamples the table, extrapolates past it
by the fitted rate (labelled, with its assumptions), and the planner answers on what was swept."""

import json

import numpy as np
import pytest

from dppca_core.pipeline import experiments
from tests.support.app import assert_clean
from tests.support.app import plotly_array
from ui import compute


def _traces(at) -> list:
    out = []
    for chart in at.get("plotly_chart"):
        out += json.loads(chart.proto.spec)["data"]
    return out


def _planner(at):
    frames = [t.value.reset_index() for t in at.table]
    return next(f for f in frames if any(str(c).startswith("smallest n") for c in f.columns))


def test_subsamples_are_seeded_nested_and_without_replacement():
    small, large = experiments.subsample_rows(1000, 100, 7), experiments.subsample_rows(1000, 400, 7)
    assert len(set(small)) == 100 and len(set(large)) == 400 and set(small) <= set(large)
    assert np.array_equal(small, experiments.subsample_rows(1000, 100, 7))
    assert not np.array_equal(small, experiments.subsample_rows(1000, 100, 8))
    with pytest.raises(ValueError, match="between 1 and the table's 1000 rows"):
        experiments.subsample_rows(1000, 1001, 0)
    assert compute.subsample_grid(344, 4) == [22, 43, 86, 172, 344]
    assert compute.subsample_grid(178, 13) == [22, 44, 89, 178]  # 11 rows would not exceed the 13 columns


def test_a_sweep_of_n_on_a_table_subsamples_and_extends_it_with_a_what_if(app_test):
    """It stopped with "needs the synthetic source", then carried a fitted rate to 2x and 4x the rows without a band
    (and drew nothing where the rate fit no 3 points). The preset (a table of 2,000 rows, not drawn anew) at ε = 4: the
    page measures the subsamples, then draws tables of 2x and 10x the rows from a Gaussian law fitted to the table,
    with their band, labelled as an extrapolation; the law's point at the table's own n is drawn beside the measured
    one; the planner answers past the rows from the what-if."""
    at = app_test(src="preset:spiked", sweep="n", sreps=4, eps=4, mechs="analyze_gauss", target=0.12)
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    table = next(df.value for df in at.dataframe if "2.5%" in df.value.columns)
    assert sorted(table["n"].unique()) == [125, 250, 500, 1000, 2000]
    traces = _traces(at)
    what_if = next(t for t in traces if t.get("name", "") == "extrapolated (what-if): Analyze Gauss")
    assert list(plotly_array(what_if["x"])) == [2000, 4000, 20000]
    band = next(t for t in traces if t.get("fill") == "toself" and 20000 in list(plotly_array(t["x"])))
    ys, band_y = plotly_array(what_if["y"]), plotly_array(band["y"])
    assert band_y.max() >= ys.max() and band_y.min() <= ys.min()  # the band around the what-if's means
    measured = table.sort_values("n")["mean"].to_numpy()
    assert ys[2] < ys[1] < ys[0]  # more rows, less error: never the wrong way
    assert ys[0] == pytest.approx(measured[-1], rel=0.5)  # the law at the table's own n, beside the measured point
    captions = " ".join(c.value for c in at.caption)
    assert "random subsets" in captions and "what-if, not a measurement" in captions
    assert "Gaussian law with your table's mean and covariance" in captions and "not private" in captions
    assert "Under add/remove" not in captions
    planner = _planner(at)
    column = next(c for c in planner.columns if str(c).startswith("smallest n"))
    assert "of your 2,000 rows" in column
    assert (table[table["n"] == 2000]["mean"] > 0.12).all()  # the target is not met on the table's own rows
    assert planner[column].iloc[0] in (
        "about 4,000 (what-if on a law fitted to your table, not measured)",
        "about 20,000 (what-if on a law fitted to your table, not measured)",
    )


def test_under_add_remove_the_rows_are_a_what_if_not_a_published_number(app_test):
    at = app_test(src="sample:wine", sweep="n", sreps=2, nb="add_remove", R=1700, mechs="analyze_gauss")
    at.switch_page("pages/tradeoffs.py").run()
    assert_clean(at)
    captions = " ".join(c.value for c in at.caption)
    assert (
        "Under add/remove the number of rows is private" in captions
        and "none of them is a number to publish" in captions
    )
    # wine at ε = 1 sits at a random subspace on every subsample: no rate fits, and the page says so; the what-if
    # past its 178 rows is drawn all the same (it simulates, it does not fit a rate)
    assert not any(t.get("name", "").startswith("rate:") for t in _traces(at))
    assert "so it is not drawn" in captions
    assert any(t.get("name", "").startswith("extrapolated (what-if)") for t in _traces(at))
    assert "(what-if)" in _planner(at).iloc[0, 1]


def test_the_planner_follows_the_sweep(app_test):
    """The planner kept its old message after the sweep of n failed; it now says what it reads."""
    at = app_test(sweep="d", sreps=2, mechs="analyze_gauss", src="sample:iris")  # d needs synthetic data: an error
    at.switch_page("pages/tradeoffs.py").run()
    assert any("needs the synthetic source" in e.value for e in at.error)
    assert any("no result yet" in i.value for i in at.info)
    at.selectbox(key="w:sweep").set_value("delta").run()
    assert_clean(at)
    assert any("the sweep above is of δ" in i.value for i in at.info)
    at.selectbox(key="w:sweep").set_value("n").run()
    assert_clean(at)
    assert "of your 150 rows" in " ".join(str(c) for c in _planner(at).columns)


def test_a_streamed_file_has_no_rows_to_subsample():
    from types import SimpleNamespace

    from ui.data import Dataset

    streamed = Dataset(X=None, name="big.csv", stats=SimpleNamespace(n=10_000, d=5))
    with pytest.raises(ValueError, match="keeps no rows to subsample"):
        compute.subsample_dataset(streamed, 100, 0)
    table = Dataset(X=np.arange(40.0).reshape(20, 2), name="t", labels=np.arange(20), key="k")
    half = compute.subsample_dataset(table, 10, 3)
    assert half.n == 10 and half.key != table.key and set(half.labels) <= set(range(20))
    assert np.array_equal(half.X[:, 0] / 2, half.labels)  # rows and labels drawn together
    assert compute.subsample_dataset(table, 20, 3) is table

"""Text alternatives of figures: the summary names what is drawn, the table holds the drawn numbers."""

import numpy as np
import plotly.graph_objects as go

from dppca_core import figures
from dppca_core.figures.alt import figure_summary, figure_table, plain


def test_lines_give_one_row_per_point_under_the_axis_titles():
    fig = go.Figure(
        [go.Scatter(x=[0.1, 1, 10], y=[0.9, 0.5, 0.1], name="A"), go.Scatter(x=[0.1, 1], y=[1, 0.8], name="B")]
    )
    fig.update_layout(title="Error <b>against</b> ε", xaxis_title="ε", yaxis_title="distance")
    table = figure_table(fig)
    assert list(table.columns) == ["series", "ε", "distance"]
    assert table["series"].tolist() == ["A"] * 3 + ["B"] * 2
    assert table["distance"].tolist() == [0.9, 0.5, 0.1, 1, 0.8]
    text = figure_summary(fig)
    assert text.startswith("Error against ε: 2 series (A, B)") and "distance 0.1 to 1" in text and "ε 0.1 to 10" in text


def test_heat_maps_give_one_row_per_cell_and_tables_are_capped():
    z = np.arange(6).reshape(2, 3)
    fig = go.Figure(go.Heatmap(z=z, x=["a", "b", "c"], y=["r1", "r2"], name="counts"))
    table = figure_table(fig)
    assert len(table) == 6 and table.loc[5, "value"] == 5 and table.loc[5, "x"] == "c" and table.loc[5, "y"] == "r2"
    assert "values 0 to 5" in figure_summary(fig)
    assert len(figure_table(go.Figure(go.Heatmap(z=np.zeros((50, 50)))), max_rows=100)) == 100


def test_a_library_figure_and_an_empty_one():
    fig = figures.scree(np.array([5.0, 2.0, 1.0, 0.5]), 2)
    table = figure_table(fig)
    assert "series" not in table.columns  # its bars name no series: no first column reading "bar" (issue 57)
    assert table.iloc[:, 1].tolist() == [100 * v / 8.5 for v in (5, 2, 1, 0.5)]
    assert figure_summary(go.Figure()) == "Chart: no data."
    assert plain("a<br>b &amp; <i>c</i>") == "a b & c"

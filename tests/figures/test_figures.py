import numpy as np
import plotly.graph_objects as go
import pytest

import dppca_core as dc
from dppca_core import figures
from dppca_core.audit.curve import tradeoff_curve
from dppca_core.figures.tradeoff_curve import tradeoff_curve_figure
from dppca_core.privacy import PrivacyCurve, gaussian_mu


def test_one_colour_and_mark_per_mechanism():
    for task in ("pca", "tensor"):  # a family's colour and a member's marker tell every mechanism of a task apart
        names = dc.mechanism_names(task)
        assert len({(figures.mechanism_color(n), figures.mechanism_symbol(n)) for n in names}) == len(names)
    assert figures.mechanism_color("analyze_gauss") == figures.mechanism_color("analyze_gauss")
    with pytest.raises(ValueError):
        figures.mechanism_color("nope")


def test_audit_figures():
    rng = np.random.default_rng(0)
    fig = figures.audit_histograms(rng.normal(size=50), rng.normal(1, 1, 50), threshold=0.5)
    assert isinstance(fig, go.Figure) and len(fig.data) == 2
    claim = PrivacyCurve.gdp(gaussian_mu(1.0, 1e-5))
    curve = tradeoff_curve(rng.normal(size=400), rng.normal(0.3, 1, 400), claim, 1e-5)
    fig = tradeoff_curve_figure(curve, point=(0.3, 0.6), measured_mu=0.2)
    floor = fig.data[0].y
    # the claim's trade-off function: 1 at alpha = 0, 0 at alpha = 1, never above random guessing
    assert floor[0] == pytest.approx(1) and floor[-1] == pytest.approx(0)
    assert np.all(floor <= 1 - fig.data[0].x + 1e-12)
    reading = next(t for t in fig.data if t.name.startswith("the audit's reading"))
    assert "0.2-GDP" in reading.name
    assert np.allclose(reading.y, PrivacyCurve.gdp(0.2).false_negative_floor(reading.x))
    assert not any(t.name.startswith("the audit's reading") for t in tradeoff_curve_figure(curve).data)
    assert [t.name for t in fig.data][-1].startswith("the audit's chosen threshold")
    with pytest.raises(ValueError):
        figures.audit_histograms([], [1.0])


def test_other_figures():
    fig = figures.convergence_traces({"eps=1": [1.4, 0.8, 0.5], "eps=5": [1.4, 0.3, 0.1]}, random_level=1.2)
    assert len(fig.data) == 2
    heat = figures.support_heatmap({"ldp_sparse": [1, 2]}, [1, 3], d=5)
    assert heat.data[0].z.shape == (2, 5) and heat.data[0].z[0, 3] == 1 and heat.data[0].z[1, 2] == 1
    bar = figures.communication_bar({"cape_pca": 10, "dist_conventional": 5})
    assert list(bar.data[0].y) == [10, 5]
    with pytest.raises(ValueError):
        figures.convergence_traces({})


@pytest.mark.parametrize("subplots", [False, True])
def test_layout_sends_the_browser_what_validating_the_template_sent(subplots):
    import plotly.io as pio
    from plotly.subplots import make_subplots

    def draw():
        fig = make_subplots(rows=1, cols=2) if subplots else go.Figure()
        fig.add_trace(go.Scatter(x=[1, 2, 3], y=[3, 1, 2], name="a <b>"))
        fig.add_trace(go.Bar(x=["p", "q"], y=[1, 2]), **({"row": 1, "col": 2} if subplots else {}))
        return fig

    new = figures.layout(draw(), "title", "x axis", "y axis", height=300)
    # the template set as before (validated by plotly: it replaces the one layout() set, in the same place)
    old = figures.layout(draw(), "title", "x axis", "y axis", height=300).update_layout(template="plotly_white")
    # byte for byte the JSON st.plotly_chart sends (keys in the same order), and the same figure to plotly
    assert pio.to_json(new, validate=False) == pio.to_json(old, validate=False)
    assert new.to_dict() == old.to_dict()
    assert new.layout.template.layout.paper_bgcolor == "white"


def test_figures_do_not_share_their_template():
    one = figures.layout(go.Figure(), "one")
    two = figures.layout(go.Figure(), "two")
    one.update_layout(template_layout_font_size=30)  # e.g. a caller restyling one figure's template
    assert two.layout.template.layout.font.size is None
    assert figures.layout(go.Figure(), "three").layout.template.layout.font.size is None

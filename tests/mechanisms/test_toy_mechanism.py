"""Adding a mechanism is one module: a toy mechanism registered from a temporary module (nothing else edited) is
picked up by the app's widgets, the audit, the rates and the figures, through what it declares in its registry
entry (display name, audit description, rate) and the colour of its family (a family of its own: its module's). It
is unregistered afterwards, so no test sees it."""

import dataclasses
import importlib.util
import sys

import pandas as pd
import pytest

import dppca_core as dc
from dppca_core import figures, registry, theory
from dppca_core.audit import audit, describe_statistic

from tests.support.app import assert_clean

NAME = "toy_gauss"
SHORT = "Toy Gauss"
READING = "the toy's own reading of a Gram entry"
FORMULA = "toy: sigma(eps, delta) sqrt(k(d-k)) / (n gap)"

SOURCE = f'''"""A toy mechanism in a module of its own: Analyze Gauss's noise under another name."""
import numpy as np

from dppca_core.linalg import symmetric_gaussian, top_eigenvectors
from dppca_core.mechanisms.rates import Rate, privacy_regimes
from dppca_core.privacy import PrivacyCurve, gaussian_sigma, sensitivity
from dppca_core.registry import Output, mechanism

TOY_RATE = Rate({FORMULA!r}, terms=lambda p: (p.gram_sigma * p.spread / p.n, p.statistical),
                regimes=privacy_regimes(why_n="toy", why_eps="toy"))


@mechanism(name={NAME!r}, short_name={SHORT!r}, title="Toy Gauss mechanism (tests only)",
           paper="none", model="central", guarantee="approximate", releases_eigenvalues=True,
           audit_statistic="gram_entry", audit_descriptions={{"gram_entry": {READING!r}}}, rate=TOY_RATE,
           notes="Symmetric Gaussian noise on X^T X, the top-k eigenvectors released.")
def toy_gauss(data, k, epsilon, delta, neighbors, rng):
    delta_2 = sensitivity("gram_upper", neighbors)
    sigma = gaussian_sigma(delta_2, epsilon, delta)
    values, vectors = top_eigenvectors(data.gram + symmetric_gaussian(data.d, sigma, rng), k)
    return Output(vectors, noise_scale=sigma, eigenvalues=values, privacy=PrivacyCurve.gdp(delta_2 / sigma))
'''


@pytest.fixture
def toy(tmp_path):
    """The toy module written to tmp_path and imported (which registers it); unregistered and forgotten after."""
    path = tmp_path / "toy_mechanism.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("toy_mechanism", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
        if NAME in dc.mechanism_names():
            registry.unregister(NAME)


def test_the_toy_is_registered_with_what_it_declares(toy):
    spec = dc.get_mechanism(NAME)
    assert NAME in dc.mechanism_names("pca") and spec.display_name == SHORT
    with pytest.raises(ValueError, match="already registered"):  # a name is one mechanism's
        registry.register(dataclasses.replace(spec, name=NAME))


def test_the_rates_read_the_toys_declaration(toy):
    assert theory.formulas()[NAME] == FORMULA
    assert {(NAME, "n"), (NAME, "eps")} <= set(theory.regimes())
    by_n = theory.rate(NAME, "n", [1000, 4000], n=1000, d=10, k=2, epsilon=1.0, delta=1e-6)
    assert by_n[0] / by_n[1] == pytest.approx(4.0)  # the declared privacy term falls like 1/n
    assert theory.predicted_slope(NAME, "n") == pytest.approx(-1.0)
    assert theory.first_order_rms(NAME, [3.0, 2.0, 1.0], n=100, k=1, epsilon=1.0, delta=1e-6) is None


def test_the_figures_draw_the_toy_in_its_colour_and_name(toy):
    colour = figures.mechanism_color(NAME)  # its family's: the first the PCA families leave
    assert colour not in {figures.mechanism_color(m) for m in dc.mechanism_names("pca") if m != NAME}
    frame = pd.DataFrame(
        [
            {"mechanism": m, "eps": e, "mean": 0.5, "lo": 0.4, "hi": 0.6}
            for m in (NAME, "analyze_gauss")
            for e in (0.1, 1.0)
        ]
    )
    fig = figures.sweep(frame, "eps", "mean", "distance")
    toy_traces = [t for t in fig.data if t.name == SHORT]
    assert toy_traces and all(
        colour in str(t.line.color or t.marker.color or t.fillcolor)
        for t in toy_traces
        if t.line.color or t.marker.color
    )
    # the others keep theirs: the families registered before the toy, in order, take the palette's first colours
    before = list(dict.fromkeys(dc.get_mechanism(m).family_name for m in dc.mechanism_names("pca") if m != NAME))
    gauss = before.index(dc.get_mechanism("analyze_gauss").family_name)
    assert figures.mechanism_color("analyze_gauss") == figures.PALETTE[gauss]
    assert NAME not in str(fig.to_plotly_json()["data"])  # named by its display name, never its id


def test_the_audit_runs_the_toy_and_reads_its_description(toy):
    result = audit(NAME, 1.0, 1e-6, trials=500, seed=0)
    assert result.mechanism == NAME and result.statistic == "gram_entry" and not result.violated
    assert describe_statistic(dc.get_mechanism(NAME), result.statistic) == READING
    assert describe_statistic(dc.get_mechanism("analyze_gauss"), "gram_entry") != READING  # the generic words


def test_the_app_offers_and_runs_the_toy(toy, app_test):
    at = app_test(mechs=f"analyze_gauss,{NAME}", k=1, reps=2)
    at.run()
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    picker = next(w for w in at.multiselect if w.label == "Mechanisms")
    assert SHORT in picker.options and NAME in picker.value
    assert any(SHORT in m.label for m in at.metric) or any(SHORT in str(el.value) for el in at.markdown)
    at.switch_page("pages/audit.py").run()
    assert_clean(at)
    assert any(SHORT in option for option in at.selectbox(key="w:amech").options)
    at.selectbox(key="w:amech").set_value(NAME)
    at.select_slider(key="w:atrials").set_value(500)
    at.button(key="run_audit").click().run()
    assert_clean(at)
    assert any("no violation" in s.value for s in at.success)
    assert any(READING in c.value for c in at.caption)


def test_nothing_of_the_toy_is_left_after_a_test():
    assert NAME not in dc.mechanism_names() and "toy_mechanism" not in sys.modules
    assert all(dc.get_mechanism(m).family_name != "toy_mechanism (central)" for m in dc.mechanism_names())

"""The private score plot in the app (issue 27): by group from the label column, on a fixed or private frame,
additive or sparse, from the sidebar's budget split; panels per group beside the exact ones; one line reading it."""
import base64
import json
import math

import numpy as np
import plotly.io as pio
import pytest

from dppca_core.privacy import gaussian_mu
from tests.test_app_pages import assert_clean
from tests.test_exports import downloads  # noqa: F401 - fixture
from ui import report, scenario

WINE = {"src": "sample:wine", "R": "2000.0", "mechs": "analyze_gauss", "reps": "2", "eps": "5.0", "view": "scores",
        "bscores": "0.1"}


def _score_figure(at):
    figs = [pio.from_json(c.proto.spec) for c in at.get("plotly_chart")]
    (fig,) = [f for f in figs if f.layout.title.text.startswith("Score plot")]
    return fig


def test_explore_draws_one_private_panel_per_cultivar_beside_the_exact_ones(app_test):
    at = app_test(**WINE, sgroup="true", sframe="private")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    fig = _score_figure(at)
    titles = [a.text for a in fig.layout.annotations]
    groups = ["class_0", "class_1", "class_2"]
    assert titles == [f"exact: {g}" for g in groups] + [f"Analyze Gauss: {g}" for g in groups]
    # a private frame fits the scores: the axes are narrower than the fixed [-1, 1]
    x_range = fig.layout.xaxis4.range
    assert -1 < x_range[0] < x_range[1] < 1
    reading = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Score plot from")]
    assert len(reading) == 1 and "groups released privately: class_0, class_1, class_2" in reading[0]
    assert "frame 5%" in reading[0] and "groups 5%" in reading[0] and "scores 10%" in reading[0]


def _array(value) -> np.ndarray:
    """A plotly array from a figure's JSON: a list, or a typed array {"dtype", "bdata"[, "shape"]}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return flat.reshape([int(x) for x in str(shape).split(",")]) if shape else flat
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], dict):
        return np.stack([_array(v) for v in value])
    return np.asarray(value, dtype=float)


def test_the_groups_counts_add_up_to_the_exact_group_sizes_within_the_noise(app_test):
    """Each private panel is its group's counts plus rounded Gaussian noise, shown clipped at 0, on the fixed frame
    (which holds every row). So |shown total - group size| <= sum of |noise|: mean cells * sigma * sqrt(2/pi),
    s.d. below sigma * sqrt(cells); sigma = sqrt(2) / mu_scores (one row moves two cells by one), mu_scores =
    sqrt(0.3) mu*(eps, delta less the stability reserve). The bound: the mean plus 6 s.d. (at eps = 100, where
    it is tighter than a group's size)"""
    at = app_test(**{**WINE, "eps": "100.0", "bscores": "0.3"}, sgroup="true")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    fig = _score_figure(at)
    z = {a.text: _array(t.z) for a, t in zip(fig.layout.annotations, fig.data)}
    sigma = math.sqrt(2.0) / (math.sqrt(0.3) * gaussian_mu(100.0, 0.9e-6))
    for group, size in zip(("class_0", "class_1", "class_2"), (59, 71, 48)):  # the wine sample's cultivars
        exact, noisy = z[f"exact: {group}"], z[f"Analyze Gauss: {group}"]
        assert exact.sum() == size
        cells = exact.size
        bound = cells * sigma * math.sqrt(2 / math.pi) + 6 * sigma * math.sqrt(cells)
        assert abs(noisy.sum() - size) <= bound, (group, noisy.sum(), size, bound)
        assert bound < size  # the check says something: the noise is below the group's size


def test_the_plot_by_group_without_labels_says_what_to_do(app_test):
    at = app_test(mechs="analyze_gauss", reps="2", view="scores", bscores="0.1", sgroup="true")
    at.switch_page("pages/explore.py").run()
    assert not at.exception
    assert any("needs a label column" in e.value for e in at.error)


def test_sparse_kind_releases_zero_in_empty_cells(app_test):
    at = app_test(**WINE, skind="sparse")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    fig = _score_figure(at)
    private = [t for a, t in zip(fig.layout.annotations, fig.data) if a.text.endswith("(private)")]
    assert private and (_array(private[0].z) == 0).sum() > 0


def test_the_script_and_the_publishable_release_carry_the_score_options():
    vals = {**scenario.DEFAULTS, "src": "sample:wine", "bscores": 0.1, "sgroup": True, "sframe": "private", "eps": 5.0}
    script = report.build_script(vals)
    assert "'score_groups': labels" in script and "'score_frame': 'private'" in script
    import dppca_core as dc

    table = dc.datasets.load_sample("wine")
    out = report.publishable_releases(dc.prepare(table.X, 2000.0), ["analyze_gauss"], vals, "none", table.labels)
    scores = out["analyze_gauss"]["outputs"]["scores"]
    # fresh randomness: which cultivars pass the stability threshold at this epsilon varies from draw to draw
    assert scores["groups"] and set(scores["groups"]) <= {"class_0", "class_1", "class_2"} and scores["frame"]
    assert json.dumps(out)  # plain JSON
    with pytest.raises(ValueError, match="label column"):
        scenario.score_options(vals, None)


def test_the_reports_record_embeds_the_score_plot_of_the_apps_own_data_only(app_test, downloads):
    """The record of data the app did not make (the wine sample) leaves out the seeded runs' private score plot:
    whoever holds the seed in its link regenerates the noise (issue 34 item 5, docs/privacy.md). The record of the
    app's own synthetic data embeds it with its reading."""
    from tests.test_exports import offered

    at = app_test(**WINE, sgroup="true")
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    assert "Score plot: rows projected" not in doc and "groups released privately" not in doc
    assert "Exploration record" in doc
    at = app_test(**SYNTHETIC_SCORES)
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    doc = offered(at, downloads)["HTML report (offline)"].decode()
    assert "Score plot: rows projected on the first two components" in doc and "noise on every cell" in doc


#: the app's own synthetic data with a score plot (its record may show the seeded runs' numbers)
SYNTHETIC_SCORES = {"mechs": "analyze_gauss", "reps": "2", "eps": "5.0", "bscores": "0.1"}


def test_the_slide_deck_has_the_score_plot_and_the_budget_bar(app_test, downloads):
    """The Report's deck takes its figures by name, not by position: a budget split and a score plot add one slide
    each to the plain Report's deck, and the risk slide keeps the posterior (it was the tradeoff figure when the
    budget bar shifted the positions)."""
    from tests.test_exports import offered

    def deck(**query):
        at = app_test(**query)
        at.switch_page("pages/report.py").run()
        assert_clean(at)
        return offered(at, downloads)["Download slides"].decode()

    plain = deck(**{**SYNTHETIC_SCORES, "bscores": "0"})
    full = deck(**SYNTHETIC_SCORES)
    # a slide per figure (a long table may continue on a second slide: count the figures' slides)
    assert full.count("<div class='figure'>") == plain.count("<div class='figure'>") + 2
    assert "Score plot: rows projected" in full and "How one release" in full
    assert "Score plot: rows projected" not in plain and "How one release" not in plain
    risk_slide = full.split("What the guarantee means", 1)[-1].split("<section", 1)[0]
    assert "osterior" in risk_slide

"""The private score plot in the app (issue 27): by group from the label column, on a fixed or private frame,
additive or sparse, from the sidebar's budget split; panels per group beside the exact ones; one line reading it."""

import json
import math

import plotly.io as pio

from dppca_core.privacy import gaussian_mu
from tests.support.app import assert_clean, plotly_array
from ui import release_file, scenario, script_export


WINE = {
    "src": "sample:wine",
    "R": "2000.0",
    "mechs": "analyze_gauss",
    "reps": "2",
    "eps": "5.0",
    "view": "scores",
    "bscores": "0.1",
}


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
    z = {a.text: plotly_array(t.z) for a, t in zip(fig.layout.annotations, fig.data)}
    sigma = math.sqrt(2.0) / (math.sqrt(0.3) * gaussian_mu(100.0, 0.9e-6))
    for group, size in zip(("class_0", "class_1", "class_2"), (59, 71, 48)):  # the wine sample's cultivars
        exact, noisy = z[f"exact: {group}"], z[f"Analyze Gauss: {group}"]
        assert exact.sum() == size
        cells = exact.size
        bound = cells * sigma * math.sqrt(2 / math.pi) + 6 * sigma * math.sqrt(cells)
        assert abs(noisy.sum() - size) <= bound, (group, noisy.sum(), size, bound)
        assert bound < size  # the check says something: the noise is below the group's size


def _blocks(at) -> list:
    """The mechanisms whose results Explore shows (their block's heading)."""
    return [m.value for m in at.markdown if m.value.startswith("#### ")]


def _infos(at) -> list:
    return [i.value.replace("\\", "") for i in at.info]


def test_the_plot_by_group_without_labels_says_why_and_keeps_the_results(app_test):
    """Issue 35: a score-plot option never replaces a mechanism's results with an error box."""
    at = app_test(mechs="analyze_gauss,private_power", reps="2", view="scores", bscores="0.1", sgroup="true")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert _blocks(at) == ["#### Analyze Gauss", "#### Private power method"]
    lines = [i for i in _infos(at) if "label column" in i]
    assert len(lines) == 1 and "Drawn without groups" in lines[0]
    titles = [a.text.replace("<br>", " ") for a in _score_figure(at).layout.annotations]  # long ones wrap
    assert titles == ["exact (not private)", "Analyze Gauss (private)", "Private power method (private)"]


def test_groups_found_privately_at_epsilon_1_leave_every_result_in_place_and_say_why(app_test):
    """At epsilon = 1 no cultivar of the wine sample passes the groups' threshold: every mechanism's results stay,
    and one line each says why and what to do (declare the groups public, or raise epsilon)."""
    at = app_test(**{**WINE, "eps": "1.0", "mechs": "analyze_gauss,private_power"}, sgroup="true")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert _blocks(at) == ["#### Analyze Gauss", "#### Private power method"]
    lines = [i for i in _infos(at) if "no group passed the privacy threshold" in i]
    assert lines and all("Declare the groups public" in line and "rows at this budget" in line for line in lines)
    assert "declare score_group_labels" not in " ".join(_infos(at))
    assert at.button(key="score_declare_groups").label == "Declare these 3 groups public"


def test_one_click_declares_the_label_columns_values_public_and_the_release_states_them(app_test):
    """The analyst's own schema, one click: every cultivar gets its panels, the groups share goes to the
    components, each release states the groups in its public settings, the link keeps them, and the sidebar offers
    the way back to groups found privately."""
    at = app_test(**{**WINE, "eps": "1.0"}, sgroup="true")
    at.switch_page("pages/explore.py").run()
    at.button(key="score_declare_groups").click().run()
    assert_clean(at)
    groups = ["class_0", "class_1", "class_2"]
    assert scenario.declared_groups(at.session_state["scenario"]) == groups
    link = at.query_params["slabels"]
    assert json.loads(link if isinstance(link, str) else link[0]) == groups
    titles = [a.text for a in _score_figure(at).layout.annotations]
    assert titles == [f"exact: {g}" for g in groups] + [f"Analyze Gauss: {g}" for g in groups]
    reading = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Score plot from")]
    assert "groups declared public: class_0, class_1, class_2" in reading[0] and "groups 5%" not in reading[0]
    assert any(c.value.replace("\\", "").startswith("Groups declared public (3)") for c in at.sidebar.caption)
    at.sidebar.button(key="score_groups_private").click().run()
    assert scenario.declared_groups(at.session_state["scenario"]) == []
    vals = {
        **scenario.DEFAULTS,
        "src": "sample:wine",
        "R": 2000.0,
        "bscores": 0.1,
        "sgroup": True,
        "slabels": json.dumps(groups),
    }
    import dppca_core as dc

    table = dc.data.datasets.load_sample("wine")
    out = release_file.publishable_releases(dc.prepare(table.X, 2000.0), ["analyze_gauss"], vals, table.labels)
    assert out["analyze_gauss"]["parameters"]["score_group_labels"] == groups
    assert out["analyze_gauss"]["parameters"]["score_groups"] == "declared (public)"
    assert (
        "groups" not in out["analyze_gauss"]["parameters"]["budget"]
        or out["analyze_gauss"]["parameters"]["budget"]["groups"] == 0.0
    )


def test_a_small_budget_says_which_share_or_epsilon_would_make_the_plot_readable(app_test):
    """At epsilon = 1 the noise per cell (about 19 rows) swamps a cultivar of about 50 rows over a quarter of 36
    cells; the line names an epsilon above the current one (and no share up to 30% suffices)."""
    at = app_test(
        **{**WINE, "eps": "1.0"}, sgroup="true", slabels=json.dumps(["class_0", "class_1", "class_2"]), sframe="public"
    )
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    (line,) = [i for i in _infos(at) if "would make the plot readable" in i]
    assert line.startswith("Analyze Gauss: the noise") and "no scores share up to 30%" in line
    eps = float(line.split("ε ≈ ")[1].split(" ")[0])
    assert eps > 1.0
    assert "Fitting the frame to the data" in line  # the fixed frame [-1, 1]^2: fitting it helps too
    at5 = app_test(**{**WINE, "eps": "100.0"}, sgroup="true", slabels=json.dumps(["class_0", "class_1", "class_2"]))
    at5.switch_page("pages/explore.py").run()
    assert not [i for i in _infos(at5) if "would make the plot readable" in i]


def test_a_pure_release_keeps_its_results_and_says_what_its_plot_cannot_hold(app_test):
    """PPCA (pure epsilon-DP) has no delta for the sparse threshold nor for groups found privately: its plot is
    drawn additive and without groups, one line each says so, and its results stay."""
    at = app_test(**{**WINE, "mechs": "analyze_gauss,ppca_exponential"}, sgroup="true", skind="sparse")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    assert _blocks(at) == ["#### Analyze Gauss", "#### PPCA"]
    infos = _infos(at)
    assert any(i.startswith("PPCA: a pure ε-DP release has no δ for the sparse") for i in infos)
    assert any(i.startswith("PPCA: a pure ε-DP release has no δ to find the groups") for i in infos)


def test_one_and_two_component_panels_are_never_mixed_in_one_figure(app_test):
    """k chosen privately: Private Oja keeps one component (1-D panels), Analyze Gauss may keep two. Each figure
    holds one kind: its title says which, and only a 2-D figure labels an axis "component 2"."""
    at = app_test(**{**WINE, "mechs": "analyze_gauss,private_oja", "eps": "50.0"}, kfrom="private", beig="0.1")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    figs = [pio.from_json(c.proto.spec) for c in at.get("plotly_chart")]
    plots = [f for f in figs if f.layout.title.text.startswith("Score plot")]
    assert plots
    for fig in plots:
        bars = {t.type for t in fig.data}
        assert len(bars) == 1
        one_d = bars == {"bar"}
        assert ("first component" in fig.layout.title.text) == one_d
        assert fig.layout.yaxis.title.text == ("rows" if one_d else "component 2")
    one_d = [f for f in plots if "first component" in f.layout.title.text]
    assert one_d and any("Private Oja" in a.text for a in one_d[0].layout.annotations)


def test_sparse_kind_releases_zero_in_empty_cells(app_test):
    at = app_test(**WINE, skind="sparse")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    fig = _score_figure(at)
    private = [t for a, t in zip(fig.layout.annotations, fig.data) if a.text.endswith("(private)")]
    assert private and (plotly_array(private[0].z) == 0).sum() > 0


def test_the_script_and_the_publishable_release_carry_the_score_options():
    vals = {
        **scenario.DEFAULTS,
        "src": "sample:wine",
        "R": 2000.0,
        "bscores": 0.1,
        "sgroup": True,
        "sframe": "private",
        "eps": 5.0,
    }
    script = script_export.build_script(vals, has_labels=True)
    assert "score_groups=labels" in script and "score_frame='private'" in script
    import dppca_core as dc

    table = dc.data.datasets.load_sample("wine")
    out = release_file.publishable_releases(dc.prepare(table.X, 2000.0), ["analyze_gauss"], vals, table.labels)
    scores = out["analyze_gauss"]["outputs"]["scores"]
    # fresh randomness: which cultivars pass the stability threshold at this epsilon varies from draw to draw
    assert scores["groups"] and set(scores["groups"]) <= {"class_0", "class_1", "class_2"} and scores["frame"]
    assert json.dumps(out)  # plain JSON
    assert "score_groups" not in scenario.score_options(vals, None)  # no label column: drawn without groups


def test_the_reports_record_embeds_the_score_plot_of_the_apps_own_data_only(app_test, downloads):
    """The record of data the app did not make (the wine sample) leaves out the seeded runs' private score plot:
    whoever holds the seed in its link regenerates the noise (issue 34 item 5, docs/privacy.md). The record of the
    app's own synthetic data embeds it with its reading."""
    from tests.support.downloads import offered

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
    from tests.support.downloads import offered

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


def test_declared_groups_from_a_link_are_checked():
    """The declared groups arrive through the link: anything but a short list of distinct names falls back to groups
    found privately, with a notice."""
    good, notices = scenario.from_query({"slabels": json.dumps(["a", "b"])})
    assert scenario.declared_groups(good) == ["a", "b"] and not notices
    for bad in (
        "[",
        "{}",
        "[1, 2]",
        json.dumps(["a", "a"]),
        json.dumps([str(i) for i in range(31)]),
        json.dumps([""]),
        "x" * 3000,
    ):
        vals, notices = scenario.from_query({"slabels": bad})
        assert scenario.declared_groups(vals) == [] and len(notices) == 1, bad
    vals = {**scenario.DEFAULTS, "bscores": 0.1, "sgroup": True, "slabels": json.dumps(["a", "b"])}
    assert scenario.budget(vals, "analyze_gauss", True).groups == 0.0  # declared: no share to find them
    assert scenario.budget({**vals, "slabels": ""}, "analyze_gauss", True).groups > 0
    assert scenario.budget({**vals, "slabels": ""}, "analyze_gauss", False).groups == 0.0  # no label column
    assert scenario.budget({**vals, "slabels": ""}, "ppca_exponential", True).groups == 0.0  # pure: cannot find


def test_publishable_releases_adapt_the_score_plot_per_mechanism_like_explore():
    """A pure epsilon-DP mechanism with a sparse score plot found by group privately: Explore draws it additive and
    without groups (ui.scenario.score_plan); the publishable path must use the same per-mechanism options, not refuse
    the release (it raised 'a sparse score plot and privately found groups need a delta' with the scenario-wide
    split and options)."""
    import dppca_core as dc

    vals = {
        **scenario.DEFAULTS,
        "src": "sample:wine",
        "R": 2000.0,
        "bscores": 0.1,
        "sgroup": True,
        "skind": "sparse",
        "eps": 2.0,
    }
    table = dc.data.datasets.load_sample("wine")
    out = release_file.publishable_releases(
        dc.prepare(table.X, 2000.0), ["ppca_exponential", "analyze_gauss"], vals, table.labels
    )
    assert out["ppca_exponential"]["parameters"]["score_kind"] == "additive"
    assert "score_group_labels" not in out["ppca_exponential"]["parameters"]
    assert out["analyze_gauss"]["parameters"]["score_kind"] == "sparse"


def test_panel_titles_wrap_and_a_retracted_mechanism_is_not_called_private(app_test):
    """Issue 57: "MOD-SuLQ (private)" was drawn over "Wishart symmetric noise ⚠ retracted: not p…", and the retracted
    mechanism's panel read "retracted: not private (private)". Every title fits its share of the width (wrapped at
    spaces), and a mechanism without a guarantee is not called private."""
    from dppca_core.figures.release import PANELS_WIDTH_CHARS

    at = app_test(**{**WINE, "mechs": "analyze_gauss,wishart_sn,mod_sulq"})
    at.switch_page("pages/explore.py").run()
    assert not at.exception and all("privacy claim is false" in e.value for e in at.error)  # the retraction's box
    titles = [a.text for a in _score_figure(at).layout.annotations]
    assert len(titles) == 4
    width = PANELS_WIDTH_CHARS // len(titles)
    assert all(len(line) <= width for t in titles for line in t.split("<br>")), titles
    flat = [t.replace("<br>", " ") for t in titles]
    assert "MOD-SuLQ (private)" in flat and "Wishart symmetric noise ⚠ retracted: not private" in flat, flat
    assert not any("not private (private)" in t for t in flat)


def test_the_score_frame_is_fitted_by_default(app_test):
    """The fixed [−1, 1]² frame put every row of a real table in a few cells: the plot is fitted by default (its
    frame share, within the rules of docs/score-plots.md), and the fixed frame stays one click away."""
    at = app_test(**WINE)
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    reading = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Score plot from")]
    assert reading and "frame fitted to private quantiles" in reading[0] and "frame 5%" in reading[0], reading
    assert at.radio(key="w:sframe").value == "private" and at.radio(key="w:sframe").options[0].startswith("fitted")

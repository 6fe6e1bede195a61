"""One translation from a scenario to its releases (dppca_core.scenario.release), and the exports that use it agree
with the page: a mechanism the page runs is never "not run" in the Report's script or exploration notebook."""

import contextlib
import io
import json

import numpy as np
import pytest

from dppca_core.pipeline import experiments
from dppca_core.scenario import DEFAULTS
from dppca_core.scenario import release as translation
from ui import compute, data, notebooks, report, script_export

LABELS = np.array(["a", "b"] * 50)


def test_each_mechanism_gets_its_own_options_with_the_radius_and_the_scaling_inside():
    vals = {
        **DEFAULTS,
        "mechs": "analyze_gauss,ppca_exponential",
        "bscores": 0.1,
        "sgroup": True,
        "skind": "sparse",
        "rfrom": "private",
        "rlo": 0.5,
        "rhi": 50.0,
        "rq": 0.8,
        "scale": "private",
        "bounds": "2,3,4",
        "kfrom": "private",
        "beig": 0.1,
        "kvar": 0.7,
    }
    options = translation.scenario_options(vals, LABELS, d=3)
    gauss, pure = options["analyze_gauss"], options["ppca_exponential"]
    assert gauss.data_norm == "private" and gauss.radius_bounds == (0.5, 50.0) and gauss.radius_quantile == 0.8
    assert gauss.scale == "private" and gauss.column_bounds == (2.0, 3.0, 4.0)
    assert gauss.k == "auto" and gauss.variance_target == 0.7
    assert gauss.score_kind == "sparse" and gauss.score_groups is LABELS and gauss.budget.groups > 0
    # a pure release has no delta for a threshold or for finding the groups: additive, no groups, no groups share
    assert pure.score_kind == "additive" and pure.score_groups is None and pure.budget.groups == 0.0
    # the rules each release's input is prepared with are read from the options
    assert experiments.RadiusRule.of(gauss) == experiments.RadiusRule((0.5, 50.0), 0.8)
    assert experiments.ScaleRule.of(gauss) == experiments.ScaleRule((2, 3, 4))


def test_without_a_label_column_no_release_asks_for_groups():
    vals = {**DEFAULTS, "bscores": 0.1, "sgroup": True}
    for options in translation.scenario_options(vals, None).values():
        assert options.score_groups is None and options.budget.groups == 0.0


@pytest.mark.parametrize(
    "change, words",
    [
        ({"scale": "private", "bounds": "1,2"}, "a public bound per column: 3 for these data"),
        ({"scale": "bounds", "bounds": "1,2"}, "one bound per column: 3 for these data"),
        ({"rfrom": "private", "rlo": 5.0, "rhi": 1.0}, "the bounds on R must be a smaller and a larger number"),
        ({"kfrom": "private", "beig": 0.0}, "eigenvalue share of the budget"),
        ({"center": "private", "bmean": 0.0}, "positive mean share"),
    ],
)
def test_a_scenario_that_cannot_be_released_is_refused_in_words(change, words):
    with pytest.raises(ValueError, match=words):
        translation.scenario_options({**DEFAULTS, **change}, None, d=3)


def test_the_input_and_the_options_must_come_from_the_same_scenario():
    X = np.random.default_rng(0).normal(size=(200, 3))
    options = translation.release_options({**DEFAULTS, "R": 2.0, "center": "empirical"}, "analyze_gauss")
    inp = experiments.input_for(X, options)
    X_release, released = experiments.release_input(inp, options)
    assert X_release is inp.data and released.center == "none"  # centred once, when the input was prepared
    with pytest.raises(ValueError, match="clipped to R = 2, but these options clip to 3"):
        experiments.release_input(inp.data, options.replace(data_norm=3.0))
    with pytest.raises(ValueError, match="another centring"):
        experiments.release_input(inp, options.replace(center="private"))
    with pytest.raises(TypeError, match="mechanism: ReleaseOptions"):
        experiments.compare(inp, ["analyze_gauss"], reps=1, seed=0)


def _page_and_exports(vals: dict) -> tuple[str, str, str]:
    """(the page's results table, the script's output, the exploration notebook's output) for ``vals``."""
    ds = data.load_dataset(vals)
    results, problems = compute.run_selected(ds, compute.prepare(ds, vals), vals)
    assert not problems, problems
    page = report.results_table(results).to_string(index=False).strip()
    has_labels = ds.labels is not None
    script = script_export.build_script(vals, has_labels=has_labels)
    cells = json.loads(notebooks.exploration_notebook(vals, None, has_labels))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells[1:5])  # imports, data, options and input, the table
    outputs = []
    for text in (script, code):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(text, "export", "exec"), {"__name__": "__main__"})
        outputs.append(printed.getvalue().strip())
    return page, *outputs


@pytest.mark.parametrize(
    "change",
    [
        # issue 63 item 6: a plot by group on a table without a label column (both rows "not run" in the exports)
        {"n": 300, "d": 6, "bscores": 0.1, "sgroup": True},
        # a pure mechanism beside a Gaussian one: its plot drawn additive and without groups, as the page draws it
        {"src": "sample:wine", "R": 2000.0, "mechs": "analyze_gauss,ppca_exponential", "bscores": 0.1,
         "sgroup": True, "skind": "sparse"},
    ],
)  # fmt: skip
def test_the_script_and_the_exploration_notebook_print_the_pages_table(change):
    page, script, notebook = _page_and_exports({**DEFAULTS, "reps": 2, **change})
    assert "not run" not in page
    assert script == notebook == page

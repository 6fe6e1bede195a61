"""Issue 55 in the app: a plan is a promise or a refusal, for as many rows as asked, and the Report says whether the
promise held (the exploration's releases on the rows, for the data owner; and what each release drawn to publish can
tell about itself from its own numbers) instead of repeating it."""

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.data.datasets import load_sample
from tests.support.app import assert_clean, plain
from ui import plan_check

IRIS = dict(src="sample:iris", R="12", mechs="analyze_gauss", sreps="2", reps="10")


def test_a_stand_in_that_cannot_support_a_promise_is_declined_in_words(app_test):
    """The app's default private stand-in (ε0 = 0.1) on 150 rows cannot tell iris's second variance from its third:
    the page declines, says what to do, and offers no plan to use (before issue 55 it named an ε)."""
    at = app_test(**IRIS, k="2")
    at.switch_page("pages/tradeoffs.py").run()
    at.radio(key="plan_standin").set_value("private").run()
    at.button(key="plan_run").click().run()
    assert_clean(at)
    found = at.session_state["plan_result"][1]
    assert found.refusal and not found.reachable
    warned = " ".join(plain(w.value) for w in at.warning)
    assert "This stand-in cannot support a promise" in warned and "Spend more ε on it" in warned
    assert not [b for b in at.button if b.key == "plan_apply"]  # nothing to use
    assert not at.metric  # no ε, mechanism or split shown as if planned


def test_the_report_says_whether_the_promise_held(app_test):
    """Applied, a plan's banner on the Report says whether the promise held: the share of the exploration's releases
    on these rows that met the target, against the promise (before issue 55 it repeated the promise)."""
    at = app_test(**IRIS, k="1", pon="stated", pspec="60, 1, 0.3, 0.05")
    at.switch_page("pages/tradeoffs.py").run()
    assert "plan for n rows (0: the data's own 150)" in at.number_input(key="plan_n").label
    at.button(key="plan_run").click().run()
    assert_clean(at)
    assert at.session_state["plan_result"][1].settings["n"] == 150
    at.button(key="plan_apply").click().run()
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    banner = " ".join(plain(i.value) for i in at.info if "Planned for" in i.value)
    assert "Did it hold? On your rows, " in banner and " of 10 of the exploration's releases met every target" in banner
    assert "consistent with the promised 90%" in banner or "the promise did not hold on these rows" in banner
    assert "A release drawn to publish (Publish, below) says what its own numbers show" in banner


def test_the_plan_is_for_the_n_asked(monkeypatch):
    """'Plan for n rows' (the scenario's pn, public): 0 plans for the data's own n where it is public; under add/remove
    on a table the count is private and a public estimate is asked for; a plan for another n cannot be checked on
    these rows, and the Report says so."""
    from ui import planner, scenario

    table = {**scenario.DEFAULTS, "src": "sample:iris"}
    assert planner.public_n(table, 150, None) == 150 and planner.public_n(table, 150, 600) == 600
    with pytest.raises(ValueError, match="give a public estimate of n"):
        planner.public_n({**table, "nb": "add_remove"}, 150, None)
    assert planner.public_n({**table, "nb": "add_remove"}, 150, 400) == 400
    assert planner.other_rows({**table, "pn": 600}) and not planner.other_rows({**table, "pn": 400, "nb": "add_remove"})
    planned = {"mechanism": "m", "targets": {"subspace_distance": 0.3}, "confidence": 0.9, "n": 600}
    assert "It was planned for 600 rows, not this table's 150" in plan_check.on_rows(planned, {}, 150)
    asked = {}
    monkeypatch.setattr(dc, "plan", lambda targets, **facts: asked.update(facts))
    law = dc.Standin.spiked(d=6, k=1, spike=8.0, seed=0)
    planner.make_plan({"subspace_distance": 0.3}, 0.9, {**scenario.DEFAULTS, "k": 1}, law, n=8000, d=6)
    assert asked["n"] == 8000 and asked["standin"] is law


def test_each_release_drawn_to_publish_says_what_its_own_numbers_tell():
    """The Publish block's lines come from the publishable file alone: with the plan's targets when the release is
    the planned mechanism's, its bounds otherwise, and 'cannot' where its noise is not on what it publishes."""
    X = load_sample("iris").X
    published = {  # as publish() gives them, drawn here with a seed (a test, not a release to hand out)
        mech: dc.release_pca(mech, X, 1, 20.0, 1e-6, data_norm=12.0, seed=np.random.default_rng(3)).published()
        for mech in ("analyze_gauss", "private_power")
    }
    file = {"releases": published}
    planned = {"mechanism": "analyze_gauss", "targets": {"subspace_distance": 0.5}}
    lines = plan_check.release_lines(file, planned)
    assert lines[0].startswith("Analyze Gauss: From its own published numbers")
    assert "subspace distance is at most" in lines[0] and "(subspace distance ≤ 0.5)" in lines[0]
    assert lines[1].startswith("Private power method") and "cannot bound its own accuracy" in lines[1]
    other = plan_check.release_lines(file, None)[0]
    assert "with 95% confidence: subspace distance at most" in other and "captured energy at least" in other


@pytest.mark.parametrize("count, verdict", [(10, "consistent with the promised 90%"), (6, "did not hold")])
def test_the_exploration_s_share_is_read_against_the_promise(count, verdict):
    """10 of 10 is consistent with a promise of 90% (its 95% interval reaches it); 6 of 10 is not (interval 26% to
    88%)."""
    from types import SimpleNamespace

    distances = np.r_[np.full(count, 0.1), np.full(10 - count, 0.9)]
    res = SimpleNamespace(distance=distances, energy=None, f1=None)
    planned = {"mechanism": "m", "targets": {"subspace_distance": 0.3}, "confidence": 0.9, "n": None}
    said = plan_check.on_rows(planned, {"m": res}, 150)
    assert f"{count} of 10 of the exploration's releases met every target" in said and verdict in said

"""Nothing heavy starts from a link, and each session has a CPU budget for live runs (issue 63.4).

``reproduce?rgrid=full&rreps=50&rseed=7`` once computed on opening, with no click: two such tabs used 101 CPU s in
two minutes. The page now says what the run will cost and waits for **Run live**; live reproductions and sweeps are
charged to the session's CPU budget (ui/cpu_budget.py) and stop with a message in words when it is spent.
"""

import time

import pytest

from dppca_core import reproduce as rp

#: the session-state key of the budget (ui/session.CPU_BUDGET_KEY), spelled out: main has no such name
BUDGET_KEY = "live_cpu_budget"
ATTACK = {"rpaper": "ge", "rgrid": "full", "rreps": "50", "rseed": "7"}


def _clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _burn(seconds: float) -> None:
    """Spend ``seconds`` of this thread's CPU time (what the budget counts), whatever the machine's speed."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.fixture
def tasks(monkeypatch):
    """The reproduction tasks the page runs, recorded; each first spends 0.05 s of CPU, then runs for real."""
    from ui import reproduce as computed

    ran, real = [], rp.run_task

    def recorded(task):
        ran.append(task["key"])
        _burn(0.05)
        return real(task)

    monkeypatch.setattr(rp, "run_task", recorded)
    computed._task.clear()
    yield ran
    computed._task.clear()


def test_a_reproduce_link_computes_nothing_and_says_what_a_live_run_costs(app_test, tasks, monkeypatch):
    """The attack's link opens on a page that states the number of tasks, a lower bound of their CPU time and the
    session's budget, and runs nothing until the click; the click starts it."""

    def refuse(task):  # a task that runs is recorded and stopped: one is enough to see it (not the whole full grid)
        tasks.append(task["key"])
        raise ValueError("stopped by the test after the first task")

    monkeypatch.setattr(rp, "run_task", refuse)
    at = app_test(**ATTACK)
    at.switch_page("pages/reproduce.py").run()
    _clean(at)
    assert tasks == [] and not at.get("progress") and not at.get("plotly_chart")
    words = " ".join(i.value for i in at.info)
    planned = sum(len(rp.plan(key, "full", 50, 7)) for key in rp.PAPERS["ge"].reproductions)
    assert f"runs {planned:,} tasks" in words and "at least" in words and "Run live" in words, words
    assert "CPU seconds left" in words
    at.button(key="live_reproduce").click().run()
    assert tasks == [rp.PAPERS["ge"].reproductions[0]]


def test_live_reproductions_stop_when_the_session_cpu_budget_is_spent(app_test, tasks, monkeypatch):
    """A budget of 0.2 CPU s stops a 30-task reproduction after a few tasks, with a warning saying when the session
    can run again (no error box); once the budget comes back the run goes on from the tasks cached."""
    from ui import limits

    monkeypatch.setattr(limits, "LIVE_CPU_SECONDS", 0.2, raising=False)
    at = app_test(rpaper="biswas", rseed="3")
    at.switch_page("pages/reproduce.py").run()
    at.button(key="live_reproduce").click().run()
    _clean(at)
    total = len(rp.plan("coinpress_covariance", "default", None, 3))
    assert 1 <= len(tasks) < total, (len(tasks), total)
    warning = " ".join(w.value for w in at.warning)
    assert "used its CPU time" in warning and "minute" in warning and not at.get("plotly_chart"), warning
    spent = at.session_state[BUDGET_KEY]["spent"]
    assert spent >= 0.2

    monkeypatch.setattr(limits, "LIVE_CPU_SECONDS", 1000.0)
    at.session_state[BUDGET_KEY] = {"spent": spent, "at": time.time() - limits.LIVE_CPU_WINDOW_SECONDS}
    at.run()
    _clean(at)
    assert len(tasks) == total and len(at.get("plotly_chart")) == 1  # the tasks done before were not run again


def test_sweeps_are_charged_to_the_session_and_stop_when_its_budget_is_spent(app_test):
    at = app_test(sreps="2", mechs="analyze_gauss")
    at.switch_page("pages/tradeoffs.py").run()
    _clean(at)
    assert at.session_state[BUDGET_KEY]["spent"] > 0  # the sweep's CPU time was counted
    assert any("mechanism" in df.value.columns for df in at.dataframe)

    at.session_state[BUDGET_KEY] = {"spent": 1e9, "at": time.time()}
    at.run()
    _clean(at)
    assert any("used its CPU time" in w.value for w in at.warning)
    assert not any("mechanism" in df.value.columns for df in at.dataframe)  # no sweep table: nothing was run

"""How pytest-xdist deals the tests to its workers (tests/conftest.py's ``pytest_xdist_make_scheduler``, used with
pyproject's ``--dist loadscope``).

xdist's loadscope gives each test module to one worker as a unit. The browser modules (tests/e2e/) are dealt in a
few groups instead, one unit each, so that one worker runs a whole group against one app server and one Chromium:
the server's caches (the same scenarios are computed by many modules) and the worker's warm tabs serve the whole
group, and fewer servers and browsers start. The groups are balanced by :data:`E2E_SECONDS`; the other modules stay
one unit each, the slowest first (:data:`SLOW_SECONDS`), so the last units dealt are short and the workers end
together.
"""

from xdist.scheduler import LoadScopeScheduling

E2E = "tests/e2e/"

#: wall time (s) of each browser module in a full run on this machine (2026-12-07, three workers, the browser modules in
#: two groups; other helpers' tests ran beside it): only to balance the groups; a module not listed counts as
#: :data:`E2E_DEFAULT`
E2E_SECONDS = {
    "test_browser.py": 79.1,
    "test_views.py": 56.2,
    "test_accessibility.py": 51.5,
    "test_lesson.py": 42.5,
    "test_presenter.py": 33.1,
    "test_installed.py": 28.1,
    "test_classroom.py": 26.7,
    "test_libraries.py": 21.1,
    "test_private_radius.py": 15.9,
    "test_plan_targets.py": 15.7,
    "test_hostile_upload.py": 15.2,
    "test_messy_upload.py": 15.0,
    "test_handout.py": 14.7,
    "test_audit_curve.py": 14.6,
    "test_scenario_file.py": 11.1,
    "test_score_plots.py": 6.9,
}
E2E_DEFAULT = 15.0
#: browser modules kept in one group because they ask the server for the same computations: both walk every page
#: with the same uploaded table and scenario (normal mode and presenter mode), so the second walk reads the first
#: one's results from the server's caches
E2E_TOGETHER = (("test_browser.py", "test_accessibility.py"),)

#: the other modules of more than 10 s in the same run: dealt first, slowest first (the rest in collection order)
SLOW_SECONDS = {
    "tests/reproduce/test_reproduce.py": 34.8,
    "tests/app/test_app_plan_targets.py": 26.4,
    "tests/app/test_exports.py": 25.0,
    "tests/app/test_app_classroom.py": 24.0,
    "tests/audit/test_audit.py": 20.3,
    "tests/scenario/test_scenario_file.py": 20.1,
    "tests/test_bootstrap.py": 17.5,
    "tests/tensor/test_mechanisms.py": 17.4,
    "tests/handout/test_handout.py": 16.4,
    "tests/mechanisms/test_rates.py": 16.2,
    "tests/test_docs.py": 16.1,
    "tests/audit/test_audit_external.py": 14.8,
    "tests/app/test_app_private_choices.py": 12.2,
    "tests/app/test_downloads_session.py": 11.3,
    "tests/test_layout.py": 10.8,
    "tests/app/test_notebooks.py": 10.2,
    "tests/app/test_app_views.py": 10.1,
}


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def is_browser(nodeid: str) -> bool:
    return nodeid.startswith(E2E)


def dealing_order(nodeid: str) -> tuple:
    """Sort key of the collected tests (a stable sort keeps each module's own order): the browser modules first, then
    the slow modules, slowest first, then the rest as collected."""
    module = module_of(nodeid)
    return (not is_browser(nodeid), -SLOW_SECONDS.get(module, 0.0))


def browser_groups(modules: list[str], groups: int) -> dict[str, int]:
    """{browser module: its group}: the modules of :data:`E2E_TOGETHER` as one, the longest first into the group with
    the least time so far."""
    name = {module.rsplit("/", 1)[-1]: module for module in modules}
    together = [[name[n] for n in names if n in name] for names in E2E_TOGETHER]
    bundles = [b for b in together if b] + [[m] for m in modules if not any(m in b for b in together)]
    seconds = {id(b): sum(E2E_SECONDS.get(m.rsplit("/", 1)[-1], E2E_DEFAULT) for m in b) for b in bundles}
    load = [0.0] * groups
    found = {}
    for bundle in sorted(bundles, key=lambda b: -seconds[id(b)]):
        group = load.index(min(load))
        found.update(dict.fromkeys(bundle, group))
        load[group] += seconds[id(bundle)]
    return found


class BrowserGroupScheduling(LoadScopeScheduling):
    """loadscope, with the browser modules in ``groups`` units (see the module's docstring)."""

    def __init__(self, config, log=None, groups: int = 2):
        super().__init__(config, log)
        self.groups = groups
        self.group_of: dict[str, int] = {}

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed and self.registered_collections:
            collected = next(iter(self.registered_collections.values()))
            modules = list(dict.fromkeys(module_of(n) for n in collected if is_browser(n)))
            self.group_of = browser_groups(modules, self.groups)
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        if is_browser(nodeid):
            return f"{E2E}(browser group {self.group_of.get(module_of(nodeid), 0) + 1} of {self.groups})"
        return super()._split_scope(nodeid)

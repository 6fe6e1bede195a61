"""The dashboard's house rules (issue 58), read from its code (ast): session state only through the names of
ui/session.py, with no renaming alias (docs/architecture.md, "keep something across pages"); a scenario's settings
read by name (``Settings(vals).eigenvalue_share``, dppca_core/scenario/settings.py), never by the link's short name
(``vals["beig"]``)."""

import ast
from pathlib import Path

from dppca_core.scenario import FIELDS

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "ui" / "session.py"
#: the prefix of the key of a widget bound to a scenario setting (ui.scenario.bind: ``w:<field>``)
WIDGET_PREFIX = "w:"


def _dashboard() -> list[Path]:
    """app.py, the pages and ui/, ui/session.py left out (it names the keys)."""
    paths = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    return [path for path in paths if path != SESSION]


def _session_names() -> set[str]:
    """The names ui/session.py gives its keys (module-level constants holding a string)."""
    tree = ast.parse(SESSION.read_text(encoding="utf-8"))
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _shape(key: ast.expr):
    """What identifies a key in its module: a string's value, an f-string's constant parts (``f"class_sure_{n}"``
    and ``f"class_sure_{now.n}"`` are one key), a name's name."""
    if isinstance(key, ast.Constant):
        return key.value
    if isinstance(key, ast.JoinedStr):
        return tuple(part.value if isinstance(part, ast.Constant) else "{}" for part in key.values)
    if isinstance(key, ast.Name):
        return key.id
    return None


def _widget_keys(tree: ast.AST) -> set:
    """Every ``key=`` a call of the module passes (a widget's own key, as a string, an f-string or a constant)."""
    return {
        _shape(keyword.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "key"
    }


def _state_accesses(tree: ast.AST):
    """(node, key) of every read or write into st.session_state (or a name the module binds to it): a subscript,
    ``.get``/``.pop``/``.setdefault`` and ``in``."""
    bound = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "session_state"
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def is_state(node) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "session_state") or (
            isinstance(node, ast.Name) and node.id in bound
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_state(node.value):
            yield node, node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and is_state(node.func.value)
            and node.args
        ):
            yield node, node.args[0]
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and is_state(node.comparators[0])
        ):
            yield node, node.left


def session_key_problems(path: Path, names: set[str], root: Path = ROOT) -> list[str]:
    """Each use of a session key in ``path`` that does not go through ui/session.py: a bare string that no widget of
    the module owns, a key reached through another module (``data.UPLOAD_KEY``) or a constant ui/session.py does not
    name, and every alias renaming one of its names (``from ui.session import A as B``, ``B = session.A``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(root)
    widgets = _widget_keys(tree)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "session":
            problems += [f"{where}:{node.lineno}: {a.name} as {a.asname}" for a in node.names if a.asname]
        if isinstance(node, ast.Assign) and (
            (isinstance(node.value, ast.Attribute) and node.value.attr in names)
            or (isinstance(node.value, ast.Name) and node.value.id in names)
        ):
            problems.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    for node, key in _state_accesses(tree):
        said = f"{where}:{node.lineno}: st.session_state[{ast.unparse(key)}]"
        shape = _shape(key)
        if isinstance(key, (ast.Constant, ast.JoinedStr)):
            first = shape if isinstance(shape, str) else shape[0]
            if shape not in widgets and not str(first).startswith(WIDGET_PREFIX):
                problems.append(said + " (a bare string key)")
        elif isinstance(key, ast.Attribute):
            if not (isinstance(key.value, ast.Name) and key.value.id == "session" and key.attr in names):
                problems.append(said + " (through another module)")
        elif isinstance(key, ast.Name):
            if key.id.isupper() and key.id not in names and key.id not in widgets:
                problems.append(said + " (not named in ui/session.py)")
    return problems


def test_session_state_only_through_the_names_of_ui_session():
    """Every key a session keeps that no widget owns is named in ui/session.py and used under that name (a widget's
    own key, ``key=`` of a widget of the same module or ``w:<field>``, stays where the widget is)."""
    names = _session_names()
    problems = [problem for path in _dashboard() for problem in session_key_problems(path, names)]
    assert not problems, problems


def test_the_session_rule_finds_a_bare_key_an_alias_and_a_key_through_another_module(tmp_path):
    """The check itself: each kind of use it refuses is found, a widget's key and a name of ui/session.py are not."""
    page = tmp_path / "page.py"
    page.write_text(
        "import streamlit as st\n"
        "from ui import data, session\n"
        "from ui.session import UPLOAD_KEY as UP\n"
        "LAST = session.LAST_SWEEP_KEY\n"
        "st.text_input('x', key='typed')\n"
        "st.session_state.get('typed')\n"
        "st.session_state['w:eps']\n"
        "st.session_state[session.AUDIT_RESULT_KEY]\n"
        "st.session_state.get('audit_result')\n"
        "state = st.session_state\n"
        "state[data.UPLOAD_KEY] = 1\n"
        "'kept' in st.session_state\n",
        encoding="utf-8",
    )
    found = session_key_problems(page, _session_names(), tmp_path)
    assert sorted(int(line.split(":")[1]) for line in found) == [3, 4, 9, 11, 12], found


#: the names the pages and ui/ give a scenario's values (a dict keyed by the link's short names)
SCENARIO_NAMES = {"vals", "scn", "fields", "current"}
#: ui/page_titles.py reads presenter mode from the session's scenario before the app imports the scenario's module
#: (app.py declares the pages first: the first paint): it may not import dppca_core.scenario, so it reads the dict
UNTOUCHED = {ROOT / "ui" / "page_titles.py"}


def _scenario_dict(node: ast.expr) -> bool:
    """Whether ``node`` is a scenario's values as the pages and ui/ name them: ``vals``, ``scn``, ``fields``,
    ``current``, ``values()`` and ``scenario.values()``, or the table of defaults and fields (``DEFAULTS``,
    ``FIELDS``, ``scenario.DEFAULTS``)."""
    if isinstance(node, ast.Name):
        return node.id in SCENARIO_NAMES | {"DEFAULTS", "FIELDS"}
    if isinstance(node, ast.Attribute):
        return node.attr in ("DEFAULTS", "FIELDS")
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "values") or (
            isinstance(func, ast.Attribute) and func.attr == "values" and not node.args
        )
    return False


def literal_reads(path: Path, root: Path = ROOT) -> list[str]:
    """Each read of a scenario's setting by its short name, a literal, in ``path``: ``vals["beig"]``, ``scn.get("scale")``,
    ``scenario.values()["s"]``, ``DEFAULTS["eps"]``, ``FIELDS["aeps"]`` (a write, ``vals["target"] = ...``, is not a
    read)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            base, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            base, key = node.func.value, (node.args[0] if node.args else None)
        else:
            continue
        if isinstance(key, ast.Constant) and key.value in FIELDS and _scenario_dict(base):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_pages_and_ui_read_a_scenarios_settings_by_name():
    """No page and no module of ui/ spells a setting's short name to read it: they read ``Settings(vals).epsilon``
    (the link and the scenario file keep the short names; a write through ``scenario.set_value("eps", ...)`` may
    name its field)."""
    found = [line for path in _dashboard() + [SESSION] if path not in UNTOUCHED for line in literal_reads(path)]
    assert not found, found


def test_the_field_rule_finds_each_kind_of_literal_read(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        "from ui import scenario\n"
        "vals = scenario.values()\n"
        "vals['beig']\n"
        "scn.get('scale')\n"
        "scenario.values()['s']\n"
        "scenario.DEFAULTS['eps']\n"
        "FIELDS['aeps'].low\n"
        "vals['target'] = 1.0\n"
        "vals[name]\n"
        "scenario.Settings(vals).eigenvalue_share\n"
        "last['metric']\n",
        encoding="utf-8",
    )
    assert [int(line.split(":")[1]) for line in literal_reads(page, tmp_path)] == [3, 4, 5, 6, 7]


def test_every_setting_has_one_name():
    """Each field of the scenario is read by exactly one name of Settings, and the view reads the dict it holds."""
    from dppca_core.scenario import Settings

    keys = [setting.key for setting in Settings.named().values()]
    assert sorted(keys) == sorted(FIELDS) and len(set(keys)) == len(keys)
    vals = {"eps": 1.0, "beig": 0.1}
    view = Settings(vals)
    vals["eps"] = 2.0  # set afterwards: read at once
    assert (view.epsilon, view.eigenvalue_share, view.k) == (2.0, 0.1, FIELDS["k"].default)
    assert Settings.eigenvalue_share.key == "beig" and Settings.audit_epsilon.field is FIELDS["aeps"]

"""The Report's notebooks (issue 38), run with nbclient in a temporary folder outside the repository on an uploaded
messy table the test writes: the exploration notebook prints the Report's table; the release notebook's JSON passes
the publishable checks and validates against docs/publishable-release.schema.json, and running its release cell
again without a confirmation spends nothing.

``dppca_core`` is imported as installed: CI installs the project with ``pip install -e .`` (requirements-dev.txt);
where it is not installed (a developer's shared environment) the kernel gets the project on its path, as an
editable install puts it there."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dppca_core.book import BudgetBook

from dppca_core import publishable
from dppca_core.handout import brief
from tests.messy import MEASUREMENTS, TYPICAL, messy_csv
from tests.support.app import assert_clean
from tests.messy import messy_rows
from tests.support.downloads import report_table, offered, remember_downloads
from tests.support.handout import validate
from ui import notebooks

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
QUERY = {
    "src": "upload",
    "R": "6000.0",
    "mechs": "analyze_gauss,private_power,non_private",
    "reps": "3",
    "seed": "5",
    "k": "2",
    "center": "private",
    "bmean": "0.2",
    "cols": json.dumps(MEASUREMENTS),
    "label": "species",
    "fill": json.dumps(TYPICAL),
}


@pytest.fixture(scope="module")
def kernel_env():
    """The environment of the notebooks' kernel: dppca_core importable as installed, from a folder outside the
    repository (the project put on the path only when this Python has not installed it)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import dppca_core, sys; print(dppca_core.__file__)"],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    if probe.returncode == 0:
        assert probe.stdout.strip().startswith(str(ROOT)), f"another dppca_core is installed: {probe.stdout}"
        return {}
    return {"PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    """The Report of the uploaded messy table: (its table as shown, {download label: bytes}), computed once."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    # the app_test and downloads fixtures are function-scoped: the same patches, for this module
    patch = pytest.MonkeyPatch()

    class NavigationPagesManager(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False
            super().__init__(*args, **kwargs)

    patch.setattr(app_test_module, "PagesManager", NavigationPagesManager)
    files = remember_downloads(patch)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in QUERY.items():
        at.query_params[key] = value
    at.session_state["upload"] = {"name": "penguins.csv", "bytes": messy_csv()}
    at.switch_page("pages/report.py").run()
    assert_clean(at)
    shown = report_table(at).to_string(index=False)
    offers = offered(at, files)
    patch.undo()
    charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart") if "report_main" in chart.proto.id]
    return shown, offers, charts


def _folder(tmp_path) -> Path:
    """A folder outside the repository holding the user's table, as they saved it."""
    folder = tmp_path / "analysis"
    folder.mkdir()
    (folder / "penguins.csv").write_bytes(messy_csv())
    assert not folder.resolve().is_relative_to(ROOT)
    return folder


def _client(raw: bytes, folder: Path):
    nb = nbformat.reads(raw.decode(), as_version=4)
    nbformat.validate(nb)
    (folder / "notebook.ipynb").write_bytes(raw)
    return nb, nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )


def _stdout(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stdout")


def test_each_notebook_says_its_kind_on_its_first_cell(report_page):
    _, offers, _ = report_page
    public = json.dumps(QUERY) + json.dumps(TYPICAL)
    cells = {row[6] for row in messy_rows()[:60] if row[6] not in ("", "NA") and row[6] not in public}  # body mass
    for label, first in (
        ("Exploration notebook", "Exploration record, not a release"),
        ("Release notebook", notebooks.RELEASE_NOTEBOOK),
    ):
        nb = nbformat.reads(offers[label].decode(), as_version=4)
        nbformat.validate(nb)
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith(first), label
        text = offers[label].decode()
        assert not [cell for cell in cells if cell in text], label  # no cell of the table (its columns are)
    release = offers["Release notebook"].decode()
    assert "seed=None" in release and "seed=5" not in release  # fresh randomness, never the scenario's seed


def test_the_exploration_notebook_prints_the_reports_table(report_page, kernel_env, tmp_path, monkeypatch):
    shown, offers, charts = report_page
    for key, value in kernel_env.items():
        monkeypatch.setenv(key, value)
    nb, client = _client(offers["Exploration notebook"], _folder(tmp_path))
    client.execute()
    assert _stdout(nb.cells[-2]).strip() == shown.strip()
    # and draws the page's main figure: the same dots
    (figure,) = [out.data["application/vnd.plotly.v1+json"] for out in nb.cells[-1].outputs if "data" in out]
    (page,) = charts
    assert [(t.get("name"), t.get("x"), t.get("y")) for t in figure["data"]] == [
        (t.get("name"), t.get("x"), t.get("y")) for t in page["data"]
    ]


def test_the_release_notebook_spends_once_and_asks_before_spending_again(
    report_page, kernel_env, tmp_path, monkeypatch
):
    _, offers, _ = report_page
    for key, value in kernel_env.items():
        monkeypatch.setenv(key, value)
    folder = _folder(tmp_path)
    nb, client = _client(offers["Release notebook"], folder)
    release_cell = len(nb.cells) - 1
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        output = folder / notebooks.RELEASE_OUTPUT
        first = output.read_text(encoding="utf-8")
        book = BudgetBook(folder / notebooks.LEDGER_NAME)
        (table,) = [t["id"] for t in book.tables()]
        spent = book.spent(table)
        said = _stdout(nb.cells[release_cell])
        assert f"after it: {spent.words()}" in said  # stated before drawing, as it then was
        # run again, nobody to confirm: nothing spent, the file kept
        client.execute_cell(nb.cells[release_cell], release_cell)
        again = _stdout(nb.cells[release_cell])
        assert "Not spent again" in again and spent.words() in again
        assert output.read_text(encoding="utf-8") == first
        assert book.spent(table) == spent
        # another output from the same folder asks too; answered yes (as a person would type it), it spends again,
        # drawn fresh (other numbers than the first file's), and the book composes the four releases
        answer_yes = "def input(question=''):\n    print(question)\n    return 'yes'"  # the person's answer
        nb.cells.append(nbformat.v4.new_code_cell("OUTPUT = 'second.json'\n" + answer_yes))
        client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
        client.execute_cell(nb.cells[release_cell], release_cell)
        said = _stdout(nb.cells[release_cell])
        assert "already spent" in said and book.spent(table).words() in said
    spends = book.spends(table)
    assert [s.mechanism for s in spends] == ["analyze_gauss", "private_power"] * 2 and all(s.settled for s in spends)
    assert spent.count == 2 and spent.delta == pytest.approx(2e-6) and 1.0 < spent.epsilon < 2.0  # composed exactly
    assert book.tables()[0]["name"] == "penguins.csv"
    payload = json.loads(first)
    # the same arithmetic as the brief's 'together': one number for the two releases everywhere
    assert spent.epsilon == pytest.approx(payload["together"]["epsilon"], rel=1e-12)
    assert output.read_text(encoding="utf-8") == first  # the first file kept
    validate(payload)
    _publishable_checks(first, payload)
    second = json.loads((folder / "second.json").read_text(encoding="utf-8"))
    assert second["releases"]["analyze_gauss"]["components"] != payload["releases"]["analyze_gauss"]["components"]
    # the publishable brief beside each file, made from that file alone (as the Report's brief is)
    assert (folder / "dppca_releases.brief.html").read_text(encoding="utf-8") == brief.build_brief(payload)
    assert (folder / "second.brief.html").read_text(encoding="utf-8") == brief.build_brief(second)


def _publishable_checks(text: str, payload: dict) -> None:
    """What the Report's own publishable file passes: its first line, every release publish() of fresh randomness
    with its guarantee, no seed, the public schema and settings (n public under replace-one), the non-private
    reference left out with its reason."""
    assert text.startswith('{"export": "Publishable release') and publishable.has_guarantee(payload)
    assert "seed" not in text.split("\n", 1)[1]
    assert list(payload["releases"]) == ["analyze_gauss", "private_power"]
    assert [out["mechanism"] for out in payload["left_out"]] == ["non_private"]
    assert payload["schema"]["columns"] == MEASUREMENTS and payload["schema"]["label"] == "species"
    assert payload["schema"]["replacement"] == TYPICAL
    assert payload["settings"]["n"] == 344 and payload["settings"]["epsilon"] == 1.0
    assert payload["settings"]["centring"]["rule"] == "private"
    for mech, release in payload["releases"].items():
        assert release["epsilon"] == 1.0 and release["delta"] == 1e-6, mech
        assert len(release["components"]) == len(MEASUREMENTS), mech


def test_without_dppca_core_a_notebook_says_in_one_line_how_to_install_it(report_page, tmp_path):
    _, offers, _ = report_page
    nb = nbformat.reads(offers["Release notebook"].decode(), as_version=4)
    setup = nb.cells[1].source
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # -S: no site-packages, where `pip install` would have put it
    out = subprocess.run(
        [sys.executable, "-S", "-c", setup],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(_folder(tmp_path)),
        env=env,
    )
    assert out.returncode == 1 and out.stdout == ""
    (line,) = out.stderr.strip().splitlines()
    assert "No module named 'dppca_core'" in line and "-m pip install -e" in line and "pyproject.toml" in line


VARIANTS = {
    "synthetic": {"mechs": "analyze_gauss,private_power,ppca_exponential"},
    "score plot by group": {
        "src": "sample:wine",
        "R": 2000.0,
        "mechs": "analyze_gauss",
        "bscores": 0.1,
        "sgroup": True,
        "eps": 5.0,
    },
    "private radius": {"rfrom": "private", "rlo": 0.1, "rhi": 100.0, "bradius": 0.1, "center": "private"},
    "private scaling": {"d": 5, "scale": "private", "bounds": "5.0,5.0,5.0,5.0,5.0", "bscale": 0.1},
    "private k": {"kfrom": "private", "beig": 0.1, "kvar": 0.8},
    "not publishable": {"center": "empirical"},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_release_cell_draws_what_the_reports_button_draws(variant, tmp_path, monkeypatch):
    """The release notebook's cells run in this process (no kernel) for each private choice the Report's button
    supports: the file validates, states the page's public settings, and a guarantee exactly when the page's would."""
    from ui import data, release_file, scenario

    vals, notices = scenario.from_fields({"n": 300, "d": 6, **VARIANTS[variant]})
    assert not notices
    ds = data.load_dataset(vals)
    nb = nbformat.reads(notebooks.release_notebook(vals, ds), as_version=4)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, f"release notebook, {variant}", "exec"), namespace)
    text = (tmp_path / notebooks.RELEASE_OUTPUT).read_text(encoding="utf-8")
    payload = json.loads(text)
    validate(payload)
    assert "seed" not in text.split("\n", 1)[1]
    mechs = [m for m in scenario.mechanisms(vals) if not publishable.refusal(m)]
    assert list(payload["releases"]) == mechs
    expected = json.loads(json.dumps(release_file.public_settings(vals, ds.n)))
    assert {k: v for k, v in payload["settings"].items() if k != "d"} == expected and payload["settings"]["d"] == ds.d
    assert payload["schema"] == release_file.public_schema(ds)
    assert publishable.has_guarantee(payload) == (variant != "not publishable")
    if variant == "score plot by group":
        assert "scores" in payload["releases"]["analyze_gauss"]["outputs"]
    book = BudgetBook(tmp_path / notebooks.LEDGER_NAME)
    (table,) = [t["id"] for t in book.tables()]
    assert [s.mechanism for s in book.spends(table)] == mechs
    assert math.isinf(book.spent(table).epsilon) == (variant == "not publishable")
    if variant == "private k":
        assert payload["settings"]["k"]["rule"] == "private"


# -- after the README's install (issue 55 item 6, issue 59 item 2) --------------------------------------------------

#: the import name of an extra's distribution where it differs from the distribution's name
IMPORT_NAMES = {"scikit-learn": "sklearn"}


def extras_only() -> set:
    """The modules the README's ``pip install -e .`` does not bring: those of pyproject's extras alone."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def name(requirement: str) -> str:
        dist = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()
        return IMPORT_NAMES.get(dist, dist.replace("-", "_"))

    base = {name(r) for r in project["dependencies"]}
    return {name(r) for reqs in project["optional-dependencies"].values() for r in reqs} - base


#: runs the code cells of each notebook (or a script) given on the command line in a fresh namespace, the extras'
#: modules refused as if they were not installed
WITHOUT_EXTRAS = """
import importlib.abc, json, sys
BLOCKED = set(json.loads(sys.argv[1]))
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NotInstalled())
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    cells = [c["source"] for c in json.loads(text)["cells"] if c["cell_type"] == "code"] if path.endswith(".ipynb") \\
        else [text]
    namespace = {"__name__": "__main__"}
    for cell in cells:
        exec(compile(cell, path, "exec"), namespace)
    print("ran", path)
"""


def test_the_downloads_run_after_the_readmes_install(tmp_path):
    """The release notebook (its brief included), the exploration notebook and the script run with only what
    ``pip install -e .`` brings: plotly, Streamlit, scikit-learn and numba refused. A figure that needs plotly is left
    out with one line saying what to add, and the notebook's first cell says it too."""
    from ui import data, scenario, script_export

    blocked = extras_only()
    assert {"plotly", "streamlit", "sklearn"} <= blocked
    vals, notices = scenario.from_fields(
        {"n": 300, "d": 6, "mechs": "analyze_gauss,private_power", "reps": 2, "beig": 0.1, "bscores": 0.1}
    )
    assert not notices
    ds = data.load_dataset(vals)
    files = {
        "release.ipynb": notebooks.release_notebook(vals, ds),
        "exploration.ipynb": notebooks.exploration_notebook(vals, None, ds.labels is not None),
        "scenario.py": script_export.build_script(vals, has_labels=ds.labels is not None),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)  # the package as installed (an editable install puts the project on the path)
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, json.dumps(sorted(blocked)), *files],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(tmp_path),
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert [line for line in out.stdout.splitlines() if line.startswith("ran ")] == [f"ran {f}" for f in files]
    brief_html = (tmp_path / "dppca_releases.brief.html").read_text(encoding="utf-8")
    assert brief_html == brief.build_brief(json.loads((tmp_path / notebooks.RELEASE_OUTPUT).read_text()))
    (figure_line,) = [line for line in out.stdout.splitlines() if line.startswith("No figure")]
    assert "pip install" in figure_line and "plotly" in figure_line
    intro = json.loads(files["exploration.ipynb"])["cells"][0]["source"]
    assert "plotly" in intro and "pip install" in intro

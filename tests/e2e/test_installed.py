"""The whole path of issue 59: build the wheel, install it with its [app] extra into a fresh virtual environment outside
the repository, start ``dppca-explorer --port N`` from an empty folder, and see Explore draw in Chromium.

Cheap by design: the wheel is built without build isolation (the pinned setuptools of requirements-dev.txt), and the
new environment (made without pip) sees this environment's packages through a ``.pth`` file, so that pip resolves the
[app] extra's requirements with ``--no-index``: nothing is downloaded. The wheel's own ``dppca_core`` comes first on
the new environment's path; this environment's editable install is not active there (a ``.pth`` file in a folder
named by another ``.pth`` file is not run).
"""

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from dppca_core.version import __version__
from tests.support.server import CHROMIUM, free_port, server_output, wait_healthy
from tests.e2e.helpers import SCREEN, assert_no_error, metric_values, open_page

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd: list, **kwargs) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{cmd[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _source_copy(folder: Path) -> Path:
    """The repository's files (tracked, or new and not ignored) copied to ``folder``: building a wheel in place would
    leave build/ and *.egg-info/ in the working tree."""
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT).split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(source.read_bytes())
    return folder


def _fresh_venv(folder: Path) -> Path:
    """A virtual environment without pip, seeing this environment's site-packages after its own."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(folder)])
    python = folder / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    (Path(purelib) / "dppca_test_base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The ``dppca-explorer`` command of a fresh environment into which the wheel was installed with [app]."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}") if not os.environ.get("CI") else pytest.fail("no Chromium")
    base = tmp_path_factory.mktemp("installed")
    source = _source_copy(base / "source")
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(base), "."],
        cwd=source,
    )
    wheel = next(base.glob("dppca_explorer-*.whl"))
    python = _fresh_venv(base / "venv")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "-q", f"{wheel}[app]"])
    return wheel, base / "venv" / "bin" / "dppca-explorer"


def test_the_wheel_holds_the_app_under_its_package(installed):
    wheel, command = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert wheel.name == f"dppca_explorer-{__version__}-py3-none-any.whl"  # pyproject reads the package's version
    assert {"dppca_explorer/app/app.py", "dppca_explorer/app/.streamlit/config.toml"} <= set(names)
    assert "dppca_explorer/app/ui/lesson.toml" in names  # the Lesson's steps, read by ui/gallery.py
    assert "dppca_core/sample_data/iris.csv" in names
    tops = {name.split("/")[0] for name in names}
    assert tops == {"dppca_core", "dppca_explorer", f"dppca_explorer-{__version__}.dist-info"}  # no top-level ui
    assert _run([str(command), "--version"]).strip() == f"dppca-explorer {__version__}"
    python = command.parent / "python"  # the library finds its samples in the wheel; ui is no top-level module
    probe = "from dppca_core.data import datasets; import importlib.util as u; "
    probe += "print(datasets.load_sample('iris').X.shape, u.find_spec('ui'))"
    assert _run([str(python), "-c", probe], cwd=command.parent).split() == ["(150,", "4)", "None"]


def test_the_installed_command_serves_the_app_from_any_folder(installed, tmp_path, tabs):
    _, command = installed
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPPCA_DATA_DIR", "DPPCA_LEDGER")}
    log = (tmp_path / "server.log").open("w+")
    proc = subprocess.Popen(
        [str(command), "--port", str(port), "--address", "127.0.0.1", "--ledger", "book.sqlite"],
        cwd=tmp_path,  # an empty folder: no app.py, no .streamlit/ here
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    proc.log = log
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=120)
        page = tabs.open(SCREEN)  # a tab of the worker's pool (one browser per worker: no second Playwright)
        open_page(page, url, "explore")
        assert_no_error(page, "explore, served by the installed command")
        assert metric_values(page), "Explore drew no metric card"
        # the app's .streamlit/config.toml applies (its near-black ink; Streamlit's default is rgb(49, 51, 63))
        assert page.eval_on_selector("h1", "e => getComputedStyle(e).color") == "rgb(17, 17, 17)"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert "Traceback" not in server_output(proc)

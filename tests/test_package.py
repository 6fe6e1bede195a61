"""The package as shipped (issue 59): its version from one place, the changelog's latest release, what the wheel lists,
and the ``dppca-explorer`` command's options. The whole path (wheel, fresh environment, browser) is
tests/e2e/test_installed.py."""

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

import dppca_core as dc
from dppca_core import publishable
from dppca_core.version import __version__
from dppca_explorer import cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def test_the_version_is_written_in_one_place():
    assert dc.__version__ == __version__ and re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert "version" not in PYPROJECT["project"] and "version" in PYPROJECT["project"]["dynamic"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "dppca_core.version.__version__"}
    written = [p for p in (ROOT / "dppca_core").rglob("*.py") if re.search(r"__version__\s*=", p.read_text())]
    assert written == [ROOT / "dppca_core" / "version.py"]


def test_the_changelog_says_what_this_version_changed():
    """A version raised without its changelog entry fails here (the first release heading is the newest)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[?(\d+\.\d+\.\d+)\]?", text, flags=re.M)
    assert (
        releases and releases[0] == __version__
    ), f"CHANGELOG.md's latest release is {releases[:1]}, not {__version__}"
    newest = text.split(f"## {__version__}", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\s*[-*] ", newest, flags=re.M)) >= 5, "the newest release says what changed, item by item"


def test_the_publishable_file_and_the_records_name_the_version():
    file = publishable.publishable_file({}, schema={"columns": None})
    assert file["software"] == {"name": "dppca-explorer", "version": __version__}
    from ui import report, script_export

    assert f'MADE_WITH = "{__version__}"' in script_export.IMPORT_LINES  # the script and both notebooks start with it
    import pandas as pd

    lines = report.csv_record(pd.DataFrame({"a": [1]}), report.PUBLIC_RECORD).decode().splitlines()
    assert lines[0] == f"# {report.PUBLIC_RECORD}" and __version__ in lines[1] and lines[2] == "a"


def test_every_library_package_is_in_the_wheel():
    """pyproject lists the packages by hand (the app's folders are mapped into dppca_explorer/app): a new
    dppca_core package left off the list would be missing from the wheel."""
    listed = set(SETUPTOOLS["packages"])
    assert set(find_packages(str(ROOT), include=["dppca_core", "dppca_core.*"])) <= listed
    assert {"dppca_explorer", "dppca_explorer.app", "dppca_explorer.app.ui", "dppca_explorer.app.pages"} <= listed
    assert "ui" not in listed and not any(name.startswith("ui.") for name in listed)


def _shipped(package: str, folder: Path) -> set:
    patterns = SETUPTOOLS["package-data"][package]
    return {
        p
        for p in folder.rglob("*")
        if p.is_file() and any(fnmatch.fnmatch(p.relative_to(folder).as_posix(), pat) for pat in patterns)
    }


def test_the_files_the_pages_read_are_shipped_with_them():
    from ui import frontier, gallery, reproduce, tensor

    docs = _shipped("dppca_explorer.app.docs", ROOT / "docs")
    assert frontier.AUDIT_TABLE in docs and tensor.SHIPPED in docs and reproduce.SHIPPED / "manifest.json" in docs
    manifest = json.loads((reproduce.SHIPPED / "manifest.json").read_text(encoding="utf-8"))
    assert {reproduce.SHIPPED / f"{key}.csv" for key in manifest} <= docs
    assert ROOT / ".streamlit" / "config.toml" in _shipped("dppca_explorer.app", ROOT)
    assert gallery.LESSON_FILE in _shipped("dppca_explorer.app.ui", ROOT / "ui")  # the Lesson's steps
    samples = _shipped("dppca_core.sample_data", ROOT / "sample_data")
    assert {ROOT / "sample_data" / info["file"] for info in dc.data.datasets.SAMPLES.values()} <= samples


def test_the_command_runs_the_app_with_streamlit_and_passes_its_options(tmp_path):
    options, rest = cli.parser().parse_known_args(
        ["--port", "8600", "--address", "127.0.0.1", "--server.baseUrlPath", "dppca"]
    )
    args = cli.streamlit_args(options, rest)
    assert args[:2] == ["run", str(ROOT / "app.py")]  # from a clone: the repository's own app
    assert args[2:] == ["--server.port", "8600", "--server.address", "127.0.0.1", "--server.baseUrlPath", "dppca"]

    (tmp_path / "tables").mkdir()
    options = cli.parser().parse_args(
        ["--data-dir", str(tmp_path / "tables"), "--public-url", " https://dppca.example.org ", "--ledger", "b.sqlite"]
    )
    env = cli.environment(options)
    assert env["DPPCA_DATA_DIR"] == str(tmp_path / "tables") and env["DPPCA_PUBLIC_URL"] == "https://dppca.example.org"
    assert Path(env["DPPCA_LEDGER"]).is_absolute() and env["DPPCA_LEDGER"].endswith("b.sqlite")
    assert cli.environment(cli.parser().parse_args([])) == {}  # variables already set are left as they are


def test_the_command_answers_bad_options_in_words(capsys, tmp_path):
    with pytest.raises(SystemExit, match="no such folder"):
        cli.environment(cli.parser().parse_args(["--data-dir", str(tmp_path / "missing")]))
    with pytest.raises(SystemExit) as exit:
        cli.main(["--prot", "8600"])
    assert exit.value.code == 2 and "unknown option --prot" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:
        cli.main(["--version"])
    assert exit.value.code == 0 and capsys.readouterr().out.strip() == f"dppca-explorer {__version__}"

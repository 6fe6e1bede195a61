"""The layout is checked with the tests (issue 41): ruff's format, its pyflakes rules and syntax errors over the repository,
and import-linter's contracts in pyproject.toml (the library never imports the app; its layers import downwards
only). Both tools are pinned in requirements-dev.txt."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert found, f"{name} is not installed: install requirements-dev.txt"
    return found


def test_ruff_finds_nothing():
    done = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    """The code is in ruff's format (line length 120, pyproject.toml): a change that is not fails here, and
    `ruff format .` mends it."""
    done = subprocess.run(
        [_tool("ruff"), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_import_contracts_are_kept():
    done = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_import_contracts_can_fail(tmp_path):
    """A copy of the library whose calibration module imports the release chain breaks the layers contract."""
    shutil.copytree(ROOT / "dppca_core", tmp_path / "dppca_core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "ui", tmp_path / "ui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    privacy = tmp_path / "dppca_core" / "privacy" / "calibration.py"
    privacy.write_text(privacy.read_text() + "\nfrom ..pipeline import budget  # noqa: E402,F401\n")
    done = subprocess.run(
        [_tool("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(BIN)},
    )
    assert done.returncode != 0 and "BROKEN" in done.stdout, done.stdout[-2000:]

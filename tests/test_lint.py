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
    """A copy of the library whose calibration module imports the release chain, and which has a module at its top
    that no layer names, breaks the layers contract twice."""
    shutil.copytree(ROOT / "dppca_core", tmp_path / "dppca_core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "ui", tmp_path / "ui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    privacy = tmp_path / "dppca_core" / "privacy" / "calibration.py"
    privacy.write_text(privacy.read_text() + "\nfrom ..pipeline import budget  # noqa: E402,F401\n")
    (tmp_path / "dppca_core" / "unplaced.py").write_text("from . import metrics  # noqa: F401\n")
    done = subprocess.run(
        [_tool("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(BIN)},
    )
    assert done.returncode != 0 and "BROKEN" in done.stdout, done.stdout[-2000:]
    assert "dppca_core.privacy is not allowed to import dppca_core.pipeline" in done.stdout, done.stdout[-2000:]
    assert "- dppca_core.unplaced" in done.stdout, done.stdout[-2000:]


def _layers_contract() -> dict:
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [contract for contract in contracts if contract["type"] == "layers"]
    return layers


def test_every_unit_of_the_library_has_a_layer():
    """The layers contract is exhaustive over dppca_core/ (import-linter refuses an unplaced module or package at its
    top); the packages it lets through (audit/ and tensor/ span several layers) have every module placed here."""
    contract = _layers_contract()
    placed = {name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}
    assert contract["containers"] == ["dppca_core"] and contract["exhaustive"]
    for package in contract["exhaustive_ignores"]:
        modules = {path.stem for path in (ROOT / "dppca_core" / package).glob("*.py")} - {"__init__", "__main__"}
        assert modules, f"{package} is not a package of dppca_core"
        missing = sorted(f"{package}.{module}" for module in modules if f"{package}.{module}" not in placed)
        assert not missing, f"not in the layers contract of pyproject.toml: {missing}"


def own_package_imports(root: Path) -> list[str]:
    """Where a module of a package of the library imports from its own package (``from . import x``,
    ``from dppca_core.pkg import x``): that goes through the package's ``__init__``, which imports its modules, a
    package cycle. A module imports its siblings by their own names (``from .x import name``)."""
    import ast

    found = []
    for path in sorted((root / "dppca_core").glob("*/**/*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            continue
        package = parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package[: len(package) - node.level + 1] if node.level else ()
            if base + tuple((node.module or "").split(".") if node.module else ()) == package:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_package_imports_through_its_own_init(tmp_path):
    assert own_package_imports(ROOT) == []
    # it can fail: a sibling imported through the package
    module = tmp_path / "dppca_core" / "handout" / "brief.py"
    module.parent.mkdir(parents=True)
    module.write_text("def f():\n    from . import slides\n")
    assert own_package_imports(tmp_path) == ["dppca_core/handout/brief.py:2"]


def test_modules_import_no_test_module():
    """Helpers shared by tests (and benchmarks) live in tests/support/ (or tests/helpers.py, tests/e2e/helpers.py, a
    fixture of a conftest.py), never in a test module that others import: a test module is collected, and one
    module's helper read by others is a test file moved with its helpers or not at all."""
    import ast

    found = []
    for path in sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "__import__",
                "import_module",
            ):
                names += [
                    arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                ]
            for name in names:
                last = name.split(".")[-1]
                if name.startswith("tests.") and (last.startswith("test_") or last == "conftest"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert found == [], found

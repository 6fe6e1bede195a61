"""Modules share public names, not private ones (issue 58): an import of a name starting with "_" from another
module of dppca_core or ui is counted, and the count stays at most 20. A sibling that needs a helper gets it under
a public name (the package's modules still import each other directly, never through the package's __init__)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 20


def _module(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(root: Path = ROOT) -> list[str]:
    """Every ``from X import _name`` where X is another module of dppca_core or ui, as "file:line X._name"."""
    found = []
    for path in sorted(p for package in ("dppca_core", "ui") for p in (root / package).rglob("*.py")):
        module = _module(path, root)
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in ("dppca_core", "ui") or target == module:
                continue
            found += [
                f"{path.relative_to(root)}:{node.lineno} {target}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def test_at_most_20_private_names_are_imported_across_modules():
    found = private_imports()
    assert len(found) <= LIMIT, "\n".join(found)


def test_the_count_sees_relative_and_absolute_imports(tmp_path):
    """The counter itself: a sibling's private name counts, imported relatively or absolutely; a public one and a
    module's own do not."""
    package = tmp_path / "dppca_core" / "pkg"
    package.mkdir(parents=True)
    (package / "a.py").write_text("def _helper():\n    pass\n")
    (package / "b.py").write_text("from .a import _helper\nfrom dppca_core.pkg.a import _helper as again\n")
    (package / "c.py").write_text("from .c import _mine\nfrom .a import public\n")
    found = private_imports(tmp_path)
    assert [line.split(" ")[1] for line in found] == ["dppca_core.pkg.a._helper"] * 2, found

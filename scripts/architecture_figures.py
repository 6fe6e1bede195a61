"""The figures docs/architecture.md states about the code, counted from the code, so that they do not drift.

    python scripts/architecture_figures.py            # print the table of figures
    python scripts/architecture_figures.py --write    # put it into docs/architecture.md, between its markers

Lines are code lines as tests/test_layout.py counts them (docstrings left out: scripts/layout_after_format.py
``code_lines``). tests/test_layout.py checks that the table in docs/architecture.md is this one, within
:data:`TOLERANCE` for the figures that move with every change (lines and test counts); the others are exact.
"""

import argparse
import ast
import functools
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- figures: python scripts/architecture_figures.py --write -->"
END = "<!-- /figures -->"
#: how far a stated line or test count may be from the code's before the check asks for --write
TOLERANCE = 0.1

_spec = importlib.util.spec_from_file_location("layout_after_format", ROOT / "scripts" / "layout_after_format.py")
_layout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layout)


@functools.cache
def _parsed(path: Path) -> tuple[ast.Module, str]:
    text = path.read_text(encoding="utf-8")
    return ast.parse(text), text


def _statements(node):
    """Every statement under ``node``, nested ones included (a definition stands only where a statement does, so this
    finds every class and function without visiting each expression)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()) or ():
            yield child
            yield from _statements(child)


@functools.cache
def _functions(path: Path) -> list[ast.FunctionDef]:
    return [n for n in _statements(_parsed(path)[0]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


@functools.cache
def _module_lines(path: Path) -> int:
    """Code lines as scripts/layout_after_format.py's ``code_lines`` counts a module: its docstrings left out."""
    tree, text = _parsed(path)
    definitions = [
        tree,
        *(n for n in _statements(tree) if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))),
    ]
    return len(text.splitlines()) - sum(map(_layout._docstring_span, definitions))


def _longest_modules(paths, count: int) -> list[tuple[int, str]]:
    return sorted(((_module_lines(p), str(p.relative_to(ROOT))) for p in paths), reverse=True)[:count]


def _longest_function(paths) -> tuple[int, str]:
    return max(
        (_layout.code_lines(node), f"{path.relative_to(ROOT)}:{node.name}")
        for path in paths
        for node in _functions(path)
    )


def _test_functions(paths) -> int:
    return sum(len(re.findall(r"^\s*(?:async\s+)?def test_", p.read_text(encoding="utf-8"), flags=re.M)) for p in paths)


def figures() -> list[tuple[str, int, str, bool]]:
    """(what, the figure, how it is recounted or what it names, whether it moves with every change) for each."""
    library = sorted((ROOT / "dppca_core").rglob("*.py"))
    dashboard = [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    packages = sorted(p.parent.name for p in (ROOT / "dppca_core").glob("*/__init__.py"))
    top = sorted(p.stem for p in (ROOT / "dppca_core").glob("*.py") if p.name != "__init__.py")
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    tests = sorted((ROOT / "tests").rglob("test_*.py"))
    folders = sorted({p.parent.relative_to(ROOT / "tests").as_posix() for p in tests} - {"."})
    lib_lines, lib_name = _longest_modules(library, 1)[0]
    lib_fn, lib_fn_name = _longest_function(library)
    dash = _longest_modules(dashboard, 3)
    dash_fn, dash_fn_name = _longest_function(dashboard)
    return [
        ("modules at the top of `dppca_core/` (`__init__` aside)", len(top), ", ".join(top), False),
        ("packages of `dppca_core/`", len(packages), ", ".join(f"`{p}/`" for p in packages), False),
        ("layers of the layers contract (`pyproject.toml`)", len(layers), "from `scenario` down to `compiled`", False),
        ("code lines of the library's longest module", lib_lines, f"`{lib_name}`", True),
        ("code lines of the library's longest function", lib_fn, f"`{lib_fn_name}`", True),
        *[
            (f"code lines of the dashboard's longest module ({i})", n, f"`{name}`", True)
            for i, (n, name) in enumerate(dash, 1)
        ],
        ("code lines of the dashboard's longest function", dash_fn, f"`{dash_fn_name}`", True),
        ("library code lines (`dppca_core/`)", sum(map(_module_lines, library)), f"{len(library)} files", True),
        (
            "dashboard code lines (`app.py`, `pages/`, `ui/`)",
            sum(map(_module_lines, dashboard)),
            f"{len(dashboard)} files",
            True,
        ),
        (
            "test modules (`tests/**/test_*.py`)",
            len(tests),
            "in `tests/` and " + ", ".join(f"`tests/{f}/`" for f in folders),
            True,
        ),
        ("test functions (before parametrization)", _test_functions(tests), "`def test_...` in those modules", True),
    ]


def table(rows=None) -> str:
    rows = figures() if rows is None else rows
    lines = ["| figure | value | which |", "|---|---|---|"]
    lines += [f"| {what} | {value:,} | {which} |" for what, value, which, _ in rows]
    return "\n".join(lines)


def stated(doc: str | None = None) -> dict[str, int]:
    """{figure: value} of the table between the markers of docs/architecture.md."""
    doc = DOC.read_text(encoding="utf-8") if doc is None else doc
    block = doc.split(BEGIN, 1)[1].split(END, 1)[0]
    return {m[1]: int(m[2].replace(",", "")) for m in re.finditer(r"^\| (.+?) \| ([\d,]+) \|", block, flags=re.M)}


def drifted(doc: str | None = None) -> list[str]:
    """The figures of docs/architecture.md that are not the code's (beyond :data:`TOLERANCE` for moving ones)."""
    said, counted = stated(doc), figures()
    out = []
    for what, value, _, moves in counted:
        if what not in said:
            out.append(f"{what}: not stated")
        elif abs(said[what] - value) > (TOLERANCE * value if moves else 0):
            out.append(f"{what}: {said[what]:,} stated, {value:,} in the code")
    return out + [f"{what}: stated, not counted" for what in set(said) - {f[0] for f in counted}]


def write() -> None:
    doc = DOC.read_text(encoding="utf-8")
    before, rest = doc.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    DOC.write_text(f"{before}{BEGIN}\n{table()}\n{END}{after}", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table into docs/architecture.md")
    args = parser.parse_args(argv)
    if args.write:
        write()
        print(f"wrote the figures of {DOC.relative_to(ROOT)}")
    else:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())

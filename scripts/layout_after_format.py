"""The layout limits of tests/test_layout.py, counted on a ruff-formatted copy of the library.

The tree is to be formatted with ``ruff format`` (line length 120, pyproject.toml); the formatter puts one argument
per line where a call or a signature does not fit, so a function or a module within the limits today may exceed them
once formatted. This copies ``dppca_core`` to a temporary folder, formats the copy (the tree is left as it is) and
lists every function over 80 lines and every module over 600 lines, counted as tests/test_layout.py counts them
(:func:`code_lines`: docstrings are not counted, so that a complete numpydoc docstring, which the API reference
asks of every public function, never pushes code over a limit).

    python scripts/layout_after_format.py        # exit status 1 when something is over a limit
"""

import ast
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION, MAX_MODULE = 80, 600


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if not found:
        sys.exit("ruff is not installed: install requirements-dev.txt")
    return found


def _docstring_span(node) -> int:
    """The lines of ``node``'s own docstring (a module, class or function), 0 without one."""
    body = getattr(node, "body", None)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno - first.lineno + 1
    return 0


def code_lines(node, text: str | None = None) -> int:
    """Lines of a function (``node``), or of a module (``text`` and its parsed ``node``), without docstrings."""
    if text is None:
        return node.end_lineno - node.lineno + 1 - _docstring_span(node)
    nodes = (
        n for n in ast.walk(node) if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    )
    return len(text.splitlines()) - sum(_docstring_span(n) for n in nodes)


def over_limits(library: Path) -> list[str]:
    """Each function over :data:`MAX_FUNCTION` lines and each module over :data:`MAX_MODULE` lines of ``library``."""
    over = []
    for path in sorted(library.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(library)
        tree = ast.parse(text)
        if code_lines(tree, text) > MAX_MODULE:
            over.append(f"module {name}: {code_lines(tree, text)} lines")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = code_lines(node)
                if lines > MAX_FUNCTION:
                    over.append(f"function {name}:{node.name}: {lines} lines")
    return over


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "dppca_core", copy / "dppca_core", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "pyproject.toml", copy)
        subprocess.run([_ruff(), "format", "--quiet", "--no-cache", "dppca_core"], cwd=copy, check=True)
        over = over_limits(copy / "dppca_core")
    print("\n".join(over) if over else "every function and module is within the limits once formatted")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

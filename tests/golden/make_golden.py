"""Record the golden cases of tests/golden/cases.py on this machine, beside the tests they belong to.

    python -m tests.golden.make_golden                      # from the repository root: only the missing cases
    python -m tests.golden.make_golden --case run/analyze_gauss   # record one case again (a change on purpose)
    python -m tests.golden.make_golden --all                # record every case again (a new platform)
    python -m tests.golden.make_golden --fields run/analyze_gauss --against main   # which fields moved, and how

A mechanism's cases are recorded in the test module of its module (``dppca_core/mechanisms/central.py``:
``tests/mechanisms/test_central.py``), the library's in ``tests/test_golden.py``: a ``GOLDEN`` text at the module's
end, one line a case: its name, the digest of its output and the digest of its structure (data, as the JSON files
that held them before were). So a new mechanism is its module, its test (whose ``GOLDEN`` record this writes) and its
doc section, and recording it edits no other file.
``fingerprint.json`` (here) is the platform every digest was recorded on. Record a case again only when a change
moves seeded output on purpose, and say in the commit which cases moved and why the new output is still exact. The
tests never write these files.
"""

from __future__ import annotations

import os
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
try:  # the kernels tests/conftest.py forces on a processor with AVX-512: the bits the test compares are theirs
    if " avx512f" in Path("/proc/cpuinfo").read_text():
        os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
except OSError:
    pass

import argparse  # noqa: E402
import ast  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402

#: the repository's root (the folder of ``tests/``)
ROOT = Path(__file__).resolve().parents[2]
#: where the library's cases are recorded
LIBRARY_HOME = "tests/test_golden.py"
FINGERPRINT = "tests/golden/fingerprint.json"
HEADER = (
    "#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`"
)


def home(group: str) -> str:
    """The test module (relative to the root) that records ``group``: a mechanism's cases in the test of its
    module (``dppca_core.<package>.<module>``: ``tests/<package>/test_<module>.py``), the library's in
    ``tests/test_golden.py``."""
    kind, _, name = group.partition("/")
    if kind != "mechanisms":
        return LIBRARY_HOME
    import dppca_core as dc

    package, module = dc.get_mechanism(name).func.__module__.split(".")[-2:]
    return f"tests/{package}/test_{module}.py"


def _block(source: str) -> ast.Assign | None:
    """The module-level ``GOLDEN`` assignment of ``source`` (the record's text), if it has one."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["GOLDEN"]:
            return node
    return None


def _parse(table: str) -> dict[str, tuple[str, str]]:
    """{case: (output, structure)} of a record's text: one line a case, ``<case> <output> <structure>``."""
    return {
        case: (output, structure) for case, output, structure in (line.split() for line in table.split("\n") if line)
    }


def read(path: Path) -> dict[str, tuple[str, str]]:
    """The ``GOLDEN`` record of one test module ({} when it has none, or does not exist)."""
    source = path.read_text() if path.exists() else ""
    node = _block(source) if 'GOLDEN = """' in source else None
    return _parse(node.value.value) if node else {}


def load(root: Path = ROOT) -> dict[str, dict[str, tuple[str, str]]]:
    """{test module: its record} of every test module under ``root`` that records a case."""
    out = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        record = read(path)
        if record:
            out[path.relative_to(root).as_posix()] = record
    return out


def flat(recorded: dict) -> dict[str, tuple[str, str]]:
    """{case: (output, structure)} of every record of :func:`load`."""
    return {case: pair for record in recorded.values() for case, pair in record.items()}


def missing(groups: dict[str, dict], recorded: dict) -> dict[str, list[str]]:
    """{group: the names of its cases not recorded in its home}, for every group that has any."""
    out = {}
    for group, cases in groups.items():
        have = recorded.get(home(group), {})
        absent = [name for name in cases if name not in have]
        if absent:
            out[group] = absent
    return out


def stale(groups: dict[str, dict], recorded: dict) -> dict[str, list[str]]:
    """{test module: recorded cases that are no longer cases there} (a removed mechanism, one moved to another
    module)."""
    homes: dict[str, set] = {}
    for group, cases in groups.items():
        homes.setdefault(home(group), set()).update(cases)
    out = {}
    for path, record in recorded.items():
        gone = sorted(set(record) - homes.get(path, set()))
        if gone:
            out[path] = gone
    return out


def digests(cases: dict, names) -> dict[str, tuple[str, str]]:
    """{name: (output, structure)} of ``names`` among ``cases``, computed here (their warnings silenced)."""
    from tests.golden.cases import case_digest

    out = {}
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = case_digest(cases[name]())
        print(name, file=sys.stderr, flush=True)
    return out


def write(path: Path, entries: dict[str, tuple[str, str]]) -> Path:
    """Merge ``entries`` into the ``GOLDEN`` record of ``path`` (made at its end when it has none), one sorted line
    a case; nothing else in the file changes."""
    source = path.read_text() if path.exists() else ""
    node = _block(source) if 'GOLDEN = """' in source else None
    merged = {**(_parse(node.value.value) if node else {}), **entries}
    block = ['GOLDEN = """', *(f"{c} {e} {s}" for c, (e, s) in sorted(merged.items())), '"""']
    lines = source.splitlines()
    if node:
        lines[node.lineno - 1 : node.end_lineno] = block
    else:
        lines += (["", ""] if lines else []) + [HEADER, *block]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def check_platform(root: Path, here: dict) -> None:
    """Refuse to add digests to a record made on another platform (they could not be compared with each other)."""
    path = root / FINGERPRINT
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(here, indent=1, sort_keys=True) + "\n")
    elif json.loads(path.read_text()) != here:
        raise SystemExit(f"the digests were recorded on another platform ({path}): record all again with --all")


def write_missing(root: Path = ROOT, groups: dict | None = None, recorded: dict | None = None) -> list[Path]:
    """Record the cases missing under ``root`` into their homes (the record of every other case stays as it is).
    Returns the test modules written."""
    from tests.golden.cases import cases_by_group, fingerprint

    groups = cases_by_group() if groups is None else groups
    recorded = load(root) if recorded is None else recorded
    absent = missing(groups, recorded)
    if absent:
        check_platform(root, fingerprint())
    by_home: dict[str, dict] = {}
    for group, names in absent.items():
        by_home.setdefault(home(group), {}).update(digests(groups[group], names))
    return [write(root / path, entries) for path, entries in sorted(by_home.items())]


#: run in a checkout of another revision: the per-field digests of one case there
_FIELDS_THERE = (
    "import json, sys; from tests.golden.cases import all_cases, digest; "
    "print(json.dumps({f: d['exact'] for f, d in digest(all_cases()[sys.argv[1]]()).items()}))"
)


def fields(case: str, revision: str | None = None) -> dict[str, str]:
    """{field: digest of its value} of ``case`` here, or at ``revision`` (in a temporary git worktree)."""
    if revision is None:
        from tests.golden.cases import all_cases, digest

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {f: d["exact"] for f, d in digest(all_cases()[case]()).items()}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "worktree", "add", "--detach", tmp, revision], cwd=ROOT, check=True, capture_output=True)
        try:
            env = {**os.environ, "PYTHONPATH": tmp, "PYTHONWARNINGS": "ignore"}
            run = subprocess.run([sys.executable, "-c", _FIELDS_THERE, case], cwd=tmp, env=env, capture_output=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT, capture_output=True)
    if run.returncode:
        raise SystemExit(f"{case} could not be run at {revision}:\n{run.stderr.decode()[-2000:]}")
    return json.loads(run.stdout.decode().splitlines()[-1])


def show_fields(case: str, revision: str | None) -> None:
    here = fields(case)
    there = fields(case, revision) if revision else {}
    for name, value in sorted(here.items()):
        moved = "" if not revision else "  same" if there.get(name) == value else f"  MOVED (was {there.get(name)})"
        print(f"{name:20} {value}{moved}")
    for name in sorted(set(there) - set(here)):
        print(f"{name:20} (gone; was {there[name]})")


def main(argv: list[str] | None = None) -> None:
    from tests.golden.cases import cases_by_group, fingerprint

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", default=[], help="record this case again")
    parser.add_argument("--all", action="store_true", help="record every case again, on this platform")
    parser.add_argument("--fields", metavar="CASE", help="print the digest of each field of CASE")
    parser.add_argument("--against", metavar="REV", help="with --fields: say which fields moved since REV")
    args = parser.parse_args(argv)
    if args.fields:
        return show_fields(args.fields, args.against)
    groups = cases_by_group()
    of_case = {name: group for group, cases in groups.items() for name in cases}
    unknown = sorted(set(args.case) - set(of_case))
    if unknown:
        parser.error(f"no such case {unknown}; `python -m tests.golden.make_golden --help`")
    again = {name: of_case[name] for name in (list(of_case) if args.all else args.case)}
    if args.all:
        (ROOT / FINGERPRINT).write_text(json.dumps(fingerprint(), indent=1, sort_keys=True) + "\n")
    elif again:
        check_platform(ROOT, fingerprint())
    by_home: dict[str, dict] = {}
    for name, group in again.items():
        by_home.setdefault(home(group), {}).update(digests(groups[group], [name]))
    written = [write(ROOT / path, entries) for path, entries in sorted(by_home.items())] + write_missing()
    for path, names in stale(groups, load()).items():
        print(f"{path}: recorded cases that are no longer its cases: {names} (delete their lines)", file=sys.stderr)
    print(f"wrote {len(set(written))} file(s): {sorted({str(p.relative_to(ROOT)) for p in written})}", file=sys.stderr)


if __name__ == "__main__":
    main()

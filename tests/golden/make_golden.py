"""Record the golden cases of tests/golden/cases.py on this machine: one file per group, only what is missing.

    python -m tests.golden.make_golden                      # from the repository root: only the missing cases
    python -m tests.golden.make_golden --group mechanisms/analyze_gauss   # record one group again, whole
    python -m tests.golden.make_golden --all                # record every group again

Each group of :func:`tests.golden.cases.cases_by_group` has its own file (``mechanisms/<name>.json``,
``library/<part>.json``) with the fingerprint of the platform it was recorded on, so a new mechanism's cases are
added without touching any other file. Run it with no option after adding a mechanism (it writes that mechanism's
file and nothing else); record a group again only when a change moves seeded output on purpose, and say in the
commit which cases moved and why the new output is still exact. The test itself never writes these files.
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
import json  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

#: where the groups' files live
GOLDEN = Path(__file__).parent


def load(directory: Path = GOLDEN) -> dict[str, dict]:
    """{group: {"fingerprint": ..., "cases": {name: digest}}} of every file recorded under ``directory``."""
    return {
        path.relative_to(directory).with_suffix("").as_posix(): json.loads(path.read_text())
        for sub in ("mechanisms", "library")
        for path in sorted((directory / sub).glob("*.json"))
    }


def missing(groups: dict[str, dict], recorded: dict[str, dict]) -> dict[str, list[str]]:
    """{group: the names of its cases with no recorded digest}, for every group that has any."""
    out = {}
    for group, cases in groups.items():
        have = recorded.get(group, {}).get("cases", {})
        absent = [name for name in cases if name not in have]
        if absent:
            out[group] = absent
    return out


def stale(groups: dict[str, dict], recorded: dict[str, dict]) -> dict[str, list[str]]:
    """{group: recorded case names that are no longer cases} (e.g. the file of a mechanism that was removed)."""
    out = {}
    for group, record in recorded.items():
        gone = sorted(set(record["cases"]) - set(groups.get(group, {})))
        if gone:
            out[group] = gone
    return out


def digests(cases: dict, names) -> dict:
    """{name: its digest} of ``names`` among ``cases``, computed here (warnings of the cases silenced)."""
    from tests.golden.cases import digest

    out = {}
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = digest(cases[name]())
        print(name, file=sys.stderr, flush=True)
    return out


def write(directory: Path, group: str, fingerprint: dict, cases: dict) -> Path:
    path = directory / f"{group}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"fingerprint": fingerprint, "cases": cases}, indent=1, sort_keys=True) + "\n")
    return path


def write_missing(directory: Path = GOLDEN, groups: dict | None = None, recorded: dict | None = None) -> list[Path]:
    """Record the cases ``recorded`` lacks (default: what ``directory`` holds) into ``directory``, one file per group
    with this machine's fingerprint; a group recorded on another platform is refused (its digests could not be
    compared with new ones: record it again whole with ``--group``). Returns the files written."""
    from tests.golden.cases import cases_by_group, fingerprint

    groups = cases_by_group() if groups is None else groups
    recorded = load(directory) if recorded is None else recorded
    here, written = fingerprint(), []
    for group, names in missing(groups, recorded).items():
        old = recorded.get(group)
        if old is not None and old["fingerprint"] != here:
            raise SystemExit(f"{group} was recorded on another platform ({old['fingerprint']}): record it whole again.")
        cases = {**(old["cases"] if old else {}), **digests(groups[group], names)}
        written.append(write(directory, group, here, cases))
    return written


def main(argv: list[str] | None = None) -> None:
    from tests.golden.cases import cases_by_group, fingerprint

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--group", action="append", default=[], help="record this group again, whole")
    parser.add_argument("--all", action="store_true", help="record every group again")
    args = parser.parse_args(argv)
    groups = cases_by_group()
    unknown = sorted(set(args.group) - set(groups))
    if unknown:
        parser.error(f"no such group {unknown}; the groups are {sorted(groups)}")
    again = list(groups) if args.all else args.group
    written = [write(GOLDEN, group, fingerprint(), digests(groups[group], groups[group])) for group in again]
    written += write_missing()
    for group, names in stale(groups, load()).items():
        print(f"{group}: recorded cases that no longer exist: {names} (delete them or the file)", file=sys.stderr)
    print(f"wrote {len(written)} file(s): {[str(p.relative_to(GOLDEN)) for p in written]}", file=sys.stderr)


if __name__ == "__main__":
    main()

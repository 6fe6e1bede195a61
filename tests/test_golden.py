"""Seeded releases, audits and exact-noise draws are bit-identical to the ones recorded under tests/golden/.

Each group of cases (a mechanism's, or a part of the library's: :func:`tests.golden.cases.cases_by_group`) has its
own file, ``tests/golden/mechanisms/<name>.json`` or ``tests/golden/library/<part>.json``, written by
``python -m tests.golden.make_golden`` (which writes only the missing cases). A change that moves any published
value of a seeded release (a noise draw consumed differently, a sum taken in another order) fails here, naming the
case and the field; a registered mechanism with no recorded case fails here too, naming it. The bits depend on the
platform: for a file recorded on another one (its ``fingerprint``: OpenBLAS's AVX2 kernels on a processor with AVX2,
whose bits a processor with AVX-512 did not reproduce in one case even with those kernels forced), only the
structure of every output is compared.
"""

import warnings

import pytest

from tests.golden.cases import cases_by_group, digest, fingerprint
from tests.golden.make_golden import load, missing, stale

RECORDED = load()
GROUPS = cases_by_group()
HERE = fingerprint()


def test_every_case_is_recorded():
    """A new mechanism (or case) without its golden file is named, with the command that writes it."""
    absent = missing(GROUPS, RECORDED)
    assert not absent, (
        f"no golden digest recorded for {absent}: run `python -m tests.golden.make_golden` "
        "(it writes only the missing cases, each group in its own file)"
    )


def test_no_recorded_case_is_stale():
    gone = stale(GROUPS, RECORDED)
    assert not gone, f"recorded cases that no longer exist: {gone} (delete them, or the group's file)"


@pytest.mark.parametrize(
    "group, name", [(group, name) for group, record in sorted(RECORDED.items()) for name in sorted(record["cases"])]
)
def test_seeded_output_is_unchanged(group, name):
    if name not in GROUPS.get(group, {}):
        pytest.skip(f"{name} is no longer a case (test_no_recorded_case_is_stale names it)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = digest(GROUPS[group][name]())
    want = RECORDED[group]["cases"][name]
    assert sorted(got) == sorted(want), f"{name}: fields changed"
    assert {f: got[f]["shape"] for f in got} == {f: want[f]["shape"] for f in want}, f"{name}: structure changed"
    if RECORDED[group]["fingerprint"] == HERE:
        moved = [f for f in want if got[f]["exact"] != want[f]["exact"]]
        assert not moved, f"{name}: seeded output changed in {moved}"

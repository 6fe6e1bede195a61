"""Seeded releases, audits and exact-noise draws are bit-identical to the ones recorded.

Each case (a mechanism's, or a part of the library's: :func:`tests.golden.cases.cases_by_group`) is recorded in the
test module of its mechanism's module, the library's here (the ``GOLDEN`` record at the end), by
``python -m tests.golden.make_golden`` (which writes only the missing cases). A change that moves any published
value of a seeded release (a noise draw consumed differently, a sum taken in another order) fails here, naming the
case (``python -m tests.golden.make_golden --fields CASE --against main`` names the fields that moved); a registered
mechanism with no recorded case fails here too, naming it. The bits depend on the platform: for digests recorded on
another one (``tests/golden/fingerprint.json``: OpenBLAS's AVX2 kernels on a processor with AVX2, whose bits a
processor with AVX-512 did not reproduce in one case even with those kernels forced), only the structure of every
output is compared.
"""

import json
import warnings

import pytest

from tests.golden import make_golden
from tests.golden.cases import all_cases, case_digest, cases_by_group, fingerprint

RECORDED = make_golden.load()
GROUPS = cases_by_group()
CASES = all_cases()
SAME_PLATFORM = json.loads((make_golden.ROOT / make_golden.FINGERPRINT).read_text()) == fingerprint()
FIELDS = "`python -m tests.golden.make_golden --fields {} --against main` names the fields"


def test_every_case_is_recorded():
    """A new mechanism (or case) without its golden record is named, with the command that writes it."""
    absent = make_golden.missing(GROUPS, RECORDED)
    assert not absent, (
        f"no golden digest recorded for {absent}: run `python -m tests.golden.make_golden` "
        "(it writes only the missing cases, in the test module of the mechanism's module)"
    )


def test_no_recorded_case_is_stale():
    gone = make_golden.stale(GROUPS, RECORDED)
    assert not gone, f"recorded cases that are not (or no longer) cases of their module: {gone} (delete their lines)"


@pytest.mark.parametrize("name", sorted(make_golden.flat(RECORDED)))
def test_seeded_output_is_unchanged(name):
    if name not in CASES:
        pytest.skip(f"{name} is no longer a case (test_no_recorded_case_is_stale names it)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        output, structure = case_digest(CASES[name]())
    want_output, want_structure = make_golden.flat(RECORDED)[name]
    assert structure == want_structure, f"{name}: the structure of its output changed; " + FIELDS.format(name)
    if SAME_PLATFORM:
        assert output == want_output, f"{name}: its seeded output changed; " + FIELDS.format(name)


def test_a_record_is_written_into_its_block_and_nothing_else(tmp_path):
    """make_golden merges a case into a test module's GOLDEN record, sorted, leaving every other line as it was."""
    path = tmp_path / "test_mod.py"
    path.write_text('"""A test module."""\n\n\ndef test_x():\n    assert True\n')
    make_golden.write(path, {"run/b": ("1" * 24, "2" * 16)})
    make_golden.write(path, {"run/a": ("3" * 24, "4" * 16)})
    text = path.read_text()
    assert text.startswith('"""A test module."""\n\n\ndef test_x():\n    assert True\n\n\n' + make_golden.HEADER)
    assert make_golden.read(path) == {"run/a": ("3" * 24, "4" * 16), "run/b": ("1" * 24, "2" * 16)}
    assert text.index("\nrun/a ") < text.index("\nrun/b ") and text.endswith('\n"""\n')
    compile(text, str(path), "exec")


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
estimator 1b51d40dd8710ab767e82295 23a313c643f4a0e4
option/every_choice 5f8f40b4578f2df926a25a81 bb71a20dc574a9c6
option/every_choice_add_remove 77da548107b5544bddabff7f a1b8670aea0e1188
option/frame_private ad287a108e818dfd8f7c9baa 302633543a5e8663
option/groups_declared 134ab4f73840172dc6790a66 10e635925e74909f
option/groups_private 0c747deb25780d4957bf6035 5c475901db3cc207
option/k_auto 56487f68823add6ac482fc0f 7333f7bb9db0a21d
option/laplace_parts 5d00e5b381133a53209acee2 cc33309789ff7f7f
option/mean_add_remove 233e615d0d23264a34b69dec cd817c47e2fd7d61
option/private_radius 8befd70bf7467c42aa6bfd05 d866ff693b2990a9
option/rotated_basis f60294ab38d2e5d85e8ec17c c3bc255f7edf5f6a
option/scale_bounds 7dbda93751e1a2e00abc0245 57465448dad89479
option/scale_private 9fd76d2841bfc742094d9b35 6e33c8d8ef260899
option/sparse_scores afd920a8129ca1595f462c60 c6bea90c11bdd3b1
sampler/laplace/1/1000003/1024 a0d0181196ef0562277a9cad 5a5dc8b815532b34
sampler/laplace/1/3/2 0481e7ee929ecc4895e3b03f 5a5dc8b815532b34
sampler/laplace/1000/1000003/1024 7ba15e30144c9aa4997a6f20 5a66e2bcfdc19c46
sampler/laplace/1000/3/2 e4e846b66d77f20a437b70b2 5a66e2bcfdc19c46
sampler/laplace/127/1000003/1024 70f4683e87c072884815b9cc 12da7ba2ca2876ac
sampler/laplace/127/3/2 a9143778544559dde67143a1 12da7ba2ca2876ac
sampler/laplace/128/1000003/1024 a003b570c9bd08d51f5433d2 6087e8134d9671b5
sampler/laplace/128/3/2 245564ec869a8ca9d4921bb3 6087e8134d9671b5
sampler/laplace/7/1000003/1024 29613c45d5027535a9605082 1ff6af988b03b8a4
sampler/laplace/7/3/2 af584c668b32e91cb5588ef4 1ff6af988b03b8a4
sampler/normal/1/1000003/1024 957d91132ff627258f4d5c58 5a5dc8b815532b34
sampler/normal/1/3/2 0481e7ee929ecc4895e3b03f 5a5dc8b815532b34
sampler/normal/1000/1000003/1024 aebe506211ee19c79ade55a7 5a66e2bcfdc19c46
sampler/normal/1000/3/2 25dd2a0c8b13fcf3520bc1cd 5a66e2bcfdc19c46
sampler/normal/127/1000003/1024 2a006b0879df2042f0367867 12da7ba2ca2876ac
sampler/normal/127/3/2 740e800c4c970a716f6d9fb7 12da7ba2ca2876ac
sampler/normal/128/1000003/1024 123fc8270faf61ea9c02239d 6087e8134d9671b5
sampler/normal/128/3/2 86ebad86ffdc89c0fe9a5d45 6087e8134d9671b5
sampler/normal/7/1000003/1024 a115139bc721f8447fb67084 1ff6af988b03b8a4
sampler/normal/7/3/2 e59299b55fda5629c8de024f 1ff6af988b03b8a4
sums d0861b7e89c83466dad2d31a 08a910d11ed57154
"""

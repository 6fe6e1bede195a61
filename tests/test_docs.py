"""The reference site (issue 59): the user guide (docs/*.md) and the API reference built from the docstrings, warnings
as errors (numpydoc's checks among them: every parameter documented, a Returns section, an example), and every
public object's examples run as doctests.

The build goes to a temporary folder (its doctree cache too): nothing is written into the repository.
"""

import doctest
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import dppca_core as dc
from dppca_core import metrics, privacy
from dppca_core.data import datasets

ROOT = Path(__file__).resolve().parents[1]
#: the modules whose public names the reference documents (docs/reference/api.rst), with their names
MODULES = {dc: dc.__all__, metrics: metrics.__all__, privacy: privacy.__all__, datasets: datasets.__all__}


def public_objects() -> dict:
    """Every public function and class the reference documents, by its full name (constants and modules left out)."""
    found = {}
    for module, names in MODULES.items():
        for name in names:
            obj = vars(module).get(name)  # the names bound in the module
            if obj is not None and not inspect.ismodule(obj) and (inspect.isclass(obj) or inspect.isroutine(obj)):
                found[f"{module.__name__}.{name}"] = obj
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", "docs/reference"]
        + ["-d", str(out / "doctrees"), "docs", str(out / "html")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stdout[-3000:] + done.stderr[-5000:]
    return out / "html"


def test_the_reference_lists_every_public_name(site):
    api = (site / "reference" / "api.html").read_text(encoding="utf-8")
    missing = [name for name in public_objects() if f'id="{name}"' not in api]
    assert not missing, f"not in the reference: {missing}"
    assert 'id="dppca_core.run"' in api and "Parameters" in api and "Examples" in api


def test_the_user_guide_is_in_the_site(site):
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")}
    built = {p.stem for p in site.glob("*.html")}
    assert pages <= built, f"pages missing from the site: {sorted(pages - built)}"


@pytest.mark.parametrize("name", sorted(public_objects()))
def test_the_examples_run(name):
    obj = public_objects()[name]
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, name, globs={}) if t.examples]
    assert tests, f"{name} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {name} failed (the report is above)"

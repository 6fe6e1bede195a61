"""Sphinx settings of the reference site: the user guide (docs/*.md, through MyST) and the API reference built from
the docstrings (numpydoc). Build it from the repository's top folder, warnings as errors:

    python -m sphinx -W --keep-going -c docs/reference docs <output folder>

tests/test_docs.py runs this build (into a temporary folder) and the docstrings' examples.
"""

import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository's dppca_core, not another installed copy

from dppca_core.version import __version__  # noqa: E402

project = "DP-PCA Explorer"
author = "the DP-PCA Explorer authors"
release = version = __version__
root_doc = "reference/index"
extensions = ["myst_parser", "sphinx.ext.autodoc", "numpydoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["reproduce/**", "screenshots/**"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_static_path = []
suppress_warnings = ["myst.header"]  # docs/audit-table.md is generated with its headings from H2

#: the user guide's anchors written for GitHub as raw HTML (``<a id="item-4"></a>``): targets for MyST's links too
_ANCHOR = re.compile(r'^\s*<a id="([^"<>]+)">(</a>)?\s*$')


def _html_anchors(app, doctree) -> None:
    """Each raw ``<a id="..."></a>`` becomes a target of its document: links to ``page.md#id`` from another page
    resolve through the standard domain, and ``#id`` links on the same page point at it directly."""
    std, docname, ids = app.env.domains.standard_domain, app.env.docname, set()
    for raw in list(doctree.findall(nodes.raw)):
        found = _ANCHOR.match(raw.astext()) if raw.get("format") == "html" else None
        if found:
            after = raw.next_node(descend=False, siblings=True)
            if not found[2] and isinstance(after, nodes.raw) and after.astext().strip() == "</a>":
                after.parent.remove(after)  # the anchor's closing tag (Markdown gives it as a node of its own)
            target = nodes.target("", "", ids=[found[1]])
            raw.replace_self(target)
            doctree.ids[found[1]] = target
            std.anonlabels[f"{docname}#{found[1]}"] = (docname, found[1])
            ids.add(found[1])
    for ref in list(doctree.findall(addnodes.pending_xref)):
        if ref.get("reftype") == "myst" and ref.get("reftarget") in ids:
            ref.replace_self(nodes.reference("", "", *ref.children, refid=ref["reftarget"], internal=True))


def setup(app):
    app.connect("doctree-read", _html_anchors)


# -- the API reference ---------------------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc's Parameters say the types in words
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
#: numpydoc checks every function and class the reference shows (warnings: the build fails on them): a docstring
#: (GL08), every parameter documented and no unknown one (PR01, PR02), a Returns section (RT01), an example (EX01)
numpydoc_validation_checks = {"GL08", "PR01", "PR02", "RT01", "EX01"}
#: methods and attributes of the classes are documented but not held to the checks
numpydoc_validation_exclude = {r"\.[A-Z]\w*\.\w+$"}

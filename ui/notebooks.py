"""Two Jupyter notebooks from the Report, each saying its kind on its first cell (pure: no Streamlit calls).

* The **exploration notebook** is an exploration record like the Report's script: seeded, it reproduces the Report's
  table through the same library calls (:func:`ui.script_export.prepare_lines`, :func:`ui.script_export.compare_lines`), reading
  the data file from a path set in its first code cell.
* The **release notebook** spends the budget once: its release cell draws one release per mechanism with a guarantee
  with fresh randomness (``seed=None``), exports them with :func:`dppca_core.publish` and writes the publishable JSON
  (:mod:`dppca_core.publishable`, as the Report's "Draw releases to publish") and the publishable brief beside it
  (:func:`dppca_core.handout.brief.build_brief`, ``<output>.brief.html``). Each spend is added to a small ledger
  file next to the output, and running the cell again asks for confirmation (and spends nothing when it cannot ask).

Both import an installed ``dppca_core`` and, when it is missing, say in one line how to install it. The notebooks are
written in the notebook format version 4.5 directly (plain JSON: the app needs no Jupyter package); the tests check
them with ``nbformat`` and run them with ``nbclient``.
"""

from __future__ import annotations

import json
import pprint

from dppca_core import publishable
from dppca_core.privacy import describe_neighbors
from dppca_core.registry import display_name

from . import release_file, report, scenario, script_export

#: the first line of every release notebook (fixed text: no user input in it)
RELEASE_NOTEBOOK = (
    "Release notebook: running its release cell spends the privacy budget on the data once, with "
    "fresh randomness, and writes a publishable file; it holds no data, no seed and no diagnostics."
)
#: the file the release notebook writes, and the ledger of every spend from its folder (next to it)
RELEASE_OUTPUT = "dppca_releases.json"
LEDGER_NAME = "dppca_ledger.sqlite"
#: what the exploration notebook needs, in one line on its first cell: the README's install brings all but plotly
EXPLORATION_NEEDS = (
    "Needs the package installed once (`pip install -e <the project's folder>`); its last cell's figure also needs "
    "plotly (`pip install plotly`), and without it that cell says so and draws nothing."
)


def _cell(kind: str, source: str, number: int) -> dict:
    cell = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def notebook_json(cells: list[tuple[str, str]]) -> str:
    """A notebook (format 4.5) of ``cells`` ((kind, source): "markdown" or "code"), as JSON text."""
    nb = {
        "cells": [_cell(kind, source, i) for i, (kind, source) in enumerate(cells)],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _setup(vals: dict, upload: dict | None, more: str, extra_lines: tuple = ()) -> str:
    """The first code cell: where the data file is (for data the notebook does not make), then the imports."""
    lines = []
    if script_export.reads_a_file(vals):
        name = (upload or {}).get("name") or scenario.Settings(vals).source.split(":", 1)[-1]
        lines += [
            "# The data file this notebook reads: its path, relative to the notebook's folder or absolute.",
            f"DATA_FILE = {name!r}",
        ]
    lines += list(extra_lines)
    lines += [
        "import sys",
        "",
        script_export.IMPORT_LINES.format(more=more, what="notebook (restart its kernel first)"),
    ]
    return "\n".join(lines)


def _data(vals: dict, upload: dict | None) -> str:
    return "\n".join(
        [
            "labels = None  # the label column, where the data have one (a score plot by group uses it)",
            *script_export.load_lines(vals, upload, path="DATA_FILE"),
        ]
    )


def exploration_notebook(vals: dict, upload: dict | None, has_labels: bool) -> str:
    """The exploration notebook of the scenario (an exploration record: seeded, never to publish); ``has_labels``:
    whether the page's data have a label column (:func:`ui.script_export.build_script`)."""
    s = scenario.Settings(vals)
    intro = (
        f"{report.record_line(vals)}\n\n## Exploration notebook (DP-PCA Explorer)\n\n"
        "It reproduces the Report's table with the same library calls and the same seeds (data seed "
        f"{s.data_seed}, noise seed {s.seed}): seeded runs, to explore and to reproduce, never to "
        "publish. "
        "A release to publish is drawn with fresh randomness: the Report's release notebook does that.\n\n"
        f"Scenario: `?{scenario.query_string(vals)}`\n\n{EXPLORATION_NEEDS}"
    )
    if script_export.reads_a_file(vals):
        intro += "\n\nSet the path of your data file in the next cell, then run every cell."
    return notebook_json(
        [
            ("markdown", intro),
            ("code", _setup(vals, upload, more="")),
            ("code", _data(vals, upload)),
            ("code", "\n".join(script_export.prepare_lines(vals, has_labels))),
            ("code", "\n".join([*script_export.compare_lines(vals), "print(table.to_string(index=False))"])),
            ("code", _figure_code(vals)),
        ]
    )


def _figure_code(vals: dict) -> str:
    """The Report's main figure: each mechanism's subspace distance over the repetitions, against the level of a
    random subspace (with k chosen privately: without that level, each release being scored at its own k)."""
    k = None if scenario.private_k(vals) else int(scenario.Settings(vals).k)
    level = (
        []
        if k is None
        else [
            f"    level = metrics.random_subspace_distance(inp.data.d, {k})  # a random subspace's distance",
            f"    scale = {{'x_range': (0.0, 1.05 * metric.upper({k}, inp.data.d)), 'reference': level}}",
        ]
    )
    return "\n".join(
        [
            "# The Report's main figure: each mechanism's subspace distance over the repetitions (needs plotly)",
            "try:",
            "    from dppca_core import figures, metrics",
            "except ImportError as exc:",
            '    print(f"No figure: {exc}. Install plotly (pip install plotly) to draw it.")',
            "else:",
            "    metric = experiments.METRICS['subspace_distance']",
            *level,
            "    figure = figures.quantile_dotplot({mech: run.distance for mech, run in runs.items()}, metric.describe(),",
            f"                                      **{'scale' if level else '{}'})",
            "    figure.show()",
        ]
    )


def _literal(name: str, value) -> str:
    """``name = value`` as Python, wrapped to fit the notebook."""
    return f"{name} = " + pprint.pformat(value, width=110, sort_dicts=False)


def release_constants(vals: dict, has_labels: bool) -> list[str]:
    """The release cell's public inputs, as literals: the mechanisms with a guarantee (each one's options are the
    ``OPTIONS`` of :func:`ui.script_export.prepare_lines`, the one translation the pages use), the settings and schema the
    file states (:func:`ui.release_file.publishable_file`), the choices made without privacy (the releases then state
    none)."""
    mechs = [m for m in scenario.mechanisms(vals) if not publishable.refusal(m)]
    return [
        f"MECHANISMS = {mechs!r}  # one release each, with its OPTIONS (those without a guarantee are left out)",
        _literal("NONPRIVATE", scenario.nonprivate_choices(vals)),
        _literal("SETTINGS", release_file.public_settings(vals, None, has_labels)),
        _literal("TITLES", {m: display_name(m) for m in mechs}),
        _literal("LEFT_OUT", release_file.left_out(scenario.mechanisms(vals))),
    ]


#: the release cell: states what it will spend and the total it brings the book to, spends once (again only after a
#: confirmation), and records every spend in the budget book next to the output (dppca_core.book, exact composition)
RELEASE_CELL = """# The release cell: it spends the privacy budget on the data. It says first what it will spend; run again, it
# asks (and spends nothing when it cannot ask, e.g. when the notebook is run from the command line).
from dppca_core.book import BudgetBook, Spend, book_key, fingerprint
from dppca_core.handout.brief import build_brief
from dppca_core.pipeline.budget import planned_curve, release_delta
from dppca_core.privacy import PrivacyCurve

book_path = Path(OUTPUT).with_name(LEDGER_NAME)  # one budget book per folder, whatever the output's name
book = BudgetBook(book_path)
source = Path(DATA).read_bytes() if Path(str(DATA)).is_file() else str(DATA).encode()
table = book.table(fingerprint(source, book_key(book_path)), Path(str(DATA)).name, SCHEMA)
# what each release reads from the prepared input, and the options it runs with (experiments.release_input)
releasing = {m: experiments.release_input(inp, OPTIONS[m]) for m in MECHANISMS}
# what each release will spend, from its options alone (the curve its plan composes to: the one it then states)
pending = [Spend("release", f"{TITLES[m]} release", planned_curve(m, options), release_delta(m, options), m)
           for m, (X_release, options) in releasing.items()]
EPSILON, DELTA, NEIGHBORS = SETTINGS["epsilon"], SETTINGS["delta"], SETTINGS["neighbors"]  # each release's budget
print(f"Spent on these data so far (book {book_path}): {book.spent(table).words()}. This cell spends "
      f"epsilon = {EPSILON:g}, delta = {DELTA:g} for each of {len(pending)} release(s); after it: "
      f"{book.spent(table, extra=pending).words()}.")
spend = not book.spends(table)
if not spend:
    try:
        spend = input("The budget was already spent on these data. Spend it once more? Type yes: ").strip() == "yes"
    except (EOFError, OSError, NotImplementedError):  # nobody to ask (run without a person at the keyboard)
        spend = False
    if not spend:
        print("Not spent again: the files written before keep their releases. To spend once more, run this cell and "
              "answer yes.")
if spend:
    earlier = [{"what": s.what, "privacy": s.curve.as_dict(), "delta": s.delta} for s in book.spends(table)]
    ids = book.reserve(table, pending)  # recorded before the draw (refused past a cap set on this book)
    releases = {m: dc.publish(dc.release_with(m, X_release, options, seed=None), nonprivate_choices=NONPRIVATE)
                for m, (X_release, options) in releasing.items()}
    settings = {**SETTINGS, "n": inp.data.n if NEIGHBORS == "replace" else None}  # n is public under replace-one
    file = publishable.publishable_file(releases, schema=SCHEMA, settings=settings, titles=TITLES, left_out=LEFT_OUT,
                                        earlier=earlier)  # the file's total composes what was spent before too
    text = publishable.file_json(file)
    Path(OUTPUT).write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    for spend_id, mech in zip(ids, MECHANISMS):
        book.settle(spend_id, PrivacyCurve.from_dict(releases[mech]["privacy"]), digest)
    brief_path = Path(OUTPUT).with_suffix(".brief.html")  # the handout, made from the publishable file alone
    try:
        brief_path.write_text(build_brief(file), encoding="utf-8")
        print(f"Wrote {brief_path}: the publishable brief, one printable page for readers of the release.")
    except ValueError as exc:  # no release with a guarantee: nothing to hand out
        print(f"No brief: {exc}")
    print(f"Wrote {OUTPUT}: {file['export']}")
# every spend on the same data composes: the book reads them together exactly (as the brief's 'together' does)
print(f"Spent on these data, recorded in {book_path}: {book.spent(table).words()}.")"""


def release_notebook(vals: dict, ds, upload: dict | None = None) -> str:
    """The release notebook of the scenario on ``ds`` (its public schema and whether it has a label column)."""
    s = scenario.Settings(vals)
    intro = (
        f"{RELEASE_NOTEBOOK}\n\n## Release notebook (DP-PCA Explorer)\n\n"
        f"Its release cell draws one release per mechanism with a guarantee (ε = {s.epsilon:g}, "
        f"δ = {s.delta:g} each, neighbouring datasets {describe_neighbors(s.neighbors)}) with fresh "
        f"operating-system randomness, never a seed, and writes `{RELEASE_OUTPUT}`: only what each release's "
        "proof covers, with the public schema and settings (its format: docs/publishable.md in the project), "
        "and beside it the publishable brief, a printable page made from that file alone. "
        f"It says first what it will spend and what that brings the total to; each spend is recorded in the budget "
        f"book `{LEDGER_NAME}` next to it (a SQLite file: `python -m dppca_core.book --book {LEDGER_NAME} list`), "
        "composed exactly with every spend before; running the release cell again asks before it spends again. "
        "It carries no "
        "seed: the scenario's link (with its noise seed) belongs to the exploration records."
    )
    if script_export.reads_a_file(vals):
        intro += "\n\nSet the path of your data file in the next cell, then run every cell."
    setup = _setup(
        vals,
        upload,
        more="\n    from dppca_core import publishable",
        extra_lines=(
            f"OUTPUT = {RELEASE_OUTPUT!r}  # the publishable file; its budget book goes next to it",
            f"LEDGER_NAME = {LEDGER_NAME!r}",
            "import hashlib",
            "from pathlib import Path",
        ),
    )
    has_labels = getattr(ds, "labels", None) is not None
    constants = release_constants(vals, has_labels)
    constants.append(_literal("SCHEMA", release_file.public_schema(ds)))
    constants.append(
        "DATA = DATA_FILE  # what the budget book says the releases read"
        if script_export.reads_a_file(vals)
        else _literal("DATA", release_file.data_kind(vals))
    )
    return notebook_json(
        [
            ("markdown", intro),
            ("code", setup),
            ("code", _data(vals, upload)),
            ("code", "\n".join(script_export.prepare_lines(vals, has_labels))),
            (
                "code",
                "\n".join(
                    [
                        "# what the release cell draws and states: public settings only (nothing read from the "
                        "data)",
                        *constants,
                    ]
                ),
            ),
            ("code", RELEASE_CELL),
        ]
    )

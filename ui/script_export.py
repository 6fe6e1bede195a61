"""The Report's Python script: an exploration record that reprints the Report's table for this scenario (same seeds,
same numbers), and the lines the notebooks share with it (:mod:`ui.notebooks`).

It states each mechanism's options as the pages translate them (:func:`dppca_core.scenario.release.scenario_options`)
and runs the library path the pages run. Every user-controlled string (file and column names) is written as a Python
literal.
"""

from __future__ import annotations

import dataclasses

import dppca_core as dc
from dppca_core.scenario import release as translation

from . import scenario
from .report import record_line


def load_lines(vals: dict, upload: dict | None = None, path: str | None = None) -> list[str]:
    """The lines that read or make the data (``X``, ``labels``, ``support``). ``path``: the Python expression of the
    data file's path (default: the script's first argument)."""
    s = scenario.Settings(vals)
    src = s.source
    if src == "synthetic":
        sparse = s.planted_sparsity or None
        return [
            f"syn = datasets.spiked_covariance(n={s.rows}, d={s.features}, k={s.planted_rank}, "
            f"spike={s.spike_strength!r}, sparsity={sparse!r}, seed={s.data_seed})",
            "X = syn.X",
            "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse",
        ]
    if src.startswith("preset:"):
        name = src.split(":", 1)[1]
        return [
            f"preset = datasets.PRESETS[{name!r}]",
            f"syn = preset.make(**preset.defaults, seed={s.data_seed})",
            "X = syn.X",
            "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse",
        ]
    if src.startswith("sample:"):
        return [
            f"table = datasets.load_sample({src.split(':', 1)[1]!r})",
            "X, labels = table.X, table.labels",
            "support = None",
        ]
    if src.startswith("server:"):
        path = path or f"sys.argv[1] if len(sys.argv) > 1 else {src.split(':', 1)[1]!r}"
        return [
            "# the file read on the server, streamed into sufficient statistics (pass its path)",
            f"X = dc.sufficient_stats({path}, "
            f"columns={scenario.declared_columns(vals)!r}, data_norm={s.radius!r}, on_bad='replace', "
            f"fill={scenario.fill_values(vals) or None!r})",
            "support = None",
        ]
    upload = upload or {}
    columns = list(upload.get("columns") or ()) or None
    return [
        "# the uploaded table is not part of the link: "
        + ("pass its path as the first argument" if path is None else "set its path above"),
        f"table = datasets.load_table({path or 'sys.argv[1]'}, columns={columns!r}, "
        f"label={upload.get('label') or None!r}, on_bad={upload.get('on_bad', 'error')!r}, "
        f"fill={upload.get('fill') or None!r})",
        "X, labels = table.X, table.labels",
        "support = None",
    ]


def reads_a_file(vals: dict) -> bool:
    """Whether the scenario's data come from a file the script or notebook must be given (an upload, a server file)."""
    s = scenario.Settings(vals)
    return s.source == "upload" or s.source.startswith("server:")


#: how a downloaded script or notebook says, in one line, that dppca_core is missing and how to install it
IMPORT_LINES = (
    """try:
    import dppca_core as dc
    from dppca_core.data import datasets
    from dppca_core.pipeline import experiments{more}
except ImportError as exc:  # not installed for this Python: say how, in one line
    sys.exit(f"{{exc}}: install the DP-PCA Explorer project first: {{sys.executable}} -m pip install -e <the project's "
             "folder> (the folder holding pyproject.toml), then run this {what} again.")
MADE_WITH = "%s"  # the DP-PCA Explorer version that wrote this record (another may draw other numbers from a seed)
if dc.__version__ != MADE_WITH:
    print(f"Written by DP-PCA Explorer {{MADE_WITH}}; this Python has {{dc.__version__}}: numbers may differ.")"""
    % dc.__version__
)


def split_code(split) -> str:
    """A budget split as Python, its subspace share and every other share above 0 (None: the whole budget goes to the
    subspace)."""
    if split is None:
        return "None"
    shares = {part: share for part, share in split.as_dict().items() if share > 0 or part == "subspace"}
    return "dc.BudgetSplit(" + ", ".join(f"{part}={share!r}" for part, share in shares.items()) + ")"


#: what stands for the data's label column in the options a script or notebook states (the code names its own)
LABEL_COLUMN = "labels"


#: the options a script always states, default or not (what a reader looks for first)
STATED_OPTIONS = ("k", "epsilon", "delta", "neighbors", "data_norm", "center")


def options_code(options, indent: int = 4) -> str:
    """One release's options as Python: ``dc.ReleaseOptions(...)`` with :data:`STATED_OPTIONS` (and a private
    radius's bounds and quantile) and every option that differs from its default, the score plot's groups being the code's own label column (a name, not a value),
    wrapped to lines of at most about 110 characters."""
    parts = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        stated = f.name in STATED_OPTIONS or (options.private_radius and f.name.startswith("radius_"))
        if stated or value != default:
            code = (
                LABEL_COLUMN if f.name == "score_groups" else split_code(value) if f.name == "budget" else repr(value)
            )
            parts.append(f"{f.name}={code}")
    lines, line = [], "dc.ReleaseOptions("
    for part in parts:
        if len(line) + len(part) > 110 and not line.endswith("("):
            lines.append(line.rstrip())
            line = " " * (indent + 4)
        line += part + ", "
    return "\n".join([*lines, line.rstrip(", ") + ")"])


def options_lines(vals: dict, has_labels: bool, name: str = "OPTIONS") -> list[str]:
    """``OPTIONS = {mechanism: dc.ReleaseOptions(...)}``: the scenario's releases as the pages run them (the one
    translation, :func:`dppca_core.scenario.release.scenario_options`), the score plot's groups from the code's label
    column when the data have one (``has_labels``)."""
    options = translation.scenario_options(vals, LABEL_COLUMN if has_labels else None)
    return [
        "# every option of each mechanism's releases, as the page runs them (dppca_core.scenario.release)",
        f"{name} = {{",
        *(f"    {mech!r}: {options_code(opts, 4)}," for mech, opts in options.items()),
        "}",
    ]


def prepare_lines(vals: dict, has_labels: bool) -> list[str]:
    """The lines that state each release's options (``OPTIONS``, :func:`options_lines`) and build the mechanisms'
    input from them (``inp``), as the pages do: column scaling, centring, clipping radius."""
    s = scenario.Settings(vals)
    first = translation.mechanisms(vals)[0]
    return [
        *options_lines(vals, has_labels),
        f"# the page's path: column scaling ({s.scaling}), centring ({s.centring}), clipping radius R "
        f"({s.radius_from}), the same for every mechanism",
        f"inp = experiments.input_for(X, OPTIONS[{first!r}])",
    ]


def compare_lines(vals: dict) -> list[str]:
    """The lines that run the Report's seeded repetitions and make its table (``table``, ``runs``)."""
    s = scenario.Settings(vals)
    return [
        f"table, runs = experiments.compare(inp, OPTIONS, reps={s.repetitions}, seed={s.seed}, support=support, "
        f"s={s.support_size})",
    ]


def build_script(vals: dict, upload: dict | None = None, *, has_labels: bool) -> str:
    """A Python script that prints the Report's results table for this scenario (same seeds, same numbers).

    It states each mechanism's options as the page translates them (:func:`options_lines`) and runs the library path
    the page runs (:func:`dppca_core.pipeline.experiments.input_for` then
    :func:`dppca_core.pipeline.experiments.compare`). It needs only the installed ``dppca_core`` package
    (``pip install -e`` the project) and runs from any folder; without the package it stops with one line saying how
    to install it. ``upload``: the uploaded file's column choice (columns, label, what to do with bad cells), so the
    script reads the same table; ``has_labels``: whether the page's data have a label column (a score plot by group
    uses it), so the script asks each release what the page asks.
    """
    body = "\n".join(
        [
            "labels = None  # the label column, where the data have one (a score plot by group uses it)",
            *load_lines(vals, upload),
            *prepare_lines(vals, has_labels),
            *compare_lines(vals),
            "print(table.to_string(index=False))",
        ]
    )
    return f'''"""{record_line(vals)}

Reproduces a DP-PCA Explorer exploration: prints the Report's table (generated by DP-PCA Explorer {dc.__version__}).
Needs the dppca_core package: install the DP-PCA Explorer project once (pip install -e <its folder>, with
the Python that runs this script); then it runs from any folder.
Scenario: ?{scenario.query_string(vals)}
"""
import sys

{IMPORT_LINES.format(more="", what="script")}

{body}
'''

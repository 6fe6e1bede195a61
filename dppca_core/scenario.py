"""The scenario: every setting of the app, its validation, and its two portable forms (UI-free).

A scenario is a dict of every setting (:data:`FIELDS`, each with its type, default and range) plus any mechanism
parameter (``<mechanism>.<parameter>``, validated by the registry). It leaves the app in two forms, and both come
back through the same validation, so a hostile or hand-edited value falls back to its default with a notice:

* a link's query string (:func:`to_query`, :func:`from_query`): only what differs from the defaults;
* a **scenario file** (:class:`Scenario`, :func:`to_toml`, :func:`from_toml`): versioned TOML holding every
  setting, grouped by page, with the public schema of the data (its columns, label, what a bad cell becomes) as
  lists and tables. A scenario file never holds data rows: nothing in a scenario is read from a table's cells.
  Its format: ``docs/notebooks.md``, its JSON schema: ``docs/scenario.schema.json`` (:func:`file_schema`).

The Streamlit app holds the session's scenario and binds widgets to it in ``ui/scenario.py``.
"""
from __future__ import annotations

import json
import math
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import datasets as dsets
from . import experiments, reproduce
from .registry import get_mechanism, mechanism_names

#: Largest synthetic table (rows x columns) a link may ask for; uploads have their own limit.
MAX_CELLS = 4_000_000
#: Longest raw URL value we parse (anything longer is refused before parsing).
MAX_RAW_CHARS = 2_000
VIEWS = ("spread", "loadings", "projection", "angles", "animation", "support", "downstream", "convergence", "risk",
         "scree", "scores")
SWEEP_AXES = ("eps", "n", "d", "delta", "k", "s")
METRICS = tuple(experiments.METRICS)
AUDIT_TRIALS = (500, 1000, 2000, 5000, 10000, 20000)
#: Where the clipping radius R came from: value -> (how the Data page says it, the non-private choice it makes or
#: None when it reads nothing from the data). A small enumeration on purpose: a private choice of R from its own
#: budget share is one more entry.
R_SOURCES = {
    "public": ("a public bound I know (no data read)", None),
    "hints": ("read from the data's hints (NOT private)", "the clipping radius R was read from the data (the Data "
                                                          "page's hints)"),
    "private": ("chosen privately inside each release (its own budget share)", None),
}
#: Where the per-column scaling bounds came from, as R_SOURCES.
SCALE_SOURCES = {
    "public": ("public bounds I know (no data read)", None),
    "hints": ("filled from the data's largest values (NOT private)", "the per-column scaling bounds were read from "
                                                                     "the data"),
}
#: How k is set: value -> how the pages say it. "private": each release keeps the smallest k whose private
#: explained-variance ratios (from the eigenvalue share) sum above a public target (``kvar``).
K_SOURCES = {
    "public": "a number you choose (public)",
    "private": "chosen privately inside each release (from its eigenvalue share)",
}
#: the eigenvalue share a switch to a private k gives when the budget has none (Explore's caption states the share)
K_EIGENVALUE_SHARE = 0.1
#: Centring choices that read the data without noise, and the non-private choice each makes.
NONPRIVATE_CENTRING = {"empirical": "the rows were centred with the data's own (empirical) mean"}
MAX_BOUNDS = 500


@dataclass(frozen=True)
class Field:
    """One setting: its kind ("int", "float", "bool", "choice", "text"), default and allowed values.

    ``choices`` may be a callable returning the allowed values (e.g. registered mechanisms); ``check``
    is an extra validator returning the cleaned value or raising ValueError with the reason.
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple | Callable[[], tuple] = ()
    check: Callable[[Any], Any] | None = None
    help: str = ""

    def allowed(self) -> tuple:
        return tuple(self.choices()) if callable(self.choices) else tuple(self.choices)

    def parse(self, raw) -> Any:
        """A URL string to a validated value; ValueError (with the reason) if it cannot be used."""
        raw = str(raw)
        if len(raw) > MAX_RAW_CHARS:
            raise ValueError(f"longer than {MAX_RAW_CHARS} characters")
        if self.kind == "bool":
            low = raw.strip().lower()
            if low not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ValueError("not true/false")
            return self.validate(low in ("1", "true", "yes", "on"))
        if self.kind == "int":
            number = float(raw)
            if not math.isfinite(number) or number != int(number):
                raise ValueError("not a whole number")
            return self.validate(int(number))
        if self.kind == "float":
            return self.validate(float(raw))
        if self.kind == "choice" and not isinstance(self.default, str):
            number = float(raw)
            return self.validate(int(number) if math.isfinite(number) and number == int(number) else number)
        return self.validate(raw)

    def validate(self, value) -> Any:
        """A Python value checked against the field's kind and range; ValueError with the reason if not."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError("not true/false")
        elif self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError("not a number")
            if not math.isfinite(value):
                raise ValueError("not a finite number")
            if self.kind == "int":
                if value != int(value):
                    raise ValueError("not a whole number")
                value = int(value)
            else:
                value = float(value)
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise ValueError(f"outside [{self.low:g}, {self.high:g}]")
        elif self.kind == "choice":
            if value not in self.allowed():
                raise ValueError("not one of the options")
        elif not isinstance(value, str):
            raise ValueError("not text")
        return self.check(value) if self.check else value


def _check_src(value: str) -> str:
    if value in ("synthetic", "upload"):
        return value
    if value.startswith("server:") and 0 < len(value) <= 507:
        return value  # the Data page resolves it (refused unless the operator enabled server files)
    kind, _, name = value.partition(":")
    if kind == "preset" and name in dsets.PRESETS:
        return value
    if kind == "sample" and name in dsets.SAMPLES:
        return value
    raise ValueError("not a known data source")


def _check_mechs(value: str) -> str:
    names = mechanism_names("pca")
    chosen = []
    for name in value.split(","):
        name = name.strip()
        if name and name not in chosen:
            if name not in names:
                raise ValueError(f"unknown mechanism {name[:40]!r}")
            chosen.append(name)
    return ",".join(chosen)


def _check_delta(value: float) -> float:
    if not 1e-12 <= value <= 0.5:
        raise ValueError("outside [1e-12, 0.5]")
    return value


def _check_bounds(value: str) -> str:
    """Comma-separated positive public bounds, one per column ("" = none given)."""
    if not value.strip():
        return ""
    parts = [p.strip() for p in value.split(",")]
    if len(parts) > MAX_BOUNDS:
        raise ValueError(f"more than {MAX_BOUNDS} bounds")
    numbers = []
    for p in parts:
        number = float(p)
        if not (math.isfinite(number) and number > 0):
            raise ValueError("every bound must be a positive number")
        numbers.append(number)
    return ",".join(repr(n) for n in numbers)


#: the most columns a table's declared schema may name (the app's upload limit)
MAX_SCHEMA_COLUMNS = 2_000
#: what a bad cell of a declared column becomes: value -> how the Data page says it
BAD_CELLS = {
    "replace": "replace it by its column's public value (every row is kept)",
    "drop_rows": "leave its row out (only when neighbours add or remove a row, where n is private)",
}


def _check_columns(value: str) -> str:
    """A table's declared columns, in order: a JSON list of distinct names ("" = not declared yet)."""
    if not value.strip():
        return ""
    names = json.loads(value)
    if not isinstance(names, list) or not all(isinstance(c, str) and c for c in names):
        raise ValueError("not a list of column names")
    if len(names) > MAX_SCHEMA_COLUMNS:
        raise ValueError(f"more than {MAX_SCHEMA_COLUMNS} columns")
    if len(set(names)) != len(names):
        raise ValueError("a column is named twice")
    return json.dumps(names, ensure_ascii=False, separators=(",", ":"))


def _check_fill(value: str) -> str:
    """The public value a bad cell of each column becomes: a JSON object column -> finite number ("" = none)."""
    if not value.strip():
        return ""
    given = json.loads(value)
    if not isinstance(given, dict) or len(given) > MAX_SCHEMA_COLUMNS:
        raise ValueError("not a list of column: value pairs")
    out = {}
    for column, number in given.items():
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise ValueError("every value must be a finite number")
        out[column] = float(number)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) if out else ""


def _too_long():
    raise ValueError("longer than 500 characters")


#: most groups a score plot by group may declare public (more: find them privately, or choose another label column)
MAX_GROUPS = 30


def _check_groups(value: str) -> str:
    """The groups declared public: a JSON list of distinct labels ("" = none declared)."""
    if not value.strip():
        return ""
    try:
        groups = json.loads(value)
    except (ValueError, RecursionError):
        raise ValueError("not a list of groups") from None
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and 0 < len(g) <= 100
                                                               for g in groups):
        raise ValueError("not a list of group names")
    if len(groups) > MAX_GROUPS or len(set(groups)) != len(groups):
        raise ValueError(f"more than {MAX_GROUPS} groups, or a group named twice")
    return json.dumps(groups)


#: the planner's targets (issue 37) and the setting holding each one's number
PLAN_TARGET_FIELDS = {"subspace_distance": "pdist", "energy": "penergy", "f1": "pf1",
                      "explained_variance_error": "peverr", "score_readability": "pscore"}
#: what the planner simulates its releases on: a synthetic law, a stated spectrum, or one released privately
PLAN_STANDINS = ("law", "stated", "private")


def _check_plan_targets(value: str) -> str:
    """A comma list of the planner's targets, each once ("" = none chosen yet)."""
    names = [t for t in value.split(",") if t]
    unknown = [t[:40] for t in names if t not in PLAN_TARGET_FIELDS]
    if unknown:
        raise ValueError(f"unknown plan target {', '.join(unknown)}; use {', '.join(PLAN_TARGET_FIELDS)}")
    if len(set(names)) != len(names):
        raise ValueError("a plan target is named twice")
    return ",".join(names)


def _check_audit_mechanism(value: str) -> str:
    if value not in mechanism_names():
        raise ValueError("not a registered mechanism")
    return value


SEED_MAX = 2**31 - 1
FIELDS: dict[str, Field] = {f.name: f for f in (
    # data
    Field("src", "text", "synthetic", check=_check_src),
    Field("n", "int", 2000, 10, 200_000),
    Field("d", "int", 20, 2, 500),
    Field("rank", "int", 3, 1, 50),
    Field("spike", "float", 4.0, 0.0, 1000.0),
    Field("sparse", "int", 0, 0, 500),
    Field("dseed", "int", 0, 0, SEED_MAX),
    Field("center", "choice", "none", choices=("none", "private", "empirical")),
    Field("R", "float", 1.0, 1e-9, 1e12),
    Field("rfrom", "choice", "public", choices=tuple(R_SOURCES)),
    # a radius chosen privately: public bounds on it (data units) and the target quantile of the row norms
    Field("rlo", "float", 1e-3, 1e-9, 1e12),
    Field("rhi", "float", 1e4, 1e-9, 1e12),
    Field("rq", "float", 0.9, 0.5, 0.99),
    # column scaling: none, each column divided by its public bound, or by a private root-mean-square inside each
    # release (with those bounds) from the scale share
    Field("scale", "choice", "none", choices=("none", "bounds", "private")),
    Field("bounds", "text", "", check=_check_bounds),
    Field("sfrom", "choice", "public", choices=tuple(SCALE_SOURCES)),
    Field("bscale", "float", 0.1, 0.05, 0.3),
    # the public schema of a table (an upload or a server file): its columns in order (JSON list; "" until declared),
    # the label column, what a bad cell becomes, and each column's public value for a bad cell (JSON object)
    Field("cols", "text", "", check=_check_columns),
    Field("label", "text", "", check=lambda v: v if len(v) <= 500 else _too_long()),
    Field("badcells", "choice", "replace", choices=tuple(BAD_CELLS)),
    Field("fill", "text", "", check=_check_fill),
    # explore
    Field("mechs", "text", "analyze_gauss,private_power", check=_check_mechs),
    Field("eps", "float", 1.0, 1e-3, 100.0),
    Field("delta", "float", 1e-6, check=_check_delta),
    Field("k", "int", 2, 1, 50),
    # k chosen privately inside each release: the public target its private explained-variance ratios must pass
    Field("kfrom", "choice", "public", choices=tuple(K_SOURCES)),
    Field("kvar", "float", 0.9, 0.5, 0.99),
    Field("s", "int", 0, 0, 500),
    Field("nb", "choice", "replace", choices=("replace", "add_remove")),
    Field("reps", "int", 10, 1, 200),
    Field("seed", "int", 0, 0, SEED_MAX),
    Field("view", "choice", "spread", choices=VIEWS),
    # the metric of the Explore view "spread" (the dot plot over repetitions)
    Field("spreadm", "choice", "subspace_distance", choices=METRICS),
    # budget split of one release (shares of the total; the subspace gets the rest)
    Field("bmean", "float", 0.1, 0.0, 0.3),
    Field("beig", "float", 0.0, 0.0, 0.3),
    Field("bscores", "float", 0.0, 0.0, 0.3),
    Field("bradius", "float", 0.1, 0.05, 0.3),
    # the private score plot: by group (the label column; the groups found privately), its frame and its kind
    Field("sgroup", "bool", False),
    # the groups of the plot by group declared public (a JSON list: the analyst's schema); "" = found privately
    Field("slabels", "text", "", check=_check_groups),
    Field("sframe", "choice", "public", choices=("public", "private")),
    Field("skind", "choice", "additive", choices=("additive", "sparse")),
    # trade-offs
    Field("sweep", "choice", "eps", choices=SWEEP_AXES),
    Field("metric", "choice", "subspace_distance", choices=METRICS),
    Field("sreps", "int", 10, 1, 100),
    Field("target", "float", 0.3, -1e6, 1e6),
    # the swept range beyond the default grid (0: the grid's own end), set by the planner's "sweep next" advice
    Field("slo", "float", 0.0, 0.0, 1e6),
    Field("shi", "float", 0.0, 0.0, 1e6),
    Field("logy", "bool", False),
    # with R chosen privately: also sweep each mechanism at the exact quantile (an oracle R, not private)
    Field("oracle", "bool", False),
    # the plan from targets (Trade-offs): the targets and their numbers, the share of releases that must meet them,
    # and the stand-in (its stated spectrum and total, the ε of a private one, a public estimate of n)
    Field("ptarget", "text", "subspace_distance", check=_check_plan_targets),
    Field("pdist", "float", 0.3, 0.01, 1.41),
    Field("penergy", "float", 0.9, 0.05, 1.0),
    Field("pf1", "float", 0.9, 0.05, 1.0),
    Field("peverr", "float", 0.02, 0.001, 1.0),
    Field("pscore", "float", 0.5, 0.05, 5.0),
    Field("pconf", "float", 0.9, 0.5, 0.99),
    Field("pon", "choice", "law", choices=PLAN_STANDINS),
    Field("pspec", "text", "1, 0.5, 0.1", check=lambda v: v if len(v) <= 500 else _too_long()),
    Field("ptotal", "float", 2.0, 0.0, 1e12),
    Field("peps0", "float", 0.1, 0.01, 10.0),
    Field("pn", "int", 1000, 2, 10**8),
    # distributed
    Field("dsites", "int", 5, 2, 20),
    Field("duneven", "bool", False),
    Field("dbylabel", "bool", False),
    Field("deps", "float", 1.0, 1e-3, 100.0),
    Field("dreps", "int", 8, 2, 30),
    # audit
    Field("amech", "text", "analyze_gauss", check=_check_audit_mechanism),
    Field("aeps", "float", 1.0, 0.01, 50.0),
    Field("adelta", "float", 1e-6, check=_check_delta),  # the scenario's delta, followed (audit_follows_scenario)
    Field("atrials", "choice", 2000, choices=AUDIT_TRIALS),
    Field("anb", "choice", "replace", choices=("replace", "add_remove")),
    Field("afactor", "choice", 1, choices=(1, 2, 3, 5)),
    # tensor decomposition
    Field("tmodel", "choice", "MOG", choices=("MOG", "STM")),
    Field("tD", "int", 10, 3, 60),
    Field("tK", "int", 5, 2, 12),
    Field("tsites", "int", 5, 2, 20),
    Field("tn", "int", 1000, 100, 20_000),
    Field("teps", "float", 1.0, 0.01, 100.0),
    Field("tdelta", "float", 0.01, check=_check_delta),
    Field("tsplit", "float", 0.5, 0.1, 0.9),
    Field("treps", "int", 5, 2, 20),
    Field("tseed", "int", 0, 0, 1_000_000),
    # presentation; the Lesson's step (so a shared link opens on it)
    Field("present", "bool", False),
    Field("step", "int", 1, 1, 10),
    # reproduce (the papers' synthetic experiments)
    Field("rpaper", "choice", "wang_xu", choices=tuple(reproduce.PAPERS)),  # every paper the catalogue registers
    Field("rgrid", "choice", "default", choices=("default", "full")),
    Field("rreps", "int", 0, 0, 50),
    Field("rseed", "int", 0, 0, SEED_MAX),
)}
DEFAULTS = {name: f.default for name, f in FIELDS.items()}


# -- parsing and validation ---------------------------------------------------------------------------------

def _param_spec(key: str):
    """(mechanism spec, Param) for a ``<mechanism>.<parameter>`` key, or ValueError."""
    mech, _, pname = key.partition(".")
    if mech not in mechanism_names():
        raise ValueError("unknown mechanism")
    spec = get_mechanism(mech)
    try:
        return spec, spec.param(pname)
    except KeyError:
        raise ValueError(f"{mech} has no parameter {pname[:40]!r}") from None


def _parse_param(key: str, raw) -> Any:
    """A mechanism parameter from the URL (JSON: number, boolean, null, list of sizes), validated by the registry."""
    _, param = _param_spec(key)
    raw = str(raw)
    if len(raw) > MAX_RAW_CHARS:
        raise ValueError(f"longer than {MAX_RAW_CHARS} characters")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        value = raw  # a bare string, e.g. a choice
    return validate_param(key, value)


def validate_param(key: str, value) -> Any:
    """Check a mechanism parameter against the registry metadata; None stands for the mechanism's default."""
    _, param = _param_spec(key)
    if value is None:
        return None
    if param.kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if param.kind == "sites":
        if not (isinstance(value, int) or (isinstance(value, list) and len(value) <= 50
                                            and all(isinstance(v, int) for v in value))):
            raise ValueError("sites must be a number of sites or a list of site sizes")
        param.validate(value)
        return value
    return param.validate(value)


def _cap_size(values: dict, notices: list) -> None:
    if values["src"] == "synthetic" and values["n"] * values["d"] > MAX_CELLS:
        capped = max(10, MAX_CELLS // values["d"])
        notices.append(f"n × d is capped at {MAX_CELLS:,} cells on this server; n = {values['n']:,} with d = "
                       f"{values['d']} was lowered to n = {capped:,}.")
        values["n"] = capped


def from_query(params: dict) -> tuple[dict, list[str]]:
    """Scenario values from URL query parameters, and one notice per value that could not be used.

    Never raises: malformed, out-of-range or unknown values fall back to the defaults.
    """
    values, notices, used = dict(DEFAULTS), [], set()
    for key, raw in list(params.items())[:200]:
        key = str(key)[:100]
        try:
            if key in FIELDS:
                values[key] = FIELDS[key].parse(raw)
            elif "." in key:
                values[key] = _parse_param(key, raw)
            else:
                raise ValueError("unknown setting")
            used.add(key)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            notices.append(f"ignored {key[:40]} = {str(raw)[:40]} from the link: {str(exc)[:160]}"
                           + (f"; using {FIELDS[key].default!r}" if key in FIELDS else ""))
    if "target" not in used:
        values["target"] = default_target(values)
    _cap_size(values, notices)
    return values, notices


def in_metric_unit(vals: dict, notices: list | None = None) -> float:
    """The planner's target in its metric's unit: a fraction typed for a percentage (0.8 for a captured energy in
    % of the optimal) is read as that percentage (80), and ``notices`` says so."""
    metric = experiments.METRICS[vals["metric"]]
    target = vals["target"]
    if metric.unit.startswith("%") and 0 < target <= 1:
        if notices is not None:
            notices.append(f"{metric.label} is in {metric.unit}: the target {target:g} was read as {100 * target:g}%.")
        return 100.0 * target
    return target


def default_target(vals: dict) -> float:
    """The planner's target when none was given: the chosen metric's own default, in its unit."""
    return experiments.METRICS[vals["metric"]].default_target


def is_default(key: str, value) -> bool:
    """True when ``value`` is what the app would use anyway: the field's default, or the mechanism's own default
    for a parameter (None stands for it)."""
    if key in FIELDS:
        default = FIELDS[key].default
        return type(value) is type(default) and value == default
    if value is None:
        return True
    try:
        _, param = _param_spec(key)
    except ValueError:
        return False
    return type(value) is type(param.default) and value == param.default


def to_query(vals: dict) -> dict:
    """URL query parameters of a scenario: only what differs from the defaults (so a shared link is short; seeds
    included when they differ), mechanism parameters as JSON. :func:`from_query` fills in the rest."""
    out = {}
    for key, value in vals.items():
        if (value == default_target(vals)) if key == "target" else is_default(key, value):
            continue
        if key in FIELDS:
            if isinstance(value, bool):
                out[key] = "true" if value else "false"
            elif isinstance(value, float):
                out[key] = repr(value)
            else:
                out[key] = str(value)
        else:
            out[key] = json.dumps(value)
    return out



def query_string(vals: dict) -> str:
    """The URL query string of a scenario (:func:`to_query`, encoded)."""
    return urllib.parse.urlencode(to_query(vals))


def from_fields(fields: dict, kept: dict | None = None) -> tuple[dict, list[str]]:
    """A complete scenario: the defaults updated with ``kept`` and ``fields`` (a gallery card or a lesson step),
    each validated; and a notice per field that could not be used."""
    vals, notices = {**DEFAULTS, **(kept or {})}, []
    for key, value in fields.items():
        try:
            if key in FIELDS:
                vals[key] = FIELDS[key].validate(value)
            else:
                vals[key] = validate_param(key, value)
        except (ValueError, TypeError) as exc:
            notices.append(f"ignored {key} = {value!r}: {exc}")
    if "target" not in fields:
        vals["target"] = default_target(vals)
    _cap_size(vals, notices)
    return vals, notices



# -- the scenario file ----------------------------------------------------------------------------------------

#: what the file's first line and its ``format`` key say it is
FILE_FORMAT = "dppca-scenario"
#: the version of the file's layout; a reader refuses a newer one in plain words
FILE_VERSION = 1
FILE_FIRST_LINE = ("# DP-PCA Explorer scenario file: every setting and the public schema of the data; no data rows.\n"
                   "# Open it on the app's Home page, or in Python: dppca_core.scenario.Scenario.from_file(path)")
#: the largest scenario file read (a full scenario with a long schema is far smaller)
MAX_FILE_BYTES = 1_000_000
#: the file's sections, in order: section -> the settings it holds. A setting in no section goes to "other", so a
#: new setting is written (and read) before it is given a place here.
SECTIONS = {
    "data": ("src", "n", "d", "rank", "spike", "sparse", "dseed"),
    "schema": ("cols", "label", "badcells", "fill"),
    "preprocessing": ("center", "R", "rfrom", "rlo", "rhi", "rq", "scale", "bounds", "sfrom"),
    "privacy": ("mechs", "eps", "delta", "nb", "k", "kfrom", "kvar", "s", "bmean", "beig", "bscores", "bradius",
                "bscale"),
    "explore": ("reps", "seed", "view", "spreadm", "sgroup", "slabels", "sframe", "skind"),
    "tradeoffs": ("sweep", "metric", "sreps", "target", "slo", "shi", "logy", "oracle"),
    "plan": ("ptarget", "pdist", "penergy", "pf1", "peverr", "pscore", "pconf", "pon", "pspec", "ptotal", "peps0",
             "pn"),
    "distributed": ("dsites", "duneven", "dbylabel", "deps", "dreps"),
    "audit": ("amech", "aeps", "adelta", "atrials", "anb", "afactor"),
    "tensor": ("tmodel", "tD", "tK", "tsites", "tn", "teps", "tdelta", "tsplit", "treps", "tseed"),
    "presentation": ("present", "step"),
    "reproduce": ("rpaper", "rgrid", "rreps", "rseed"),
}
OTHER_SECTION = "other"
PARAMETERS_SECTION = "parameters"
#: settings held as text in a link (JSON or a comma list) and as a TOML list or table in the file:
#: name -> (from the link's text to the file's value, from the file's value to the link's text before validation)
STRUCTURED = {
    "cols": (lambda v: json.loads(v) if v else [], lambda v: json.dumps(v) if v else ""),
    "fill": (lambda v: json.loads(v) if v else {}, lambda v: json.dumps(v) if v else ""),
    "slabels": (lambda v: json.loads(v) if v else [], lambda v: json.dumps(v) if v else ""),
    "bounds": (lambda v: [float(b) for b in v.split(",")] if v else [],
               lambda v: ",".join(repr(float(b)) for b in v) if isinstance(v, list) else v),
    "mechs": (lambda v: [m for m in v.split(",") if m], lambda v: ",".join(v) if isinstance(v, list) else v),
    "ptarget": (lambda v: [t for t in v.split(",") if t], lambda v: ",".join(v) if isinstance(v, list) else v),
}


def section_of(name: str) -> str:
    """The file section that holds setting ``name``."""
    return next((section for section, names in SECTIONS.items() if name in names), OTHER_SECTION)


def to_document(vals: dict) -> dict:
    """The scenario file's content as plain data (what TOML writes): every setting in its section, structured
    settings as lists and tables, mechanism parameters under ``[parameters.<mechanism>]`` (a parameter left at its
    mechanism's default, None, is left out: TOML has no null)."""
    doc: dict = {"format": FILE_FORMAT, "format_version": FILE_VERSION}
    for section in (*SECTIONS, OTHER_SECTION):
        names = SECTIONS.get(section) or [n for n in FIELDS if section_of(n) == OTHER_SECTION]
        block = {name: STRUCTURED[name][0](vals[name]) if name in STRUCTURED else vals[name]
                 for name in names if name in FIELDS}
        if block:
            doc[section] = block
    params: dict = {}
    for key, value in vals.items():
        if key not in FIELDS and value is not None:
            mech, _, name = key.partition(".")
            params.setdefault(mech, {})[name] = value
    if params:
        doc[PARAMETERS_SECTION] = params
    return doc


def from_document(doc: Any) -> tuple[dict, list[str]]:
    """A complete scenario from a parsed scenario file, and a notice per value that could not be used (it keeps its
    default). ValueError, in plain words, when the content is not a scenario file of a version this reader knows."""
    if not isinstance(doc, dict) or doc.get("format") != FILE_FORMAT:
        raise ValueError("this is not a DP-PCA Explorer scenario file (its 'format' line is missing or different).")
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FILE_VERSION:
        raise ValueError(f"this scenario file has format version {str(version)[:20]}; this version of DP-PCA Explorer "
                         f"reads versions 1 to {FILE_VERSION}. Update DP-PCA Explorer to open it.")
    given, notices = {}, []
    for section, block in doc.items():
        if section in ("format", "format_version"):
            continue
        if not isinstance(block, dict):
            notices.append(f"ignored {str(section)[:40]}: not a section of settings")
        elif section == PARAMETERS_SECTION:
            given.update(_parameters(block, notices))
        else:
            given.update(_section_values(section, block, notices))
    vals, more = from_fields(given)
    return vals, notices + more


def _section_values(section: str, block: dict, notices: list) -> dict:
    """{setting: value as a link holds it} of one section; a setting that is unknown or in another section is
    ignored with a notice."""
    out = {}
    for name, value in list(block.items())[:500]:
        if name not in FIELDS or section_of(name) != section:
            notices.append(f"ignored {section[:40]}.{str(name)[:40]}: not a setting of this section")
            continue
        try:
            out[name] = STRUCTURED[name][1](value) if name in STRUCTURED else value
        except (TypeError, ValueError) as exc:
            notices.append(f"ignored {name} = {str(value)[:40]}: {str(exc)[:120]}")
    return out


def _parameters(block: dict, notices: list) -> dict:
    """{"<mechanism>.<parameter>": value} of the ``[parameters]`` section."""
    out = {}
    for mech, params in list(block.items())[:100]:
        if not isinstance(params, dict):
            notices.append(f"ignored parameters.{str(mech)[:40]}: not a table of parameters")
            continue
        out.update({f"{mech}.{name}": value for name, value in list(params.items())[:100]})
    return out


def to_toml(vals: dict) -> str:
    """The scenario file (TOML) of ``vals``: its first line says what it is. A character that is not printable
    (a control or bidirectional character in a column's name) is written as an escape, so the file shows it."""
    import tomli_w

    return FILE_FIRST_LINE + "\n" + _escape_unprintable(tomli_w.dumps(to_document(vals)))


def _escape_unprintable(text: str) -> str:
    """``text`` with every character that is not printable, line ends aside, as a TOML escape (they only occur inside
    quoted strings and keys, where TOML reads the escape back as the character)."""
    return "".join(c if c.isprintable() or c == "\n" else (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF
                                                            else f"\\U{ord(c):08x}") for c in text)


def from_toml(text: str | bytes) -> tuple[dict, list[str]]:
    """A complete scenario from a scenario file's text, and the notices (:func:`from_document`); ValueError in plain
    words when the text is too long, not TOML, or not a scenario file."""
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise ValueError(f"this file is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far smaller.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("this file is not text (UTF-8): a scenario file is a small text file.") from None
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"this file is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far smaller.")
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ValueError(f"this file is not a readable scenario file (TOML): {str(exc)[:160]}.") from None
    return from_document(doc)


@dataclass(frozen=True)
class Scenario:
    """A complete, validated scenario and what could not be used when it was read (one notice each).

    >>> scn = Scenario.from_query({"eps": "0.5"})
    >>> Scenario.from_toml(scn.to_toml()).values == scn.values
    True
    """

    values: dict
    notices: tuple = field(default=(), compare=False)

    @classmethod
    def from_query(cls, params: dict) -> "Scenario":
        vals, notices = from_query(params)
        return cls(vals, tuple(notices))

    @classmethod
    def from_toml(cls, text: str | bytes) -> "Scenario":
        vals, notices = from_toml(text)
        return cls(vals, tuple(notices))

    @classmethod
    def from_file(cls, path) -> "Scenario":
        """Read a scenario file (ValueError in plain words when it is not one)."""
        path = Path(path)
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{path.name} is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far "
                             "smaller.")
        return cls.from_toml(path.read_bytes())

    def to_query(self) -> dict:
        return to_query(self.values)

    def query_string(self) -> str:
        return query_string(self.values)

    def to_toml(self) -> str:
        return to_toml(self.values)

    def to_file(self, path) -> Path:
        """Write the scenario file to ``path`` (UTF-8) and return the path."""
        path = Path(path)
        path.write_text(self.to_toml(), encoding="utf-8")
        return path


# -- the file's JSON schema (docs/scenario.schema.json) -------------------------------------------------------

def _field_schema(f: Field) -> dict:
    """The JSON schema of one setting as the file holds it."""
    if f.name in ("cols", "slabels", "mechs"):
        return {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}
    if f.name == "ptarget":
        return {"type": "array", "items": {"enum": list(PLAN_TARGET_FIELDS)}, "uniqueItems": True}
    if f.name == "bounds":
        return {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "maxItems": MAX_BOUNDS}
    if f.name == "fill":
        return {"type": "object", "additionalProperties": {"type": "number"}}
    if f.kind == "choice" and not callable(f.choices):
        return {"enum": list(f.allowed())}
    out: dict = {"type": {"int": "integer", "float": "number", "bool": "boolean"}.get(f.kind, "string")}
    if f.low is not None:
        out.update(minimum=f.low, maximum=f.high)
    return out


def file_schema() -> dict:
    """The JSON schema of a scenario file once parsed (TOML to JSON), as published in docs/scenario.schema.json.
    Every setting is optional (a missing one keeps its default); nothing else is allowed."""
    sections = {}
    for section in (*SECTIONS, OTHER_SECTION):
        names = [n for n in FIELDS if section_of(n) == section]
        if names:
            sections[section] = {"type": "object", "additionalProperties": False,
                                 "properties": {n: {**_field_schema(FIELDS[n]), "default": _default_in_file(n)}
                                                for n in names}}
    sections[PARAMETERS_SECTION] = {
        "type": "object", "description": "mechanism -> {parameter: value}; a parameter left out keeps its default",
        "additionalProperties": {"type": "object"}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "DP-PCA Explorer scenario file", "type": "object",
            "required": ["format", "format_version"], "additionalProperties": False,
            "properties": {"format": {"const": FILE_FORMAT},
                           "format_version": {"type": "integer", "minimum": 1, "maximum": FILE_VERSION},
                           **sections}}


def _default_in_file(name: str):
    default = FIELDS[name].default
    return STRUCTURED[name][0](default) if name in STRUCTURED else default


if __name__ == "__main__":  # python -m dppca_core.scenario > docs/scenario.schema.json
    print(json.dumps(file_schema(), indent=1, ensure_ascii=False))

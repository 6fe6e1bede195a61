"""The scenario: every setting of the app, owned by one module.

This module declares each setting (type, default, range), parses and validates the URL (hostile input
included: every malformed value falls back to its default and the user is told), holds the values of the
session under ``st.session_state["scenario"]`` (a key no widget owns), draws widgets bound to them, and
writes the URL back so a copied link reproduces the view.

Rules that keep the widgets and the numbers in agreement (Streamlit forgets a widget's state when the
widget is not drawn in a run, e.g. after a page switch):

* pages read settings only through :func:`values` — never from a widget's return value;
* every bound widget's key is re-seeded from the scenario right before the widget is drawn, and its
  ``on_change`` callback validates the new value and writes it back;
* nothing here is module-level mutable state: option lists are built per call.
"""
from __future__ import annotations

import json
import math
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

import dppca_core as dc
from dppca_core import datasets as dsets
from dppca_core import experiments, reproduce

from .session import AUDIT_FOLLOW_KEY, NOTICES_KEY, SCENARIO_KEY
from .text import md_escape

WIDGET_PREFIX = "w:"
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
#: Settings a gallery scenario keeps from the session: how the app is shown, not what it computes.
KEPT_ON_LOAD = ("present",)
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
    names = dc.mechanism_names("pca")
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


def declared_columns(vals: dict | None = None) -> list[str] | None:
    """The table's declared columns in order, or None until declared (the Data page then suggests them)."""
    vals = values() if vals is None else vals
    return json.loads(vals["cols"]) if vals["cols"] else None


def declare_columns(columns) -> None:
    """Declare the table's columns, in order (an empty list is a declaration too: nothing to analyse yet); the public
    values of bad cells are kept for those columns only."""
    columns = list(columns)
    set_value("cols", json.dumps(columns, ensure_ascii=False))
    kept = {c: v for c, v in fill_values().items() if c in columns}
    set_value("fill", json.dumps(kept) if kept else "")


def fill_values(vals: dict | None = None) -> dict:
    """Column -> the public value its bad cells become, as declared (columns not named get the library's default)."""
    vals = values() if vals is None else vals
    return json.loads(vals["fill"]) if vals["fill"] else {}


def bounds(vals: dict | None = None) -> list[float]:
    """The public per-column bounds of the scenario (empty when none were given)."""
    vals = values() if vals is None else vals
    return [float(b) for b in vals["bounds"].split(",")] if vals["bounds"] else []


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


def declared_groups(vals: dict | None = None) -> list[str]:
    """The groups the analyst declared public for the score plot by group (empty: found privately)."""
    vals = values() if vals is None else vals
    return json.loads(vals["slabels"]) if vals.get("slabels") else []


def _check_audit_mechanism(value: str) -> str:
    if value not in dc.mechanism_names():
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
    if mech not in dc.mechanism_names():
        raise ValueError("unknown mechanism")
    spec = dc.get_mechanism(mech)
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


def query_string(vals: dict | None = None) -> str:
    return urllib.parse.urlencode(to_query(values() if vals is None else vals))


# -- the session's scenario ---------------------------------------------------------------------------------

def values() -> dict:
    """The canonical scenario of this session (created from the URL on first use)."""
    if SCENARIO_KEY not in st.session_state:
        vals, notices = from_query(dict(st.query_params))
        st.session_state[SCENARIO_KEY] = vals
        st.session_state[NOTICES_KEY] = notices
    return st.session_state[SCENARIO_KEY]


def pop_notices() -> list[str]:
    """Notices about the link (values that could not be used), each shown once."""
    values()
    return st.session_state.pop(NOTICES_KEY, [])


def set_value(name: str, value) -> None:
    """Validate and store one setting (ValueError with the reason if it is not allowed)."""
    vals = values()
    if name in FIELDS:
        old = vals.get(name)
        vals[name] = FIELDS[name].validate(value)
        if name == "metric" and vals[name] != old:  # a target is in its metric's unit: it does not carry over
            vals["target"] = default_target(vals)
        if name == "sweep" and vals[name] != old:  # an extended range belongs to the axis it was asked for
            vals["slo"] = vals["shi"] = 0.0
        if name == "target":
            vals["target"] = in_metric_unit(vals, notices=st.session_state.setdefault(NOTICES_KEY, []))
        if name == "kfrom" and vals[name] == "private" and old != "private" and vals["beig"] <= 0:
            vals["beig"] = K_EIGENVALUE_SHARE  # the rule reads the private ratios: give them a share (Explore says so)
        if name in ("n", "d", "src"):
            notices: list = []
            _cap_size(vals, notices)
            st.session_state.setdefault(NOTICES_KEY, []).extend(notices)
    else:
        vals[name] = validate_param(name, value)


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
        except ValueError as exc:
            notices.append(f"ignored {key} = {value!r}: {exc}")
    if "target" not in fields:
        vals["target"] = default_target(vals)
    _cap_size(vals, notices)
    return vals, notices


def load(fields: dict) -> None:
    """Replace the scenario by the defaults updated with ``fields`` (a gallery entry); how the app is shown
    (:data:`KEPT_ON_LOAD`, e.g. presenter mode) is kept."""
    vals, notices = from_fields(fields, {key: values()[key] for key in KEPT_ON_LOAD})
    st.session_state[SCENARIO_KEY] = vals
    st.session_state[NOTICES_KEY] = notices


def mechanisms(vals: dict | None = None) -> list[str]:
    vals = values() if vals is None else vals
    return [m for m in vals["mechs"].split(",") if m]


def mech_params(mech: str, vals: dict | None = None) -> dict:
    """The parameters of ``mech`` to pass to ``run`` (None values mean the mechanism's default and are left out)."""
    vals = values() if vals is None else vals
    prefix = f"{mech}."
    return {k[len(prefix):]: v for k, v in vals.items() if k.startswith(prefix) and v is not None}


def budget(vals: dict | None = None, mechanism: str | None = None, has_labels: bool = True):
    """The BudgetSplit of the scenario, or None when the whole budget goes to the subspace (a plain release);
    ValueError naming the fix when a private step has no share (a private mean, a private k). With ``mechanism``
    and ``has_labels`` (whether the data have a label column): the split that mechanism's release uses, with a
    groups share only when it finds the groups privately (:func:`score_plan`)."""
    from dppca_core.budget import DEFAULT_SHARES, BudgetSplit

    vals = values() if vals is None else vals
    mean = vals["bmean"] if vals["center"] == "private" else 0.0
    if vals["center"] == "private" and mean <= 0:
        raise ValueError("centring with a private mean needs a positive mean share: raise it in the budget split.")
    problem = k_rule_problem(vals)
    if problem:
        raise ValueError(problem)
    radius = vals["bradius"] if private_radius(vals) else 0.0
    scale = vals["bscale"] if private_scaling(vals) else 0.0
    if mean == 0 and vals["beig"] == 0 and vals["bscores"] == 0 and radius == 0 and scale == 0:
        return None
    scores = vals["bscores"]
    # a private frame and privately found groups take their default shares (the score plot's options)
    frame = DEFAULT_SHARES["frame"] if scores > 0 and vals.get("sframe") == "private" else 0.0
    find = scores > 0 and score_plan(vals, has_labels, mechanism)["find_groups"]
    groups = DEFAULT_SHARES["groups"] if find else 0.0
    return BudgetSplit.with_extras(mean=mean, eigenvalues=vals["beig"], scores=scores, radius=radius, scale=scale,
                                   frame=frame, groups=groups)


def private_k(vals: dict | None = None) -> bool:
    """Whether each release chooses its k privately (from its private explained-variance ratios)."""
    vals = values() if vals is None else vals
    return vals.get("kfrom", "public") == "private"


def k_arg(vals: dict | None = None):
    """The k each release is asked for: the scenario's number, or "auto" (chosen privately inside each release)."""
    vals = values() if vals is None else vals
    return "auto" if private_k(vals) else int(vals["k"])


def k_rule_words(vals: dict) -> str:
    """The public rule of a private k, in words."""
    return (f"the smallest k whose private explained-variance ratios (from the eigenvalue share, "
            f"{vals['beig']:.0%} of each release's budget) sum above {vals['kvar']:g}")


def k_rule_problem(vals: dict | None = None) -> str | None:
    """Why a private k cannot be chosen with these settings (the eigenvalue share is 0), or None."""
    vals = values() if vals is None else vals
    if private_k(vals) and vals["beig"] <= 0:
        return ("k chosen privately reads each release's private explained-variance ratios, which come from the "
                "eigenvalue share of the budget, and that share is 0. Give the eigenvalues a share (sidebar: Budget "
                "split, 'eigenvalues'; 10% is a good start), or choose k yourself (Explore: 'k comes from').")
    return None


def release_options(vals: dict, labels, mechanism: str | None = None) -> dict:
    """Every further option of each complete release (:func:`dppca_core.release_pca`) the scenario sets: the score
    plot's (:func:`score_options`) and, with k chosen privately, the public ``variance_target``."""
    out = score_options(vals, labels, mechanism)
    if private_k(vals):
        out["variance_target"] = float(vals["kvar"])
    return out


def score_plan(vals: dict, has_labels: bool, mechanism: str | None = None) -> dict:
    """What the score plot of ``mechanism``'s releases does with the scenario's options, and why it differs from
    what was asked (``notes``, one sentence each, for the page): ``by_group``, ``find_groups``, ``kind``.

    A plot by group needs a label column (without one it is drawn without groups); a pure ε-DP release has no δ for
    the stability steps, so it draws the plot additive and, when the groups were to be found privately, without
    groups (declare them public to keep them). The pages never turn a score-plot option into a refusal of the whole
    release."""
    from dppca_core.budget import release_curve_kind

    by_group = bool(vals["sgroup"]) and has_labels  # without a label column: drawn without groups (Explore says so)
    declared = declared_groups(vals)
    kind, notes = vals["skind"], []
    pure = mechanism is not None and release_curve_kind(mechanism, mech_params(mechanism, vals)) == "pure"
    if pure and kind == "sparse":
        kind = "additive"
        notes.append("a pure ε-DP release has no δ for the sparse plot's threshold: noise on every cell instead.")
    if pure and by_group and not declared:
        by_group = False
        notes.append("a pure ε-DP release has no δ to find the groups privately: drawn without groups (declare "
                     "the groups public to show them).")
    return {"by_group": by_group, "find_groups": by_group and not declared, "kind": kind, "notes": notes}


def score_options(vals: dict, labels, mechanism: str | None = None) -> dict:
    """The score plot's options for :func:`dppca_core.release_pca` (empty without a scores share): groups from the
    label column (declared public, or their set released privately from the groups share), the frame and the kind;
    adjusted for ``mechanism`` as :func:`score_plan` says (never a refusal)."""
    if vals["bscores"] <= 0:
        return {}
    plan = score_plan(vals, labels is not None, mechanism)
    out = {"score_frame": vals["sframe"], "score_kind": plan["kind"]}
    if plan["by_group"]:
        out["score_groups"] = labels
        if declared_groups(vals):
            out["score_group_labels"] = declared_groups(vals)
    return out


def private_radius(vals: dict | None = None) -> bool:
    """Whether each release chooses its clipping radius privately (from the radius share)."""
    vals = values() if vals is None else vals
    return vals.get("rfrom", "public") == "private"


def radius_rule(vals: dict | None = None):
    """The public settings of the private radius (:class:`dppca_core.experiments.RadiusRule`), or None when R is
    a public number; ValueError naming the fix when the bounds are in the wrong order."""
    vals = values() if vals is None else vals
    if not private_radius(vals):
        return None
    if not vals["rlo"] < vals["rhi"]:
        raise ValueError(f"the bounds on R must be a smaller and a larger number (got {vals['rlo']:g} and "
                         f"{vals['rhi']:g}): set them on the Data page.")
    return experiments.RadiusRule((vals["rlo"], vals["rhi"]), vals["rq"])


def private_scaling(vals: dict | None = None) -> bool:
    """Whether each release scales the columns privately (a root-mean-square from the scale share)."""
    vals = values() if vals is None else vals
    return vals.get("scale", "none") == "private"


def scale_rule(vals: dict, d: int):
    """The public settings of a private scaling (:class:`dppca_core.experiments.ScaleRule`: the public bounds), or
    None when the columns are not scaled privately; ValueError naming the fix when the bounds do not fit the data."""
    if not private_scaling(vals):
        return None
    given = bounds(vals)
    if len(given) != d:
        raise ValueError(f"scaling each column privately needs a public bound per column: {d} for these data (got "
                         f"{len(given)}). Enter them on the Data page (Preprocessing: Public per-column bounds), or "
                         "turn the scaling off.")
    return experiments.ScaleRule(tuple(given))


def nonprivate_choices(vals: dict | None = None) -> list[str]:
    """The data-dependent choices of the scenario that were made without privacy (each in words), in the order of
    the pipeline: scaling, centring, clipping radius. Empty when every choice is public or private."""
    vals = values() if vals is None else vals
    out = []
    # the bounds matter for both scalings: a private root-mean-square is computed with them
    if vals["scale"] in ("bounds", "private") and SCALE_SOURCES[vals["sfrom"]][1]:
        out.append(SCALE_SOURCES[vals["sfrom"]][1])
    if vals["center"] in NONPRIVATE_CENTRING:
        out.append(NONPRIVATE_CENTRING[vals["center"]])
    if R_SOURCES[vals["rfrom"]][1]:
        out.append(R_SOURCES[vals["rfrom"]][1])
    return out


def audit_follows_scenario() -> None:
    """Open the Audit page on the scenario's first mechanism, its ε and its δ.

    The audit's own settings follow the scenario until the user changes them on the Audit page: they are
    replaced only while they still hold the defaults or the values last taken from the scenario.
    """
    vals = values()
    mechs = mechanisms(vals)
    if not mechs:
        return
    current = (vals["amech"], vals["aeps"], vals["adelta"])
    if current in ((DEFAULTS["amech"], DEFAULTS["aeps"], DEFAULTS["adelta"]), st.session_state.get(AUDIT_FOLLOW_KEY)):
        wanted = (mechs[0], min(max(float(vals["eps"]), FIELDS["aeps"].low), FIELDS["aeps"].high), vals["delta"])
        vals["amech"], vals["aeps"], vals["adelta"] = wanted
        st.session_state[AUDIT_FOLLOW_KEY] = wanted


def sync_url() -> None:
    """Write the scenario into the address bar (only when something changed)."""
    want = to_query(values())
    if dict(st.query_params) != want:
        st.query_params.clear()
        st.query_params.update(want)


def share_link(page_path: str) -> str:
    """The full address of this view: the app's base URL, the page and every setting."""
    base = ""
    try:
        url = st.context.url or ""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme and parts.netloc:
            base = f"{parts.scheme}://{parts.netloc}"
    except Exception:  # noqa: BLE001 - no browser context (tests, scripts)
        base = ""
    query = query_string()
    return f"{base}/{page_path}" + (f"?{query}" if query else "")


# -- widgets bound to the scenario --------------------------------------------------------------------------

def bind(name: str, *, key: str | None = None, to_widget=None, from_widget=None) -> dict:
    """Keyword arguments binding a widget to setting ``name``.

    The widget's key is re-seeded from the scenario right before the widget is drawn (so a page switch or a
    stale widget state cannot show anything else), and its callback validates the widget's value and writes it
    back; an invalid value is refused with a notice and the widget snaps back. ``to_widget``/``from_widget``
    convert between the stored value and the widget's value (e.g. a comma list and a multiselect's list).
    """
    key = key or WIDGET_PREFIX + name
    current = values().get(name, DEFAULTS.get(name))
    st.session_state[key] = to_widget(current) if to_widget else current

    def _copy():
        raw = st.session_state[key]
        try:
            set_value(name, from_widget(raw) if from_widget else raw)
        except ValueError as exc:
            st.session_state.setdefault(NOTICES_KEY, []).append(f"{name}: {exc}; kept the previous value.")

    return {"key": key, "on_change": _copy}


def with_current(options, current) -> list:
    """Slider options with the current value added when it is off the grid (kept exactly, never snapped)."""
    out = sorted(set(options) | {current})
    return out


def notice_box(container=st) -> None:
    """Show (once) what could not be used from the link or a widget, as plain text."""
    notes = pop_notices()
    if notes:
        container.warning("Some settings were not used:\n\n" + "\n".join(f"- {md_escape(n)}" for n in notes),
                          icon=":material/link_off:")

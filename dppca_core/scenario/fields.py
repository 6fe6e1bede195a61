"""Every setting of the scenario: its kind, default and allowed values (:data:`FIELDS`), and the checks of the
settings that hold text (a data source, mechanisms, a schema, groups, plan targets)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable

from ..data import datasets as dsets
from .. import reproduce
from ..pipeline import experiments
from ..registry import mechanism_names


#: Largest synthetic table (rows x columns) a link may ask for; uploads have their own limit.
MAX_CELLS = 4_000_000
#: Longest raw URL value we parse (anything longer is refused before parsing).
MAX_RAW_CHARS = 2_000
VIEWS = (
    "spread",
    "loadings",
    "projection",
    "angles",
    "animation",
    "support",
    "downstream",
    "convergence",
    "risk",
    "scree",
    "scores",
)
SWEEP_AXES = ("eps", "n", "d", "delta", "k", "s")
METRICS = experiments.METRICS  # live: a metric declared in dppca_core.metrics is a choice (the schema names none)
AUDIT_TRIALS = (500, 1000, 2000, 5000, 10000, 20000)
#: Where the clipping radius R came from: value -> (how the Data page says it, the non-private choice it makes or
#: None when it reads nothing from the data). A small enumeration on purpose: a private choice of R from its own
#: budget share is one more entry.
R_SOURCES = {
    "public": ("a public bound I know (no data read)", None),
    "hints": (
        "read from the data's hints (NOT private)",
        "the clipping radius R was read from the data (the Data " "page's hints)",
    ),
    "private": ("chosen privately inside each release (its own budget share)", None),
}
#: Where the per-column scaling bounds came from, as R_SOURCES.
SCALE_SOURCES = {
    "public": ("public bounds I know (no data read)", None),
    "hints": (
        "filled from the data's largest values (NOT private)",
        "the per-column scaling bounds were read from " "the data",
    ),
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
#: the largest magnitude of a whole number a setting or a mechanism parameter is read as (2**53: beyond it a float
#: no longer holds every whole number, and 10**400 would not fit one at all); a larger one is refused before it is
#: converted to anything
MAX_WHOLE = 2**53
#: the most characters of a value a notice quotes
SHOWN_CHARS = 40


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """``value`` as a notice quotes it: at most about ``limit`` characters, and never an exception (a whole number too
    long to print is described by its size, a list or a table by its length)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) <= 10**limit:
            return str(value)
        return f"a whole number of about {value.bit_length() * 0.30103:,.0f} digits"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value):,} value" + ("s" if len(value) != 1 else "")
    if isinstance(value, dict):
        return f"a table of {len(value):,} key" + ("s" if len(value) != 1 else "")
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    return repr(value)[:limit]  # a float, a date or a time: short


def check_whole(value, words: str = "too large a number") -> None:
    """ValueError (``words``) when ``value`` is a whole number beyond :data:`MAX_WHOLE`, checked before any
    conversion: Python compares whole numbers of any size exactly, and converting one to a float can overflow."""
    if isinstance(value, int) and not isinstance(value, bool) and not -MAX_WHOLE <= value <= MAX_WHOLE:
        raise ValueError(words)


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
            check_whole(value, self._range_words() if self.low is not None else "too large a number")
            if not math.isfinite(value):
                raise ValueError("not a finite number")
            if self.kind == "int":
                if value != int(value):
                    raise ValueError("not a whole number")
                value = int(value)
            else:
                value = float(value)
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise ValueError(self._range_words())
        elif self.kind == "choice":
            if value not in self.allowed():
                raise ValueError("not one of the options")
        elif not isinstance(value, str):
            raise ValueError("not text")
        return self.check(value) if self.check else value

    def _range_words(self) -> str:
        return f"outside [{self.low:g}, {self.high:g}]"


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
        check_whole(number, "every value must be a finite number")
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise ValueError("every value must be a finite number")
        out[column] = float(number)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) if out else ""


def _check_room(value: str) -> str:
    """A class room's code as the Class page reads it (:func:`dppca_core.classroom.check_code`), or "" for none."""
    from ..classroom.rooms import check_code

    return check_code(value) if str(value).strip() else ""


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
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and 0 < len(g) <= 100 for g in groups):
        raise ValueError("not a list of group names")
    if len(groups) > MAX_GROUPS or len(set(groups)) != len(groups):
        raise ValueError(f"more than {MAX_GROUPS} groups, or a group named twice")
    return json.dumps(groups)


#: the planner's targets (issue 37) and the setting holding each one's number
PLAN_TARGET_FIELDS = {
    "subspace_distance": "pdist",
    "energy": "penergy",
    "f1": "pf1",
    "explained_variance_error": "peverr",
    "score_readability": "pscore",
}
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
FIELDS: dict[str, Field] = {
    f.name: f
    for f in (
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
        Field("spreadm", "choice", "subspace_distance", choices=METRICS.keys),
        # budget split of one release (shares of the total; the subspace gets the rest)
        Field("bmean", "float", 0.1, 0.0, 0.3),
        Field("beig", "float", 0.0, 0.0, 0.3),
        Field("bscores", "float", 0.0, 0.0, 0.3),
        Field("bradius", "float", 0.1, 0.05, 0.3),
        # the private score plot: by group (the label column; the groups found privately), its frame and its kind
        Field("sgroup", "bool", False),
        # the groups of the plot by group declared public (a JSON list: the analyst's schema); "" = found privately
        Field("slabels", "text", "", check=_check_groups),
        Field("sframe", "choice", "private", choices=("public", "private")),  # fitted by default (issue 57)
        Field("skind", "choice", "additive", choices=("additive", "sparse")),
        # trade-offs
        Field("sweep", "choice", "eps", choices=SWEEP_AXES),
        Field("metric", "choice", "subspace_distance", choices=METRICS.keys),
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
        Field("pn", "int", 0, 0, 10**8),  # plan for n rows: 0 = the data's own n (public under replace one row)
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
        # the class game's room a student joins (the Class page: class?room=CODE); empty: no room
        Field("room", "text", "", check=_check_room),
        # reproduce (the papers' synthetic experiments)
        Field("rpaper", "choice", "wang_xu", choices=tuple(reproduce.PAPERS)),  # every paper the catalogue registers
        Field("rgrid", "choice", "default", choices=("default", "full")),
        Field("rreps", "int", 0, 0, 50),
        Field("rseed", "int", 0, 0, SEED_MAX),
    )
}
DEFAULTS = {name: f.default for name, f in FIELDS.items()}

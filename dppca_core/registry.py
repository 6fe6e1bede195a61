"""The one registry of mechanisms and the metadata pages build their widgets from."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable

import numpy as np
import pandas as pd

MODELS = ("central", "local", "distributed")
GUARANTEES = ("pure", "approximate", "none", "retracted")


@dataclass(frozen=True)
class Param:
    """One tunable parameter of a mechanism: its type, range, default and help text.

    ``kind`` is "int", "float", "choice", "bool" or "sites" (an int number of equal sites, a list of
    site sizes or one site label per row; the mechanism validates it against n). ``low``/``high`` are inclusive bounds;
    ``log`` suggests a log-scaled widget. ``default`` may be None when the mechanism derives
    it from other inputs (the help text then says how).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    log: bool = False

    def validate(self, value):
        if value is None and self.default is None:
            return None
        if self.kind == "sites":
            return value
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{self.name} must be True or False (got {value!r}).")
            return bool(value)
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"{self.name}={value!r} is not allowed; choose one of {list(self.choices)}.")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, Integral):
                raise ValueError(f"{self.name} must be a whole number (got {value!r}).")
            value = int(value)
        elif self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"{self.name} must be a finite number (got {value!r}).")
            value = float(value)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{self.name} = {value} is out of range: choose a value in [{self.low}, {self.high}].")
        return value

    def as_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "default": self.default, "help": self.help}
        if self.kind in ("int", "float", "sites"):
            out.update(low=self.low, high=self.high, log=self.log)
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        return out


@dataclass
class Output:
    """What a mechanism function returns; :func:`dppca_core.run` wraps it into a Release."""

    components: np.ndarray
    noise_scale: float | None = None
    eigenvalues: np.ndarray | None = None
    diagnostics: dict = field(default_factory=dict)
    guarantee: str | None = None  # override of the registry's guarantee for this run
    delta: float | None = None  # override of the delta actually spent (0 for pure runs)


@dataclass(frozen=True)
class MechanismSpec:
    """Metadata and entry point of one mechanism.

    ``func(data, k, epsilon, delta, neighbors, rng, **params) -> Output`` where ``data`` is a
    :class:`dppca_core.prepare.PreparedData` with rows of norm <= 1.
    """

    name: str
    title: str
    paper: str
    model: str
    guarantee: str
    func: Callable[..., Output]
    params: tuple[Param, ...] = ()
    notes: str = ""
    relations: tuple[str, ...] = ("replace", "add_remove")
    uses_delta: bool = True
    needs_rows: bool = False
    caveat: str = ""
    max_k: int | None = None

    def __post_init__(self):
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}")
        if self.guarantee not in GUARANTEES:
            raise ValueError(f"guarantee must be one of {GUARANTEES}")

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def resolve_params(self, given: dict) -> dict:
        """Defaults filled in, every value validated; unknown names raise ValueError."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            hint = f"it accepts {sorted(known)}" if known else "it takes no extra parameters"
            raise ValueError(f"{self.name} does not take parameter(s) {unknown}; {hint}.")
        return {name: p.validate(given.get(name, p.default)) for name, p in known.items()}


_REGISTRY: dict[str, MechanismSpec] = {}


def register(spec: MechanismSpec) -> MechanismSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"mechanism {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def mechanism(**meta):
    """Decorator: register the decorated function as a mechanism with metadata ``meta``."""

    def wrap(func):
        register(MechanismSpec(func=func, **meta))
        return func

    return wrap


def get_mechanism(name: str) -> MechanismSpec:
    _load_builtin()
    if name not in _REGISTRY:
        raise ValueError(f"unknown mechanism {name!r}; choose one of {sorted(_REGISTRY)} (see list_mechanisms()).")
    return _REGISTRY[name]


def mechanism_names() -> list[str]:
    _load_builtin()
    return list(_REGISTRY)


def list_mechanisms() -> pd.DataFrame:
    """One row per mechanism with its metadata (name, title, paper, model, guarantee, parameters, notes, ...)."""
    _load_builtin()
    rows = [
        {
            "name": s.name,
            "title": s.title,
            "paper": s.paper,
            "model": s.model,
            "guarantee": s.guarantee,
            "parameters": [p.as_dict() for p in s.params],
            "notes": s.notes,
            "relations": list(s.relations),
            "uses_delta": s.uses_delta,
            "needs_rows": s.needs_rows,
            "caveat": s.caveat,
        }
        for s in _REGISTRY.values()
    ]
    return pd.DataFrame(rows)


def _load_builtin() -> None:
    from . import mechanisms  # noqa: F401  (importing registers the built-in mechanisms)

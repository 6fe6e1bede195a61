"""The scenario in a link's query string: parsing and validation (:func:`from_query`, :func:`from_fields`), and
the query of a scenario (:func:`to_query`: only what differs from the defaults)."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from ..pipeline import experiments
from ..registry import get_mechanism, mechanism_names

from .fields import DEFAULTS, FIELDS, MAX_CELLS, MAX_RAW_CHARS, SHOWN_CHARS, check_whole, shown

#: most site sizes a list may give (a mechanism's "sites" parameter)
MAX_SITE_SIZES = 50


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


def _plain_param(value, param) -> None:
    """ValueError unless ``value`` is what a mechanism parameter can be in a link or a file (None, true/false, a
    number, a short text, a list of whole numbers), every whole number within :data:`MAX_WHOLE`: checked before the
    registry converts anything."""
    bounded = param.low is not None or param.high is not None
    too_large = f"out of range: choose a value {param.range.words()}" if bounded else "too large a number"
    if isinstance(value, list):
        if len(value) > MAX_SITE_SIZES or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ValueError(f"a list here holds at most {MAX_SITE_SIZES} whole numbers")
        for v in value:
            check_whole(v, "a site size is too large a number")
    elif isinstance(value, str):
        if len(value) > MAX_RAW_CHARS:
            raise ValueError(f"longer than {MAX_RAW_CHARS} characters")
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise ValueError("not a number, a choice or a list of whole numbers")
    check_whole(value, too_large)


def validate_param(key: str, value) -> Any:
    """Check a mechanism parameter against the registry metadata; None stands for the mechanism's default."""
    _, param = _param_spec(key)
    if value is None:
        return None
    _plain_param(value, param)
    if param.kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if param.kind == "sites":
        if not (isinstance(value, int) or isinstance(value, list)):  # a list: whole numbers (_plain_param)
            raise ValueError("sites must be a number of sites or a list of site sizes")
        param.validate(value)
        return value
    return param.validate(value)


def cap_size(values: dict, notices: list) -> None:
    if values["src"] == "synthetic" and values["n"] * values["d"] > MAX_CELLS:
        capped = max(10, MAX_CELLS // values["d"])
        notices.append(
            f"n × d is capped at {MAX_CELLS:,} cells on this server; n = {values['n']:,} with d = "
            f"{values['d']} was lowered to n = {capped:,}."
        )
        values["n"] = capped


def checked(key: str, value, text: bool = False) -> Any:
    """The one validation of every value of a scenario, from a link (``text``: the link's string), a scenario file,
    a gallery card or a lesson step: a setting of :data:`FIELDS` or a ``<mechanism>.<parameter>``. Returns the
    value to use; ValueError with the reason in words when it cannot be used, never another exception (a whole
    number is range-checked before it is converted: :func:`check_whole`)."""
    try:
        if key in FIELDS:
            return FIELDS[key].parse(value) if text else FIELDS[key].validate(value)
        if "." in key:
            return _parse_param(key, value) if text else validate_param(key, value)
    except ValueError as exc:
        raise ValueError(str(exc)[:160] or "not a value this setting can take") from None
    except (TypeError, OverflowError, RecursionError):
        raise ValueError("not a value this setting can take") from None
    raise ValueError("unknown setting")


#: the most notices a link or a file gives (one more says how many others were left out)
MAX_NOTICES = 20


#: why a value longer than a link carries was not used, and where to find it
TOO_LONG = (
    "{chars:,} characters, more than a link carries for one setting ("
    + f"{MAX_RAW_CHARS:,}"
    + "); a scenario file holds it: download it from the sidebar of the app and open it on Home"
)


def capped(notices: list) -> list:
    """``notices`` with at most :data:`MAX_NOTICES`, the rest counted in one more."""
    if len(notices) <= MAX_NOTICES:
        return notices
    return notices[:MAX_NOTICES] + [f"and {len(notices) - MAX_NOTICES:,} more values that could not be used."]


def _ignored(key: str, value: str, reason: str, where: str = "") -> str:
    """The notice of a value that could not be used (``value`` as the notice quotes it); it keeps its default."""
    default = f"; using {shown(FIELDS[key].default)}" if key in FIELDS else ""
    return f"ignored {key[:SHOWN_CHARS]} = {value}{where}: {reason}{default}"


def from_query(params: dict) -> tuple[dict, list[str]]:
    """Scenario values from URL query parameters, and one notice per value that could not be used.

    Never raises: malformed, out-of-range or unknown values fall back to the defaults.
    """
    values, notices, used = dict(DEFAULTS), [], set()
    for key, raw in list(params.items())[:200]:
        key, raw = str(key)[:100], str(raw)
        if len(raw) > MAX_RAW_CHARS:  # what a link cannot carry: the address bar leaves it out (link_query)
            notices.append(_ignored(key, raw[:SHOWN_CHARS] + "…", TOO_LONG.format(chars=len(raw)), " from the link"))
            continue
        try:
            values[key] = checked(key, raw, text=True)
            used.add(key)
        except ValueError as exc:
            notices.append(_ignored(key, str(raw)[:SHOWN_CHARS], str(exc), " from the link"))
    if "target" not in used:
        values["target"] = default_target(values)
    cap_size(values, notices)
    return values, capped(notices)


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


def too_long_for_a_link(vals: dict) -> dict:
    """{setting: characters} of the values of ``vals`` a link cannot carry: longer than :data:`MAX_RAW_CHARS`, which
    :func:`from_query` refuses (a wide table's declared columns, their public values). A scenario file holds them."""
    return {key: len(text) for key, text in to_query(vals).items() if len(text) > MAX_RAW_CHARS}


def link_query(vals: dict) -> dict:
    """:func:`to_query` without the values a link cannot carry (:func:`too_long_for_a_link`): what an address bar
    holds, every value of it read back by :func:`from_query`."""
    return {key: text for key, text in to_query(vals).items() if len(text) <= MAX_RAW_CHARS}


def from_fields(fields: dict, kept: dict | None = None) -> tuple[dict, list[str]]:
    """A complete scenario: the defaults updated with ``kept`` and ``fields`` (a gallery card or a lesson step),
    each validated; and a notice per field that could not be used."""
    vals, notices = {**DEFAULTS, **(kept or {})}, []
    for key, value in fields.items():
        try:
            vals[key] = checked(key, value)
        except ValueError as exc:
            notices.append(_ignored(str(key), shown(value), str(exc)))
    if "target" not in fields:
        vals["target"] = default_target(vals)
    cap_size(vals, notices)
    return vals, capped(notices)

"""The scenario file: versioned TOML holding every setting in its section and the public schema of the data, never
a data row (:class:`Scenario`, :func:`to_toml`, :func:`from_toml`), and its JSON schema (:func:`file_schema`)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fields import FIELDS, MAX_BOUNDS, PLAN_TARGET_FIELDS, SHOWN_CHARS, Field, shown
from .link import capped, from_fields, from_query, is_default, query_string, to_query
from .prescan import MAX_FILE_BYTES, prescan


# -- the scenario file ----------------------------------------------------------------------------------------

#: what the file's first line and its ``format`` key say it is
FILE_FORMAT = "dppca-scenario"
#: the version of the file's layout; a reader refuses a newer one in plain words
FILE_VERSION = 1
FILE_FIRST_LINE = (
    "# DP-PCA Explorer scenario file: every setting and the public schema of the data; no data rows.\n"
    "# Open it on the app's Home page, or in Python: dppca_core.scenario.Scenario.from_file(path)"
)
#: the file's sections, in order: section -> the settings it holds. A setting in no section goes to "other", so a
#: new setting is written (and read) before it is given a place here.
SECTIONS = {
    "data": ("src", "n", "d", "rank", "spike", "sparse", "dseed"),
    "schema": ("cols", "label", "badcells", "fill"),
    "preprocessing": ("center", "R", "rfrom", "rlo", "rhi", "rq", "scale", "bounds", "sfrom"),
    "privacy": (
        "mechs",
        "eps",
        "delta",
        "nb",
        "k",
        "kfrom",
        "kvar",
        "s",
        "bmean",
        "beig",
        "bscores",
        "bradius",
        "bscale",
    ),
    "explore": ("reps", "seed", "view", "spreadm", "sgroup", "slabels", "sframe", "skind"),
    "tradeoffs": ("sweep", "metric", "sreps", "target", "slo", "shi", "logy", "oracle"),
    "plan": (
        "ptarget",
        "pdist",
        "penergy",
        "pf1",
        "peverr",
        "pscore",
        "pconf",
        "pon",
        "pspec",
        "ptotal",
        "peps0",
        "pn",
    ),
    "distributed": ("dsites", "duneven", "dbylabel", "deps", "dreps"),
    "audit": ("amech", "aeps", "adelta", "atrials", "anb", "afactor"),
    "tensor": ("tmodel", "tD", "tK", "tsites", "tn", "teps", "tdelta", "tsplit", "treps", "tseed"),
    "presentation": ("present", "step", "room"),
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
    "bounds": (
        lambda v: [float(b) for b in v.split(",")] if v else [],
        lambda v: ",".join(repr(float(b)) for b in v) if isinstance(v, list) else v,
    ),
    "mechs": (lambda v: [m for m in v.split(",") if m], lambda v: ",".join(v) if isinstance(v, list) else v),
    "ptarget": (lambda v: [t for t in v.split(",") if t], lambda v: ",".join(v) if isinstance(v, list) else v),
}


def section_of(name: str) -> str:
    """The file section that holds setting ``name``."""
    return next((section for section, names in SECTIONS.items() if name in names), OTHER_SECTION)


def to_document(vals: dict) -> dict:
    """The scenario file's content as plain data (what TOML writes): every setting in its section, structured
    settings as lists and tables, mechanism parameters under ``[parameters.<mechanism>]`` (a parameter at its
    mechanism's default, None or the default's own value, is left out as the link leaves it out: TOML has no null)."""
    doc: dict = {"format": FILE_FORMAT, "format_version": FILE_VERSION}
    for section in (*SECTIONS, OTHER_SECTION):
        names = SECTIONS.get(section) or [n for n in FIELDS if section_of(n) == OTHER_SECTION]
        block = {
            name: STRUCTURED[name][0](vals[name]) if name in STRUCTURED else vals[name]
            for name in names
            if name in FIELDS
        }
        if block:
            doc[section] = block
    params: dict = {}
    for key, value in vals.items():
        if key not in FIELDS and not is_default(key, value):  # as the link: only what differs from the default
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
        raise ValueError(
            f"this scenario file has format version {shown(version, 20)}; this version of DP-PCA Explorer "
            f"reads versions 1 to {FILE_VERSION}. Update DP-PCA Explorer to open it."
        )
    given, notices = {}, []
    for section, block in doc.items():
        if section in ("format", "format_version"):
            continue
        if not isinstance(block, dict):
            notices.append(f"ignored {section[:SHOWN_CHARS]}: not a section of settings")
        elif section == PARAMETERS_SECTION:
            given.update(_parameters(block, notices))
        else:
            given.update(_section_values(section, block, notices))
    vals, more = from_fields(given)
    return vals, capped(notices + more)


def _section_values(section: str, block: dict, notices: list) -> dict:
    """{setting: value as a link holds it} of one section; a setting that is unknown or in another section is
    ignored with a notice."""
    out = {}
    for name, value in list(block.items())[:500]:
        if name not in FIELDS or section_of(name) != section:
            notices.append(f"ignored {section[:SHOWN_CHARS]}.{name[:SHOWN_CHARS]}: not a setting of this section")
            continue
        try:
            out[name] = STRUCTURED[name][1](value) if name in STRUCTURED else value
        except (TypeError, ValueError, OverflowError, RecursionError):  # checked again, in words, by from_fields
            notices.append(f"ignored {name} = {shown(value)}: not a value this setting can take")
    return out


def _parameters(block: dict, notices: list) -> dict:
    """{"<mechanism>.<parameter>": value} of the ``[parameters]`` section."""
    out = {}
    for mech, params in list(block.items())[:100]:
        if not isinstance(params, dict):
            notices.append(f"ignored parameters.{mech[:SHOWN_CHARS]}: not a table of parameters")
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
    return "".join(
        c if c.isprintable() or c == "\n" else (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
        for c in text
    )


def from_toml(text: str | bytes) -> tuple[dict, list[str]]:
    """A complete scenario from a scenario file's text, and the notices (:func:`from_document`); ValueError in plain
    words when the text is too long or shaped as no scenario file is (:func:`prescan`, before it is parsed), not
    TOML, or not a scenario file."""
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise ValueError(f"this file is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far smaller.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("this file is not text (UTF-8): a scenario file is a small text file.") from None
    prescan(text)  # its size and structure, in one linear pass: the parser's work is linear under these limits
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ValueError(f"this file is not a readable scenario file (TOML): {str(exc)[:160]}.") from None
    except ValueError:  # a whole number longer than Python reads (4,300 digits)
        raise ValueError("this file is not a readable scenario file (TOML): a number in it is too long.") from None
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
            raise ValueError(
                f"{path.name} is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far " "smaller."
            )
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
            sections[section] = {
                "type": "object",
                "additionalProperties": False,
                "properties": {n: {**_field_schema(FIELDS[n]), "default": _default_in_file(n)} for n in names},
            }
    sections[PARAMETERS_SECTION] = {
        "type": "object",
        "description": "mechanism -> {parameter: value}; a parameter left out keeps its default",
        "additionalProperties": {"type": "object"},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "DP-PCA Explorer scenario file",
        "type": "object",
        "required": ["format", "format_version"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": FILE_FORMAT},
            "format_version": {"type": "integer", "minimum": 1, "maximum": FILE_VERSION},
            **sections,
        },
    }


def _default_in_file(name: str):
    default = FIELDS[name].default
    return STRUCTURED[name][0](default) if name in STRUCTURED else default

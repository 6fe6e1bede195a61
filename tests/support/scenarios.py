"""Scenarios for the scenario tests and the scenario-file benchmark (benchmarks/scenario_files.py): the largest
scenario the app writes, files shaped against the TOML parser, and the checks of what a scenario holds."""

import json
import re

import dppca_core as dc
from dppca_core import scenario as core
from dppca_core.registry import get_mechanism, mechanism_names


def assert_valid(values):
    """Every field and mechanism parameter of ``values`` is one its check keeps as it is."""
    for name, field in core.FIELDS.items():
        assert field.validate(values[name]) == values[name], name
    for key, value in values.items():
        if key not in core.FIELDS:
            assert core.validate_param(key, value) == value, key
    if values["src"] == "synthetic":
        assert values["n"] * values["d"] <= core.MAX_CELLS


#: an exception's class name in a message (what a user must never read)
CLASS_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception|Warning)\b")


HEADER = f'format = "{core.FILE_FORMAT}"\nformat_version = {core.FILE_VERSION}\n'

#: the issue's files (62: 22 s of CPU for 99 KB, 10.5 s for 80 KB; 63: 434 MB of memory for 16 KB)
QUADRATIC = {
    "one long dotted key (16 KB)": HEADER + ".".join(["a"] * 8_000) + " = 1\n",
    "a deep dotted table header with many keys (99 KB)": HEADER
    + "["
    + ".".join(["a"] * 5_000)
    + "]\n"
    + "".join(f"k{i}=1\n" for i in range(10_000)),
    "80 KB of dotted keys": HEADER + "".join(f"a{i}.b.c.d.e.f.g.h.i.j.k = 1\n" for i in range(3_200)),
    "a dotted key of quoted parts": HEADER + ".".join(['"a"'] * 8_000) + " = 1\n",
    "a dotted key inside an inline table": HEADER + "[other]\nx = {" + ".".join(["a"] * 8_000) + " = 1}\n",
    "nested arrays": HEADER + "[data]\nn = " + "[" * 3_000 + "]" * 3_000 + "\n",
}


def largest_scenario(name_chars: int = 100) -> dict:
    """The largest scenario the app writes: 2,000 declared columns (the upload limit) named with ``name_chars``
    characters and a public value for each, 500 bounds, 30 declared groups, the longest texts, every mechanism
    and every mechanism parameter away from its default."""
    columns = [f"c{j:05d}_".ljust(name_chars, "x") for j in range(core.MAX_SCHEMA_COLUMNS)]
    vals = {
        **core.DEFAULTS,
        "src": "upload",
        "cols": json.dumps(columns),
        "fill": json.dumps({c: -123456.789012345 for c in columns}),
        "bounds": ",".join(repr(1234.56789012345 + i) for i in range(core.MAX_BOUNDS)),
        "slabels": json.dumps([f"g{i:02d}".ljust(100, "y") for i in range(core.MAX_GROUPS)]),
        "label": "l" * 500,
        "pspec": "1, " * 166,
        "mechs": ",".join(dc.mechanism_names("pca")),
        "ptarget": ",".join(core.PLAN_TARGET_FIELDS),
    }
    for mech in mechanism_names():
        for param in get_mechanism(mech).params:
            key = f"{mech}.{param.name}"
            for value in (param.high, param.low, *param.choices, [300, 700]):
                value = int(value) if param.kind == "int" and isinstance(value, float) else value
                try:
                    value = core.validate_param(key, value)
                except (ValueError, TypeError):
                    continue
                if value is not None and not core.is_default(key, value):
                    vals[key] = value
                    break
    opened, notices = core.from_fields(vals)
    assert not notices, notices[:3]
    return opened

"""The scenario: one flat dict of typed fields, kept in session state and mirrored in the URL.

Canonical values live under ``st.session_state["scenario"]`` (no widget owns that key), so switching
pages loses nothing. Widgets use keys ``w:<field>`` that are (re)initialised from the scenario and
copy their value back in an ``on_change`` callback. Mechanism parameters are stored as
``<mechanism>.<param>`` fields.
"""
from __future__ import annotations

import json
import math

import streamlit as st

SCENARIO_KEY = "scenario"
WIDGET_PREFIX = "w:"

# field -> default; the type of the default is the type of the field.
DEFAULTS: dict = {
    # data
    "src": "synthetic",        # "synthetic", "preset:<name>", "sample:<name>", "upload"
    "n": 2000,
    "d": 20,
    "rank": 3,                 # rank of the planted (true) subspace
    "spike": 4.0,              # spike strength / eigengap of the synthetic model
    "sparse": 0,               # row sparsity of the planted subspace (0 = dense)
    "dseed": 0,                # seed of the synthetic data
    "center": "none",          # "none" or "empirical" (NOT private)
    "R": 1.0,                  # public clipping radius
    # explore
    "mechs": "analyze_gauss,private_power",
    "eps": 1.0,
    "delta": 1e-6,
    "k": 2,
    "s": 0,                    # rows kept for support recovery (0 = the truth's support size)
    "nb": "replace",
    "reps": 10,
    "seed": 0,
    # trade-offs
    "sweep": "eps",
    "metric": "subspace_distance",
    "sreps": 10,
    "target": 0.3,
    # report
    "present": False,
}


def scenario() -> dict:
    """The canonical scenario of this session (created from the URL on first use)."""
    if SCENARIO_KEY not in st.session_state:
        st.session_state[SCENARIO_KEY] = from_query(dict(st.query_params))
    return st.session_state[SCENARIO_KEY]


def _coerce(value: str, default):
    if isinstance(default, bool):
        return str(value).lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(float(value))
    if isinstance(default, float):
        out = float(value)
        if not math.isfinite(out):
            raise ValueError(value)
        return out
    return str(value)


def _coerce_param(value: str):
    """Mechanism parameters travel as JSON (numbers, booleans, strings, lists)."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def from_query(params: dict) -> dict:
    """Scenario from URL query parameters; unknown or malformed values fall back to the defaults."""
    out = dict(DEFAULTS)
    for key, raw in params.items():
        if key in DEFAULTS:
            try:
                out[key] = _coerce(raw, DEFAULTS[key])
            except (TypeError, ValueError):
                pass
        elif "." in key:
            out[key] = _coerce_param(raw)
    return out


def to_query(scn: dict) -> dict:
    """URL query parameters of a scenario: every field (so seeds travel), parameters as JSON."""
    out = {}
    for key, value in scn.items():
        if key in DEFAULTS:
            out[key] = str(value).lower() if isinstance(value, bool) else repr(value) if isinstance(value, float) else str(value)
        else:
            out[key] = json.dumps(value)
    return out


def sync_url() -> None:
    """Write the scenario into ``st.query_params`` (only when something changed)."""
    want = to_query(scenario())
    have = dict(st.query_params)
    if have != want:
        st.query_params.clear()
        st.query_params.update(want)


def load(fields: dict) -> None:
    """Replace the scenario by the defaults updated with ``fields``; reset every widget."""
    st.session_state[SCENARIO_KEY] = {**DEFAULTS, **fields}
    for key in [k for k in st.session_state if str(k).startswith(WIDGET_PREFIX)]:
        del st.session_state[key]


def set_field(name: str, value) -> None:
    scenario()[name] = value


def mechanisms() -> list[str]:
    return mechanisms_of(scenario())


def mechanisms_of(scn: dict) -> list[str]:
    return [m for m in scn["mechs"].split(",") if m]


def mech_params(mech: str) -> dict:
    """Mechanism parameters stored in the scenario (``<mech>.<param>`` fields)."""
    prefix = f"{mech}."
    return {k[len(prefix):]: v for k, v in scenario().items() if k.startswith(prefix)}


def bind(name: str) -> dict:
    """Keyword arguments binding a widget to scenario field ``name``.

    The widget key is initialised from the scenario and its callback writes back, so the scenario
    stays canonical even when the widget is not rendered (another page).
    """
    key = WIDGET_PREFIX + name
    if key not in st.session_state:
        st.session_state[key] = _widget_value(name)

    def _copy():
        value = st.session_state[key]
        if name == "mechs":
            value = ",".join(value)
        scenario()[name] = value

    return {"key": key, "on_change": _copy}


def _widget_value(name: str):
    value = scenario().get(name)
    if name == "mechs":
        return mechanisms()
    return value

"""The scenario: every setting of the app, owned by one module.

The settings themselves (type, default, range), their validation and the URL's and the scenario file's forms are
pure and live in :mod:`dppca_core.scenario` (re-exported here: every import of this module keeps working). This
module holds the values of the session under ``st.session_state["scenario"]`` (a key no widget owns), draws
widgets bound to them, and writes the URL back so a copied link reproduces the view.

Rules that keep the widgets and the numbers in agreement (Streamlit forgets a widget's state when the
widget is not drawn in a run, e.g. after a page switch):

* pages read settings only through :func:`values` — never from a widget's return value;
* every bound widget's key is re-seeded from the scenario right before the widget is drawn, and its
  ``on_change`` callback validates the new value and writes it back;
* nothing here is module-level mutable state: option lists are built per call.
"""

from __future__ import annotations

import json
import urllib.parse

import streamlit as st

from dppca_core.scenario import release as translation
from dppca_core import scenario as pure
from dppca_core.scenario import (
    DEFAULTS,
    FIELDS,
    K_EIGENVALUE_SHARE,
    MAX_RAW_CHARS,
    NONPRIVATE_CENTRING,
    R_SOURCES,
    SCALE_SOURCES,
    Settings,
    cap_size,
    default_target,
    from_fields,
    from_query,
    in_metric_unit,
    validate_param,
)
from dppca_core.scenario import link_query, too_long_for_a_link
from dppca_core.scenario import query_string as _query_string

from .session import AUDIT_FOLLOW_KEY, NOTICES_KEY, SCENARIO_KEY
from .text import md_escape


def __getattr__(name: str):
    """Every other public name of the pure part (:mod:`dppca_core.scenario`: the settings, their limits and checks),
    re-exported: ``scenario.MAX_CELLS`` and ``from ui.scenario import SEED_MAX`` keep working."""
    if not name.startswith("_") and hasattr(pure, name):
        return getattr(pure, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


WIDGET_PREFIX = "w:"
#: Settings a gallery scenario keeps from the session: how the app is shown, not what it computes.
KEPT_ON_LOAD = ("present",)


def declared_columns(vals: dict | None = None) -> list[str] | None:
    """The table's declared columns in order, or None until declared (the Data page then suggests them)."""
    vals = values() if vals is None else vals
    s = Settings(vals)
    return json.loads(s.columns_text) if s.columns_text else None


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
    s = Settings(vals)
    return json.loads(s.fill_text) if s.fill_text else {}


def bounds(vals: dict | None = None) -> list[float]:
    """The public per-column bounds of the scenario (empty when none were given)."""
    return translation.column_bounds(values() if vals is None else vals)


def declared_groups(vals: dict | None = None) -> list[str]:
    """The groups the analyst declared public for the score plot by group (empty: found privately)."""
    return translation.declared_groups(values() if vals is None else vals)


def settings(vals: dict | None = None) -> Settings:
    """``vals`` (the session's scenario by default) read by name (:class:`dppca_core.scenario.Settings`: ``.epsilon``,
    ``.eigenvalue_share``, ...)."""
    return Settings(values() if vals is None else vals)


def query_string(vals: dict | None = None) -> str:
    """The URL query string of ``vals`` (the session's scenario by default)."""
    return _query_string(values() if vals is None else vals)


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
        if name == "kfrom" and vals[name] == "private" and old != "private" and Settings(vals).eigenvalue_share <= 0:
            vals["beig"] = K_EIGENVALUE_SHARE  # the rule reads the private ratios: give them a share (Explore says so)
        if name in ("n", "d", "src"):
            notices: list = []
            cap_size(vals, notices)
            st.session_state.setdefault(NOTICES_KEY, []).extend(notices)
    else:
        vals[name] = validate_param(name, value)


def load(fields: dict) -> None:
    """Replace the scenario by the defaults updated with ``fields`` (a gallery entry); how the app is shown
    (:data:`KEPT_ON_LOAD`, e.g. presenter mode) is kept."""
    vals, notices = from_fields(fields, {key: values()[key] for key in KEPT_ON_LOAD})
    st.session_state[SCENARIO_KEY] = vals
    st.session_state[NOTICES_KEY] = notices


# -- the release a scenario asks for: dppca_core.scenario.release translates it (the session's scenario by default) --


def mechanisms(vals: dict | None = None) -> list[str]:
    return translation.mechanisms(values() if vals is None else vals)


def mech_params(mech: str, vals: dict | None = None) -> dict:
    """The parameters of ``mech`` to pass to ``run`` (None values mean the mechanism's default and are left out)."""
    return translation.mechanism_params(mech, values() if vals is None else vals)


def budget(vals: dict | None = None, mechanism: str | None = None, has_labels: bool = True):
    """The BudgetSplit of the scenario (:func:`dppca_core.scenario.release.budget`)."""
    return translation.budget(values() if vals is None else vals, mechanism, has_labels)


def private_k(vals: dict | None = None) -> bool:
    """Whether each release chooses its k privately (from its private explained-variance ratios)."""
    return translation.private_k(values() if vals is None else vals)


def k_arg(vals: dict | None = None):
    """The k each release is asked for: the scenario's number, or "auto" (chosen privately inside each release)."""
    return translation.k_of(values() if vals is None else vals)


def k_rule_words(vals: dict) -> str:
    """The public rule of a private k, in words."""
    s = Settings(vals)
    return (
        f"the smallest k whose private explained-variance ratios (from the eigenvalue share, "
        f"{s.eigenvalue_share:.0%} of each release's budget) sum above {s.variance_target:g}"
    )


def k_rule_problem(vals: dict | None = None) -> str | None:
    """Why a private k cannot be chosen with these settings (the eigenvalue share is 0), or None."""
    return translation.k_rule_problem(values() if vals is None else vals)


score_plan = translation.score_plan
score_options = translation.score_options


def private_radius(vals: dict | None = None) -> bool:
    """Whether each release chooses its clipping radius privately (from the radius share)."""
    return translation.private_radius(values() if vals is None else vals)


def radius_rule(vals: dict | None = None):
    """The public settings of the private radius (:func:`dppca_core.scenario.release.radius_rule`), or None."""
    return translation.radius_rule(values() if vals is None else vals)


def private_scaling(vals: dict | None = None) -> bool:
    """Whether each release scales the columns privately (a root-mean-square from the scale share)."""
    return translation.private_scaling(values() if vals is None else vals)


scale_rule = translation.scale_rule


def nonprivate_choices(vals: dict | None = None) -> list[str]:
    """The data-dependent choices of the scenario that were made without privacy (each in words), in the order of
    the pipeline: scaling, centring, clipping radius. Empty when every choice is public or private."""
    vals = values() if vals is None else vals
    s = Settings(vals)
    out = []
    # the bounds matter for both scalings: a private root-mean-square is computed with them
    if s.scaling in ("bounds", "private") and SCALE_SOURCES[s.bounds_from][1]:
        out.append(SCALE_SOURCES[s.bounds_from][1])
    if s.centring in NONPRIVATE_CENTRING:
        out.append(NONPRIVATE_CENTRING[s.centring])
    if R_SOURCES[s.radius_from][1]:
        out.append(R_SOURCES[s.radius_from][1])
    return out


def audit_follows_scenario() -> None:
    """Open the Audit page on the scenario's first mechanism, its ε and its δ.

    The audit's own settings follow the scenario until the user changes them on the Audit page: they are
    replaced only while they still hold the defaults or the values last taken from the scenario.
    """
    vals = values()
    s = Settings(vals)
    mechs = mechanisms(vals)
    if not mechs:
        return
    current = (s.audit_mechanism, s.audit_epsilon, s.audit_delta)
    defaults = (Settings.audit_mechanism.default, Settings.audit_epsilon.default, Settings.audit_delta.default)
    if current in (defaults, st.session_state.get(AUDIT_FOLLOW_KEY)):
        allowed = Settings.audit_epsilon.field
        wanted = (mechs[0], min(max(float(s.epsilon), allowed.low), allowed.high), s.delta)
        vals["amech"], vals["aeps"], vals["adelta"] = wanted
        st.session_state[AUDIT_FOLLOW_KEY] = wanted


#: how the pages name a setting that may be too long for a link (a wide table's schema)
LINK_WORDS = {
    "cols": "the declared columns",
    "fill": "the public values of bad cells",
    "bounds": "the public bounds",
    "slabels": "the declared groups",
    "label": "the label column",
    "pspec": "the stated spectrum",
}


def left_out_of_link(vals: dict | None = None) -> str:
    """What the address bar and Copy link leave out because a link cannot carry it, in words ("" when nothing)."""
    long = too_long_for_a_link(values() if vals is None else vals)
    if not long:
        return ""
    what = " and ".join(f"{LINK_WORDS.get(k, k)} ({n:,} characters)" for k, n in long.items())
    return (
        f"The link cannot hold {what}: a link carries at most {MAX_RAW_CHARS:,} characters for one setting, so the "
        "address bar and Copy link leave them out and a copied link opens without them. The scenario file holds "
        "every setting: download it and open it on Home."
    )


def sync_url() -> None:
    """Write the scenario into the address bar (only when something changed), without a value too long for a link
    (:func:`left_out_of_link` says so)."""
    want = link_query(values())
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
    query = urllib.parse.urlencode(link_query(values()))
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
        container.warning(
            "Some settings were not used:\n\n" + "\n".join(f"- {md_escape(n)}" for n in notes),
            icon=":material/link_off:",
        )

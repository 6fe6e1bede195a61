"""Widgets bound to the scenario; mechanism widgets are built from registry metadata only."""
from __future__ import annotations

import numpy as np
import streamlit as st

import dppca_core as dc
from dppca_core.registry import Param

from . import state

# Reference points for epsilon, each with its source, so a newcomer can place a value.
EPS_REFERENCES = [
    (0.1, "ε = 0.1", "Dwork (2011), 'A firm foundation for private data analysis', CACM: ε 'say, 0.01, 0.1'"),
    (0.5, "ε = 0.5", "Wang & Xu, LDP PCA: synthetic experiments at ε = 0.5 (ALGORITHMS.md §9)"),
    (1.1, "ln 3", "Dwork (2011), CACM: 'or in some cases, ln 2 or ln 3' (ln 3 ≈ 1.1)"),
    (2.0, "ε = 2", "Apple, 'Differential Privacy Overview': Health types, ε = 2 per day (local DP)"),
    (4.0, "ε = 4", "Apple, 'Differential Privacy Overview': Emoji, ε = 4 per day (local DP)"),
    (8.0, "ε = 8", "Apple, 'Differential Privacy Overview': QuickType, ε = 8 per day (local DP)"),
    (17.14, "ε = 17.14", "US Census Bureau (2021): 2020 redistricting data, persons, total ε = 17.14 (δ = 1e-10)"),
]


def eps_grid() -> list[float]:
    """Roughly log-spaced readable epsilon values (1, 1.5, 2, 3, 5, 7 per decade, 0.01 .. 50) plus the reference points."""
    grid = {round(m * 10.0**e, 6) for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)} | {50.0}
    grid |= {v for v, _, _ in EPS_REFERENCES}
    return sorted(grid)


def _nearest(value: float, options: list[float]) -> float:
    return min(options, key=lambda o: abs(np.log(o) - np.log(max(value, 1e-12))))


def epsilon_control(container=st) -> float:
    """Log-scaled epsilon slider snapped to the grid; the reference points are listed with sources."""
    options = eps_grid()
    scn = state.scenario()
    if state.WIDGET_PREFIX + "eps" not in st.session_state or scn["eps"] not in options:
        scn["eps"] = _nearest(float(scn["eps"]), options)
    refs = {v: label for v, label, _ in EPS_REFERENCES}
    container.select_slider(
        "Privacy budget ε (log scale)", options=options,
        format_func=lambda v: f"{v:g}" + (f" ◆ {refs[v]}" if v in refs and refs[v] != f"ε = {v:g}" else (" ◆" if v in refs else "")),
        help="Smaller ε = stronger privacy. Values marked ◆ are reference points; see 'Where do these ε come from?'.",
        **state.bind("eps"),
    )
    return scn["eps"]


def reference_table_md() -> str:
    return "\n".join(f"- **{label}** ({v:g}): {src}" for v, label, src in EPS_REFERENCES)


def param_widget(mech: str, p: Param, container=st):
    """One widget for one mechanism parameter, chosen from its metadata (kind, range, log, choices)."""
    field = f"{mech}.{p.name}"
    scn = state.scenario()
    if field not in scn:
        scn[field] = p.default
    label = f"{p.name}"
    kw = state.bind(field)
    if p.kind == "bool":
        return container.checkbox(label, help=p.help, **kw)
    if p.kind == "choice":
        return container.selectbox(label, options=list(p.choices), help=p.help, **kw)
    if p.kind in ("int", "sites"):
        if p.kind == "sites" and not isinstance(scn[field], (int, type(None))):
            container.caption(f"{p.name}: {scn[field]!r} (set from the URL)")
            return scn[field]
        return container.number_input(
            label, min_value=int(p.low) if p.low is not None else None, max_value=int(p.high) if p.high is not None else None,
            step=1, help=p.help + (" Leave empty for the default." if p.default is None else ""), **kw)
    if p.kind == "float":
        return container.number_input(
            label, min_value=float(p.low) if p.low is not None else None, max_value=float(p.high) if p.high is not None else None,
            format="%g", help=p.help + (" Leave empty for the default." if p.default is None else ""), **kw)
    container.caption(f"{p.name}: unsupported parameter kind {p.kind!r}; using the default.")
    return p.default


def mechanism_params(mech: str, container=st) -> dict:
    """Widgets for every parameter of ``mech``; returns the values to pass to ``run`` (None = default)."""
    spec = dc.get_mechanism(mech)
    values = {}
    for p in spec.params:
        v = param_widget(mech, p, container)
        if v is not None:
            values[p.name] = int(v) if p.kind == "int" and not isinstance(v, bool) else v
    return values


def mechanism_label(name: str) -> str:
    spec = dc.get_mechanism(name)
    badge = {"retracted": " ⚠ retracted", "none": " (reference)"}.get(spec.guarantee, "")
    return f"{spec.title}{badge} · {spec.model}"


def guarantee_badges(spec, container=st) -> None:
    """Visible badges for guarantees that do not hold as claimed or are only approximate."""
    if spec.guarantee == "retracted":
        container.badge("RETRACTED: not private", icon=":material/gpp_bad:", color="red")
    elif spec.guarantee == "none":
        container.badge("No privacy (reference)", icon=":material/visibility:", color="gray")
    elif spec.guarantee == "pure":
        container.badge("pure ε-DP", icon=":material/verified_user:", color="green")
    else:
        container.badge("(ε, δ)-DP", icon=":material/verified_user:", color="blue")
    if spec.caveat and spec.guarantee != "retracted":
        container.badge("approximate guarantee (MCMC)" if "mcmc" in spec.caveat.lower() or "gibbs" in spec.caveat.lower()
                        else "guarantee has a caveat", icon=":material/warning:", color="orange")

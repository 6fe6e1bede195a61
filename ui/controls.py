"""Sidebar controls shared by Explore and Trade-offs (all bound to the scenario)."""
from __future__ import annotations

import streamlit as st

import dppca_core as dc
from dppca_core.privacy import NEIGHBOR_RELATIONS, describe_neighbors

from . import state, widgets

DELTAS = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2]


def mechanism_picker(container=st.sidebar) -> list[str]:
    names = dc.mechanism_names("pca")
    scn = state.scenario()
    chosen = [m for m in state.mechanisms() if m in names]
    if ",".join(chosen) != scn["mechs"]:
        scn["mechs"] = ",".join(chosen)
        st.session_state.pop(state.WIDGET_PREFIX + "mechs", None)
    container.multiselect("Mechanisms", names, format_func=widgets.mechanism_label,
                          help="Every registered mechanism; parameters below are built from each one's metadata.",
                          **state.bind("mechs"))
    return state.mechanisms()


def privacy_controls(container=st.sidebar) -> None:
    widgets.epsilon_control(container)
    scn = state.scenario()
    if scn["delta"] not in DELTAS:
        DELTAS.append(scn["delta"])
        DELTAS.sort()
    container.select_slider("δ (failure probability, log scale)", options=sorted(DELTAS), format_func=lambda v: f"{v:.0e}",
                            help="Probability with which the ε bound may fail; keep it far below 1/n.",
                            **state.bind("delta"))
    container.radio("Neighbouring datasets", list(NEIGHBOR_RELATIONS), horizontal=True,
                    format_func={"replace": "replace one row", "add_remove": "add/remove one row"}.get,
                    help=" / ".join(f"{r}: {describe_neighbors(r)}" for r in NEIGHBOR_RELATIONS),
                    **state.bind("nb"))


def shape_controls(container=st.sidebar, reps_field: str = "reps") -> None:
    c = container.columns(2)
    c[0].number_input("components k", 1, 50, step=1, **state.bind("k"))
    c[1].number_input("support size s", 0, 500, step=1,
                      help="Rows kept when scoring support recovery; 0 = the planted support's size.",
                      **state.bind("s"))
    c = container.columns(2)
    c[0].number_input("repetitions", 1, 200, step=1, **state.bind(reps_field))
    c[1].number_input("noise seed", 0, 2**31 - 1, step=1, **state.bind("seed"))


def parameter_controls(mechs: list[str], container=st.sidebar) -> dict:
    out = {}
    for mech in mechs:
        spec = dc.get_mechanism(mech)
        if not spec.params:
            out[mech] = {}
            continue
        with container.expander(f"{spec.title} parameters"):
            out[mech] = widgets.mechanism_params(mech, st)
    return out

"""The Data page's public per-column bounds: R from them, or each column divided by its bound or by a private
root-mean-square inside each release; and each column's largest value read from the data (a non-private hint)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dppca_core.reading import number

from . import scenario


#: a public R for rows whose columns were divided by their root-mean-squares: their mean squared norm is d, so at most
#: a quarter of the rows are longer than 2 sqrt(d) (Markov), whatever the data
PRIVATE_SCALE_R_FACTOR = 2.0


def _apply_scaling(bounds: list, source: str, how: str = "bounds") -> None:
    """Scale each column by its bound (``how="bounds"``: with |x_j| <= b_j the scaled rows have norm <= sqrt(d), a
    public R), or privately inside each release (``how="private"``: a root-mean-square from the scale share, with the
    bounds; rows of mean squared norm d, public R = 2 sqrt(d) unless R is chosen privately)."""
    scenario.set_value("bounds", ",".join(repr(float(b)) for b in bounds))
    scenario.set_value("scale", how)
    scenario.set_value("sfrom", source)
    if how == "private" and scenario.private_radius(scenario.values()):
        return  # each release chooses R privately after scaling: its bounds are in the scaled units
    scenario.set_value("R", float((PRIVATE_SCALE_R_FACTOR if how == "private" else 1.0) * np.sqrt(len(bounds))))
    scenario.set_value("rfrom", "public")


def _bounds_source(given) -> str:
    """Where bounds come from: typed from public knowledge, unless they are exactly those filled from the data."""
    vals = scenario.values()
    return scenario.Settings(vals).bounds_from if [float(b) for b in given] == scenario.bounds(vals) else "public"


#: the bounds grid's buttons: label -> what it does with the typed bounds
BOUND_ACTIONS = {
    "use_R": "Use R = √(Σ bound²)",
    "by_bound": "Scale each column by its bound",
    "private": "Scale each column privately (a share of each release's budget)",
}


def popover(ds) -> None:
    """Public per-column bounds: R from them, or each column scaled by its bound (R = √d) or privately.

    The grid is a form: typing a bound reruns nothing until a button applies them. (Each committed cell used to
    rerun the whole page; a cell typed while the grid was redrawn was lost, and typed bounds that no button
    applied were forgotten on leaving the page. Applied bounds live in the scenario, and the grid shows them.)
    """
    with st.popover("Public per-column bounds", icon=":material/calculate:", width="stretch"):
        st.caption(
            "Give the largest possible absolute value of each feature, from public knowledge (a "
            "questionnaire's scale, a sensor's range, a unit's physical limit): **each button below needs a "
            "bound for every feature**. Then either keep the units "
            "and bound the rows by R = √(Σ bound²), or divide each column by its bound so that no column "
            "dominates because of its units (every column in [−1, 1], R = √d), or let each release divide "
            "each column by a private root-mean-square of the column clipped to its bound (a share of its "
            "budget; R = 2√d unless R is chosen privately)."
        )
        applied = scenario.bounds(scenario.values())
        current = applied if len(applied) == ds.d else [np.nan] * ds.d
        with st.form("bounds_form", border=False):
            bounds = st.data_editor(
                pd.DataFrame({"feature": [str(c) for c in ds.columns], "public bound": current}),
                hide_index=True,
                disabled=["feature"],
                key="bounds_editor",
                width="stretch",
                column_config={
                    "feature": st.column_config.TextColumn(width="medium"),
                    "public bound": st.column_config.NumberColumn(min_value=0.0),
                },
            )
            b = st.columns(2)
            pressed = [
                b[0].form_submit_button(BOUND_ACTIONS["use_R"], key="use_bounds_R"),
                b[1].form_submit_button(BOUND_ACTIONS["by_bound"], key="scale_by_bounds"),
                st.form_submit_button(BOUND_ACTIONS["private"], key="scale_privately"),
            ]
        given = pd.to_numeric(bounds["public bound"], errors="coerce").to_numpy(dtype=float)
        if any(pressed):
            _apply_bounds(given, list(BOUND_ACTIONS)[pressed.index(True)])
        if len(current) and np.all(np.isfinite(current)):
            st.caption(f"Bounds in use: R = √(Σ bound²) = {number(float(np.sqrt(np.sum(np.square(current)))))}.")
        if ds.has_rows:
            st.button(
                "Fill from the data's largest values and scale (NOT private)",
                key="scale_from_data",
                on_click=_apply_scaling,
                args=(list(largest_values(ds.X)), "hints"),
                help="Reads the data: for exploring data you may inspect. A release to publish then states "
                "no guarantee and names this choice.",
            )


#: what each bounds button does, as its refusal names it
BOUND_NEEDS = {
    "use_R": "R from the bounds",
    "by_bound": "Scaling each column by its bound",
    "private": "Scaling each column privately",
}


def _apply_bounds(given: np.ndarray, action: str) -> None:
    """Use the typed bounds (every one a positive number): R from them, or a scaling; refuse in words else (what the
    button needs, how many bounds are missing, where to type them)."""
    usable = np.isfinite(given) & (given > 0)
    if not (len(given) and np.all(usable)):
        st.warning(
            f"{BOUND_NEEDS[action]} needs a public bound for every feature: {int(np.sum(~usable))} of {len(given)} "
            "are empty or not positive. Type each feature's largest possible absolute value (from public "
            "knowledge: a scale, a sensor's range) in the grid above, then press the button again.",
            icon=":material/edit:",
        )
        return
    source = _bounds_source(given)
    if action == "use_R":
        scenario.set_value("bounds", ",".join(repr(float(b)) for b in given))
        scenario.set_value("sfrom", source)
        scenario.set_value("R", float(np.sqrt(np.sum(given**2))))
        scenario.set_value("rfrom", "public" if source == "public" else "hints")
    else:
        _apply_scaling(list(given), source, "bounds" if action == "by_bound" else "private")
    st.rerun()


def largest_values(X) -> np.ndarray:
    """Each column's largest absolute value, rounded up to two significant digits (a non-private hint)."""
    top = np.max(np.abs(X), axis=0)
    top = np.where(top > 0, top, 1.0)
    magnitude = 10.0 ** (np.floor(np.log10(top)) - 1)
    return np.ceil(top / magnitude) * magnitude

"""The Trade-offs page's plan from targets: the targets a user ticks with their numbers, the stand-in the plan is
made on (its inputs), and the plan found (or why none), with every candidate tried."""

from __future__ import annotations

import streamlit as st

from dppca_core import planning
from dppca_core.figures.plan import plan_frontier
from dppca_core.registry import display_name

from . import planner, scenario, show
from .text import NUMBER_FORMAT, md_escape


def targets(vals: dict) -> dict:
    """The targets the user ticked, each with its number (scenario settings: the link and the file carry them)."""
    st.multiselect(
        "targets",
        list(planner.TARGET_INPUTS),
        format_func=lambda t: planner.TARGET_INPUTS[t][0],
        **scenario.bind(
            "ptarget", key="plan_targets", to_widget=lambda v: [t for t in v.split(",") if t], from_widget=",".join
        ),
    )
    chosen = planner.chosen_targets(vals)
    cols = st.columns(max(len(chosen), 1))
    for col, name in zip(cols, chosen):
        label, step, help_text = planner.TARGET_INPUTS[name]
        field = scenario.FIELDS[planner.target_field(name)]
        col.number_input(
            label,
            field.low,
            field.high,
            step=step,
            format=NUMBER_FORMAT,
            help=help_text,
            **scenario.bind(field.name, key=f"plan_t_{name}"),
        )
    return planner.chosen_targets(vals)


def standin_inputs(vals: dict, ds) -> tuple[str, dict]:
    """The stand-in the user picked and its inputs (built when **Plan** is pressed: a private one spends budget)."""
    s = scenario.Settings(vals)
    kinds = planner.standin_choices(vals, ds.has_rows)
    st.radio(
        "plan on",
        kinds,
        format_func=planner.STANDINS.get,
        horizontal=True,
        **scenario.bind("pon", key="plan_standin", to_widget=lambda v: planner.standin_kind(vals, kinds)),
    )
    kind = planner.standin_kind(vals, kinds)
    if kind == "stated":
        c = st.columns([3, 1])
        c[0].text_input(
            f"variances of the main directions, largest first ({planner.spectrum_units(vals)})",
            help="E.g. from a previous study or a published release. Fewer than d values: the rest of the "
            "total is spread evenly.",
            **scenario.bind("pspec", key="plan_spectrum"),
        )
        c[1].number_input(
            "total variance", min_value=0.0, format=NUMBER_FORMAT, **scenario.bind("ptotal", key="plan_total")
        )
        return kind, {"stated": s.plan_spectrum, "total": float(s.plan_total_variance)}
    if kind == "private":
        st.number_input(
            "ε spent on the stand-in (added to the plan's total)",
            0.01,
            10.0,
            step=0.05,
            format=NUMBER_FORMAT,
            **scenario.bind("peps0", key="plan_eps0"),
        )
        st.caption(
            "Pressing **Plan** releases the data's spectrum once with this ε (fresh randomness; kept for "
            "this session's later plans on the same data, never drawn again). Each spectrum released from "
            "these rows is counted in every plan's total."
        )
        return kind, {"private_epsilon": float(s.plan_standin_epsilon)}
    return kind, {}


def show_plan(found) -> None:
    if found.refusal:  # the stand-in cannot support a promise: nothing was simulated
        st.warning(md_escape(found.refusal), icon=":material/block:")
        st.markdown("\n".join(f"- {md_escape(s)}" for s in found.notes))
        return
    if not found.reachable:
        st.warning(md_escape(found.describe()[0]), icon=":material/block:")
        st.markdown("\n".join(f"- {md_escape(s)}" for s in found.notes))
    else:
        c = st.columns(3)
        c[0].metric("total ε", f"{found.total_epsilon:.3g}")
        c[1].metric("mechanism", display_name(found.mechanism))
        c[2].metric("budget split", planning.split_words(found.budget))
        st.markdown("\n".join(f"- {md_escape(s)}" for s in found.describe()))
    st.caption(
        "Planned on a stand-in, not on your rows: if your data differ from it (a narrower gap between the "
        "variances, heavier tails) the real share of releases meeting the targets differs too. The Report "
        "checks a release against your rows (not private)."
    )
    show.chart(
        plan_frontier(found.frontier, found.confidence, found.epsilon if found.reachable else None, found.mechanism),
        key="plan_frontier",
    )
    with st.expander("every mechanism and split tried"):
        st.dataframe(planner.candidates_table(found), hide_index=True, width="stretch")

"""Controls bound to the scenario: the shared sidebar, the epsilon dial and widgets built from registry metadata.

The shared controls (mechanisms, epsilon, delta, relation, k, s, repetitions, seed, mechanism parameters)
are drawn once, by the entry script, for every page that computes releases: the same widgets in every run,
so a page switch cannot reset them. Every widget is bound to the scenario with :func:`ui.scenario.bind`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import streamlit as st

import dppca_core as dc
from dppca_core import publishable, risk
from dppca_core.publishable import PART_WORDS
from dppca_core.reading import number
from dppca_core.privacy import NEIGHBOR_RELATIONS, describe_neighbors
from dppca_core.registry import Param

from . import scenario
from .text import NUMBER_FORMAT, md_escape

DELTA_GRID = (1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)

#: Published epsilons with their sources (checked; see dppca_core.risk), so a newcomer can place a value.
EPS_REFERENCES = tuple(risk.reference_tuples(confirmed_only=True))


def eps_grid(current: float | None = None) -> list[float]:
    """Log-spaced readable epsilon values (1, 1.5, 2, 3, 5, 7 per decade, 0.01 .. 50), the reference points, and
    the current value when it is off the grid (kept exactly)."""
    grid = {round(m * 10.0**e, 6) for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)} | {50.0}
    grid |= {v for v, _, _ in EPS_REFERENCES}
    return scenario.with_current(grid, current) if current is not None else sorted(grid)


def _eps_label(value: float) -> str:
    refs = {v: label for v, label, _ in EPS_REFERENCES}
    if value in refs:
        return f"{number(value, 3)} ◆ {refs[value]}" if refs[value] != number(value) else f"{number(value, 3)} ◆"
    return number(value)


#: the dial's label says what ◆ means in visible text (not only in its tooltip)
REFERENCE_MARK = " · ◆ = a published ε"


def epsilon_slider(container=st, field: str = "eps", key: str | None = None, label: str | None = None) -> None:
    """Log-scaled epsilon slider bound to ``field``; an off-grid value from a link is shown exactly. Its label ends
    with :data:`REFERENCE_MARK`, which explains the marks of the reference points."""
    current = scenario.values()[field]
    container.select_slider(
        (label or "Privacy budget ε (log scale)") + REFERENCE_MARK,
        options=eps_grid(current),
        format_func=_eps_label,
        help="Smaller ε = stronger privacy. Values marked ◆ are reference points (see 'Where do these ε come from?').",
        **scenario.bind(field, key=key),
    )


def reference_table_md() -> str:
    return "\n".join(f"- **{label}** (ε = {v:.3g}): {src}" for v, label, src in EPS_REFERENCES)


def mechanism_label(name: str) -> str:
    """A mechanism as the pickers show it: its display name (a retracted one marked), and its trust model when that
    is not the central curator."""
    spec = dc.get_mechanism(name)
    return spec.display_name + ("" if spec.model == "central" else f" · {spec.model}")


def mechanism_picker(container=st.sidebar) -> None:
    names = dc.mechanism_names("pca")
    container.multiselect(
        "Mechanisms",
        names,
        format_func=mechanism_label,
        help="Every registered mechanism; the parameters below are built from each one's metadata.",
        **scenario.bind("mechs", to_widget=lambda v: [m for m in v.split(",") if m], from_widget=lambda v: ",".join(v)),
    )


def privacy_controls(container=st.sidebar) -> None:
    epsilon_slider(container)
    current = scenario.settings().delta
    container.select_slider(
        "δ (failure probability, log scale)",
        options=scenario.with_current(DELTA_GRID, current),
        format_func=number,  # 10⁻⁶, as every number a person reads
        help="Probability with which the ε bound may fail; keep it far below 1/n.",
        **scenario.bind("delta"),
    )
    container.radio(
        "Neighbouring datasets",
        list(NEIGHBOR_RELATIONS),
        horizontal=True,
        format_func={"replace": "replace one row", "add_remove": "add/remove one row"}.get,
        help=" / ".join(f"{r}: {describe_neighbors(r)}" for r in NEIGHBOR_RELATIONS),
        **scenario.bind("nb"),
    )


def shape_controls(container=st.sidebar, reps_field: str = "reps") -> None:
    c = container.columns(2)
    private_k = scenario.private_k()
    c[0].number_input(
        "components k",
        1,
        50,
        step=1,
        disabled=private_k,
        **scenario.bind("k"),
        help="Not used: each release chooses k privately (Explore: 'k comes from')."
        if private_k
        else "How many principal components each release keeps (public).",
    )
    c[1].number_input(
        "support size s",
        0,
        500,
        step=1,
        help="Rows kept when scoring support recovery; 0 = the planted support's size.",
        **scenario.bind("s"),
    )
    c = container.columns(2)
    c[0].number_input("repetitions", 1, int(scenario.FIELDS[reps_field].high), step=1, **scenario.bind(reps_field))
    c[1].number_input("noise seed", 0, scenario.SEED_MAX, step=1, **scenario.bind("seed"))


def param_widget(mech: str, p: Param, container=st) -> None:
    """One widget for one mechanism parameter, chosen from its metadata (kind, range, choices)."""
    field = f"{mech}.{p.name}"
    vals = scenario.values()
    if field not in vals:
        vals[field] = p.default
    value = vals[field]
    help_text = p.help + (" Leave empty for the default." if p.default is None else "")
    if p.kind == "bool":
        container.checkbox(p.name, help=p.help, **scenario.bind(field))
    elif p.kind == "choice":
        container.selectbox(p.name, options=list(p.choices), help=p.help, **scenario.bind(field))
    elif p.kind == "sites" and not isinstance(value, (int, type(None))):
        container.caption(f"{p.name}: {md_escape(value)} (site sizes set by the link)")
    elif p.kind in ("int", "sites"):
        container.number_input(
            p.name,
            min_value=int(p.low) if p.low is not None else None,
            max_value=int(p.high) if p.high is not None else None,
            step=1,
            help=help_text,
            **scenario.bind(field),
        )
    elif p.kind == "float":
        container.number_input(
            p.name,
            min_value=float(p.low) if p.low is not None else None,
            max_value=float(p.high) if p.high is not None else None,
            format=NUMBER_FORMAT,
            help=help_text,
            **scenario.bind(field),
        )
    else:
        container.caption(f"{p.name}: parameter kind {p.kind!r} has no widget; the default is used.")


def parameter_controls(container=st.sidebar) -> None:
    for mech in scenario.mechanisms():
        spec = dc.get_mechanism(mech)
        if spec.params:
            with container.expander(f"{spec.display_name} parameters"):
                for p in spec.params:
                    param_widget(mech, p, st)


def budget_controls(container=st.sidebar) -> None:
    """Shares of one release's budget; the subspace gets the rest, so the shares always sum to the total."""
    vals = scenario.values()
    s = scenario.Settings(vals)
    with container.expander("Budget split of one release"):
        if s.centring == "private":
            st.slider("mean (private centring)", 0.0, 0.3, step=0.05, format="%.2f", **scenario.bind("bmean"))
        st.slider("eigenvalues (private scree)", 0.0, 0.3, step=0.05, format="%.2f", **scenario.bind("beig"))
        st.slider("scores (private score plot)", 0.0, 0.3, step=0.05, format="%.2f", **scenario.bind("bscores"))
        if s.scores_share > 0:
            st.toggle(
                "score plot by group (the label column)",
                **scenario.bind("sgroup"),
                help="One histogram per group of the label column, all in one table: one row moves at most two "
                "cells of it, so grouping costs no extra noise.",
            )
            if s.scores_by_group:
                _score_groups_source(vals)
            st.radio(
                "score plot frame",
                ["private", "public"],
                **scenario.bind("sframe"),
                format_func={"public": "fixed: [−1, 1]²", "private": "fitted: private quantiles (5%)"}.get,
                help="Fitted (the default): the axes span private 2%–98% quantiles of the scores, so the cells "
                "cover where the data are; fixed: the whole clipped range [−1, 1]², where the rows of a real table "
                "at a safe R fall in one or two cells.",
            )
            st.radio(
                "score plot noise",
                ["additive", "sparse"],
                **scenario.bind("skind"),
                format_func={"additive": "on every cell", "sparse": "on occupied cells only"}.get,
                help="Sparse: only cells that hold rows are released, with a threshold (stability-based: a "
                "little of δ), so empty cells show no noise.",
            )
        try:
            split = scenario.budget(vals)
        except ValueError as exc:
            st.caption(md_escape(exc))
            return
        share_listing(split)


#: how the shares of a split add up (shown under every listing of them)
SHARES_SENTENCE = (
    "Shares of μ² for Gaussian mechanisms (their parts add up in μ², or ρ in zCDP), of ε for pure "
    "ones; the total (ε, δ) is computed exactly from them and is not the sum of the parts' ε."
)


def eigenvalue_share_fix(alert, problem: str, icon: str, key: str, budget: str = "the budget") -> None:
    """A problem that a share of the budget for the eigenvalues solves, said by ``alert`` (``st.error``,
    ``st.warning``), and the one-click fix: the eigenvalues get :data:`ui.scenario.K_EIGENVALUE_SHARE` of ``budget``."""
    alert(md_escape(problem), icon=icon)
    st.button(
        f"Give the eigenvalues {scenario.K_EIGENVALUE_SHARE:.0%} of {budget}",
        key=key,
        on_click=scenario.set_value,
        args=("beig", scenario.K_EIGENVALUE_SHARE),
    )


def share_lines(split) -> list[str]:
    """Every share of one release's budget that is on (the scaling and radius shares set on the Data page
    included), as whole percentages adding up to exactly 100 (:func:`dppca_core.publishable.percents`)."""
    weights = {"subspace": 1.0} if split is None else {p: w for p, w in split.as_dict().items() if w > 0}
    return [f"{PART_WORDS[part]}: {pct}%" for part, pct in zip(weights, publishable.percents(weights.values()))]


def share_listing(split, container=st) -> None:
    """The budget split of one release, every share that is on, adding up to 100%, and in which unit."""
    container.caption(
        "Every share of one release's budget: " + " + ".join(share_lines(split)) + " = 100%. " + SHARES_SENTENCE
    )


def _score_groups_source(vals: dict) -> None:
    """Where the plot's groups come from: declared public by the analyst (one click on Explore's score plot), or
    found privately from a share of the budget; and the way back from declared to found privately."""
    declared = scenario.declared_groups(vals)
    if declared:
        st.caption(
            md_escape(
                f"Groups declared public ({len(declared)}): {', '.join(declared)}. Your schema: each "
                "release states them in its public settings and shows every one."
            )
        )
        st.button(
            "Find the groups privately instead",
            key="score_groups_private",
            on_click=scenario.set_value,
            args=("slabels", ""),
            help="Which groups exist is then released first, from 5% of the budget.",
        )
    else:
        st.caption(
            "Groups found privately: which groups exist is released first, from 5% of the budget, and a group "
            "with few rows may not show. To show every group, declare the label column's values public "
            "(Explore, Private score plot: one click)."
        )


def shared_sidebar(reps_field: str = "reps") -> None:
    """The controls every release-computing page shares, drawn in the sidebar by the entry script."""
    with st.sidebar:
        mechanism_picker(st)
        privacy_controls(st)
        budget_controls(st)
        shape_controls(st, reps_field=reps_field)
        parameter_controls(st)


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
    if spec.provenance is not None and spec.provenance.structure == "inferred":
        container.badge("structure inferred", icon=":material/help:", color="orange")
    if spec.caveat and spec.guarantee != "retracted":
        mcmc = "mcmc" in spec.caveat.lower() or "gibbs" in spec.caveat.lower()
        container.badge(
            "approximate guarantee (MCMC)" if mcmc else "guarantee has a caveat",
            icon=":material/warning:",
            color="orange",
        )


def provenance_note(spec, container=st) -> None:
    """Where a mechanism comes from (its declared provenance: what was read, the calibration, the structure, what
    the proof covers, its last audit, its reproductions' verdicts) and its notes, folded under its card."""
    from dppca_core.mechanisms import provenance

    with container.expander("Where it comes from: what was read, calibration, audit, reproductions"):
        for label, text in provenance.lines(spec):
            st.markdown(f"**{label}.** {md_escape(text)}")
        if spec.notes:
            st.caption(md_escape(spec.notes))


class StopRun(NamedTuple):
    """What :func:`stop_and_run_while` drew: the columns' free slot, and ``done()``, to call once the computation
    has finished: it greys the Stop button out (nothing is running any more)."""

    free: object
    done: Callable[[], None]


def _set_flag(flag: str, value: bool) -> None:
    st.session_state[flag] = value


def stop_and_run_while(flag: str, key: str, what: str, *, stop_label: str, run_label: str) -> StopRun:
    """A Stop and a Run button for a long computation, each enabled only when it can act: Stop while the computation
    runs (the page calls ``done()`` when it has finished, which greys it out; pressed after a finished run it
    stopped nothing and said "stopped"), Run once stopped.

    ``flag`` is a session-state key no widget owns: Stop sets it (the click interrupts the running script, so
    the computation stops at once and its cached parts stay), Run clears it. The page checks the flag before
    computing. The buttons' keys are ``stop_<key>`` (``stop_<key>_done`` once greyed out) and ``run_<key>``.
    """
    stopped = bool(st.session_state.get(flag))  # set by the buttons' callbacks, before this run draws them
    cols = st.columns([1, 1, 1.2])
    slot = cols[0].empty()
    slot.button(
        stop_label,
        icon=":material/stop_circle:",
        key=f"stop_{key}",
        disabled=stopped,
        on_click=_set_flag,
        args=(flag, True),
        help=f"Cancels a running {what} (the click interrupts it); what is already computed stays cached.",
    )
    cols[1].button(
        run_label,
        icon=":material/play_arrow:",
        key=f"run_{key}",
        disabled=not stopped,
        on_click=_set_flag,
        args=(flag, False),
        help=None if stopped else f"Nothing to resume: the {what} runs whenever a setting changes.",
    )

    def done() -> None:
        slot.button(
            stop_label,
            icon=":material/stop_circle:",
            key=f"stop_{key}_done",
            disabled=True,
            help=f"Nothing to stop: the {what} has finished.",
        )

    return StopRun(cols[2], done)


def stop_and_run(flag: str, key: str, what: str, *, stop_label: str, run_label: str):
    """A Stop and a Run button for a long computation; returns the columns' third (free) slot.

    ``flag`` is a session-state key no widget owns: Stop sets it (the click interrupts the running script, so
    the computation stops at once and its cached parts stay), Run clears it. The page checks the flag before
    computing. The buttons' keys are ``stop_<key>`` and ``run_<key>``.
    """
    cols = st.columns([1, 1, 1.2])
    if cols[0].button(
        stop_label,
        icon=":material/stop_circle:",
        key=f"stop_{key}",
        help=f"Cancels a running {what} (the click interrupts it); what is already computed stays " "cached.",
    ):
        st.session_state[flag] = True
    if cols[1].button(run_label, icon=":material/play_arrow:", key=f"run_{key}"):
        st.session_state[flag] = False
    return cols[2]

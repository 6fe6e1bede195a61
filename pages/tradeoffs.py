"""Trade-offs: a metric against epsilon (or n, d, delta, k, s), theory rates, results table, budget planner, and the
plan from targets (the smallest epsilon, mechanism and split that meet the errors a user accepts, on a stand-in)."""

import pandas as pd
import streamlit as st

from dppca_core import figures, metrics, theory
from dppca_core.pipeline import experiments
from dppca_core.reading import number
from dppca_core.registry import display_name

from ui import compute, cpu_budget, data, frontier, plan_form, planner, report, scenario, session, show
from ui import theory_overlay, whatif
from ui.controls import stop_and_run_while
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import NUMBER_FORMAT, md_escape

ensure_navigation()

vals = scenario.values()
s = scenario.Settings(vals)
mechs = scenario.mechanisms(vals)
show.heading("Trade-offs")  # in presenter mode the chart moves up under the dial

c = st.columns(3)
c[0].selectbox("Sweep", list(compute.SWEEPS), format_func=lambda a: compute.SWEEPS[a][0], **scenario.bind("sweep"))
c[1].selectbox(
    "Metric",
    list(compute.METRICS),
    format_func=lambda m: experiments.METRICS[m].label,
    help="Subspace distance: lower is better (0 = the exact components). Captured energy, in % of the "
    "optimal energy, and support F1: higher is better.",
    **scenario.bind("metric"),
)
c[2].toggle("log y axis", **scenario.bind("logy"))
oracle = scenario.private_radius(vals) and s.oracle_radius
if scenario.private_radius(vals):
    c[2].toggle(
        "compare with an oracle R",
        **scenario.bind("oracle"),
        help="Each mechanism also runs with R = the exact target quantile of the rows' norms, read from the "
        "data without noise (not private: an oracle), and the radius share given to the subspace: the "
        "gap between the two curves is what choosing R privately costs.",
    )
if not show.presenting():
    st.caption(
        "Each point: mean over repetitions with a 95% band (2.5%–97.5% quantiles) of a diagnostic computed with "
        "the raw data as reference (not private, for exploration); other settings as in the sidebar."
    )


def _sweep(axis, metric):
    label, _, log_x = compute.SWEEPS[axis]
    if axis in compute.SYNTHETIC_ONLY and s.source != "synthetic":
        raise ValueError(
            f"sweeping {label} regenerates the data, so it needs the synthetic source; "
            "switch to 'Synthesize' on the Data page or sweep ε, δ, n, k or s."
        )
    if compute.subsamples(axis, vals) and not data.load_dataset(vals).has_rows:
        raise ValueError(
            "a file streamed into sufficient statistics keeps no rows to subsample, so n cannot be "
            "swept on it: sweep ε, δ, k or s (or upload a sample of the rows)."
        )
    values = compute.sweep_values(axis, vals)
    if axis == "k" and scenario.private_k(vals):
        raise ValueError(
            "k is chosen privately inside each release, so it cannot be swept: sweep ε, δ or s, or "
            "choose k yourself (Explore: 'k comes from')."
        )
    meter = cpu_budget.Meter("sweep")  # charged to this session's CPU budget: Spent (a warning) when it runs out
    bar = st.progress(0.0, text="running the sweep…")
    own_rows = compute.subsamples(axis, vals)  # past the table's rows: the what-if on a law fitted to it
    ds = data.load_dataset(vals) if own_rows else None
    what_if = whatif.sizes(ds.n, ds.d)[0] if own_rows else []
    total = (len(values) * (2 if oracle else 1) + len(what_if)) * max(len(mechs), 1)
    done = []

    def progress(value, mech):
        done.append(mech)
        meter.tick(then_check=len(done) < total)
        bar.progress(len(done) / total, text=f"{label} = {value:g} · {mech}")

    try:
        frame, errors = compute.sweep_frame(vals, axis, metric, values, on_point=progress, label=label)
        oracle_frame = pd.DataFrame()
        if (
            oracle
        ):  # each point again at the exact quantile of the norms (not private), the radius share to the subspace
            oracle_frame, more = compute.sweep_frame(
                vals, axis, metric, values, on_point=progress, label=f"{label} (oracle R)", variant=_oracle_fields
            )
            errors += more
        what_if_frame = pd.DataFrame()
        if own_rows:
            what_if_frame, more = whatif.beyond(vals, metric, ds, on_point=progress)
            errors += more
    finally:
        bar.empty()
    return frame, oracle_frame, what_if_frame, errors, log_x, label


def _oracle_fields(fields: dict, prep) -> dict:
    """The point's settings with R = the exact target quantile of its rows' norms (read from the data: an oracle)."""
    return {
        **fields,
        "rfrom": "public",
        "R": experiments.oracle_radius(prep.data, scenario.Settings(fields).radius_quantile),
    }


ORACLE_LABEL = "oracle R (not private)"


def _subsample_words(n_rows: int, d: int, extrapolated: bool) -> str:
    """What a sweep of n on the table shows, and what it is not (Markdown)."""
    words = (
        f"Rows n: your table's {n_rows:,} rows and random subsets of them (drawn without replacement with the "
        f"scenario's seed, {s.seed}; each smaller subset inside the larger ones), each point scored "
        "against the non-private answer on the same rows: an exploration of your own data, not a release."
    )
    if extrapolated:
        words += " " + whatif.words(n_rows, d)
    if s.neighbors == "add_remove":
        words += (
            " Under add/remove the number of rows is private: these n are a what-if for you, the data owner, "
            "and none of them is a number to publish."
        )
    return words


buttons = None
if not show.presenting():  # in presenter mode the chart takes their place (cached points make a rerun quick)
    buttons = stop_and_run_while(
        session.SWEEP_STOP_KEY, "sweep", "sweep", stop_label="Stop the sweep", run_label="Run the sweep"
    )

with boundary("the sweep"):
    axis, metric = s.sweep_axis, s.metric
    if not mechs:
        st.info("Pick at least one mechanism in the sidebar.")
        if buttons is not None:
            buttons.done()  # nothing to sweep, nothing to stop
    elif st.session_state.get(session.SWEEP_STOP_KEY):
        st.info(
            "Sweep stopped. Press **Run the sweep** to continue: the points already computed are reused "
            "from the cache."
        )
    else:
        # the planner reads this sweep only: none while it has no result
        st.session_state.pop(session.LAST_SWEEP_KEY, None)
        frame, oracle_frame, what_if_frame, errors, log_x, label = _sweep(axis, metric)
        if buttons is not None:
            buttons.done()  # the sweep has finished: nothing left to stop
        variants = {ORACLE_LABEL: oracle_frame} if not oracle_frame.empty else None
        for e in errors[:5]:
            st.warning(md_escape(e))
        if frame.empty:
            raise ValueError(
                "no point of the sweep could be computed (support metrics need a planted support or " "s > 0)."
            )
        ds = data.load_dataset(vals)
        private_k = scenario.private_k(vals)  # each release's own k: no common rate, no common random level
        overlay = (
            theory_overlay.Overlay()
            if private_k
            else theory_overlay.fitted(axis, metric, mechs, vals, ds.n, ds.d, frame)
        )
        own_rows = compute.subsamples(axis, vals)
        extrapolated = whatif.points(what_if_frame)  # past the table's rows: the what-if, with its band
        random_level = (
            metrics.random_subspace_distance(ds.d, int(s.k))
            if metric == "subspace_distance" and axis not in ("d", "k") and not private_k
            else None
        )
        show.cached_chart(
            figures.sweep,
            (frame, axis, metric, compute.METRICS[metric]),
            dict(
                log_x=log_x,
                theory=overlay.lines,
                log_y=s.log_y,
                random_level=random_level,
                x_title=label,
                y_title=experiments.METRICS[metric].symbol,
                variants=variants,
                extrapolated=extrapolated,
            ),
            main=True,
        )
        if own_rows:
            st.caption(_subsample_words(ds.n, ds.d, bool(extrapolated)))
            for note in whatif.sizes(ds.n, ds.d)[1]:
                st.caption(md_escape(note))
        if variants:
            st.caption(
                "Solid: each release chooses R privately from its radius share. Dashed, open markers: R is the "
                f"exact {s.radius_quantile:g} quantile of the rows' norms (read from the data: **not private**, an "
                "oracle) and the radius share goes to the subspace. The gap is what the private choice of R "
                "costs."
            )
        if private_k:
            st.caption(
                "k is chosen privately inside each release: each repetition is scored against the exact top-k "
                "of its own k (the table's 'k chosen' column), so no theory rate or random level at one k is "
                "drawn."
            )
        elif metric not in theory.ERROR_FORMS:
            st.caption(f"No theoretical rate predicts {experiments.METRICS[metric].label}: none is drawn.")
        else:
            if overlay.lines:
                st.caption(theory_overlay.assumptions(overlay.lines))
            for note in overlay.notes:
                st.caption(md_escape(note))
        st.session_state[session.LAST_SWEEP_KEY] = {  # the planner and the Report read it
            "frame": frame,
            "axis": axis,
            "metric": metric,
            "label": label,
            "rows": ds.n if own_rows else None,
            "what_if": what_if_frame,
        }
        table = compute.sweep_table(frame)
        if variants:
            table = pd.concat(
                [table.assign(R="chosen privately"), compute.sweep_table(oracle_frame).assign(R=ORACLE_LABEL)],
                ignore_index=True,
            )
        st.dataframe(table, width="stretch", hide_index=True)
        st.download_button(
            "Download results (CSV)",
            report.csv_record(table, report.record_line(vals)),
            "dppca_sweep.csv",
            "text/csv",
            icon=":material/download:",
            key="download_sweep",
            on_click="ignore",
            help="An exploration record: diagnostics over repetitions (not private), first line "
            "says so (read it with comment='#').",
        )

st.subheader("Which mechanism wins at each ε")
if not show.presenting():
    st.caption(
        "The sweep of ε above, read as a frontier: each chosen mechanism's median error on your data at each "
        "ε, the best private one ringed (the non-private baseline is a reference, never the winner), each "
        "line marked with the verdict of the mechanism's own audit."
    )


def _sweep_epsilon() -> None:
    scenario.set_value("sweep", "eps")


with boundary("the frontier"):
    last = st.session_state.get(session.LAST_SWEEP_KEY)
    if last is None:
        st.info("The frontier reads the sweep of ε above, which has no result yet.")
    elif last["axis"] != "eps":
        st.info(f"The frontier reads a sweep of ε; the sweep above is of {last['label']}.")
        st.button("Sweep ε instead", key="frontier_sweep_eps", on_click=_sweep_epsilon, icon=":material/swap_horiz:")
    else:
        points = frontier.frontier_frame(last["frame"], last["metric"])
        shipped = frontier.audit_verdicts()
        verdicts = {m: frontier.verdict(shipped, m, s.neighbors) for m in points["mechanism"].unique()}
        show.cached_chart(
            figures.frontier,
            (points, {m: (v.status, v.words) for m, v in verdicts.items()}, compute.METRICS[last["metric"]]),
            dict(log_y=s.log_y),
            key="frontier_chart",
            summary=frontier.frontier_summary(points, last["metric"]),
            table=frontier.frontier_table(points, verdicts),
        )
        st.caption(frontier.audit_source(s.neighbors, frontier.shipped_audit_setting()))

st.subheader("Budget planner")


def _extend(lo, hi) -> None:
    scenario.set_value("slo", lo)
    scenario.set_value("shi", hi)


def _planner_target(info, k: int, d: int) -> float:
    """The target in the metric's own unit (a fraction from a link read as a percentage where the metric is one),
    checked against its range (an unusable one falls back to the metric's default, and the user is told)."""
    notices = []
    converted = scenario.in_metric_unit(vals, notices)
    for note in notices:
        st.info(md_escape(note), icon=":material/percent:")
    try:
        target = info.check_target(converted, k, d)
        if converted != s.target:
            scenario.set_value("target", converted)
        return target
    except ValueError as exc:
        st.warning(f"{md_escape(exc)} Using {info.default_target:g} instead.", icon=":material/tune:")
        scenario.set_value("target", info.default_target)
        return info.default_target


def _plan(last: dict, target: float, share: float, better: str, unit: str) -> None:
    """The planner's answer on the sweep above: per mechanism the smallest swept value meeting the target, the
    extrapolated one when a sweep of n on the table's rows does not reach it, and which range to sweep next."""
    frame, axis, rows = last["frame"], last["axis"], last["rows"]
    found = compute.smallest_passing(frame, axis, metric, target, share)
    if axis == "eps":
        what = "smallest ε"
    elif rows:
        what = f"smallest n (of your {rows:,} rows) at ε = {number(s.epsilon)}"
    else:
        what = f"smallest n at ε = {number(s.epsilon)}"
    table_rows = []
    for mech, value in found.items():
        answer = "not reached on the grid" if value is None else number(value)
        if value is None and rows:
            answer = _what_if_answer(last["what_if"], mech, rows, target, share)
        row = {"mechanism": display_name(mech), what: answer}
        if value is not None:
            at = frame[(frame["mechanism"] == mech) & (frame[axis] == value)].iloc[0]
            row[f"{info.label} there (mean [2.5%, 97.5%])"] = f"{at['mean']:.3g} [{at['lo']:.3g}, {at['hi']:.3g}]"
        table_rows.append(row)
    st.table(pd.DataFrame(table_rows).set_index("mechanism"))  # a few rows, shown whole (wrapped, never cut)
    grid_words = (
        "on the subsamples of your table (a finer grid gives a tighter answer); beyond its rows the what-if "
        "answers (tables drawn from a Gaussian law fitted to yours: not measured)"
        if rows
        else "on the swept grid (a finer grid gives a tighter answer)"
    )
    st.caption(
        f"Target: {info.label} {better} {target:g}{unit} in at least {100 * share:.0f}% of repetitions, "
        f"{grid_words}."
    )
    if rows:  # the table's rows cannot be extended: more rows are the extrapolation's what-if
        return
    advice = compute.next_range(found, axis, vals, sorted(frame[axis].unique()))
    if advice:
        st.info(advice["text"], icon=":material/trending_up:")
        if advice.get("button"):
            st.button(
                advice["button"],
                key="planner_extend",
                on_click=_extend,
                args=(advice["lo"], advice["hi"]),
                icon=":material/open_in_full:",
            )


def _what_if_answer(what_if, mech: str, rows: int, target: float, share: float) -> str:
    """The planner's answer past the table's rows: the smallest what-if n (a table drawn from the law fitted to
    the user's) whose repetitions meet the target in the share asked."""
    mine = what_if[(what_if["mechanism"] == mech) & (what_if["n"] > rows)] if not what_if.empty else what_if
    if mine.empty:
        return f"not reached with {rows:,} rows (no what-if: see above)"
    found = compute.smallest_passing(mine, "n", metric, target, share).get(mech)
    if found is None:
        return f"not reached up to {mine['n'].max():,.0f} rows (what-if)"
    return f"about {found:,.0f} (what-if on a law fitted to your table, not measured)"


with boundary("the budget planner"):
    metric = s.metric
    info = experiments.METRICS[metric]
    k, d = int(s.k), data.load_dataset(vals).d
    target = _planner_target(info, k, d)
    better = "at most" if info.lower_is_better else "at least"
    unit = f" {info.unit}" if info.unit else ""
    c = st.columns([2, 1])
    c[0].number_input(
        f"target: {info.label}{' (' + info.unit + ')' if info.unit else ''} {better}",
        min_value=info.low,
        max_value=info.upper(k, d),
        format=NUMBER_FORMAT,
        help=f"In the metric's unit; valid from {info.low:g} to {info.upper(k, d):.3g}.",
        **scenario.bind("target"),
    )
    share = c[1].slider("in this share of repetitions", 0.5, 1.0, 0.95, 0.05, key="planner_share")
    last = st.session_state.get(session.LAST_SWEEP_KEY)
    if last is None:
        st.info(
            "The planner reads the sweep above, which has no result yet: run a sweep of ε (smallest ε for the "
            "target) or n (smallest n at this ε)."
        )
    elif last["axis"] != s.sweep_axis:
        st.info("The planner reads the sweep above, which is stopped: press **Run the sweep**.")
    elif last["axis"] not in compute.EXTENDABLE:
        st.info(
            f"The planner answers sweeps of ε (smallest ε for the target) or n (smallest n at this ε); the "
            f"sweep above is of {last['label']}."
        )
    elif last["metric"] != metric:
        st.info("The planner reads the sweep above, drawn for another metric: run the sweep again.")
    else:
        _plan(last, target, share, better, unit)

st.subheader("Plan from targets")
if not show.presenting():
    st.caption(
        "Say what error you can accept; the planner finds the smallest total ε, the mechanism and the budget "
        "split that meet it in the share of releases you ask for. It simulates fresh releases on a **stand-in** "
        "for your data (a law, a spectrum you state, or a spectrum released privately inside its own budget), "
        "never on your rows. A stand-in released with noise is planned on as every spectrum it is consistent with; "
        "when its noise cannot support a promise, the planner declines and says what to do. How it works: "
        "docs/planner.md."
    )


with boundary("the plan from targets"):
    ds = data.load_dataset(vals)
    targets = plan_form.targets(vals)
    c = st.columns(2)
    c[0].slider("in this share of releases", 0.5, 0.99, step=0.01, **scenario.bind("pconf", key="plan_confidence"))
    confidence = float(s.plan_confidence)
    label, help_text = planner.rows_input_words(vals, ds.n)
    c[1].number_input(label, 0, 10**8, step=1, help=help_text, **scenario.bind("pn", key="plan_n"))
    estimate = int(s.plan_rows) or None
    kind, standin_args = plan_form.standin_inputs(vals, ds)
    if scenario.private_k(vals):
        st.caption(f"Each release chooses k privately; the plan is made for k = {int(s.k)} (the sidebar's k).")
    question = planner.question(vals, targets, confidence, kind, standin_args, estimate)
    if not targets:
        st.info("Pick at least one target.")
    elif st.button("Plan", key="plan_run", icon=":material/target:", type="primary"):
        with st.spinner("simulating releases on the stand-in…"):
            standin = planner.build_standin(kind, vals, ds, **standin_args)
            n = planner.public_n(vals, ds.n, estimate)
            spent = planner.released_before(ds.key, standin)
            st.session_state[session.PLAN_RESULT_KEY] = (
                question,
                planner.make_plan(targets, confidence, vals, standin, n, ds.d, spent),
            )
    asked, found = st.session_state.get(session.PLAN_RESULT_KEY, (None, None))
    if found is not None and asked != question:
        st.info("The targets or the scenario changed since the last plan: press **Plan** to plan again.")
    elif found is not None:
        plan_form.show_plan(found)
        if found.reachable:
            st.button(
                "Use this plan",
                key="plan_apply",
                on_click=planner.apply,
                args=(found,),
                icon=":material/check:",
                help="Sets ε, puts the mechanism first and sets the budget split.",
            )
            line = planner.planned_line(vals)  # under the plan that is shown: never under a newer refusal
            if line:
                st.success(md_escape(line), icon=":material/check_circle:")

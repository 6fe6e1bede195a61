"""Trade-offs: a metric against epsilon (or n, d, delta, k, s), theory rates, results table, budget planner."""
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics

from ui import compute, data, scenario, show, theory_overlay
from ui.controls import stop_and_run
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

st.title("Trade-offs")
vals = scenario.values()
mechs = scenario.mechanisms(vals)

c = st.columns(3)
c[0].selectbox("Sweep", list(compute.SWEEPS), format_func=lambda a: compute.SWEEPS[a][0], **scenario.bind("sweep"))
c[1].selectbox("Metric", list(compute.METRICS), format_func=compute.METRICS.get, **scenario.bind("metric"))
c[2].toggle("log y axis", **scenario.bind("logy"))
st.caption("Each point: mean over repetitions with a 95% band (2.5%–97.5% quantiles) of a diagnostic computed with "
           "the raw data as reference (not private, for exploration); other settings as in the sidebar.")


def _sweep(axis, metric):
    label, values, log_x = compute.SWEEPS[axis]
    if axis in compute.SYNTHETIC_ONLY and vals["src"] != "synthetic":
        raise ValueError(f"sweeping {label} regenerates the data, so it needs the synthetic source; "
                         "switch to 'Synthesize' on the Data page or sweep ε, δ, k or s.")
    rows, errors = [], []
    bar = st.progress(0.0, text="running the sweep…")
    total = len(values) * max(len(mechs), 1)
    done = 0
    for value in values:
        fields, extra = compute.point_settings(vals, axis, value)
        ds = data.load_dataset(fields)
        if axis == "k" and value >= ds.d:
            continue
        prep = data.prepare(ds, fields)
        for mech in mechs:
            spec = dc.get_mechanism(mech)
            p = scenario.mech_params(mech, vals)
            p.update({k: v for k, v in extra.items() if any(q.name == k for q in spec.params)})
            try:
                res = compute.run_reps(prep, mech, k=int(fields["k"]), epsilon=fields["eps"], delta=fields["delta"],
                                       neighbors=fields["nb"], reps=int(fields["sreps"]), seed=int(fields["seed"]),
                                       params=p, s=int(fields["s"]), planted_support=ds.support,
                                       budget=scenario.budget(fields))
                rows += compute.sweep_rows(res, metric, axis, value)
            except ValueError as exc:
                errors.append(f"{mech} at {label} = {value:g}: {exc}")
            done += 1
            bar.progress(done / total, text=f"{label} = {value:g} · {mech}")
    bar.empty()
    return pd.DataFrame(rows), errors, log_x, label


STOP_KEY = "sweep_stopped"  # canonical flag, no widget owns it
stop_and_run(STOP_KEY, "sweep", "sweep", stop_label="Stop the sweep", run_label="Run the sweep")

with boundary("the sweep"):
    axis, metric = vals["sweep"], vals["metric"]
    if not mechs:
        st.info("Pick at least one mechanism in the sidebar.")
    elif st.session_state.get(STOP_KEY):
        st.info("Sweep stopped. Press **Run the sweep** to continue: the points already computed are reused "
                "from the cache.")
    else:
        frame, errors, log_x, label = _sweep(axis, metric)
        for e in errors[:5]:
            st.warning(md_escape(e))
        if frame.empty:
            raise ValueError("no point of the sweep could be computed (support metrics need a planted support or s > 0).")
        ds = data.load_dataset(vals)
        rates = theory_overlay.rates(axis, list(frame[axis].unique()), mechs, vals, ds, frame)
        random_level = (metrics.random_subspace_distance(ds.d, int(vals["k"]))
                        if metric == "subspace_distance" and axis not in ("d", "k") else None)
        show.chart(figures.sweep(frame, axis, metric, compute.METRICS[metric], log_x=log_x, theory=rates,
                                 log_y=vals["logy"], random_level=random_level, x_title=label))
        if rates:
            st.caption("Dashed lines are the papers' theoretical **rates** (up to constants, each scaled to its curve "
                       "by a least-squares fit on the log scale): they show the expected slope, not a prediction of "
                       "the values.")
        st.session_state["last_sweep"] = {"frame": frame, "axis": axis, "metric": metric}
        table = frame.drop(columns=["values"]).rename(columns={"lo": "2.5%", "hi": "97.5%"})
        st.dataframe(table, width="stretch", hide_index=True)
        st.download_button("Download results (CSV)", table.to_csv(index=False).encode(), "dppca_sweep.csv", "text/csv",
                           icon=":material/download:",
                           help="Diagnostics over repetitions (not private, for exploration), with the settings.")

st.subheader("Budget planner")
with boundary("the budget planner"):
    c = st.columns([2, 1])
    metric = vals["metric"]
    better = "at most" if metric == "subspace_distance" else "at least"
    c[0].number_input(f"target: {compute.METRICS[metric].split(' (')[0]} {better}", format="%g",
                      **scenario.bind("target"))
    share = c[1].slider("in this share of repetitions", 0.5, 1.0, 0.95, 0.05, key="planner_share")
    target = float(vals["target"])
    last = st.session_state.get("last_sweep")
    if last is None or last["axis"] not in ("eps", "n") or last["metric"] != metric:
        st.info("The planner reads the sweep above: sweep ε (smallest ε for the target) or n (smallest n at this ε).")
    else:
        found = compute.smallest_passing(last["frame"], last["axis"], metric, target, share)
        what = "smallest ε" if last["axis"] == "eps" else f"smallest n at ε = {vals['eps']:g}"
        rows = [{"mechanism": m, what: ("not reached on the grid" if v is None else f"{v:g}")} for m, v in found.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.caption(f"Target: {compute.METRICS[metric].split(' (')[0]} {better} {target:g} in at least "
                   f"{100 * share:.0f}% of repetitions, on the swept grid (a finer grid gives a tighter answer).")

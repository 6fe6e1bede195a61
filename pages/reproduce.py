"""Reproduce: re-run each seed paper's synthetic experiment and set our curves beside what the paper reports."""
import json
import time
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dppca_core import reproduce as rp

from ui import report, scenario, show
from ui.controls import stop_and_run
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

STOP_KEY = "reproduce_stopped"  # canonical flag, no widget owns it
LIVE_KEY = "reproduce_live"  # the papers this session asked to recompute live (no widget owns it)
GRID_LABELS = {"default": "default (scaled down, under a minute)", "full": "full (the paper's grid: minutes to hours)"}
#: the files `python -m dppca_core.reproduce --all --out docs/reproduce` wrote: served when the settings match
SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "reproduce"
SHIPPED_COMMAND = "python -m dppca_core.reproduce --all --out docs/reproduce --combined --png --docs docs"


@st.cache_data(max_entries=4096, show_spinner=False)
def _task(task_json: str) -> list[dict]:
    """One task's rows, cached on the task itself: reproduction, grid settings, repetition and seed."""
    return rp.run_task(json.loads(task_json))


@st.cache_resource(show_spinner=False)
def _shipped(key: str):
    """The shipped run of reproduction ``key`` (default grid, its own repetitions, seed 0), read and assembled once
    per server; None when the files are missing or were made with other settings than the current grid's."""
    return rp.load(key, SHIPPED)


@st.cache_resource(show_spinner=False)
def _shipped_figure(key: str):
    """The shipped run's figure, built once per server (the page only reads it)."""
    return rp.figure(_shipped(key), title=False)


st.title("Reproduce the papers")
st.markdown(
    "Each view re-runs a paper's synthetic experiment with this library's mechanisms and draws our curve (the mean "
    "and a 95% band over repetitions) beside what the paper reports: its claim, any numbers it prints, and where "
    "our result differs and why: a setting where noise hides the signal, a calibration the paper got wrong (we "
    "use the corrected one, and draw the paper's own noise beside it), a mechanism that was retracted. Every "
    "point says which algorithm produced it (a fallback, the paper's noise, a reference line), and each of the "
    "paper's claims is listed as reproduced, not reproduced or reversed. The errors are diagnostics against the "
    "planted truth of the synthetic data, not private releases. The same reproductions are written to files by "
    "`python -m dppca_core.reproduce --all --out DIR`."
)

with st.sidebar:
    st.subheader("Reproduction settings")
    st.selectbox("paper", list(rp.PAPERS), format_func=lambda key: rp.PAPERS[key].title, **scenario.bind("rpaper"))
    st.radio("grid", rp.GRIDS, format_func=GRID_LABELS.get, **scenario.bind("rgrid"),
             help="The default grid is scaled down so that a paper's view finishes in under a minute on two cores; "
                  "the full grid uses the paper's sizes and repetitions where it states them.")
    st.number_input("repetitions (0 = the grid's own)", 0, 50, step=1, **scenario.bind("rreps"),
                    help="Fresh data and noise per repetition; the bands span 95% of them.")
    st.number_input("seed", 0, scenario.SEED_MAX, step=1, **scenario.bind("rseed"),
                    help="Seed of every data set and noise draw of the view.")

vals = scenario.values()
paper = rp.PAPERS[vals["rpaper"]]
grid, seed = vals["rgrid"], int(vals["rseed"])
reps = int(vals["rreps"]) or None

st.header(paper.title)
st.caption(md_escape(f"{paper.citation}. {paper.note}"))


def _compute(keys, grid, reps, seed) -> dict:
    plans = {key: rp.plan(key, grid, reps, seed) for key in keys}
    total = sum(len(p) for p in plans.values())
    bar = st.progress(0.0, text="running the reproduction…")
    done, out = 0, {}
    for key, tasks in plans.items():
        start, rows = time.perf_counter(), []
        for task in tasks:
            rows += _task(json.dumps(task, sort_keys=True))
            done += 1
            bar.progress(done / total, text=f"{rp.SPECS[key].title}: task {done} of {total}")
        out[key] = rp.assemble(key, rows, grid, reps, seed, time.perf_counter() - start)
    bar.empty()
    return out


def _shipped_results(keys) -> dict:
    """The shipped runs of the paper's reproductions, when this view asks for exactly them (default grid, the
    grid's repetitions, seed 0) and the session has not asked to recompute live; else {}."""
    if grid != "default" or reps is not None or seed != 0 or paper.key in st.session_state.get(LIVE_KEY, ()):
        return {}
    out = {key: _shipped(key) for key in keys}
    return out if all(rep is not None for rep in out.values()) else {}


def _go_live() -> None:
    st.session_state[LIVE_KEY] = [*st.session_state.get(LIVE_KEY, ()), paper.key]
    st.session_state[STOP_KEY] = False


results, shipped = {}, False
with boundary("the reproduction"):
    results = _shipped_results(paper.reproductions)
    shipped = bool(results)
    if shipped:
        note, button = st.columns([4, 1])
        note.info(f"Shown: the run shipped with the app (default grid, seed 0, made by `{SHIPPED_COMMAND}`), read "
                  "from docs/reproduce/ without computing anything. **Run live** recomputes it here (seconds to a "
                  "few minutes of CPU, docs/reproduce.md lists them).", icon=":material/inventory_2:")
        button.button("Run live", icon=":material/play_arrow:", key="live_reproduce", on_click=_go_live,
                      help="Recompute this paper's reproductions on this server (cached task by task).")
    else:
        free = stop_and_run(STOP_KEY, "reproduce", "reproduction", stop_label="Stop", run_label="Run")
        if grid == "full":
            free.caption("The full grid can take from minutes to hours (Ge et al. at d = 1000); Stop keeps what is "
                         "done.")
        if st.session_state.get(STOP_KEY):
            st.info("Reproduction stopped. Press **Run** to continue: the tasks already computed are reused from "
                    "the cache.")
        else:
            results = _compute(paper.reproductions, grid, reps, seed)


def _claims_table(claims) -> pd.DataFrame:
    return pd.DataFrame([{"the paper's claim": c.claim, "here": c.status, "why, and the measurement": c.why}
                         for c in claims])


for key, rep in results.items():
    st.subheader(rep.title)
    with boundary(f"the view {rep.title}"):
        took = (f" Computed in {rep.seconds:.1f} s" + (" when the shipped files were made." if shipped else
                                                        " (cached tasks are instant).")
                if rep.seconds == rep.seconds else "")
        st.caption(md_escape(rep.settings + took))
        ours, theirs = st.columns([3, 1])
        with ours:
            # the shipped figure is shared by every session: presenter mode restyles a copy of it
            fig = (go.Figure(_shipped_figure(key)) if show.presenting() else _shipped_figure(key)) if shipped \
                else rp.figure(rep, title=False)
            show.chart(fig, key=f"reproduce_fig:{key}")
        with theirs:
            st.markdown("**The paper's figure shows**")
            st.markdown("\n".join(f"- {md_escape(line)}" for line in rep.paper_figure))
        c = st.columns(3)
        c[0].markdown("**What the paper reports**")
        c[0].markdown(md_escape(rep.claim))
        c[1].markdown("**What we find**")
        c[1].markdown(md_escape(rep.finding))
        c[2].markdown("**Where ours differs, and why**")
        c[2].markdown(md_escape(rep.difference))
        c[2].caption(md_escape("Details in docs/papers.md: " + "; ".join(label for label, _ in rep.refs) + "."))
        if rep.claims:
            st.markdown("**The paper's claims, one by one**")
            st.table(_claims_table(rep.claims))
        mixed = bool((rep.frame.groupby("series").algorithm.nunique() > 1).any())  # a fallback or mixed noise
        with st.expander("Which algorithm produced each point", expanded=mixed):
            st.markdown("\n".join(f"- {md_escape(line)}" for line in rep.algorithms))
            for _, x, text in rep.marks:
                st.caption(md_escape(f"Dotted line: {text}."))
        st.download_button("Download the data (CSV)", report.csv_record(rep.frame, report.PUBLIC_RECORD),
                           f"{key}.csv", "text/csv", icon=":material/download:", key=f"reproduce_csv:{key}",
                           help="An exploration record of the papers' synthetic data: one row per panel, series, x "
                                "value and repetition, with the algorithm that produced it (diagnostics, not "
                                "releases; first line says so).")

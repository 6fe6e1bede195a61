"""Reproduce: re-run each seed paper's synthetic experiment and set our curves beside what the paper reports."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dppca_core import reproduce as rp

from ui import cpu_budget, report, scenario, show
from ui import reproduce as computed
from ui.controls import stop_and_run
from ui.errors import boundary
from ui.session import REPRODUCE_STOP_KEY
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

GRID_LABELS = {"default": "default (scaled down, under a minute)", "full": "full (the paper's grid: minutes to hours)"}

presenting = show.heading(  # the bar names the page, and the first figure shares the screen with it
    "Reproduce the papers",
    "Each view re-runs a paper's synthetic experiment with this library's mechanisms and draws our curve (the mean "
    "and a 95% band over repetitions) beside what the paper reports: its claim, any numbers it prints, and where "
    "our result differs and why: a setting where noise hides the signal, a calibration the paper got wrong (we "
    "use the corrected one, and draw the paper's own noise beside it), a mechanism that was retracted. Every "
    "point says which algorithm produced it (a fallback, the paper's noise, a reference line), and each of the "
    "paper's claims is listed as reproduced, not reproduced or reversed. The errors are diagnostics against the "
    "planted truth of the synthetic data, not private releases. The same reproductions are written to files by "
    "`python -m dppca_core.reproduce --all --out DIR`.",
)

with st.sidebar:
    st.subheader("Reproduction settings")
    st.selectbox("paper", list(rp.PAPERS), format_func=lambda key: rp.PAPERS[key].title, **scenario.bind("rpaper"))
    st.radio(
        "grid",
        rp.GRIDS,
        format_func=GRID_LABELS.get,
        **scenario.bind("rgrid"),
        help="The default grid is scaled down so that a paper's view finishes in under a minute on two cores; "
        "the full grid uses the paper's sizes and repetitions where it states them.",
    )
    st.number_input(
        "repetitions (0 = the grid's own)",
        0,
        50,
        step=1,
        **scenario.bind("rreps"),
        help="Fresh data and noise per repetition; the bands span 95% of them.",
    )
    st.number_input(
        "seed",
        0,
        scenario.SEED_MAX,
        step=1,
        **scenario.bind("rseed"),
        help="Seed of every data set and noise draw of the view.",
    )

vals = scenario.values()
s = scenario.Settings(vals)
paper = rp.PAPERS[s.paper]
grid, seed = s.paper_grid, int(s.paper_seed)
reps = int(s.paper_repetitions) or None

st.header(paper.title)
if not presenting:  # the first figure on the first screen at 1280x720
    st.caption(md_escape(f"{paper.citation}. {paper.note}"))


def _compute_live() -> dict:
    """The reproductions computed here (Stop and Run buttons, a progress bar), within this session's CPU budget."""
    free = stop_and_run(REPRODUCE_STOP_KEY, "reproduce", "reproduction", stop_label="Stop", run_label="Run")
    if grid == "full":
        free.caption("The full grid can take from minutes to hours (Ge et al. at d = 1000); Stop keeps what is done.")
    if st.session_state.get(REPRODUCE_STOP_KEY):
        st.info(
            "Reproduction stopped. Press **Run** to continue: the tasks already computed are reused from the cache."
        )
        return {}
    bar = st.progress(0.0, text="running the reproduction…")
    try:
        return computed.compute(
            paper.reproductions, grid, reps, seed, progress=lambda done, text: bar.progress(done, text=text)
        )
    except cpu_budget.Spent as spent:
        st.warning(str(spent), icon=":material/hourglass_disabled:")
        return {}
    finally:
        bar.empty()


def _live_button(label: str = "Run live") -> None:
    st.button(
        label,
        icon=":material/play_arrow:",
        key="live_reproduce",
        on_click=computed.go_live,
        args=(paper.key, grid, reps, seed),
        help="Recompute this paper's reproductions on this server (cached task by task).",
    )


results, shipped = {}, False
with boundary("the reproduction"):
    results = computed.shipped_results(paper.key, paper.reproductions, grid, reps, seed)
    shipped = bool(results)
    if shipped:
        if not presenting:  # presenter mode: the figure first, no note
            note, button = st.columns([4, 1])
            note.info(
                f"Shown: the run shipped with the app (default grid, seed 0, made by "
                f"`{computed.SHIPPED_COMMAND}`), read from docs/reproduce/ without computing anything. **Run live** "
                "recomputes it here (seconds to a few minutes of CPU, docs/reproduce.md lists them).",
                icon=":material/inventory_2:",
            )
            with button:
                _live_button()
    elif not computed.asked(paper.key, grid, reps, seed):  # a link alone starts nothing heavy: it waits for a click
        note, button = st.columns([4, 1])
        note.info(computed.cost_words(paper.reproductions, grid, reps, seed), icon=":material/hourglass_empty:")
        with button:
            _live_button()
    else:
        results = _compute_live()


def _claims_table(claims) -> pd.DataFrame:
    return pd.DataFrame(
        [{"the paper's claim": c.claim, "here": c.status, "why, and the measurement": c.why} for c in claims]
    )


for key, rep in results.items():
    st.subheader(rep.title)
    with boundary(f"the view {rep.title}"):
        took = (
            f" Computed in {rep.seconds:.1f} s"
            + (" when the shipped files were made." if shipped else " (cached tasks are instant).")
            if rep.seconds == rep.seconds
            else ""
        )
        st.caption(md_escape(rep.settings + took))
        ours, theirs = st.columns([3, 1])
        with ours:
            # the shipped figure is shared by every session: presenter mode restyles a copy of it
            fig = (
                (go.Figure(computed.shipped_figure(key)) if show.presenting() else computed.shipped_figure(key))
                if shipped
                else rp.figure(rep, title=False)
            )
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
        st.download_button(
            "Download the data (CSV)",
            report.csv_record(rep.frame, report.PUBLIC_RECORD),
            f"{key}.csv",
            "text/csv",
            icon=":material/download:",
            key=f"reproduce_csv:{key}",
            on_click="ignore",
            help="An exploration record of the papers' synthetic data: one row per panel, series, x "
            "value and repetition, with the algorithm that produced it (diagnostics, not "
            "releases; first line says so).",
        )

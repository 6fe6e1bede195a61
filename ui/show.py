"""How things are shown: charts at the right size, the presenter bar, and the share link.

Presenter mode (setting ``present``) is a mode of the whole app: the scenario keeps it through gallery cards, page
buttons and links. It hides the sidebar and the toolbar, enlarges type and chart text (dark, at least 18 px on a
projector), and puts a sticky bar on every page: previous/next page, Copy link, Exit and, where the numbers follow
epsilon, a large epsilon dial, so the dial and the page's main figure share one screen at 1280×720.
"""

from __future__ import annotations

import pickle
from typing import NamedTuple

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dppca_core.figures import PLOTLY_CONFIG
from dppca_core.figures.alt import figure_summary, figure_table

from . import limits, scenario

#: chart text in presenter mode (px): ticks, legends and axis titles; titles a little larger
PRESENTER_FONT = 20
#: dark enough to read on a projector (Streamlit's own chart theme draws ticks in light grey)
PRESENTER_INK = "#111111"
#: built charts kept for every session (each a figure with its summary and numbers, tens of kB): see cached_chart
CHART_CACHE_ENTRIES = 256
#: tallest chart in presenter mode (px), so that a page's main figure fits under the bar at 1280×720
PRESENTER_MAX_HEIGHT = 370
PRESENTER_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"] {display: none;}
html {font-size: 20px !important;}
[data-testid="stAppViewContainer"] p, [data-testid="stAppViewContainer"] li {font-size: 1.05rem;}
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p {font-size: 2.4rem !important;}
.block-container {max-width: 100%; padding: 0 2rem 2rem 2rem;}
h1 {font-size: 1.7rem !important; padding: 0.4rem 0 0.2rem 0 !important;}
.st-key-presenter_bar {position: sticky; top: 0; z-index: 990; background: #ffffff; padding: 0.4rem 0 0.2rem 0;
  border-bottom: 1px solid #d0d0d0;}
.st-key-presenter_bar [data-testid="stSlider"] {padding: 0 0.4rem;}
</style>"""
#: on every page: a chosen mechanism's chip shows its whole name (a retraction mark included) on as many lines as
#: it needs, instead of an ellipsis, and so does a metric's label ("rows above the largest R" was cut in five
#: columns); the Lesson's step heading sits beside its buttons, one line high
APP_CSS = """<style>
[data-testid="stMultiSelectTagsContainer"] [data-tag] {height: auto !important; max-width: 100% !important;}
[data-testid="stMultiSelectTagsContainer"] [data-tag] > span {white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important;}
.st-key-lesson_nav h2 {font-size: 1.6rem !important; padding: 0 !important;}
[data-testid="stMetricLabel"] div, [data-testid="stMetricLabel"] p {white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important;}
</style>"""
#: pages whose numbers follow epsilon: presenter mode shows the large dial there
DIAL_PAGES = ("explore", "tradeoffs", "report")


def app_style() -> None:
    st.markdown(APP_CSS, unsafe_allow_html=True)


def presenting() -> bool:
    return bool(scenario.settings().presenting)


def heading(title: str, intro: str | None = None) -> bool:
    """A page's title and its introduction (Markdown) under it, both left out in presenter mode (the bar names the
    page, and the main figure moves up to the first screen); whether the page is presenting."""
    if presenting():
        return True
    st.title(title)
    if intro:
        st.markdown(intro)
    return False


def presenter_style(fig: go.Figure, fit_screen: bool = False) -> go.Figure:
    """Projector-sized chart text: every tick label, axis title, legend and annotation at PRESENTER_FONT or more,
    in dark ink (explicit values, so no chart theme can shrink or grey them). A figure drawn at a smaller font
    grows by a fifth to make room for the larger text; ``fit_screen`` caps a page's main figure at
    PRESENTER_MAX_HEIGHT so that it shares the screen with the dial."""
    already = (fig.layout.font.size or 0) >= PRESENTER_FONT  # built for presenter mode (e.g. the risk figures)
    ink = dict(size=PRESENTER_FONT, color=PRESENTER_INK)
    fig.update_layout(
        font=ink,
        title_font=dict(size=PRESENTER_FONT + 4, color=PRESENTER_INK),
        legend=dict(font=dict(size=PRESENTER_FONT - 2, color=PRESENTER_INK)),
        hoverlabel=dict(font_size=PRESENTER_FONT),
    )
    fig.update_xaxes(tickfont=ink, title_font=ink, automargin=True)
    fig.update_yaxes(tickfont=ink, title_font=ink, automargin=True)
    fig.update_annotations(font_size=PRESENTER_FONT - 2)
    lines = (fig.layout.title.text or "").count("<br>") + 1
    if lines > 1:
        # a title of several lines (what is drawn, then a subtitle) outgrew the top margin its figure reserved at the
        # normal size and covered the top tick label (Tensor's sweeps at 1280x720): plotly centres the title in the
        # top margin, so the margin grows to the height of its lines at the presenter size, with room on both sides
        top = int(lines * 1.5 * (PRESENTER_FONT + 4)) + 24
        fig.update_layout(margin=dict(t=max(fig.layout.margin.t or 0, top)))
    if fig.layout.height:
        height = fig.layout.height if already else int(fig.layout.height * 1.2)
        fig.update_layout(height=min(height, PRESENTER_MAX_HEIGHT) if fit_screen else height)
    return fig


def chart(
    fig: go.Figure,
    container=st,
    key: str | None = None,
    main: bool = False,
    summary: str | None = None,
    table=None,
    shared: bool = False,
) -> None:
    """Draw a plotly figure full width, with its text alternative under it (WCAG 1.1.1): a one-line summary
    (``summary``, or one read from the figure) and a "Show the numbers" table (``table``, a DataFrame, where the
    figure's own points leave out what the chart says with markers; else read from the figure). In presenter mode with
    projector-sized, dark text (``main``: the page's main figure, kept short enough to share the screen with the
    dial). Every chart of the app goes through here. A ``shared`` figure (kept in a cache for every session, see
    :func:`cached_chart`) is never changed: presenter mode styles a copy of it."""
    if presenting():
        fig = presenter_style(go.Figure(fig) if shared else fig, fit_screen=main)
    container.plotly_chart(fig, config=PLOTLY_CONFIG, width="stretch", key=key)
    text_alternative(fig, container, summary, table)


class Built(NamedTuple):
    """A figure built once per server (:func:`built`) with its text alternative: shared by every session, never
    changed."""

    fig: go.Figure
    summary: str
    table: object  # a DataFrame of the numbers it draws


def built(build, args: tuple = (), kwargs: dict | None = None) -> Built:
    """``build(*args, **kwargs)``, a figure builder of :mod:`dppca_core.figures` (a pure function of its arguments),
    with its text alternative, built once per server for the same arguments: a warm visit, or a rerun that did not
    change what a figure shows, draws it without building it again (building plotly figures is most of a rerun's CPU
    time). The figure is shared: draw it with ``chart(..., shared=True)`` (or :func:`cached_chart`) and read it only."""
    return _built(f"{build.__module__}.{build.__qualname__}", args, kwargs or {}, _build=build)


def cached_chart(
    build,
    args: tuple = (),
    kwargs: dict | None = None,
    *,
    container=st,
    key: str | None = None,
    main: bool = False,
    summary: str | None = None,
    table=None,
) -> go.Figure:
    """:func:`chart` of the figure :func:`built` returns (its own text alternative unless ``summary`` or ``table``
    is given); returns the figure (shared: read it only)."""
    done = built(build, args, kwargs)
    chart(
        done.fig,
        container,
        key=key,
        main=main,
        summary=summary or done.summary,
        table=done.table if table is None else table,
        shared=True,
    )
    return done.fig


def _frame_key(frame: pd.DataFrame) -> bytes:
    """A table's cache key: its pickle. Streamlit's own hash of a DataFrame fails on cells holding lists (a sweep's
    repetitions) and falls back to this with a warning in the server's log on every rerun."""
    return pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)


@st.cache_resource(
    max_entries=CHART_CACHE_ENTRIES,
    ttl=limits.CACHE_TTL_SECONDS,
    show_spinner=False,
    hash_funcs={pd.DataFrame: _frame_key},
)
def _built(name: str, args: tuple, kwargs: dict, _build) -> Built:
    """:func:`built`, keyed on the builder's ``name`` and the arguments."""
    fig = _build(*args, **kwargs)
    return Built(fig, figure_summary(fig), figure_table(fig))


def text_alternative(fig: go.Figure, container=st, summary: str | None = None, table=None) -> None:
    """What a figure shows in words and in numbers, for screen readers and for anyone who wants the values."""
    container.caption(summary or figure_summary(fig))
    with container.expander("Show the numbers", icon=":material/table:"):
        st.dataframe(figure_table(fig) if table is None else table, hide_index=True, width="stretch", height=240)


def copy_link(url_path: str, container=st, with_file: bool = False) -> None:
    """A "Copy link" popover holding the address of this view (only the settings that differ from the defaults),
    and with ``with_file`` the scenario file's download (presenter mode, which has no sidebar)."""
    with container.popover("Copy link", icon=":material/link:", width="stretch"):
        st.caption(
            "This address holds every setting of the view that differs from the defaults, seeds included "
            "(an uploaded file is not included). Copy it with the button on the right of the box."
        )
        st.code(scenario.share_link(url_path), language=None, wrap_lines=True)
        if with_file:
            from .scenario_file import download_button  # local import: scenario_file imports the data module

            st.caption("Or keep every setting in a small file, to open on Home later:")
            download_button(st, key="download_scenario_file_presenter")


def presenter_bar(pages: dict, here: str) -> None:
    """Sticky at the top of every page: previous / next page, Copy link (and the scenario file), Exit, and (where numbers follow epsilon)
    a large epsilon dial."""
    from .controls import epsilon_slider  # local import: controls imports this module's siblings

    st.markdown(PRESENTER_CSS, unsafe_allow_html=True)
    order = list(pages)
    i = order.index(here)
    with st.container(key="presenter_bar"):
        cols = st.columns([1, 1, 2.2, 1.3, 1], vertical_alignment="center")
        # no tooltips on these buttons: the pointer stays on a button after a click, and its tooltip stayed over the
        # next page's title; the next page's name is written beside them instead
        if cols[0].button("◀ back", disabled=i == 0, key="present_prev", width="stretch"):
            st.switch_page(pages[order[i - 1]])
        if cols[1].button("next page ▶", disabled=i == len(order) - 1, key="present_next", width="stretch"):
            st.switch_page(pages[order[i + 1]])
        upcoming = f" · next: {pages[order[i + 1]].title}" if i < len(order) - 1 else ""
        cols[2].markdown(f"**{pages[here].title}** · page {i + 1} of {len(order)}{upcoming}")
        copy_link(pages[here].url_path, cols[3], with_file=True)
        if cols[4].button("Exit", icon=":material/close_fullscreen:", key="present_exit", width="stretch"):
            scenario.set_value("present", False)
            st.rerun()
        if here in DIAL_PAGES:
            epsilon_slider(st, key="w:eps_presenter", label="ε, the privacy budget (smaller is more private)")


def sidebar_footer(url_path: str) -> None:
    """Presenter toggle and the share link, on every page (``url_path`` of the page shown)."""
    with st.sidebar:
        st.divider()
        st.toggle(
            "Presenter mode",
            help="Large type, no sidebar, a big ε dial and previous/next page buttons; it "
            "stays on across pages, gallery cards and shared links.",
            **scenario.bind("present"),
        )
        copy_link(url_path)

"""Lesson: what DP-PCA is, in ten steps on live scenarios (ui.gallery.LESSON), one screen each.

The step is a scenario field (``step``), so the address holds it: a teacher shares "step 4" and a reload keeps
it. Each step draws its figure from the app's caches (ui.lesson) and links to the same scenario on its page.
"""

import streamlit as st

from ui import lesson, scenario, show
from ui.errors import boundary
from ui.gallery import LESSON
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

vals = scenario.values()
presenting = show.heading("Lesson: private PCA in ten steps")
step = lesson.clamp_step(scenario.Settings(vals).lesson_step)
card = LESSON[step - 1]


def _go(to: int) -> None:
    scenario.set_value("step", lesson.clamp_step(to))


with st.container(key="lesson_nav"):
    nav = st.columns([1.2, 1.2, 5], vertical_alignment="center")
    nav[0].button(
        "◀ Previous step", key="lesson_back", disabled=step == 1, on_click=_go, args=(step - 1,), width="stretch"
    )
    nav[1].button(
        "Next step ▶",
        key="lesson_next",
        disabled=step == len(LESSON),
        on_click=_go,
        args=(step + 1,),
        width="stretch",
        type="primary",  # the lesson's own step: told apart from the bar's "next page"; no tooltip (it stuck on)
    )
    nav[2].markdown(f"## Step {step} of {len(LESSON)}: {md_escape(card.title)}")

with boundary("this step"):
    step_vals = lesson.step_scenario(card, present=presenting, step=step)
    fig, headline = lesson.step_figure(card, step_vals)
    left, right = st.columns([2, 3])
    with left:
        st.markdown(md_escape(card.blurb))
        st.markdown(f"**{md_escape(headline)}**")
        st.markdown(f"**Try this:** {md_escape(card.try_this)}")
        link = lesson.explore_link(card, step_vals)
        st.markdown(f"[{lesson.link_words(card)} ↗]({link})")
    show.chart(fig, container=right, key="lesson_figure", main=True)
    if card.notes and not presenting:
        with st.expander("Teacher's notes", icon=":material/school:"):
            st.markdown(md_escape(card.notes))


if not presenting:
    st.download_button(
        "Download slides",
        lesson.deck,
        "dppca_lesson_slides.html",
        "text/html",
        icon=":material/slideshow:",
        key="download_lesson_slides",
        on_click="ignore",
        help="The ten steps as a deck that opens offline in any browser, each figure with its " "numbers and its link.",
    )

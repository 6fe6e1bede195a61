"""The Class page (issue 61): the teacher opens a room and starts its rounds, each student joins on a phone and
answers, and the teacher's screen draws the room's answers against the bound, refreshing itself.

The game itself (the mechanisms, the draws, the scoring, the rooms in SQLite) is :mod:`dppca_core.classroom`; this
module opens the rooms' file once per process, keeps who this session is (a room's teacher, or a student), and draws
the three views: the landing (open or join a room), the teacher's and a student's. The teacher's live result and a
student's round are fragments on a timer (``st.fragment(run_every=...)``): they rerun alone, reading the shared
file, so nobody presses rerun and a student's answer reruns only their own round.
"""

from __future__ import annotations

import functools
import io
import os
import re
import secrets
from pathlib import Path

import streamlit as st

from dppca_core import secure_generator
from dppca_core.classroom import MECHANISMS, GameSettings, RoomStore, check_code, exact_curve, promise_curve, score
from dppca_core.classroom import game
from dppca_core.classroom.score import RoomResult, promise_words, result_words, short_verdict
from dppca_core.classroom.svg import describe, release_svg
from dppca_core.figures import classroom as figures

from . import limits, scenario, show
from .book import book_path
from .session import CLASS_ANSWERED_KEY, CLASS_HOST_KEY, CLASS_STUDENT_KEY
from .text import md_escape

#: the environment variable that names the rooms' file
ROOMS_VARIABLE = "DPPCA_ROOMS"
#: seconds between two refreshes of the teacher's live result, and of a student's round
TEACHER_REFRESH = 2.0
STUDENT_REFRESH = 3.0
#: the ε a teacher is offered, and the next round's ε after a round at each (the lesson's walk: 8, 2, 1, 0.5, 0.1)
EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0)
NEXT_EPSILON = {8.0: 2.0, 2.0: 1.0, 1.0: 0.5, 0.5: 0.1}
DELTAS = (1e-4, 1e-5, 1e-6, 1e-8)
#: a student's optional confidence: words -> the probability recorded
SURE = {"a little": 0.6, "fairly": 0.75, "very": 0.9}
SYNTHETIC = (
    "The game plays on synthetic tables made by the app: Alice and everyone else in them are made up, and no answer "
    "names a student (each is a number in the room)."
)


def rooms_path() -> Path:
    """Where the rooms live: ``DPPCA_ROOMS``, else beside the budget book (:func:`ui.book.book_path`)."""
    named = os.environ.get(ROOMS_VARIABLE, "").strip()
    if named:
        return Path(named).expanduser()
    return book_path().with_name("dppca_rooms.sqlite")


@st.cache_resource(max_entries=4, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _opened(path: str) -> RoomStore:
    """The rooms' store for ``path``, opened once per process (the file is shared; the object holds no state)."""
    return RoomStore(path)


def store() -> RoomStore:
    return _opened(str(rooms_path()))


def join_link(code: str) -> str:
    """The address a student opens: this server's, the Class page, the room's code."""
    return scenario.share_link("class").split("/class")[0] + f"/class?room={code}"


@functools.lru_cache(maxsize=64)
def qr_svg(link: str, label: str) -> str:
    """A QR code of ``link`` as inline SVG (drawn here, no network), read by a screen reader as ``label``."""
    import qrcode
    import qrcode.image.svg

    out = io.BytesIO()
    qrcode.make(link, image_factory=qrcode.image.svg.SvgPathImage, border=2).save(out)
    text = out.getvalue().decode()
    text = text[text.index("<svg") :]
    text = re.sub(r'\s(width|height)="[^"]*"', "", text, count=2)
    return text.replace("<svg", f"<svg role='img' aria-label='{label}' class='class-qr'", 1).replace(
        "<path", "<title>" + label + "</title><path", 1
    )


def student() -> dict:
    """This session as a student: its random id and its seat (number) in each room it joined."""
    return st.session_state.setdefault(CLASS_STUDENT_KEY, {"id": secrets.token_hex(8), "seats": {}})


# -- the page ----------------------------------------------------------------------------------------------------


def page(room: str, presenting: bool) -> None:
    """The Class page: a student's round when the link names a room (and this session does not host it), the
    teacher's screen when this session hosts a room, else the landing."""
    hosted = st.session_state.get(CLASS_HOST_KEY)
    if hosted and store().room(hosted["code"]) is None:
        st.warning(f"Room {hosted['code']} has expired: open a new one.", icon=":material/timer_off:")
        st.session_state.pop(CLASS_HOST_KEY)
        hosted = None
    if room and not (hosted and hosted["code"] == room):
        student_view(room)
    elif hosted:
        teacher_view(hosted["code"], hosted["key"], presenting)
    else:
        landing(presenting)


def landing(presenting: bool) -> None:
    if not presenting:
        st.title("Class: the room plays the attacker")
    st.markdown(
        "Each student gets a release of their own, computed with or without Alice's row, and guesses which. The "
        "teacher's screen draws the whole room's guesses against the bound the privacy guarantee promises: no room can "
        "cross it, and as ε falls the room's guesses fall toward a coin toss."
    )
    teach, join = st.columns(2, gap="large")
    with teach:
        st.markdown("#### Teacher: open a room")
        st.button("Open a room", key="class_open", on_click=_open_room, type="primary", icon=":material/add:")
        with st.expander("Take back a room after a reload"):
            st.text_input("Room code", key="class_take_code", max_chars=8)
            st.text_input("Teacher's key", key="class_take_key", type="password", max_chars=32)
            st.button("Take back this room", key="class_take", on_click=_take_back)
    with join:
        st.markdown("#### Student: join a room")
        _join_form()
    st.caption(SYNTHETIC)


def _open_room() -> None:
    code, key = store().open_room()
    st.session_state[CLASS_HOST_KEY] = {"code": code, "key": key}


def _take_back() -> None:
    code, key = st.session_state.get("class_take_code", ""), st.session_state.get("class_take_key", "")
    try:
        code = check_code(code)
    except ValueError as exc:
        st.session_state[CLASS_ANSWERED_KEY] = str(exc)
        return
    if store().room(code) is not None and store().is_host(code, key):
        st.session_state[CLASS_HOST_KEY] = {"code": code, "key": key}
        scenario.set_value("room", "")
    else:
        st.session_state[CLASS_ANSWERED_KEY] = "that code and key do not open a room here."


def _join_form() -> None:
    st.text_input("Room code (on the teacher's screen)", key="class_code_input", max_chars=8, placeholder="e.g. K7QX")
    st.button("Join", key="class_join", on_click=_join)
    said = st.session_state.pop(CLASS_ANSWERED_KEY, None)
    if said:
        st.error(md_escape(said), icon=":material/error:")


def _join() -> None:
    try:
        scenario.set_value("room", st.session_state.get("class_code_input", ""))
    except ValueError as exc:
        st.session_state[CLASS_ANSWERED_KEY] = str(exc)


# -- a student's view ----------------------------------------------------------------------------------------------


def student_view(code: str) -> None:
    me = student()
    if code not in me["seats"]:
        try:
            me["seats"][code] = store().join(code, me["id"])
        except ValueError as exc:
            st.error(md_escape(exc), icon=":material/meeting_room:")
            scenario.set_value("room", "")
            _join_form()
            return
    st.markdown(f"**Room {code}** · you are student **{me['seats'][code]}**")
    student_round(code, me["id"])
    st.caption(SYNTHETIC)
    st.button("Leave this room", key="class_leave", on_click=scenario.set_value, args=("room", ""))


@st.fragment(run_every=STUDENT_REFRESH)
def student_round(code: str, me: str) -> None:
    """The student's round, refreshed on a timer: their own release (drawn once per round), the two answers, and
    once they have answered, whether they were right."""
    rooms = store()
    room = rooms.room(code)
    if room is None:
        st.error("This room has closed. Ask the teacher for a new code.", icon=":material/timer_off:")
        return
    if room.current == 0:
        st.info("Waiting for the teacher to start the first round…", icon=":material/hourglass_top:")
        return
    now = rooms.round(code, room.current)
    drawn, said = rooms.draw_for(code, now.number, me, lambda: game.draw(now.settings, secure_generator()))
    st.markdown(f"#### Round {now.number}: is Alice in the data?")
    st.caption(f"{MECHANISMS[now.settings.mechanism].capitalize()}, ε = {now.settings.epsilon:g}.")
    st.markdown(release_svg(now.settings, drawn.release), unsafe_allow_html=True)
    st.markdown(describe(now.settings, drawn.release))
    late = st.session_state.pop(CLASS_ANSWERED_KEY, None)
    if late == "closed":
        st.warning("That round had ended: here is the next one.", icon=":material/update:")
    if said is None:
        st.radio(
            "How sure are you? (if you like)", list(SURE), index=None, horizontal=True, key=f"class_sure_{now.number}"
        )
        left, right = st.columns(2)
        for column, (label, said_in) in zip((left, right), (("Alice is in", True), ("Alice is out", False))):
            column.button(
                label,
                key=f"class_{'in' if said_in else 'out'}",
                on_click=_answer,
                args=(code, now.number, me, said_in),
                width="stretch",
            )
        return
    right = said == drawn.inside
    words = f"You said **{'in' if said else 'out'}**; Alice was **{'in' if drawn.inside else 'out'}**"
    (st.success if right else st.warning)(
        words + (": right." if right else ": not this time.") + " The next round starts when the teacher says so.",
        icon=":material/check_circle:" if right else ":material/info:",
    )


def _answer(code: str, number: int, me: str, said_in: bool) -> None:
    sure = st.session_state.get(f"class_sure_{number}")
    outcome = store().answer(code, number, me, said_in, SURE.get(sure))
    st.session_state[CLASS_ANSWERED_KEY] = outcome


# -- the teacher's view ----------------------------------------------------------------------------------------------


def teacher_view(code: str, key: str, presenting: bool) -> None:
    """The teacher's screen, one screen at 1280x720 in presenter mode: the room's code, its QR code (large until the
    first round) and link, then each student as a dot; beside them the next round's settings and the live result."""
    room = store().room(code)
    link = join_link(code)
    joining = room.current == 0  # until the first round the QR code is large: the class scans it from the back row
    side, main = st.columns([1.3, 3] if joining else [1, 3.4], gap="medium")
    with side:
        width = 320 if joining else 100
        qr = qr_svg(link, "QR code: " + link)
        st.markdown(
            f"<p class='class-room' style='font-size:2rem;font-weight:700;line-height:1.2;margin:0 0 0.4rem 0'>"
            f"Room {code}</p><div style='max-width:{width}px'>{qr}</div>",
            unsafe_allow_html=True,
        )
        st.text(f"Join at {link}")
        live_dots(code, presenting)
    with main:
        _round_controls(code, key)
        live(code, presenting)
        st.caption(SYNTHETIC)
        if not presenting:
            with st.expander("Teacher's key"):
                st.markdown(
                    f"`{key}`: with the code, it takes this room back after a reload (Class page: 'Take back a room')."
                )


def _round_controls(code: str, key: str) -> None:
    st.session_state.setdefault("class_eps", 8.0)
    cols = st.columns([2.1, 2.0, 1.2, 1.7], vertical_alignment="bottom")
    cols[0].selectbox("Released each round", list(MECHANISMS), format_func=_mechanism_label, key="class_mechanism")
    cols[1].select_slider("ε of the next round", EPSILONS, key="class_eps")
    cols[2].selectbox("δ", DELTAS, index=1, format_func=lambda d: f"{d:g}", key="class_delta")
    cols[3].button(
        "Next round ▶", key="class_next", on_click=_next_round, args=(code, key), type="primary", width="stretch"
    )


def _mechanism_label(mechanism: str) -> str:
    return {"mean": "a private mean", "pc1": "the first private component"}[mechanism]


def _next_round(code: str, key: str) -> None:
    state = st.session_state
    settings = GameSettings(
        state.get("class_mechanism", "mean"), float(state.get("class_eps", 8.0)), float(state.get("class_delta", 1e-5))
    )
    store().start_round(code, key, settings)
    state["class_eps"] = NEXT_EPSILON.get(settings.epsilon, settings.epsilon)


@st.fragment(run_every=TEACHER_REFRESH)
def live_dots(code: str, presenting: bool) -> None:
    """Each student who answered the current round as a dot (refreshed on a timer)."""
    rooms = store()
    room = rooms.room(code)
    if room is None or room.current == 0:
        return
    answers = rooms.answers(code, room.current)
    show.chart(figures.dots_figure(answers, font_size=_font(presenting)), key="class_dots_fig", main=True)


def _font(presenting: bool) -> int:
    return show.PRESENTER_FONT if presenting else 13


@st.fragment(run_every=TEACHER_REFRESH)
def live(code: str, presenting: bool) -> None:
    """The room's result, refreshed on a timer: the current round against its bound, the advantage round by round,
    and the verdict (a finding is kept with its round's settings)."""
    rooms = store()
    room = rooms.room(code)
    if room is None:
        st.error("This room has expired.", icon=":material/timer_off:")
        return
    rounds = rooms.rounds(code)
    if not rounds:
        st.info(f"{room.students} joined so far. Press **Next round** when the class is in.", icon=":material/groups:")
        return
    now = rounds[-1]
    answers = rooms.answers(code, now.number)
    curve = exact_curve(now.settings)
    result = score([(a.inside, a.said_in) for a in answers if a.said_in is not None], curve)
    st.markdown(
        f"**Round {now.number}** · {_mechanism_label(now.settings.mechanism)}, ε = {now.settings.epsilon:g}, "
        f"δ = {now.settings.delta:g} · **{result.answers} of {room.students}** answered · right {result.right} · "
        f"**{short_verdict(result)}**"
    )
    counts = rooms.counts(code)
    history = [
        (figures.round_label(r.number, r.settings.epsilon), _counted(counts.get(r.number), exact_curve(r.settings)))
        for r in rounds
    ]
    size = _font(presenting)
    left, right = st.columns(2)
    room_fig = figures.room_figure(result, promise_curve(now.settings), font_size=size)
    show.chart(room_fig, left, key="class_room_fig", main=True)
    show.chart(figures.advantage_figure(history, font_size=size), right, key="class_advantage_fig", main=True)
    st.markdown(md_escape(result_words(result)) + " " + md_escape(promise_words(curve, now.settings.epsilon)))
    if result.finding:
        rooms.keep_finding(code, now.number, result.as_dict())
    for kept in rooms.findings(code):
        st.error(
            f"**Audit finding, round {kept['round']}** ({md_escape(GameSettings.from_dict(kept['settings']).words())}): "
            "the room beat the bound beyond its bands. The round's settings and counts are kept for the audit.",
            icon=":material/report:",
        )


def _counted(counts, curve) -> RoomResult:
    with_alice, hits, without_alice, false_alarms = counts or (0, 0, 0, 0)
    return RoomResult(with_alice, hits, without_alice, false_alarms, curve)

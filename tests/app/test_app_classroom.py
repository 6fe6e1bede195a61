"""The Class page under AppTest (issue 61): a teacher session and 30 student sessions share one room through the rooms'
SQLite file. Every answer is counted once, the rates the teacher's screen draws are the recorded answers', with their
Clopper-Pearson bands, every student is one dot, and the bound drawn is the mechanism's exact trade-off curve at the
chosen ε (the analytic Gaussian's for the mean; Analyze Gauss's own Release.privacy for the first component)."""

import base64
import itertools
import json

import numpy as np
import pytest

from dppca_core import api, risk
from dppca_core.classroom import GameSettings, exact_curve, game, score
from dppca_core.figures.classroom import BOUND_TRACE, ROOM_TRACE
from tests.support.app import assert_clean
from ui import classroom

STUDENTS = 30


@pytest.fixture
def rooms(monkeypatch, tmp_path):
    monkeypatch.setenv("DPPCA_ROOMS", str(tmp_path / "rooms.sqlite"))
    return tmp_path / "rooms.sqlite"


def _open(app_test, clean: bool = True, **query):
    at = app_test(**query)
    at.run()
    at.switch_page("pages/class.py").run()
    if clean:
        assert_clean(at)
    return at


def _errors(at) -> str:
    return " ".join(e.value.replace("\\", "") for e in at.error)


def _figure(at, key: str) -> dict:
    chart = next(c for c in at.get("plotly_chart") if key in c.proto.id)
    return json.loads(chart.proto.spec)


def _trace(fig: dict, name: str) -> dict:
    return next(t for t in fig["data"] if t.get("name") == name)


def _array(value) -> np.ndarray:
    """A plotly array from a figure's JSON: a list, or a typed array {"dtype", "bdata"}."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, dtype=float)


def _says(at) -> list[str]:
    return [m.value for m in at.markdown] + [m.value for m in at.info] + [m.value for m in [*at.success, *at.warning]]


def _play_round(students, rule) -> None:
    """Every student sees the round and answers by ``rule(student number, release words)``; none can answer twice."""
    for number, at in enumerate(students, start=1):
        at.run()
        assert_clean(at)
        words = next(m.value for m in at.markdown if m.value.startswith("The release:"))
        at.button(key="class_in" if rule(number, words) else "class_out").click().run()
        assert_clean(at)
        assert not [b for b in at.button if b.key in ("class_in", "class_out")]  # answered: the buttons are gone
        assert any("You said" in m.value for m in [*at.success, *at.warning])


def _check_teacher(teacher, code: str, number: int, settings: GameSettings) -> None:
    teacher.run()
    assert_clean(teacher)
    store = classroom.store()
    answers = store.answers(code, number)
    assert len(answers) == STUDENTS and all(a.said_in is not None for a in answers)  # every answer counted once
    result = score([(a.inside, a.said_in) for a in answers], exact_curve(settings))
    assert store.counts(code)[number] == (result.with_alice, result.hits, result.without_alice, result.false_alarms)
    room = _trace(_figure(teacher, "class_room_fig"), ROOM_TRACE)
    x, y = _array(room["x"])[0], _array(room["y"])[0]
    assert x == pytest.approx(result.fpr) and y == pytest.approx(result.tpr)
    assert y + _array(room["error_y"]["array"])[0] == pytest.approx(result.tpr_band[1])
    assert x - _array(room["error_x"]["arrayminus"])[0] == pytest.approx(result.fpr_band[0])
    bound = _trace(_figure(teacher, "class_room_fig"), BOUND_TRACE)
    curve = exact_curve(settings)
    alpha = _array(bound["x"])
    assert len(alpha) > 100 and np.allclose(_array(bound["y"]), 1 - curve.false_negative_floor(alpha), atol=1e-12)
    assert risk.epsilon_at(curve, settings.delta) == pytest.approx(settings.epsilon, rel=1e-6)  # exactly its ε
    dots = _figure(teacher, "class_dots_fig")
    assert sum(len(_array(t["x"])) for t in dots["data"]) == STUDENTS  # one dot per student
    words = " ".join(_says(teacher))
    assert f"**{STUDENTS} of {STUDENTS}** answered · right {result.right} · **within the promise**" in words


def test_a_teacher_and_thirty_students_play_two_rounds(app_test, rooms):
    teacher = _open(app_test)
    teacher.button(key="class_open").click().run()
    assert_clean(teacher)
    code = teacher.session_state["class_host"]["code"]
    assert any(f"Room {code}" in m.value for m in teacher.markdown)
    assert any("<svg role='img' aria-label='QR code: /class?room=" + code in m.value for m in teacher.markdown)
    students = [_open(app_test, room=code) for _ in range(STUDENTS)]
    assert [s.query_params["room"] for s in students[:2]] in ([code, code], [[code], [code]])
    assert any("Waiting for the teacher" in m.value for m in students[0].info)
    teacher.run()
    assert any(f"{STUDENTS} joined so far" in m.value for m in teacher.info)

    # round 1: the mean at ε = 8; students answer with the nearer rule (odd numbers) or always "in"
    first = GameSettings("mean", 8.0, 1e-5)
    assert teacher.select_slider(key="class_eps").value == 8.0
    teacher.button(key="class_next").click().run()
    known = game.noiseless("mean")

    def nearer(number, words):
        value = float(words.split("The release: ")[1].split(" hours")[0])
        return abs(value - known["in"]) < abs(value - known["out"]) if number % 2 else True

    _play_round(students, nearer)
    _check_teacher(teacher, code, 1, first)
    assert teacher.select_slider(key="class_eps").value == 2.0  # the next ε of the lesson's walk

    # round 2: the first component at ε = 1, all answers at random
    teacher.selectbox(key="class_mechanism").set_value("pc1")
    teacher.select_slider(key="class_eps").set_value(1.0).run()
    teacher.button(key="class_next").click().run()
    second = GameSettings("pc1", 1.0, 1e-5)
    rows, alice = game.pc1_table()
    stated = api.run("analyze_gauss", np.vstack([rows, alice]), 1, 1.0, 1e-5, neighbors="add_remove", seed=0).privacy
    assert exact_curve(second) == stated  # the bound is Analyze Gauss's own exact curve
    coin = np.random.default_rng(61)
    _play_round(students, lambda number, words: bool(coin.random() < 0.5))
    _check_teacher(teacher, code, 2, second)
    assert [r.settings for r in classroom.store().rounds(code)] == [first, second]
    assert not classroom.store().findings(code)  # a fair room never beats the bound here


def test_a_wrong_code_is_said_in_words_and_the_page_stays_usable(app_test, rooms):
    at = _open(app_test, clean=False, room="ZZZZ")
    assert not at.exception and "there is no open room ZZZZ: check the code" in _errors(at)
    at.text_input(key="class_code_input").set_value("not a code")
    at.button(key="class_join").click().run()
    assert not at.exception and "4 letters and digits" in _errors(at)


def test_a_teacher_takes_the_room_back_after_a_reload(app_test, rooms):
    teacher = _open(app_test)
    teacher.button(key="class_open").click().run()
    host = teacher.session_state["class_host"]
    again = _open(app_test)  # a reload: a new session
    again.text_input(key="class_take_code").set_value(host["code"].lower())
    again.text_input(key="class_take_key").set_value("wrong")
    again.button(key="class_take").click().run()
    assert "class_host" not in again.session_state and "do not open a room" in _errors(again)
    again.text_input(key="class_take_key").set_value(host["key"])
    again.button(key="class_take").click().run()
    assert_clean(again)
    assert again.session_state["class_host"] == {"code": host["code"], "key": host["key"]}
    assert again.button(key="class_next") is not None


def test_a_room_that_beats_the_bound_is_an_audit_finding_kept_with_its_round(app_test, rooms, monkeypatch):
    """A broken mechanism (its releases carry no noise) lets a room of 16 beat the bound at ε = 0.1 beyond its bands:
    the teacher's screen says so plainly and the round's settings and counts are kept in the rooms' file."""
    sides = itertools.cycle([True, False])

    def leaky(settings, rng):
        inside = next(sides)
        return game.Draw(inside, {"value": game.noiseless("mean")["in" if inside else "out"]})

    monkeypatch.setattr(classroom.game, "draw", leaky)
    teacher = _open(app_test)
    teacher.button(key="class_open").click().run()
    code = teacher.session_state["class_host"]["code"]
    students = [_open(app_test, room=code) for _ in range(16)]
    teacher.select_slider(key="class_eps").set_value(0.1).run()
    teacher.button(key="class_next").click().run()
    known = game.noiseless("mean")
    _play_round(
        students, lambda number, words: float(words.split("The release: ")[1].split(" hours")[0]) > known["out"]
    )
    teacher.run()
    assert not teacher.exception
    said = " ".join(e.value.replace("\\", "") for e in teacher.error)
    assert "Audit finding, round 1" in said and "ε = 0.1" in said
    assert any("AUDIT FINDING: beyond the bound" in m.value for m in teacher.markdown)
    kept = classroom.store().findings(code)
    assert kept[0]["settings"] == {"mechanism": "mean", "epsilon": 0.1, "delta": 1e-5}
    assert kept[0]["result"]["hits"] == 8 and kept[0]["result"]["false_alarms"] == 0

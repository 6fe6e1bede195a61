"""The class game's library (issue 61): the mechanisms' exact curves are the library's own, a release is drawn from D or
D' by a fair coin with the calibrated noise, the best simple guesser lands on the curve, the room's rates and bands
are the recorded answers', an audit finding needs the bands to clear the bound, and the rooms in SQLite count every
answer once, across threads, until they expire (findings stay)."""

import math
import threading

import numpy as np
import pytest
from scipy.special import ndtr

from dppca_core import api, risk
from dppca_core.audit.bounds import clopper_pearson
from dppca_core.classroom import GameSettings, RoomStore, check_code, draw, exact_curve, noiseless, promise_curve, score
from dppca_core.classroom import game, svg
from dppca_core.classroom.score import band_level, bound_line, most_hits, promise_words, result_words
from dppca_core.privacy import PrivacyCurve


@pytest.mark.parametrize("epsilon", [8.0, 1.0, 0.1])
def test_the_first_component_game_states_analyze_gauss_own_curve(epsilon):
    rows, alice = game.pc1_table()
    release = api.run("analyze_gauss", np.vstack([rows, alice]), 1, epsilon, 1e-5, neighbors="add_remove", seed=0)
    assert exact_curve(GameSettings("pc1", epsilon, 1e-5)) == release.privacy


@pytest.mark.parametrize("epsilon", [8.0, 2.0, 0.5])
def test_the_mean_game_is_gaussian_dp_and_earns_exactly_its_epsilon(epsilon):
    settings = GameSettings("mean", epsilon, 1e-5)
    curve = exact_curve(settings)
    assert curve.mu == pytest.approx((game.SLEEP_MAX / game.ROSTER) / game.noise_scale(settings), rel=1e-12)
    assert risk.epsilon_at(curve, 1e-5) == pytest.approx(epsilon, rel=1e-6)  # the analytic Gaussian: exact
    assert promise_curve(settings) == PrivacyCurve.approx(epsilon, 1e-5)
    # the exact curve is the tighter one: at every false-alarm rate it allows fewer hits than (ε, δ) alone
    alpha = np.linspace(0, 1, 101)
    assert np.all(most_hits(curve, alpha) <= most_hits(promise_curve(settings), alpha) + 1e-12)


def test_alice_moves_the_noiseless_release_by_the_sensitivity():
    known = noiseless("mean")
    assert known["in"] - known["out"] == pytest.approx(game.SLEEP_MAX / game.ROSTER)  # the worst case
    assert np.all(game.sleep_table() <= game.SLEEP_MAX) and np.all(np.linalg.norm(game.pc1_table()[0], axis=1) <= 1)
    turn = abs(game.angle(noiseless("pc1")["in"]) - game.angle(noiseless("pc1")["out"]))
    assert turn > 15  # Alice's row turns the first direction visibly


def test_draws_are_a_fair_coin_with_the_calibrated_noise_and_the_nearer_guess_reaches_the_curve():
    settings = GameSettings("mean", 2.0, 1e-5)
    rng = np.random.default_rng(2061)
    draws = [draw(settings, rng) for _ in range(4000)]
    inside = np.array([d.inside for d in draws])
    lo, hi = clopper_pearson(int(inside.sum()), len(draws), 0.999)
    assert lo < 0.5 < hi
    known = noiseless("mean")
    noise = np.array([d.release["value"] - known["in" if d.inside else "out"] for d in draws])
    sigma = game.noise_scale(settings)
    assert abs(noise.std() / sigma - 1) < 4 / math.sqrt(2 * len(noise))  # four standard errors of a s.d.
    right = sum(game.nearer("mean", d.release) == d.inside for d in draws)
    lo, hi = clopper_pearson(right, len(draws), 0.999)
    best = float(ndtr(exact_curve(settings).mu / 2))  # the curve's symmetric point: 1/2 + advantage/2
    assert best == pytest.approx(0.5 + risk.attacker_advantage(exact_curve(settings)) / 2)
    assert lo < best < hi


def test_a_draw_is_reproducible_from_its_generator_and_holds_only_the_release():
    for mechanism in ("mean", "pc1"):
        settings = GameSettings(mechanism, 1.0)
        one, two = draw(settings, np.random.default_rng(5)), draw(settings, np.random.default_rng(5))
        assert one == two and set(one.release) == ({"value"} if mechanism == "mean" else {"direction"})
        picture = svg.release_svg(settings, one.release)
        assert picture.startswith("<svg role='img'") and "<title>The release:" in picture


def test_settings_are_checked_in_words():
    with pytest.raises(ValueError, match="one of mean, pc1"):
        GameSettings("median", 1.0)
    with pytest.raises(ValueError, match="between 0.05 and 10"):
        GameSettings("mean", 50.0)
    with pytest.raises(ValueError, match="delta"):
        GameSettings("mean", 1.0, 0.0)
    assert GameSettings.from_dict(GameSettings("pc1", 0.5, 1e-6).as_dict()) == GameSettings("pc1", 0.5, 1e-6)


def test_the_rooms_rates_are_its_answers_with_clopper_pearson_bands():
    curve = exact_curve(GameSettings("mean", 1.0))
    answers = [(True, True)] * 9 + [(True, False)] * 6 + [(False, True)] * 4 + [(False, False)] * 11
    result = score(answers, curve)
    assert (result.with_alice, result.hits, result.without_alice, result.false_alarms) == (15, 9, 15, 4)
    assert result.tpr == 9 / 15 and result.fpr == 4 / 15 and result.right == 20
    assert result.tpr_band == clopper_pearson(9, 15, band_level()) and band_level() == 0.975
    assert result.bound_at_fpr == pytest.approx(1 - curve.false_negative_floor(4 / 15))
    assert not result.finding and "Within the promise" in result_words(result)
    alpha, top = bound_line(curve)
    assert np.allclose(top, 1 - curve.false_negative_floor(alpha))


def test_a_room_beating_the_bound_beyond_its_bands_is_an_audit_finding():
    curve = exact_curve(GameSettings("mean", 0.1))
    perfect = score([(True, True)] * 30 + [(False, False)] * 30, curve)
    assert perfect.finding and result_words(perfect).count("AUDIT FINDING") == 1
    # on the curve's best point with few answers: the bands reach the allowed region, no finding
    settings = GameSettings("mean", 8.0)
    best = float(ndtr(exact_curve(settings).mu / 2))
    hits = round(30 * best)
    on_curve = score([(True, True)] * hits + [(True, False)] * (30 - hits) + [(False, False)] * hits
                     + [(False, True)] * (30 - hits), exact_curve(settings))  # fmt: skip
    assert not on_curve.finding
    assert not score([(True, True)] * 5, curve).finding  # answers on one side only: no verdict


def test_the_promise_in_odds_words():
    words = promise_words(exact_curve(GameSettings("mean", 1.0)), 1.0)
    best = 0.5 + risk.attacker_advantage(exact_curve(GameSettings("mean", 1.0))) / 2
    assert f"right at most {math.ceil(1000 * best) / 10:g} times in 100" in words and "coin toss: 50" in words


# -- the rooms -------------------------------------------------------------------------------------------------


def test_a_room_counts_every_answer_once_and_closes_a_round(tmp_path):
    store = RoomStore(tmp_path / "rooms.sqlite")
    code, key = store.open_room(now=1000.0)
    assert check_code(code.lower()) == code and store.is_host(code, key) and not store.is_host(code, "guess")
    assert [store.join(code, s, now=1001.0) for s in ("a", "b", "c", "a")] == [1, 2, 3, 1]
    with pytest.raises(ValueError, match="only the teacher"):
        store.start_round(code, "guess", GameSettings(), now=1002.0)
    first = store.start_round(code, key, GameSettings("mean", 2.0), now=1002.0)
    rng = np.random.default_rng(0)
    made = []

    def make():
        made.append(draw(GameSettings("mean", 2.0), rng))
        return made[-1]

    got, said = store.draw_for(code, first, "a", make, now=1003.0)
    again, _ = store.draw_for(code, first, "a", make, now=1004.0)
    assert got == again == made[0] and len(made) == 1 and said is None  # a rerun shows the same release
    store.draw_for(code, first, "b", make, now=1003.0)
    assert store.answer(code, first, "a", True, 0.8, now=1005.0) == "counted"
    assert store.answer(code, first, "a", False, now=1006.0) == "already"  # the first answer stands
    assert store.answer(code, first, "c", True, now=1006.0) == "no release"
    answers = store.answers(code, first)
    assert [(a.student, a.said_in, a.confidence) for a in answers] == [(1, True, 0.8), (2, None, None)]
    second = store.start_round(code, key, GameSettings("pc1", 0.5), now=1010.0)
    assert store.answer(code, first, "b", True, now=1011.0) == "closed"  # late: the round has ended
    assert [r.settings.mechanism for r in store.rounds(code)] == ["mean", "pc1"] and second == 2
    inside = int(made[0].inside)
    assert store.counts(code) == {1: (inside, inside, 1 - inside, 1 - inside)}


def test_rooms_expire_and_their_findings_stay(tmp_path):
    store = RoomStore(tmp_path / "rooms.sqlite", hours=1.0)
    code, key = store.open_room(now=0.0)
    store.join(code, "a", now=1.0)
    number = store.start_round(code, key, GameSettings("mean", 0.1), now=1800.0)  # the room lives an hour more
    store.keep_finding(code, number, {"hits": 30}, now=1900.0)
    assert store.room(code, now=5000.0).students == 1
    assert store.room(code, now=1800.0 + 3601) is None
    with pytest.raises(ValueError, match=f"no open room {code}"):
        store.join(code, "b", now=1800.0 + 3601)
    assert store.purge(now=1800.0 + 3601) == 1 and store.rounds(code) == []
    kept = store.findings(code)
    assert kept[0]["settings"] == {"mechanism": "mean", "epsilon": 0.1, "delta": 1e-5} and kept[0]["round"] == 1


def test_answers_from_many_threads_at_once_are_each_counted_once(tmp_path):
    store = RoomStore(tmp_path / "rooms.sqlite")
    code, key = store.open_room()
    number = store.start_round(code, key, GameSettings("mean", 1.0))
    students = [f"s{i}" for i in range(24)]
    for s in students:
        store.join(code, s)
        store.draw_for(code, number, s, lambda: draw(GameSettings("mean", 1.0), np.random.default_rng(1)))
    results = []

    def press(student):
        for _ in range(3):  # a double tap, and one more
            results.append(store.answer(code, number, student, True))

    threads = [threading.Thread(target=press, args=(s,)) for s in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("counted") == len(students) and results.count("already") == 2 * len(students)
    assert sum(store.counts(code)[number][i] for i in (0, 2)) == len(students)


def test_a_code_is_checked_in_words():
    with pytest.raises(ValueError, match="4 letters and digits"):
        check_code("O0I1")

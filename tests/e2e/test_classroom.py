"""Issue 61 in a real browser: a teacher's tab at 1280x720 in presenter mode opens a room, two phone-sized tabs (390 x
844, each its own session) join by the link and answer a round, and the teacher's screen refreshes itself (its
fragment's timer: nobody presses rerun) to count both answers, with the room's figure, the Next round button and the
verdict on one screen. Both views pass axe-core's WCAG 2.1 A/AA rules and the text-fit check. The waits are on the
page's own text and the app's run state, never a fixed sleep."""

from tests.e2e.helpers import SCREEN, assert_no_error, axe_violations, in_viewport, settle, shoot, text_problems

PHONE = {"width": 390, "height": 844}
PHONES = 2


def _wait_text(page, text: str, timeout: int = 60_000) -> None:
    """Until ``text`` is on the page (drawn by a run, or by a fragment's timer), the tab in front as each device shows
    its own (a tab not in front drew slowly: tests/e2e/conftest.py's TabPool)."""
    page.bring_to_front()
    page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout)


def test_a_projector_and_two_phones_play_a_round(server, tabs):
    teacher = tabs.open(SCREEN)
    teacher.goto(f"{server}/class?present=true")
    teacher.wait_for_selector(".st-key-class_open button", timeout=120_000)
    settle(teacher)
    teacher.click(".st-key-class_open button")
    teacher.wait_for_selector("p.class-room", timeout=60_000)
    settle(teacher)
    code = teacher.inner_text("p.class-room").split("Room ")[1].strip()
    assert teacher.locator("svg.class-qr title").text_content().endswith(f"/class?room={code}")

    phones = [tabs.open(PHONE) for _ in range(PHONES)]
    for phone in phones:
        phone.goto(f"{server}/class?room={code}")
        _wait_text(phone, "Waiting for the teacher")
        settle(phone)
    _wait_text(teacher, f"{PHONES} joined so far")  # the teacher's screen counted them by itself

    teacher.click(".st-key-class_next button")
    settle(teacher)
    for number, phone in enumerate(phones):
        _wait_text(phone, "Round 1: is Alice in the data?")  # the phone's round arrived on its own timer
        settle(phone)
        assert phone.locator("svg[role='img'] title").first.text_content().startswith("The release:")
        if number == 0:
            found = axe_violations(phone) + text_problems(phone)
            assert not found, f"a student's round on a phone: {found}"
            shoot(phone, "class_phone_390x844.png")
        phone.click(f".st-key-class_{'in' if number % 2 else 'out'} button")
        _wait_text(phone, "You said")
        settle(phone)
        assert_no_error(phone, "a student's answer")

    _wait_text(teacher, f"{PHONES} of {PHONES}")  # both answers, counted once, on the projector
    settle(teacher)
    assert_no_error(teacher, "the teacher's screen")
    shoot(teacher, "class_presenter_1280x720.png")
    for part in (".st-key-class_next button", ".st-key-class_room_fig", ".st-key-class_dots_fig", "svg.class-qr"):
        assert in_viewport(teacher, part), part  # presenter mode: one screen at 1280x720
    found = axe_violations(teacher) + text_problems(teacher)
    assert not found, f"the teacher's screen: {found}"

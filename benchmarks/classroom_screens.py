"""The Class page tried as a teacher would (issue 61): the projector is a real browser at 1280x720 in presenter mode,
40 students are websocket sessions of the same server (benchmarks/classroom.py's) answering with the nearer-value rule;
five rounds at ε = 8, 2, 1, 0.5, 0.1 (the teacher only presses Next round: ε steps down by itself). Screenshots of the
projector while the class joins and after round 5:

    python benchmarks/classroom_screens.py docs/screenshots/class_five_rounds_1280x720.png

(and ..._join... beside it, named from the first with "_join" for "_five_rounds"). With 40 students each round's bands
are about ±0.4 wide: the bars (the most the exact curve allows) fall from 0.60 to 0.01; the room's diamonds scatter
within their bands around them."""

import asyncio, os, sys, tempfile

sys.path.insert(0, os.getcwd())
from pathlib import Path
from benchmarks.classroom import Session, nearer
from benchmarks._app_server import app_server, CHROMIUM, CHROMIUM_ARGS
from dppca_core.classroom import game

IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
rooms = Path(tempfile.mkdtemp()) / "rooms.sqlite"
os.environ["DPPCA_ROOMS"] = str(rooms)
OUT = sys.argv[1]


async def settle(p):
    await p.wait_for_timeout(300)
    await p.wait_for_selector(IDLE, state="attached", timeout=60000)
    await p.wait_for_timeout(300)


async def go(url):
    from playwright.async_api import async_playwright

    known = game.noiseless("mean")
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        t = await b.new_page(viewport={"width": 1280, "height": 720})
        await t.goto(url + "/class?present=true")
        await t.wait_for_selector(".st-key-class_open button", timeout=60000)
        await settle(t)
        await t.click(".st-key-class_open button")
        await t.wait_for_selector("p.class-room")
        await settle(t)
        code = (await t.inner_text("p.class-room")).split("Room ")[1].strip()
        students = []
        for i in range(40):
            s = await Session.open(url, "class", f"room={code}")
            s.round_fragment = s.fragment_of("Waiting")
            students.append(s)
        await t.wait_for_function("t => document.body.innerText.includes(t)", arg="40 joined so far", timeout=60000)
        await settle(t)
        await t.screenshot(path=OUT.replace("_five_rounds", "_join"))
        for r in range(5):
            await t.click(".st-key-class_next button")
            await settle(t)
            for s in students:
                await s.rerun(fragment=s.round_fragment, auto=True)
                words = next(x for x in s.texts if x.startswith("The release:"))
                await s.rerun(
                    press="Alice is in" if nearer(words, known) else "Alice is out", fragment=s.round_fragment
                )
            await t.wait_for_function("t => document.body.innerText.includes(t)", arg="40 of 40", timeout=60000)
            await settle(t)
        await t.screenshot(path=OUT)
        await b.close()


with app_server() as (url, proc):
    asyncio.run(go(url))

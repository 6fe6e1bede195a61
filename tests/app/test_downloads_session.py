"""Downloads belong to their session (issue 63.5), on a real server driven by two bare websocket sessions (the
Streamlit protocol a browser speaks) and a bare HTTP client with no session at all.

Before: a download's address was a hash of its content, so a second session drawing the same file got the same
address, a guessed file answered 200 when it existed (a presence oracle), and a file outlived its session until two
later script runs of any session had swept it. Now (ui/media_files.py): another session's address for the same
file differs, the content's hash answers exactly as a missing file does, and a session's files stop being served
when it disconnects and are deleted when Streamlit ends it.
"""

import time

import pytest

from tests.support.server import free_port, start_server, wait_healthy
from tests.support.sessions import CSV, Session, content_address, fetch, file_name, get, run_in_thread


#: seconds Streamlit keeps a disconnected session for its reconnection before ending it (2 min by default)
RECONNECT_SECONDS = 2


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = start_server(port, f"--server.disconnectedSessionTTL={RECONNECT_SECONDS}")
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc, timeout=120)
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def media_bytes(server: str) -> int:
    """The bytes the server's media store holds (its own metrics, refreshed every 5 s)."""
    text = fetch(server + "/_stcore/metrics?families=cache_memory_bytes")[1].decode()
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("cache_memory_bytes") and "st_memory_media_file_storage" in line
    )


def wait_for(condition, seconds: float = 60.0) -> bool:
    """Whether ``condition()`` became true within ``seconds`` (polled; the server acts on a disconnect in its own
    time)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def test_another_session_cannot_name_a_sessions_file(server):
    """Two sessions offer the same file: each fetches its own, and neither's address is the other's (it used to be
    the same address: the content's hash). The same for a file built when its button is pressed."""

    async def scenario():
        a, b = await Session.open(server, "reproduce"), await Session.open(server, "reproduce")
        try:
            mine, theirs = a.downloads[CSV], b.downloads[CSV]
            assert fetch(server + mine)[0] == 200 and fetch(server + theirs)[0] == 200
            assert fetch(server + mine)[1] == fetch(server + theirs)[1]  # the same file
            assert theirs != mine
            pressed = await a.press("Scenario file"), await b.press("Scenario file")
            assert pressed[0] != pressed[1] and all(fetch(server + url)[0] == 200 for url in pressed)
        finally:
            await a.ws.close()
            await b.ws.close()

    run_in_thread(scenario())


def test_a_guessed_file_answers_as_a_missing_one(server):
    """Someone who can guess a file's content (a default scenario, a shipped run) asks for its hash: the answer is
    the same as for a file that never existed (it was 200 when some session held the file)."""

    async def scenario():
        a = await Session.open(server, "reproduce")
        try:
            status, data, headers = get(server + a.downloads[CSV])
            assert status == 200 and data.startswith(b"#")
            guess = content_address(data, "text/csv", file_name(headers))
            missing = "/media/" + "0" * 40 + ".csv"
            assert fetch(server + guess) == fetch(server + missing) and fetch(server + guess)[0] == 404
        finally:
            await a.ws.close()

    run_in_thread(scenario())


def test_a_sessions_files_go_when_it_leaves(server):
    """A session's files answer as missing once it has disconnected, and are deleted from the server's memory once
    it can no longer reconnect (``server.disconnectedSessionTTL``; they used to stay until two later script runs of
    other sessions swept them, and on an idle server for good)."""

    async def scenario():
        a = await Session.open(server, "reproduce")
        files = [a.downloads[CSV], await a.press("Scenario file")]
        assert all(fetch(server + url)[0] == 200 for url in files)
        await a.ws.close()
        return files

    files = run_in_thread(scenario())
    assert wait_for(lambda: all(fetch(server + url)[0] == 404 for url in files))
    assert wait_for(lambda: media_bytes(server) == 0)  # deleted, not only hidden (every session has left)

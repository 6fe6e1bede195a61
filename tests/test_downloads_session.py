"""Downloads belong to their session (issue 63.5), on a real server driven by two bare websocket sessions (the
Streamlit protocol a browser speaks) and a bare HTTP client with no session at all.

Before: a download's address was a hash of its content, so a second session drawing the same file got the same
address, a guessed file answered 200 when it existed (a presence oracle), and a file outlived its session until two
later script runs of any session had swept it. Now (ui/media_files.py): another session's address for the same
file differs, the content's hash answers exactly as a missing file does, and a session's files stop being served
when it disconnects and are deleted when Streamlit ends it.
"""

import asyncio
import threading
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

import pytest

from tests.support.server import free_port, start_server, wait_healthy


def _run(scenario):
    """``asyncio.run(scenario())`` in a thread of its own: a browser test earlier in the same worker keeps an event
    loop running in this thread (Playwright's sync API), where asyncio.run refuses to start another."""
    out = {}

    def target():
        try:
            out["value"] = asyncio.run(scenario())
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


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


def fetch(url: str) -> tuple[int, bytes]:
    """(status, body) of a bare GET: no cookie, no session."""
    return get(url)[:2]


def get(url: str) -> tuple[int, bytes, dict]:
    """(status, body, headers) of a bare GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read(), dict(refused.headers)


class Session:
    """One session of the app over its websocket, as a browser tab opens it."""

    def __init__(self, ws):
        self.ws, self.id, self.downloads = ws, None, {}

    @classmethod
    async def open(cls, server: str, page: str) -> "Session":
        from websockets.asyncio.client import connect

        ws = await connect(server.replace("http", "ws") + "/_stcore/stream", subprotocols=["streamlit"])
        session = cls(ws)
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        msg.rerun_script.page_name = page
        await ws.send(msg.SerializeToString())
        await session._until_finished()
        return session

    async def _message(self):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = ForwardMsg()
        msg.ParseFromString(await asyncio.wait_for(self.ws.recv(), 120))
        return msg

    async def _until_finished(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        early = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
        while True:
            msg = await self._message()
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.id = msg.new_session.initialize.session_id
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                if element.WhichOneof("type") == "download_button":
                    button = element.download_button
                    self.downloads.setdefault(button.label, button.url or button.deferred_file_id)  # the first
            elif kind == "script_finished" and msg.script_finished != early:
                return

    async def press(self, label: str) -> str:
        """The address of a download built when its button is pressed, as the browser asks for it."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        request = msg.backend_operation_request
        request.request_id, request.session_id = str(uuid.uuid4()), self.id
        request.deferred_file.file_id = self.downloads[label]
        await self.ws.send(msg.SerializeToString())
        while True:
            answer = await self._message()
            if answer.WhichOneof("type") == "backend_operation_response":
                assert not answer.backend_operation_response.error_msg, answer
                return answer.backend_operation_response.deferred_file.url


def content_address(data: bytes, mimetype: str, filename: str) -> str:
    """The address Streamlit's own media store gives these bytes (a hash of the content, type and name), from a
    fresh interpreter: this process may have changed the store (AppTest runs app.py, which installs ui/media_files)."""
    code = (
        "import sys; from streamlit.runtime.media_file_storage import MediaFileKind; "
        "from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage as M; "
        "s = M('/media'); print(s.get_url(s.load_and_get_id(sys.stdin.buffer.read(), sys.argv[1], "
        "MediaFileKind.DOWNLOADABLE, sys.argv[2])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, mimetype, filename], input=data, capture_output=True, cwd="/", check=True
    )
    return done.stdout.decode().strip()


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


CSV = "Download the data (CSV)"  # the reproduce page's shipped run: the same file for every session


def file_name(headers: dict) -> str:
    """The file name a download is served under (its Content-Disposition)."""
    return headers["content-disposition"].split('filename="', 1)[1].rstrip('"')


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

    _run(scenario)


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

    _run(scenario)


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

    files = _run(scenario)
    assert wait_for(lambda: all(fetch(server + url)[0] == 404 for url in files))
    assert wait_for(lambda: media_bytes(server) == 0)  # deleted, not only hidden (every session has left)

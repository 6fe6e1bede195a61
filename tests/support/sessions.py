"""The app's sessions over Streamlit's websocket: a bare session as a browser tab opens it and the bare HTTP gets
beside it (tests/app/test_downloads_session.py, benchmarks/load_attacks.py), the messages a page sees, a fake page that
replays them to the load benchmark's clock (tests/benchmarks/test_load_driver.py, tests/benchmarks/test_soak_report.py), and asyncio run
in a thread of its own."""

import asyncio
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg


class FakeSocket:
    def __init__(self):
        self.handlers = {}

    def on(self, event, handler):
        self.handlers[event] = handler


class FakePage:
    def __init__(self):
        self.socket = FakeSocket()

    def on(self, event, handler):
        assert event == "websocket"
        handler(self.socket)

    def receive(self, msg: ForwardMsg):
        self.socket.handlers["framereceived"](msg.SerializeToString())

    def send(self, msg: BackMsg):
        self.socket.handlers["framesent"](msg.SerializeToString())


def run_in_thread(coroutine):
    """asyncio.run in a thread of its own: the browser tests' Playwright (sync API) keeps an event loop running in
    the main thread for the whole session, where asyncio.run refuses to start."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def status_message(running: bool) -> ForwardMsg:
    msg = ForwardMsg()
    msg.session_status_changed.script_is_running = running
    return msg


def finished_message(status: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.script_finished = ForwardMsg.ScriptFinishedStatus.Value(status)
    return msg


def rerun_message() -> BackMsg:
    msg = BackMsg()
    msg.rerun_script.query_string = "eps=1"
    return msg


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


CSV = "Download the data (CSV)"  # the reproduce page's shipped run: the same file for every session


def file_name(headers: dict) -> str:
    """The file name a download is served under (its Content-Disposition)."""
    return headers["content-disposition"].split('filename="', 1)[1].rstrip('"')

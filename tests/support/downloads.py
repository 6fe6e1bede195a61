"""The files the app's download buttons offer under AppTest (the ``downloads`` fixture of tests/conftest.py keeps
them), the wine upload they are made from, and the releases drawn to publish."""

import html as html_lib
import json
import os
import re
import subprocess
import sys

from tests.helpers import draw_releases
from tests.support.app import assert_clean
from tests.support import ROOT

WINE = ROOT / "sample_data" / "wine.csv"


def remember_downloads(monkeypatch) -> dict:
    """{file id: bytes, or the callable that builds them} of every file a download button offers while the patches
    of ``monkeypatch`` hold (AppTest drops its media store after each run, so the store and the manager are replaced
    by ones that remember; a button whose file is built when pressed registers a callable, which :func:`offered`
    calls, as a press would)."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files = {}

    class Remembering(MemoryMediaFileStorage):
        def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
            file_id = super().load_and_get_id(path_or_data, mimetype, kind, filename)
            files[file_id] = self.get_file(file_id).content
            return file_id

    class RememberingManager(MediaFileManager):
        def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
            file_id = super().add_deferred(data_callable, mimetype, coordinates, file_name, **kwargs)
            files[file_id] = data_callable
            return file_id

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", Remembering)
    monkeypatch.setattr(app_test_module, "MediaFileManager", RememberingManager)
    return files


def offered(at, files) -> dict:
    """{download button label: the bytes it offers} on the page AppTest shows (a file built when its button is
    pressed is built here)."""
    out = {}
    for button in at.get("download_button"):
        deferred = button.proto.deferred_file_id
        file_id = deferred or os.path.splitext(button.proto.url.rsplit("/", 1)[-1])[0]
        data = files[file_id]
        if callable(data):
            data = data()
        out[button.proto.label] = data.encode() if isinstance(data, str) else data
    return out


def built_on_press(at) -> set:
    """The labels of the download buttons whose file is built only when pressed (a callable ``data=``)."""
    return {button.proto.label for button in at.get("download_button") if button.proto.deferred_file_id}


def first_visible_text(doc: str) -> str:
    body = doc.split("<body>", 1)[1]
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", body).strip().splitlines()[0]).strip()


def report_table(at):
    frames = [df.value for df in at.dataframe if "subspace distance" in df.value.columns]
    assert frames, "no results table on the Report page"
    return frames[0]


def upload_wine(at, label="class", columns=()):
    """The wine file uploaded, with ``columns`` (and the label) declared in the link: by default every column but the
    label, the schema the Data page suggests (a schema must be declared before anything is published, issue 54)."""
    at.session_state["upload"] = {"name": "wine.csv", "bytes": WINE.read_bytes()}
    header = WINE.read_text().splitlines()[0].split(",")
    at.query_params["cols"] = json.dumps(list(columns) or [c for c in header if c != label])
    at.query_params["label"] = label


def run_script(path, folder, *args, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run an exported Python script with ``args`` from ``folder``, the package importable as if installed (this
    checkout on PYTHONPATH: the script must not rely on the working folder); its output captured as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(path), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=str(folder), env=env)


#: the wine upload's scenario: one mechanism, two repetitions, a public R of 2,000 (the rows' norms stay below it)
WINE_UPLOAD = {"src": "upload", "mechs": "analyze_gauss", "reps": "2", "R": "2000.0"}

#: R chosen privately inside each release, between public bounds wide enough for the wine's rows
PRIVATE_R = {"rfrom": "private", "rlo": "1.0", "rhi": "10000.0"}


def open_wine_upload(app_test, page: str, columns=(), **fields):
    """The app on the wine file uploaded (:func:`upload_wine`, with ``columns`` declared), its scenario
    :data:`WINE_UPLOAD` updated with ``fields``, run on ``page`` (e.g. "report") without an error."""
    at = app_test(**{**WINE_UPLOAD, **fields})
    upload_wine(at, columns=columns)
    at.switch_page(f"pages/{page}.py").run()
    assert_clean(at)
    return at


def releases_offered(at, files) -> dict:
    """Draw releases to publish and read the JSON the page then offers: {mechanism: exported release}."""
    draw_releases(at)
    assert_clean(at)
    (raw,) = [data for data in offered(at, files).values() if data.startswith(b'{"export"')]
    payload = json.loads(raw)
    return payload.get("releases", payload)

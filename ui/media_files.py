"""Downloads belong to their session (issue 63.5): file addresses that cannot be guessed from content, served only while
the session that made them is connected, deleted when it ends, and no presence oracle.

Streamlit keeps every file a download button offers in its in-memory media store under a hash of the file's content,
mime type and name, and serves ``/media/<hash>.<ext>`` to any client: another session, or a bare HTTP client,
fetched a session's report by its address; asking for a guessed file answered 200 when it existed; and a file
outlived its session until two later script runs of any session had swept it (13-26 s in a busy class, forever on an
idle server).

:func:`install` (app.py, once per process) changes the store's methods, not its routes:

* a file's address is an HMAC of its content hash under a random key of the session that made it (``secrets``, 256
  bits, never sent anywhere): the same file in the same session keeps its address (Streamlit's own reuse of a file
  drawn again works as before), another session gets another one, and no one can derive it from the content;
* the content hash itself no longer names a file: asking for it, for a guessed address, or for a file whose session
  is not connected gives the same 404 as a file that never existed;
* a download built when its button is pressed (``data=callable``) is owned by the session that drew the button;
* a session's files are deleted when Streamlit ends the session (``MediaFileManager.clear_session_refs`` with its
  id), and by a janitor thread once the session has been disconnected for longer than Streamlit lets it reconnect
  (``server.disconnectedSessionTTL``, 2 minutes by default): Streamlit itself keeps a closed tab's session for a
  reconnection and then drops it without ending it, so without this its files stayed in memory for good.

The address is a capability: whoever is handed it can fetch the file while its session is connected, as with any
link; a session's files are never reachable from its content or from another session.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import threading
import time

from streamlit import config, runtime
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.scriptrunner import get_script_run_ctx

log = logging.getLogger("dppca.ui")
_lock = threading.Lock()
#: session id -> its secret key; file address -> (owning session or "", the store, the content hash it names)
_keys: dict[str, bytes] = {}
_files: dict[str, tuple[str, object, str]] = {}
#: content hash -> the addresses that name it (the stored bytes go when the last of them does)
_names: dict[str, set] = {}
#: the session a download built on its button's press was built for (set by the built callable, read by the store
#: in the same thread: Streamlit runs the callable and then stores its bytes, outside any script run)
_built_for = threading.local()
#: session id -> when the janitor first found it disconnected
_away_since: dict[str, float] = {}
#: seconds between two rounds of the janitor
JANITOR_SECONDS = 2.0

_ORIGINAL = {}


def _session() -> str:
    """The session storing a file now: the script run's, or the one a pressed download was built for ("" for none)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        return ctx.session_id
    owner, _built_for.owner = getattr(_built_for, "owner", ""), ""
    return owner


def _connected(session_id: str) -> bool:
    """Whether the session is connected (always, outside a server: AppTest, bare mode)."""
    if not session_id or not runtime.exists():
        return True
    return runtime.get_instance().is_active_session(session_id)


def address(session_id: str, content_id: str) -> str:
    """A file's address for ``session_id``: an HMAC of its content hash under the session's secret key (a random one
    for a file with no session)."""
    if not session_id:
        return secrets.token_hex(16)
    key = _keys.setdefault(session_id, secrets.token_bytes(32))
    return hmac.new(key, content_id.encode(), hashlib.sha256).hexdigest()[:40]


def _load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
    owner = _session()
    with _lock:  # with the deletion of the last name of the same bytes, never between the two
        content_id = _ORIGINAL["load"](self, path_or_data, mimetype, kind, filename)
        file_id = address(owner, content_id)
        _files[file_id] = (owner, self, content_id)
        _names.setdefault(content_id, set()).add(file_id)
    return file_id


def _get_file(self, filename: str):
    file_id = os.path.splitext(filename)[0]
    with _lock:
        owner, _, content_id = _files.get(file_id, ("", None, None))
    if content_id is None or not _connected(owner):  # a guessed, ended or other name: as if it never existed
        raise MediaFileStorageError(f"Bad filename '{filename}'. (No media file with id '{file_id}')")
    return _ORIGINAL["get"](self, content_id)


def _delete_file(self, file_id: str) -> None:
    with _lock:
        _, _, content_id = _files.pop(file_id, ("", None, None))
        names = _names.get(content_id)
        if names is None:
            return
        names.discard(file_id)
        if not names:
            del _names[content_id]
            _ORIGINAL["delete"](self, content_id)


def _add_deferred(self, data_callable, *args, **kwargs):
    owner = _session()

    def built():
        data = data_callable()
        _built_for.owner = owner  # the store's next file in this thread is this one's
        return data

    return _ORIGINAL["add_deferred"](self, built, *args, **kwargs)


def session_ended(session_id: str) -> None:
    """Delete every file of ``session_id`` and forget its key."""
    with _lock:
        mine = [(file_id, store) for file_id, (owner, store, _) in _files.items() if owner == session_id]
        _keys.pop(session_id, None)
    for file_id, store in mine:
        store.delete_file(file_id)


def _clear_session_refs(self, session_id=None) -> None:
    _ORIGINAL["clear"](self, session_id)
    if session_id is not None and not _connected(session_id):  # the session is shutting down, not starting a run
        session_ended(session_id)


def sweep(now: float | None = None) -> int:
    """Delete the files of every session disconnected for longer than it may reconnect; their number."""
    now = time.monotonic() if now is None else now
    grace = float(config.get_option("server.disconnectedSessionTTL"))
    with _lock:
        owners = {owner for owner, _, _ in _files.values() if owner} | set(_away_since)
    gone = []
    for owner in owners:
        if _connected(owner):
            _away_since.pop(owner, None)
        elif now - _away_since.setdefault(owner, now) >= grace:
            gone.append(owner)
    for owner in gone:
        _away_since.pop(owner, None)
        session_ended(owner)
    return len(gone)


def _janitor() -> None:
    while True:
        time.sleep(JANITOR_SECONDS)
        try:
            sweep()
        except Exception:  # noqa: BLE001 - the janitor keeps going whatever one round met
            log.exception("the media janitor's round failed")


def install() -> None:
    """Make the media store name, serve and delete files by session (once per process; later calls do nothing)."""
    with _lock:
        if _ORIGINAL:
            return
        _ORIGINAL.update(
            load=MemoryMediaFileStorage.load_and_get_id,
            get=MemoryMediaFileStorage.get_file,
            delete=MemoryMediaFileStorage.delete_file,
            add_deferred=MediaFileManager.add_deferred,
            clear=MediaFileManager.clear_session_refs,
        )
        MemoryMediaFileStorage.load_and_get_id = _load_and_get_id
        MemoryMediaFileStorage.get_file = _get_file
        MemoryMediaFileStorage.delete_file = _delete_file
        MediaFileManager.add_deferred = _add_deferred
        MediaFileManager.clear_session_refs = _clear_session_refs
    if runtime.exists():  # a server (not AppTest): sessions come and go
        threading.Thread(target=_janitor, name="dppca-media-janitor", daemon=True).start()

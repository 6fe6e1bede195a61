"""Child processes never run the app script again (the upload worker and the library comparison's time budget).

Under Streamlit, ``sys.modules["__main__"]`` is the app script; multiprocessing's "spawn" and "forkserver" children
run that module before their target. Both children used to run the whole app again outside a session, and in the
browser tests one blocked for good once its warnings filled the server's unread output pipe.
"""

import sys
import types

from dppca_core import peers
from ui import worker


def _as_main(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    script = tmp_path / "app_script.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake)
    return fake, marker


def test_the_time_budget_child_does_not_run_the_main_script(tmp_path, monkeypatch):
    fake, marker = _as_main(tmp_path, monkeypatch)
    assert peers.with_time_budget(len, 30, "abcd") == (4, None)
    assert not marker.exists()
    assert sys.modules["__main__"] is fake  # put back


def test_the_upload_worker_does_not_run_the_main_script(tmp_path, monkeypatch):
    fake, marker = _as_main(tmp_path, monkeypatch)
    assert worker.run(len, "abc", memory_bytes=500_000_000, cpu_seconds=30).value == 3
    assert not marker.exists()
    assert sys.modules["__main__"] is fake


def test_the_check_can_fail(tmp_path, monkeypatch):
    """Started plainly, a spawned child does run the main script: the marker appears."""
    import multiprocessing

    _, marker = _as_main(tmp_path, monkeypatch)
    process = multiprocessing.get_context("spawn").Process(target=len, args=("ab",))
    process.start()
    process.join(60)
    assert marker.exists()

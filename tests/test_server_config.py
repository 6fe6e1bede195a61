"""The deployed server configuration (.streamlit/config.toml) keeps the settings the load measurements rest on."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_full_garbage_collection_after_every_run():
    """Streamlit's default runner.postScriptGC runs gc.collect(2) after each script run; with this app's imports
    that costs more CPU than the run itself and holds the GIL (44% of the server's Python time with 30 sessions
    moving epsilon together, docs/load.md). It stays off; Python's generational collector still runs."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False

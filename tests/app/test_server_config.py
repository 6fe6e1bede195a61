"""The deployed server configuration (.streamlit/config.toml) keeps the settings the load measurements rest on."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_full_garbage_collection_after_every_run():
    """Streamlit's default runner.postScriptGC runs gc.collect(2) after each script run; with this app's imports
    that costs more CPU than the run itself and holds the GIL (44% of the server's Python time with 30 sessions
    moving epsilon together, docs/load.md). It stays off; Python's generational collector still runs."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_no_page_relies_on_magic():
    """runner.magicEnabled is off (Streamlit recompiles the pages whenever the last session disconnects, and magic's
    rewrite of a page's syntax tree was most of that): no page may draw anything through a bare expression."""
    from streamlit.runtime.scriptrunner import magic

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["magicEnabled"] is False
    for script in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        tree = magic.add_magic(script.read_text(), str(script))
        drawn = [
            node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "transparent_write"
        ]
        assert not drawn, f"{script.name} draws {len(drawn)} bare expression(s) through magic, which is off"


def test_the_served_app_watches_no_files():
    """Issue 64: the README's command left Streamlit's file watcher on, 0.37-0.41 s of server CPU per page visit;
    a served app never changes its files (a developer passes --server.fileWatcherType auto)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"

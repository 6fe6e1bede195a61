"""Shared pytest fixtures (shared file: add fixtures, keep existing ones)."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def app_test():
    """Factory: an AppTest of the dashboard, optionally opened with URL query parameters."""
    from streamlit.testing.v1 import AppTest

    def make(**query):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        for key, value in query.items():
            at.query_params[key] = str(value)
        return at

    return make


# Property tests: random exploration on developer machines, a fixed example sequence in CI so a run is
# reproducible (bugs found locally become explicit regression tests).
try:
    import os

    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        _hyp_settings.load_profile("ci")
except ImportError:  # pragma: no cover
    pass

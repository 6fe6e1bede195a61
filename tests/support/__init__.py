"""What several test modules (and the benchmarks) share: helpers and builders, never tests. A test module imports
from here, not from another test module (the shared fixtures are in tests/conftest.py)."""

from pathlib import Path

#: the repository's root, wherever the test module that asks for it sits
ROOT = Path(__file__).resolve().parents[2]

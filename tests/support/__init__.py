"""What several test modules (and the benchmarks) share: helpers and builders, never tests. A test module imports
from here, not from another test module (the shared fixtures are in tests/conftest.py)."""

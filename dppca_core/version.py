"""The package's version, written in this one place: ``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``),
``dppca_core.__version__`` is it, and the budget book, the publishable file and the exploration records record it.

Raise it with each release and say what changed for users in ``CHANGELOG.md`` (``tests/test_package.py`` checks that
the changelog's latest release is this version).
"""

__version__ = "0.2.0"

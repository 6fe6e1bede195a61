"""What is computed from the rows without noise, kept apart from what is published.

Declared with the data (the lowest layer that makes them: :mod:`dppca_core.data.stats` streams them from files)
and re-exported by :mod:`dppca_core.release`, whose :class:`~dppca_core.release.Release` carries them.
"""

from __future__ import annotations

from collections.abc import Mapping


class NonPrivateDiagnostics(Mapping):
    """Read-only mapping of quantities computed from the raw data WITHOUT noise.

    NOT covered by the release's privacy guarantee: never publish them. They are for the analyst's own
    exploration (the dashboard shows them under a "not private" label).
    """

    covered_by_guarantee = False

    def __init__(self, items: dict | None = None):
        self._items = dict(items or {})

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"NonPrivateDiagnostics(keys={sorted(self._items)})  # NOT covered by the privacy guarantee"

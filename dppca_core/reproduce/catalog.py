"""The papers in the order of the menus: importing each paper's module registers its paper and its reproductions
in :data:`.core.PAPERS` and :data:`.core.SPECS`, so this order is the order of both, and of :data:`REPRODUCTIONS`."""

from . import wang_xu, ge, liu, imtiaz_2016, imtiaz_2018  # noqa: F401  (imported for their registrations)
from . import biswas, dong_liang_yi, dungler_sanyal  # noqa: F401  (issue 39)
from .core import PAPERS

REPRODUCTIONS = tuple(k for p in PAPERS.values() for k in p.reproductions)

"""The papers in the order of the menus, registered here (:func:`.core.register`): that order is the order of
:data:`.core.PAPERS`, of :data:`.core.SPECS` and of :data:`REPRODUCTIONS`. A paper module only declares its
:class:`.core.Paper` (``PAPER``) with its reproductions; adding a paper is one line here."""

from .biswas import PAPER as BISWAS
from .core import PAPERS, register
from .dong_liang_yi import PAPER as DONG_LIANG_YI
from .dungler_sanyal import PAPER as DUNGLER_SANYAL
from .ge import PAPER as GE
from .imtiaz_2016 import PAPER as IMTIAZ_2016
from .imtiaz_2018 import PAPER as IMTIAZ_2018
from .liu import PAPER as LIU
from .wang_xu import PAPER as WANG_XU

for _paper in (WANG_XU, GE, LIU, IMTIAZ_2016, IMTIAZ_2018, BISWAS, DONG_LIANG_YI, DUNGLER_SANYAL):
    register(_paper)

REPRODUCTIONS = tuple(k for p in PAPERS.values() for k in p.reproductions)

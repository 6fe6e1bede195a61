"""The class plays the attacker (issue 61): a game in which every student guesses whether Alice is in the data from a
release of their own, and the room's answers are scored against the bound the mechanism's exact curve puts on any
guesser.

* :mod:`.game`: the mechanisms, their synthetic tables and one student's release (:func:`draw`);
* :mod:`.score`: the room's rates, their Clopper-Pearson bands, the bound and the verdict, in words;
* :mod:`.rooms`: the rooms in SQLite, shared by every session of the server (:class:`RoomStore`);
* :mod:`.svg`: a student's release drawn simply.

The modules import each other directly; this package's names are for users.
"""

from .game import MECHANISMS, Draw, GameSettings, draw, exact_curve, noiseless, promise_curve
from .rooms import RoomStore, check_code
from .score import RoomResult, score

__all__ = [
    "MECHANISMS",
    "Draw",
    "GameSettings",
    "RoomResult",
    "RoomStore",
    "check_code",
    "draw",
    "exact_curve",
    "noiseless",
    "promise_curve",
    "score",
]

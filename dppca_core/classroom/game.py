"""The class plays the attacker (issue 61): the game's mechanisms, their small synthetic tables, and one student's
release, drawn with or without Alice.

Each round every student gets a release of their own, computed on one of two neighbouring tables: D, the table with
Alice's row, or D', the same table without it (add/remove neighbours), chosen by a fair coin and hidden. The student
knows everything an attacker of differential privacy may know: every other row, the mechanism, its noise, and what
the release would be without noise on either table. Whatever rule the room uses to answer "Alice is in", its rate of
saying "in" when she is in (true positives) and when she is out (false positives) must respect the mechanism's exact
trade-off curve (:meth:`dppca_core.privacy.PrivacyCurve.false_negative_floor`): that is what the guarantee promises.

The tables are synthetic (made here from a fixed seed, the same for every room) and describe nobody; Alice too is
made up. Alice's row sits at the clipping bound, the worst case the noise is calibrated for, so for the mean the
best possible guesser (the one who picks the nearer of the two noiseless values) lands exactly on the curve.

Mechanisms
----------
``mean``: the average hours of sleep over a class list of :data:`ROSTER` names, a missing answer counted as 0 (so
the divisor is public), each answer clipped to [0, :data:`SLEEP_MAX`] hours, plus Gaussian noise of the analytic
Gaussian mechanism (:func:`dppca_core.privacy.gaussian_sigma`) for the sensitivity SLEEP_MAX / ROSTER. Exactly
mu-GDP with mu = sensitivity / sigma.

``pc1``: the first principal direction of a small table of two columns, each row of norm at most 1, released by
Analyze Gauss (the library's ``analyze_gauss``: Gaussian noise on the upper triangle of X^T X, sensitivity
:func:`dppca_core.privacy.sensitivity` ("gram_upper", "add_remove")), of which the student sees only the direction.
The curve is the mechanism's (of the noisy matrix); the direction is post-processing, so a room that sees only it
can reach the curve at best, usually not.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..linalg import top_eigenvectors
from ..privacy import PrivacyCurve, gaussian_sigma, sensitivity
from ..validation import check_delta, check_epsilon

#: the mechanisms of the game, in the order the teacher is offered them: id -> what the class is told
MECHANISMS = {
    "mean": "the average hours of sleep of a class list (a private mean)",
    "pc1": "the first principal direction of a small two-column table (Analyze Gauss)",
}
#: the names on the sleep survey's class list (Alice is one of them): the public divisor of the mean
ROSTER = 20
#: the most hours an answer can count for (answers are clipped to [0, SLEEP_MAX]); Alice slept this long
SLEEP_MAX = 12.0
#: rows of the two-column table without Alice
PC1_ROWS = 6
#: the seed of the synthetic tables (public: every room plays on the same tables)
TABLE_SEED = 61
#: the range of epsilon the game offers (below it every release is noise; above it the noise vanishes)
EPSILON_RANGE = (0.05, 10.0)
#: the game's default delta (the tables have about 20 rows: delta far below 1/n)
DEFAULT_DELTA = 1e-5


@dataclass(frozen=True)
class GameSettings:
    """One round's settings: the mechanism (a key of :data:`MECHANISMS`), epsilon and delta."""

    mechanism: str = "mean"
    epsilon: float = 1.0
    delta: float = DEFAULT_DELTA

    def __post_init__(self):
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"the game's mechanism is one of {', '.join(MECHANISMS)}, not {self.mechanism!r}.")
        epsilon = check_epsilon(self.epsilon)
        low, high = EPSILON_RANGE
        if not low <= epsilon <= high:
            raise ValueError(f"the game's ε lies between {low:g} and {high:g} (got {epsilon:g}).")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", check_delta(self.delta))

    def as_dict(self) -> dict:
        return {"mechanism": self.mechanism, "epsilon": self.epsilon, "delta": self.delta}

    @classmethod
    def from_dict(cls, spec: dict) -> "GameSettings":
        return cls(str(spec["mechanism"]), float(spec["epsilon"]), float(spec["delta"]))

    def words(self) -> str:
        return f"{MECHANISMS[self.mechanism]}, ε = {self.epsilon:g}, δ = {self.delta:g}"


# -- the tables (public, synthetic) ---------------------------------------------------------------------------


@functools.cache
def sleep_table() -> np.ndarray:
    """The hours of sleep of the 19 people on the list other than Alice (synthetic, read-only)."""
    rng = np.random.default_rng(TABLE_SEED)
    hours = np.clip(np.round(rng.normal(7.0, 1.2, ROSTER - 1) * 2) / 2, 0.0, SLEEP_MAX)
    hours.setflags(write=False)
    return hours


@functools.cache
def pc1_table() -> tuple[np.ndarray, np.ndarray]:
    """(the rows without Alice, Alice's row): a two-column table spread along a diagonal, every row of norm at most
    1, and Alice at norm 1 across it, so that her row turns the first direction (synthetic, read-only)."""
    rng = np.random.default_rng(TABLE_SEED)
    along = rng.uniform(-0.9, 0.9, PC1_ROWS)
    across = rng.normal(0.0, 0.12, PC1_ROWS)
    axis = np.array([math.cos(math.radians(30)), math.sin(math.radians(30))])
    normal = np.array([-axis[1], axis[0]])
    rows = np.outer(along, axis) + np.outer(across, normal)
    rows /= np.maximum(1.0, np.linalg.norm(rows, axis=1))[:, None]
    alice = np.array([math.cos(math.radians(105)), math.sin(math.radians(105))])
    for array in (rows, alice):
        array.setflags(write=False)
    return rows, alice


def _mean_sensitivity() -> float:
    return SLEEP_MAX / ROSTER


def noise_scale(settings: GameSettings) -> float:
    """The s.d. of the Gaussian noise of a release at ``settings`` (the analytic Gaussian mechanism)."""
    if settings.mechanism == "mean":
        return gaussian_sigma(_mean_sensitivity(), settings.epsilon, settings.delta)
    return gaussian_sigma(sensitivity("gram_upper", "add_remove"), settings.epsilon, settings.delta)


def exact_curve(settings: GameSettings) -> PrivacyCurve:
    """The mechanism's exact privacy curve at ``settings``: mu-GDP with mu = sensitivity / sigma (Analyze Gauss's
    release states the same curve, ``Release.privacy``)."""
    scale = _mean_sensitivity() if settings.mechanism == "mean" else sensitivity("gram_upper", "add_remove")
    return PrivacyCurve.gdp(scale / noise_scale(settings))


def promise_curve(settings: GameSettings) -> PrivacyCurve:
    """What the pair (ε, δ) alone promises (Kairouz, Oh & Viswanath): a weaker curve than the mechanism's own."""
    return PrivacyCurve.approx(settings.epsilon, settings.delta)


# -- the two neighbouring tables and one release --------------------------------------------------------------


def noiseless(mechanism: str) -> dict:
    """What the release would be without noise on each table, which the attacker knows: ``{"in": ..., "out": ...}``
    (the mean in hours; the first direction as a unit vector [x, y] with a non-negative x)."""
    if mechanism == "mean":
        others = float(np.sum(sleep_table()))
        return {"in": (others + SLEEP_MAX) / ROSTER, "out": others / ROSTER}
    rows, alice = pc1_table()
    out = {}
    for key, table in (("in", np.vstack([rows, alice])), ("out", rows)):
        out[key] = _direction(table.T @ table)
    return out


def _direction(matrix: np.ndarray) -> list[float]:
    """The first eigenvector of a symmetric 2 x 2 matrix as [x, y], the sign with x >= 0 (a direction, not an
    arrow)."""
    vector = top_eigenvectors(matrix, 1)[1][:, 0]
    if vector[0] < 0 or (vector[0] == 0 and vector[1] < 0):
        vector = -vector
    return [float(vector[0]), float(vector[1])]


@dataclass(frozen=True)
class Draw:
    """One student's release: whether Alice's row was in (hidden from the student) and what was released."""

    inside: bool
    release: dict

    def as_dict(self) -> dict:
        return {"inside": self.inside, "release": self.release}


def draw(settings: GameSettings, rng: np.random.Generator) -> Draw:
    """A fresh release: a fair coin chooses D (Alice in) or D' (out), then the mechanism runs on that table with
    noise from ``rng`` (``dppca_core.secure_generator()`` in the app). The release holds only what is published:
    ``{"value": hours}`` or ``{"direction": [x, y]}``."""
    inside = bool(rng.random() < 0.5)
    sigma = noise_scale(settings)
    if settings.mechanism == "mean":
        value = noiseless("mean")["in" if inside else "out"] + float(rng.normal(0.0, sigma))
        return Draw(inside, {"value": value})
    rows, alice = pc1_table()
    table = np.vstack([rows, alice]) if inside else rows
    upper = np.triu(rng.normal(0.0, sigma, size=(2, 2)))
    noisy = table.T @ table + upper + np.triu(upper, 1).T
    return Draw(inside, {"direction": _direction(noisy)})


def angle(direction) -> float:
    """A direction's angle in degrees, in (-90, 90]."""
    x, y = float(direction[0]), float(direction[1])
    degrees = math.degrees(math.atan2(y, x))
    if degrees <= -90:
        degrees += 180
    elif degrees > 90:
        degrees -= 180
    return degrees


def nearer(mechanism: str, release: dict) -> bool:
    """The guess of the simple rule "say in when the release is nearer the noiseless value with Alice" (for the mean,
    the best test there is at a 50/50 prior: it reaches the curve's symmetric point)."""
    known = noiseless(mechanism)
    if mechanism == "mean":
        value = float(release["value"])
        return abs(value - known["in"]) < abs(value - known["out"])
    turn = angle(release["direction"])

    def gap(other):
        d = abs(turn - angle(other)) % 180
        return min(d, 180 - d)

    return gap(known["in"]) < gap(known["out"])

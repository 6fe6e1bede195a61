"""The search of a plan: for each mechanism, its budget split (one optional part at a time) by cheap pilots, then
the smallest epsilon on the grid by extrapolated proposals and bisection."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import theory
from ..pipeline.budget import DEFAULT_SHARES, BudgetSplit, allocate, release_curve_kind
from ..registry import get_mechanism

from .simulation import Setting, Simulator
from .targets import share_meets

#: the shares each optional part of a release may take in the search (the dashboard's budget sliders allow 0-30%)
SHARE_GRID = (0.05, 0.1, 0.2, 0.3)
#: repetitions of a pilot evaluation (a first guess) and of each frontier point away from the plans
PILOT_REPS = 30


# ---------------------------------------------------------------------------------------------------------------
# The search


def _parts(s: Setting) -> list:
    """The optional parts of the release, in :data:`dppca_core.pipeline.budget.PARTS` order."""
    wanted = set(s.parts)
    if s.center == "private":
        wanted.add("mean")
    if s.data_norm == "private":
        wanted.add("radius")
    return [p for p in ("radius", "mean", "eigenvalues", "scores") if p in wanted]


def split_of(shares: dict) -> BudgetSplit:
    return BudgetSplit.with_extras(**shares)


def default_shares(s: Setting) -> dict:
    return {part: DEFAULT_SHARES[part] for part in _parts(s)}


def _share_grid(s: Setting, mech: str, part: str) -> tuple:
    if part == "eigenvalues" and get_mechanism(mech).releases_eigenvalues and s.neighbors == "replace":
        return (0.0,) + SHARE_GRID
    return SHARE_GRID


def _theory_start(s: Setting, mech: str, split: BudgetSplit) -> int:
    """A first grid index: where the first-order theory (:func:`dppca_core.theory.first_order_rms`, on the stand-in's
    eigenvalues) puts the distance target, with a margin for the spread; epsilon = 1 otherwise."""
    grid = s.grid()
    fallback = int(np.argmin(np.abs(np.log(grid))))
    target = dict(s.standin.targets_for(s.targets, s.k)[0]).get("subspace_distance")
    radius = float(s.data_norm) if s.data_norm != "private" else float(s.radius[0][1])
    if target is None:
        return fallback
    eig = s.standin.consistent(s.k, s.target_map)[0].values * s.n / radius**2  # the hardest spectrum it allows
    kind = release_curve_kind(mech, s.mech_params(mech))
    for j, eps in enumerate(grid):
        sub = allocate(split, float(eps), s.delta if kind != "pure" else 0.0, kind)["subspace"]
        try:
            with np.errstate(all="ignore"):
                rms = theory.first_order_rms(
                    mech, eig, n=s.n, k=s.k, epsilon=sub.epsilon, delta=sub.delta if sub.delta > 0 else s.delta
                )
        except (ValueError, OverflowError, ZeroDivisionError):
            return fallback
        if rms is None or not np.isfinite(rms):
            return fallback
        if rms <= 0.8 * target:
            return j
    return len(grid) - 1


@dataclass
class Found:
    """A candidate (mechanism, split) searched: the smallest qualifying grid index (None: none up to the top)."""

    mech: str
    split: BudgetSplit
    index: int | None
    pilot: int
    searched: bool = True
    checked: dict = field(default_factory=dict)  # index -> (count met, reps)


def _pilot(sim: Simulator, mech: str, split: BudgetSplit, start: int) -> int:
    """A cheap guess: two rounds of extrapolation from PILOT_REPS repetitions."""
    grid = sim.s.grid()
    i = start
    for _ in range(2):
        values = sim.values(mech, split, grid[i], min(PILOT_REPS, sim.s.reps))
        j = sim.proposal(mech, split, grid[i], values)
        if abs(j - i) <= 1:
            return j
        i = j
    return i


def search_epsilon(sim: Simulator, mech: str, split: BudgetSplit, start: int) -> Found:
    """The smallest grid index whose share of releases meeting every target reaches the confidence, by extrapolated
    proposals inside a shrinking bracket (bisection once both ends are known)."""
    s = sim.s
    grid = s.grid()
    top = len(grid) - 1
    found = Found(mech, split, None, start)
    fail, ok = -1, None
    i = start
    for step in range(12):
        values = sim.values(mech, split, grid[i], s.reps)
        count = int(sim.met(values).all(axis=1).sum())
        found.checked[i] = (count, s.reps)
        if share_meets([count], s.reps, s.confidence)[0]:
            ok = i
        else:
            fail = i
        if ok is not None and ok - fail <= 1:
            break
        if ok is None and fail == top:
            break
        j = sim.proposal(mech, split, grid[i], values)
        if ok is not None and fail >= 0 and step >= 2:
            j = (ok + fail) // 2
        j = min(j, ok - 1) if ok is not None else j
        j = max(j, fail + 1)
        if j == i:
            j = i - 1 if ok == i else i + 1
        i = min(max(j, 0), top)
    found.index = ok
    return found


def explore_splits(sim: Simulator, mech: str) -> tuple[BudgetSplit, int, BudgetSplit]:
    """(best split by pilot, its pilot index, the default split): one part at a time through its share grid."""
    s = sim.s
    current = default_shares(s)
    default = split_of(current)
    best_index = _pilot(sim, mech, default, _theory_start(s, mech, default))
    best = default
    for part in list(current):
        for share in _share_grid(s, mech, part):
            trial = {**current, part: share}
            if trial == current or sum(trial.values()) >= 0.9:
                continue
            split = split_of(trial)
            index = _pilot(sim, mech, split, best_index)
            if index < best_index:
                best, best_index, current = split, index, trial
    return best, best_index, default

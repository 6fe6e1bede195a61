"""The plan: :func:`plan` (public facts in, a :class:`Plan` out, memoised), its frontier, its total epsilon with
the stand-in's cost and earlier releases, and :func:`evaluate` (a plan checked on rows or on fresh draws)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..audit.bounds import clopper_pearson_arrays
from ..pipeline.budget import BudgetSplit, release_curve_kind
from ..pipeline.experiments import RadiusRule
from ..privacy import PrivacyCurve, compose, gaussian_mu
from ..registry import display_name
from .search import default_shares, explore_splits, Found, search_epsilon, split_of
from .setting import DEFAULT_MECHANISMS as DEFAULT_MECHANISMS, SPARSE_MECHANISMS as SPARSE_MECHANISMS
from .setting import make_setting, plan_notes
from .simulation import Setting, Simulator
from .standin import MONOTONE_TARGETS, Standin
from .targets import PLAN_INTERVAL as PLAN_INTERVAL, share_meets, target_words

#: a mechanism whose first guess is more than this many grid steps above the best one's (2x) is not searched in
#: full: its pilot guess stands in the candidates table and the frontier still draws it
PRUNE_STEPS = 6
#: repetitions of each frontier point away from the plans, and the most points per mechanism
FRONTIER_REPS = 20
FRONTIER_POINTS = 8


# ---------------------------------------------------------------------------------------------------------------
# The plan


@dataclass(frozen=True)
class Plan:
    """The answer of :func:`plan`.

    Parameters
    ----------
    epsilon : float
        The smallest total epsilon on the grid at which ``mechanism`` with ``budget`` meets every target in at least
        ``confidence`` of ``reps`` simulated releases: ``math.inf`` when no candidate does up to the largest epsilon
        searched.
    mechanism : str or None
    budget : BudgetSplit or None
    frontier : pandas.DataFrame
        One row per mechanism (with its best split) and epsilon: ``share`` of simulated releases meeting every target
        with its 95% interval (``low``, ``high``) over ``reps``, ``meets`` (share >= confidence), for each target the
        share meeting it (``met: <target>``) and the median metric (``median: <target>``), ``winner`` (the highest
        share at that epsilon) and ``planned`` (the mechanism's own plan).
    candidates : pandas.DataFrame
        Every (mechanism, split) tried: its pilot guess and, where searched in full, its planned epsilon.
    share, interval, reps
        At the plan: the share of releases meeting every target, its 95% interval, the repetitions.
    default_epsilon : float or None
        The winning mechanism's planned epsilon with the default split (10% to each optional part).
    total_epsilon : float
        ``epsilon`` composed with the stand-in's own cost when it was released now and with the ``earlier`` releases
        from the same rows the plan was told of (``spent``; else ``epsilon``).

    mechanism : str or None
        The mechanism of the plan (None when no candidate meets the targets).
    budget : BudgetSplit or None
        Its budget split (the subspace's share and any part a target needs).
    confidence, targets, delta
        As given to :func:`plan`.
    standin : Standin
        The public stand-in the releases were simulated on.
    settings : dict
        The public settings the plan holds for (n, d, k, relation, radius rule, centring), to compare with the
        scenario's.
    notes : tuple of str
        What the plan says in words beside its numbers (e.g. a target it could not meet).
    releases_simulated : int
        How many releases the search simulated in all.
    earlier : int
        How many earlier releases (``spent``) ``total_epsilon`` composes.
    refusal : str or None
        Why no promise can be made on this stand-in, in words (e.g. its noise band leaves the top k undistinguished
        from the rest), with what would make one possible; None when the plan is a promise or found no candidate.

    Examples
    --------
    >>> import dppca_core as dc
    >>> answer = dc.plan({"subspace_distance": 0.3}, n=5000, d=10, k=2, spectrum=[4, 2] + [0.1] * 8,
    ...                  mechanisms=["analyze_gauss"], reps=20, seed=0)
    >>> isinstance(answer, dc.Plan), answer.confidence, answer.reps
    (True, 0.9, 20)
    """

    epsilon: float
    mechanism: str | None
    budget: BudgetSplit | None
    frontier: pd.DataFrame
    candidates: pd.DataFrame
    share: float | None
    interval: tuple
    reps: int
    confidence: float
    targets: dict
    delta: float
    standin: Standin
    default_epsilon: float | None
    total_epsilon: float
    settings: dict
    notes: tuple = ()
    releases_simulated: int = 0
    earlier: int = 0
    refusal: str | None = None

    @property
    def reachable(self) -> bool:
        return math.isfinite(self.epsilon)

    def target_words(self) -> str:
        return target_words(self.targets, self.confidence)

    def describe(self) -> list[str]:
        """The plan in a few plain sentences."""
        if self.refusal:
            return [self.refusal, *self.notes]
        if not self.reachable:
            advice = "loosen a target, lower the confidence, or plan for more rows"
            if self.standin.banded:
                advice = f"spend more ε on the stand-in (a narrower band), state a spectrum, or {advice}"
            where = "on every spectrum this stand-in is consistent with" if self.standin.banded else "on this stand-in"
            return [
                f"No mechanism tried meets {self.target_words()} up to ε = {self.settings['max_epsilon']:g} "
                f"{where} ({self.standin.describe()}): {advice}.",
                *self.notes,
            ]
        lo, hi = self.interval
        out = [
            f"Planned for {self.target_words()}: {display_name(self.mechanism)} at ε = {self.epsilon:g} "
            f"(δ = {self.delta:g}), budget split {split_words(self.budget)}.",
            f"In {self.reps} simulated releases on the stand-in, {100 * self.share:.0f}% met every target (95% "
            f"interval {100 * lo:.0f}% to {100 * hi:.0f}%); the stand-in is {self.standin.describe()}.",
        ]
        if self.default_epsilon is not None and self.default_epsilon > self.epsilon * (1 + 1e-9):
            out.append(
                f"With the default split (10% to each optional part) the same mechanism needs ε = "
                f"{self.default_epsilon:g}."
            )
        if self.total_epsilon > self.epsilon * (1 + 1e-9):
            counted = "the stand-in's own cost" if self.standin.cost is not None else ""
            if self.earlier:
                counted += (" and " if counted else "") + (
                    f"{self.earlier} earlier release" f"{'s' if self.earlier > 1 else ''} from the same rows"
                )
            out.append(f"With {counted} the total is ε = {self.total_epsilon:.3g}.")
        return out + list(self.notes)


def split_words(split: BudgetSplit | None) -> str:
    if split is None:
        return "-"
    parts = [f"{part} {100 * value:.0f}%" for part, value in split.as_dict().items() if value > 0]
    return ", ".join(parts)


def _curve_at(kind: str, epsilon: float, delta: float) -> PrivacyCurve:
    if kind == "gdp":
        return PrivacyCurve.gdp(gaussian_mu(epsilon, delta))
    if kind == "pure":
        return PrivacyCurve.pure(epsilon)
    return PrivacyCurve.approx(epsilon, delta)


def _total_epsilon(s: Setting, mech: str, epsilon: float, spent=()) -> float:
    """The plan's epsilon composed with the stand-in's own release (when it was released now from the data) and the
    ``spent`` curves (earlier releases from the same rows), read at the plan's delta plus any delta they spent."""
    costs = [c for c in [s.standin.cost_curve(), *spent] if c is not None]
    if not costs or not math.isfinite(epsilon):
        return epsilon
    kind = release_curve_kind(mech, s.mech_params(mech))
    curves = [*costs, _curve_at(kind, epsilon, s.delta)]
    gaussian = any(c.kind == "gdp" for c in curves)
    spent = sum(c.delta for c in curves if c.kind == "approx") + (s.delta if gaussian else 0.0)
    together = compose(curves, delta=spent if gaussian else None)
    return together.epsilon_at(spent) if spent > 0 else together.epsilon


def _frontier(sim: Simulator, best: dict) -> pd.DataFrame:
    """Each mechanism's chance of meeting the targets on a common grid around the plans (the planned points with
    all their repetitions), the winner at each epsilon marked."""
    s = sim.s
    grid = s.grid()
    top = len(grid) - 1
    planned = [f.index for f in best.values() if f.index is not None]
    anchors = planned or [f.pilot for f in best.values()]
    low, high = max(0, min(anchors) - 6), min(top, max(anchors) + 3)
    step = max(1, math.ceil((high - low) / (FRONTIER_POINTS - 1)))
    indices = sorted(set(range(low, high + 1, step)) | set(planned))
    rows = []
    for mech, found in best.items():
        for i in indices:
            reps = s.reps if i == found.index else min(FRONTIER_REPS, s.reps)
            key = (mech, found.split, float(grid[i]))
            reps = max(reps, min(len(sim._memo.get(key, [])), s.reps))
            values = sim.values(mech, found.split, grid[i], reps)
            rows.append(_frontier_row(sim, mech, found, i, values))
    frame = pd.DataFrame(rows)
    frame["winner"] = False
    for _, group in frame.groupby("epsilon"):
        order = group.sort_values(["share", "rank"], ascending=[False, True])
        if order.iloc[0]["share"] > 0:
            frame.loc[order.index[0], "winner"] = True
    return frame.drop(columns="rank").sort_values(["mechanism", "epsilon"]).reset_index(drop=True)


def _frontier_row(sim: Simulator, mech: str, found: Found, i: int, values: np.ndarray) -> dict:
    s = sim.s
    met = sim.met(values)
    count, reps = int(met.all(axis=1).sum()), len(values)
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    row = {
        "mechanism": mech,
        "title": display_name(mech),
        "split": split_words(found.split),
        "epsilon": float(s.grid()[i]),
        "reps": reps,
        "share": count / reps,
        "low": float(lo[0]),
        "high": float(hi[0]),
        "meets": bool(share_meets([count], reps, s.confidence)[0]),
        "planned": i == found.index,
    }
    for t, name in enumerate(sim.names):
        row[f"met: {name}"] = float(met[:, t].mean())
        row[f"median: {name}"] = float(np.nanmedian(values[:, t])) if np.isfinite(values[:, t]).any() else math.nan
    row["rank"] = s.mechanisms.index(mech)
    return row


def _plan_from_setting(s: Setting) -> Plan:
    simulated, _ = s.standin.targets_for(s.targets, s.k)
    if s.standin.banded and s.standin.gap(s.k) <= 0 and any(t in MONOTONE_TARGETS for t, _ in simulated):
        return _refused(s)  # the top k may not be told from the rest: no subspace or support can be promised
    sim = Simulator(s)
    grid = s.grid()
    best, tried = _search_every_mechanism(sim)
    ranked = sorted(
        (f for f in best.values() if f.index is not None),
        key=lambda f: (f.index, -f.checked[f.index][0], s.mechanisms.index(f.mech)),
    )
    winner = ranked[0] if ranked else None
    default_eps = None if winner is None else _default_split_epsilon(sim, winner, tried)
    frontier = _frontier(sim, best)
    candidates = pd.DataFrame(
        [
            {
                "mechanism": m,
                "title": display_name(m),
                "split": split_words(sp),
                "first guess ε": float(grid[p]),
                "searched": f.searched,
                "planned ε": math.inf if f.index is None else float(grid[f.index]),
            }
            for m, sp, p, f in tried
        ]
    )
    settings = _settings(s, sim.engine)
    notes = plan_notes(s)
    if winner is None:
        return _no_plan(s, frontier, candidates, settings, notes, sim.releases)
    count, reps = winner.checked[winner.index]
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    epsilon = float(grid[winner.index])
    return Plan(
        epsilon,
        winner.mech,
        winner.split,
        frontier,
        candidates,
        count / reps,
        (float(lo[0]), float(hi[0])),
        reps,
        s.confidence,
        s.target_map,
        s.delta,
        s.standin,
        default_eps,
        _total_epsilon(s, winner.mech, epsilon),
        settings,
        tuple(notes),
        sim.releases,
    )


def _refused(s: Setting) -> Plan:
    """The plan declined without simulating: the stand-in's band leaves the top k variances undistinguished from the
    rest, so no epsilon could be promised on it."""
    k, standin = s.k, s.standin
    lo, hi = np.asarray(standin.low), np.asarray(standin.high)
    centre = (lo + hi) / 2.0
    wide = float(hi[k] - lo[k - 1] + max(centre[k - 1] - centre[k], 0.0))
    room = max(float(centre[k - 1] - centre[k]), 0.0)
    factor = f" (its band would have to be about {wide / room:.2g} times narrower)" if room > 0 else ""
    words = (
        f"This stand-in cannot support a promise: {standin.band_words(k)}, so variance {k} may be no larger than "
        f"variance {k + 1}, the top {k} direction{'s' if k > 1 else ''} may not be told from the rest, and no ε can "
        f"promise {target_words(s.target_map, s.confidence)}"
        + (
            " (a captured energy is promised on a noisy stand-in through the subspace distance that guarantees it)"
            if "energy" in s.target_map
            else ""
        )
        + f". Spend more ε on it{factor}, state a spectrum, or give a previous release."
    )
    empty = pd.DataFrame(columns=["mechanism", "title", "split", "epsilon", "reps", "share", "low", "high", "meets"])
    return _no_plan(
        s,
        empty.assign(winner=False, planned=False),
        pd.DataFrame(columns=["mechanism", "title", "split", "first guess ε", "searched", "planned ε"]),
        _settings(s, "none"),
        plan_notes(s),
        0,
        refusal=words,
    )


def _no_plan(s: Setting, frontier, candidates, settings: dict, notes, releases: int, refusal=None) -> Plan:
    """The plan that names no mechanism (none meets the targets, or ``refusal`` says why none was sought): its
    epsilon infinite, with the setting's reps, confidence, targets, delta and stand-in."""
    return Plan(
        math.inf,
        None,
        None,
        frontier,
        candidates,
        None,
        (0.0, 0.0),
        s.reps,
        s.confidence,
        s.target_map,
        s.delta,
        s.standin,
        None,
        math.inf,
        settings,
        tuple(notes),
        releases,
        refusal=refusal,
    )


def _settings(s: Setting, engine: str) -> dict:
    """The setting a plan was found for, as plain values (:attr:`Plan.settings`)."""
    return {
        "n": s.n,
        "d": s.d,
        "k": s.k,
        "neighbors": s.neighbors,
        "data_norm": s.data_norm,
        "radius": s.radius,
        "center": s.center,
        "parts": list(s.parts),
        "mechanisms": list(s.mechanisms),
        "sparsity": s.sparsity,
        "seed": s.seed,
        "max_epsilon": s.max_epsilon,
        "engine": engine,
        "params": dict(s.params),
        "reps": s.reps,
    }


def _search_every_mechanism(sim: Simulator) -> tuple[dict, list]:
    """({mechanism: its best :class:`Found`}, every (mechanism, split, first guess, found) tried): each mechanism's
    first guess over the candidate splits, then a full search unless it is far behind the best first guess."""
    guesses = {mech: explore_splits(sim, mech) for mech in sim.s.mechanisms}
    lowest = min(pilot for _, pilot, _ in guesses.values())
    best, tried = {}, []
    for mech, (split, pilot, _) in guesses.items():
        if pilot > lowest + PRUNE_STEPS:  # far behind on its first guess: not searched in full
            best[mech] = Found(mech, split, None, pilot, searched=False)
        else:
            best[mech] = search_epsilon(sim, mech, split, pilot)
        tried.append((mech, split, pilot, best[mech]))
    return best, tried


def _default_split_epsilon(sim: Simulator, winner: Found, tried: list) -> float:
    """The epsilon the winning mechanism needs with the default split (searched, and added to ``tried``, unless it
    won with that split; inf when none on the grid meets the targets)."""
    grid = sim.s.grid()
    default = split_of(default_shares(sim.s))
    if winner.split == default:
        return float(grid[winner.index])
    other = search_epsilon(sim, winner.mech, default, winner.index)
    tried.append((winner.mech, default, other.pilot, other))
    return math.inf if other.index is None else float(grid[other.index])


@functools.lru_cache(maxsize=32)
def cached_plan(s: Setting) -> Plan:
    return _plan_from_setting(s)


def plan(
    targets: dict,
    *,
    n: int,
    d: int,
    k: int,
    spectrum=None,
    standin: Standin | None = None,
    delta: float = 1e-6,
    confidence: float = 0.9,
    neighbors: str = "replace",
    data_norm=1.0,
    radius_rule: RadiusRule | None = None,
    center: str = "none",
    parts=(),
    mechanisms=None,
    mechanism_params: dict | None = None,
    sparsity: int | None = None,
    reps: int | None = None,
    seed: int = 0,
    max_epsilon: float = 100.0,
    spent=(),
) -> Plan:
    """The smallest total epsilon, the mechanism and the budget split that meet every target in ``confidence`` of
    releases, from public facts only (no data matrix).

    Parameters
    ----------
    targets : dict
        Any of ``subspace_distance`` (at most), ``energy`` (captured energy at least this fraction of the optimum),
        ``f1`` (support recovery F1 at least; needs a stand-in with a planted support, or ``sparsity``),
        ``explained_variance_error`` (largest error of the k released explained-variance ratios, at most; adds an
        eigenvalue part), ``score_readability`` (the score plot's noise-to-signal ratio at most, True for the
        dashboard's 0.5; adds a score-plot part). E.g. ``{"subspace_distance": 0.3}``.
    n, d, k : int
        Rows (public under replace-one; under add/remove a released noisy count or a public estimate), features,
        components.
    spectrum : array-like, optional
        The rows' covariance eigenvalues in the data's units (d of them): the stand-in when ``standin`` is not given.
    standin : Standin, optional
        The public stand-in (:class:`Standin`: a law, a published release, a private spectrum whose cost is added).
    delta, neighbors, data_norm
        As for :func:`dppca_core.release_pca`; ``data_norm="private"`` with ``radius_rule`` (a
        :class:`dppca_core.pipeline.experiments.RadiusRule`) chooses R inside each release from a radius share.
    center : {"none", "private"}
        "private": each release centres with a private mean from a mean share (the stand-in's mean is used).
    parts : iterable of str
        Optional parts to release even without a target on them ("eigenvalues", "scores").
    mechanisms : iterable of str, optional
        The mechanisms to compare (default :data:`DEFAULT_MECHANISMS`, plus DPS-PCA for an F1 target), each with
        ``mechanism_params[name]``.
    confidence : float
        The share of releases that must meet every target, in [0.5, 0.995].
    reps : int, optional
        Repetitions per checked epsilon (default :func:`default_reps`).
    seed : int
        The simulation's seed (the plan is reproducible; releases you publish still use fresh randomness).
    max_epsilon : float
        The largest epsilon searched (at most 100).
    spent : iterable of PrivacyCurve
        Other releases already drawn from the same rows (e.g. earlier private stand-ins): composed into
        ``total_epsilon`` (counted in ``earlier``), not part of the simulation.

    radius_rule : RadiusRule, optional
        With ``data_norm="private"``: the public bounds and quantile of the private radius.
    mechanism_params : dict, optional
        Mechanism name -> its own parameters for the simulated releases.
    sparsity : int, optional
        The support size s of an F1 target, when the stand-in plants no support.

    Returns
    -------
    Plan
        The smallest total epsilon with the mechanism and budget split that reach it, the frontier of every mechanism
        and epsilon checked, and the settings the plan holds for (``inf`` when nothing meets the targets).

    Raises
    ------
    ValueError
        In words: an unknown target or one out of range, a stand-in whose d is not ``d``, a confidence outside
        [0.5, 0.995], or a setting the simulation cannot follow.

    Examples
    --------
    >>> import dppca_core as dc
    >>> answer = dc.plan({"subspace_distance": 0.3}, n=5000, d=10, k=2, spectrum=[4, 2] + [0.1] * 8,
    ...                  mechanisms=["analyze_gauss"], reps=20, seed=0)
    >>> answer.mechanism, answer.epsilon
    ('analyze_gauss', 0.05)
    """
    facts = dict(locals())  # every argument (and nothing else yet): the setting checks all but the earlier releases
    spent = list(facts.pop("spent") or ())
    s = make_setting(**facts)
    if not all(isinstance(c, PrivacyCurve) for c in spent):
        raise ValueError("spent holds the privacy curves of earlier releases from the same rows (release.privacy).")
    found = cached_plan(s)
    found = replace(found, frontier=found.frontier.copy(), candidates=found.candidates.copy())
    if spent and found.reachable:
        found = replace(
            found, total_epsilon=_total_epsilon(s, found.mechanism, found.epsilon, spent), earlier=len(spent)
        )
    return found

"""The simulation of a plan: fresh releases on draws from the stand-in (or on fixed rows), scored against the
exact PCA of their own draw, memoised, and the theory rates that extrapolate them to another epsilon."""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass

import numpy as np

from .. import metrics, theory
from ..pipeline.budget import BudgetSplit, allocate, release_curve_kind, release_with
from ..pipeline.inputs import RadiusRule, Reference, input_for, release_input
from ..pipeline.options import ReleaseOptions
from ..data.prepare import PreparedData
from ..registry import get_mechanism
from ..pipeline.scores import noise_to_signal

from .standin import Standin
from .targets import TARGETS, share_meets

#: the epsilon grid of every search: 20 points per decade (neighbours 12% apart) from 0.01 to 100
EPS_GRID = np.array([float(f"{v:.2g}") for v in np.logspace(-2.0, 2.0, 81)])
#: how far below the epsilon it was measured at a repetition with no error at all is taken to meet its target (a
#: factor 10^(8/20) = 2.5): the rates cannot extrapolate an error of 0
UNKNOWN_STEPS = 8
#: memory (bytes) the row draws of one plan may keep between evaluations; beyond it they are drawn again
ROWS_MEMORY = 250_000_000


# ---------------------------------------------------------------------------------------------------------------
# The simulation


@dataclass(frozen=True)
class Setting:
    """Everything a plan depends on, hashable (the cache key)."""

    targets: tuple
    n: int
    d: int
    k: int
    standin: Standin
    delta: float
    confidence: float
    neighbors: str
    data_norm: object
    radius: tuple | None
    center: str
    parts: tuple
    mechanisms: tuple
    params: tuple
    sparsity: int | None
    reps: int
    seed: int
    max_epsilon: float

    @property
    def target_map(self) -> dict:
        return dict(self.targets)

    def mech_params(self, mech: str) -> dict:
        return json.loads(dict(self.params).get(mech, "{}"))

    def grid(self) -> np.ndarray:
        return EPS_GRID[EPS_GRID <= self.max_epsilon * (1 + 1e-9)]


@dataclass
class _Draw:
    """One repetition's data: what the release reads, what the draw asks of every release (its radius and centring:
    the other options come from the plan's search), and the exact PCA."""

    X: object
    options: ReleaseOptions
    reference: Reference
    support: tuple | None = None


class Simulator:
    """Releases on draws from the stand-in (or on fixed rows), scored and memoised per (mechanism, split, epsilon)."""

    def __init__(self, s: Setting, rows=None, support=None):
        self.s = s
        self.rows = rows
        self.support = support
        self.engine = "rows" if rows is not None else _engine(s)
        self._draws: dict = {}
        self._memo: dict = {}
        self._scales: dict = {}
        self.releases = 0
        # the targets simulated: the plan's, or on a noisy stand-in those that guarantee them on its whole band
        self.targets, self.notes = (s.targets, []) if rows is not None else s.standin.targets_for(s.targets, s.k)
        self.names = [name for name, _ in self.targets]
        self.thresholds = np.array([TARGETS[name].error(v) for name, v in self.targets], dtype=float)
        self.powers = np.array([TARGETS[name].power for name in self.names])
        # the spectra every repetition runs on (the band of a noisy stand-in: :meth:`Standin.consistent`); a
        # repetition meets a target only if it does on each of them, with the same release noise (common numbers)
        self.members = [s.standin] if rows is not None else s.standin.consistent(s.k, self.names)
        cache_rows = self.engine == "rows" and rows is None
        self._keep = not cache_rows or 16.0 * s.n * s.d * s.reps * len(self.members) <= ROWS_MEMORY

    # -- data ----------------------------------------------------------------------------------------------------

    def draw(self, rep: int, member: int = 0) -> _Draw:
        """Repetition ``rep``'s data on spectrum ``member``: a fresh draw from the stand-in (its own seed, the same
        for every member), the stand-in's own table (``fixed``: the same Gram matrix for every repetition), or the
        fixed rows."""
        fixed_gram = self.rows is None and self.engine == "gram" and self.members[member].fixed
        key = "fixed" if self.rows is not None else ("gram", member) if fixed_gram else (rep, member)
        if key in self._draws:
            return self._draws[key]
        made = self._rows_draw(self.rows, self.support) if self.rows is not None else self._new_draw(rep, member)
        if self.rows is not None or fixed_gram or self._keep:
            self._draws[key] = made
        return made

    def _new_draw(self, rep: int, member: int) -> _Draw:
        s = self.s
        rng = np.random.default_rng(np.random.SeedSequence([s.seed, rep, 0]))
        standin = self.members[member]
        if self.engine == "gram":
            if standin.fixed:
                gram = _fixed_gram(standin, s.n, float(s.data_norm))
            else:
                gram = _wishart(standin, s.n, float(s.data_norm), rng)
            gram.setflags(write=False)
            data = PreparedData(s.n, s.d, 1.0, gram=gram)
            return _Draw(data, ReleaseOptions(data_norm=1.0), Reference.from_gram(gram), standin.support)
        radius = float(s.data_norm) if s.data_norm != "private" else None
        rows = standin.exact_rows(s.n, rng, radius) if standin.fixed else standin.draw_rows(s.n, rng)
        return self._rows_draw(rows, standin.support)

    def _rows_draw(self, rows, support=None) -> _Draw:
        s = self.s
        rule = RadiusRule(*s.radius).release_args() if s.radius is not None else {}
        asked = ReleaseOptions(data_norm=s.data_norm, center=s.center, **rule)
        inp = input_for(rows, asked)
        X, options = release_input(inp, asked)
        return _Draw(X, options, inp.reference, support)

    # -- releases ------------------------------------------------------------------------------------------------

    def values(self, mech: str, split: BudgetSplit, epsilon: float, reps: int) -> np.ndarray:
        """reps x targets: each repetition's metric values at ``epsilon`` (computed once, extended on demand)."""
        key = (mech, split, float(epsilon))
        done = self._memo.setdefault(key, [])
        for rep in range(len(done), reps):
            scored = [
                self._score(self._release(mech, split, epsilon, rep, m), self.draw(rep, m))
                for m in range(len(self.members))
            ]
            done.append(self._worst(np.asarray(scored, dtype=float)))
        return np.asarray(done[:reps], dtype=float).reshape(reps, len(self.names))

    def _worst(self, scored: np.ndarray) -> list:
        """members x targets -> each target's worst value over the members (an unknown value, NaN, is the worst)."""
        out = []
        for t, name in enumerate(self.names):
            errors = np.where(np.isnan(scored[:, t]), np.inf, TARGETS[name].error(scored[:, t]))
            out.append(float(scored[int(np.argmax(errors)), t]))
        return out

    def _release(self, mech: str, split: BudgetSplit, epsilon: float, rep: int, member: int = 0):
        s = self.s
        draw = self.draw(rep, member)
        rng = np.random.default_rng(np.random.SeedSequence([s.seed, rep, 1, zlib.crc32(mech.encode())]))
        self.releases += 1
        options = draw.options.replace(
            k=s.k,
            epsilon=float(epsilon),
            delta=s.delta,
            neighbors=s.neighbors,
            budget=split,
            params=s.mech_params(mech),
        )
        return release_with(mech, draw.X, options, rng)

    def _score(self, release, draw: _Draw) -> list:
        s, ref = self.s, draw.reference
        V = release.components
        out = []
        for name in self.names:
            if name == "subspace_distance":
                out.append(metrics.subspace_distance(V, ref.vectors[:, : s.k]))
            elif name == "energy":
                best = float(np.sum(ref.eigenvalues[: s.k]))
                out.append(metrics.captured_energy(V, ref.gram) / best if best > 0 else math.nan)
            elif name == "f1":
                support = draw.support
                if support is None:  # rows without a known support: the top-s rows of their exact components
                    support = metrics.row_support(ref.vectors[:, : s.k], s.sparsity)
                out.append(metrics.support_recovery(V, np.asarray(support, dtype=int), s.sparsity)["f1"])
            elif name == "explained_variance_error":
                out.append(_ratio_error(release, ref, s.k))
            else:
                scores = release.outputs.get("scores")
                out.append(
                    math.nan
                    if scores is None
                    else noise_to_signal(scores["counts"], int(scores["dims"]), release.facts["scores_noise_scale"])
                )
        return out

    # -- what the theory says about another epsilon ------------------------------------------------------------

    def scales(self, mech: str, split: BudgetSplit) -> np.ndarray:
        """targets x grid: the noise scale (a rate, up to a constant) that drives each target at each epsilon."""
        key = (mech, split)
        if key not in self._scales:
            self._scales[key] = _scale_table(self.s, mech, split, self.names)
        return self._scales[key]

    def proposal(self, mech: str, split: BudgetSplit, epsilon: float, values: np.ndarray) -> int:
        """The grid index where, extrapolating each repetition from ``epsilon`` along the rates, the share of
        repetitions meeting every target first reaches the confidence. The last index when none does."""
        grid = self.s.grid()
        S = self.scales(mech, split)
        i = int(np.argmin(np.abs(grid - epsilon)))
        errors = np.column_stack([TARGETS[name].error(values[:, t]) for t, name in enumerate(self.names)])
        first = np.zeros(len(values), dtype=int)
        for t in range(len(self.names)):
            with np.errstate(divide="ignore", invalid="ignore"):
                room = (self.thresholds[t] / errors[:, t]) ** (1.0 / self.powers[t])
            allowed = S[t, i] * np.where(np.isnan(room), -1.0, room)
            ok = S[t][None, :] <= allowed[:, None]
            here = np.where(ok.any(axis=1), ok.argmax(axis=1), len(grid))
            # an error of 0 (a perfect support, say) says nothing of smaller epsilon: one step of UNKNOWN_STEPS down
            here = np.where(errors[:, t] == 0, np.maximum(here, i - UNKNOWN_STEPS), here)
            first = np.maximum(first, here)
        counts = np.array([(first <= j).sum() for j in range(len(grid))])
        reps = len(values)
        good = share_meets(counts, reps, self.s.confidence)
        return int(np.argmax(good)) if good.any() else len(grid) - 1

    def met(self, values: np.ndarray) -> np.ndarray:
        """reps x targets: whether each repetition meets each target."""
        return np.column_stack([TARGETS[name].meets(values[:, t], v) for t, (name, v) in enumerate(self.targets)])


def _engine(s: Setting) -> str:
    """ "gram" (draws of the Gram matrix alone) when nothing of the release reads rows, else "rows"."""
    reads_rows = (
        s.center != "none"
        or s.data_norm == "private"
        or "scores" in s.parts
        or any(get_mechanism(m).needs_rows for m in s.mechanisms)
        or (s.neighbors == "add_remove" and "eigenvalues" in s.parts)
        or s.standin.mean is not None
        or s.n < s.d
    )
    return "rows" if reads_rows else "gram"


def _unit_spectrum(standin: Standin, radius: float) -> np.ndarray:
    """The stand-in's variances per row divided by ``radius``^2; a second moment of trace above 1 scaled down to it,
    as clipping every row to R would."""
    unit = standin.values / radius**2
    return unit / max(1.0, float(unit.sum()))


def _fixed_gram(standin: Standin, n: int, radius: float) -> np.ndarray:
    """The Gram matrix of n rows (divided by ``radius``) whose second moment is exactly the stand-in's: the table the
    stand-in describes (``fixed``), no sampling spread."""
    L = standin.basis_matrix() * np.sqrt(_unit_spectrum(standin, radius))
    G = float(n) * (L @ L.T)
    return (G + G.T) / 2.0


def _wishart(standin: Standin, n: int, radius: float, rng) -> np.ndarray:
    """The Gram matrix of n Gaussian rows of the stand-in divided by ``radius``, from the
    Wishart law; a second moment of trace above R^2 is scaled down to it, as clipping every row to R would. Bartlett's
    decomposition: W = A A^T with A lower triangular, A_ii^2 ~ chi^2(n - i), A_ij ~ N(0, 1) below the diagonal, is
    Wishart(n, I); L W L^T with L = B diag(sqrt(lambda)) / R is Wishart(n, Sigma / R^2))."""
    d = standin.d
    A = np.tril(rng.standard_normal((d, d)), -1)
    A[np.diag_indices(d)] = np.sqrt(rng.chisquare(n - np.arange(d)))
    L = standin.basis_matrix() * np.sqrt(_unit_spectrum(standin, radius))  # rows clipped to R: trace <= 1
    W = L @ A
    G = W @ W.T
    return (G + G.T) / 2.0


def _ratio_error(release, ref: Reference, k: int) -> float:
    ratios = release.outputs.get("explained_variance_ratio")
    trace = float(np.trace(ref.gram))
    if ratios is None or not trace > 0:
        return math.nan
    exact = np.sort(ref.eigenvalues)[::-1][:k] / trace
    got = np.asarray(ratios, dtype=float)[:k]
    return float(np.max(np.abs(got - exact[: got.size]))) if got.size else math.nan


def _scale_table(s: Setting, mech: str, split: BudgetSplit, names: list) -> np.ndarray:
    """targets x grid: the subspace targets follow the mechanism's theory rate at its share's (epsilon, delta)
    (:func:`dppca_core.theory.rate`; 1/mu or 1/epsilon of the share where no rate is known), the eigenvalue and
    score targets the noise scale of their own share. Made non-increasing (more budget never means more noise)."""
    grid = s.grid()
    kind = release_curve_kind(mech, s.mech_params(mech))
    shares = [allocate(split, float(eps), s.delta if kind != "pure" else 0.0, kind) for eps in grid]

    def noise(part: str) -> np.ndarray:
        out = []
        for parts in shares:
            share = parts.get(part) or parts["subspace"]
            out.append(1.0 / share.mu if share.mu else 1.0 / share.epsilon)
        return np.asarray(out)

    subspace = noise("subspace")
    if mech in theory.RATES:
        sub_eps = np.array([parts["subspace"].epsilon for parts in shares])
        sub_delta = shares[0]["subspace"].delta if kind != "pure" else s.delta
        try:
            with np.errstate(all="ignore"):
                rated = theory.rate(
                    mech, "eps", sub_eps, n=s.n, d=s.d, k=s.k, epsilon=1.0, delta=sub_delta, s=s.sparsity
                )
            if np.all(np.isfinite(rated)) and np.all(rated > 0):
                subspace = rated
        except (ValueError, OverflowError, ZeroDivisionError):
            pass
    rows = [subspace if TARGETS[name].part == "subspace" else noise(TARGETS[name].part) for name in names]
    return np.minimum.accumulate(np.asarray(rows, dtype=float), axis=1)

"""Accuracy first: from the errors a user can accept to the smallest total epsilon, the mechanism and the budget split
that meet them, found on a public stand-in for the data, never on its rows.

:func:`plan` takes *targets* (a subspace distance at most a, a captured energy at least b of the optimum, a support
F1 at least c, an explained-variance error at most e, a readable score plot), a *confidence* (the share of releases
that must meet every target) and *public facts*: n (or a released noisy n), d, k, the neighbouring relation, delta,
the clipping radius R (or the rule of a private radius) and a :class:`Standin` for the data (a covariance spectrum,
a spiked or sparse law, a previous publishable release, or a spectrum released privately from a small share of the
budget, counted in the plan). It returns a :class:`Plan`: the smallest epsilon on a log grid (20 points per decade)
at which a mechanism with some budget split meets every target in at least that share of simulated releases, with
the share's Clopper-Pearson interval, and the frontier: each mechanism's chance of meeting the targets against
epsilon, the winner at each epsilon marked.

How
---
* **Simulation.** Each repetition draws fresh data from the stand-in (Gaussian rows with its covariance; with a
  public R and nothing else that reads rows, their Gram matrix straight from the Wishart law, Bartlett's
  decomposition) and runs the complete release (:func:`dppca_core.release_pca`, the very function a release is made
  with) at the candidate epsilon, mechanism and split; each release is scored against the exact PCA of its own
  draw, as the dashboard scores releases against the exact PCA of the user's rows. Repetitions share their data and
  noise seeds across epsilon, mechanisms and splits (common random numbers), so comparisons are sharp and the share
  of releases that meet the targets rises with epsilon.
* **Share.** An epsilon qualifies when the share of ``reps`` simulated releases meeting every target is at least the
  confidence (:func:`default_reps`: enough that the share's standard error is at most a third of what the confidence
  leaves out, e.g. 100 repetitions for 90%); the plan states the share's 95% Clopper-Pearson interval. Asking the
  whole interval to clear the confidence instead would plan for the share's tail: on the iris table, ε = 45 where
  ε = 32 already meets 90% (measured in tests/test_planning.py's calibration).
* **Search.** For each mechanism, over a small set of candidate splits (each optional part of the release at 5, 10,
  20 or 30% of the budget, one part at a time from the default 10%, or 0 for the eigenvalues of a mechanism that
  releases its own), then over epsilon by bisection on the grid. The theory rates start and steer it
  (:func:`dppca_core.theory.first_order_rms` for the first guess; :func:`dppca_core.theory.rate` to extrapolate each
  repetition's error from one epsilon to another: with the split fixed, every Gaussian part's noise scales as
  1/mu(epsilon, delta), so each repetition's error at another epsilon is its own error times the rate's ratio, to
  the metric's power, a per-repetition constant fitted as :func:`dppca_core.theory.fit_rate` fits one to means);
  every answer is checked by simulation at the epsilon it names.
* **Cache.** :func:`plan` is a pure function of its hashable public inputs, memoised (a bounded LRU cache); the same
  question is answered again without simulating.

Privacy of the plan itself: :func:`plan` takes no data matrix. Its stand-in is public (a law, a spectrum someone
states, a release already published), or released now from a share of the budget (:meth:`Standin.private`, which
reads the rows once and whose cost the plan adds to its total), or labelled not private (:meth:`Standin.exact`, for
the data owner's exploration only). :func:`evaluate` checks a plan on rows (the data owner's check, not private).
"""
from __future__ import annotations

import functools
import json
import math
import zlib
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from . import metrics, theory
from .audit.bounds import clopper_pearson_arrays
from .budget import DEFAULT_SHARES, BudgetSplit, allocate, release_curve_kind, release_pca
from .experiments import RadiusRule, Reference, prepare_input, release_input
from .prepare import PreparedData
from .privacy import PrivacyCurve, check_neighbors, compose, gaussian_mu
from .registry import display_name, get_mechanism
from .scores import READABLE_NOISE, noise_to_signal
from .validation import check_delta, check_float_range, check_int_range, check_k, check_positive

__all__ = ["plan", "Plan", "Standin", "StandinTooNoisy", "Target", "TARGETS", "evaluate", "default_reps",
           "target_words", "check_targets", "split_words", "cost_curve", "EPS_GRID", "DEFAULT_MECHANISMS", "SHARE_GRID",
           "PLAN_INTERVAL"]

#: the epsilon grid of every search: 20 points per decade (neighbours 12% apart) from 0.01 to 100
EPS_GRID = np.array([float(f"{v:.2g}") for v in np.logspace(-2.0, 2.0, 81)])
#: a mechanism whose first guess is more than this many grid steps above the best one's (2x) is not searched in
#: full: its pilot guess stands in the candidates table and the frontier still draws it
PRUNE_STEPS = 6
#: how far below the epsilon it was measured at a repetition with no error at all is taken to meet its target (a
#: factor 10^(8/20) = 2.5): the rates cannot extrapolate an error of 0
UNKNOWN_STEPS = 8
#: repetitions of each frontier point away from the plans, and the most points per mechanism
FRONTIER_REPS = 20
FRONTIER_POINTS = 8
#: the mechanisms a plan compares when none are named (central, from the Gram matrix alone, fast); a sparse target
#: (support F1) adds DPS-PCA with one site and its truncation at the support's size
DEFAULT_MECHANISMS = ("analyze_gauss", "private_power", "mod_sulq", "trace_sensitive")
SPARSE_MECHANISMS = ("dps_pca",)
#: the shares each optional part of a release may take in the search (the dashboard's budget sliders allow 0-30%)
SHARE_GRID = (0.05, 0.1, 0.2, 0.3)
#: the confidence of the Clopper-Pearson interval of the share of releases that meet the targets
PLAN_INTERVAL = 0.95
#: repetitions of a pilot evaluation (a first guess) and of each frontier point away from the plans
PILOT_REPS = 30
#: memory (bytes) the row draws of one plan may keep between evaluations; beyond it they are drawn again
ROWS_MEMORY = 250_000_000


# ---------------------------------------------------------------------------------------------------------------
# Targets


@dataclass(frozen=True)
class Target:
    """One kind of target: how its metric is read and which way is better.

    ``power``: the power of the metric's error (``error``) in the noise scale, to first order (the distance is
    linear in the noise; the energy lost and 1 - F1 go with squared sines); ``part``: the part of the release whose
    noise drives it.
    """

    name: str
    label: str
    lower_is_better: bool
    low: float
    high: float
    power: float
    part: str
    unit: str = ""

    def error(self, value):
        """The metric as an error (0 = perfect, the larger the worse)."""
        value = np.asarray(value, dtype=float)
        return value if self.lower_is_better else 1.0 - value

    def meets(self, value, target: float):
        value = np.asarray(value, dtype=float)
        with np.errstate(invalid="ignore"):
            return (value <= target) if self.lower_is_better else (value >= target)

    def words(self, target: float) -> str:
        return f"{self.label} {'≤' if self.lower_is_better else '≥'} {target:g}{self.unit}"


TARGETS = {t.name: t for t in (
    Target("subspace_distance", "subspace distance", True, 0.0, math.inf, 1.0, "subspace"),
    Target("energy", "captured energy", False, 0.0, 1.0, 2.0, "subspace", " of the optimum"),
    Target("f1", "support recovery F1", False, 0.0, 1.0, 2.0, "subspace"),
    Target("explained_variance_error", "explained-variance error", True, 0.0, 1.0, 1.0, "eigenvalues"),
    Target("score_readability", "score plot's noise-to-signal ratio", True, 0.0, math.inf, 1.0, "scores"),
)}
#: the parts of a release a target needs beyond the components
TARGET_PARTS = {"explained_variance_error": "eigenvalues", "score_readability": "scores"}


def check_targets(targets: dict, k: int | None = None, d: int | None = None) -> dict:
    """The targets validated, in the order of :data:`TARGETS` ({name: value}); ValueError in plain words.

    ``score_readability`` may be True (the dashboard's rule: noise at most half the rows of a typical cell of the
    smallest group's cloud, :data:`dppca_core.scores.READABLE_NOISE`).
    """
    if not isinstance(targets, dict) or not targets:
        raise ValueError("give at least one target, e.g. targets={'subspace_distance': 0.3} (a distance of at most "
                         "0.3 from the exact components).")
    unknown = [str(name) for name in targets if name not in TARGETS]
    if unknown:
        raise ValueError(f"unknown target {', '.join(unknown)}: use {', '.join(TARGETS)}.")
    out = {}
    for name, target in TARGETS.items():
        if name not in targets:
            continue
        value = targets[name]
        if name == "score_readability" and value is True:
            value = READABLE_NOISE
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"the {target.label} target must be a number (got {value!r}).")
        high = math.sqrt(min(k, d - k)) if name == "subspace_distance" and k is not None and d is not None \
            else target.high
        if not target.low < value <= high:
            raise ValueError(f"the {target.label} target must lie in ({target.low:g}, {high:.3g}] (got {value:g})"
                             + (": give a fraction, e.g. 0.95 for 95% of the optimum." if name == "energy" else "."))
        out[name] = float(value)
    return out


def target_words(targets: dict, confidence: float) -> str:
    """ "subspace distance ≤ 0.3 in 90% of releases" (targets joined with "and")."""
    parts = [TARGETS[name].words(value) for name, value in check_targets(targets).items()]
    return f"{' and '.join(parts)} in {100 * confidence:.4g}% of releases"


def default_reps(confidence: float) -> int:
    """Repetitions per checked epsilon: 10 / (1 - confidence), at least 100, at most 600. At a share p = confidence
    the binomial standard error sqrt(p (1 - p) / reps) is then at most (1 - confidence) / 3 (0.03 at 90%)."""
    return int(min(600, max(100, math.ceil(round(10.0 / (1.0 - confidence), 6)))))


def _meets(counts, reps: int, confidence: float) -> np.ndarray:
    """Whether each share counts / reps reaches the confidence."""
    return np.asarray(counts) >= math.ceil(round(confidence * reps, 9))


# ---------------------------------------------------------------------------------------------------------------
# The stand-in


def _tuple(values) -> tuple:
    return tuple(float(v) for v in np.asarray(values, dtype=float).ravel())


def cost_curve(cost: tuple) -> PrivacyCurve:
    """The privacy curve of a stand-in's ``cost`` (:meth:`PrivacyCurve.as_dict` items)."""
    spec = dict(cost)
    kind = spec.pop("kind")
    return PrivacyCurve.gdp(spec["mu"]) if kind == "gdp" else PrivacyCurve(kind, **spec)


@dataclass(frozen=True)
class Standin:
    """A public stand-in for the data: the covariance of the rows (their second moment where the analysis is not
    centred) as eigenvalues in the data's units (before clipping to R), the eigenvectors (None: the coordinate axes,
    which every rotation-invariant mechanism treats alike), a planted row support for sparse targets, a mean (for a
    privately centred analysis), where it came from and what it cost.

    ``privacy`` is "public" (a law, a stated spectrum, a release already published: planning on it costs nothing),
    "private" (released now from the data with ``cost``, its privacy curve as :meth:`PrivacyCurve.as_dict` items,
    which the plan adds to its total) or "not private" (read from the data without noise: exploration only).
    ``spread``: the standard deviation of each eigenvalue when they were released with noise (None: known exactly);
    each simulated repetition then draws its own spectrum around them (a parametric bootstrap), so the plan covers
    what the noisy stand-in does not pin down.
    """

    eigenvalues: tuple
    basis: tuple | None = None
    support: tuple | None = None
    mean: tuple | None = None
    source: str = "a stated covariance spectrum"
    privacy: str = "public"
    cost: tuple | None = None
    notes: tuple = ()
    spread: tuple | None = None

    def __post_init__(self):
        values = np.asarray(self.eigenvalues, dtype=float)
        if values.ndim != 1 or values.size < 2 or not np.all(np.isfinite(values)) or np.any(values < 0) \
                or not values.sum() > 0:
            raise ValueError("a stand-in spectrum is a list of at least two finite variances >= 0, not all zero "
                             f"(got {[float(v) for v in np.round(values, 6)][:10]}).")
        if np.any(np.diff(values) > 0):
            raise ValueError("the stand-in's eigenvalues must be in descending order (Standin.from_spectrum sorts "
                             "them).")
        if self.basis is not None and np.asarray(self.basis).shape != (values.size, values.size):
            raise ValueError("the stand-in's basis must be d x d.")
        if self.mean is not None and len(self.mean) != values.size:
            raise ValueError("the stand-in's mean must have d entries.")
        if self.spread is not None and (len(self.spread) != values.size or not all(v >= 0 for v in self.spread)):
            raise ValueError("the stand-in's spread must hold one standard deviation >= 0 per eigenvalue.")
        if self.privacy not in ("public", "private", "not private"):
            raise ValueError(f"privacy must be 'public', 'private' or 'not private' (got {self.privacy!r}).")

    @property
    def d(self) -> int:
        return len(self.eigenvalues)

    @property
    def values(self) -> np.ndarray:
        return np.asarray(self.eigenvalues, dtype=float)

    def basis_matrix(self) -> np.ndarray:
        return np.eye(self.d) if self.basis is None else np.asarray(self.basis, dtype=float)

    def mean_vector(self) -> np.ndarray:
        return np.zeros(self.d) if self.mean is None else np.asarray(self.mean, dtype=float)

    def cost_curve(self) -> PrivacyCurve | None:
        return None if self.cost is None else cost_curve(self.cost)

    def spectrum_draw(self, rng) -> np.ndarray:
        """The eigenvalues of one repetition: the stand-in's, or drawn around them with ``spread`` (floored at 0,
        descending)."""
        if self.spread is None:
            return self.values
        drawn = self.values + np.asarray(self.spread) * rng.standard_normal(self.d)
        return np.sort(np.maximum(drawn, 0.0))[::-1]

    def repetition(self, rng) -> "Standin":
        """The stand-in one simulated repetition uses: its eigenvalues drawn around the stand-in's (``spread``), else
        itself."""
        if self.spread is None:
            return self
        return replace(self, eigenvalues=_tuple(self.spectrum_draw(rng)), spread=None)

    def draw_rows(self, n: int, rng) -> np.ndarray:
        """n Gaussian rows with the stand-in's mean and covariance, in the data's units (not clipped)."""
        Z = rng.standard_normal((int(n), self.d)) * np.sqrt(self.values)
        rows = Z @ self.basis_matrix().T if self.basis is not None else Z
        return rows + self.mean_vector() if self.mean is not None else rows

    # -- constructors ------------------------------------------------------------------------------------------

    @classmethod
    def from_spectrum(cls, values, d: int | None = None, total: float | None = None,
                      source: str = "a stated covariance spectrum", spread: float | None = None) -> "Standin":
        """From eigenvalues (data units, any order). Fewer than ``d`` values need ``total`` (the trace): the rest of
        it is spread evenly over the other d - len(values) directions (stated in ``notes``: if the next variance is
        larger, the stand-in's eigengap is too wide and the plan optimistic). ``spread``: the standard deviation of each
        given value (released with noise), the tail's being that of the total shared among its directions."""
        values = np.sort(np.asarray(values, dtype=float).ravel())[::-1]
        given = values.size
        d = values.size if d is None else check_int_range(d, "d", 2)
        notes = []
        if values.size > d:
            raise ValueError(f"the spectrum has {values.size} values for d = {d} features.")
        if values.size < d:
            if total is None:
                raise ValueError(f"the spectrum has {values.size} values for d = {d} features: give the total variance "
                                 "(total=...) to spread the rest over the other directions, or all d values.")
            rest = max(float(total) - float(values.sum()), 0.0) / (d - given)
            values = np.sort(np.r_[values, np.full(d - given, rest)])[::-1]
            notes.append(f"The {d - given} variances beyond the {given} given were taken equal (the rest of the total "
                         "spread evenly): if the largest of them is larger, the real eigengap is narrower and the plan "
                         "optimistic.")
        if np.any(values < 0):
            notes.append("negative variances (noise in a released spectrum) were raised to 0.")
            values = np.sort(np.maximum(values, 0.0))[::-1]
        sd = None
        if spread is not None:
            sd = np.full(d, float(spread))
            sd[given:] = float(spread) / max(d - given, 1)
        return cls(_tuple(values), source=source, notes=tuple(notes), spread=None if sd is None else _tuple(sd))

    @classmethod
    def from_law(cls, law, source: str | None = None) -> "Standin":
        """From a synthetic law (:class:`dppca_core.datasets.SyntheticData`: its covariance, planted support and
        public scaling; the rows it drew are not read)."""
        cov = np.asarray(law.covariance, dtype=float)
        values, vectors = np.linalg.eigh((cov + cov.T) / 2.0)
        order = np.argsort(values)[::-1]
        values, vectors = np.maximum(values[order], 0.0), vectors[:, order]
        support = np.asarray(law.support)
        sparse = support.size < cov.shape[0]
        return cls(_tuple(values), basis=tuple(map(_tuple, vectors)), support=_tuple(support) if sparse else None,
                   source=source or f"the law of the {law.name} data ({law.description})")

    @classmethod
    def spiked(cls, d: int, k: int, spike: float = 10.0, eigengap: float | None = None, noise: float = 1.0,
               sparsity: int | None = None, data_norm: float = 1.0, seed: int = 0) -> "Standin":
        """The spiked (optionally row-sparse) law of :func:`dppca_core.datasets.spiked_covariance`, with its public
        scaling to the radius ``data_norm``; ``seed`` draws its planted directions (and support). A sparse direction's
        entries decide how hard its support is to find: a plan holds for the directions of this law."""
        from .synthetic import spiked_covariance

        law = spiked_covariance(n=2, d=d, k=k, spike=spike, eigengap=eigengap, noise=noise, sparsity=sparsity,
                                seed=seed, data_norm=data_norm)
        return cls.from_law(law, source=f"a spiked law: {law.description}")

    @classmethod
    def from_release(cls, published: dict, n: float | None = None) -> "Standin":
        """From a previous publishable release: one :func:`dppca_core.publish` output, or a publishable file (its
        release that publishes the most variances). Its variances along the released components (and its total
        variance, for the directions it did not release) are sums over the rows clipped to its R and divided by it:
        divided by n (its public n, its published noisy count, or ``n``) and times R^2, they are per-row variances in
        the data's units; their published noise scale is the stand-in's ``spread``. Already published: planning on
        it costs nothing more."""
        pub = _release_entry(published)
        params = pub.get("parameters", {})
        count = n if n is not None else params.get("n") or pub.get("outputs", {}).get("count")
        if not count or count <= 0:
            raise ValueError("this release does not publish n (add/remove neighbours): give n=..., e.g. a released "
                             "noisy count.")
        R = float(params.get("data_norm", 1.0))
        d = int(params.get("d", len(pub["components"])))
        eig = pub.get("eigenvalues")
        if not eig:
            raise ValueError("this release publishes no variances: draw one with an eigenvalue share "
                             "(BudgetSplit.with_extras(eigenvalues=...)) to plan from it.")
        total = pub.get("outputs", {}).get("total_variance")
        scale = R * R / float(count)
        noise = pub.get("facts", {}).get("eigenvalue_noise_scale")
        made = cls.from_spectrum(np.asarray(eig, dtype=float) * scale, d=d,
                                 total=None if total is None else float(total) * scale,
                                 spread=None if noise is None else float(noise) * scale,
                                 source=f"a published release ({display_name(pub.get('mechanism', ''))}, ε = "
                                        f"{pub.get('epsilon', float('nan')):g}, {len(eig)} variances)")
        mean = pub.get("outputs", {}).get("mean")
        return replace(made, mean=_tuple(mean) if mean is not None else None)

    @classmethod
    def private(cls, X, epsilon: float, delta: float = 1e-6, *, data_norm: float = 1.0, neighbors: str = "replace",
                center: str = "none", seed=None, eigenvalue_share: float = 0.5) -> "Standin":
        """A spectrum released now from the rows ``X`` with (``epsilon``, ``delta``) of budget: Analyze Gauss with all
        d components and an eigenvalue share (and a mean share when ``center="private"``), read as
        :meth:`from_release`. This reads the rows once; the stand-in records its privacy curve, and a plan on it adds
        that to its total. Under add/remove (n private) it always releases a private mean, whose noisy row count
        converts its sums to per-row variances."""
        X = np.asarray(X, dtype=float)
        if neighbors == "add_remove":
            center = "private"
        extras = {"eigenvalues": eigenvalue_share, "mean": 0.1 if center == "private" else 0.0}
        release = release_pca("analyze_gauss", X, X.shape[1], epsilon, delta, neighbors, data_norm, seed,
                              budget=BudgetSplit.with_extras(**extras), center=center)
        cost = tuple(release.privacy.as_dict().items())
        published = release.published()
        if not max(published["eigenvalues"]) > 0:  # the noise swamped every variance: spent, and of no use
            raise StandinTooNoisy(f"the spectrum released with ε = {epsilon:g} is all noise (every variance came out "
                                  "at 0 or below): spend more ε on the stand-in, or state a spectrum.", cost)
        made = cls.from_release(published, n=X.shape[0] if neighbors == "replace" else None)
        return replace(made, source=f"a spectrum released privately now (ε = {epsilon:g}, δ = {delta:g})",
                       privacy="private", cost=cost)

    @classmethod
    def exact(cls, X, data_norm: float = 1.0, center: str = "none") -> "Standin":
        """The exact spectrum of the rows ``X`` clipped to ``data_norm`` (centred with their own mean when
        ``center`` is not "none"): **not private**, for the data owner's exploration only."""
        inp = prepare_input(np.asarray(X, dtype=float), data_norm, "empirical" if center != "none" else "none")
        n, R = inp.data.n, inp.data.data_norm
        made = cls.from_spectrum(np.maximum(inp.reference.eigenvalues, 0.0) * R * R / n,
                                 source="the data's exact spectrum (NOT private)")
        mean = np.asarray(X, dtype=float).mean(axis=0) if center != "none" else None
        return replace(made, privacy="not private", mean=None if mean is None else _tuple(mean))

    def describe(self) -> str:
        words = {"public": "public", "private": "released privately (its cost is counted)",
                 "not private": "NOT private: read from the data without noise"}[self.privacy]
        return f"{self.source}; {words}"


class StandinTooNoisy(ValueError):
    """A private stand-in whose released spectrum is all noise. The release was made: ``cost`` (its privacy curve
    as :meth:`PrivacyCurve.as_dict` items) is spent on the rows all the same and must be counted."""

    def __init__(self, message: str, cost: tuple):
        super().__init__(message)
        self.cost = cost


def _release_entry(published: dict) -> dict:
    if not isinstance(published, dict):
        raise ValueError("give a release as published (a dict from publish() or a publishable file).")
    if "releases" in published:
        entries = [r for r in published["releases"].values() if r.get("eigenvalues")]
        if not entries:
            raise ValueError("no release of this file publishes variances: one with an eigenvalue share is needed.")
        return max(entries, key=lambda r: len(r["eigenvalues"]))
    if "components" not in published:
        raise ValueError("this is not a published release (no components).")
    return published


# ---------------------------------------------------------------------------------------------------------------
# The simulation


@dataclass(frozen=True)
class _Setting:
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
    """One repetition's data: what the release reads, its radius argument, further options, and the exact PCA."""

    X: object
    data_norm: object
    extra: dict
    reference: Reference
    center: str
    support: tuple | None = None


class _Simulator:
    """Releases on draws from the stand-in (or on fixed rows), scored and memoised per (mechanism, split, epsilon)."""

    def __init__(self, s: _Setting, rows=None, support=None):
        self.s = s
        self.rows = rows
        self.support = support
        self.engine = "rows" if rows is not None else _engine(s)
        self._draws: dict = {}
        self._memo: dict = {}
        self._scales: dict = {}
        self.releases = 0
        self.names = [name for name, _ in s.targets]
        self.thresholds = np.array([TARGETS[name].error(v) for name, v in s.targets], dtype=float)
        self.powers = np.array([TARGETS[name].power for name in self.names])
        cache_rows = self.engine == "rows" and rows is None
        self._keep = not cache_rows or 16.0 * s.n * s.d * s.reps <= ROWS_MEMORY

    # -- data ----------------------------------------------------------------------------------------------------

    def draw(self, rep: int) -> _Draw:
        """Repetition ``rep``'s data: a fresh draw from the stand-in (its own seed), or the fixed rows."""
        key = "fixed" if self.rows is not None else rep
        if key in self._draws:
            return self._draws[key]
        made = self._rows_draw(self.rows, self.support) if self.rows is not None else self._new_draw(rep)
        if self.rows is not None or self._keep:
            self._draws[key] = made
        return made

    def _new_draw(self, rep: int) -> _Draw:
        s = self.s
        rng = np.random.default_rng(np.random.SeedSequence([s.seed, rep, 0]))
        standin = s.standin.repetition(rng)
        if self.engine == "gram":
            gram = _wishart(standin, s.n, float(s.data_norm), rng)
            gram.setflags(write=False)
            data = PreparedData(s.n, s.d, 1.0, gram=gram)
            return _Draw(data, 1.0, {}, Reference.from_gram(gram), "none", standin.support)
        return self._rows_draw(standin.draw_rows(s.n, rng), standin.support)

    def _rows_draw(self, rows, support=None) -> _Draw:
        s = self.s
        rule = RadiusRule(*s.radius) if s.radius is not None else None
        inp = prepare_input(rows, s.data_norm, s.center, radius=rule)
        X, data_norm, extra = release_input(inp.data, inp.radius)
        return _Draw(X, data_norm, extra, inp.reference, inp.release_center, support)

    # -- releases ------------------------------------------------------------------------------------------------

    def values(self, mech: str, split: BudgetSplit, epsilon: float, reps: int) -> np.ndarray:
        """reps x targets: each repetition's metric values at ``epsilon`` (computed once, extended on demand)."""
        key = (mech, split, float(epsilon))
        done = self._memo.setdefault(key, [])
        for rep in range(len(done), reps):
            done.append(self._score(self._release(mech, split, epsilon, rep), self.draw(rep)))
        return np.asarray(done[:reps], dtype=float).reshape(reps, len(self.names))

    def _release(self, mech: str, split: BudgetSplit, epsilon: float, rep: int):
        s = self.s
        draw = self.draw(rep)
        rng = np.random.default_rng(np.random.SeedSequence([s.seed, rep, 1, zlib.crc32(mech.encode())]))
        self.releases += 1
        return release_pca(mech, draw.X, s.k, float(epsilon), s.delta, s.neighbors, draw.data_norm, rng,
                           budget=split, center=draw.center, **draw.extra, **s.mech_params(mech))

    def _score(self, release, draw: _Draw) -> list:
        s, ref = self.s, draw.reference
        V = release.components
        out = []
        for name in self.names:
            if name == "subspace_distance":
                out.append(metrics.subspace_distance(V, ref.vectors[:, :s.k]))
            elif name == "energy":
                best = float(np.sum(ref.eigenvalues[:s.k]))
                out.append(metrics.captured_energy(V, ref.gram) / best if best > 0 else math.nan)
            elif name == "f1":
                support = draw.support
                if support is None:  # rows without a known support: the top-s rows of their exact components
                    support = metrics.row_support(ref.vectors[:, :s.k], s.sparsity)
                out.append(metrics.support_recovery(V, np.asarray(support, dtype=int), s.sparsity)["f1"])
            elif name == "explained_variance_error":
                out.append(_ratio_error(release, ref, s.k))
            else:
                scores = release.outputs.get("scores")
                out.append(math.nan if scores is None else
                           noise_to_signal(scores["counts"], int(scores["dims"]), release.facts["scores_noise_scale"]))
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
        good = _meets(counts, reps, self.s.confidence)
        return int(np.argmax(good)) if good.any() else len(grid) - 1

    def met(self, values: np.ndarray) -> np.ndarray:
        """reps x targets: whether each repetition meets each target."""
        return np.column_stack([TARGETS[name].meets(values[:, t], v)
                                for t, (name, v) in enumerate(self.s.targets)])


def _engine(s: _Setting) -> str:
    """"gram" (draws of the Gram matrix alone) when nothing of the release reads rows, else "rows"."""
    reads_rows = (s.center != "none" or s.data_norm == "private" or "scores" in s.parts
                  or any(get_mechanism(m).needs_rows for m in s.mechanisms)
                  or (s.neighbors == "add_remove" and "eigenvalues" in s.parts) or s.standin.mean is not None
                  or s.n < s.d)
    return "rows" if reads_rows else "gram"


def _wishart(standin: Standin, n: int, radius: float, rng) -> np.ndarray:
    """The Gram matrix of n Gaussian rows of the stand-in divided by ``radius``, from the
    Wishart law; a second moment of trace above R^2 is scaled down to it, as clipping every row to R would. Bartlett's
    decomposition: W = A A^T with A lower triangular, A_ii^2 ~ chi^2(n - i), A_ij ~ N(0, 1) below the diagonal, is
    Wishart(n, I); L W L^T with L = B diag(sqrt(lambda)) / R is Wishart(n, Sigma / R^2))."""
    d = standin.d
    A = np.tril(rng.standard_normal((d, d)), -1)
    A[np.diag_indices(d)] = np.sqrt(rng.chisquare(n - np.arange(d)))
    unit = standin.values / radius**2
    unit = unit / max(1.0, float(unit.sum()))  # rows clipped to R have a second moment of trace <= 1
    L = standin.basis_matrix() * np.sqrt(unit)
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
    return float(np.max(np.abs(got - exact[:got.size]))) if got.size else math.nan


def _scale_table(s: _Setting, mech: str, split: BudgetSplit, names: list) -> np.ndarray:
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
                rated = theory.rate(mech, "eps", sub_eps, n=s.n, d=s.d, k=s.k, epsilon=1.0, delta=sub_delta,
                                    s=s.sparsity)
            if np.all(np.isfinite(rated)) and np.all(rated > 0):
                subspace = rated
        except (ValueError, OverflowError, ZeroDivisionError):
            pass
    rows = [subspace if TARGETS[name].part == "subspace" else noise(TARGETS[name].part) for name in names]
    return np.minimum.accumulate(np.asarray(rows, dtype=float), axis=1)


# ---------------------------------------------------------------------------------------------------------------
# The search


def _parts(s: _Setting) -> list:
    """The optional parts of the release, in :data:`dppca_core.budget.PARTS` order."""
    wanted = set(s.parts)
    if s.center == "private":
        wanted.add("mean")
    if s.data_norm == "private":
        wanted.add("radius")
    return [p for p in ("radius", "mean", "eigenvalues", "scores") if p in wanted]


def _split(shares: dict) -> BudgetSplit:
    return BudgetSplit.with_extras(**shares)


def _default_shares(s: _Setting) -> dict:
    return {part: DEFAULT_SHARES[part] for part in _parts(s)}


def _share_grid(s: _Setting, mech: str, part: str) -> tuple:
    if part == "eigenvalues" and get_mechanism(mech).releases_eigenvalues and s.neighbors == "replace":
        return (0.0,) + SHARE_GRID
    return SHARE_GRID


def _theory_start(s: _Setting, mech: str, split: BudgetSplit) -> int:
    """A first grid index: where the first-order theory (:func:`dppca_core.theory.first_order_rms`, on the stand-in's
    eigenvalues) puts the distance target, with a margin for the spread; epsilon = 1 otherwise."""
    grid = s.grid()
    fallback = int(np.argmin(np.abs(np.log(grid))))
    target = s.target_map.get("subspace_distance")
    radius = float(s.data_norm) if s.data_norm != "private" else float(s.radius[0][1])
    if target is None:
        return fallback
    eig = s.standin.values * s.n / radius**2
    kind = release_curve_kind(mech, s.mech_params(mech))
    for j, eps in enumerate(grid):
        sub = allocate(split, float(eps), s.delta if kind != "pure" else 0.0, kind)["subspace"]
        try:
            with np.errstate(all="ignore"):
                rms = theory.first_order_rms(mech, eig, n=s.n, k=s.k, epsilon=sub.epsilon,
                                             delta=sub.delta if sub.delta > 0 else s.delta)
        except (ValueError, OverflowError, ZeroDivisionError):
            return fallback
        if rms is None or not np.isfinite(rms):
            return fallback
        if rms <= 0.8 * target:
            return j
    return len(grid) - 1


@dataclass
class _Found:
    """A candidate (mechanism, split) searched: the smallest qualifying grid index (None: none up to the top)."""

    mech: str
    split: BudgetSplit
    index: int | None
    pilot: int
    searched: bool = True
    checked: dict = field(default_factory=dict)  # index -> (count met, reps)


def _pilot(sim: _Simulator, mech: str, split: BudgetSplit, start: int) -> int:
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


def _search(sim: _Simulator, mech: str, split: BudgetSplit, start: int) -> _Found:
    """The smallest grid index whose share of releases meeting every target reaches the confidence, by extrapolated
    proposals inside a shrinking bracket (bisection once both ends are known)."""
    s = sim.s
    grid = s.grid()
    top = len(grid) - 1
    found = _Found(mech, split, None, start)
    fail, ok = -1, None
    i = start
    for step in range(12):
        values = sim.values(mech, split, grid[i], s.reps)
        count = int(sim.met(values).all(axis=1).sum())
        found.checked[i] = (count, s.reps)
        if _meets([count], s.reps, s.confidence)[0]:
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


def _explore_splits(sim: _Simulator, mech: str) -> tuple[BudgetSplit, int, BudgetSplit]:
    """(best split by pilot, its pilot index, the default split): one part at a time through its share grid."""
    s = sim.s
    current = _default_shares(s)
    default = _split(current)
    best_index = _pilot(sim, mech, default, _theory_start(s, mech, default))
    best = default
    for part in list(current):
        for share in _share_grid(s, mech, part):
            trial = {**current, part: share}
            if trial == current or sum(trial.values()) >= 0.9:
                continue
            split = _split(trial)
            index = _pilot(sim, mech, split, best_index)
            if index < best_index:
                best, best_index, current = split, index, trial
    return best, best_index, default


# ---------------------------------------------------------------------------------------------------------------
# The plan


@dataclass(frozen=True)
class Plan:
    """The answer of :func:`plan`.

    Attributes
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

    @property
    def reachable(self) -> bool:
        return math.isfinite(self.epsilon)

    def target_words(self) -> str:
        return target_words(self.targets, self.confidence)

    def describe(self) -> list[str]:
        """The plan in a few plain sentences."""
        if not self.reachable:
            return [f"No mechanism tried meets {self.target_words()} up to ε = {self.settings['max_epsilon']:g} on "
                    f"this stand-in ({self.standin.describe()}): loosen a target, lower the confidence, or plan for "
                    "more rows."]
        lo, hi = self.interval
        out = [f"Planned for {self.target_words()}: {display_name(self.mechanism)} at ε = {self.epsilon:g} "
               f"(δ = {self.delta:g}), budget split {split_words(self.budget)}.",
               f"In {self.reps} simulated releases on the stand-in, {100 * self.share:.0f}% met every target (95% "
               f"interval {100 * lo:.0f}% to {100 * hi:.0f}%); the stand-in is {self.standin.describe()}."]
        if self.default_epsilon is not None and self.default_epsilon > self.epsilon * (1 + 1e-9):
            out.append(f"With the default split (10% to each optional part) the same mechanism needs ε = "
                       f"{self.default_epsilon:g}.")
        if self.total_epsilon > self.epsilon * (1 + 1e-9):
            counted = "the stand-in's own cost" if self.standin.cost is not None else ""
            if self.earlier:
                counted += (" and " if counted else "") + (f"{self.earlier} earlier release"
                                                           f"{'s' if self.earlier > 1 else ''} from the same rows")
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


def _total_epsilon(s: _Setting, mech: str, epsilon: float, spent=()) -> float:
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


def _frontier(sim: _Simulator, best: dict) -> pd.DataFrame:
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


def _frontier_row(sim: _Simulator, mech: str, found: _Found, i: int, values: np.ndarray) -> dict:
    s = sim.s
    met = sim.met(values)
    count, reps = int(met.all(axis=1).sum()), len(values)
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    row = {"mechanism": mech, "title": display_name(mech), "split": split_words(found.split),
           "epsilon": float(s.grid()[i]), "reps": reps, "share": count / reps, "low": float(lo[0]),
           "high": float(hi[0]), "meets": bool(_meets([count], reps, s.confidence)[0]),
           "planned": i == found.index}
    for t, name in enumerate(sim.names):
        row[f"met: {name}"] = float(met[:, t].mean())
        row[f"median: {name}"] = float(np.nanmedian(values[:, t])) if np.isfinite(values[:, t]).any() else math.nan
    row["rank"] = s.mechanisms.index(mech)
    return row


def _plan_from_setting(s: _Setting) -> Plan:
    sim = _Simulator(s)
    grid = s.grid()
    guesses = {mech: _explore_splits(sim, mech) for mech in s.mechanisms}
    lowest = min(pilot for _, pilot, _ in guesses.values())
    best, tried = {}, []
    for mech, (split, pilot, _) in guesses.items():
        if pilot > lowest + PRUNE_STEPS:  # far behind on its first guess: not searched in full
            best[mech] = _Found(mech, split, None, pilot, searched=False)
        else:
            best[mech] = _search(sim, mech, split, pilot)
        tried.append((mech, split, pilot, best[mech]))
    ranked = sorted((f for f in best.values() if f.index is not None),
                    key=lambda f: (f.index, -f.checked[f.index][0], s.mechanisms.index(f.mech)))
    winner = ranked[0] if ranked else None
    default_eps = None
    if winner is not None:
        default = _split(_default_shares(s))
        if winner.split == default:
            default_eps = float(grid[winner.index])
        else:
            other = _search(sim, winner.mech, default, winner.index)
            tried.append((winner.mech, default, other.pilot, other))
            default_eps = math.inf if other.index is None else float(grid[other.index])
    frontier = _frontier(sim, best)
    candidates = pd.DataFrame([{"mechanism": m, "title": display_name(m), "split": split_words(sp),
                                "first guess ε": float(grid[p]), "searched": f.searched,
                                "planned ε": math.inf if f.index is None else float(grid[f.index])}
                               for m, sp, p, f in tried])
    settings = {"n": s.n, "d": s.d, "k": s.k, "neighbors": s.neighbors, "data_norm": s.data_norm,
                "radius": s.radius, "center": s.center, "parts": list(s.parts), "mechanisms": list(s.mechanisms),
                "sparsity": s.sparsity, "seed": s.seed, "max_epsilon": s.max_epsilon, "engine": sim.engine,
                "params": dict(s.params), "reps": s.reps}
    notes = list(s.standin.notes)
    if s.neighbors == "add_remove":
        notes.append(f"Under add/remove n is private: the plan used n = {s.n:,} (a released count or a public "
                     "estimate).")
    if winner is None:
        return Plan(math.inf, None, None, frontier, candidates, None, (0.0, 0.0), s.reps, s.confidence,
                    s.target_map, s.delta, s.standin, None, math.inf, settings, tuple(notes), sim.releases)
    count, reps = winner.checked[winner.index]
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    epsilon = float(grid[winner.index])
    return Plan(epsilon, winner.mech, winner.split, frontier, candidates, count / reps, (float(lo[0]), float(hi[0])),
                reps, s.confidence, s.target_map, s.delta, s.standin, default_eps,
                _total_epsilon(s, winner.mech, epsilon), settings, tuple(notes), sim.releases)


@functools.lru_cache(maxsize=32)
def _cached_plan(s: _Setting) -> Plan:
    return _plan_from_setting(s)


def plan(targets: dict, *, n: int, d: int, k: int, spectrum=None, standin: Standin | None = None,
         delta: float = 1e-6, confidence: float = 0.9, neighbors: str = "replace", data_norm=1.0,
         radius_rule: RadiusRule | None = None, center: str = "none", parts=(), mechanisms=None,
         mechanism_params: dict | None = None, sparsity: int | None = None, reps: int | None = None, seed: int = 0,
         max_epsilon: float = 100.0, spent=()) -> Plan:
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
        :class:`dppca_core.experiments.RadiusRule`) chooses R inside each release from a radius share.
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
    """
    s = _setting(targets, n=n, d=d, k=k, spectrum=spectrum, standin=standin, delta=delta, confidence=confidence,
                 neighbors=neighbors, data_norm=data_norm, radius_rule=radius_rule, center=center, parts=parts,
                 mechanisms=mechanisms, mechanism_params=mechanism_params, sparsity=sparsity, reps=reps, seed=seed,
                 max_epsilon=max_epsilon)
    spent = list(spent or ())
    if not all(isinstance(c, PrivacyCurve) for c in spent):
        raise ValueError("spent holds the privacy curves of earlier releases from the same rows (release.privacy).")
    found = _cached_plan(s)
    found = replace(found, frontier=found.frontier.copy(), candidates=found.candidates.copy())
    if spent and found.reachable:
        found = replace(found, total_epsilon=_total_epsilon(s, found.mechanism, found.epsilon, spent),
                        earlier=len(spent))
    return found


def _setting(targets, *, n, d, k, spectrum, standin, delta, confidence, neighbors, data_norm, radius_rule, center,
             parts, mechanisms, mechanism_params, sparsity, reps, seed, max_epsilon) -> _Setting:
    n = check_int_range(n, "n", 2)
    d = check_int_range(d, "d", 2)
    k = check_k(k, d)
    if (spectrum is None) == (standin is None):
        raise ValueError("give the data's stand-in: spectrum=[...] (the covariance eigenvalues) or "
                         "standin=Standin(...).")
    if standin is None:
        standin = Standin.from_spectrum(spectrum, d=d)
    if not isinstance(standin, Standin):
        raise ValueError("standin must be a Standin (e.g. Standin.spiked(...), Standin.from_release(...)).")
    if standin.d != d:
        raise ValueError(f"the stand-in has {standin.d} features but d = {d}.")
    checked = check_targets(targets, k, d)
    delta = check_delta(delta)
    confidence = check_float_range(confidence, "confidence", 0.5, 0.995)
    check_neighbors(neighbors)
    if center not in ("none", "private"):
        raise ValueError(f"center={center!r}: use 'none' or 'private' (a private mean from its own share).")
    radius = None
    if isinstance(data_norm, str):
        if data_norm != "private":
            raise ValueError(f"data_norm={data_norm!r}: give a public radius (a number) or 'private'.")
        rule = radius_rule or RadiusRule()
        radius = (tuple(float(b) for b in rule.bounds), float(rule.quantile))
    else:
        data_norm = check_positive(data_norm, "data_norm (the clipping radius R)")
        if radius_rule is not None:
            raise ValueError("a radius rule applies only to data_norm='private'.")
    wanted = set(parts or ())
    unknown = wanted - {"eigenvalues", "scores"}
    if unknown:
        raise ValueError(f"parts may hold 'eigenvalues' and 'scores' (got {sorted(unknown)}).")
    wanted |= {TARGET_PARTS[name] for name in checked if name in TARGET_PARTS}
    sparse = "f1" in checked
    if sparse and sparsity is None:
        if standin.support is None:
            raise ValueError("a support F1 target needs the support's size: give sparsity=s or a sparse stand-in "
                             "(Standin.spiked(..., sparsity=s)).")
        sparsity = len(standin.support)
    sparsity = None if sparsity is None else check_int_range(sparsity, "sparsity", 1, d)
    names = tuple(mechanisms) if mechanisms is not None else \
        DEFAULT_MECHANISMS + (SPARSE_MECHANISMS if sparse else ())
    params = dict(mechanism_params or {})
    if sparse and mechanisms is None:
        params.setdefault("dps_pca", {"sites": 1, "sparsity": sparsity})
    chosen = []
    for mech in names:
        spec = get_mechanism(mech)
        if spec.task != "pca" or spec.guarantee not in ("approximate", "pure"):
            raise ValueError(f"{display_name(mech)} has no privacy guarantee: a plan compares private mechanisms only.")
        if neighbors not in spec.relations:
            if mechanisms is not None:
                relation = neighbors.replace('_', '/')
                raise ValueError(f"{display_name(mech)} has no guarantee for neighbours that {relation}"
                                 " a row.")
            continue
        if spec.max_k is not None and k > spec.max_k:
            continue
        spec.resolve_params(params.get(mech, {}))  # refused parameters fail here, in the mechanism's words
        chosen.append(mech)
    if not chosen:
        raise ValueError("no mechanism to compare: name some with mechanisms=[...].")
    reps = default_reps(confidence) if reps is None else check_int_range(reps, "reps", 20, 2000)
    max_epsilon = check_float_range(max_epsilon, "max_epsilon", 0.05, 100.0)
    return _Setting(tuple(checked.items()), n, d, k, standin, delta, confidence, neighbors, data_norm, radius, center,
                    tuple(sorted(wanted)), tuple(chosen),
                    tuple(sorted((m, json.dumps(params.get(m, {}), sort_keys=True)) for m in chosen)),
                    sparsity, reps, int(seed), max_epsilon)


# ---------------------------------------------------------------------------------------------------------------
# Checking a plan


def evaluate(found: Plan, X=None, *, standin: Standin | None = None, epsilon: float | None = None,
             mechanism: str | None = None, budget: BudgetSplit | None = None, support=None, reps: int = 200,
             seed: int = 1) -> dict:
    """The share of ``reps`` fresh releases that meet the plan's targets, with its 95% interval.

    On rows ``X`` (the data's units; each release scored against the exact PCA of those rows: the data owner's check,
    **not private**), or on fresh draws from ``standin`` (default: the plan's own), at the plan's epsilon, mechanism
    and split unless others are given. ``support``: the rows' planted support for an F1 target (default: the top-s
    rows of their exact components). ``seed`` should differ from the plan's, so the releases are fresh.
    Returns ``share``, ``low``, ``high``, ``reps``, ``met`` (reps x targets booleans) and ``values``.
    """
    if not found.reachable and (epsilon is None or mechanism is None or budget is None):
        raise ValueError("this plan reached no epsilon: give epsilon=..., mechanism=... and budget=... to evaluate "
                         "one.")
    cfg = found.settings
    s = _setting(found.targets, n=X.shape[0] if X is not None else cfg["n"], d=cfg["d"], k=cfg["k"], spectrum=None,
                 standin=standin or found.standin, delta=found.delta, confidence=found.confidence,
                 neighbors=cfg["neighbors"], data_norm=cfg["data_norm"],
                 radius_rule=RadiusRule(*cfg["radius"]) if cfg["radius"] else None, center=cfg["center"],
                 parts=cfg["parts"], mechanisms=[mechanism or found.mechanism],
                 mechanism_params={m: json.loads(p) for m, p in cfg["params"].items()}, sparsity=cfg["sparsity"],
                 reps=reps, seed=seed, max_epsilon=100.0)
    sim = _Simulator(s, rows=None if X is None else np.asarray(X, dtype=float), support=support)
    values = sim.values(s.mechanisms[0], budget or found.budget, float(epsilon or found.epsilon), reps)
    met = sim.met(values)
    count = int(met.all(axis=1).sum())
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    return {"share": count / reps, "low": float(lo[0]), "high": float(hi[0]), "reps": reps, "met": met,
            "values": values}


"""Repeated releases of mechanisms and their utility diagnostics: what the dashboard and its exported script show.

The diagnostics compare each release with the non-private top-k subspace of the same clipped data (and with a
planted support when one is known). They use the raw data: they are **not private**; they show what privacy
costs. The releases themselves are what :meth:`dppca_core.Release.published` gives.

The dashboard and the script it exports both call :func:`compare`, so a script prints exactly the table the
Report page shows.
"""
from __future__ import annotations

import math
import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import metrics
from ..api import run
from .budget import BudgetSplit, release_with as complete_release
from .choices import DEFAULT_RADIUS_BOUNDS, DEFAULT_RADIUS_QUANTILE, clipped_squares, rms_scales
from .options import ReleaseOptions
from ..data.prepare import PreparedData, center_data, prepare
from ..registry import display_name, get_mechanism
from ..validation import check_matrix


@dataclass(frozen=True)
class Reference:
    """The non-private answer: all eigenvectors of a Gram matrix (descending), and the matrix itself (captured
    energy is measured against it)."""

    vectors: np.ndarray
    eigenvalues: np.ndarray
    gram: np.ndarray

    @classmethod
    def from_gram(cls, gram: np.ndarray) -> "Reference":
        values, vectors = np.linalg.eigh(gram)
        order = np.argsort(values)[::-1]
        return cls(vectors[:, order], values[order], gram)

    @classmethod
    def of(cls, data: PreparedData, centred: bool = False) -> "Reference":
        """Of the prepared (clipped, scaled) rows; ``centred``: of the rows centred with their own mean (the target
        a privately centred release aims at)."""
        if not centred:
            return cls.from_gram(data.gram)
        rows = data.rows
        c = rows - rows.mean(axis=0)
        return cls.from_gram(c.T @ c)


@dataclass(frozen=True)
class RadiusRule:
    """The public settings of a clipping radius chosen privately inside each release
    (:func:`dppca_core.pipeline.choices.private_radius`): the candidates' bounds (data units) and the target quantile."""

    bounds: tuple[float, float] = DEFAULT_RADIUS_BOUNDS
    quantile: float = DEFAULT_RADIUS_QUANTILE

    def __post_init__(self):
        low, high = (float(b) for b in self.bounds)
        if not (math.isfinite(low) and math.isfinite(high) and 0 < low < high):
            raise ValueError(f"radius bounds must be two positive numbers, the lower first (got {self.bounds!r}); "
                             "give public bounds on the rows' norms in the data's units.")
        if not 0 < float(self.quantile) < 1:
            raise ValueError(f"the radius quantile must lie strictly between 0 and 1 (got {self.quantile!r}).")

    def release_args(self) -> dict:
        return {"radius_bounds": tuple(float(b) for b in self.bounds), "radius_quantile": float(self.quantile)}


@dataclass(frozen=True)
class ScaleRule:
    """Columns scaled privately inside each release (``release_pca(scale="private")``): column j is divided by a
    private root-mean-square from the budget's scale share, with public bounds ``bounds[j]`` on ``|x_j|``
    (:func:`dppca_core.pipeline.choices.private_column_scales`)."""

    bounds: tuple[float, ...]

    def __post_init__(self):
        b = np.asarray(self.bounds, dtype=float).reshape(-1)
        if b.size == 0 or not np.all(np.isfinite(b)) or not np.all(b > 0):
            raise ValueError(f"scaling the columns privately needs one positive, finite public bound per column (got "
                             f"{self.bounds!r}); a bound is the largest absolute value the column can take.")
        object.__setattr__(self, "bounds", tuple(float(v) for v in b))

    def release_args(self) -> dict:
        return {"scale": "private", "column_bounds": self.bounds}

    def exact_scales(self, X) -> np.ndarray:
        """The scales the private ones aim at, read from the rows without noise: b_j sqrt(mean_i min(x_ij^2, b_j^2) /
        b_j^2) (floored as the private ones are). **Not private**: the reference's scaling, to show what scaling
        privately costs."""
        X = check_matrix(X)
        b = np.asarray(self.bounds)
        if b.size != X.shape[1]:
            raise ValueError(f"give one public bound per column: {X.shape[1]} numbers (got {b.size}).")
        return rms_scales(clipped_squares(X, b).mean(axis=0), b)


#: how the rows are centred before the mechanisms see them: "none", "private" (a private mean released inside each
#: release from its own budget share) or "empirical" (the data's own mean: NOT private)
CENTRING = ("none", "private", "empirical")


@dataclass(frozen=True)
class ExperimentInput:
    """What the mechanisms are run on and the non-private reference they are scored against.

    ``center`` is the centring asked for; ``private`` is False when a data-dependent step without noise was
    applied (the empirical mean); ``note`` says what was done, in words. With ``scale`` (a :class:`ScaleRule`) each
    release scales the columns itself: it reads ``rows`` (the data's units; centred with the empirical mean when
    that centring was asked for), and ``data`` holds the rows divided by the exact scales, for the reference.
    """

    data: PreparedData
    reference: Reference
    center: str
    private: bool
    note: str
    radius: RadiusRule | None = None
    scale: ScaleRule | None = None
    rows: np.ndarray | None = field(default=None, repr=False)

    @property
    def release_radius(self):
        """The clipping radius each release uses: the public one, or "private" (chosen inside each release)."""
        return self.data.data_norm if self.radius is None else "private"

    @property
    def release_center(self) -> str:
        """The centring each release does itself: "private" (its mean is part of the release) or "none" (the rows
        arrive uncentred, or already centred with the empirical mean)."""
        return "private" if self.center == "private" else "none"


def scale_columns(X, bounds) -> np.ndarray:
    """Each column divided by its public bound (|x_j| <= b_j becomes |x_j / b_j| <= 1, so rows have norm <= sqrt(d)).

    The bounds must be fixed without looking at the data (a questionnaire's scale, a sensor's range): dividing by
    a public constant is data-independent, so it costs no privacy. Bounds read from the data are not private.
    """
    X = check_matrix(X)
    b = np.asarray(bounds, dtype=float)
    if b.shape != (X.shape[1],) or not np.all(np.isfinite(b)) or not np.all(b > 0):
        raise ValueError(f"give one positive, finite public bound per column: {X.shape[1]} numbers (got "
                         f"{b.size}); a bound is the largest absolute value the column can take.")
    return X / b


def prepare_input(X, data_norm, center: str = "none", scale=None, radius: RadiusRule | None = None) -> ExperimentInput:
    """The mechanisms' input and the reference, as the dashboard and its exported script build them.

    Order: divide each column by its public bound (``scale``, optional; or a :class:`ScaleRule`: see below), centre
    (``center``, one of :data:`CENTRING`), clip rows to the public radius ``data_norm`` and scale them to the unit
    ball. A private mean is computed inside each release (:func:`dppca_core.release_pca`), so its input stays the
    clipped rows and the reference is the PCA of those rows centred with their exact mean (what the private release
    aims at). ``X`` may be a :class:`dppca_core.data.stats.SufficientStats` (a file streamed into n and the Gram matrix)
    when there is no centring and no scaling.

    ``data_norm="private"``: each release chooses R itself from its radius share (``radius``, a
    :class:`RadiusRule`, default bounds and quantile). The rows are kept clipped to the rule's upper bound (the
    largest R it can choose: clipping there first changes nothing), and the reference is their PCA: what an
    analyst who could read the data would compute, so the diagnostics include what clipping at the private R costs.

    ``scale=ScaleRule(bounds)``: each release divides column j by a private root-mean-square (its scale share)
    before anything else, so it reads the raw rows (``ExperimentInput.rows``; centred first with the empirical mean
    when ``center="empirical"``). The reference is the PCA of the rows divided by their exact root-mean-squares
    (:meth:`ScaleRule.exact_scales`, not private), then centred and clipped as above: what the private scales aim
    at, so the diagnostics include what scaling privately costs.
    """
    from ..data.stats import SufficientStats

    if center not in CENTRING:
        raise ValueError(f"center={center!r}: use one of {list(CENTRING)}.")
    if isinstance(scale, ScaleRule):
        if isinstance(X, SufficientStats):
            raise ValueError("scaling the columns privately reads each row, which a file streamed into sufficient "
                             "statistics no longer has: turn the scaling off (or upload a sample of the rows).")
        centred = center_data(check_matrix(X), "empirical" if center == "empirical" else "none")
        rows = centred.X
        inp = prepare_input(rows, data_norm, "none" if center == "empirical" else center,
                            tuple(scale.exact_scales(rows)), radius)
        note = (centred.note if center == "empirical" else inp.note) + " " + PRIVATE_SCALE_NOTE
        return ExperimentInput(inp.data, inp.reference, center, inp.private and centred.private, note, inp.radius,
                               scale, rows)
    if isinstance(data_norm, str):
        if data_norm != "private":
            raise ValueError(f"data_norm={data_norm!r}: give a public radius (a number) or 'private'.")
        if isinstance(X, SufficientStats):
            raise ValueError("choosing R privately reads each row's norm, which a file streamed into sufficient "
                             "statistics no longer has: give a public R for it (or upload a sample of the rows).")
        radius = radius or RadiusRule()
        inp = prepare_input(X, float(radius.bounds[1]), center, scale)
        return ExperimentInput(inp.data, inp.reference, inp.center, inp.private, inp.note, radius)
    if radius is not None:
        raise ValueError("a radius rule applies only to data_norm='private'; drop it or choose R privately.")
    if isinstance(X, SufficientStats):
        if center != "none" or scale is not None:
            raise ValueError("a file streamed into sufficient statistics keeps no rows: it can only be analysed "
                             "uncentred and unscaled (set centring to none and scaling off).")
        data = prepare(X, data_norm)
        return ExperimentInput(data, Reference.from_gram(data.gram), "none", True,
                               "No centring: the uncentred second moment is analysed.")
    if scale is not None:
        X = scale_columns(X, scale)
    if center == "private":
        data = prepare(X, data_norm)
        return ExperimentInput(data, Reference.of(data, centred=True), center, True, PRIVATE_CENTRE_NOTE)
    centred = center_data(X, center)
    data = prepare(centred.X, data_norm)
    return ExperimentInput(data, Reference.of(data), center, centred.private, centred.note)


def oracle_radius(data: PreparedData, quantile: float = DEFAULT_RADIUS_QUANTILE) -> float:
    """The exact ``quantile`` of the rows' norms in the data's units: the R a private radius aims at, read from the
    data without noise. **Not private**: an oracle, to show what choosing R privately costs against knowing it."""
    if not 0 < float(quantile) < 1:
        raise ValueError(f"the quantile must lie strictly between 0 and 1 (got {quantile!r}).")
    if not data.has_rows:
        raise ValueError("the oracle radius reads each row's norm: it needs the rows, not streamed statistics.")
    norms = np.linalg.norm(data.rows, axis=1) * data.data_norm
    radius = float(np.quantile(norms, float(quantile)))
    if not radius > 0:
        raise ValueError("the rows' norms are 0 at this quantile: there is no radius to compare with.")
    return radius


PRIVATE_SCALE_NOTE = ("Each release divides every column by a private root-mean-square from its own share of the "
                      "budget (with public bounds on the columns); the reference is the PCA of the columns divided by "
                      "their exact root-mean-squares (not private: what the private scales aim at).")
PRIVATE_CENTRE_NOTE = ("Centred with a private mean released from its own share of the budget (see the budget "
                       "split); the rows are clipped to R again after centring. The reference is the PCA of the "
                       "rows centred with their exact mean (what the private release aims at).")


#: columns whose mean squares (what a PCA adds up) differ by this factor or more are on scales a PCA cannot compare
UNITS_RATIO = 1000.0


def unit_spread(X, ratio: float = UNITS_RATIO) -> tuple[int, int, float] | None:
    """(largest column, smallest column, the ratio of their root-mean-squares) when the columns' mean squares differ
    by ``ratio`` or more, else None. Over the finite cells of each column, columns of zeros left out; read before any
    clipping, so it answers as soon as the table is read (e.g. grams beside millimetres: a root-mean-square 250
    times larger is a mean square 62,500 times larger). A non-private diagnostic (it reads the data)."""
    X = np.asarray(X, dtype=float)
    finite = np.isfinite(X)
    counts = finite.sum(axis=0)
    squares = np.where(finite, X, 0.0) ** 2
    rms = np.sqrt(squares.sum(axis=0) / np.maximum(counts, 1))
    kept = np.flatnonzero((counts > 0) & (rms > 0))
    if kept.size < 2:
        return None
    top, low = kept[np.argmax(rms[kept])], kept[np.argmin(rms[kept])]
    spread = float(rms[top] / rms[low])
    return (int(top), int(low), spread) if spread**2 >= ratio else None


def dominant_feature(gram: np.ndarray, share: float = 0.9) -> tuple[int, float] | None:
    """(column, its share of the total energy) when one column holds at least ``share`` of tr(``gram``), else None.

    Read on the diagonal of the (centred, clipped) Gram matrix: when one column's units make its values far larger
    than the others' (a concentration in mg/L beside ratios near 1), the first component is that column alone and
    says nothing about how the features vary together. A non-private diagnostic (it reads the data).
    """
    diag = np.clip(np.diag(np.asarray(gram, dtype=float)), 0.0, None)
    total = float(diag.sum())
    if total <= 0 or diag.size < 2:
        return None
    j = int(np.argmax(diag))
    top = float(diag[j]) / total
    return (j, top) if top >= share else None


@dataclass(frozen=True)
class Metric:
    """A diagnostic metric: its label, unit, valid range, direction and a sensible default target.

    ``high`` None means the range depends on the shape: the subspace distance of k components in d dimensions is
    at most sqrt(min(k, d - k)) (:meth:`upper`).
    """

    name: str
    label: str
    unit: str
    low: float
    high: float | None
    lower_is_better: bool
    default_target: float
    symbol: str  # a short axis title: the quantity's symbol or unit

    def upper(self, k: int, d: int) -> float:
        return float(np.sqrt(min(k, d - k))) if self.high is None else self.high

    def describe(self) -> str:
        better = "lower" if self.lower_is_better else "higher"
        return f"{self.label}{f' ({self.unit})' if self.unit else ''}, {better} is better"

    def check_target(self, target: float, k: int, d: int) -> float:
        """``target`` if it lies in the metric's range, else ValueError saying the range and the unit."""
        hi = self.upper(k, d)
        if not (np.isfinite(target) and self.low <= target <= hi):
            raise ValueError(f"a target for {self.label} must lie between {self.low:g} and {hi:.3g}"
                             f"{' ' + self.unit if self.unit else ''} (got {target:g}).")
        return float(target)

    def meets(self, values, target: float) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        return values <= target if self.lower_is_better else values >= target


METRICS = {m.name: m for m in (
    Metric("subspace_distance", "Subspace distance ‖sin Θ‖_F", "", 0.0, None, True, 0.3, "‖sin Θ‖_F"),
    Metric("energy", "Captured energy", "% of optimal", 0.0, 100.0, False, 90.0, "% of optimal"),
    Metric("f1", "Support recovery F1", "", 0.0, 1.0, False, 0.8, "F1"),
)}


@dataclass
class Repetitions:
    """``reps`` independent releases of one mechanism and one diagnostic value per repetition.

    Each release is scored against the exact reference at its own k: with k chosen privately (``k="auto"``) the
    repetitions may keep different numbers of components, and ``components`` is then a list of d x k_i arrays.
    """

    mechanism: str
    components: np.ndarray | list      # reps x d x k (a list of d x k_i arrays when the repetitions' k differ)
    distance: np.ndarray               # ||sin Theta||_F to the non-private top-k subspace (k: the release's own)
    energy: np.ndarray                 # tr(V^T C V) as % of the best rank-k value (k: the release's own)
    precision: np.ndarray | None       # support recovery, when a support is given
    recall: np.ndarray | None
    f1: np.ndarray | None
    first: object = field(repr=False)  # the first repetition's Release
    radius: np.ndarray | None = None   # the clipping radius each repetition chose privately (published), if it did
    k: np.ndarray | None = None        # the k each repetition chose privately (published), if it did
    scales: np.ndarray | None = None   # reps x d: the column scales each repetition chose privately (published)

    def metric(self, name: str) -> np.ndarray | None:
        return {"subspace_distance": self.distance, "energy": self.energy, "f1": self.f1}[name]


def rep_seed(seed: int, rep: int, mechanism: str) -> np.random.SeedSequence:
    """Independent, reproducible noise for each (seed, repetition, mechanism)."""
    return np.random.SeedSequence([int(seed), int(rep), zlib.crc32(mechanism.encode())])


#: A repetition shorter than this (wall seconds) gains nothing from a second thread (measured in
#: ``docs/benchmarks.md``: thread start-up and contention eat the gain).
THREADED_MIN_SECONDS = 0.02


def release_input(data: PreparedData, radius: RadiusRule | None = None, scale: ScaleRule | None = None,
                  rows=None) -> tuple:
    """What each complete release reads: (X, data_norm, further :func:`release_pca` options).

    Public R and scaling: the prepared rows and their R. R chosen privately (``radius``): the rows in the data's
    units, clipped to the rule's upper bound (the largest R it can choose: clipping there first changes nothing).
    Columns scaled privately (``scale``): the raw rows ``rows`` (:attr:`ExperimentInput.rows`), which each release
    scales with its own private scales before choosing or applying R.
    """
    extra = {**(radius.release_args() if radius is not None else {}),
             **(scale.release_args() if scale is not None else {})}
    data_norm = "private" if radius is not None else data.data_norm
    if scale is not None:
        if rows is None:
            raise ValueError("scaling the columns privately reads the raw rows: pass them (ExperimentInput.rows).")
        return rows, data_norm, extra
    return (data.rows * data.data_norm if radius is not None else data), data_norm, extra


def _stacked(components: list):
    """The repetitions' components as one reps x d x k array, or the list itself when their k differ."""
    return np.asarray(components) if len({V.shape for V in components}) <= 1 else list(components)


def k_counts(ks) -> list[tuple[int, int]]:
    """(k, how many releases chose it), the most frequent first (ties: the smaller k first)."""
    values, counts = np.unique(np.asarray(ks, dtype=int), return_counts=True)
    return sorted(((int(v), int(c)) for v, c in zip(values, counts)), key=lambda vc: (-vc[1], vc[0]))


def describe_k(ks) -> str:
    """The k's chosen over repetitions in words: "3 in 18 of 20 releases, 4 in 2"."""
    counts = k_counts(ks)
    total = sum(c for _, c in counts)
    (k0, c0), rest = counts[0], counts[1:]
    return ", ".join([f"{k0} in {c0} of {total} release{'s' if total > 1 else ''}"] + [f"{k} in {c}" for k, c in rest])


def _asks_more(options: ReleaseOptions) -> bool:
    """Whether the options ask for more than the mechanism's own release (a score plot's or k's options)."""
    return (any(getattr(options, name) is not None for name in ("score_bins", "variance_target", "score_groups",
                                                                 "score_group_labels"))
            or options.score_frame != "public" or options.score_kind != "additive")


def repeat(mechanism: str, data: PreparedData, k=None, epsilon: float | None = None, delta: float = 1e-6,
           neighbors: str = "replace", reps: int = 1, seed: int = 0, params: dict | None = None,
           reference: Reference | None = None, support=None, s: int = 0, budget: BudgetSplit | None = None,
           center: str = "none", workers: int | None = None, radius: RadiusRule | None = None,
           release_args: dict | None = None, scale: ScaleRule | None = None, rows=None,
           options: ReleaseOptions | None = None) -> Repetitions:
    """Run ``mechanism`` ``reps`` times with seeds :func:`rep_seed` and score each release.

    With a ``budget`` or ``center="private"`` each repetition is a complete release (:func:`release_pca`): the
    subspace gets its share of (epsilon, delta) and the scores compare it with the centred reference.

    ``workers``: threads the repetitions run on. Default: two (at most the cores) for mechanisms registered with
    ``threaded_reps`` (their time goes to loops that release the GIL) when the first repetition took at least
    :data:`THREADED_MIN_SECONDS`, else one (BLAS already uses every core; short runs gain nothing). Each
    repetition has its own seed, so the results do not depend on the number of threads.

    ``radius`` (a :class:`RadiusRule`): each repetition chooses its clipping radius privately from the budget's
    radius share (``data`` holds the rows clipped to the rule's upper bound, as :func:`prepare_input` makes them);
    the radii chosen are in ``Repetitions.radius``. ``scale`` (a :class:`ScaleRule`) with ``rows`` (the raw rows,
    :attr:`ExperimentInput.rows`): each repetition scales the columns privately from the scale share; the scales
    chosen are in ``Repetitions.scales``. ``k="auto"`` (with ``variance_target`` in ``release_args``): each
    repetition keeps the smallest k whose private explained-variance ratios sum above the target, is scored against
    the exact top-k of its own k, and the k's chosen are in ``Repetitions.k``; with ``s`` > 0 and no ``support``,
    each is scored against the top-s rows of the exact top-k of its own k. ``release_args``: further options of
    each complete release (:func:`release_pca`: the score plot's ``score_groups``, ``score_frame``, ``score_kind``).
    ``options`` (:class:`dppca_core.pipeline.options.ReleaseOptions`): all of those in one checked object instead (the radius
    and the scaling still from ``radius``, ``scale`` and ``data``, as :func:`prepare_input` made them).
    """
    if not 1 <= int(reps) <= 1000:
        raise ValueError(f"repetitions must be between 1 and 1000 (got {reps}).")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1 (got {workers!r}).")
    if options is None:
        options = ReleaseOptions(k=k, epsilon=epsilon, delta=delta, neighbors=neighbors, budget=budget,
                                 center=center, params=params or {}, **(release_args or {}))
    k, auto_k, center = options.k, options.auto_k, options.center
    full = (options.budget is not None or center == "private" or radius is not None or scale is not None or auto_k
            or _asks_more(options))
    reference = reference or Reference.of(data, centred=center == "private")
    X, data_norm, extra = release_input(data, radius, scale, rows)
    options = options.replace(data_norm=data_norm, **extra)
    per_release_support = auto_k and support is None and s > 0

    def release_of(rep: int):
        rng = np.random.default_rng(rep_seed(seed, rep, mechanism))
        if full:
            return complete_release(mechanism, X, options, rng)
        return run(mechanism, data, k, options.epsilon, options.delta, options.neighbors, data.data_norm, rng,
                   **options.params)

    comps, dist, energy, prec, rec, f1, radii, ks, scales = [], [], [], [], [], [], [], [], []

    def score(release) -> None:
        V = release.components
        kept = V.shape[1] if auto_k else k  # the k asked for, or the one this release chose privately
        ref, best = reference.vectors[:, :kept], float(np.sum(reference.eigenvalues[:kept]))
        if radius is not None:
            radii.append(release.outputs["radius"]["value"])
        if scale is not None:
            scales.append(np.asarray(release.outputs["column_scales"], dtype=float))
        if auto_k:
            ks.append(kept)
        comps.append(V)
        dist.append(metrics.subspace_distance(V, ref))
        energy.append(100.0 * metrics.captured_energy(V, reference.gram) / best if best > 0 else np.nan)
        target = support_for(reference, None, s, kept) if per_release_support else support
        if target is not None:
            sr = metrics.support_recovery(V, np.asarray(target), s if s > 0 else len(target))
            prec.append(sr["precision"]), rec.append(sr["recall"]), f1.append(sr["f1"])

    releases = _in_order(release_of, int(reps), workers, mechanism)
    first = next(releases)
    for release in (first, *releases):  # scored in order of repetition (the first before any thread starts)
        score(release)
    def arr(values):
        return np.asarray(values) if support is not None or per_release_support else None
    return Repetitions(mechanism, _stacked(comps), np.asarray(dist), np.asarray(energy), arr(prec), arr(rec),
                       arr(f1), first, np.asarray(radii) if radius is not None else None,
                       np.asarray(ks) if auto_k else None, np.asarray(scales) if scale is not None else None)


def _in_order(release_of, reps: int, workers: int | None, mechanism: str):
    """The repetitions' releases in order: the first alone (a refused setting raises before any thread starts),
    then the others on ``workers`` threads (default: see :func:`repeat`)."""
    started = time.perf_counter()
    first = release_of(0)
    long_enough = time.perf_counter() - started >= THREADED_MIN_SECONDS
    yield first
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if get_mechanism(mechanism).threaded_reps and long_enough else 1
    if workers > 1 and reps > 1:
        with ThreadPoolExecutor(min(int(workers), reps - 1)) as pool:
            yield from pool.map(release_of, range(1, reps))
    else:
        for rep in range(1, reps):
            yield release_of(rep)


def subsample_rows(n_rows: int, size: int, seed: int) -> np.ndarray:
    """Indices of ``size`` of ``n_rows`` rows drawn without replacement, seeded: the first ``size`` of one seeded
    permutation, so the subsamples of one seed are nested (each smaller table lies inside the larger ones, and a
    sweep of n changes only the number of rows). For exploration: what the analysis would give on fewer rows of
    the same kind (an exploration record, not a release)."""
    if not 1 <= int(size) <= int(n_rows):
        raise ValueError(f"a subsample holds between 1 and the table's {n_rows} rows (got {size}).")
    order = np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(b"subsample")])).permutation(n_rows)
    return np.sort(order[: int(size)])


def support_for(reference: Reference, planted, s: int, k: int):
    """The support recovery is scored against: the planted one if known, else the top-s rows of the non-private
    top-k basis (None when there is neither, or when k is chosen privately, ``k="auto"``: :func:`repeat` then scores
    each release against the top-s rows of the exact top-k of its own k)."""
    if planted is not None:
        return np.asarray(planted)
    if s <= 0 or isinstance(k, str):
        return None
    return metrics.row_support(reference.vectors[:, :k], s)


def summary(values) -> tuple[float, float, float] | None:
    """Mean and the 2.5% / 97.5% quantiles over repetitions (None when there are no values)."""
    if values is None or len(values) == 0:
        return None
    v = np.asarray(values, dtype=float)
    return float(np.mean(v)), float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))


#: the results table's column of the radii chosen privately (a published output, not a diagnostic)
RADIUS_COLUMN = "R chosen privately (published)"
#: the results table's column of the k's chosen privately (published by each release)
K_COLUMN = "k chosen privately (published)"


def results_table(results: dict) -> pd.DataFrame:
    """One row per mechanism: guarantee, noise scale and mean [95% band] of each diagnostic (as text)."""
    rows = []
    for mech, res in results.items():
        pub = res.published if hasattr(res, "published") else res.first.published()
        row = {"mechanism": display_name(mech), "guarantee": pub["guarantee"],
               "noise scale": "none" if pub["noise_scale"] is None else f"{pub['noise_scale']:.4g}"}
        for label, values, fmt in (("subspace distance", res.distance, "{:.3f}"),
                                   ("captured energy %", res.energy, "{:.1f}"), ("support F1", res.f1, "{:.2f}")):
            s = summary(values)
            row[label] = "n/a" if s is None else f"{fmt.format(s[0])} [{fmt.format(s[1])}, {fmt.format(s[2])}]"
        s = summary(getattr(res, "radius", None))
        if s is not None:  # published by each release (its radius share), summarised over the repetitions
            row[RADIUS_COLUMN] = f"{s[0]:.4g} [{s[1]:.4g}, {s[2]:.4g}]"
        if getattr(res, "k", None) is not None:
            row[K_COLUMN] = describe_k(res.k)
        rows.append(row)
    return pd.DataFrame(rows)


def compare(data: PreparedData | ExperimentInput, mechanisms: list, k, epsilon: float, delta: float,
            neighbors: str, reps: int, seed: int, params: dict | None = None, support=None, s: int = 0,
            budget: BudgetSplit | None = None, center: str = "none",
            release_args: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """Repetitions of several mechanisms on the same data: (the results table, {mechanism: Repetitions}).

    ``data`` is best an :class:`ExperimentInput` (:func:`prepare_input`, as the dashboard builds it): its reference
    and centring are then used and ``center`` is ignored. ``params`` maps a mechanism to its parameters;
    ``support`` is a planted support (else, with ``s`` > 0, the top-s rows of the non-private basis are used, as
    the dashboard does); ``budget`` splits each release's budget (:func:`dppca_core.release_pca`);
    ``release_args`` are further options of each release (the score plot's, as :func:`repeat` takes them; with
    ``k="auto"`` the ``variance_target``).

    A mechanism whose settings are refused (ValueError) is reported in the table's guarantee column instead
    of stopping the others.
    """
    radius = scale = rows = None
    if isinstance(data, ExperimentInput):
        data, reference, center, radius, scale, rows = (data.data, data.reference, data.release_center, data.radius,
                                                        data.scale, data.rows)
    else:
        reference = Reference.of(data, centred=center == "private")
    support = support_for(reference, support, s, k)
    results, refused = {}, []
    for mech in mechanisms:
        try:
            results[mech] = repeat(mech, data, k, epsilon, delta, neighbors, reps, seed,
                                   (params or {}).get(mech, {}), reference, support, s, budget, center,
                                   radius=radius, release_args=release_args, scale=scale, rows=rows)
        except ValueError as exc:
            refused.append({"mechanism": display_name(mech), "guarantee": f"not run: {exc}"})
    table = pd.concat([results_table(results), pd.DataFrame(refused)], ignore_index=True) if refused else \
        results_table(results)
    return table, results

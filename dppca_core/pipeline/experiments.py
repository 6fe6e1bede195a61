"""Repeated releases of mechanisms and their utility diagnostics: what the dashboard and its exported script show.

The diagnostics compare each release with the non-private top-k subspace of the same clipped data (and with a
planted support when one is known). They use the raw data: they are **not private**; they show what privacy
costs. The releases themselves are what :meth:`dppca_core.Release.published` gives.

The dashboard and the script it exports both call :func:`compare`, so a script prints exactly the table the
Report page shows.
"""

from __future__ import annotations

import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import metrics
from ..api import run
from .budget import release_with as complete_release
from .inputs import (
    CENTRING as CENTRING,
    PRIVATE_CENTRE_NOTE as PRIVATE_CENTRE_NOTE,
    PRIVATE_SCALE_NOTE as PRIVATE_SCALE_NOTE,
    ExperimentInput,
    RadiusRule as RadiusRule,
    Reference,
    ScaleRule as ScaleRule,
    input_for as input_for,
    oracle_radius as oracle_radius,
    prepare_input as prepare_input,
    release_input,
    scale_columns as scale_columns,
)
from .options import ReleaseOptions
from ..data.prepare import PreparedData
from ..registry import display_name, get_mechanism


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


#: the metrics every release is scored with (declared in :mod:`dppca_core.metrics`, where a metric is added)
METRICS = metrics.METRICS
Metric = metrics.Metric


@dataclass
class Repetitions:
    """``reps`` independent releases of one mechanism and each metric's value per repetition (``scores``: metric name
    -> an array, or None where the metric does not apply, e.g. support recovery without a support; :data:`METRICS`).

    Each release is scored against the exact reference at its own k: with k chosen privately (``k="auto"``) the
    repetitions may keep different numbers of components, and ``components`` is then a list of d x k_i arrays.
    """

    mechanism: str
    components: np.ndarray | list  # reps x d x k (a list of d x k_i arrays when the repetitions' k differ)
    scores: dict  # metric name -> reps values (k: the release's own), or None
    precision: np.ndarray | None  # support recovery's parts, when a support is scored
    recall: np.ndarray | None
    first: object = field(repr=False)  # the first repetition's Release
    radius: np.ndarray | None = None  # the clipping radius each repetition chose privately (published), if it did
    k: np.ndarray | None = None  # the k each repetition chose privately (published), if it did
    scales: np.ndarray | None = None  # reps x d: the column scales each repetition chose privately (published)

    def metric(self, name: str) -> np.ndarray | None:
        return self.scores[name]

    @property
    def distance(self) -> np.ndarray:
        """||sin Theta||_F to the non-private top-k subspace."""
        return self.scores["subspace_distance"]

    @property
    def energy(self) -> np.ndarray:
        """tr(V^T C V) as % of the best rank-k value."""
        return self.scores["energy"]

    @property
    def f1(self) -> np.ndarray | None:
        return self.scores["f1"]


def rep_seed(seed: int, rep: int, mechanism: str) -> np.random.SeedSequence:
    """Independent, reproducible noise for each (seed, repetition, mechanism)."""
    return np.random.SeedSequence([int(seed), int(rep), zlib.crc32(mechanism.encode())])


#: A repetition shorter than this (wall seconds) gains nothing from a second thread (measured in
#: ``docs/benchmarks.md``: thread start-up and contention eat the gain).
THREADED_MIN_SECONDS = 0.02


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
    return (
        any(
            getattr(options, name) is not None
            for name in ("score_bins", "variance_target", "score_groups", "score_group_labels")
        )
        or options.score_frame != "public"
        or options.score_kind != "additive"
    )


def repeat(
    mechanism: str,
    data: PreparedData | ExperimentInput,
    options: ReleaseOptions,
    *,
    reps: int = 1,
    seed: int = 0,
    reference: Reference | None = None,
    support=None,
    s: int = 0,
    workers: int | None = None,
    rows=None,
) -> Repetitions:
    """Run ``mechanism`` ``reps`` times with seeds :func:`rep_seed` and score each release.

    ``data``: the input :func:`input_for` made from the same ``options`` (an :class:`ExperimentInput`, whose
    reference and raw rows are then used), or its :class:`PreparedData`. ``options`` (a
    :class:`~dppca_core.pipeline.options.ReleaseOptions`): every choice of each release, checked once; what each
    release reads is :func:`release_input`'s answer. When the options ask for more than the mechanism's own release
    (a budget split, a private centre, radius, scaling or k, a score plot) each repetition is a complete release
    (:func:`dppca_core.release_with`): the subspace gets its share of (epsilon, delta) and the scores compare it with
    the centred reference.

    ``workers``: threads the repetitions run on. Default: two (at most the cores) for mechanisms registered with
    ``threaded_reps`` (their time goes to loops that release the GIL) when the first repetition took at least
    :data:`THREADED_MIN_SECONDS`, else one (BLAS already uses every core; short runs gain nothing). Each
    repetition has its own seed, so the results do not depend on the number of threads.

    R chosen privately (``data_norm="private"``): each repetition chooses its clipping radius from the budget's
    radius share, and the radii chosen are in ``Repetitions.radius``. Columns scaled privately (``scale="private"``,
    with ``rows`` the raw rows, :attr:`ExperimentInput.rows`): the scales chosen are in ``Repetitions.scales``.
    ``k="auto"`` (with ``variance_target``): each repetition keeps the smallest k whose private explained-variance
    ratios sum above the target, is scored against the exact top-k of its own k, and the k's chosen are in
    ``Repetitions.k``; with ``s`` > 0 and no ``support``, each is scored against the top-s rows of the exact top-k of
    its own k.
    """
    if not isinstance(options, ReleaseOptions):
        raise TypeError(
            f"repeat takes every option of the releases as one ReleaseOptions (got {type(options).__name__}): "
            "build it with dppca_core.ReleaseOptions(k=..., epsilon=..., ...)."
        )
    _check_counts(reps, workers)
    if isinstance(data, ExperimentInput):
        reference = reference or data.reference
    X, options = release_input(data, options, rows)
    data = data.data if isinstance(data, ExperimentInput) else data
    reference = reference or Reference.of(data, centred=options.center == "private")
    release_of = _release_maker(mechanism, data, X, options, seed)
    private_scale = options.scale == "private"
    scores = _Scores(reference, options.k, options.auto_k, support, s, options.private_radius, private_scale)
    releases = _in_order(release_of, int(reps), workers, mechanism)
    first = next(releases)
    for release in (first, *releases):  # scored in order of repetition (the first before any thread starts)
        scores.add(release)
    return scores.repetitions(mechanism, first)


def _release_maker(mechanism: str, data: PreparedData, X, options: ReleaseOptions, seed: int):
    """The function of a repetition's index that makes its release with seed :func:`rep_seed`: a complete release
    (:func:`dppca_core.pipeline.budget.release_with`) of ``X`` when the options ask for more than the mechanism's own
    release (a budget split, a private centre, radius, scaling or k, a score plot), else the mechanism's run on
    ``data``."""
    full = (
        options.budget is not None
        or options.center == "private"
        or options.private_radius
        or options.scale != "none"
        or options.auto_k
        or _asks_more(options)
    )

    def release_of(rep: int):
        rng = np.random.default_rng(rep_seed(seed, rep, mechanism))
        if full:
            return complete_release(mechanism, X, options, rng)
        return run(
            mechanism,
            data,
            options.k,
            options.epsilon,
            options.delta,
            options.neighbors,
            data.data_norm,
            rng,
            **options.params,
        )

    return release_of


def _check_counts(reps, workers) -> None:
    """ValueError unless ``reps`` lies in 1..1000 and ``workers`` is None or a whole number >= 1."""
    if not 1 <= int(reps) <= 1000:
        raise ValueError(f"repetitions must be between 1 and 1000 (got {reps}).")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1 (got {workers!r}).")


@dataclass
class _Scores:
    """The diagnostics of :func:`repeat`'s releases, one per repetition in order, against ``reference``.

    With ``auto_k`` each release is scored at the k it chose (and, with ``s`` > 0 and no ``support``, against the
    top-s rows of the exact top-k of its own k); ``radius``/``scale``: the releases chose R / the column scales
    privately, and those published values are kept.
    """

    reference: Reference
    k: int | None
    auto_k: bool
    support: object
    s: int
    radius: bool
    scale: bool
    values: dict = field(
        default_factory=lambda: {name: [] for name in ("components", "precision", "recall", "radius", "k", "scales")}
    )
    scores: dict = field(default_factory=lambda: {name: [] for name in METRICS})

    @property
    def per_release_support(self) -> bool:
        return self.auto_k and self.support is None and self.s > 0

    def add(self, release) -> None:
        V, values, reference = release.components, self.values, self.reference
        kept = V.shape[1] if self.auto_k else self.k  # the k asked for, or the one this release chose privately
        if self.radius:
            values["radius"].append(release.outputs["radius"]["value"])
        if self.scale:
            values["scales"].append(np.asarray(release.outputs["column_scales"], dtype=float))
        if self.auto_k:
            values["k"].append(kept)
        values["components"].append(V)
        target = support_for(reference, None, self.s, kept) if self.per_release_support else self.support
        scoring = metrics.Scoring(
            V,
            reference.vectors[:, :kept],
            reference.gram,
            reference.eigenvalues,
            None if target is None else np.asarray(target),
            self.s,
        )
        for name, metric in METRICS.items():
            if metric.applies(scoring):
                self.scores.setdefault(name, []).append(metric.score(scoring))
        if target is not None:
            sr = metrics.support_recovery(V, np.asarray(target), self.s if self.s > 0 else len(target))
            for name in ("precision", "recall"):
                values[name].append(sr[name])

    def repetitions(self, mechanism: str, first) -> Repetitions:
        values = self.values
        scored = self.support is not None or self.per_release_support

        def kept(name: str, asked: bool):
            return np.asarray(values[name]) if asked else None

        return Repetitions(
            mechanism,
            _stacked(values["components"]),
            {name: np.asarray(self.scores[name]) if self.scores.get(name) else None for name in METRICS},
            kept("precision", scored),
            kept("recall", scored),
            first,
            kept("radius", self.radius),
            kept("k", self.auto_k),
            kept("scales", self.scale),
        )


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
        row = {
            "mechanism": display_name(mech),
            "guarantee": pub["guarantee"],
            "noise scale": "none" if pub["noise_scale"] is None else f"{pub['noise_scale']:.4g}",
        }
        for metric in METRICS.values():
            s, fmt = summary(res.metric(metric.name)), metric.fmt.format
            row[metric.column] = "n/a" if s is None else f"{fmt(s[0])} [{fmt(s[1])}, {fmt(s[2])}]"
        s = summary(getattr(res, "radius", None))
        if s is not None:  # published by each release (its radius share), summarised over the repetitions
            row[RADIUS_COLUMN] = f"{s[0]:.4g} [{s[1]:.4g}, {s[2]:.4g}]"
        if getattr(res, "k", None) is not None:
            row[K_COLUMN] = describe_k(res.k)
        rows.append(row)
    return pd.DataFrame(rows)


def compare(
    data: PreparedData | ExperimentInput,
    options: Mapping[str, ReleaseOptions],
    *,
    reps: int,
    seed: int,
    support=None,
    s: int = 0,
) -> tuple[pd.DataFrame, dict]:
    """Repetitions of several mechanisms on the same data: (the results table, {mechanism: Repetitions}).

    ``data`` is best the :class:`ExperimentInput` :func:`input_for` made from the same options (as the dashboard
    builds it): its reference is then used. ``options`` maps each mechanism to its releases' options
    (:func:`dppca_core.scenario.release.scenario_options` translates a scenario into them); ``support`` is a
    planted support (else, with ``s`` > 0, the top-s rows of the non-private basis are used, as the dashboard does).

    A mechanism whose settings are refused (ValueError) is reported in the table's guarantee column instead
    of stopping the others.
    """
    if not isinstance(options, Mapping):
        raise TypeError(
            f"compare takes {{mechanism: ReleaseOptions}} (got {type(options).__name__}): one options object per "
            "mechanism, e.g. dppca_core.scenario.release.scenario_options(vals)."
        )
    prepared = data.data if isinstance(data, ExperimentInput) else data
    results, refused = {}, []
    for mech, opts in options.items():
        try:
            reference = (
                data.reference
                if isinstance(data, ExperimentInput)
                else Reference.of(prepared, centred=opts.center == "private")
            )
            results[mech] = repeat(
                mech,
                data,
                opts,
                reps=reps,
                seed=seed,
                reference=reference,
                support=support_for(reference, support, s, opts.k),
                s=s,
            )
        except ValueError as exc:
            refused.append({"mechanism": display_name(mech), "guarantee": f"not run: {exc}"})
    table = (
        pd.concat([results_table(results), pd.DataFrame(refused)], ignore_index=True)
        if refused
        else results_table(results)
    )
    return table, results

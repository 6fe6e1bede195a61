"""Repeated runs of a mechanism and their diagnostics, cached on (data hash, parameters, seed).

The cache key contains the sha256 of the data (``Prepared.key``), every parameter and the seed, so
a cached result is only reused for exactly the same draw; a new seed gives fresh noise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import streamlit as st

import dppca_core as dc
from dppca_core import metrics
from dppca_core.pipeline import experiments
from dppca_core.pipeline.options import ReleaseOptions
from dppca_core.registry import display_name
from dppca_core.scenario import release as translation
from dppca_core.scenario import Settings

from . import data, limits
from .data import Prepared


class _Titles(Mapping):
    """Each metric's axis title (its label, unit and direction), read from the metrics as they are registered
    (:data:`dppca_core.metrics.METRICS`, where a metric is declared)."""

    def __getitem__(self, name: str) -> str:
        return experiments.METRICS[name].describe()

    def __iter__(self):
        return iter(experiments.METRICS)

    def __len__(self) -> int:
        return len(experiments.METRICS)


#: each metric's axis title, by name
METRICS = _Titles()


@dataclass
class RunResult:
    """``reps`` independent releases of one mechanism and their diagnostics (one value per repetition).

    ``published`` is what the first repetition publishes (:meth:`dppca_core.Release.published`): exports and the
    guarantee wording come from it. ``warnings`` are non-private diagnostics (e.g. how many rows were clipped).
    """

    mechanism: str
    components: np.ndarray  # reps x d x k
    scores: dict  # metric name -> reps values, or None where it does not apply (dppca_core.metrics.METRICS)
    precision: np.ndarray | None
    recall: np.ndarray | None
    published: dict
    privacy: dc.privacy.PrivacyCurve
    caveat: str
    warnings: list
    seconds: float  # of the first repetition (a non-private diagnostic)
    trace: list | None = None  # distance to the reference per iteration (first repetition), if iterative
    radius: np.ndarray | None = None  # reps: the clipping radius each release chose privately (published), if so
    k: np.ndarray | None = None  # reps: the k each release chose privately (published), if so
    scales: np.ndarray | None = None  # reps x d: the column scales each release chose privately (published), if so

    @property
    def guarantee(self) -> str:
        return self.published["guarantee"]

    @property
    def guarantee_text(self) -> str:
        return self.published["guarantee_text"]

    @property
    def noise_scale(self) -> float | None:
        return self.published["noise_scale"]

    def metric(self, name: str) -> np.ndarray | None:
        return self.scores[name]

    distance = experiments.Repetitions.distance  # the built-in metrics by name, as the pages read them
    energy = experiments.Repetitions.energy
    f1 = experiments.Repetitions.f1


@dataclass
class PrivatelyScaled(Prepared):
    """The input of releases that scale each column privately: ``rows`` (the raw rows each release reads, data
    units) and ``scale`` (the public bounds); ``data`` and ``ref`` are the rows divided by their exact
    root-mean-squares (not private), what the private scales aim at."""

    scale: experiments.ScaleRule | None = None
    rows: np.ndarray | None = None


def prepare(ds, vals: dict) -> Prepared:
    """The mechanisms' input and the non-private reference (:func:`ui.data.prepare`), and with the columns scaled
    privately inside each release (``scale="private"``) a :class:`PrivatelyScaled` input, cached alike."""
    s = Settings(vals)
    rule = translation.scale_rule(vals, ds.d)
    if rule is None:
        return data.prepare(ds, vals)
    if ds.stats is not None:
        raise ValueError(
            "scaling each column privately reads every row, which a file streamed into sufficient "
            "statistics no longer has: turn the scaling off (or upload a sample of the rows)."
        )
    radius = translation.radius_rule(vals)
    args = (ds.key, s.centring, "private" if radius is not None else float(s.radius), rule, radius, ds.X)
    if limits.scaled_entry_bytes(ds.n, ds.d) > limits.SCALED_CACHE_BYTES // limits.SCALED_CACHE_ENTRIES:
        return scaled_input(*args)  # over its share of the byte budget: computed for this run, not kept
    return _prepare_scaled(*args)


def scaled_input(key: str, center: str, R, rule, radius, X: np.ndarray) -> PrivatelyScaled:
    """:func:`dppca_core.pipeline.experiments.prepare_input` with a ScaleRule: the same path as the Report's
    script."""
    inp = experiments.prepare_input(X, R, center, rule, radius)
    return PrivatelyScaled.of(inp, key, center, R, rule, radius, scale=rule, rows=inp.rows)


@st.cache_resource(max_entries=limits.SCALED_CACHE_ENTRIES, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _prepare_scaled(key: str, center: str, R, rule, radius, _X: np.ndarray) -> PrivatelyScaled:
    """:func:`scaled_input` once per (dataset, centring, R, bounds, radius rule), shared by sessions; only inputs
    within their share of the byte budget come here (:func:`prepare`, ui/limits.py)."""
    return scaled_input(key, center, R, rule, radius, _X)


def release_rows(prep: Prepared) -> dict:
    """What a release of ``prep`` reads beyond the prepared rows: the raw rows when each release scales the columns
    privately (the keyword ``rows`` of :func:`dppca_core.pipeline.experiments.repeat` and
    :func:`dppca_core.pipeline.inputs.release_input`), else nothing."""
    return {"rows": prep.rows} if isinstance(prep, PrivatelyScaled) else {}


def true_support(prep: Prepared, planted, s: int, k: int):
    """Support used for recovery: the planted one if known, else the top-s rows of the non-private basis."""
    return experiments.support_for(prep.ref, planted, s, k)


def scenario_options(ds, vals: dict, mechs=None) -> dict:
    """{mechanism: ReleaseOptions} of the scenario on ``ds`` (its label column and its number of columns): the one
    translation (:func:`dppca_core.scenario.release.scenario_options`) the script and the notebooks use too."""
    return translation.scenario_options(vals, ds.labels, ds.d, mechs)


def run_reps(
    prep: Prepared,
    mechanism: str,
    options: ReleaseOptions,
    *,
    reps: int,
    seed: int,
    s: int = 0,
    planted_support=None,
) -> RunResult:
    """Cached ``reps`` releases of ``mechanism`` with ``options`` (:func:`scenario_options`) on the prepared data
    (shared by every session with the same inputs): :func:`dppca_core.pipeline.experiments.repeat`. A
    :class:`PrivatelyScaled` ``prep`` gives the raw rows to releases that scale the columns privately."""
    support = true_support(prep, planted_support, s, options.k)
    support_key = None if support is None else tuple(int(i) for i in support)
    return _run_reps(
        prep.key, mechanism, int(reps), int(seed), int(s), support_key, options.key(), _prep=prep, _options=options
    )


def run_selected(ds, prep: Prepared, vals: dict, reps_field: str = "reps") -> tuple[dict, dict]:
    """Repetitions of every selected mechanism at the scenario's settings.

    Returns ({mechanism: RunResult}, {mechanism: message}) — a mechanism whose settings do not work (e.g. a
    relation it has no proof for) gets a message and the others still run. A setting without the share it needs
    raises ValueError, for every mechanism alike.
    """
    s = Settings(vals)
    results, problems = {}, {}
    for mech, options in scenario_options(ds, vals).items():
        try:  # the score plot's options are per mechanism (dppca_core.scenario.release.score_plan): never a refusal
            results[mech] = run_reps(
                prep,
                mech,
                options,
                reps=int(vals[reps_field]),
                seed=int(s.seed),
                s=int(s.support_size),
                planted_support=ds.support,
            )
        except ValueError as exc:
            problems[mech] = str(exc)
    return results, problems


@st.cache_data(max_entries=256, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _run_reps(key, mechanism, reps, seed, s, support, options_key, _prep, _options):
    """Cached on every input (the data's hash and centring/radius in ``key``, every option of the releases in
    ``options_key``: :meth:`dppca_core.pipeline.options.ReleaseOptions.key`), shared by every session."""
    reps_out = experiments.repeat(
        mechanism,
        _prep.data,
        _options,
        reps=reps,
        seed=seed,
        reference=_prep.ref,
        support=None if support is None else np.asarray(support),
        s=s,
        **release_rows(_prep),
    )
    release = reps_out.first
    # iterates: published where the proof covers them (noisy power methods), else a non-private diagnostic
    iterates = release.outputs.get("iterates") or release.diagnostics.get("iterates")
    kept = release.components.shape[1]  # k, or the k the first release chose privately
    ref = _prep.reference[:, :kept]
    trace = [metrics.subspace_distance(Q[:, :kept], ref) for Q in iterates] if iterates else None
    return RunResult(
        mechanism=mechanism,
        components=reps_out.components,
        scores=reps_out.scores,
        precision=reps_out.precision,
        recall=reps_out.recall,
        published=release.published(),
        privacy=release.privacy,
        caveat=release.caveat,
        warnings=list(release.diagnostics.get("warnings", [])),
        seconds=float(release.diagnostics.get("seconds", 0.0)),
        trace=trace,
        radius=reps_out.radius,
        k=reps_out.k,
        scales=reps_out.scales,
    )


summary = experiments.summary


def axis_range(metric: str, k: int, d: int) -> tuple[float, float]:
    """A metric's fixed axis: from 0 to its largest possible value (energy 0-100%, F1 0-1, distance 0 to
    sqrt(min(k, d - k))), with a little room, so a change of ε moves the dots, not the axis."""
    return (0.0, 1.05 * experiments.METRICS[metric].upper(k, d))


SWEEPS = {
    "eps": ("ε", [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0], True),
    "n": ("rows n", [250, 500, 1000, 2000, 5000, 10000], True),
    "d": ("features d", [5, 10, 20, 40, 80], True),
    "delta": ("δ", [1e-10, 1e-8, 1e-6, 1e-4, 1e-2], True),
    "k": ("components k", [1, 2, 3, 4, 5, 6], False),
    "s": ("support size s", [2, 5, 10, 20, 40], True),
}
SYNTHETIC_ONLY = ("d",)
#: a sweep of n on a table (not synthetic data, which are drawn anew at each n): the table subsampled to these
#: fractions of its rows (measured); past them, the what-if of ui/whatif.py
SUBSAMPLE_FRACTIONS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1)
#: axes the planner answers on, with the range a sweep may be extended to (the scenario's limits)
EXTENDABLE = {"eps": (1e-3, 100.0), "n": (10, 200_000)}


def subsamples(axis: str, vals: dict) -> bool:
    """True when a sweep of ``axis`` subsamples the scenario's table: a sweep of n on data that are not drawn anew."""
    return axis == "n" and Settings(vals).source != "synthetic"


def subsample_grid(n_rows: int, d: int) -> list[int]:
    """The sizes a sweep of n measures on a table of ``n_rows`` rows and ``d`` columns: :data:`SUBSAMPLE_FRACTIONS`
    of its rows, each with more rows than columns (and at least 10), the table itself last."""
    sizes = {int(round(f * n_rows)) for f in SUBSAMPLE_FRACTIONS}
    return sorted(size for size in sizes if size >= max(10, d + 1) or size == n_rows)


def subsample_dataset(ds, size: int, seed: int):
    """``ds`` with ``size`` of its rows (:func:`dppca_core.pipeline.experiments.subsample_rows`, seeded, nested), its labels
    alike; the whole table when ``size`` is its row count. ValueError for a file streamed into statistics."""
    if not ds.has_rows:
        raise ValueError(
            "a file streamed into sufficient statistics keeps no rows to subsample, so n cannot be "
            "swept on it: sweep ε, δ, k or s (or upload a sample of the rows)."
        )
    if size >= ds.n:
        return ds
    idx = experiments.subsample_rows(ds.n, size, seed)
    return dataclasses.replace(
        ds,
        X=ds.X[idx],
        labels=None if ds.labels is None else ds.labels[idx],
        key=f"{ds.key}|rows {size} of {ds.n}, seed {seed}",
        note=f"{ds.note} Subsample of " f"{size:,} rows (seed {seed}).",
    )


def sweep_values(axis: str, vals: dict, ds=None) -> list:
    """The swept values: the axis's default grid, extended (1-2-5 steps) down to ``slo`` and up to ``shi`` when the
    planner's advice asked for it (eps and n only); for n on a table (:func:`subsamples`, ``ds`` its dataset) the
    subsample sizes of :func:`subsample_grid`."""
    s = Settings(vals)
    if subsamples(axis, vals):
        from .data import load_dataset

        ds = ds or load_dataset(vals)
        return subsample_grid(ds.n, ds.d)
    _, base, _ = SWEEPS[axis]
    if axis not in EXTENDABLE or not (s.sweep_low or s.sweep_high):
        return list(base)
    floor, ceiling = EXTENDABLE[axis]
    lo, hi = max(s.sweep_low or base[0], floor), min(s.sweep_high or base[-1], ceiling)
    series = {round(m * 10.0**e, 6) for e in range(-3, 6) for m in (1, 2, 5)} | set(base)
    grid = sorted(v for v in series if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9))
    return [int(v) for v in grid] if axis == "n" else grid


def point_settings(scn: dict, axis: str, value) -> tuple[dict, dict]:
    """(scenario fields, extra mechanism parameters) for one point of a sweep along ``axis``."""
    fields = dict(scn)
    extra = {}
    if axis == "s":
        fields["s"] = int(value)
        extra["sparsity"] = int(value)  # passed only to mechanisms that declare a 'sparsity' parameter
    else:
        fields[axis] = type(scn[axis])(value)
    return fields, extra


def sweep_frame(
    vals: dict,
    axis: str,
    metric: str,
    values,
    reps_field: str = "sreps",
    on_point=None,
    label: str | None = None,
    variant=None,
    dataset=None,
):
    """The rows of a sweep of ``axis`` over ``values`` for the scenario's mechanisms (each point cached by
    :func:`run_reps`), and a message per point that could not be computed. ``on_point(value, mechanism)`` is called
    after each point (a progress bar). ``variant(fields, prepared) -> fields`` runs each point with other settings
    derived from it (e.g. an oracle radius read from the prepared rows). ``dataset(value)``: each point's data
    (e.g. the what-if's tables drawn from a law, :mod:`ui.whatif`)."""
    import pandas as pd

    from .data import load_dataset

    rows, errors = [], []
    table = load_dataset(vals) if subsamples(axis, vals) else None
    seed = int(Settings(vals).seed)  # a subsample's rows
    for value in values:
        fields, extra = point_settings(vals, axis, value)
        if dataset is not None:
            ds = dataset(value)
        else:
            ds = load_dataset(fields) if table is None else subsample_dataset(table, int(value), seed)
        if axis == "k" and value >= ds.d:
            continue
        prep = prepare(ds, fields)
        if variant is not None:
            fields = variant(fields, prep)
            prep = prepare(ds, fields)
        point = Settings(fields)
        for mech in translation.mechanisms(vals):
            spec = dc.get_mechanism(mech)
            more = {k: v for k, v in extra.items() if any(q.name == k for q in spec.params)}
            try:
                options = translation.release_options(fields, mech, ds.labels, ds.d)
                res = run_reps(
                    prep,
                    mech,
                    options.replace(params={**options.params, **more}) if more else options,
                    reps=int(fields[reps_field]),
                    seed=int(point.seed),
                    s=int(point.support_size),
                    planted_support=ds.support,
                )
                rows += sweep_rows(res, metric, axis, value)
            except ValueError as exc:
                errors.append(f"{display_name(mech)} at {label or axis} = {value:g}: {exc}")
            if on_point is not None:
                on_point(value, mech)
    return pd.DataFrame(rows), errors


def sweep_table(frame):
    """A sweep's rows as shown and exported: display names, the band's columns named, the per-repetition values
    left out."""
    table = frame.drop(columns=["values"]).rename(columns={"lo": "2.5%", "hi": "97.5%"})
    table["mechanism"] = table["mechanism"].map(display_name)
    return table


def sweep_rows(res: RunResult, metric: str, axis: str, value) -> list[dict]:
    vals = res.metric(metric)
    if vals is None:
        return []
    mean, lo, hi = summary(vals)
    row = {
        "mechanism": res.mechanism,
        axis: value,
        "mean": mean,
        "lo": lo,
        "hi": hi,
        "reps": len(vals),
        "values": [float(v) for v in vals],
    }
    if res.k is not None:  # published by each release: which k it chose privately
        row["k chosen"] = experiments.describe_k(res.k)
    return [row]


def meets(values, metric: str, target: float) -> np.ndarray:
    """Which values meet ``target`` (in the metric's own unit: % for the captured energy)."""
    return experiments.METRICS[metric].meets(values, target)


def smallest_passing(frame, axis: str, metric: str, target: float, share: float = 0.95) -> dict:
    """Per mechanism, the smallest swept value whose repetitions meet ``target`` in at least ``share`` of cases."""
    out = {}
    for mech, g in frame.groupby("mechanism", sort=False):
        g = g.sort_values(axis)
        ok = [row[axis] for _, row in g.iterrows() if np.mean(meets(row["values"], metric, target)) >= share]
        out[mech] = ok[0] if ok else None
    return out


def next_range(found: dict, axis: str, vals: dict, grid: list) -> dict | None:
    """The planner's advice when the grid does not answer: which range of ``axis`` to sweep next.

    ``found`` maps a mechanism to the smallest passing value (None: not reached). Not reached by some mechanism:
    extend up by a factor of 10 (more ε or more rows); reached by every mechanism at the grid's first value: the
    answer may be smaller, so extend down by 10. Returns {"lo", "hi", "text", "button"} for the scenario's ``slo``
    and ``shi``, or None when the grid answers (or the scenario's limit is reached: then "text" says so).
    """
    s = Settings(vals)
    floor, ceiling = EXTENDABLE[axis]
    name = "ε" if axis == "eps" else "n"
    missing = [m for m, v in found.items() if v is None]
    if missing:
        top = grid[-1]
        if top >= ceiling:
            return {
                "text": f"Not reached up to {name} = {top:g}, the largest value this app sweeps: the target "
                "is out of reach here (a looser target, or more rows).",
                "lo": None,
                "hi": None,
            }
        hi = min(top * 10, ceiling)
        return {
            "text": f"Not reached on the grid (up to {name} = {top:g}) by {len(missing)} mechanism(s): sweep "
            f"{name} from {top:g} to {hi:g} next.",
            "lo": s.sweep_low,
            "hi": float(hi),
            "button": f"Extend the sweep to {name} = {hi:g}",
        }
    if found and all(v == grid[0] for v in found.values()) and grid[0] > floor:
        lo = max(grid[0] / 10, floor)
        return {
            "text": f"Every mechanism meets the target already at the smallest value swept ({name} = "
            f"{grid[0]:g}): the answer may be smaller; sweep {name} from {lo:g} to {grid[0]:g} next.",
            "lo": float(lo),
            "hi": s.sweep_high,
            "button": f"Extend the sweep down to {name} = {lo:g}",
        }
    return None

"""The shared core of the reproductions: the data model (:class:`Panel`, :class:`Paper`, :class:`Reproduction`,
:class:`Spec`), the registries every paper module fills (:data:`SPECS`, :data:`PAPERS`), the helpers the paper
modules share, and the run API (:func:`config`, :func:`plan`, :func:`run_task`, :func:`assemble`, :func:`reproduce`,
:func:`reproduce_paper`).

Every reproduction has two grids. ``"default"`` is scaled down so that the reproductions of one paper finish in
under a minute on two cores; ``"full"`` uses the paper's grid (its sizes and, where it says, its number of
repetitions), which can take from minutes to hours (Ge et al. at d = 1000). Work is split into tasks
(:func:`plan`, :func:`run_task`, :func:`assemble`): each task draws its own data and noise from seeds derived
from (seed, reproduction, task), so a task's rows do not depend on which other tasks run, and a caller can cache
tasks one by one (the app does) and report progress.
"""
from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np
import pandas as pd

from ..api import run

if TYPE_CHECKING:
    import plotly.graph_objects as go

GRIDS = ("default", "full")
MAX_REPS = 100
#: series drawn as reference lines (grey dotted / black dashed), not as mechanisms
RANDOM, NON_PRIVATE = "random", "non_private"
PAPERS_DOC = "papers.md"


# --------------------------------------------------------------------------------------------- data model


@dataclass(frozen=True)
class Panel:
    """One subplot: its name (the ``panel`` column), axis titles and scales."""

    name: str
    x_title: str
    y_title: str
    log_x: bool = False
    log_y: bool = False


@dataclass(frozen=True)
class Paper:
    key: str
    title: str          # short, for menus
    citation: str       # authors, title, venue, year
    reproductions: tuple[str, ...]
    note: str = ""      # one line shown under the paper's name


@dataclass
class Reproduction:
    """The result of one reproduction: tidy rows, the texts, and the figure built from them.

    ``frame`` columns: reproduction, panel, series, mechanism, x_name, x, rep, value, metric, seconds
    (``seconds``: time of that release, NaN for reference lines). ``summary`` has the mean and the 2.5% / 97.5%
    quantiles per (panel, series, x).
    """

    key: str
    paper: str
    title: str
    frame: pd.DataFrame
    panels: tuple[Panel, ...]
    claim: str
    finding: str
    difference: str
    settings: str
    refs: tuple[tuple[str, str], ...]   # (label, anchor in docs/papers.md)
    grid: str
    reps: int
    seed: int
    seconds: float = math.nan           # wall-clock time of the run
    cpu_seconds: float = math.nan       # process CPU time of the run (all threads)
    cols: int = 2
    paper_figure: tuple[str, ...] = ()  # what the paper's own figure shows, one line per panel
    styles: dict = field(default_factory=dict)

    @property
    def summary(self) -> pd.DataFrame:
        return summarize(self.frame)

    def figure(self, title: bool = True) -> go.Figure:
        from .output import figure  # the figure is drawn in .output, which builds on this module

        return figure(self, title)


@dataclass(frozen=True)
class Spec:
    key: str
    paper: str
    title: str
    grids: dict
    panels: Callable[[dict], list[Panel]]
    tasks: Callable[[dict, int], list[dict]]     # (config, reps) -> task parameters (without key/seed/grid)
    unit: Callable[[dict, dict, int], list[dict]]  # (config, task, seed) -> rows
    texts: Callable[[pd.DataFrame, dict], dict]  # (summary, config) -> claim, finding, difference, settings
    refs: tuple = ()
    cols: int = 2
    paper_figure: tuple[str, ...] = ()
    styles: dict = field(default_factory=dict)  # series -> line style overrides (e.g. {"dash": "dash"})


SPECS: dict[str, Spec] = {}
#: the papers, in the order their modules register them (the order of the menus)
PAPERS: dict[str, Paper] = {}


def _register(spec: Spec) -> Spec:
    SPECS[spec.key] = spec
    return spec


def _register_paper(paper: Paper) -> Paper:
    PAPERS[paper.key] = paper
    return paper


# --------------------------------------------------------------------------------------------- helpers


def _rng(seed: int, *parts) -> np.random.Generator:
    """An independent generator for (seed, parts): strings are hashed, floats tagged to 1e-6."""
    words = [int(seed)]
    for p in parts:
        if isinstance(p, str):
            words.append(zlib.crc32(p.encode()))
        elif isinstance(p, float):
            words.append(int(round(p * 1e6)) % 2**32)
        else:
            words.append(int(p) % 2**32)
    return np.random.default_rng(np.random.SeedSequence(words))


def _row(panel: str, series: str, mechanism: str, x_name: str, x, rep: int, value: float, metric: str,
         seconds: float = math.nan) -> dict:
    return {"panel": panel, "series": series, "mechanism": mechanism, "x_name": x_name, "x": float(x),
            "rep": int(rep), "value": float(value), "metric": metric, "seconds": float(seconds)}


def _release(mechanism: str, data, k: int, epsilon: float, delta: float, rng, **params):
    """(components, seconds, release) of one run (seconds: the mechanism's own time, data prepared before)."""
    rel = run(mechanism, data, k, float(epsilon), float(delta), seed=rng, **params)
    return rel.components, float(rel.diagnostics.get("seconds", math.nan)), rel


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, 2.5% and 97.5% quantiles and count over repetitions, per (panel, series, mechanism, x)."""
    if frame.empty:
        raise ValueError("no results to summarise: run at least one task of the reproduction.")
    g = frame.groupby(["panel", "series", "mechanism", "x"], sort=False)["value"]
    return g.agg(mean="mean", lo=lambda v: float(np.quantile(v, 0.025)), hi=lambda v: float(np.quantile(v, 0.975)),
                 reps="size").reset_index()


def _at(summary: pd.DataFrame, panel: str, series: str, x=None, stat: str = "mean") -> float:
    s = summary[(summary.panel == panel) & (summary.series == series)]
    if x is not None:
        s = s[np.isclose(s.x, float(x))]
    if s.empty:
        return math.nan
    return float(s[stat].iloc[0]) if x is not None else float(s[stat].mean())


def _curve(summary: pd.DataFrame, panel: str, series: str) -> pd.DataFrame:
    return summary[(summary.panel == panel) & (summary.series == series)].sort_values("x")


def _fmt(values, digits: int = 2) -> str:
    return ", ".join(f"{v:.{digits}f}" for v in values)


def _g(value: float) -> str:
    return f"{value:g}"


# --------------------------------------------------------------------------------------------- running


def _spec(key: str) -> Spec:
    if key not in SPECS:
        raise ValueError(f"unknown reproduction {key!r}; choose one of {list(SPECS)}.")
    return SPECS[key]


def config(key: str, grid: str = "default", overrides: dict | None = None) -> dict:
    """The settings of reproduction ``key`` on ``grid`` ("default" or "full"), with ``overrides`` (a dict of the
    same keys, e.g. a smaller grid) applied."""
    spec = _spec(key)
    if grid not in GRIDS:
        raise ValueError(f"grid must be one of {list(GRIDS)} (got {grid!r}): 'default' is scaled down to run in "
                         "under a minute per paper, 'full' uses the paper's grid.")
    cfg = dict(spec.grids[grid])
    unknown = sorted(set(overrides or {}) - set(cfg))
    if unknown:
        raise ValueError(f"{key} has no setting(s) {unknown}; it has {sorted(cfg)}.")
    cfg.update(overrides or {})
    return cfg


def _check_reps(reps, cfg) -> int:
    if reps is None:
        return int(cfg["reps"])
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or not 1 <= int(reps) <= MAX_REPS:
        raise ValueError(f"reps must be a whole number from 1 to {MAX_REPS} (got {reps!r}); None uses the grid's "
                         f"own ({cfg['reps']}).")
    return int(reps)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (got {seed!r}).")
    return int(seed)


def plan(key: str, grid: str = "default", reps: int | None = None, seed: int = 0,
         overrides: dict | None = None) -> list[dict]:
    """The tasks of one reproduction: JSON-serialisable dicts holding every input (key, grid, its settings and the
    seed), so a task can be cached on its own and :func:`run_task` needs nothing else."""
    cfg = config(key, grid, overrides)
    reps, seed = _check_reps(reps, cfg), _check_seed(seed)
    return [{"key": key, "grid": grid, "seed": seed, "config": cfg, **t} for t in _spec(key).tasks(cfg, reps)]


def run_task(task: dict) -> list[dict]:
    """Rows of one task (see :func:`plan`); deterministic given the task."""
    if not isinstance(task, dict) or "key" not in task:
        raise ValueError("a task is a dict made by plan(...); it needs at least 'key', 'grid' and 'seed'.")
    spec = _spec(task["key"])
    cfg = task.get("config") or config(task["key"], task.get("grid", "default"))
    rows = spec.unit(cfg, task, _check_seed(task.get("seed", 0)))
    for r in rows:
        r["reproduction"] = task["key"]
    return rows


_COLUMNS = ["reproduction", "panel", "series", "mechanism", "x_name", "x", "rep", "value", "metric", "seconds"]


def assemble(key: str, rows: list[dict], grid: str = "default", reps: int | None = None, seed: int = 0,
             seconds: float = math.nan, overrides: dict | None = None, cpu_seconds: float = math.nan) -> Reproduction:
    """The :class:`Reproduction` of ``key`` from the rows of its tasks (all of them, in any order)."""
    spec = _spec(key)
    cfg = config(key, grid, overrides)
    reps = _check_reps(reps, cfg)
    frame = pd.DataFrame(rows, columns=_COLUMNS)
    if frame.empty:
        raise ValueError(f"no rows for {key}: run its tasks (plan + run_task) first.")
    texts = spec.texts(summarize(frame), cfg)
    paper = PAPERS[spec.paper]
    return Reproduction(key=key, paper=paper.key, title=spec.title, frame=frame, panels=tuple(spec.panels(cfg)),
                        claim=texts["claim"], finding=texts["finding"], difference=texts["difference"],
                        settings=texts["settings"] + f" {reps} repetition{'s' * (reps != 1)}, seed {seed}, "
                        f"{grid} grid.", refs=tuple(spec.refs), grid=grid, reps=reps, seed=int(seed),
                        seconds=float(seconds), cpu_seconds=float(cpu_seconds), cols=spec.cols,
                        paper_figure=spec.paper_figure,
                        styles=dict(spec.styles))


def reproduce(key: str, grid: str = "default", reps: int | None = None, seed: int = 0,
              progress: Callable[[float, str], None] | None = None, overrides: dict | None = None) -> Reproduction:
    """Run every task of reproduction ``key`` and assemble it. ``progress(fraction, text)`` is called after each
    task; ``overrides`` replaces some of the grid's settings (see :func:`config`)."""
    tasks = plan(key, grid, reps, seed, overrides)
    start, cpu = time.perf_counter(), time.process_time()
    rows: list[dict] = []
    for i, task in enumerate(tasks):
        rows += run_task(task)
        if progress is not None:
            progress((i + 1) / len(tasks), f"{key}: task {i + 1} of {len(tasks)}")
    return assemble(key, rows, grid, reps, seed, time.perf_counter() - start, overrides,
                    time.process_time() - cpu)


def _one(key):
    def reproduction(grid: str = "default", reps: int | None = None, seed: int = 0, progress=None,
                     overrides: dict | None = None) -> Reproduction:
        return reproduce(key, grid, reps, seed, progress, overrides)

    reproduction.__name__ = key
    reproduction.__doc__ = (f"{SPECS[key].title}. See :func:`reproduce`; returns a :class:`Reproduction` "
                            "(tidy frame, figure, claim, finding, difference).")
    return reproduction


def reproduce_paper(paper: str, grid: str = "default", reps: int | None = None, seed: int = 0,
                    progress=None) -> list[Reproduction]:
    """Every reproduction of one paper (keys of :data:`PAPERS`)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of {list(PAPERS)}.")
    return [reproduce(key, grid, reps, seed, progress) for key in PAPERS[paper].reproductions]

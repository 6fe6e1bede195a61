"""The shared core of the reproductions: the data model (:class:`Panel`, :class:`Paper`, :class:`Spec` with its
:class:`Steps`, :class:`Claim`, :class:`Reproduction`), the registries :mod:`.catalog` fills from the papers' modules
(:data:`SPECS`, :data:`PAPERS`, :func:`register`), and the run API (:func:`config`, :func:`plan`, :func:`run_task`, :func:`assemble`, :func:`reproduce`,
:func:`reproduce_paper`).

Every reproduction has two grids. ``"default"`` is scaled down so that the reproductions of one paper finish in
under a minute on two cores; ``"full"`` uses the paper's grid (its sizes and, where it says, its number of
repetitions), which can take from minutes to hours (Ge et al. at d = 1000). Work is split into tasks
(:func:`plan`, :func:`run_task`, :func:`assemble`): each task draws its own data and noise from seeds derived
from (seed, reproduction, task), so a task's rows do not depend on which other tasks run, and a caller can cache
tasks one by one (the app does) and report progress.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

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
    """A paper and its reproductions (:class:`Spec`, in the order of the menus): what a paper module declares."""

    key: str
    title: str  # short, for menus
    citation: str  # authors, title, venue, year
    note: str = ""  # one line shown under the paper's name
    specs: tuple = field(default=(), compare=False, repr=False)

    @property
    def reproductions(self) -> tuple[str, ...]:
        """The keys of its reproductions, in order."""
        return tuple(spec.key for spec in self.specs)


@dataclass
class Reproduction:
    """The result of one reproduction: tidy rows and the texts (:func:`dppca_core.reproduce.figure` draws it).

    ``frame`` columns: reproduction, panel, series, mechanism, algorithm, x_name, x, rep, value, metric, seconds
    (``algorithm``: what produced that point, in words: the paper's algorithm, a fallback, a reference line, or
    a run with the paper's own noise; ``seconds``: time of that release, NaN for reference lines). ``summary`` has
    the mean and the 2.5% / 97.5% quantiles per (panel, series, x) and the algorithm(s) of the point.
    ``marks`` are vertical lines the figure draws: (panel, x, text), e.g. where a fallback ends.
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
    refs: tuple[tuple[str, str], ...]  # (label, anchor in docs/papers.md)
    grid: str
    reps: int
    seed: int
    seconds: float = math.nan  # wall-clock time of the run
    cpu_seconds: float = math.nan  # process CPU time of the run (all threads)
    cols: int = 2
    paper_figure: tuple[str, ...] = ()  # what the paper's own figure shows, one line per panel
    styles: dict = field(default_factory=dict)
    marks: tuple[tuple[str, float, str], ...] = ()
    claims: tuple["Claim", ...] = ()
    config: dict = field(default_factory=dict)  # the grid's settings the run used (overrides applied)

    @property
    def summary(self) -> pd.DataFrame:
        return summarize(self.frame)

    @property
    def algorithms(self) -> list[str]:
        """Which algorithm produced each point, one line per series (and per x where a series mixes algorithms):
        what the page, the HTML and docs/reproduce.md show under "Which algorithm produced each point"."""
        return algorithm_lines(self.frame)


#: what a claim of the paper came to in our reproduction
REPRODUCED, NOT_REPRODUCED, REVERSED, NOT_RUN = "reproduced", "not reproduced", "reversed", "not run"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and what our reproduction makes of it: ``status`` one of :data:`REPRODUCED`,
    :data:`NOT_REPRODUCED`, :data:`REVERSED` (we find the opposite), :data:`NOT_RUN`; ``why`` the reason with the
    measurement; ``reproduction`` the key that measures it (the command is
    ``python -m dppca_core.reproduce --only KEY --out DIR``)."""

    claim: str
    status: str
    why: str
    reproduction: str


class Steps(NamedTuple):
    """The functions that run one reproduction, in the order they are called: the figure's panels, the tasks, the
    rows of one task; then, once all rows are summarised, ``measure`` reads from the summary every value the
    finding and the claims speak of (once, by name), ``finding`` and ``claims`` put those values into words, and
    ``difference`` says where ours differs from the paper and why: like ``panels`` and ``marks`` it reads the
    settings only, never what a run measured."""

    panels: Callable[[dict], list[Panel]]
    tasks: Callable[[dict, int], list[dict]]  # (config, reps) -> task parameters (without key/seed/grid)
    unit: Callable[[dict, dict, int], list[dict]]  # (config, task, seed) -> rows
    measure: Callable[[pd.DataFrame, dict], dict]  # (summary, config) -> {name: measured value}
    finding: Callable[[dict, dict], str]  # (measured, config) -> what we find
    difference: Callable[[dict], str]  # config -> where ours differs and why
    claims: Callable[[dict, dict], list] | None = None  # (measured, config) -> [Claim]
    marks: Callable[[dict], list] | None = None  # config -> [(panel, x, text)]: vertical lines (thresholds)


@dataclass(frozen=True)
class Spec:
    """One reproduction as its paper module declares it: what the paper reports (``claim``), our settings on each
    grid and in words (``settings``: config -> "Ours: ..."; the run's repetitions, seed and grid are added), the
    :class:`Steps` that run it and how its figure is drawn. ``paper`` is set when its paper is registered
    (:func:`register`)."""

    key: str
    title: str
    claim: str
    grids: dict
    settings: Callable[[dict], str]
    steps: Steps
    refs: tuple = ()
    cols: int = 2
    paper_figure: tuple[str, ...] = ()
    styles: dict = field(default_factory=dict)  # series -> line style overrides (e.g. {"dash": "dash"})
    paper: str = ""

    def __post_init__(self):
        object.__setattr__(self, "steps", Steps(*self.steps))


SPECS: dict[str, Spec] = {}
#: the papers, in the order they are registered (:mod:`.catalog`: the order of the menus)
PAPERS: dict[str, Paper] = {}


def register(paper: Paper) -> Paper:
    """Register ``paper`` and its reproductions (:data:`PAPERS`, :data:`SPECS`), each reproduction told its paper."""
    PAPERS[paper.key] = paper
    for spec in paper.specs:
        SPECS[spec.key] = dataclasses.replace(spec, paper=paper.key)
    return paper


# --------------------------------------------------------------------------------------------- algorithms


#: the algorithm column of the reference lines
ALGORITHM_RANDOM = "reference: a data-independent random guess"
ALGORITHM_NON_PRIVATE = "reference: exact, no privacy"


def default_algorithm(mechanism: str) -> str:
    """What produced a point of ``mechanism`` when the reproduction says nothing more: the registered mechanism
    (its title and the paper's algorithm), or a reference line."""
    if mechanism == RANDOM:
        return ALGORITHM_RANDOM
    if mechanism in (NON_PRIVATE, "otd_non_private", "non_private"):
        return ALGORITHM_NON_PRIVATE
    from ..registry import get_mechanism

    try:
        spec = get_mechanism(mechanism)
    except (KeyError, ValueError):
        return mechanism
    return f"{spec.title} ({mechanism})"


def algorithm_lines(frame: pd.DataFrame) -> list[str]:
    """One line per (panel-independent) series: its algorithm, or, where a series mixes algorithms, each
    algorithm with the x values (and panels) it produced."""
    lines = []
    for series, g in frame.groupby("series", sort=False):
        algos = list(dict.fromkeys(g.algorithm))
        if len(algos) == 1:
            lines.append(f"{series}: {algos[0]}.")
            continue
        parts = []
        for algo in algos:
            pts = g[g.algorithm == algo].drop_duplicates(["panel", "x"])
            where = "; ".join(
                f"{panel}: {p.x_name.iloc[0]} = {', '.join(f'{x:,.6g}' for x in sorted(p.x))}"
                for panel, p in pts.groupby("panel", sort=False)
            )
            parts.append(f"{algo} ({where})")
        lines.append(f"{series}: " + "; ".join(parts) + ".")
    return lines


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, median, 2.5% and 97.5% quantiles and count over repetitions, per (panel, series, mechanism, x), and
    the algorithm of the point (its repetitions' algorithms joined by ' + ' when they differ)."""
    if frame.empty:
        raise ValueError("no results to summarise: run at least one task of the reproduction.")
    keys = ["panel", "series", "mechanism", "x"]
    g = frame.groupby(keys, sort=False)
    out = g["value"].agg(
        mean="mean",
        median="median",
        lo=lambda v: float(np.quantile(v, 0.025)),
        hi=lambda v: float(np.quantile(v, 0.975)),
        reps="size",
    )
    if "algorithm" in frame:
        out["algorithm"] = g["algorithm"].agg(lambda a: " + ".join(dict.fromkeys(a)))
    return out.reset_index()


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
        raise ValueError(
            f"grid must be one of {list(GRIDS)} (got {grid!r}): 'default' is scaled down to run in "
            "under a minute per paper, 'full' uses the paper's grid."
        )
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
        raise ValueError(
            f"reps must be a whole number from 1 to {MAX_REPS} (got {reps!r}); None uses the grid's "
            f"own ({cfg['reps']})."
        )
    return int(reps)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (got {seed!r}).")
    return int(seed)


def plan(
    key: str, grid: str = "default", reps: int | None = None, seed: int = 0, overrides: dict | None = None
) -> list[dict]:
    """The tasks of one reproduction: JSON-serialisable dicts holding every input (key, grid, its settings and the
    seed), so a task can be cached on its own and :func:`run_task` needs nothing else."""
    cfg = config(key, grid, overrides)
    reps, seed = _check_reps(reps, cfg), _check_seed(seed)
    return [{"key": key, "grid": grid, "seed": seed, "config": cfg, **t} for t in _spec(key).steps.tasks(cfg, reps)]


def run_task(task: dict) -> list[dict]:
    """Rows of one task (see :func:`plan`); deterministic given the task."""
    if not isinstance(task, dict) or "key" not in task:
        raise ValueError("a task is a dict made by plan(...); it needs at least 'key', 'grid' and 'seed'.")
    spec = _spec(task["key"])
    cfg = task.get("config") or config(task["key"], task.get("grid", "default"))
    rows = spec.steps.unit(cfg, task, _check_seed(task.get("seed", 0)))
    for r in rows:
        r["reproduction"] = task["key"]
    return rows


#: the columns of a reproduction's frame, in order
COLUMNS = [
    "reproduction",
    "panel",
    "series",
    "mechanism",
    "algorithm",
    "x_name",
    "x",
    "rep",
    "value",
    "metric",
    "seconds",
]


def assemble(
    key: str,
    rows: list[dict],
    grid: str = "default",
    reps: int | None = None,
    seed: int = 0,
    seconds: float = math.nan,
    overrides: dict | None = None,
    cpu_seconds: float = math.nan,
) -> Reproduction:
    """The :class:`Reproduction` of ``key`` from the rows of its tasks (all of them, in any order)."""
    spec = _spec(key)
    cfg = config(key, grid, overrides)
    reps = _check_reps(reps, cfg)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    if frame.empty:
        raise ValueError(f"no rows for {key}: run its tasks (plan + run_task) first.")
    blank = frame.algorithm.isna() | (frame.algorithm == "")
    frame.loc[blank, "algorithm"] = frame.loc[blank, "mechanism"].map(default_algorithm)
    summary = summarize(frame)
    steps = spec.steps
    measured = steps.measure(summary, cfg)
    paper = PAPERS[spec.paper]
    return Reproduction(
        key=key,
        paper=paper.key,
        title=spec.title,
        frame=frame,
        panels=tuple(steps.panels(cfg)),
        claim=spec.claim,
        finding=steps.finding(measured, cfg),
        difference=steps.difference(cfg),
        settings=spec.settings(cfg) + f" {reps} repetition{'s' * (reps != 1)}, seed {seed}, {grid} grid.",
        refs=tuple(spec.refs),
        grid=grid,
        reps=reps,
        seed=int(seed),
        seconds=float(seconds),
        cpu_seconds=float(cpu_seconds),
        cols=spec.cols,
        paper_figure=spec.paper_figure,
        styles=dict(spec.styles),
        marks=tuple(steps.marks(cfg)) if steps.marks else (),
        claims=tuple(steps.claims(measured, cfg)) if steps.claims else (),
        config=cfg,
    )


def reproduce(
    key: str,
    grid: str = "default",
    reps: int | None = None,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
    overrides: dict | None = None,
) -> Reproduction:
    """Run every task of reproduction ``key`` and assemble it. ``progress(fraction, text)`` is called after each
    task; ``overrides`` replaces some of the grid's settings (see :func:`config`)."""
    tasks = plan(key, grid, reps, seed, overrides)
    start, cpu = time.perf_counter(), time.process_time()
    rows: list[dict] = []
    for i, task in enumerate(tasks):
        rows += run_task(task)
        if progress is not None:
            progress((i + 1) / len(tasks), f"{key}: task {i + 1} of {len(tasks)}")
    return assemble(key, rows, grid, reps, seed, time.perf_counter() - start, overrides, time.process_time() - cpu)


def reproduction_function(spec: Spec):
    """The function that runs reproduction ``spec`` (named after its key): :func:`reproduce` of that key."""

    def reproduction(
        grid: str = "default", reps: int | None = None, seed: int = 0, progress=None, overrides: dict | None = None
    ) -> Reproduction:
        return reproduce(spec.key, grid, reps, seed, progress, overrides)

    reproduction.__name__ = spec.key
    reproduction.__doc__ = (
        f"{spec.title}. See :func:`reproduce`; returns a :class:`Reproduction` "
        "(tidy frame, figure, claim, finding, difference)."
    )
    return reproduction


def reproduce_paper(
    paper: str, grid: str = "default", reps: int | None = None, seed: int = 0, progress=None
) -> list[Reproduction]:
    """Every reproduction of one paper (keys of :data:`PAPERS`)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose one of {list(PAPERS)}.")
    return [reproduce(key, grid, reps, seed, progress) for key in PAPERS[paper].reproductions]

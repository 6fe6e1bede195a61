"""What the paper modules of :mod:`dppca_core.reproduce` share: seeds per task, one row per point, one run of a
mechanism (with our calibration or with a paper's own noise level), and the summary readers and number formats
their texts use. A paper module imports these by name; the data model and the run API are :mod:`.core`."""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pandas as pd

from ..api import run

#: the algorithm column of a run with the paper's own noise level
PAPER_NOISE_OK = "the paper's noise: private as stated"
PAPER_NOISE_WRONG = "the paper's noise: not private as stated"


def rng_for(seed: int, *parts) -> np.random.Generator:
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


def point(
    panel: str,
    series: str,
    mechanism: str,
    x_name: str,
    x,
    rep: int,
    value: float,
    metric: str,
    seconds: float = math.nan,
    algorithm: str = "",
) -> dict:
    """One point of one repetition; ``algorithm`` empty means the mechanism as registered
    (:func:`.core.default_algorithm`)."""
    return {
        "panel": panel,
        "series": series,
        "mechanism": mechanism,
        "algorithm": algorithm,
        "x_name": x_name,
        "x": float(x),
        "rep": int(rep),
        "value": float(value),
        "metric": metric,
        "seconds": float(seconds),
    }


def _at_mu(mu: float, epsilon: float, delta: float) -> tuple[float, float]:
    """An (epsilon', delta') at which our exactly calibrated Gaussian mechanisms add the noise of a mu-GDP
    release: (the epsilon mu earns at ``delta``, ``delta``), or, when mu is so small that ``delta`` alone pays for
    it (epsilon' would be 0), (``epsilon``, the delta mu earns at ``epsilon``). Used to run a mechanism with a
    paper's own noise level: gaussian_sigma(Delta, epsilon', delta') = Delta / mu."""
    from ..privacy import gaussian_delta, gaussian_epsilon

    eps = gaussian_epsilon(mu, delta)
    if 0 < eps < math.inf:
        return eps, delta
    return epsilon, gaussian_delta(epsilon, mu)


def run_with_paper_noise(mechanism: str, data, k: int, mu: float, epsilon: float, delta: float, rng, **params):
    """(components, seconds, release) of ``mechanism`` run with the noise of a paper's calibration: ``mu`` is
    the GDP parameter that calibration gives the mechanism's statistic (our sensitivity over the paper's noise
    s.d.), and the mechanism runs at an (epsilon', delta') whose exact calibration adds exactly that noise
    (:func:`_at_mu`). A diagnostic of what the paper's noise does, not a release with the paper's guarantee."""
    eps2, delta2 = _at_mu(mu, epsilon, delta)
    return run_once(mechanism, data, k, eps2, delta2, rng, **params)


def paper_noise_algorithm(paper_mu: float, epsilon: float, delta: float, steps: int = 1) -> str:
    """Whether a paper's noise (GDP parameter ``paper_mu`` over ``steps`` equal steps) is private as stated at
    (epsilon, delta): it is when it is at least the exact calibration's, i.e. sqrt(steps) paper_mu <= mu*."""
    from ..privacy import gaussian_mu

    ok = math.sqrt(steps) * paper_mu <= gaussian_mu(epsilon, delta) * (1 + 1e-9)
    return PAPER_NOISE_OK if ok else PAPER_NOISE_WRONG


def classic_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """The classic Gaussian formula sensitivity sqrt(2 ln(1.25/delta)) / epsilon as the papers use it, also where
    it is unproven (epsilon >= 1): what they ran, not a calibration of ours."""
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def run_once(mechanism: str, data, k: int, epsilon: float, delta: float, rng, **params):
    """(components, seconds, release) of one run (seconds: the mechanism's own time, data prepared before)."""
    rel = run(mechanism, data, k, float(epsilon), float(delta), seed=rng, **params)
    return rel.components, float(rel.diagnostics.get("seconds", math.nan)), rel


def value_at(summary: pd.DataFrame, panel: str, series: str, x=None, stat: str = "mean") -> float:
    s = summary[(summary.panel == panel) & (summary.series == series)]
    if x is not None:
        s = s[np.isclose(s.x, float(x))]
    if s.empty:
        return math.nan
    return float(s[stat].iloc[0]) if x is not None else float(s[stat].mean())


def curve_of(summary: pd.DataFrame, panel: str, series: str) -> pd.DataFrame:
    return summary[(summary.panel == panel) & (summary.series == series)].sort_values("x")


def fmt_list(values, digits: int = 2) -> str:
    return ", ".join(f"{v:.{digits}f}" for v in values)


def fmt_g(value: float) -> str:
    return f"{value:g}"


def fmt_set(values, fmt=str) -> str:
    """A grid's values as a set, each formatted by ``fmt``: ``fmt_set((1000, 4000), "{:,}".format)`` is
    "{1,000, 4,000}"."""
    return "{" + ", ".join(fmt(v) for v in values) + "}"


def _frozen(value):
    """A setting as the grids write it: lists (a task's settings come back from JSON) become tuples."""
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


def default_grid(cfg: dict, paper: dict, text: str) -> str:
    """The sentence a ``difference`` ends with when the run is smaller than the paper's: " Default grid: ``text``."
    when a setting named in ``paper`` (name -> the paper's value, as on the "full" grid) has another value in
    ``cfg``; "" when they are all the paper's."""
    if all(_frozen(cfg[name]) == _frozen(value) for name, value in paper.items()):
        return ""
    return f" Default grid: {text}."


def tasks_over(**axes: str):
    """The tasks of a reproduction that runs every combination of some settings' values, repetition by repetition:
    ``tasks_over(n="ns", d="dims")`` gives the function (config, reps) -> [{"n": n, "d": d, "rep": r} for r in
    range(reps) for n in config["ns"] for d in config["dims"]] (a :class:`.core.Steps` ``tasks``)."""

    def tasks(cfg: dict, reps: int) -> list[dict]:
        grid = list(itertools.product(*(cfg[setting] for setting in axes.values())))
        return [{**dict(zip(axes, values)), "rep": r} for r in range(reps) for values in grid]

    return tasks

"""'What if I had twice or ten times the rows?' on one's own table (issue 55): the sweep of n measures subsamples of
the table, and past its rows draws tables of 2x and 10x its rows from a Gaussian law with the table's own mean and
covariance, each released as the scenario releases and scored against its own exact answer: a what-if with its
band over repetitions, drawn and labelled as an extrapolation. The law's point at the table's own n is drawn too, so
the reader sees how far the law is from the table where both are measured.

The law reads the rows without noise, like every diagnostic of the sweep: an exploration for the data owner, never a
release (under add/remove the table's n is private, and so are its multiples)."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pandas as pd

from . import compute
from dppca_core.scenario import Settings

#: multiples of the table's rows the what-if draws (1: the law at the table's own n, beside the measured point)
MULTIPLES = (1, 2, 10)
#: the largest table (rows x columns) the what-if draws; larger multiples are left out with a note
MAX_CELLS = 5_000_000


def law_dataset(ds, size: int, seed: int):
    """``size`` rows drawn from the Gaussian law with the table's mean and covariance (read without noise: not
    private), in the table's columns; seeded, so each (table, size, seed) is one cached dataset."""
    X = np.asarray(ds.X, dtype=float)
    mean = X.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False, bias=True).reshape(X.shape[1], X.shape[1]))
    root = vectors * np.sqrt(np.maximum(values, 0.0))
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(size), zlib.crc32(b"what-if law")]))
    rows = mean + rng.standard_normal((int(size), X.shape[1])) @ root.T
    return dataclasses.replace(
        ds,
        X=rows,
        labels=None,
        truth=None,
        key=f"{ds.key}|gaussian law, {size} rows, seed {seed}",
        note=f"{ds.note} {size:,} rows drawn from a Gaussian law with the table's mean and covariance (seed {seed}).",
    )


def sizes(n_rows: int, d: int) -> tuple[list[int], list[str]]:
    """(the what-if's sizes, a note per multiple left out because the table it needs is too large to draw here)."""
    kept, notes = [], []
    for m in MULTIPLES:
        size = int(n_rows) * m
        if size * d > MAX_CELLS:
            notes.append(f"{m}x the rows ({size:,} rows) is too large a table to draw here: left out of the what-if.")
        else:
            kept.append(size)
    return kept, notes


def beyond(vals: dict, metric: str, ds, on_point=None) -> tuple[pd.DataFrame, list]:
    """The what-if's rows (the sweep's columns: mechanism, n, mean, lo, hi, reps, values) at :data:`MULTIPLES` of the
    table's rows, and messages (points that could not be computed, multiples left out)."""
    grid, notes = sizes(ds.n, ds.d)
    seed = int(Settings(vals).seed)
    frame, errors = compute.sweep_frame(
        vals,
        "n",
        metric,
        grid,
        on_point=on_point,
        label="rows n (what-if)",
        dataset=lambda size: law_dataset(ds, int(size), seed),
    )
    return frame, errors + notes


def points(frame: pd.DataFrame) -> dict:
    """{mechanism: (n, mean, 2.5%, 97.5%)} of the what-if, for the chart (:func:`dppca_core.figures.sweep`)."""
    out = {}
    if frame.empty:
        return out
    for mech, g in frame.groupby("mechanism", sort=False):
        g = g.sort_values("n")
        out[mech] = tuple(g[c].to_numpy(dtype=float) for c in ("n", "mean", "lo", "hi"))
    return out


def words(n_rows: int, d: int) -> str:
    """What the what-if is, in words (Markdown), for the caption under the chart."""
    grid, _ = sizes(n_rows, d)
    beyond_rows = [f"{size:,}" for size in grid if size > n_rows]
    return (
        f"Past your {n_rows:,} rows (dotted, open diamonds, with their band): a **what-if, not a measurement**. "
        f"Tables of {' and '.join(beyond_rows) or 'more'} rows drawn from a Gaussian law with your table's mean and "
        "covariance (read from the rows without noise: for you, not private), each released as the scenario "
        "releases and scored against its own exact answer. It assumes more rows of the same kind: the same "
        f"spectrum, and rows as light-tailed as a Gaussian's. The law's point at your own {n_rows:,} rows is drawn "
        "too: where it is far from the measured one, the law describes your table poorly and the what-if with it."
    )

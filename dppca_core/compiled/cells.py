"""The score plot's cells, compiled by numba: each projection's cell among evenly spaced edges, exactly the cell
``numpy.searchsorted`` gives (:func:`cell_index`), and each row's cell of a grid as one index (:func:`flat_cells`).
"""

from __future__ import annotations

import functools

import numpy as np

from .kernels import compiled_worth
from .loops import compile_kernel


def cells_kernel(edges, values, scale, out):  # pragma: no cover - compiled
    last = edges.size - 2
    for i in range(values.size):
        v = values[i]
        c = (v - edges[0]) * scale  # a guess from the spacing; the comparisons below decide
        c = 0 if not c > 0 else (last if c >= last else int(c))
        while c > 0 and edges[c] > v:
            c -= 1
        while c < last and edges[c + 1] <= v:
            c += 1
        out[i] = c
    return out


@functools.cache
def compiled_cells():
    return compile_kernel(cells_kernel)


def cell_index(edges: np.ndarray, values: np.ndarray, compiled: bool = True) -> np.ndarray:
    """The cell of each value among increasing, evenly spaced ``edges``, values outside in the end cells: exactly
    ``clip(searchsorted(edges, values, side="right") - 1, 0, cells - 1)``, in one pass (a guess from the spacing,
    then moved by comparisons with the edges until the value lies in its cell) instead of a search per value."""
    edges = np.ascontiguousarray(edges, dtype=float)
    values = np.ascontiguousarray(values, dtype=float).reshape(-1)
    cells = edges.size - 1
    span = edges[-1] - edges[0] if cells > 0 else 0.0
    kernel = compiled_cells() if compiled and compiled_worth(values.size * 4) else None
    if kernel is None or not (cells > 0 and np.isfinite(span) and span > 0) or not np.all(np.isfinite(values)):
        return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, max(cells - 1, 0))
    return kernel(edges, values, cells / span, np.empty(values.size, dtype=np.int64))


def flat_cells(values: np.ndarray, edges: list) -> np.ndarray:
    """Each row's cell in the grid of ``edges`` (one array of increasing, evenly spaced edges per column of
    ``values``, the same number of cells each), as one index with the first axis major: :func:`cell_index` per
    axis, combined."""
    cells = [cell_index(e, values[:, a]) for a, e in enumerate(edges)]
    return cells[0] if len(cells) == 1 else cells[0] * (edges[1].size - 1) + cells[1]

"""Partition of rows into the sites (data holders) of a distributed mechanism.

The per-site Gram matrices are built (and memoised) by :meth:`dppca_core.data.prepare.PreparedData.site_partition`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np


def split_sites(n: int, sites) -> list[np.ndarray]:
    """Row indices of each site.

    Parameters
    ----------
    n : int
        Number of rows.
    sites : int, sequence of int, or array of length n
        An int S gives S equal (up to one row) contiguous sites; a list of sizes summing to n gives
        contiguous sites of those sizes; an array with one label per row groups rows by label (in
        order of first appearance).
    """
    if isinstance(sites, bool):
        raise ValueError("sites must be a number of sites, a list of site sizes or one label per row.")
    if isinstance(sites, Integral):
        if not 1 <= sites <= n // 2:
            raise ValueError(
                f"sites = {sites} is out of range: choose 1 <= sites <= n/2 = {n // 2} (each site needs >= 2 rows)."
            )
        return [np.asarray(part) for part in np.array_split(np.arange(n), int(sites))]
    arr = np.asarray(sites)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("sites must be a number of sites, a list of site sizes or one label per row.")
    if arr.size == n and arr.size > 1 and not _looks_like_sizes(arr, n):
        labels, first = np.unique(arr, return_index=True)
        order = labels[np.argsort(first)]
        parts = [np.flatnonzero(arr == lab) for lab in order]
    else:
        if not np.issubdtype(arr.dtype, np.integer) or np.any(arr < 2):
            raise ValueError(f"site sizes must be whole numbers >= 2 (got {arr.tolist()[:10]}).")
        if int(arr.sum()) != n:
            raise ValueError(f"site sizes sum to {int(arr.sum())}, but the data have n = {n} rows; make them add up.")
        parts = np.split(np.arange(n), np.cumsum(arr)[:-1])
    small = [i for i, p in enumerate(parts) if p.size < 2]
    if small:
        raise ValueError(f"site(s) {small} hold fewer than 2 rows; merge them or give them more rows.")
    return parts


def _looks_like_sizes(arr: np.ndarray, n: int) -> bool:
    return np.issubdtype(arr.dtype, np.integer) and int(arr.sum()) == n and np.all(arr >= 2) and arr.size < n

"""Theory rates for the Trade-offs chart (``dppca_core.theory``), each scaled to its measured curve."""
from __future__ import annotations

import numpy as np

from dppca_core import theory


def rates(axis: str, xs: list, mechs: list, scn: dict, ds, frame) -> dict:
    """{mechanism: (xs, ys)} of each mechanism's theoretical rate, scaled to its measured curve."""
    out = {}
    xs = np.asarray(sorted(xs), dtype=float)
    for mech in mechs:
        try:
            ys = np.asarray(theory.rate(mech, axis, xs, n=ds.n, d=ds.d, k=int(scn["k"]), epsilon=scn["eps"],
                               delta=scn["delta"]), dtype=float)
        except (ValueError, TypeError, KeyError):
            continue
        g = frame[frame["mechanism"] == mech].sort_values(axis)
        measured = g["mean"].to_numpy(dtype=float)
        ok = np.isfinite(ys) & (ys > 0) & np.isfinite(measured) & (measured > 0)
        if g.empty or len(measured) != len(ys) or not ok.any():
            continue
        # one constant per curve, fitted on the log scale over every point (a rate fixes the slope, not the level),
        # so the dashed line runs through the data instead of diving away from its first point
        scale = float(np.exp(np.mean(np.log(measured[ok]) - np.log(ys[ok]))))
        out[mech] = (xs, ys * scale)
    return out

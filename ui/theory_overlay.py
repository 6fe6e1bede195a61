"""Theory rates for the Trade-offs chart, from ``dppca_core.theory`` when that module provides them."""
from __future__ import annotations

import numpy as np

try:
    from dppca_core import theory
except ImportError:  # pragma: no cover - not written yet
    theory = None


def rates(axis: str, xs: list, mechs: list, scn: dict, ds, frame) -> dict:
    """{mechanism: (xs, ys)} of each mechanism's theoretical rate, scaled to its first measured point."""
    fn = getattr(theory, "rate", None) if theory is not None else None
    if fn is None:
        return {}
    out = {}
    xs = np.asarray(sorted(xs), dtype=float)
    for mech in mechs:
        try:
            ys = np.asarray(fn(mech, axis, xs, n=ds.n, d=ds.d, k=int(scn["k"]), epsilon=scn["eps"],
                               delta=scn["delta"]), dtype=float)
        except (ValueError, TypeError, KeyError):
            continue
        g = frame[frame["mechanism"] == mech].sort_values(axis)
        if g.empty or not np.isfinite(ys[0]) or ys[0] == 0:
            continue
        out[mech] = (xs, ys * float(g["mean"].iloc[0]) / ys[0])
    return out

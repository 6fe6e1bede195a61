"""Theory rates for the Trade-offs chart (``dppca_core.theory``), each fitted to its measured curve where it fits."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dppca_core import theory
from dppca_core.registry import display_name
from dppca_core.reading import number
from dppca_core.scenario import Settings


@dataclass
class Overlay:
    """What the chart draws beside the measurements: ``lines`` {mechanism: (xs, ys, legend name)} of the fitted
    rates, ``fits`` {mechanism: RateFit}, and ``notes``, one sentence per mechanism whose rate is not drawn."""

    lines: dict = field(default_factory=dict)
    fits: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def rate_values(mech: str, axis: str, xs, scn: dict, n: int, d: int) -> np.ndarray | None:
    """The mechanism's rate along ``axis`` at ``xs`` with the scenario's other settings, or None (no rate known)."""
    s = Settings(scn)
    try:
        return np.asarray(
            theory.rate(
                mech,
                axis,
                np.asarray(xs, dtype=float),
                n=n,
                d=d,
                k=int(s.k),
                epsilon=s.epsilon,
                delta=s.delta,
                s=int(s.support_size) or None,
            ),
            dtype=float,
        )
    except (ValueError, TypeError, KeyError):
        return None


def fitted(axis: str, metric: str, mechs: list, scn: dict, n: int, d: int, frame) -> Overlay:
    """Each mechanism's rate with its constant fitted to the measured means (:func:`dppca_core.theory.fit_rate`),
    drawn only over the points it fits, named with the fit's error."""
    out = Overlay()
    if metric not in theory.ERROR_FORMS:
        return out
    for mech in mechs:
        g = frame[frame["mechanism"] == mech].sort_values(axis)
        if g.empty:
            continue
        xs = g[axis].to_numpy(dtype=float)
        ys = rate_values(mech, axis, xs, scn, n, d)
        if ys is None:
            out.notes.append(f"{display_name(mech)}: no theoretical rate is known.")
            continue
        fit = theory.fit_rate(xs, g["mean"].to_numpy(dtype=float), ys, metric, axis)
        if fit is None:
            out.notes.append(
                f"{display_name(mech)}: the rate fits no {theory.FIT_MIN_POINTS} neighbouring points "
                f"within {100 * theory.FIT_TOLERANCE:.0f}% (the measured curve is outside the rate's "
                "regime on this grid), so it is not drawn."
            )
            continue
        out.fits[mech] = fit
        span = f"{number(fit.xs[0])}–{number(fit.xs[-1])}"
        out.lines[mech] = (fit.xs, fit.ys, f"rate: {display_name(mech)} (fit ±{100 * fit.error:.0f}%, {span})")
    return out


def assumptions(mechs) -> str:
    """The rates' assumptions in words (Markdown), for the caption under the chart."""
    known = theory.formulas()
    formulas = "; ".join(f"{display_name(m)}: {known[m]}" for m in mechs if m in known)
    return (
        f"Dashed lines are the papers' theoretical **rates**, each with one constant fitted to the measured means "
        f"and drawn only over the points it fits (the legend gives the fit's largest error and where it fits). "
        f"A rate assumes {theory.FIT_ASSUMPTIONS}. Rates: {formulas}."
    )

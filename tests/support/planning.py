"""Plans on the shipped tables through their spectrum as a public source would state it (tests/planning/test_planning.py
checks them, benchmarks/planner.py measures them): the plan never sees a row and is checked on the table's own."""

import numpy as np

import dppca_core as dc
from dppca_core.data import datasets
from dppca_core.planning import Standin

#: (sample, its public radius, k, the subspace distance asked for)
STATED_SPECTRUM_CASES = (("iris", 12.0, 2, 0.3), ("wine", 2000.0, 1, 0.1))


def plan_through_stated_spectrum(name: str, radius: float, k: int, target: float, confidence: float):
    """(the plan for ``subspace distance <= target`` on the sample ``name``, its rows): the stand-in is the sample's
    spectrum computed once and handed to the planner as numbers."""
    X = np.asarray(datasets.load_sample(name).X, dtype=float)
    stated = Standin.from_spectrum(Standin.exact(X, radius).values, source=f"the {name} spectrum as published")
    return plan_distance(X, target, k, stated, radius, confidence), X


def plan_distance(X, target: float, k: int, standin, radius: float, confidence: float, **options):
    """The plan for ``subspace distance <= target`` on a table of the shape of ``X`` (its n and d are public facts:
    the plan reads no row) with the stand-in ``standin`` and the public radius ``radius``; ``options`` are more of
    :func:`dppca_core.plan`'s (``center``, ``reps``, ``mechanisms``)."""
    n, d = X.shape
    return dc.plan(
        {"subspace_distance": target},
        n=n,
        d=d,
        k=k,
        standin=standin,
        data_norm=radius,
        confidence=confidence,
        **options,
    )

"""The options of a complete release, in one frozen object checked in one place.

:class:`ReleaseOptions` holds every public choice of :func:`dppca_core.release_pca` (k, the budget and its split,
the centring, the radius, the scaling, the score plot's form, the mechanism's own parameters). Each option's
constraint is declared once, in :data:`ReleaseOptions.constraints` (scikit-learn's ``_parameter_constraints`` is
the model), and checked when the object is made; the dashboard, the experiments, the estimator and
:func:`dppca_core.release_pca` build the same object, and :meth:`ReleaseOptions.key` is the cache key of a result
computed with it. The checks that need the mechanism or the data (a delta the mechanism uses, k <= d, one bound per
column) stay where the mechanism and the data are known (:mod:`dppca_core.pipeline.budget`).

The rule for epsilon is :func:`dppca_core.validation.check_epsilon` (finite, > 0, not a boolean, at least
:data:`dppca_core.validation.MIN_EPSILON` for the total a user gives); :mod:`dppca_core.privacy` applies the same
rule to the parts of a split budget, without the floor (a part of a valid total may be smaller than it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from collections.abc import Mapping
from numbers import Real

import numpy as np

from .choices import DEFAULT_RADIUS_BOUNDS, DEFAULT_RADIUS_QUANTILE, check_bounds
from ..privacy import check_neighbors
from .scores import FRAMES, KINDS
from ..validation import check_epsilon, check_float_range, check_k

#: the ways to centre: none, a private mean from its own share, or the data's own mean (the exact reference only)
CENTERS = ("none", "private", "empirical")
#: the ways to scale columns: none, by public bounds (free), or privately (a share)
SCALINGS = ("none", "bounds", "private")


def _one_of(choices: tuple, advice: str | None = None):
    def check(name: str, value):
        if not (isinstance(value, str) and value in choices):
            raise ValueError(f"{name}={value!r}: {advice or f'use one of {list(choices)}'}.")
        return value

    return check


def _k(name: str, value):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"k={value!r}: give a number of components or 'auto' (chosen privately).")
        return value
    return check_k(value)  # k <= d is checked by the same rule once the data are read


def _radius(name: str, value):
    if isinstance(value, str):
        if value != "private":
            raise ValueError(f"data_norm={value!r}: give a public radius (a number) or 'private'.")
        return value
    return value  # a number: checked with the data (dppca_core.validation.check_positive)


def _delta(name: str, value):
    return value  # checked with the mechanism: a pure-DP mechanism ignores it (dppca_core.validation.check_delta)


def _optional(check):
    def maybe(name: str, value):
        return None if value is None else check(name, value)

    return maybe


def _target(name: str, value):
    return check_float_range(value, name, 0.0, 1.0, low_open=True, high_open=True)


def _bounds(name: str, value):
    return check_bounds(value, name)


def _budget(name: str, value):
    """None, a :class:`BudgetSplit`, or a dict of shares: with a "subspace" key a full split, else the extra shares
    with the rest to the subspace (``BudgetSplit.with_extras``)."""
    from .split import PARTS, BudgetSplit

    if isinstance(value, Mapping):
        unknown = sorted(set(map(str, value)) - set(PARTS))
        if unknown:
            raise ValueError(f"budget has unknown part(s) {unknown}; the parts are {list(PARTS)}.")
        for part, share in value.items():
            if isinstance(share, bool) or not isinstance(share, Real):
                raise ValueError(f"the {part} share must be a number in [0, 1] (got {share!r}).")
        shares = {part: float(share) for part, share in value.items()}
        value = BudgetSplit(**shares) if "subspace" in shares else BudgetSplit.with_extras(**shares)
    if value is not None and not isinstance(value, BudgetSplit):
        raise ValueError(
            f"budget must be None, a BudgetSplit or a dict of shares such as {{'eigenvalues': 0.1}} "
            f"(got {type(value).__name__})."
        )
    return value


def _column_bounds(name: str, value):
    return None if value is None else tuple(float(v) for v in np.asarray(value, dtype=float).reshape(-1))


def _labels(name: str, value):
    return None if value is None else tuple(value)


def _as_is(name: str, value):
    return value


def _params(name: str, value):
    return dict(value or {})


@dataclass(frozen=True)
class ReleaseOptions:
    """Every public choice of a complete release (:func:`dppca_core.release_pca`), each documented and checked here.

    Build it with keyword arguments (the same names as :func:`dppca_core.release_pca`'s); a refused value raises
    ValueError saying what to change. ``params`` are the mechanism's own parameters (checked by the registry when
    the mechanism is known). ``score_groups`` (one label per row) is data: it is kept as given and hashed by
    :meth:`key`.

    Parameters
    ----------
    k : int or "auto"
        Number of components; "auto": release all the components the mechanism allows, then keep the smallest k whose
        private explained-variance ratios sum above ``variance_target`` (post-processing of the eigenvalue share).
    data_norm : float or "private"
        The public clipping radius R, or "private": chosen from the radius share as a private quantile of the row
        norms (``radius_bounds``, ``radius_quantile``; :func:`dppca_core.pipeline.choices.private_radius`).
    budget : BudgetSplit or dict, optional
        Shares of the budget (a dict with a "subspace" key is a full split; without it, the shares given and the rest
        to the subspace); default: 10% to each step that needs one (mean with ``center="private"``, radius with
        ``data_norm="private"``, scale with ``scale="private"``), the rest to the subspace.
    center : {"none", "private"}
        "private": centre with the released private mean (its share must be positive). The empirical mean is not
        private (the non-private reference, ``mechanism="non_private"``, uses it).
    score_bins : int, optional
        Cells per axis of the private score histogram. Default: from n and the scores share under replace-one; under
        add/remove (n private) from a noisy row count the release publishes, else 6 (:func:`dppca_core.pipeline.scores.
        score_bins`); ``parameters["score_bins_rule"]`` says which.
    score_groups : array-like (n,), optional
        One label per row: the score histogram is released per group (one table, the same sensitivity: grouping costs
        no budget; :mod:`dppca_core.pipeline.scores`).
    score_group_labels : sequence, optional
        The public set of groups. Without it, the groups present are released privately first (stability-based,
        the ``groups`` share); when none passes its threshold the plot has no group (``outputs["scores"]["groups"]``
        empty), never a refusal.
    score_frame : {"public", "private"}
        The score plot's frame: [-1, 1]^2, or private quantiles of the projections (the ``frame`` share).
    score_kind : {"additive", "sparse"}
        Noise on every cell, or on occupied cells only with a threshold (stability-based: a little of delta).
    radius_bounds : (float, float)
        Public bounds on R for ``data_norm="private"`` (units of the data, after scaling).
    radius_quantile : float
        Public target quantile of the row norms for ``data_norm="private"``.
    scale : {"none", "bounds", "private"}
        Column scaling before anything else: "bounds" divides column j by the public bound ``column_bounds[j]``
        (free); "private" by a private root-mean-square from the scale share (with those bounds).
    column_bounds : array-like (d,), optional
        Public bounds on ``|x_j|`` for ``scale`` "bounds" or "private".
    variance_target : float in (0, 1), optional
        For ``k="auto"``.
    epsilon, delta, neighbors
        The total budget of everything released and the neighbouring relation (:func:`dppca_core.run`).
    params : dict
        The mechanism's own parameters (the ``parameters`` column of ``list_mechanisms()``).

    Raises
    ------
    ValueError
        When built, for any value out of its range, in words (e.g. ``k = 0 is out of range``).

    Examples
    --------
    >>> import dppca_core as dc
    >>> options = dc.ReleaseOptions(k=2, epsilon=1.0, center="private")
    >>> options.k, options.center, options.neighbors
    (2, 'private', 'replace')
    >>> dc.ReleaseOptions(k=0)
    Traceback (most recent call last):
        ...
    ValueError: k = 0 is out of range: choose 1 <= k <= d (the number of columns).
    """

    k: object = 1
    epsilon: float = 1.0
    delta: float = 1e-6
    neighbors: str = "replace"
    data_norm: object = 1.0
    budget: object = None
    center: str = "none"
    score_bins: int | None = None
    radius_bounds: tuple = DEFAULT_RADIUS_BOUNDS
    radius_quantile: float = DEFAULT_RADIUS_QUANTILE
    scale: str = "none"
    column_bounds: tuple | None = None
    variance_target: float | None = None
    score_groups: object = field(default=None, repr=False)
    score_group_labels: tuple | None = None
    score_frame: str = "public"
    score_kind: str = "additive"
    params: dict = field(default_factory=dict)

    #: each option's constraint, checked in this order by ``__post_init__`` (the one place options are checked)
    constraints = {
        "neighbors": lambda name, value: check_neighbors(value),
        "epsilon": lambda name, value: check_epsilon(value),
        "delta": _delta,
        "k": _k,
        "center": _one_of(CENTERS, "use 'none' or 'private' (a private mean from its own share)"),
        "scale": _one_of(SCALINGS),
        "data_norm": _radius,
        "budget": _budget,
        "score_bins": _as_is,
        "radius_bounds": _bounds,
        "radius_quantile": _target,
        "column_bounds": _column_bounds,
        "variance_target": _optional(_target),
        "score_groups": _as_is,
        "score_group_labels": _labels,
        "score_frame": _one_of(FRAMES),
        "score_kind": _one_of(KINDS),
        "params": _params,
    }

    def __post_init__(self):
        for name, check in self.constraints.items():
            object.__setattr__(self, name, check(name, getattr(self, name)))
        if self.variance_target is not None and self.k != "auto":
            raise ValueError("variance_target is used with k='auto' only.")

    def replace(self, **changes) -> "ReleaseOptions":
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    @property
    def auto_k(self) -> bool:
        return self.k == "auto"

    @property
    def private_radius(self) -> bool:
        return self.data_norm == "private"

    def key(self) -> str:
        """A stable text naming these options exactly (the cache key of a result computed with them): canonical JSON
        of every option, the budget as its shares, the per-row groups as a SHA-256 of their labels."""
        plain = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        plain["budget"] = None if self.budget is None else self.budget.as_dict()
        groups = self.score_groups
        plain["score_groups"] = (
            None if groups is None else hashlib.sha256(np.asarray(groups).astype(str).tobytes()).hexdigest()
        )
        return json.dumps(plain, sort_keys=True, default=str)


__all__ = ["ReleaseOptions", "CENTERS", "SCALINGS"]

"""How a release's budget is split between its parts (:class:`BudgetSplit`), each part's calibrated share
(:func:`allocate`) and the kind of privacy curve the composition earns (:func:`release_curve_kind`), checked before
any data is read. :mod:`dppca_core.pipeline.budget` re-exports them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..registry import get_mechanism
from ..privacy.shares import allocate as _allocate


#: the parts of a release, in the order they are computed
PARTS = ("scale", "radius", "mean", "subspace", "eigenvalues", "groups", "frame", "scores")


#: share of the budget each optional part gets by default (the rest goes to the subspace)
DEFAULT_SHARES = {
    "scale": 0.1,
    "radius": 0.1,
    "mean": 0.1,
    "eigenvalues": 0.1,
    "scores": 0.1,
    "groups": 0.05,
    "frame": 0.05,
}


#: share of the total delta kept for stability-based steps (a sparse score plot, groups released privately)
STABILITY_DELTA_SHARE = 0.1


@dataclass(frozen=True)
class BudgetSplit:
    """Shares of one privacy budget: ``mean``, ``subspace``, ``eigenvalues``, ``scores``, ``radius`` and ``scale``
    sum to 1.

    A share of 0 releases nothing for that part (the subspace needs a positive share). Shares split mu^2 of the
    total Gaussian-DP parameter when every part is Gaussian (exact), and epsilon (and delta) otherwise.

    Parameters
    ----------
    mean, subspace, eigenvalues, scores, radius, scale, frame, groups : float
        Each part's share, in [0, 1]: the private mean (centring), the subspace, the eigenvalues (private variances and
        explained-variance ratios), the score plot, the private clipping radius, the private column scales, the score
        plot's private frame, and the score plot's private groups.

    Raises
    ------
    ValueError
        When the shares are not in [0, 1] or do not sum to 1, or the subspace has none.

    Examples
    --------
    >>> import dppca_core as dc
    >>> split = dc.BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)  # the rest goes to the subspace
    >>> split.subspace
    0.8
    >>> dc.BudgetSplit(mean=0.5, subspace=0.6)
    Traceback (most recent call last):
        ...
    ValueError: ...
    """

    mean: float = 0.0
    subspace: float = 1.0
    eigenvalues: float = 0.0
    scores: float = 0.0
    radius: float = 0.0
    scale: float = 0.0
    frame: float = 0.0
    groups: float = 0.0

    def __post_init__(self):
        for part in PARTS:
            value = getattr(self, part)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or not 0.0 <= value <= 1.0
            ):
                raise ValueError(f"the {part} share must be a number in [0, 1] (got {value!r}).")
        if self.subspace <= 0:
            raise ValueError("the subspace share must be positive: the components are the release.")
        total = sum(getattr(self, part) for part in PARTS)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(
                f"the shares sum to {total:.6g}, not 1; e.g. BudgetSplit.with_extras(mean=0.1, "
                "eigenvalues=0.1, scores=0.1) gives the subspace the rest."
            )

    @classmethod
    def with_extras(
        cls,
        mean: float = 0.0,
        eigenvalues: float = 0.0,
        scores: float = 0.0,
        radius: float = 0.0,
        scale: float = 0.0,
        frame: float = 0.0,
        groups: float = 0.0,
    ) -> "BudgetSplit":
        """The given extra shares, and the rest of the budget to the subspace."""
        extras = mean + eigenvalues + scores + radius + scale + frame + groups
        if 1.0 - extras <= 0:
            raise ValueError(
                f"the extra shares sum to {extras:.3g}; leave the subspace some budget (the extras must "
                "sum to less than 1)."
            )
        return cls(
            mean=mean,
            subspace=1.0 - extras,
            eigenvalues=eigenvalues,
            scores=scores,
            radius=radius,
            scale=scale,
            frame=frame,
            groups=groups,
        )

    def as_dict(self) -> dict:
        return {part: float(getattr(self, part)) for part in PARTS}


def allocate(split: BudgetSplit, epsilon: float, delta: float, subspace_curve: str) -> dict:
    """Calibration of every part of ``split`` with a positive share (:func:`dppca_core.privacy.shares.allocate`)."""
    return _allocate(split.as_dict(), epsilon, delta, subspace_curve)


def release_curve_kind(mechanism: str, params: dict | None = None) -> str:
    """The kind of privacy curve a complete release of ``mechanism`` with ``params`` earns: "gdp", "approx", "pure"
    (Laplace shares, no delta: no sparse score plot, no groups found privately) or "none"."""
    spec = get_mechanism(mechanism)
    return curve_kind(spec, spec.resolve_params(dict(params or {})))


def curve_kind(spec, params: dict) -> str:
    """The kind of privacy curve the mechanism's release earns, from its registry metadata."""
    if spec.guarantee == "none":
        return "none"
    if spec.guarantee in ("pure", "retracted") or params.get("noise") == "laplace":
        return "pure"
    return "gdp" if spec.gaussian_dp else "approx"


def default_budget(center: str, private_radius_: bool, scale: str) -> BudgetSplit:
    return BudgetSplit.with_extras(
        mean=DEFAULT_SHARES["mean"] if center == "private" else 0.0,
        radius=DEFAULT_SHARES["radius"] if private_radius_ else 0.0,
        scale=DEFAULT_SHARES["scale"] if scale == "private" else 0.0,
    )


def check_budget(budget, center: str, private_radius_: bool, scale: str) -> None:
    if not isinstance(budget, BudgetSplit):
        raise ValueError("budget must be a BudgetSplit (e.g. BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)).")
    needed = {
        "mean": (center == "private", "centring with a private mean (center='private')"),
        "radius": (private_radius_, "choosing the clipping radius privately (data_norm='private')"),
        "scale": (scale == "private", "scaling the columns privately (scale='private')"),
    }
    check_steps_have_shares(budget, needed)


def check_steps_have_shares(budget: BudgetSplit, needed: dict, example: str = "{part}=0.1") -> None:
    """Every step that is on has a positive share, and every positive share has its step on.

    ``needed`` maps a share's name to (whether its step is on, the step in words); ``example`` is the
    ``BudgetSplit.with_extras`` arguments a message suggests (``{part}`` is the share's name).
    """
    for part, (used, what) in needed.items():
        share = getattr(budget, part)
        if used and share <= 0:
            raise ValueError(
                f"{what} needs a positive {part} share in the budget, e.g. "
                f"BudgetSplit.with_extras({example.format(part=part)})."
            )
        if not used and share > 0:
            raise ValueError(
                f"the budget gives the {part} a share of {share:g}, but nothing uses it: {what} is off. "
                f"Give that share to the subspace, or turn the step on."
            )

"""From a scenario to its releases: one :class:`~dppca_core.pipeline.options.ReleaseOptions` per mechanism.

This is the one translation of a scenario's values (``vals``, every field of :data:`dppca_core.scenario.FIELDS` and
the mechanisms' parameters) into what a release is asked to do. The dashboard's pages (Explore, the sweeps, the
Report's publication), the Report's script and its two notebooks all read a scenario through it, so the releases a
page shows and the ones an export computes are asked the same thing (a mechanism the page runs is never "not run" in
its script). Each :class:`ReleaseOptions` holds every choice: k (or "auto" with its variance target), ε, δ, the
relation, the budget split of that mechanism, the centring, the clipping radius (a number, or "private" with its
public bounds and quantile), the column scaling (by public bounds, or privately with them), the score plot's options
as they apply to that mechanism, and the mechanism's own parameters. What each release then reads from the prepared
data is :func:`dppca_core.pipeline.inputs.release_input`'s answer.

Nothing here reads a table's cells: the only data a translation takes is the label column, which becomes the score
plot's groups (``score_groups``), and whether there is one.
"""

from __future__ import annotations

import json

from ..pipeline.inputs import RadiusRule, ScaleRule
from ..pipeline.options import ReleaseOptions
from ..pipeline.split import DEFAULT_SHARES, BudgetSplit, release_curve_kind

__all__ = [
    "mechanisms",
    "mechanism_params",
    "private_k",
    "k_of",
    "k_rule_problem",
    "private_radius",
    "private_scaling",
    "column_bounds",
    "declared_groups",
    "radius_rule",
    "scale_rule",
    "budget",
    "score_plan",
    "score_options",
    "release_options",
    "scenario_options",
]


def mechanisms(vals: dict) -> list[str]:
    """The scenario's mechanisms, in its order."""
    return [m for m in vals["mechs"].split(",") if m]


def mechanism_params(mechanism: str, vals: dict) -> dict:
    """The parameters of ``mechanism`` the scenario sets (None values mean the mechanism's default and are left out)."""
    prefix = f"{mechanism}."
    return {k[len(prefix) :]: v for k, v in vals.items() if k.startswith(prefix) and v is not None}


def private_k(vals: dict) -> bool:
    """Whether each release chooses its k privately (from its private explained-variance ratios)."""
    return vals.get("kfrom", "public") == "private"


def k_of(vals: dict):
    """The k each release is asked for: the scenario's number, or "auto" (chosen privately inside each release)."""
    return "auto" if private_k(vals) else int(vals["k"])


def k_rule_problem(vals: dict) -> str | None:
    """Why a private k cannot be chosen with these settings (the eigenvalue share is 0), or None."""
    if private_k(vals) and vals["beig"] <= 0:
        return (
            "k chosen privately reads each release's private explained-variance ratios, which come from the "
            "eigenvalue share of the budget, and that share is 0. Give the eigenvalues a share (sidebar: Budget "
            "split, 'eigenvalues'; 10% is a good start), or choose k yourself (Explore: 'k comes from')."
        )
    return None


def private_radius(vals: dict) -> bool:
    """Whether each release chooses its clipping radius privately (from the radius share)."""
    return vals.get("rfrom", "public") == "private"


def private_scaling(vals: dict) -> bool:
    """Whether each release scales the columns privately (a root-mean-square from the scale share)."""
    return vals.get("scale", "none") == "private"


def column_bounds(vals: dict) -> list[float]:
    """The public per-column bounds of the scenario (empty when none were given)."""
    return [float(b) for b in vals["bounds"].split(",")] if vals["bounds"] else []


def declared_groups(vals: dict) -> list[str]:
    """The groups the analyst declared public for the score plot by group (empty: found privately)."""
    return json.loads(vals["slabels"]) if vals.get("slabels") else []


def _radius_fields(vals: dict) -> dict:
    """The clipping radius's options: a public R, or "private" with the public bounds and quantile; ValueError naming
    the fix when the bounds are in the wrong order."""
    if not private_radius(vals):
        return {"data_norm": float(vals["R"])}
    if not vals["rlo"] < vals["rhi"]:
        raise ValueError(
            f"the bounds on R must be a smaller and a larger number (got {vals['rlo']:g} and "
            f"{vals['rhi']:g}): set them on the Data page."
        )
    return {"data_norm": "private", "radius_bounds": (vals["rlo"], vals["rhi"]), "radius_quantile": vals["rq"]}


def _scale_fields(vals: dict, d: int | None = None) -> dict:
    """The column scaling's options: none, or by the public bounds ("bounds"), or privately with them ("private");
    ValueError naming the fix when the bounds do not fit the data's ``d`` columns (not checked without ``d``)."""
    scale = vals.get("scale", "none")
    if scale == "none":
        return {}
    given = column_bounds(vals)
    if d is not None and len(given) != d:
        if scale == "private":
            raise ValueError(
                f"scaling each column privately needs a public bound per column: {d} for these data (got "
                f"{len(given)}). Enter them on the Data page (Preprocessing: Public per-column bounds), or "
                "turn the scaling off."
            )
        raise ValueError(
            f"scaling by public bounds needs one bound per column: {d} for these data (got "
            f"{len(given)}). Enter them on the Data page (Preprocessing), or turn the scaling off."
        )
    return {"scale": scale, "column_bounds": tuple(given)}


def radius_rule(vals: dict) -> RadiusRule | None:
    """The public settings of the private radius (:class:`~dppca_core.pipeline.inputs.RadiusRule`), or None when R is
    a public number; ValueError naming the fix when the bounds are in the wrong order."""
    fields = _radius_fields(vals)
    return None if fields["data_norm"] != "private" else RadiusRule(fields["radius_bounds"], fields["radius_quantile"])


def scale_rule(vals: dict, d: int) -> ScaleRule | None:
    """The public settings of a private scaling (:class:`~dppca_core.pipeline.inputs.ScaleRule`: the public bounds),
    or None when the columns are not scaled privately; ValueError naming the fix when the bounds do not fit."""
    if not private_scaling(vals):
        return None
    return ScaleRule(_scale_fields(vals, d)["column_bounds"])


def budget(vals: dict, mechanism: str | None = None, has_labels: bool = True) -> BudgetSplit | None:
    """The BudgetSplit of the scenario, or None when the whole budget goes to the subspace (a plain release);
    ValueError naming the fix when a private step has no share (a private mean, a private k). With ``mechanism``
    and ``has_labels`` (whether the data have a label column): the split that mechanism's release uses, with a
    groups share only when it finds the groups privately (:func:`score_plan`)."""
    mean = vals["bmean"] if vals["center"] == "private" else 0.0
    if vals["center"] == "private" and mean <= 0:
        raise ValueError("centring with a private mean needs a positive mean share: raise it in the budget split.")
    problem = k_rule_problem(vals)
    if problem:
        raise ValueError(problem)
    radius = vals["bradius"] if private_radius(vals) else 0.0
    scale = vals["bscale"] if private_scaling(vals) else 0.0
    if mean == 0 and vals["beig"] == 0 and vals["bscores"] == 0 and radius == 0 and scale == 0:
        return None
    scores = vals["bscores"]
    # a private frame and privately found groups take their default shares (the score plot's options)
    frame = DEFAULT_SHARES["frame"] if scores > 0 and vals.get("sframe") == "private" else 0.0
    find = scores > 0 and score_plan(vals, has_labels, mechanism)["find_groups"]
    groups = DEFAULT_SHARES["groups"] if find else 0.0
    return BudgetSplit.with_extras(
        mean=mean, eigenvalues=vals["beig"], scores=scores, radius=radius, scale=scale, frame=frame, groups=groups
    )


def score_plan(vals: dict, has_labels: bool, mechanism: str | None = None) -> dict:
    """What the score plot of ``mechanism``'s releases does with the scenario's options, and why it differs from
    what was asked (``notes``, one sentence each, for the page): ``by_group``, ``find_groups``, ``kind``.

    A plot by group needs a label column (without one it is drawn without groups); a pure ε-DP release has no δ for
    the stability steps, so it draws the plot additive and, when the groups were to be found privately, without
    groups (declare them public to keep them). A score-plot option never turns into a refusal of the whole
    release."""
    by_group = bool(vals["sgroup"]) and has_labels  # without a label column: drawn without groups (Explore says so)
    declared = declared_groups(vals)
    kind, notes = vals["skind"], []
    pure = mechanism is not None and release_curve_kind(mechanism, mechanism_params(mechanism, vals)) == "pure"
    if pure and kind == "sparse":
        kind = "additive"
        notes.append("a pure ε-DP release has no δ for the sparse plot's threshold: noise on every cell instead.")
    if pure and by_group and not declared:
        by_group = False
        notes.append(
            "a pure ε-DP release has no δ to find the groups privately: drawn without groups (declare "
            "the groups public to show them)."
        )
    return {"by_group": by_group, "find_groups": by_group and not declared, "kind": kind, "notes": notes}


def score_options(vals: dict, labels, mechanism: str | None = None) -> dict:
    """The score plot's options of a release (empty without a scores share): groups from the label column
    ``labels`` (declared public, or their set released privately from the groups share), the frame and the kind;
    adjusted for ``mechanism`` as :func:`score_plan` says (never a refusal)."""
    if vals["bscores"] <= 0:
        return {}
    plan = score_plan(vals, labels is not None, mechanism)
    out = {"score_frame": vals["sframe"], "score_kind": plan["kind"]}
    if plan["by_group"]:
        out["score_groups"] = labels
        if declared_groups(vals):
            out["score_group_labels"] = declared_groups(vals)
    return out


def release_options(vals: dict, mechanism: str, labels=None, d: int | None = None) -> ReleaseOptions:
    """Every option of ``mechanism``'s releases in the scenario ``vals``, in one checked object.

    Parameters
    ----------
    vals : dict
        The scenario's values (:data:`dppca_core.scenario.DEFAULTS` updated with the scenario's settings).
    mechanism : str
        A registered mechanism (its budget split, score plot and parameters are its own).
    labels : array-like, optional
        The data's label column (one label per row), or None when the data have none: the score plot by group uses
        it. Any object other than None stands for a label column (an exported script names its own).
    d : int, optional
        The data's number of columns: the public column bounds are checked against it when given.

    Returns
    -------
    ReleaseOptions
        ``center`` is the scenario's centring ("empirical" included: the prepared input applies it, never a
        release), ``data_norm`` the public R or "private" with ``radius_bounds`` and ``radius_quantile``, ``scale``
        "none", "bounds" or "private" with ``column_bounds``.

    Raises
    ------
    ValueError
        In words, naming the fix: a private step without its share, bounds on R in the wrong order, column bounds
        that do not fit ``d``, or an option :class:`ReleaseOptions` refuses.
    """
    k = k_of(vals)
    return ReleaseOptions(
        k=k,
        epsilon=vals["eps"],
        delta=vals["delta"],
        neighbors=vals["nb"],
        budget=budget(vals, mechanism, labels is not None),
        center=vals["center"],
        variance_target=float(vals["kvar"]) if k == "auto" else None,
        **_radius_fields(vals),
        **_scale_fields(vals, d),
        **score_options(vals, labels, mechanism),
        params=mechanism_params(mechanism, vals),
    )


def scenario_options(vals: dict, labels=None, d: int | None = None, mechs=None) -> dict[str, ReleaseOptions]:
    """{mechanism: :func:`release_options`} for the scenario's mechanisms (or ``mechs``), in order."""
    return {m: release_options(vals, m, labels, d) for m in (mechanisms(vals) if mechs is None else mechs)}

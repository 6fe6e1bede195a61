"""The steps of :func:`dppca_core.pipeline.budget.release_with`: the plan (every share calibrated before any data
is read), then scale, radius, mean, subspace, eigenvalues, k and the score plot (groups, frame), each recording
what it publishes and spends in the :class:`~dppca_core.pipeline.ledger.Ledger`, and the assembled
:class:`~dppca_core.release.Release`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..api import run_part
from .ledger import Ledger, Step
from .choices import choose_k, private_column_scales, private_radius
from .options import ReleaseOptions
from ..linalg import top_eigenvectors
from ..data.gram import block_sq_norms, divided_sq_norms
from ..data.centring import CentredRows, centre, prepare_centred
from ..data.prepare import COMPILED_NORMS_MIN_SIZE, FUSED_GRAM_MAX_D, PreparedData, prepare
from ..privacy import PrivacyCurve
from ..release import NonPrivateDiagnostics, Release
from .scores import (
    BINS_MIN,
    FRAMES,
    KINDS,
    count_noise,
    private_frame,
    private_group_labels,
    private_scores,
    project as project_rows,
    stability_threshold,
)
from ..validation import check_delta, check_float_range, check_int_range, check_k, check_matrix, check_positive
from .parts import private_mean, private_variances
from .split import (
    PARTS,
    STABILITY_DELTA_SHARE,
    BudgetSplit,
    check_budget,
    check_steps_have_shares,
    curve_kind,
    default_budget,
    allocate,
)


#: the variances' pass keeps the rows' projections for the score plot up to this many components (n x k floats)
KEPT_PROJECTIONS = 16


def _column_bounds(column_bounds, d: int) -> np.ndarray:
    if column_bounds is None:
        raise ValueError(
            "scaling by column bounds needs column_bounds: one public bound per column on |x_j| "
            "(from the data's documentation or the instrument's range, never read off the data)."
        )
    b = np.asarray(column_bounds, dtype=float).reshape(-1)
    if b.shape != (d,) or not np.all(np.isfinite(b)) or np.any(b <= 0):
        raise ValueError(f"column_bounds must hold one finite bound > 0 per column ({d} of them); got {b.shape[0]}.")
    return b


@dataclass(frozen=True)
class _Plan:
    """What a release will spend, fixed before any data is read: the budget, each part's calibrated share, the kind
    of curve, the slice of delta the stability steps keep, and the score plot's plan."""

    budget: BudgetSplit
    delta: float
    kind: str = "none"
    shares: dict | None = None
    reserve: float = 0.0
    failure: float = 0.0
    scores: dict | None = None


def plan_release(spec, options: ReleaseOptions) -> _Plan:
    """Check the options against the mechanism and the budget, and calibrate every share (nothing read yet)."""
    resolved = spec.resolve_params(options.params)
    delta = check_delta(options.delta) if spec.uses_delta_with(resolved) else 0.0
    if options.center == "empirical" and spec.guarantee != "none":
        raise ValueError(
            "center='empirical' centres with the data's own mean, which is not private: use "
            "center='private' (a private mean from its own share), or mechanism='non_private' for the "
            "exact reference."
        )
    budget = options.budget
    if budget is None:
        budget = default_budget(options.center, options.private_radius, options.scale)
    if spec.guarantee == "none":
        return _Plan(budget, delta)
    check_budget(budget, options.center, options.private_radius, options.scale)
    scores = _scores_plan(
        budget, options.score_groups, options.score_group_labels, options.score_frame, options.score_kind
    )
    _check_auto_k(options.k, options.variance_target, budget, spec)
    kind = curve_kind(spec, resolved)
    # stability-based steps (a sparse score plot, groups found privately) spend a slice of delta outside GDP
    reserve = STABILITY_DELTA_SHARE * delta if scores["stability_steps"] else 0.0
    if scores["stability_steps"] and kind == "pure":
        raise ValueError(
            "a sparse score plot and privately found groups need a delta, which a pure-DP release does "
            "not have: use score_kind='additive' and declare score_group_labels, or a Gaussian mechanism."
        )
    shares = allocate(
        budget, options.epsilon, (delta - reserve) if kind != "pure" else 0.0, "approx" if kind == "none" else kind
    )
    failure = reserve / ((1.0 + math.exp(min(options.epsilon, 700.0))) * max(scores["stability_steps"], 1))
    return _Plan(budget, delta, kind, shares, reserve, failure, scores)


def scale_step(X, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger) -> tuple:
    """(the rows; the column scales (public bounds, free; or private, the scale share), recorded, or None when no
    column is scaled). The rows are not divided here: every later pass divides each block as it reads it
    (``column_scales`` of :func:`prepare`), so no scaled copy of the table is formed."""
    if options.private_radius or options.scale != "none":
        from ..data.stats import SufficientStats

        if isinstance(X, (PreparedData, SufficientStats)):
            raise ValueError("choosing the radius or scaling the columns reads the raw rows; pass the data matrix.")
        X = check_matrix(X, finite=options.scale == "none")  # scaled: checked in the passes that divide
    if options.scale == "none":
        return X, None
    b = _column_bounds(options.column_bounds, X.shape[1])
    step = Step(parameters={"column_bounds": b})
    if options.scale == "bounds":
        scales = b
    else:
        share = plan.shares["scale"]
        chosen = private_column_scales(X, b, share, options.neighbors, rng)
        scales = chosen["scales"]
        step.outputs["column_scales"] = scales
        if chosen["count"] is not None:  # add/remove: the noisy row count the scales divided by
            step.outputs["column_scales_count"] = chosen["count"]
        step.facts["scale_noise_scale"] = chosen["noise"].noise_scale
        step.curves.append(share.curve())
    ledger.record(step)
    return X, np.ascontiguousarray(scales, dtype=float)


def radius_step(X, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger, divisors=None) -> tuple:
    """(the clipping radius: public, or a private quantile of the row norms (the radius share), recorded; the squared
    row norms read here for a private radius as :func:`prepare` reads them (the clipping takes them), else None).
    ``divisors``: the column scales the rows are divided by (their norms are the divided rows', not a copy's)."""
    if not options.private_radius:
        hint = "Choose a public bound on row norms, or data_norm='private'."
        return check_positive(options.data_norm, "data_norm (clipping radius R)", hint=hint), None
    share = plan.shares["radius"]
    compiled = X.size >= COMPILED_NORMS_MIN_SIZE
    sq_norms = block_sq_norms(X, compiled) if divisors is None else divided_sq_norms(X, divisors, compiled)
    bounds, quantile = options.radius_bounds, options.radius_quantile
    chosen = private_radius(
        X, share, options.neighbors, rng, bounds=bounds, quantile=quantile, sq_norms=sq_norms, divisors=divisors
    )
    R = chosen["radius"]
    ledger.record(
        Step(
            curves=[share.curve()],
            outputs={"radius": {"value": R, "counts": chosen["counts"], "thresholds": chosen["thresholds"]}},
            facts={"radius_noise_scale": chosen["noise"].noise_scale},
            parameters={
                "radius_rule": {
                    "quantile": chosen["quantile"],
                    "bounds": [float(chosen["edges"][0]), float(chosen["edges"][-1])],
                    "bins": int(chosen["edges"].size - 1),
                }
            },
        )
    )
    return R, sq_norms


def mean_step(
    data: PreparedData, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger, gram_now: bool = True
) -> PreparedData:
    """The private mean (its share), recorded; the rows the later steps read: centred with it and clipped to R
    again (``center="private"``), or ``data`` itself. ``gram_now``: the mechanism reads the Gram matrix of the
    centred rows (then it is formed in the same pass by blocks as the centred rows)."""
    mean_scaled = np.zeros(data.d)
    if "mean" in plan.shares:
        share = plan.shares["mean"]
        m = private_mean(data, share, options.neighbors, rng)
        mean_scaled = m["mean"]
        # the released noisy sum of the scaled rows (on its grid); the mean is its post-processing: divided by n (or
        # the noisy count), projected on the unit ball, times R
        step = Step(
            curves=[share.curve()],
            outputs={"mean": mean_scaled * data.data_norm, "mean_sum": m["sum"]},
            facts={"mean_noise_scale": m["noise_scale"], "mean_grid": m["noise"].step},
        )
        if m["count_noise"] is not None:  # add/remove: the noisy count is part of the mean's release
            step.outputs["count"] = m["count"]
            step.facts["count_noise_scale"] = m["count_noise_scale"]
        ledger.record(step)
    if options.center != "private":
        return data
    if gram_now or data.d <= FUSED_GRAM_MAX_D:  # (rows - mean) R, re-clipped to R, and their Gram matrix
        return centre(data, mean_scaled)
    # (rows - mean) R re-clipped to R, kept as their parts (the mechanism reads the rows; the Gram matrix on first use)
    return prepare_centred(data, mean_scaled, with_gram=False)


def subspace_step(
    spec, work: PreparedData, K: int, options: ReleaseOptions, plan: _Plan, source, ledger: Ledger
) -> Release:
    """The registered mechanism on the (privately centred) rows with its share, recorded."""
    sub = plan.shares["subspace"]
    released = run_part(
        spec.name, work, K, sub.epsilon, sub.delta, options.neighbors, work.data_norm, source, **options.params
    )
    if plan.kind == "gdp" and released.privacy.kind != "gdp":
        raise RuntimeError(
            f"{spec.name} declares a Gaussian-DP guarantee (gaussian_dp) but released "
            f"{released.privacy.describe()}; fix its registry metadata."
        )
    ledger.record(Step(curves=[released.privacy], outputs=released.outputs))
    return released


def eigenvalue_step(
    spec, work: PreparedData, released: Release, options: ReleaseOptions, plan: _Plan, rng, ledger: Ledger
) -> tuple:
    """The components ordered by private variances (the eigenvalue share) and the explained-variance ratios
    (post-processing), recorded; or the mechanism's own eigenvalues and trace where it releases them."""
    components, eigenvalues, projections = released.components, released.eigenvalues, None
    step = Step()
    if "eigenvalues" in plan.shares:
        share = plan.shares["eigenvalues"]
        # the pass over the rows also keeps their projections for the score plot (few components: little memory)
        keep = "scores" in plan.shares and components.shape[1] <= KEPT_PROJECTIONS
        var = private_variances(
            work, components, share, options.neighbors, rng, rotate=not spec.ordered_basis, keep_projections=keep
        )
        components, eigenvalues, projections = var["components"], var["variances"], var["projections"]
        step.outputs.update(
            total_variance=var["total_variance"], variances_released={"kind": var["kind"], "values": var["released"]}
        )
        step.facts.update(eigenvalue_noise_scale=var["noise"].noise_scale, eigenvalue_grid=var["noise"].step)
        step.curves.append(share.curve())
    elif eigenvalues is not None and "trace" in released.outputs:
        step.outputs["total_variance"] = released.outputs["trace"]
    total = {**ledger.outputs, **step.outputs}.get("total_variance")
    if eigenvalues is not None and total:
        step.outputs["explained_variance_ratio"] = np.asarray(eigenvalues) / max(total, 1e-300)
    ledger.record(step)
    return components, eigenvalues, projections


def k_step(components, eigenvalues, projections, K: int, options: ReleaseOptions, ledger: Ledger) -> tuple:
    """``k="auto"``: the smallest k whose private explained-variance ratios sum above the target (post-processing);
    the ratios of all K components stay published, so anyone can replay the choice."""
    if not options.auto_k:
        return components, eigenvalues, projections
    ratios = ledger.outputs["explained_variance_ratio"]
    k = choose_k(ratios, options.variance_target)
    ledger.record(
        Step(
            outputs={"candidate_ratios": np.asarray(ratios), "explained_variance_ratio": ratios[:k]},
            parameters={
                "k_rule": {
                    "variance_target": float(options.variance_target),
                    "components_released": int(K),
                    "rule": "smallest k whose private explained-variance ratios sum above the target",
                }
            },
        )
    )
    return components[:, :k], np.asarray(eigenvalues)[:k], None if projections is None else projections[:, :k]


def assemble_release(
    spec,
    options: ReleaseOptions,
    plan: _Plan,
    ledger: Ledger,
    released: Release,
    prepared: tuple,
    result: tuple,
    privacy: tuple,
    note,
    seeded: bool,
) -> Release:
    """The :class:`Release` from the ledger: the mechanism's own facts and parameters under the steps'."""
    (data, work), (components, eigenvalues), (curve, guarantee, total_delta) = prepared, result, privacy
    facts = {**ledger.facts, **released.facts}
    facts["budget"] = _budget_facts(plan.shares, facts)
    parameters = {
        **released.parameters,
        **ledger.parameters,
        "k": int(components.shape[1]),
        "budget": plan.budget.as_dict(),
        "center": options.center,
        "scale": options.scale,
    }
    diagnostics = dict(released.diagnostics)
    diagnostics["rows_clipped"] = data.n_clipped
    if note:  # told to the data owner only: never a refusal, never published
        diagnostics["warnings"] = [note, *diagnostics.get("warnings", [])]
    if options.center == "private":
        diagnostics["rows_clipped_after_centring"] = work.n_clipped
    return Release(
        mechanism=spec.name,
        components=components,
        epsilon=options.epsilon,
        delta=total_delta,
        neighbors=options.neighbors,
        guarantee=guarantee,
        privacy=curve,
        noise_scale=released.noise_scale,
        eigenvalues=None if eigenvalues is None else np.asarray(eigenvalues),
        outputs=ledger.outputs,
        parameters=parameters,
        facts=facts,
        caveat=released.caveat,
        diagnostics=NonPrivateDiagnostics(diagnostics),
        seeded=seeded,
        # the noisy statistic, kept for a refinement only when it is the whole release (no other part spent)
        state=released.state if set(plan.shares) == {"subspace"} and not plan.reserve else None,
    )


_NOISE_FACT = {
    "scale": "scale_noise_scale",
    "radius": "radius_noise_scale",
    "mean": "mean_noise_scale",
    "eigenvalues": "eigenvalue_noise_scale",
    "scores": "scores_noise_scale",
    "frame": "frame_noise_scale",
    "groups": "groups_noise_scale",
}


def _scores_plan(budget: BudgetSplit, groups, group_labels, frame: str, kind: str) -> dict:
    """Check the score plot's options against the budget; how many stability-based steps they take."""
    if frame not in FRAMES:
        raise ValueError(f"score_frame={frame!r}: use one of {list(FRAMES)}.")
    if kind not in KINDS:
        raise ValueError(f"score_kind={kind!r}: use one of {list(KINDS)}.")
    find_groups = groups is not None and group_labels is None
    needed = {
        "frame": (frame == "private", "a private frame (score_frame='private')"),
        "groups": (find_groups, "finding the groups privately (score_groups without score_group_labels)"),
    }
    if budget.scores <= 0:
        if frame == "private" or groups is not None or kind != "additive":
            raise ValueError(
                "the score plot's options need a scores share in the budget, e.g. "
                "BudgetSplit.with_extras(scores=0.1)."
            )
    check_steps_have_shares(budget, needed, example="{part}=0.05, scores=0.1")
    return {
        "frame": frame,
        "kind": kind,
        "find_groups": find_groups,
        "stability_steps": int(kind == "sparse") + int(find_groups),
    }


#: where a noisy row count may already be published when the score plot is drawn (add/remove), in order of
#: preference: the private mean's, the column scales', the radius search's first count
ROW_COUNTS = (("outputs", "count"), ("outputs", "column_scales_count"), ("outputs", "radius", "counts", 0))


#: the rule of the score plot's default cells per axis, as the release states it
BINS_RULE = "round((n mu)^(1/3)) cells per axis, between 6 and 40 (n: the row count at n_from, mu: the scores share's)"


def published_row_count(outputs: dict) -> tuple:
    """(a noisy row count a release publishes in ``outputs``, its path in ``published()``), or (None, None): the
    private mean's, the column scales', the radius search's (:data:`ROW_COUNTS`, in that order). Under add/remove,
    where n is private, this is what anything that needs n may read."""
    for path in ROW_COUNTS:
        node = {"outputs": outputs}
        try:
            for part in path:
                node = node[part]
        except (KeyError, IndexError, TypeError):
            continue
        return float(node), list(path)
    return None, None


def _groups_step(work: PreparedData, options: ReleaseOptions, plan: _Plan, rng) -> tuple:
    """(the per-row groups, the public set of groups, the step): declared, or found privately (the groups share,
    stability-based); when none passes the threshold the plot has no group, a released outcome, never a refusal."""
    groups, group_labels, step = options.score_groups, options.score_group_labels, Step()
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape[0] != work.n:
            raise ValueError(f"score_groups must hold one label per row ({work.n}); got {groups.shape[0]}.")
    if plan.scores["find_groups"]:
        share = plan.shares["groups"]
        group_labels = private_group_labels(groups, share, options.neighbors, rng, plan.failure)
        step.curves.append(share.curve())
        step.parameters["score_groups"] = "released privately (groups share)"
        # a group shows when its noisy count reaches this (data-independent: the pages say how many rows it takes)
        step.facts["groups_threshold"] = stability_threshold(count_noise(share, options.neighbors), plan.failure)
    elif group_labels is not None:
        step.parameters["score_groups"] = "declared (public)"
        step.parameters["score_group_labels"] = [str(g) for g in group_labels]
    return groups, group_labels, step


def _frame_step(components, options: ReleaseOptions, plan: _Plan, rng, outputs: dict, projections) -> tuple:
    """(the frame or None, a published row count and its path or (None, None), the step): the score plot's private
    frame (the frame share), and under add/remove the noisy row count the plot's cells may read."""
    neighbors = options.neighbors
    released_n, n_from = published_row_count(outputs) if neighbors == "add_remove" else (None, None)
    if plan.scores["frame"] != "private":
        return None, (released_n, n_from), Step()
    share = plan.shares["frame"]
    dims = min(2, components.shape[1])
    scores = projections[:, :dims]
    frame = private_frame(scores, share, neighbors, rng, n=released_n)
    if "count" in frame and released_n is None:
        released_n, n_from = float(frame["count"]), ["outputs", "scores", "frame", "count"]
    return frame, (released_n, n_from), Step(curves=[share.curve()])


def score_plot_step(
    work: PreparedData, components, options: ReleaseOptions, plan: _Plan, rng, outputs: dict, projections=None
) -> Step:
    """The score histogram of a release with its groups and frame (their steps first): one step for the ledger.

    Nothing in its shape reads the exact n where n is private: under add/remove the default cells come from a noisy
    row count the release publishes (:data:`ROW_COUNTS`, or the private frame's own), else the fixed minimum
    (:func:`dppca_core.pipeline.scores.score_bins`); ``parameters["score_bins_rule"]`` says which, so anyone can replay it.
    """
    neighbors, bins = options.neighbors, options.score_bins
    # centred rows in a public frame find their cells without the n x 2 projections (nor the rows: not formed)
    fused = projections is None and plan.scores["frame"] != "private" and isinstance(work, CentredRows)
    if projections is None and not fused:  # the rows' projections on the plotted components
        projections = work.project(components[:, : min(2, components.shape[1])])
    groups, group_labels, groups_step = _groups_step(work, options, plan, rng)
    frame, (released_n, n_from), frame_step = _frame_step(components, options, plan, rng, outputs, projections)
    share = plan.shares["scores"]
    mu = share.mu or share.epsilon
    if bins is not None:
        rule = {"declared": int(bins)}
    elif neighbors == "replace":
        rule = {"rule": BINS_RULE, "n_from": ["parameters", "n"], "mu": mu}
    elif released_n is not None:
        rule = {"rule": BINS_RULE, "n_from": n_from, "mu": mu}
    else:
        rule = {
            "rule": "no row count is published (n is private under add/remove): the fixed default",
            "default": BINS_MIN,
        }
    sc = private_scores(
        None,
        components,
        share,
        neighbors,
        rng,
        bins=bins,
        groups=groups,
        group_labels=group_labels,
        frame=frame,
        kind=plan.scores["kind"],
        failure=plan.failure,
        released_n=released_n,
        projections=projections,
        cells_from=work if fused else None,
    )
    out = {"counts": sc["counts"], "edges": sc["edges"], "dims": sc["dims"]}
    if sc["groups"] is not None:
        out["groups"] = sc["groups"]
    if frame is not None:
        out["frame"] = {key: frame[key] for key in ("low", "high", "counts", "quantile", "count") if key in frame}
    step = Step(
        curves=groups_step.curves + frame_step.curves + [share.curve()],
        outputs={"scores": out},
        facts={**groups_step.facts, "scores_noise_scale": sc["noise_scale"]},
        parameters={
            "score_frame": plan.scores["frame"],
            "score_kind": plan.scores["kind"],
            **groups_step.parameters,
            "score_bins": sc["bins"],
            "score_bins_rule": rule,
        },
    )
    if sc["threshold"] is not None:
        step.facts["scores_threshold"] = sc["threshold"]
    return step


def _budget_facts(shares: dict, facts: dict) -> dict:
    """Each part's share and calibration: its (epsilon, delta) and mu, and the noise scale it added."""
    out = {}
    for part in PARTS:
        if part not in shares:
            continue
        s = shares[part]
        entry = {"share": s.weight, "epsilon": s.epsilon, "delta": s.delta}
        if s.mu is not None:
            entry["mu"] = s.mu
        noise = facts.get(_NOISE_FACT.get(part, ""))
        if noise is not None:
            entry["noise_scale"] = noise
        out[part] = entry
    return out


def _check_auto_k(k, variance_target, budget: BudgetSplit, spec) -> bool:
    if not (isinstance(k, str) and k == "auto"):
        if variance_target is not None:
            raise ValueError("variance_target is used with k='auto' only.")
        return False
    if variance_target is None:
        raise ValueError(
            "k='auto' needs a public variance_target in (0, 1), e.g. 0.9: the smallest k whose private "
            "explained-variance ratios sum above it."
        )
    check_float_range(variance_target, "variance_target", 0.0, 1.0, low_open=True, high_open=True)
    if budget.eigenvalues <= 0 and not spec.releases_eigenvalues:
        raise ValueError(
            f"k='auto' is chosen from private explained-variance ratios, but the budget gives the "
            f"eigenvalues no share and {spec.name} does not release its own: give 'eigenvalues' a share."
        )
    return True


def exact_release(spec, X, options: ReleaseOptions, budget: BudgetSplit, seeded: bool) -> Release:
    """The non-private reference: every part exact, as scikit-learn's PCA computes it on the clipped rows.

    No share, no noise: the empirical mean (``center`` "private" or "empirical"; no re-clipping after centring),
    the exact eigenvalues and trace of the centred rows, exact score counts. Guarantee: none.
    """
    k, neighbors, data_norm, center = options.k, options.neighbors, options.data_norm, options.center
    score_bins, scale, variance_target = options.score_bins, options.scale, options.variance_target
    if isinstance(data_norm, str):
        raise ValueError("the non-private reference clips to a given radius: pass a number as data_norm.")
    if scale != "none":
        X = check_matrix(X)
        X = X / _column_bounds(options.column_bounds, X.shape[1])
    data = prepare(X, data_norm)
    rows = data.rows
    outputs = {}
    if center in ("private", "empirical"):
        mean = rows.mean(axis=0)
        rows = rows - mean
        outputs["mean"] = mean * data.data_norm
    gram = rows.T @ rows
    if isinstance(k, str) and k == "auto":
        if variance_target is None:
            raise ValueError("k='auto' needs a variance_target in (0, 1).")
        all_values = np.sort(np.linalg.eigvalsh((gram + gram.T) / 2.0))[::-1]
        k = choose_k(all_values / max(float(np.trace(gram)), 1e-300), variance_target)
    k = check_k(k, data.d)
    values, vectors = top_eigenvectors(gram, k)
    outputs["total_variance"] = float(np.trace(gram))
    outputs["explained_variance_ratio"] = values / max(outputs["total_variance"], 1e-300)
    if budget.scores > 0:
        bins = check_int_range(24 if score_bins is None else score_bins, "score bins", 4, 100)
        edges = np.linspace(-1.0, 1.0, bins + 1)
        dims = min(2, k)
        proj = project_rows(rows, vectors[:, :dims])
        counts = (
            np.histogram2d(proj[:, 0], proj[:, 1], bins=[edges, edges])[0]
            if dims == 2
            else np.histogram(proj[:, 0], bins=edges)[0]
        )
        outputs["scores"] = {
            "counts": counts.astype(np.int64),
            "edges": [edges, edges] if dims == 2 else edges,
            "dims": dims,
        }
    parameters = {
        "k": k,
        "d": data.d,
        "data_norm": data.data_norm,
        "budget": budget.as_dict(),
        "center": center,
        "score_bins": score_bins,
        "scale": scale,
    }
    if neighbors == "replace":
        parameters["n"] = data.n
    return Release(
        mechanism=spec.name,
        components=vectors,
        epsilon=math.inf,
        delta=0.0,
        neighbors=neighbors,
        guarantee="none",
        privacy=PrivacyCurve.none(),
        noise_scale=None,
        eigenvalues=values,
        outputs=outputs,
        parameters=parameters,
        facts={"noise_on": "none"},
        diagnostics=NonPrivateDiagnostics({"rows_clipped": data.n_clipped}),
        seeded=seeded,
    )

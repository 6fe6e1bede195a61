"""Checking a plan: on rows or fresh draws (:func:`evaluate`, the data owner's check, not private), and what a
release can tell about its own accuracy, bounds on a plan's targets from its published values and noise scales alone
(:func:`release_evidence`, post-processing: no row is read, so the statement may be published with the release).

:func:`release_evidence` reads one published release (:meth:`dppca_core.Release.published`, or an entry of a
publishable file) and bounds, with probability ``level`` over the release's own noise, how far its components are
from the exact ones of the rows it was computed from (as it clipped and centred them):

* **Analyze Gauss with its own eigenvalues** (no eigenvalue share): the noisy matrix is C + F, F the symmetric Gaussian
  noise E (its norm at most sigma times :func:`.band.noise_norm_quantile`) plus, for a release centred with a private
  mean, the rank-one term P of that mean's error (:func:`.band.mean_shift`). The (k+1)-th variance of C is at most the
  variance left outside the top k (the published trace, less the top k's lower bounds: Ky Fan), so the gap behind
  the published k-th eigenvalue is known from below, and Davis and Kahan's sin-theta theorem bounds the subspace
  distance: ||sin Theta||_F <= sqrt(k) ||F|| / (lambda_k(C + F) - lambda_{k+1}(C)). The captured energy's share of
  the optimum is at least (sum - k ||E|| - ||P||) / (sum + k ||E||), sum the published top k (Ky Fan again).
* **Any mechanism with an eigenvalue share**: the variances along the released components and the total, each with
  Gaussian noise: the captured energy's share of the optimum is at least what the released components capture over
  the total variance (the optimum is at most the total).

The pieces share ``level`` by Bonferroni. Other targets (support F1, the explained-variance error, the score plot)
and other releases get "cannot tell" (None). The bound is a worst case: a release usually does better than it says.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy import stats

from ..audit.bounds import clopper_pearson_arrays
from ..pipeline.budget import BudgetSplit
from ..pipeline.experiments import RadiusRule
from .band import mean_shift, noise_norm_quantile
from .setting import make_setting
from .simulation import Simulator
from .standin import Standin
from .targets import PLAN_INTERVAL, TARGETS

#: the probability (over the release's own noise) with which the bounds hold
EVIDENCE_LEVEL = 0.95


def release_evidence(published: dict, level: float = EVIDENCE_LEVEL) -> dict:
    """Bounds on the targets a release can speak to, from what it publishes.

    Returns ``{"level": level, "bounds": {"subspace_distance": at most, "energy": at least (a fraction of the
    optimum)}, "why": a sentence}``, and ``"noisy": True`` when the release's noise is known but its numbers may
    still be too noisy to bound a target; a bound the release cannot give (or only a vacuous one) is None.
    """
    facts, outputs, params = published.get("facts", {}), published.get("outputs", {}), published.get("parameters", {})
    eig = np.asarray(published.get("eigenvalues") or [], dtype=float)
    comps = np.asarray(published.get("components") or [[]], dtype=float)
    d, k = int(params.get("d", comps.shape[0])), comps.shape[1] if comps.ndim == 2 else 0
    n = params.get("n") or outputs.get("count")
    private_mean = params.get("center") == "private" and facts.get("mean_noise_scale") and n
    own = "eigenvalue_noise_scale" not in facts and facts.get("noise_on") == "upper(X^T X)"
    total = outputs.get("total_variance", outputs.get("trace"))
    bounds = {"subspace_distance": None, "energy": None}
    if k < 1 or eig.size < k or total is None:
        return {"level": level, "bounds": bounds, "why": "it publishes no variances with a known noise"}
    pieces = 2 + bool(private_mean)  # Bonferroni: the noise's norm (or the variances'), the trace, the mean
    alpha = (1.0 - level) / pieces
    shift = mean_shift(float(facts["mean_noise_scale"]), float(n), d, 1.0 - alpha) if private_mean else 0.0
    top = float(np.sum(eig[:k]))
    if own and published.get("noise_scale"):
        sigma = float(published["noise_scale"])
        norm = sigma * noise_norm_quantile(d, 1.0 - alpha)
        trace_high = float(total) + float(stats.norm.ppf(1.0 - alpha)) * sigma * math.sqrt(d)
        tail = trace_high - (top - k * norm - shift)  # the variance outside the top k, at most (Ky Fan)
        gap = float(eig[k - 1]) - (tail if k < d else 0.0)
        if gap > 0 and math.sqrt(k) * (norm + shift) / gap < math.sqrt(min(k, d - k)):
            bounds["subspace_distance"] = math.sqrt(k) * (norm + shift) / gap
        if top - k * norm - shift > 0:
            bounds["energy"] = (top - k * norm - shift) / (top + k * norm)
        why = "from its published eigenvalues, trace and noise scale (Davis-Kahan and Weyl)"
    elif "eigenvalue_noise_scale" in facts:
        sd = float(facts["eigenvalue_noise_scale"])
        z = float(stats.norm.ppf(1.0 - alpha))
        captured = top - z * sd * math.sqrt(k) - shift
        bounds["energy"] = captured / (float(total) + z * sd) if captured > 0 else None
        why = "from its published variances and their noise scale"
    else:
        return {"level": level, "bounds": bounds, "why": "its noise is not on the variances it publishes"}
    return {"level": level, "bounds": bounds, "why": why, "noisy": True}


def evidence_words(evidence: dict, targets: dict) -> list[str]:
    """One sentence per target: what the release's own numbers say of it (met, not confirmed, or cannot tell)."""
    out = []
    level = f"{100 * evidence['level']:.0f}%"
    for name, target in targets.items():
        info, bound = TARGETS[name], evidence["bounds"].get(name)
        if bound is None:
            out.append(
                f"The release's own numbers are too noisy to bound its {info.label} (the gap they show is within "
                "their noise): they neither confirm nor refute the target."
                if evidence.get("noisy") and name in evidence["bounds"]
                else f"The release cannot tell its {info.label} from its own numbers ({evidence['why']})."
            )
            continue
        sign = "at most" if info.lower_is_better else "at least"
        met = bool(info.meets(bound, target))
        verdict = (
            f"so the target ({info.words(target)}) is met"
            if met
            else f"which cannot confirm the target ({info.words(target)}): the release may still meet it, the bound "
            "is a worst case"
        )
        out.append(
            f"From its own published numbers ({evidence['why']}), with {level} confidence this release's "
            f"{info.label} is {sign} {bound:.3g}{info.unit}, {verdict}."
        )
    return out


def evaluate(
    found,
    X=None,
    *,
    standin: Standin | None = None,
    epsilon: float | None = None,
    mechanism: str | None = None,
    budget: BudgetSplit | None = None,
    support=None,
    reps: int = 200,
    seed: int = 1,
) -> dict:
    """The share of ``reps`` fresh releases that meet the plan's targets, with its 95% interval.

    On rows ``X`` (the data's units; each release scored against the exact PCA of those rows: the data owner's check,
    **not private**), or on fresh draws from ``standin`` (default: the plan's own), at the plan's epsilon, mechanism
    and split unless others are given. ``support``: the rows' planted support for an F1 target (default: the top-s
    rows of their exact components). ``seed`` should differ from the plan's, so the releases are fresh.
    Returns ``share``, ``low``, ``high``, ``reps``, ``met`` (reps x targets booleans) and ``values``.
    """
    if not found.reachable and (epsilon is None or mechanism is None or budget is None):
        raise ValueError(
            "this plan reached no epsilon: give epsilon=..., mechanism=... and budget=... to evaluate " "one."
        )
    cfg = found.settings
    s = make_setting(
        found.targets,
        n=X.shape[0] if X is not None else cfg["n"],
        d=cfg["d"],
        k=cfg["k"],
        spectrum=None,
        standin=standin or found.standin,
        delta=found.delta,
        confidence=found.confidence,
        neighbors=cfg["neighbors"],
        data_norm=cfg["data_norm"],
        radius_rule=RadiusRule(*cfg["radius"]) if cfg["radius"] else None,
        center=cfg["center"],
        parts=cfg["parts"],
        mechanisms=[mechanism or found.mechanism],
        mechanism_params={m: json.loads(p) for m, p in cfg["params"].items()},
        sparsity=cfg["sparsity"],
        reps=reps,
        seed=seed,
        max_epsilon=100.0,
    )
    sim = Simulator(s, rows=None if X is None else np.asarray(X, dtype=float), support=support)
    values = sim.values(s.mechanisms[0], budget or found.budget, float(epsilon or found.epsilon), reps)
    met = sim.met(values)
    count = int(met.all(axis=1).sum())
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, PLAN_INTERVAL)
    return {
        "share": count / reps,
        "low": float(lo[0]),
        "high": float(hi[0]),
        "reps": reps,
        "met": met,
        "values": values,
    }

"""A complete private PCA release under one composed budget: centre, subspace, explained variance, scores.

:func:`release_pca` splits a total (epsilon, delta) between up to four releases computed from the same data,
each calibrated in :mod:`dppca_core.privacy` from a stated sensitivity (rows clipped to the public radius R and
scaled to norm <= 1):

* **mean** — the centre, from a Gaussian (or Laplace) sum of the clipped rows, sensitivity 2 (replace one
  row) or 1 plus a noisy count (add/remove, where n is private); projected onto the radius-R ball, which holds
  the true mean (post-processing). The rows are then centred with it and clipped to R again, so the subspace
  stage sees rows of norm <= R and its own calibration is unchanged;
* **subspace** — the registered mechanism, run on the (privately centred) data with its share;
* **eigenvalues** — the top-k eigenvalues of the Gram matrix and its trace as one Gaussian vector, L2
  sensitivity sqrt(2 + 1) (replace) or sqrt(1 + 1) (add/remove) by Hoffman-Wielandt; explained-variance ratios
  are their post-processing. Mechanisms that perturb the Gram matrix itself (Analyze Gauss) give them for free;
* **scores** — a noisy histogram of the rows projected on the first two released components (fixed bins on
  [-1, 1]^2, sensitivity sqrt(2) or 1), the private 2-D score plot.

Composition is exact where every part is Gaussian: the shares split mu^2 of the total mu*(epsilon, delta)
(Gaussian DP, Dong, Roth & Su 2022), so mu_i = sqrt(w_i) mu*. With a pure-DP subspace mechanism the other parts
use Laplace noise and the shares split epsilon (basic composition); with an (epsilon, delta) mechanism they
split both. The release's privacy curve is the composition of the parts (:func:`dppca_core.privacy.compose`),
checked to earn the stated (epsilon, delta).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .api import run
from .prepare import PreparedData, prepare
from .privacy import (PrivacyCurve, check_neighbors, compose, gaussian_epsilon, gaussian_mu, laplace_scale,
                      sensitivity)
from .registry import get_mechanism
from .randomness import random_source
from .release import NonPrivateDiagnostics, Release
from .validation import check_delta, check_epsilon, check_int_range, check_k

PARTS = ("mean", "subspace", "eigenvalues", "scores")
#: share of the budget each part gets by default (the rest goes to the subspace)
DEFAULT_SHARES = {"mean": 0.1, "eigenvalues": 0.1, "scores": 0.1}


@dataclass(frozen=True)
class BudgetSplit:
    """Shares of one privacy budget: ``mean``, ``subspace``, ``eigenvalues`` and ``scores`` sum to 1.

    A share of 0 releases nothing for that part (the subspace needs a positive share). Shares split mu^2 of the
    total Gaussian-DP parameter when every part is Gaussian (exact), and epsilon (and delta) otherwise.
    """

    mean: float = 0.0
    subspace: float = 1.0
    eigenvalues: float = 0.0
    scores: float = 0.0

    def __post_init__(self):
        for part in PARTS:
            value = getattr(self, part)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0.0 <= value <= 1.0:
                raise ValueError(f"the {part} share must be a number in [0, 1] (got {value!r}).")
        if self.subspace <= 0:
            raise ValueError("the subspace share must be positive: the components are the release.")
        total = sum(getattr(self, part) for part in PARTS)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"the shares sum to {total:.6g}, not 1; e.g. BudgetSplit.with_extras(mean=0.1, "
                             "eigenvalues=0.1, scores=0.1) gives the subspace the rest.")

    @classmethod
    def with_extras(cls, mean: float = 0.0, eigenvalues: float = 0.0, scores: float = 0.0) -> "BudgetSplit":
        """The given extra shares, and the rest of the budget to the subspace."""
        rest = 1.0 - mean - eigenvalues - scores
        if rest <= 0:
            raise ValueError(f"the extra shares sum to {mean + eigenvalues + scores:.3g}; leave the subspace some "
                             "budget (the extras must sum to less than 1).")
        return cls(mean=mean, subspace=rest, eigenvalues=eigenvalues, scores=scores)

    def as_dict(self) -> dict:
        return {part: float(getattr(self, part)) for part in PARTS}


@dataclass(frozen=True)
class Share:
    """The calibration of one part: its weight, and either mu (Gaussian) or (epsilon, delta)."""

    weight: float
    epsilon: float
    delta: float
    mu: float | None = None  # Gaussian parts: the GDP parameter they may use

    def curve(self) -> PrivacyCurve:
        return PrivacyCurve.gdp(self.mu) if self.mu is not None else PrivacyCurve.pure(self.epsilon)


def allocate(split: BudgetSplit, epsilon: float, delta: float, subspace_curve: str) -> dict:
    """Calibration of every part with a positive share, composing exactly to (epsilon, delta).

    ``subspace_curve`` is the kind of privacy curve the subspace mechanism earns: "gdp" (Gaussian: every part
    gets mu_i = sqrt(w_i) mu*(epsilon, delta)), "pure" (every part gets epsilon_i = w_i epsilon with Laplace
    noise, delta = 0), or "approx" (epsilon_i = w_i epsilon, delta_i = w_i delta; the other parts Gaussian).
    """
    weights = {p: float(getattr(split, p)) for p in PARTS if getattr(split, p) > 0}
    if subspace_curve == "gdp":
        mu = gaussian_mu(epsilon, delta)
        return {p: Share(w, gaussian_epsilon(math.sqrt(w) * mu, delta), delta, math.sqrt(w) * mu)
                for p, w in weights.items()}
    if subspace_curve == "pure":
        return {p: Share(w, w * epsilon, 0.0) for p, w in weights.items()}
    out = {}
    for p, w in weights.items():
        eps_i, delta_i = w * epsilon, w * delta
        out[p] = Share(w, eps_i, delta_i, None if p == "subspace" else gaussian_mu(eps_i, delta_i))
    return out


def _curve_kind(spec, params: dict) -> str:
    """The kind of privacy curve the mechanism's release earns, from its registry metadata."""
    if spec.guarantee == "none":
        return "none"
    if spec.guarantee in ("pure", "retracted") or params.get("noise") == "laplace":
        return "pure"
    return "gdp" if spec.gaussian_dp else "approx"


def _noise(rng, size, share: Share, l2: float, l1: float) -> tuple[np.ndarray, float]:
    """Gaussian noise of s.d. l2 / mu (or Laplace of scale l1 / epsilon for a pure share), and its scale."""
    if share.mu is not None:
        scale = l2 / share.mu
        return rng.normal(0.0, scale, size), scale
    scale = laplace_scale(l1, share.epsilon)
    return rng.laplace(0.0, scale, size), scale


def private_mean(rows: np.ndarray, share: Share, neighbors: str, rng) -> dict:
    """Mean of rows of norm <= 1 from a noisy sum (and a noisy count under add/remove), projected on the unit ball.

    Replace one row: n is public, the sum changes by at most 2 in L2 (x vs -x), 2 sqrt(d) in L1. Add/remove: the
    sum changes by at most 1 (L2) and the count by 1; the share's mu^2 (or epsilon) is split equally between them.
    """
    n, d = rows.shape
    total = rows.sum(axis=0)
    if neighbors == "replace":
        noise, scale = _noise(rng, d, share, sensitivity("row_sum", "replace"), 2.0 * math.sqrt(d))
        count, count_scale = float(n), None
        mean = (total + noise) / n
    else:
        half = Share(share.weight / 2, share.epsilon / 2, share.delta / 2,
                     None if share.mu is None else share.mu / math.sqrt(2.0))
        noise, scale = _noise(rng, d, half, sensitivity("row_sum", "add_remove"), math.sqrt(d))
        count_noise, count_scale = _noise(rng, 1, half, sensitivity("count", "add_remove"), 1.0)
        count = max(float(n + count_noise[0]), 1.0)
        mean = (total + noise) / count
    norm = float(np.linalg.norm(mean))
    if norm > 1.0:  # the mean of rows in the unit ball lies in it: projecting is post-processing that only helps
        mean = mean / norm
    return {"mean": mean, "noise_scale": scale, "count": count, "count_noise_scale": count_scale}


def private_spectrum(gram: np.ndarray, k: int, share: Share, neighbors: str, rng) -> dict:
    """Noisy top-k eigenvalues of the Gram matrix and its trace, one Gaussian (or Laplace) vector.

    L2 sensitivity sqrt(Delta_eig^2 + Delta_trace^2): sqrt(2 + 1) (replace), sqrt(1 + 1) (add/remove); the top-k
    sub-vector of the sorted spectrum moves no more than the whole spectrum (Hoffman-Wielandt). L1 for Laplace:
    2 + 1 or 1 + 1.
    """
    values = np.sort(np.linalg.eigvalsh(gram))[::-1][:k]
    l2 = math.hypot(sensitivity("gram_eigenvalues_l2", neighbors), sensitivity("gram_trace", neighbors))
    l1 = sensitivity("gram_eigenvalues_l1", neighbors) + sensitivity("gram_trace", neighbors)
    noise, scale = _noise(rng, k + 1, share, l2, l1)
    eig = values + noise[:k]
    trace = float(np.trace(gram) + noise[k])
    return {"eigenvalues": eig, "total_variance": trace, "noise_scale": scale}


def private_scores(rows: np.ndarray, components: np.ndarray, share: Share, neighbors: str, rng,
                   bins: int = 24) -> dict:
    """Noisy histogram of the rows projected on the first (one or) two released components.

    Rows have norm <= 1 and the components are orthonormal, so the projections lie in [-1, 1]^2: the bins are
    fixed in advance (public), and one row changes at most two counts by 1 (replace: L2 sqrt(2), L1 2) or one
    count (add/remove: 1).
    """
    bins = check_int_range(bins, "score bins", 4, 100)
    dims = min(2, components.shape[1])
    scores = rows @ components[:, :dims]
    edges = np.linspace(-1.0, 1.0, bins + 1)
    if dims == 2:
        counts, _, _ = np.histogram2d(scores[:, 0], scores[:, 1], bins=[edges, edges])
    else:
        counts, _ = np.histogram(scores[:, 0], bins=edges)
    noise, scale = _noise(rng, counts.shape, share, sensitivity("histogram_l2", neighbors),
                          sensitivity("histogram_l1", neighbors))
    return {"counts": counts + noise, "edges": edges, "noise_scale": scale, "dims": dims}


def release_pca(mechanism: str, X, k: int, epsilon: float, delta: float = 1e-6, neighbors: str = "replace",
                data_norm: float = 1.0, seed=None, budget: BudgetSplit | None = None, center: str = "none",
                score_bins: int = 24, **params) -> Release:
    """A complete private PCA release: centre, subspace, explained variance and scores under one budget.

    Parameters
    ----------
    mechanism, X, k, epsilon, delta, neighbors, data_norm, seed, **params
        As for :func:`dppca_core.run`; (epsilon, delta) is the total budget of everything released.
    budget : BudgetSplit, optional
        Shares of the budget; default: 10% to the mean when ``center="private"``, the rest to the subspace.
    center : {"none", "private"}
        "private": centre with the released private mean (its share must be positive). The empirical mean is
        not offered here: it is not private (centre with a public vector before calling, if you have one).
    score_bins : int
        Bins per axis of the private score histogram.

    Returns
    -------
    Release
        ``components`` from the subspace mechanism; ``eigenvalues`` private (from the eigenvalue share, or from
        the mechanism's own noisy matrix when it releases them and that share is 0); ``outputs`` also holds
        ``mean`` (original units), ``total_variance``, ``explained_variance_ratio`` and ``scores`` (counts and
        edges) where released; ``facts["budget"]`` lists each share and its calibration; ``privacy`` is the
        composed curve of all parts.
    """
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta) if spec.uses_delta else delta
    if center not in ("none", "private"):
        raise ValueError(f"center={center!r}: use 'none' or 'private' (a private mean from its own share); the "
                         "empirical mean is not private.")
    if budget is None:
        budget = BudgetSplit.with_extras(mean=DEFAULT_SHARES["mean"] if center == "private" else 0.0)
    if not isinstance(budget, BudgetSplit):
        raise ValueError("budget must be a BudgetSplit (e.g. BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1)).")
    if center == "private" and budget.mean <= 0:
        raise ValueError("centring with a private mean needs a positive mean share in the budget.")
    source = random_source(seed)
    rng = source.rng
    data = prepare(X, data_norm)
    k = check_k(k, data.d)
    resolved = spec.resolve_params(params)
    kind = _curve_kind(spec, resolved)
    shares = allocate(budget, epsilon, delta if kind != "pure" else 0.0, "approx" if kind == "none" else kind)
    needs_rows = budget.mean > 0 or budget.scores > 0
    if needs_rows and not data.has_rows:
        raise ValueError("the private mean and the score histogram read the rows; pass the data matrix, or set those "
                         "shares to 0 to release from sufficient statistics.")

    outputs, facts, curves = {}, {}, []
    mean_scaled = np.zeros(data.d)
    if "mean" in shares:
        m = private_mean(data.rows, shares["mean"], neighbors, rng)
        mean_scaled = m["mean"]
        outputs["mean"] = mean_scaled * data.data_norm
        if m["count_noise_scale"] is not None:  # add/remove: the noisy count is part of the mean's release
            outputs["count"] = m["count"]
            facts["count_noise_scale"] = m["count_noise_scale"]
        facts["mean_noise_scale"] = m["noise_scale"]
        curves.append(shares["mean"].curve())
    work = data
    if center == "private":
        work = prepare((data.rows - mean_scaled) * data.data_norm, data.data_norm)  # re-clipped to R
    sub = shares["subspace"]
    released = run(mechanism, work, k, sub.epsilon, sub.delta if spec.uses_delta else delta, neighbors,
                   data.data_norm, source, **params)
    if kind == "gdp" and released.privacy.kind != "gdp":
        raise RuntimeError(f"{spec.name} declares a Gaussian-DP guarantee (gaussian_dp) but released "
                           f"{released.privacy.describe()}; fix its registry metadata.")
    curves.append(released.privacy)
    outputs.update(released.outputs)
    eigenvalues = released.eigenvalues
    if "eigenvalues" in shares:
        spec_out = private_spectrum(work.gram, k, shares["eigenvalues"], neighbors, rng)
        eigenvalues = spec_out["eigenvalues"]
        outputs["total_variance"] = spec_out["total_variance"]
        facts["eigenvalue_noise_scale"] = spec_out["noise_scale"]
        curves.append(shares["eigenvalues"].curve())
    elif eigenvalues is not None and "trace" in released.outputs:
        outputs["total_variance"] = released.outputs["trace"]
    if eigenvalues is not None and outputs.get("total_variance"):
        outputs["explained_variance_ratio"] = np.asarray(eigenvalues) / max(outputs["total_variance"], 1e-300)
    if "scores" in shares:
        sc = private_scores(work.rows, released.components, shares["scores"], neighbors, rng, score_bins)
        outputs["scores"] = {"counts": sc["counts"], "edges": sc["edges"], "dims": sc["dims"]}
        facts["scores_noise_scale"] = sc["noise_scale"]
        curves.append(shares["scores"].curve())

    guarantee = released.guarantee
    total_delta = delta if kind in ("gdp", "approx") else 0.0
    privacy = (released.privacy if guarantee in ("none", "retracted")
               else compose(curves, delta=total_delta if total_delta > 0 else None))
    if guarantee not in ("none", "retracted"):
        earned = privacy.epsilon_at(total_delta) if total_delta > 0 else privacy.epsilon
        if earned > epsilon * (1 + 1e-6):
            raise RuntimeError(f"the parts compose to epsilon = {earned:.6g} > {epsilon:g}; the split is wrong.")
        guarantee = "pure" if total_delta == 0 else "approximate"
    facts.update(released.facts)
    facts["budget"] = {p: {"share": s.weight, "epsilon": s.epsilon, "delta": s.delta,
                           **({"mu": s.mu} if s.mu is not None else {})} for p, s in shares.items()}
    parameters = {**released.parameters, "budget": budget.as_dict(), "center": center, "score_bins": score_bins}
    diagnostics = dict(released.diagnostics)
    diagnostics["rows_clipped"] = data.n_clipped
    if center == "private":
        diagnostics["rows_clipped_after_centring"] = work.n_clipped
    return Release(
        mechanism=spec.name, components=released.components, epsilon=released.epsilon if guarantee == "none"
        else epsilon, delta=total_delta, neighbors=neighbors, guarantee=guarantee, privacy=privacy,
        noise_scale=released.noise_scale, eigenvalues=None if eigenvalues is None else np.asarray(eigenvalues),
        outputs=outputs, parameters=parameters, facts=facts, caveat=released.caveat,
        diagnostics=NonPrivateDiagnostics(diagnostics), seeded=source.seeded,
    )

"""Empirical privacy audit: a lower bound on epsilon from a test that tells neighbouring datasets apart.

The audit runs a mechanism many times on two neighbouring datasets D and D' and attacks exactly what a user
would publish, :meth:`dppca_core.Release.published`. For any test with false-positive rate alpha ("says D'
on D") and false-negative rate beta, an (epsilon, delta)-DP mechanism satisfies alpha + e^eps beta >= 1 - delta
and beta + e^eps alpha >= 1 - delta (Kairouz, Oh & Viswanath 2015). Upper confidence bounds on alpha and beta
(Clopper-Pearson, each at 1 - (1 - confidence)/2, so both hold together with the stated confidence) give:

* a distribution-free lower bound on epsilon (``epsilon_lower_point``), valid for every mechanism;
* for mechanisms whose privacy curve is Gaussian DP (every Gaussian mechanism), the GDP reading
  mu_lower = Phi^-1(1 - alpha+) - Phi^-1(beta+) (Dong, Roth & Su 2022) converted to the epsilon it implies
  at the claimed delta. This uses the whole trade-off curve, so far fewer trials reach a large fraction of
  the claim; it assumes the mechanism's trade-off curve is Gaussian, which holds exactly for Gaussian noise.

The test is chosen for power: neighbours in the worst-case direction (replace e1 by e2, or add/remove e1 at
the clipping radius, the rest of the data empty), the statistic the proof is tight for where the release
allows it (an entry difference of the noisy Gram matrix rebuilt from the published eigenpairs), the
released subspace's energy along the differing row (averaged over published iterates) otherwise, and a scan
of every published field for one that is a deterministic function of the data. The threshold is chosen on
a quarter of the trials and evaluated on the rest, so its choice does not bias the bound.

References (facts only): Nasr et al. (2021, 2023) on tight audits with worst-case canaries;
Jagielski, Ullman & Oprea (2020) on Clopper-Pearson bounds; Dong, Roth & Su (2022) on Gaussian DP.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from .api import run
from .prepare import prepare
from .privacy import PrivacyCurve, check_neighbors, gaussian_delta, gaussian_epsilon, gaussian_mu
from .registry import get_mechanism
from .validation import as_generator, check_delta, check_epsilon, check_int_range

STATISTICS = ("auto", "gram_entry", "power_iterates", "subspace_energy", "psd_support")
#: Trials on each side used to look for a published field that carries no noise.
SCAN_TRIALS = 20


@dataclass(frozen=True)
class AuditDesign:
    """Neighbouring inputs and a test statistic on published releases.

    ``D`` and ``D_prime`` are what :func:`dppca_core.run` receives (rows, or a mechanism's own input);
    ``score(published) -> float`` is larger when the release points to D'. ``k`` is the number of components
    to run with. Mechanisms whose input or release the default designs do not fit (e.g. tensor
    decompositions) provide one through the registry field ``audit_design``.

    ``public_draws(generator)``: for mechanisms whose guarantee conditions on data-independent randomness
    (a random order of the rows, a start vector), the draws the test may know. It gets a copy of the run's
    generator in the state the run starts from and replays those draws only; ``score(published, public)``
    then also receives what it returned. ``params``: mechanism parameters the design runs with (the
    caller's own parameters take precedence).
    """

    D: object
    D_prime: object
    k: int
    score: Callable[..., float]
    statistic: str
    public_draws: Callable[[np.random.Generator], object] | None = None
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    ``epsilon_lower`` is the headline lower bound: the GDP reading where the release's privacy curve is
    Gaussian (``conversion == "gdp"``), else the distribution-free one (``conversion == "point"``); both are
    kept. ``scores_d`` / ``scores_d_prime`` are the test statistic on the evaluation half for D and D'
    (larger values point to D'); ``roc`` holds (false positive rate, true positive rate) over thresholds.
    """

    mechanism: str
    epsilon_claimed: float
    delta_claimed: float
    neighbors: str
    epsilon_lower: float
    epsilon_lower_point: float
    mu_lower: float
    mu_claimed: float | None
    delta_lower: float
    conversion: str
    violated: bool
    statistic: str
    leaked_field: str | None
    trials: int
    seconds: float
    threshold: float
    false_positive_rate: float
    false_negative_rate: float
    false_positive_upper: float
    false_negative_upper: float
    confidence: float
    run_epsilon: float
    run_delta: float
    scores_d: np.ndarray = field(repr=False)
    scores_d_prime: np.ndarray = field(repr=False)
    roc: tuple = field(repr=False)

    @property
    def ratio(self) -> float:
        """epsilon_lower / epsilon_claimed: how much of the claim the audit reaches (1 = tight, > 1 = refuted)."""
        return self.epsilon_lower / self.epsilon_claimed

    def claim_curve(self) -> PrivacyCurve:
        """The trade-off curve the claim allows: mu*-GDP for Gaussian claims, else the (epsilon, delta) region."""
        if self.mu_claimed is not None:
            return PrivacyCurve.gdp(self.mu_claimed)
        return PrivacyCurve.approx(self.epsilon_claimed, self.delta_claimed)

    def verdict(self) -> str:
        """The result in plain words, quoting the claim as (epsilon, delta)."""
        claim = f"({self.epsilon_claimed:g}, {self.delta_claimed:g})-DP"
        if self.leaked_field:
            return (f"Claim contradicted: the published field '{self.leaked_field}' carries no noise and differs "
                    f"between the neighbouring datasets, so it identifies which one was used. With "
                    f"{self.confidence:.0%} confidence the release is not {claim} for any delta below "
                    f"{self.delta_lower:.3g}.")
        how = ("reading the test through the Gaussian-DP trade-off curve (exact for Gaussian noise)"
               if self.conversion == "gdp" else "from the test's error rates (distribution-free)")
        if self.violated:
            return (f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not {claim}. "
                    f"The test separates the neighbours so well that epsilon must be at least "
                    f"{self.epsilon_lower:.3g} at delta = {self.delta_claimed:g} ({how}).")
        return (f"No violation found: the empirical lower bound epsilon >= {self.epsilon_lower:.3g} "
                f"({self.ratio:.0%} of the claim, {how}) is within the claimed {claim}. An audit can refute a "
                "claim but never prove one.")


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion."""
    lo, hi = clopper_pearson_arrays(np.array([successes]), trials, confidence)
    return float(lo[0]), float(hi[0])


def clopper_pearson_arrays(successes: np.ndarray, trials: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson intervals for many counts out of the same number of trials (vectorised)."""
    alpha = 1.0 - confidence
    s = np.asarray(successes, dtype=float)
    with np.errstate(invalid="ignore"):
        lo = np.where(s == 0, 0.0, beta_dist.ppf(alpha / 2, s, trials - s + 1))
        hi = np.where(s == trials, 1.0, beta_dist.ppf(1 - alpha / 2, s + 1, trials - s))
    return lo, hi


def epsilon_lower_bound(fpr_hi: float, fnr_hi: float, delta: float) -> float:
    """Largest epsilon the two (upper-bounded) error rates force, 0 if none (distribution-free)."""
    bounds = [0.0]
    for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
        numerator = 1.0 - delta - a
        if numerator > 0:
            bounds.append(math.inf if b <= 0 else math.log(numerator / b))
    return max(bounds)


def mu_lower_bound(fpr_hi, fnr_hi):
    """GDP reading of one test: mu >= Phi^-1(1 - alpha) - Phi^-1(beta) for a mu-GDP mechanism (0 if negative)."""
    a = np.clip(np.asarray(fpr_hi, dtype=float), 1e-300, 1.0)
    b = np.clip(np.asarray(fnr_hi, dtype=float), 1e-300, 1.0)
    return np.maximum(ndtri(1.0 - a) - ndtri(b), 0.0)


# -- neighbouring datasets and statistics --------------------------------------------------------------------

def _neighbouring_data(d: int, n: int, neighbors: str, statistic: str):
    """D holds the canary u = e1 in row 0 (so it sits in the first site) and n-1 zero rows; D' replaces it
    by e2 (or by 0 for the PSD test, whose attack needs a missing row), or removes it (add/remove)."""
    base = np.zeros((n - 1, d))
    u = np.eye(d)[0]
    D = np.vstack([u, base])
    if neighbors == "add_remove":
        D_prime = base
    else:
        D_prime = np.vstack([np.zeros(d) if statistic == "psd_support" else np.eye(d)[1], base])
    return D, D_prime


def _rebuilt_gram(pub: dict) -> np.ndarray:
    V = np.asarray(pub["components"], dtype=float)
    values = pub.get("eigenvalues")
    if values is None or V.shape[0] != V.shape[1]:
        raise ValueError("this statistic needs the full published spectrum: run with k = d on a mechanism that "
                         "releases eigenvalues.")
    return (V * np.asarray(values, dtype=float)) @ V.T


def _score(statistic: str, pub: dict, neighbors: str, gram_d: np.ndarray) -> float:
    """The test statistic of one published release; larger values point to D'."""
    if statistic == "gram_entry":
        # C~ = C + symmetric noise: C~_22 - C~_11 (replace e1 -> e2) or -C~_11 (remove e1) is exactly the
        # one-dimensional Gaussian the calibration is tight for
        C = _rebuilt_gram(pub)
        return float(C[1, 1] - C[0, 0]) if neighbors == "replace" else float(-C[0, 0])
    if statistic == "psd_support":
        # PSD noise: Y - A_D has a negative eigenvalue only if D' produced Y (the retracted Wishart mechanism)
        return -float(np.linalg.eigvalsh(_rebuilt_gram(pub) - gram_d).min())
    if statistic == "power_iterates":
        # Noisy power method, one column: Q_t = (C Q_{t-1} + G_t) / norm. For small signal-to-noise the
        # log-likelihood ratio of the direction Q_t is linear in the mean's projection on it, so the test sums
        # (C_D' Q_{t-1} - C_D Q_{t-1}) . Q_t over the published iterates (C_D = e1 e1^T, C_D' = e2 e2^T or 0).
        frames = [np.asarray(f, dtype=float)[:, 0] for f in pub["outputs"]["iterates"]]
        score = 0.0
        for prev, cur in zip(frames[:-1], frames[1:]):
            shift_dp = prev[1] * cur[1] if neighbors == "replace" else 0.0
            score += shift_dp - prev[0] * cur[0]
        return score
    # energy along e2 minus along e1 (or minus along e1), averaged over every published frame
    frames = [pub["components"]] + list(pub["outputs"].get("iterates", []))
    score = 0.0
    for frame in frames:
        V = np.asarray(frame, dtype=float)
        e1 = float(V[0] @ V[0])
        score += (float(V[1] @ V[1]) - e1) if neighbors == "replace" else -e1
    return score / len(frames)


def _leaves(value, path="") -> dict:
    """Flatten a published dict into {path: scalar} (lists are indexed)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{path}.{key}" if path else str(key)))
        return out
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            out.update(_leaves(item, f"{path}[{i}]"))
        return out
    return {path: value}


def _deterministic_field(leaves_d: list[dict], leaves_dp: list[dict]) -> str | None:
    """A published field constant over every run on D, constant over every run on D', and different between
    them: it carries no noise and identifies the dataset."""
    for path in sorted(leaves_d[0]):
        values_d = {repr(leaves.get(path)) for leaves in leaves_d}
        values_dp = {repr(leaves.get(path)) for leaves in leaves_dp}
        if len(values_d) == 1 and len(values_dp) == 1 and values_d != values_dp:
            return path
    return None


def default_design(spec, d: int, n: int, neighbors: str, statistic: str, k: int | None = None) -> AuditDesign:
    """Worst-case neighbours in R^d and the statistic the mechanism declares (registry ``audit_statistic``)."""
    statistic = spec.audit_statistic if statistic == "auto" else statistic
    k = k if k is not None else (d if statistic in ("gram_entry", "psd_support") else 1)
    if statistic == "power_iterates" and k != 1:
        raise ValueError("the power_iterates statistic follows one column: audit with k = 1.")
    D, D_prime = _neighbouring_data(d, n, neighbors, statistic)
    D, D_prime = prepare(D), prepare(D_prime)
    gram_d = D.gram
    return AuditDesign(D, D_prime, k, lambda pub: _score(statistic, pub, neighbors, gram_d), statistic)


# -- threshold choice and bounds -----------------------------------------------------------------------------

def _rates(scores_d: np.ndarray, scores_dp: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of false positives (D scored above t) and false negatives (D' at or below t) per threshold."""
    sd, sdp = np.sort(scores_d), np.sort(scores_dp)
    false_pos = sd.size - np.searchsorted(sd, thresholds, side="right")
    false_neg = np.searchsorted(sdp, thresholds, side="right")
    return false_pos, false_neg


def _bounds(false_pos, false_neg, m: int, delta: float, confidence: float, gdp: bool):
    """(headline epsilon bound, point bound, mu bound, fpr upper, fnr upper) for arrays of counts."""
    _, fpr_hi = clopper_pearson_arrays(false_pos, m, confidence)
    _, fnr_hi = clopper_pearson_arrays(false_neg, m, confidence)
    point = np.array([epsilon_lower_bound(a, b, delta) for a, b in zip(fpr_hi, fnr_hi)])
    mu = mu_lower_bound(fpr_hi, fnr_hi)
    if gdp and delta > 0:
        headline = np.maximum(point, [gaussian_epsilon(float(v), delta) if v > 0 else 0.0 for v in mu])
    else:
        headline = point
    return headline, point, mu, fpr_hi, fnr_hi


def _best_threshold(statistic, scores_d, scores_dp, delta, confidence, gdp, m_eval: int) -> float:
    """The test's threshold, chosen on the selection trials only.

    PSD support test: 0 (D never scores above it: the attack on PSD noise, docs/papers.md#wishart-sn-retraction);
    a leaked field: 0.5.
    Otherwise the statistic is a location shift between D and D' (exactly Gaussian for the Gram-matrix entry),
    for which the likelihood-ratio test thresholds halfway between the two centres; the candidates are that
    midpoint and the quantiles of the pooled scores between 30% and 70%, each scored by the bound its
    selection error rates would give with the evaluation sample size. Staying near the middle keeps a
    threshold fitted to a few tail trials from being chosen.
    """
    if statistic == "psd_support":
        return 1e-9 * (1.0 + float(np.max(np.abs(np.concatenate([scores_d, scores_dp])))))
    if statistic == "published field":
        return 0.5
    pooled = np.concatenate([scores_d, scores_dp])
    midpoint = 0.5 * (np.median(scores_d) + np.median(scores_dp))
    candidates = np.unique(np.r_[midpoint, np.quantile(pooled, np.linspace(0.3, 0.7, 21))])
    false_pos, false_neg = _rates(scores_d, scores_dp, candidates)
    scale = m_eval / scores_d.size
    headline, _, mu, _, _ = _bounds(np.round(false_pos * scale), np.round(false_neg * scale), m_eval, delta,
                                    confidence, gdp)
    key = mu if gdp else headline
    return float(candidates[int(np.argmax(key))])


def _copy_of(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state: replays the draws ``rng`` is about to make."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def _roc(scores_d, scores_dp):
    thresholds = np.unique(np.concatenate([scores_d, scores_dp, [-np.inf]]))[::-1]
    false_pos, false_neg = _rates(scores_d, scores_dp, thresholds)
    return false_pos / scores_d.size, 1.0 - false_neg / scores_dp.size


# -- the audit -----------------------------------------------------------------------------------------------

def audit(mechanism: str, epsilon: float, delta: float = 1e-6, neighbors: str = "replace", trials: int = 2000,
          seed=0, statistic: str = "auto", d: int = 2, n: int = 20, k: int | None = None,
          confidence: float = 0.95, selection_share: float = 0.25, run_epsilon: float | None = None, run_delta: float | None = None,
          progress=None, **params) -> AuditResult:
    """Audit a mechanism's privacy claim (epsilon, delta) empirically, attacking ``Release.published()``.

    Parameters
    ----------
    mechanism : str
        Registry name.
    epsilon, delta : float
        The claim to audit (delta is ignored by pure mechanisms).
    neighbors : {"replace", "add_remove"}
    trials : int
        Runs on each of D and D'; a share ``selection_share`` of them choose the threshold, the rest
        evaluate it.
    seed : int or numpy.random.Generator
    statistic : {"auto", "gram_entry", "power_iterates", "subspace_energy", "psd_support"}
        "gram_entry": an entry difference of the noisy Gram matrix rebuilt from the published eigenpairs
        (k = d; mechanisms that release eigenvalues); "power_iterates": the small-signal likelihood ratio of
        the published iterates of a noisy power method (k = 1); "subspace_energy": the released subspace's
        energy along the differing row, averaged over published iterates (any mechanism; k = 1);
        "psd_support": whether Y - X_D^T X_D has a negative eigenvalue (PSD noise: the retracted Wishart
        mechanism). "auto" takes the one the mechanism declares (registry field ``audit_statistic``). Whatever the choice, a published field
        that carries no noise and differs between D and D' is used instead when one exists.
    d, n, k : int
        Dimension, rows and components of the synthetic neighbouring datasets (k defaults to d for the
        Gram-matrix statistics and 1 otherwise).
    confidence : float
        Joint confidence of the bound (each error rate gets a one-sided Clopper-Pearson bound at
        1 - (1 - confidence)/2).
    selection_share : float
        Share of the trials used to choose the threshold (the bound is computed on the others).
    run_epsilon, run_delta : float, optional
        Privacy parameters the mechanism is *run* with, when they differ from the claim (to check that the
        audit catches a mechanism that adds too little noise for its claim). Default: the claim.
    progress : callable(fraction), optional
        Called as trials complete.
    **params
        Mechanism parameters (``sites`` defaults to 2 so that every site holds several rows).
    """
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    epsilon = check_epsilon(epsilon)
    claimed_delta = check_delta(delta) if spec.uses_delta else 0.0
    run_epsilon = epsilon if run_epsilon is None else check_epsilon(run_epsilon)
    run_delta = (delta if run_delta is None else check_delta(run_delta)) if spec.uses_delta else delta
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    d = check_int_range(d, "d", 2, 200)
    n = check_int_range(n, "n", 4, 10**6)
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence = {confidence!r} must be in [0.5, 1); e.g. 0.95.")
    if not 0.05 <= selection_share <= 0.95:
        raise ValueError(f"selection_share = {selection_share!r} must be in [0.05, 0.95]; e.g. 0.25.")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic={statistic!r} is not known; choose one of {list(STATISTICS)}.")
    if any(p.name == "sites" for p in spec.params):
        params.setdefault("sites", 2)
    if spec.audit_design is not None:
        design = spec.audit_design(d=d, n=n, neighbors=neighbors, statistic=statistic)
    else:
        design = default_design(spec, d, n, neighbors, statistic, k)
    params = {**design.params, **params}

    def release_once(data, rng):
        release = run(mechanism, data, design.k, run_epsilon, run_delta, neighbors, seed=rng, **params)
        return release.published(), release.privacy

    return audit_release(release_once, design, epsilon, claimed_delta, neighbors=neighbors, trials=trials, seed=seed,
                         confidence=confidence, selection_share=selection_share, progress=progress,
                         label=mechanism, run_epsilon=run_epsilon,
                         run_delta=run_delta if spec.uses_delta else 0.0)


def audit_release(release_once, design: AuditDesign, epsilon: float, delta: float, *, neighbors: str = "replace",
                  trials: int = 2000, seed=0, confidence: float = 0.95, selection_share: float = 0.25,
                  progress=None, label: str = "release", run_epsilon: float | None = None,
                  run_delta: float | None = None) -> AuditResult:
    """Audit any release function against the claim (epsilon, delta) on ``design``'s neighbouring inputs.

    ``release_once(data, rng) -> (published dict, PrivacyCurve)`` releases once from ``design.D`` or
    ``design.D_prime``; the curve says whether the GDP reading applies. :func:`audit` wraps a registered
    mechanism; tests use this directly for the parts of a composed release (mean, spectrum, scores).
    """
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    statistic = design.statistic
    rng = as_generator(seed)
    prepared = {"D": design.D, "D'": design.D_prime}

    start = time.perf_counter()
    scores = {"D": np.empty(trials), "D'": np.empty(trials)}
    scanned = {"D": [], "D'": []}
    leaked, leaked_value, curve = None, None, None
    for i in range(trials):
        for name in ("D", "D'"):
            public = None if design.public_draws is None else design.public_draws(_copy_of(rng))
            pub, privacy = release_once(prepared[name], rng)
            curve = curve or privacy
            if i < SCAN_TRIALS:
                scanned[name].append(_leaves(pub))
            if leaked:  # 1 when the field takes the value it has on D'
                scores[name][i] = float(repr(_leaves(pub).get(leaked)) == leaked_value)
            else:
                scores[name][i] = design.score(pub) if public is None else design.score(pub, public)
        if i + 1 == SCAN_TRIALS:
            leaked = _deterministic_field(scanned["D"], scanned["D'"])
            if leaked:
                leaked_value = repr(scanned["D'"][0][leaked])
                for name in ("D", "D'"):
                    scores[name][:SCAN_TRIALS] = [float(repr(s.get(leaked)) == leaked_value) for s in scanned[name]]
        if progress is not None and (i + 1) % max(1, trials // 50) == 0:
            progress((i + 1) / trials)
    if leaked:
        statistic = "published field"

    claimed_delta = float(delta)
    gdp = curve.kind == "gdp" and not leaked
    half = max(SCAN_TRIALS, int(round(trials * selection_share)))
    threshold = _best_threshold(statistic, scores["D"][:half], scores["D'"][:half], claimed_delta, confidence,
                                gdp, trials - half)
    eval_d, eval_dp = scores["D"][half:], scores["D'"][half:]
    m = eval_d.size
    false_pos, false_neg = _rates(eval_d, eval_dp, np.array([threshold]))
    headline, point, mu, fpr_hi, fnr_hi = _bounds(false_pos, false_neg, m, claimed_delta, confidence, gdp)
    mu_lower, a_hi, b_hi = float(mu[0]), float(fpr_hi[0]), float(fnr_hi[0])
    if gdp:
        delta_lower = gaussian_delta(epsilon, mu_lower)
        mu_claimed = gaussian_mu(epsilon, claimed_delta) if claimed_delta > 0 else None
    else:
        delta_lower = max(0.0, 1.0 - b_hi - math.exp(min(epsilon, 700.0)) * a_hi,
                          1.0 - a_hi - math.exp(min(epsilon, 700.0)) * b_hi)
        mu_claimed = None
    eps_lower = float(headline[0])
    violated = eps_lower > epsilon * (1 + 1e-9) or delta_lower > claimed_delta
    return AuditResult(
        mechanism=label, epsilon_claimed=float(epsilon), delta_claimed=claimed_delta,
        neighbors=neighbors, epsilon_lower=eps_lower, epsilon_lower_point=float(point[0]), mu_lower=mu_lower,
        mu_claimed=mu_claimed, delta_lower=float(delta_lower), conversion="gdp" if gdp else "point",
        violated=bool(violated), statistic=statistic, leaked_field=leaked, trials=trials,
        seconds=time.perf_counter() - start, threshold=threshold,
        false_positive_rate=float(false_pos[0]) / m, false_negative_rate=float(false_neg[0]) / m,
        false_positive_upper=a_hi, false_negative_upper=b_hi, confidence=confidence,
        run_epsilon=float(epsilon if run_epsilon is None else run_epsilon),
        run_delta=float(claimed_delta if run_delta is None else run_delta),
        scores_d=eval_d, scores_d_prime=eval_dp, roc=_roc(eval_d, eval_dp),
    )


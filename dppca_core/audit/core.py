"""The attack: run a mechanism many times on two neighbouring inputs and bound epsilon from below.

The audit runs a mechanism many times on the two neighbouring inputs of an :class:`AuditDesign` and attacks
what the guarantee covers: :meth:`dppca_core.Release.published` by default, or what the design says the proof
is about (a local mechanism's message to the aggregator). Upper confidence bounds on the test's error rates
(Clopper-Pearson, each at 1 - (1 - confidence)/2, so both hold together with the stated confidence) give
(:mod:`.bounds`):

* a distribution-free lower bound on epsilon (``epsilon_lower_point``), valid for every mechanism;
* for mechanisms whose privacy curve is Gaussian DP (every Gaussian mechanism), the GDP reading
  mu_lower = Phi^-1(1 - alpha+) - Phi^-1(beta+) (Dong, Roth & Su 2022) converted to the epsilon it implies
  at the claimed delta. This uses the whole trade-off curve, so far fewer trials reach a large fraction of
  the claim; it assumes the mechanism's trade-off curve is Gaussian, which holds exactly for Gaussian noise.

The evaluation trials also give the attack's whole trade-off curve over every threshold, with a confidence band
that holds for a grid of thresholds at once (:mod:`.curve`); any point of its inner edge beyond the claimed curve
refutes the claim too. :mod:`.sequential` looks at the trials a few times and stops when the claim is refuted.

Every published field is also scanned for one that is a deterministic function of the data. The threshold is
chosen on a share of the trials and evaluated on the rest, so its choice does not bias the bound.

Trials run in chunks of :data:`CHUNK_TRIALS`. Chunk j gets the j-th child of the audit's
:class:`numpy.random.SeedSequence`, and each trial on each side the next child of its chunk's sequence, so a
chunk's scores depend only on the seed and its index: on a Dask cluster (``scheduler=``) the result is
identical to the serial run. Each run's public stream is rebuilt from its trial's sequence
(:func:`.design.replay_public_stream`); the audit never copies a noise generator.

A mechanism with a batch path (registry ``audit_batch``) releases a chunk's trials together, with the same
generators (:mod:`.seeding`) and the same published values, so the scores are the same without a
:class:`~dppca_core.Release` per trial; the first chunk checks the batch path against full runs and the audit
makes one release per trial if they differ.

References (facts only): Nasr et al. (2021, 2023) on tight audits with worst-case canaries;
Jagielski, Ullman & Oprea (2020) on Clopper-Pearson bounds; Dong, Roth & Su (2022) on Gaussian DP.
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..api import run
from ..prepare import prepare
from ..privacy import PrivacyCurve, check_neighbors, gaussian_delta, gaussian_mu
from ..registry import get_mechanism
from ..release import to_plain
from ..validation import check_delta, check_epsilon, check_int_range, check_k
from . import seeding
from .bounds import bounds, range_bounds, rates, roc, threshold_and_strength
from .curve import RangeClaim, TradeoffCurve, tradeoff_curve
from .design import AuditDesign, replay_public_stream
from .designs import design_for
from .statistics import deterministic_field, leaves

#: Trials on each side used to look for a published field that carries no noise.
SCAN_TRIALS = 20
#: Trials (on each side) per chunk: the unit of work of a Dask task and of progress reports.
CHUNK_TRIALS = 250
#: Dask's own local schedulers (as in :func:`dppca_core.sufficient_stats`); "local" starts a local cluster.
LOCAL_SCHEDULERS = ("threads", "processes", "synchronous")


class AuditCancelled(Exception):
    """Raised when the ``progress`` callback of an audit returns False."""


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    ``epsilon_lower`` is the headline lower bound: the GDP reading where the release's privacy curve is
    Gaussian (``conversion == "gdp"``), else the distribution-free one (``conversion == "point"``); both are
    kept. ``scores_d`` / ``scores_d_prime`` are the test statistic on the evaluation half for D and D'
    (larger values point to D'); ``roc`` holds (false positive rate, true positive rate) over thresholds.

    ``epsilon_exact`` is the exact epsilon of the noise the audited runs added, at the claimed delta (from the
    privacy curve they state: ``PrivacyCurve.epsilon_at``); it is below the claim where a calibration adds more
    noise than its claim needs. ``target`` is the smaller of the two: what a tight audit can reach.
    ``note`` says where the design attacks (the release, a user's message, one step).

    ``conversion == "range"`` (an exponential mechanism's design): the headline bounds the width of the privacy
    loss's range, which the mechanism's proof bounds by epsilon, from two tests: the one at ``threshold`` (upper
    tail) and ``lower_test`` = (threshold, false-positive rate, false-negative rate, their upper bounds) in the
    lower tail; all four rate bounds hold together with ``confidence``.

    ``curve`` is the attack's whole trade-off curve on the evaluation trials with a simultaneous confidence band
    (:mod:`.curve`); ``violated`` is true when the chosen threshold's bound exceeds the claim or any point of the
    band's inner edge lies beyond the claimed curve.
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
    epsilon_exact: float
    note: str
    scores_d: np.ndarray = field(repr=False)
    scores_d_prime: np.ndarray = field(repr=False)
    roc: tuple = field(repr=False)
    curve: TradeoffCurve | None = field(default=None, repr=False)
    lower_test: tuple | None = field(default=None, repr=False)

    @property
    def ratio(self) -> float:
        """epsilon_lower / epsilon_claimed: how much of the claim the audit reaches (1 = tight, > 1 = refuted)."""
        return self.epsilon_lower / self.epsilon_claimed

    @property
    def target(self) -> float:
        """What a tight audit can reach: the claimed epsilon, or the exact epsilon of the noise where smaller."""
        return min(self.epsilon_claimed, self.epsilon_exact)

    @property
    def target_ratio(self) -> float:
        """epsilon_lower / target: the share of what a tight audit can reach."""
        return self.epsilon_lower / self.target if self.target > 0 else math.inf

    def claim_curve(self) -> PrivacyCurve:
        """The trade-off curve the claim allows: mu*-GDP for Gaussian claims, else the (epsilon, delta) region."""
        return _claim_curve(self.mu_claimed, self.epsilon_claimed, self.delta_claimed, self.conversion)

    def verdict(self) -> str:
        """The result in plain words, quoting the claim as (epsilon, delta)."""
        claim = f"({self.epsilon_claimed:g}, {self.delta_claimed:g})-DP"
        if self.leaked_field:
            return (f"Claim contradicted: the published field '{self.leaked_field}' carries no noise and differs "
                    f"between the neighbouring datasets, so it identifies which one was used. With "
                    f"{self.confidence:.0%} confidence the release is not {claim} for any delta below "
                    f"{self.delta_lower:.3g}.")
        how = {"gdp": "reading the test through the Gaussian-DP trade-off curve (exact for Gaussian noise)",
               "range": "from two tests, one in each tail, read through the exponential mechanism's bounded privacy-"
                        "loss range"}.get(self.conversion, "from the test's error rates (distribution-free)")
        if (self.violated and self.curve is not None and self.curve.violated
                and self.epsilon_lower <= self.epsilon_claimed * (1 + 1e-9)):
            return (f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not {claim}. "
                    f"{self.curve.reading(self.epsilon_claimed)}")
        if self.violated:
            return (f"Claim contradicted: with {self.confidence:.0%} confidence the mechanism is not {claim}. "
                    f"The test separates the neighbours so well that epsilon must be at least "
                    f"{self.epsilon_lower:.3g} at delta = {self.delta_claimed:g} ({how}).")
        return (f"No violation found: the empirical lower bound epsilon >= {self.epsilon_lower:.3g} "
                f"({self.ratio:.0%} of the claim, {how}) is within the claimed {claim}. An audit can refute a "
                "claim but never prove one.")


# -- the audit -----------------------------------------------------------------------------------------------

def audit(mechanism: str, epsilon: float, delta: float = 1e-6, neighbors: str = "replace", trials: int = 2000,
          seed=0, statistic: str = "auto", d: int = 2, n: int = 20, k: int | None = None,
          confidence: float = 0.95, selection_share: float = 0.25, run_epsilon: float | None = None,
          run_delta: float | None = None, progress=None, scheduler=None, **params) -> AuditResult:
    """Audit a mechanism's privacy claim (epsilon, delta) empirically, where its proof states it.

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
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of every trial's seed (a Generator contributes a child of its seed sequence).
    statistic : str
        "auto" (default): the design the mechanism declares (:func:`dppca_core.audit.design_for`: a local
        mechanism's message, Private Oja's and DP-PCA's step, the exact log-density ratio of the exponential
        mechanisms, the tensor moments). Or one of the generic statistics on the published release:
        "gram_entry" (an entry difference of the noisy Gram matrix rebuilt from the published eigenpairs; k = d;
        mechanisms that release eigenvalues), "power_iterates" (the small-signal likelihood ratio of the
        published iterates of a noisy power method; k = 1), "subspace_energy" (the released subspace's energy
        along the differing row, averaged over published iterates; k = 1), "psd_support" (whether
        Y - X_D^T X_D has a negative eigenvalue: the retracted Wishart mechanism), or a mechanism's own
        second design (DP-PCA's "range_histogram"). Whatever the choice, a published field that carries no
        noise and differs between D and D' is used instead when one exists.
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
        Called after every chunk of trials; returning False cancels the audit (:class:`AuditCancelled`).
    scheduler : None, "threads", "processes", "synchronous", "local", an address, or a distributed.Client
        None runs the trials here, one chunk after another. Otherwise the chunks run on Dask, with the same
        meaning as in :func:`dppca_core.sufficient_stats` ("tcp://host:8786" is an existing cluster), and
        "local" starts a local cluster with one single-threaded worker process per core. The result is
        identical to the serial run for the same seed.
    **params
        Mechanism parameters (the design's own parameters, e.g. one site or a small learning rate, fill in
        the rest; ``sites`` defaults to 2 so that every site holds several rows).
    """
    setup = mechanism_setup(mechanism, epsilon, delta, neighbors=neighbors, statistic=statistic, d=d, n=n, k=k,
                            run_epsilon=run_epsilon, run_delta=run_delta, **params)
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    _check_shares(confidence, selection_share)
    return audit_release(**setup, trials=trials, seed=seed, confidence=confidence, selection_share=selection_share,
                         progress=progress, scheduler=scheduler)


def mechanism_setup(mechanism: str, epsilon: float, delta: float, *, neighbors: str = "replace",
                    statistic: str = "auto", d: int = 2, n: int = 20, k: int | None = None,
                    run_epsilon: float | None = None, run_delta: float | None = None, **params) -> dict:
    """The arguments :func:`audit_release` takes for a registered mechanism (checked as :func:`audit` documents):
    its release function, its design, the claim, the relation, its label and the parameters it runs at."""
    spec = get_mechanism(mechanism)
    check_neighbors(neighbors)
    epsilon = check_epsilon(epsilon)
    claimed_delta = check_delta(delta) if spec.uses_delta else 0.0
    run_epsilon = epsilon if run_epsilon is None else check_epsilon(run_epsilon)
    run_delta = (delta if run_delta is None else check_delta(run_delta)) if spec.uses_delta else delta
    d = check_int_range(d, "d", 2, 200)
    n = check_int_range(n, "n", 4, 10**6)
    if not isinstance(statistic, str):
        raise ValueError(f"statistic must be a name such as 'auto' (got {statistic!r}).")
    design = design_for(spec, d=d, n=n, neighbors=neighbors, statistic=statistic, k=k, epsilon=epsilon,
                        delta=claimed_delta)
    defaults = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
    params = {**defaults, **spec.audit_params, **design.params, **params}
    release_once = (_DesignRelease(design.release, run_epsilon, run_delta, neighbors) if design.release is not None
                    else _MechanismRelease(mechanism, design.k, run_epsilon, run_delta, neighbors, params))
    return {"release_once": release_once, "design": design, "epsilon": epsilon, "delta": claimed_delta,
            "neighbors": neighbors, "label": mechanism, "run_epsilon": run_epsilon,
            "run_delta": run_delta if spec.uses_delta else 0.0}


def _check_shares(confidence, selection_share) -> None:
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence = {confidence!r} must be in [0.5, 1); e.g. 0.95.")
    if not 0.05 <= selection_share <= 0.95:
        raise ValueError(f"selection_share = {selection_share!r} must be in [0.05, 0.95]; e.g. 0.25.")


@dataclass(frozen=True)
class _MechanismRelease:
    """One run of a registered mechanism: what it publishes and its privacy curve (picklable for Dask)."""

    mechanism: str
    k: int
    epsilon: float
    delta: float
    neighbors: str
    params: dict

    def __call__(self, data, rng):
        release = run(self.mechanism, data, self.k, self.epsilon, self.delta, self.neighbors, seed=rng, **self.params)
        return release.published(), release.privacy

    @property
    def batched(self) -> bool:
        """Whether the mechanism declares a batch path (registry ``audit_batch``)."""
        return get_mechanism(self.mechanism).audit_batch is not None

    def batch(self, data, generators) -> list[dict]:
        """One run per generator through the mechanism's batch path, with the inputs :func:`dppca_core.run` gives
        the mechanism (the same checks, the same parameters): each run's published components, eigenvalues and
        outputs."""
        spec = get_mechanism(self.mechanism)
        resolved = spec.resolve_params(self.params)
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta) if spec.uses_delta_with(resolved) else 0.0
        prepared = spec.prepare_input(data, 1.0) if spec.prepare_input is not None else prepare(data, 1.0)
        return spec.audit_batch(prepared, check_k(self.k, prepared.d), epsilon, delta, self.neighbors, generators,
                                **resolved)


@dataclass(frozen=True)
class _DesignRelease:
    """The design's own release (e.g. a local mechanism's message) at the run's privacy parameters."""

    release: Callable
    epsilon: float
    delta: float
    neighbors: str

    def __call__(self, data, rng):
        return self.release(data, rng, self.epsilon, self.delta, self.neighbors)


def audit_release(release_once, design: AuditDesign, epsilon: float, delta: float, *, neighbors: str = "replace",
                  trials: int = 2000, seed=0, confidence: float = 0.95, selection_share: float = 0.25,
                  progress=None, label: str = "release", run_epsilon: float | None = None,
                  run_delta: float | None = None, scheduler=None) -> AuditResult:
    """Audit any release function against the claim (epsilon, delta) on ``design``'s neighbouring inputs.

    ``release_once(data, rng) -> (published dict, PrivacyCurve)`` releases once from ``design.D`` or
    ``design.D_prime`` (or the pair ``design.datasets`` gives for the trial's public draws); the curve says
    whether the GDP reading applies and what the exact epsilon of the noise is. :func:`audit` wraps a
    registered mechanism; tests use this directly for the parts of a composed release (mean, spectrum, scores).
    ``scheduler`` and ``progress`` as in :func:`audit`.
    """
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    _check_shares(confidence, selection_share)
    start = time.perf_counter()
    scores, leaked, curve, sample = _trial_scores(_Trials(release_once, design), trials, _root_sequence(seed),
                                                  scheduler, progress)
    return evaluate(scores, leaked, curve, sample, design, epsilon, delta, neighbors=neighbors,
                    confidence=confidence, selection_share=selection_share, label=label, run_epsilon=run_epsilon,
                    run_delta=run_delta, start=start)


def evaluate(scores: np.ndarray, leaked: str | None, curve: PrivacyCurve, sample: dict, design: AuditDesign,
             epsilon: float, delta: float, *, neighbors: str, confidence: float, selection_share: float, label: str,
             run_epsilon: float | None, run_delta: float | None, start: float) -> AuditResult:
    """The audit's result from its trials' scores (2 x trials x candidates, :func:`_trial_scores`): the threshold
    chosen on the selection share (or fixed by the design), its bounds on the rest, and the whole trade-off curve.
    ``start``: the :func:`time.perf_counter` reading the audit started at."""
    trials = scores.shape[1]
    statistic = "published field" if leaked else design.statistic
    claimed_delta = float(delta)
    gdp = curve.kind == "gdp" and not leaked
    fixed = design.threshold(sample, trials, confidence) if design.threshold is not None and not leaked else None
    if fixed is not None and design.bounded_range:
        return _evaluate_range(scores[..., 0], fixed, statistic, curve, design, epsilon, claimed_delta,
                               neighbors=neighbors, confidence=confidence, label=label, run_epsilon=run_epsilon,
                               run_delta=run_delta, start=start)
    if fixed is not None:  # fixed by the design's theory: every trial evaluates it
        half, threshold, scores = 0, float(fixed), scores[..., 0]
    else:
        half = max(SCAN_TRIALS, int(round(trials * selection_share)))
        column, threshold = _select(statistic, scores, half, claimed_delta, confidence, gdp, trials - half)
        scores = scores[..., column]
        if design.statistics and not leaked:
            statistic = design.statistics[column]
    eval_d, eval_dp = scores[0][half:], scores[1][half:]
    m = eval_d.size
    false_pos, false_neg = rates(eval_d, eval_dp, np.array([threshold]))
    headline, point, mu, fpr_hi, fnr_hi = bounds(false_pos, false_neg, m, claimed_delta, confidence, gdp)
    mu_lower, a_hi, b_hi = float(mu[0]), float(fpr_hi[0]), float(fnr_hi[0])
    if gdp:
        delta_lower = gaussian_delta(epsilon, mu_lower)
        mu_claimed = gaussian_mu(epsilon, claimed_delta) if claimed_delta > 0 else None
    else:
        delta_lower = _delta_lower(epsilon, [(a_hi, b_hi)])
        mu_claimed = None
    conversion = "gdp" if gdp else "point"
    return _result(
        label=label, epsilon=epsilon, delta=claimed_delta, neighbors=neighbors, epsilon_lower=float(headline[0]),
        epsilon_lower_point=float(point[0]), mu_lower=mu_lower, mu_claimed=mu_claimed, delta_lower=delta_lower,
        conversion=conversion, statistic=statistic, leaked_field=leaked, trials=trials, start=start,
        threshold=threshold, rates=(float(false_pos[0]) / m, float(false_neg[0]) / m, a_hi, b_hi),
        confidence=confidence, run_epsilon=run_epsilon, run_delta=run_delta, curve=curve, note=design.note,
        eval_d=eval_d, eval_dp=eval_dp)


def _evaluate_range(scores: np.ndarray, thresholds: tuple, statistic: str, curve: PrivacyCurve, design: AuditDesign,
                    epsilon: float, delta: float, *, neighbors: str, confidence: float, label: str,
                    run_epsilon: float | None, run_delta: float | None, start: float) -> AuditResult:
    """:func:`evaluate` for an exponential mechanism's design (``bounded_range``): its two thresholds, fixed in advance,
    evaluated on every trial; the headline bounds the width of the privacy loss's range (:func:`.bounds.range_bounds`,
    conversion "range"), the distribution-free bound is read from the same four rate bounds."""
    upper, lower = (float(t) for t in thresholds)
    eval_d, eval_dp = scores[0], scores[1]
    m = eval_d.size
    false_pos, false_neg = rates(eval_d, eval_dp, np.array([upper, lower]))
    width, point, (a_u, b_u, a_l, b_l) = range_bounds((false_pos[0], false_neg[0]), (false_pos[1], false_neg[1]), m,
                                                      delta, confidence)
    return _result(
        label=label, epsilon=epsilon, delta=delta, neighbors=neighbors, epsilon_lower=max(width, point),
        epsilon_lower_point=point, mu_lower=0.0, mu_claimed=None,
        delta_lower=_delta_lower(epsilon, [(a_u, b_u), (a_l, b_l)]), conversion="range", statistic=statistic,
        leaked_field=None, trials=scores.shape[1], start=start, threshold=upper,
        rates=(float(false_pos[0]) / m, float(false_neg[0]) / m, a_u, b_u), confidence=confidence,
        run_epsilon=run_epsilon, run_delta=run_delta, curve=curve, note=design.note, eval_d=eval_d, eval_dp=eval_dp,
        lower_test=(lower, float(false_pos[1]) / m, float(false_neg[1]) / m, a_l, b_l))


def _delta_lower(epsilon: float, upper_bounds) -> float:
    """The smallest delta the (alpha+, beta+) pairs allow at ``epsilon``: max(0, 1 - beta+ - e^eps alpha+,
    1 - alpha+ - e^eps beta+) over the pairs."""
    grow = math.exp(min(epsilon, 700.0))
    return float(max([0.0] + [max(1.0 - b - grow * a, 1.0 - a - grow * b) for a, b in upper_bounds]))


def _result(*, label, epsilon, delta, neighbors, epsilon_lower, epsilon_lower_point, mu_lower, mu_claimed,
            delta_lower, conversion, statistic, leaked_field, trials, start, threshold, rates, confidence, run_epsilon,
            run_delta, curve, note, eval_d, eval_dp, lower_test=None) -> AuditResult:
    """The :class:`AuditResult` of one evaluation, with the attack's whole trade-off curve against the claimed one;
    ``rates`` = (false-positive rate, false-negative rate, their upper bounds) at ``threshold``."""
    curve_of_attack = tradeoff_curve(eval_d, eval_dp, _claim_curve(mu_claimed, epsilon, delta, conversion), delta,
                                     confidence)
    violated = epsilon_lower > epsilon * (1 + 1e-9) or delta_lower > delta or curve_of_attack.violated
    return AuditResult(
        mechanism=label, epsilon_claimed=float(epsilon), delta_claimed=delta, neighbors=neighbors,
        epsilon_lower=float(epsilon_lower), epsilon_lower_point=float(epsilon_lower_point), mu_lower=mu_lower,
        mu_claimed=mu_claimed, delta_lower=float(delta_lower), conversion=conversion, violated=bool(violated),
        statistic=statistic, leaked_field=leaked_field, trials=trials, seconds=time.perf_counter() - start,
        threshold=threshold, false_positive_rate=rates[0], false_negative_rate=rates[1],
        false_positive_upper=rates[2], false_negative_upper=rates[3], confidence=confidence,
        run_epsilon=float(epsilon if run_epsilon is None else run_epsilon),
        run_delta=float(delta if run_delta is None else run_delta), epsilon_exact=exact_epsilon(curve, delta),
        note=note, scores_d=eval_d, scores_d_prime=eval_dp, roc=roc(eval_d, eval_dp), curve=curve_of_attack,
        lower_test=lower_test)


def _claim_curve(mu_claimed: float | None, epsilon: float, delta: float, conversion: str = "point"):
    """The trade-off curve a claim allows: mu*-GDP for a Gaussian claim, an exponential mechanism's bounded range
    (:class:`.curve.RangeClaim`) where the audit reads it, else the (epsilon, delta) region."""
    if conversion == "range":
        return RangeClaim(float(epsilon))
    return PrivacyCurve.gdp(mu_claimed) if mu_claimed is not None else PrivacyCurve.approx(epsilon, delta)


def _select(statistic: str, scores: np.ndarray, half: int, delta: float, confidence: float, gdp: bool,
            m_eval: int) -> tuple[int, float]:
    """(column, threshold): the candidate statistic (a column of ``scores``, 2 x trials x candidates) whose
    threshold, chosen on the first ``half`` trials, gives the strongest bound there; the first on a tie."""
    best = None
    for column in range(scores.shape[-1]):
        threshold, strength = threshold_and_strength(statistic, scores[0, :half, column], scores[1, :half, column],
                                                     delta, confidence, gdp, m_eval)
        if best is None or strength > best[2]:
            best = (column, threshold, strength)
    return best[0], best[1]


def exact_epsilon(curve: PrivacyCurve, delta: float) -> float:
    """The exact epsilon ``curve`` gives at ``delta`` (a GDP curve at delta = 0: infinite)."""
    if curve.kind == "gdp" and delta <= 0:
        return math.inf
    return float(curve.epsilon_at(delta))


# -- trials, in chunks ---------------------------------------------------------------------------------------

def _root_sequence(seed) -> np.random.SeedSequence:
    """The audit's root seed sequence: from an int (or None), a SeedSequence, or a Generator's own sequence."""
    if isinstance(seed, np.random.SeedSequence):
        return _fresh(seed)
    if isinstance(seed, np.random.Generator):
        sequence = getattr(seed.bit_generator, "seed_seq", None)
        if not isinstance(sequence, np.random.SeedSequence):
            raise ValueError("the audit derives every trial's seed from a numpy SeedSequence; pass an int seed or a "
                             "Generator built from one (numpy.random.default_rng(seed)).")
        return sequence.spawn(1)[0]
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        return np.random.SeedSequence(None if seed is None else int(seed))
    raise ValueError(f"seed must be None, a non-negative int, a SeedSequence or a numpy Generator (got {seed!r}).")


def _fresh(sequence: np.random.SeedSequence) -> np.random.SeedSequence:
    """The same sequence with no child spawned yet, so spawning from it is repeatable."""
    return np.random.SeedSequence(sequence.entropy, spawn_key=sequence.spawn_key, pool_size=sequence.pool_size)


@dataclass(frozen=True)
class _Trials:
    """What a chunk of trials needs (shipped whole to a Dask worker). ``batch``: None to check the batch path
    against full runs in the chunk (the first one), True or False once that check has decided."""

    release_once: Callable
    design: AuditDesign
    batch: bool | None = None

    def once(self, sequence: np.random.SeedSequence, side: int):
        """One run on D (side 0) or D' (side 1) with its own seed: (published, curve, public draws)."""
        design = self.design
        public = None if design.public_draws is None else design.public_draws(replay_public_stream(sequence))
        pair = (design.D, design.D_prime) if design.datasets is None else design.datasets(public)
        published, curve = self.release_once(pair[side], np.random.Generator(np.random.PCG64(sequence)))
        return published, curve, public

    @property
    def batched(self) -> bool:
        """Whether trials can run through the mechanism's batch path: it declares one, and the design attacks the
        release (no public draws, no neighbours chosen after them)."""
        design = self.design
        return (getattr(self.release_once, "batched", False) and design.public_draws is None
                and design.datasets is None)

    def chunk(self, sequence: np.random.SeedSequence, size: int, leaked, scan: int) -> dict:
        """Scores of ``size`` trials on each side; the flattened releases of the first ``scan`` of them.

        ``leaked`` = (field, value on D'): score 1 when a release's field takes that value, else the design's
        statistic. Trial i on side s runs on the chunk sequence's child 2 i + s. Where the mechanism has a batch
        path, the trials after the first ``scan`` run through it (:meth:`_batch`): the same generators, the same
        published values, the same scores."""
        parent = _fresh(sequence)
        width = max(1, len(self.design.statistics))  # one column per candidate statistic
        scores, scanned, curve, sample = np.empty((2, size, width)), ([], []), None, None
        batch_from = min(scan, size) if self.batched and not leaked and self.batch is not False else size
        runs = self._batch(parent, batch_from, size, check=self.batch is None) if batch_from < size else None
        if runs is None:
            batch_from = size
        for i in range(batch_from):
            for side in (0, 1):
                published, privacy, public = self.once(seeding.child(parent, 2 * i + side), side)
                curve, sample = curve or privacy, sample or published
                flat = leaves(published) if (i < scan or leaked) else None
                if i < scan:
                    scanned[side].append(flat)
                if leaked:
                    scores[side, i] = float(repr(flat.get(leaked[0])) == leaked[1])
                elif public is None:
                    scores[side, i] = np.asarray(self.design.score(published), dtype=float)
                else:
                    scores[side, i] = self.design.score(published, public)
        for side in (0, 1) if runs is not None else ():
            scores[side, batch_from:] = self._scores(runs[side]).reshape(size - batch_from, width)
        return {"scores": scores, "scanned": scanned, "curve": curve, "sample": sample, "batched": runs is not None}

    def _batch(self, parent: np.random.SeedSequence, start: int, size: int, check: bool) -> tuple | None:
        """The releases of trials ``start .. size - 1`` on each side through the mechanism's batch path. With
        ``check`` (the audit's first chunk), None when its first release on either side differs from that trial's
        full run (:func:`dppca_core.run`): a batch path that drifted from the mechanism is never used, and the
        audit runs one release per trial."""
        out = []
        for side, data in enumerate((self.design.D, self.design.D_prime)):
            trials = [2 * i + side for i in range(start, size)]
            runs = self.release_once.batch(data, seeding.TrialGenerators(parent, trials))
            if check:
                full, _, _ = self.once(seeding.child(parent, trials[0]), side)
                if any(to_plain(runs[0][key]) != full[key] for key in ("components", "eigenvalues", "outputs")):
                    return None
            out.append(runs)
        return tuple(out)

    def _scores(self, runs: list) -> np.ndarray:
        """The design's scores of a batch of releases: ``score_batch`` when the design has one and it agrees with
        ``score`` on the first release, else ``score`` one by one."""
        score, batch = self.design.score, self.design.score_batch
        if batch is not None and runs:
            out = np.asarray(batch(runs), dtype=float)
            if np.array_equal(out[:1].ravel(), np.asarray(score(runs[0]), dtype=float).ravel()):
                return out
        return np.array([np.asarray(score(published), dtype=float) for published in runs])


def _chunk_sizes(trials: int) -> list[int]:
    full, rest = divmod(trials, CHUNK_TRIALS)
    return [CHUNK_TRIALS] * full + ([rest] if rest else [])


def _trial_scores(job: _Trials, trials: int, root: np.random.SeedSequence, scheduler, progress):
    """(scores as a 2 x trials x candidates array, leaked field or None, privacy curve, first release), chunk by
    chunk.

    The first chunk runs here and is scanned for a field without noise; if one is found, that chunk is run
    again with the field as its statistic (same seeds, same releases). The other chunks run here or on Dask.
    """
    sizes = _chunk_sizes(trials)
    seeds = root.spawn(len(sizes))
    job, first, leaked = _first_chunk(job, seeds[0], sizes[0])
    done = [first]
    _report(progress, sizes[0] / trials)
    rest = list(zip(seeds[1:], sizes[1:]))
    if scheduler is None:
        for sequence, size in rest:
            done.append(job.chunk(sequence, size, leaked, 0))
            _report(progress, sum(sizes[:len(done)]) / trials)
    elif rest:
        done += _dask_chunks(job, rest, leaked, scheduler, progress, sizes, trials)
    scores = np.concatenate([part["scores"] for part in done], axis=1)
    return scores, (leaked[0] if leaked else None), first["curve"], first["sample"]


def _first_chunk(job: _Trials, sequence: np.random.SeedSequence, size: int) -> tuple:
    """(the job with its batch path checked, the first chunk, the leaked (field, value on D') or None): the first
    chunk is scanned for a field without noise; if one is found, it is run again with the field as its statistic
    (same seeds, same releases)."""
    first = job.chunk(sequence, size, None, SCAN_TRIALS)
    job = dataclasses.replace(job, batch=first["batched"])  # the first chunk checked the batch path
    leaked = None
    field_name = deterministic_field(*first["scanned"])
    if field_name:
        leaked = (field_name, repr(first["scanned"][1][0][field_name]))
        first = job.chunk(sequence, size, leaked, 0)
    return job, first, leaked


def _report(progress, fraction: float) -> None:
    if progress is not None and progress(min(fraction, 1.0)) is False:
        raise AuditCancelled("the audit was cancelled.")


def _dask_chunks(job, rest, leaked, scheduler, progress, sizes, trials) -> list[dict]:
    """The remaining chunks on Dask, in chunk order whatever order they finish in."""
    try:
        import dask
    except ImportError:
        raise ValueError("scheduler= needs dask: pip install -r requirements-scale.txt, or leave scheduler=None.") \
            from None
    if isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS:
        out, per_batch = [], max(2, os.cpu_count() or 2)
        for start in range(0, len(rest), per_batch):
            batch = [dask.delayed(job.chunk)(seq, size, leaked, 0) for seq, size in rest[start:start + per_batch]]
            out += list(dask.compute(*batch, scheduler=scheduler))
            _report(progress, (sizes[0] + sum(sizes[1:1 + len(out)])) / trials)
        return out
    client, owned = _client(scheduler)
    futures = []
    try:
        from distributed import as_completed

        futures = [client.submit(job.chunk, seq, size, leaked, 0, pure=False) for seq, size in rest]
        index = {f.key: i for i, f in enumerate(futures)}
        out, finished = [None] * len(futures), sizes[0]
        for future in as_completed(futures, loop=client.loop):
            i = index[future.key]
            out[i] = future.result()
            finished += rest[i][1]
            _report(progress, finished / trials)
        return out
    finally:
        for future in futures:
            future.cancel()
        if owned:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


def _client(scheduler):
    """(distributed.Client, whether this call created it) for "local", an address or a Client."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("a Dask cluster needs dask.distributed: pip install -r requirements-scale.txt.") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if scheduler == "local":
        try:
            cluster = LocalCluster(n_workers=os.cpu_count() or 2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        except RuntimeError as exc:  # e.g. worker processes cannot start from an interactive session
            raise ValueError(f"could not start a local Dask cluster ({exc}); run from a script, or use "
                             "scheduler='processes' or None.") from None
        return Client(cluster, set_as_default=False), True
    if not isinstance(scheduler, str):
        raise ValueError(f"scheduler must be None, one of {list(LOCAL_SCHEDULERS) + ['local']}, an address such as "
                         f"'tcp://host:8786' or a distributed.Client (got {type(scheduler).__name__}).")
    try:
        return Client(scheduler, set_as_default=False, timeout=30), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise ValueError(f"could not connect to the dask scheduler at {scheduler!r} ({exc}); check the address and "
                         "that the cluster is running, or use scheduler='local'.") from None

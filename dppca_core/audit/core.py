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

The trials run in chunks, serially or on Dask (:mod:`.trials`); :mod:`.result` turns their scores into an
:class:`AuditResult`. This module holds the entry points and what one run of a mechanism (or a design's own
release) is.

References (facts only): Nasr et al. (2021, 2023) on tight audits with worst-case canaries;
Jagielski, Ullman & Oprea (2020) on Clopper-Pearson bounds; Dong, Roth & Su (2022) on Gaussian DP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from ..api import run
from ..data.prepare import prepare
from ..privacy import check_neighbors
from ..registry import get_mechanism
from ..validation import check_delta, check_epsilon, check_int_range, check_k
from .design import AuditDesign
from .designs import design_for
from .result import AuditResult, evaluate, exact_epsilon
from .trials import CHUNK_TRIALS, LOCAL_SCHEDULERS, SCAN_TRIALS, AuditCancelled, root_sequence, TrialJob, trial_scores


# -- the audit -----------------------------------------------------------------------------------------------


def audit(
    mechanism: str,
    epsilon: float,
    delta: float = 1e-6,
    neighbors: str = "replace",
    trials: int = 2000,
    seed=0,
    statistic: str = "auto",
    d: int = 2,
    n: int = 20,
    k: int | None = None,
    confidence: float = 0.95,
    selection_share: float = 0.25,
    run_epsilon: float | None = None,
    run_delta: float | None = None,
    progress=None,
    scheduler=None,
    **params,
) -> AuditResult:
    """Audit a mechanism's privacy claim (epsilon, delta) empirically, where its proof states it.

    Parameters
    ----------
    mechanism : str
        Registry name.
    epsilon, delta : float
        The claim to audit (delta is ignored by pure mechanisms).
    neighbors : {"replace", "add_remove"}
    trials : int
        Runs on each of D and D'; a share ``selection_share`` of them choose the threshold, the rest evaluate it.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of every trial's seed (a Generator contributes a child of its seed sequence).
    statistic : str
        "auto" (default): the design the mechanism declares (:func:`dppca_core.audit.design_for`: a local
        mechanism's message, Private Oja's and DP-PCA's step, the exact log-density ratio of the exponential
        mechanisms, the tensor moments). Or a generic statistic on the published release (one of
        :data:`.statistics.STATISTICS`, each read as :data:`.statistics.DESCRIPTIONS` says; k = d for
        "gram_entry", 1 for the others), or a mechanism's own second design (DP-PCA's "range_histogram").
        Whatever the choice, a published field without noise that differs between D and D' is used instead.
    d, n, k : int
        Dimension, rows and components of the synthetic neighbouring datasets (k defaults to d for the
        Gram-matrix statistics and 1 otherwise).
    confidence : float
        Joint confidence of the bound (each error rate gets a one-sided Clopper-Pearson bound at
        1 - (1 - confidence)/2).
    selection_share : float
        Share of the trials used to choose the threshold (the bound is computed on the others).
    run_epsilon, run_delta : float, optional
        What the mechanism is *run* with, when it differs from the claim (to check that the audit catches a
        mechanism that adds too little noise for its claim). Default: the claim.
    progress : callable(fraction), optional
        Called after every chunk of trials; returning False cancels the audit (:class:`AuditCancelled`).
    scheduler : None, "threads", "processes", "synchronous", "local", an address, or a distributed.Client
        None runs the trials here, chunk by chunk; else on Dask, as in :func:`dppca_core.sufficient_stats`
        ("local": one single-threaded worker process per core). The result is the serial run's, seed for seed.
    **params
        Mechanism parameters (the design's own, e.g. one site or a small learning rate, fill in the rest;
        ``sites`` defaults to 2 so that every site holds several rows).
    """
    how = dict(neighbors=neighbors, statistic=statistic, d=d, n=n, k=k, run_epsilon=run_epsilon, run_delta=run_delta)
    setup = mechanism_setup(mechanism, epsilon, delta, **how, **params)
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    check_shares(confidence, selection_share)
    return audit_release(
        **setup,
        trials=trials,
        seed=seed,
        confidence=confidence,
        selection_share=selection_share,
        progress=progress,
        scheduler=scheduler,
    )


def mechanism_setup(
    mechanism: str,
    epsilon: float,
    delta: float,
    *,
    neighbors: str = "replace",
    statistic: str = "auto",
    d: int = 2,
    n: int = 20,
    k: int | None = None,
    run_epsilon: float | None = None,
    run_delta: float | None = None,
    **params,
) -> dict:
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
    design = design_for(
        spec, d=d, n=n, neighbors=neighbors, statistic=statistic, k=k, epsilon=epsilon, delta=claimed_delta
    )
    defaults = {"sites": 2} if any(p.name == "sites" for p in spec.params) else {}
    params = {**defaults, **spec.audit_params, **design.params, **params}
    release_once = (
        _DesignRelease(design.release, run_epsilon, run_delta, neighbors)
        if design.release is not None
        else _MechanismRelease(mechanism, design.k, run_epsilon, run_delta, neighbors, params)
    )
    return {
        "release_once": release_once,
        "design": design,
        "epsilon": epsilon,
        "delta": claimed_delta,
        "neighbors": neighbors,
        "label": mechanism,
        "run_epsilon": run_epsilon,
        "run_delta": run_delta if spec.uses_delta else 0.0,
    }


def check_shares(confidence, selection_share) -> None:
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
        return spec.audit_batch(
            prepared, check_k(self.k, prepared.d), epsilon, delta, self.neighbors, generators, **resolved
        )


@dataclass(frozen=True)
class _DesignRelease:
    """The design's own release (e.g. a local mechanism's message) at the run's privacy parameters."""

    release: Callable
    epsilon: float
    delta: float
    neighbors: str

    def __call__(self, data, rng):
        return self.release(data, rng, self.epsilon, self.delta, self.neighbors)


def audit_release(
    release_once,
    design: AuditDesign,
    epsilon: float,
    delta: float,
    *,
    neighbors: str = "replace",
    trials: int = 2000,
    seed=0,
    confidence: float = 0.95,
    selection_share: float = 0.25,
    progress=None,
    label: str = "release",
    run_epsilon: float | None = None,
    run_delta: float | None = None,
    scheduler=None,
) -> AuditResult:
    """Audit any release function against the claim (epsilon, delta) on ``design``'s neighbouring inputs.

    ``release_once(data, rng) -> (published dict, PrivacyCurve)`` releases once from ``design.D`` or
    ``design.D_prime`` (or the pair ``design.datasets`` gives for the trial's public draws); the curve says
    whether the GDP reading applies and what the exact epsilon of the noise is. :func:`audit` wraps a
    registered mechanism; tests use this directly for the parts of a composed release (mean, spectrum, scores).
    ``scheduler`` and ``progress`` as in :func:`audit`.
    """
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    check_shares(confidence, selection_share)
    start = time.perf_counter()
    scores, leaked, curve, sample = trial_scores(
        TrialJob(release_once, design), trials, root_sequence(seed), scheduler, progress
    )
    return evaluate(
        scores,
        leaked,
        curve,
        sample,
        design,
        epsilon,
        delta,
        neighbors=neighbors,
        confidence=confidence,
        selection_share=selection_share,
        label=label,
        run_epsilon=run_epsilon,
        run_delta=run_delta,
        start=start,
    )


__all__ = [
    "AuditCancelled",
    "AuditResult",
    "CHUNK_TRIALS",
    "LOCAL_SCHEDULERS",
    "SCAN_TRIALS",
    "audit",
    "audit_release",
    "evaluate",
    "exact_epsilon",
    "mechanism_setup",
]

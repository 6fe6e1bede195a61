"""Sequential audits: look at the trials a few times as they come, and stop as soon as the claim is refuted.

A fixed-size audit runs all its trials and then tests once, with error (1 - confidence): the chance of refuting a
correct claim. A sequential audit plans the same trials but looks at them K times (by default after 25%, 50% and
100% of them, rounded up to whole chunks of :data:`.trials.CHUNK_TRIALS`); each look is a complete audit of the
trials so far (:func:`.result.evaluate`: threshold chosen on that look's selection share, bounds and trade-off band on
the rest) at confidence 1 - (1 - confidence)/K. The audit stops at the first look that refutes the claim.

Error control (Bonferroni over the looks): each look alone refutes a correct claim with probability at most
(1 - confidence)/K whatever happened at the other looks, so the chance that any of the K looks does is at most
1 - confidence, the fixed-size audit's error, however the looks depend on one another. A claim that is not refuted
needs every planned trial (the audit never stops early to say "no violation": that would be a different, weaker
statement). The price is a little power at the last look (its bounds are at the stricter per-look level); a run
well past its claim is refuted at an early look with a fraction of the trials.

Trials are the fixed-size audit's own: chunk j has the same seed in both, so the first t trials of a sequential
audit are exactly those of ``audit(..., trials=t)``. Looks run serially (no Dask scheduler).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..validation import check_int_range
from .core import check_shares, mechanism_setup
from .result import AuditResult, evaluate
from .trials import CHUNK_TRIALS, SCAN_TRIALS, chunk_sizes, first_chunk, report_progress, root_sequence, TrialJob

#: When a sequential audit looks, as shares of its planned trials. Each look costs the others some confidence
#: (Bonferroni), so there are few: a 10% look refuted none of the runs at twice their claim measured in
#: docs/audit-table.md, and with it the 50% look of ppca_exponential at 2x (seed 2, the earlier one-test design)
#: fell just short (0.99 at 98.75%, 1.007 at 98.33%). Every 2x run there is refuted at the 25% look.
LOOKS = (0.25, 0.5, 1.0)


@dataclass(frozen=True)
class SequentialResult:
    """Outcome of :func:`sequential_audit`: the audit at the look where it stopped (``result``, whose ``trials`` are
    the trials used), the planned trials, the trials at each planned look, and ``history``: (trials, refuted,
    epsilon lower bound) of every look made."""

    result: AuditResult
    planned: int
    looks: tuple
    history: tuple
    confidence: float

    @property
    def refuted(self) -> bool:
        return self.result.violated

    @property
    def trials_used(self) -> int:
        return self.result.trials

    def words(self) -> str:
        """What the sequential audit did, in plain words."""
        looked = f"{len(self.history)} of its {len(self.looks)} looks"
        if self.refuted:
            return (
                f"Refuted after {self.trials_used:,} of {self.planned:,} planned trials per dataset ({looked}; "
                f"{self.confidence:.0%} confidence over all looks together)."
            )
        return (
            f"Not refuted after all {self.planned:,} planned trials per dataset ({looked}; each look at "
            f"{1 - (1 - self.confidence) / len(self.looks):.2%} confidence, so {self.confidence:.0%} over all)."
        )


def look_points(trials: int, looks=LOOKS) -> tuple:
    """Trials per dataset at each look: the shares of ``trials`` rounded up to whole chunks (the last is ``trials``),
    at least twice the scan's trials, without repeats."""
    points = []
    for share in sorted(float(x) for x in looks):
        if not 0 < share <= 1:
            raise ValueError(f"looks are shares of the planned trials in (0, 1] (got {share!r}).")
        at = min(trials, max(2 * SCAN_TRIALS, math.ceil(share * trials / CHUNK_TRIALS) * CHUNK_TRIALS))
        if not points or at > points[-1]:
            points.append(at)
    if points[-1] != trials:
        points.append(trials)
    return tuple(points)


def sequential_audit(
    mechanism: str,
    epsilon: float,
    delta: float = 1e-6,
    *,
    trials: int = 10_000,
    looks=LOOKS,
    seed=0,
    confidence: float = 0.95,
    selection_share: float = 0.25,
    progress=None,
    **kwargs,
) -> SequentialResult:
    """Audit ``mechanism``'s claim as :func:`dppca_core.audit.audit` does with ``trials`` per dataset, looking at the
    trials at ``looks`` (shares of ``trials``) and stopping at the first look that refutes the claim (module
    docstring: each look at confidence 1 - (1 - confidence)/K, so the error over all looks stays 1 - confidence).
    ``kwargs``: the rest of :func:`~dppca_core.audit.audit`'s arguments (neighbors, statistic, d, n, k, run_epsilon,
    run_delta, mechanism parameters)."""
    setup = mechanism_setup(mechanism, epsilon, delta, **kwargs)
    trials = check_int_range(trials, "trials", 2 * SCAN_TRIALS, 10**6)
    check_shares(confidence, selection_share)
    points = look_points(trials, looks)
    per_look = 1.0 - (1.0 - confidence) / len(points)
    start = time.perf_counter()
    sizes = chunk_sizes(trials)
    seeds = root_sequence(seed).spawn(len(sizes))
    job, first, leaked = first_chunk(TrialJob(setup["release_once"], setup["design"]), seeds[0], sizes[0])
    parts, done, history, result = [first["scores"]], sizes[0], [], None
    chunk = 1
    for at in points:
        while done < at:
            parts.append(job.chunk(seeds[chunk], sizes[chunk], leaked, 0)["scores"])
            done += sizes[chunk]
            chunk += 1
            report_progress(progress, done / trials)
        result = evaluate(
            np.concatenate(parts, axis=1),
            leaked[0] if leaked else None,
            first["curve"],
            first["sample"],
            setup["design"],
            setup["epsilon"],
            setup["delta"],
            neighbors=setup["neighbors"],
            confidence=per_look,
            selection_share=selection_share,
            label=setup["label"],
            run_epsilon=setup["run_epsilon"],
            run_delta=setup["run_delta"],
            start=start,
        )
        history.append((at, result.violated, result.epsilon_lower))
        if result.violated:
            break
    return SequentialResult(result=result, planned=trials, looks=points, history=tuple(history), confidence=confidence)


__all__ = ["LOOKS", "SequentialResult", "look_points", "sequential_audit"]

"""Accuracy first: from the errors a user can accept to the smallest total epsilon, the mechanism and the budget split
that meet them, found on a public stand-in for the data, never on its rows.

:func:`plan` takes *targets* (a subspace distance at most a, a captured energy at least b of the optimum, a support
F1 at least c, an explained-variance error at most e, a readable score plot), a *confidence* (the share of releases
that must meet every target) and *public facts*: n (or a released noisy n), d, k, the neighbouring relation, delta,
the clipping radius R (or the rule of a private radius) and a :class:`Standin` for the data (a covariance spectrum,
a spiked or sparse law, a previous publishable release, or a spectrum released privately from a small share of the
budget, counted in the plan). It returns a :class:`Plan`: the smallest epsilon on a log grid (20 points per decade)
at which a mechanism with some budget split meets every target in at least that share of simulated releases, with
the share's Clopper-Pearson interval, and the frontier: each mechanism's chance of meeting the targets against
epsilon, the winner at each epsilon marked.

How
---
* **Simulation.** Each repetition draws fresh data from the stand-in (Gaussian rows with its covariance; with a
  public R and nothing else that reads rows, their Gram matrix straight from the Wishart law, Bartlett's
  decomposition; a stand-in read from the rows is reused exactly instead) and runs the complete release (:func:`dppca_core.release_pca`, the very function a release is made
  with) at the candidate epsilon, mechanism and split; each release is scored against the exact PCA of its own
  draw, as the dashboard scores releases against the exact PCA of the user's rows. Repetitions share their data and
  noise seeds across epsilon, mechanisms and splits (common random numbers), so comparisons are sharp and the share
  of releases that meet the targets rises with epsilon.
* **Share.** An epsilon qualifies when the share of ``reps`` simulated releases meeting every target is at least the
  confidence (:func:`default_reps`: enough that the share's standard error is at most a third of what the confidence
  leaves out, e.g. 100 repetitions for 90%); the plan states the share's 95% Clopper-Pearson interval. Asking the
  whole interval to clear the confidence instead would plan for the share's tail: on the iris table, ε = 45 where
  ε = 32 already meets 90% (measured in tests/planning/test_planning.py's calibration).
* **Search.** For each mechanism, over a small set of candidate splits (each optional part of the release at 5, 10,
  20 or 30% of the budget, one part at a time from the default 10%, or 0 for the eigenvalues of a mechanism that
  releases its own), then over epsilon by bisection on the grid. The theory rates start and steer it
  (:func:`dppca_core.theory.first_order_rms` for the first guess; :func:`dppca_core.theory.rate` to extrapolate each
  repetition's error from one epsilon to another: with the split fixed, every Gaussian part's noise scales as
  1/mu(epsilon, delta), so each repetition's error at another epsilon is its own error times the rate's ratio, to
  the metric's power, a per-repetition constant fitted as :func:`dppca_core.theory.fit_rate` fits one to means);
  every answer is checked by simulation at the epsilon it names.
* **Cache.** :func:`plan` is a pure function of its hashable public inputs, memoised (a bounded LRU cache); the same
  question is answered again without simulating.

* **A promise or a refusal.** A stand-in released with noise carries the band of spectra it is consistent with
  (:mod:`.band`: every variance within Weyl's bound of the released one, with probability :data:`STANDIN_LEVEL` over
  its noise); the plan holds on the band's hardest spectrum (and along the band for targets a narrower gap does not
  make harder), or declines in words when the band leaves the k-th variance no larger than the next
  (:attr:`Plan.refusal`). A stand-in read from the rows is their own spectrum (``fixed``): each repetition reuses it
  with fresh release noise.
* **After a release.** :func:`release_evidence` bounds a published release's own subspace distance and captured
  energy from its published numbers alone (post-processing).

Privacy of the plan itself: :func:`plan` takes no data matrix. Its stand-in is public (a law, a spectrum someone
states, a release already published), or released now from a share of the budget (:meth:`Standin.private`, which
reads the rows once and whose cost the plan adds to its total), or labelled not private (:meth:`Standin.exact`, for
the data owner's exploration only). :func:`evaluate` checks a plan on rows (the data owner's check, not private).
"""

from __future__ import annotations

from .planner import (
    DEFAULT_MECHANISMS,
    PLAN_INTERVAL,
    SPARSE_MECHANISMS,  # noqa: F401
    Plan,
    cached_plan,  # noqa: F401
    plan,
    split_words,
)
from .band import STANDIN_LEVEL
from .check import EVIDENCE_LEVEL, evaluate, evidence_words, release_evidence
from .search import SHARE_GRID
from .simulation import EPS_GRID
from .standin import Standin, StandinTooNoisy, cost_curve
from .targets import TARGET_PARTS, TARGETS, Target, check_targets, default_reps, target_words  # noqa: F401

__all__ = [
    "plan",
    "Plan",
    "Standin",
    "StandinTooNoisy",
    "Target",
    "TARGETS",
    "evaluate",
    "default_reps",
    "target_words",
    "check_targets",
    "split_words",
    "cost_curve",
    "EPS_GRID",
    "DEFAULT_MECHANISMS",
    "SHARE_GRID",
    "PLAN_INTERVAL",
    "STANDIN_LEVEL",
    "EVIDENCE_LEVEL",
    "release_evidence",
    "evidence_words",
]

"""Empirical privacy audit: a lower bound on epsilon from a test that tells neighbouring datasets apart.

The package has two levels, so that mechanisms can declare how they are audited without an import cycle:

* :mod:`.design` (below the mechanisms; imports nothing else of the package): :class:`AuditDesign`, what a
  mechanism declares (neighbours, statistic, public draws), and :func:`public_stream`, the child stream
  that carries a mechanism's public randomness;
* the attack code above them: :mod:`.core` (:func:`audit`, :func:`audit_release`), :mod:`.trials` (chunked
  trials, serially or on a Dask cluster), :mod:`.result` (:class:`AuditResult` from the trials' scores), :mod:`.external` (:func:`audit_external`: anyone's DP-PCA as a black box), :mod:`.designs` (which design a mechanism gets), :mod:`.statistics`
  (the generic designs and statistics), :mod:`.bounds` (error rates to bounds on epsilon and mu), :mod:`.curve`
  (the attack's whole trade-off curve with a simultaneous band) and :mod:`.sequential` (stop when refuted).

The attack-level names are loaded on first use (``from dppca_core.audit import audit`` works as before), so
importing :mod:`dppca_core.audit.design` from a mechanism module never imports :mod:`dppca_core.api`.
"""

from __future__ import annotations

import importlib

from .design import AuditDesign, public_stream, replay_public_stream

_LAZY = {
    "audit": "core",
    "audit_release": "core",
    "AuditResult": "result",
    "AuditCancelled": "trials",
    "SCAN_TRIALS": "trials",
    "CHUNK_TRIALS": "trials",
    "clopper_pearson": "bounds",
    "clopper_pearson_arrays": "bounds",
    "epsilon_lower_bound": "bounds",
    "mu_lower_bound": "bounds",
    "STATISTICS": "statistics",
    "default_design": "statistics",
    "audit_external": "external",
    "design_for": "designs",
    "describe_statistic": "designs",
    "local_message_design": "designs",
    "log_density_design": "designs",
    "TradeoffCurve": "curve",
    "tradeoff_curve": "curve",
    "RangeClaim": "curve",
    "range_lower_bound": "bounds",
    "sequential_audit": "sequential",
    "SequentialResult": "sequential",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AuditDesign", "public_stream", "replay_public_stream", *_LAZY]

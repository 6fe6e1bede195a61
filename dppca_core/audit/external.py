"""Audit anyone's DP-PCA: a black-box release, its claimed (epsilon, delta) and the input domain it declares.

:func:`audit_external` builds an :class:`~.design.AuditDesign` for a third party's release and hands it to
:func:`~.core.audit_release`, so the bound is read exactly as for our own mechanisms (same Clopper-Pearson
confidence, same GDP / distribution-free readings, same :class:`~.core.AuditResult`).

Neighbouring datasets. Inside the declared domain (rows within ``data_norm`` of ``origin``): every row but one
sits at the origin; the canary row is ``origin + R e1`` on D and ``origin + R e2`` on D' (replace one row), or is
missing from D' (add/remove). For rows of norm at most R, ``x x^T - y y^T`` has Frobenius norm at most
sqrt(2) R^2, reached exactly at orthogonal rows of norm R: the replacement moves the second-moment matrix, which
every PCA release is a function of, by as much as the domain allows (the replace-one sensitivity used by
Analyze Gauss, Dwork et al. 2014, and by our ``privacy.sensitivity("second_moment")``).

Statistics (larger values point to D'), fitted to what is released; the audit keeps the one whose selection
trials give the strongest bound (:func:`~.core.audit_release` with ``design.statistics``):

* ``top_component_energy``: v1[2]^2 - v1[1]^2, the top component's energy along the new row minus along the
  canary (replace), or -v1[1]^2 (add/remove);
* ``weighted_energy`` (eigenvalues released): sum_j lambda_j (V[2, j]^2 - V[1, j]^2). With the whole spectrum
  (k = d) this is C~22 - C~11 of the rebuilt matrix; for Gaussian noise on the Gram matrix
  (``output_family="gaussian"``) it is the likelihood-ratio statistic of the two neighbours, named
  ``gaussian_likelihood_ratio`` (Neyman-Pearson: the most powerful test, so a tight audit);
* ``top_eigenvalue`` (eigenvalues released): -lambda_1, which a removed canary lowers;
* ``mean_shift`` (a mean released): (mean - origin) . (e2 - e1), or -(mean - origin) . e1.

Every released field is also scanned for one that is a deterministic function of the data (a release without
noise, such as scikit-learn's PCA): that field alone then identifies the dataset, as for our mechanisms.

References (facts only): Nasr et al. (2021, 2023) on tight audits with worst-case canaries; Jagielski, Ullman &
Oprea (2020) on Clopper-Pearson bounds; Dong, Roth & Su (2022) on Gaussian DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from ..privacy import PrivacyCurve, check_neighbors, gaussian_mu
from ..release import to_plain
from ..validation import check_delta, check_epsilon, check_int_range
from .core import AuditResult, audit_release
from .design import AuditDesign

#: Output families whose likelihood ratio the audit knows; None: unknown (distribution-free reading).
OUTPUT_FAMILIES = (None, "gaussian")
#: Bound on a seed handed to the release callable (numpy's legacy RandomState, which scikit-learn uses, needs
#: seeds below 2**32).
SEED_BOUND = 2**32


def audit_external(
    release: Callable,
    *,
    epsilon: float,
    delta: float = 0.0,
    data_norm: float = 1.0,
    origin=None,
    n: int,
    d: int,
    k: int = 1,
    neighbors: str = "replace",
    trials: int = 2000,
    seed=0,
    scheduler=None,
    output_family: str | None = None,
    confidence: float = 0.95,
    selection_share: float = 0.5,
    progress=None,
    label: str = "external release",
) -> AuditResult:
    """Audit a third party's PCA release against the claim (epsilon, delta) on its declared input domain.

    Parameters
    ----------
    release : callable
        ``release(X, seed) -> mapping`` of released arrays: ``"components"`` (d, k) with the components as
        columns, optionally ``"eigenvalues"`` (k,) and ``"mean"`` (d,); other fields are scanned for a value
        without noise. It must draw all its randomness from ``seed`` (an int below 2**32) so that an audit
        is reproducible, and must be picklable to run on a Dask ``scheduler`` other than "threads".
    epsilon, delta : float
        What the implementation claims (delta = 0: pure DP).
    data_norm, origin : float, array-like of shape (d,)
        The domain the implementation declares: rows within ``data_norm`` of ``origin`` (default: 0).
    n, d, k : int
        Rows (public when the implementation's size is fixed), columns and components to release.
    neighbors : {"replace", "add_remove"}
        The neighbouring relation of the claim.
    trials, seed, scheduler, confidence, progress
        As in :func:`dppca_core.audit.audit`.
    output_family : {None, "gaussian"}
        "gaussian" when the implementation adds Gaussian noise (its trade-off curve is then Gaussian DP and the
        GDP reading applies, Dong, Roth & Su 2022); None reads the bound distribution-free.
    selection_share : float
        Share of the trials that choose the statistic and its threshold (the rest evaluate it); half by default.
    label : str
        The implementation's name in the result.

    Returns
    -------
    AuditResult
        ``statistic`` names the statistic chosen on the selection share.
    """
    epsilon, delta, n, d, k = _checked(release, epsilon, delta, neighbors, n, d, k, output_family)
    D, D_prime = neighbouring_datasets(n, d, _check_norm(data_norm), _check_origin(origin, d), neighbors)
    once = ExternalRelease(release, claim_curve(epsilon, delta, output_family), d, k)
    sample = once(D, np.random.default_rng(np.random.SeedSequence(_pilot_entropy(seed))))[0]
    design = external_design(D, D_prime, k, neighbors, sample, output_family, _check_origin(origin, d))
    return audit_release(
        once,
        design,
        epsilon,
        delta,
        neighbors=neighbors,
        trials=trials,
        seed=seed,
        confidence=confidence,
        selection_share=selection_share,
        progress=progress,
        label=label,
        scheduler=scheduler,
    )


def _checked(release, epsilon, delta, neighbors: str, n, d, k, output_family) -> tuple:
    """(epsilon, delta, n, d, k) of :func:`audit_external` checked; ValueError in plain words for a bad one."""
    epsilon = check_epsilon(epsilon)
    delta = 0.0 if delta == 0 else check_delta(delta)
    check_neighbors(neighbors)
    d = check_int_range(d, "d", 2, 200)
    n = check_int_range(n, "n", 2, 10**6)
    k = check_int_range(k, "k", 1, d)
    if not callable(release):
        raise ValueError(
            f"release must be a callable release(X, seed) -> mapping of arrays (got {type(release).__name__})."
        )
    if output_family not in OUTPUT_FAMILIES:
        raise ValueError(f"output_family must be one of {list(OUTPUT_FAMILIES)} (got {output_family!r}).")
    return epsilon, delta, n, d, k


# -- the domain and its worst-case neighbours ----------------------------------------------------------------


def _check_norm(data_norm) -> float:
    try:
        value = float(data_norm)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(
            f"data_norm = {data_norm!r} must be a finite number > 0: the largest distance of a row "
            "from the origin that the implementation declares (e.g. its row_norm or data_norm)."
        )
    return value


def _check_origin(origin, d: int) -> np.ndarray:
    if origin is None:
        return np.zeros(d)
    value = np.asarray(origin, dtype=float)
    if value.shape != (d,) or not np.all(np.isfinite(value)):
        raise ValueError(
            f"origin must be {d} finite numbers, the centre of the declared domain (got shape "
            f"{value.shape}); leave it None for 0."
        )
    return value


def neighbouring_datasets(n: int, d: int, data_norm: float, origin: np.ndarray, neighbors: str):
    """(D, D'): n rows at ``origin`` but the canary ``origin + R e1``; D' replaces it by ``origin + R e2`` or
    drops it (add/remove). Orthogonal rows of norm R move the second-moment matrix by sqrt(2) R^2 (Frobenius), the
    most any replacement inside the domain can."""
    rest = np.tile(origin, (n - 1, 1))
    D = np.vstack([origin + data_norm * np.eye(d)[0], rest])
    D_prime = rest if neighbors == "add_remove" else np.vstack([origin + data_norm * np.eye(d)[1], rest])
    return D, D_prime


def claim_curve(epsilon: float, delta: float, output_family: str | None) -> PrivacyCurve:
    """The trade-off curve the claim states: mu-GDP for Gaussian noise at delta > 0, pure or approximate DP
    otherwise (the audit then reads its bound distribution-free)."""
    if delta == 0:
        return PrivacyCurve.pure(epsilon)
    if output_family == "gaussian":
        return PrivacyCurve.gdp(gaussian_mu(epsilon, delta))
    return PrivacyCurve.approx(epsilon, delta)


def _pilot_entropy(seed) -> int:
    """Entropy of the one release that checks the callable's output before the trials (apart from theirs)."""
    base = seed if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else 0
    return int(base) + 7_919_000_001


# -- one release, checked and in the shape the statistics read ------------------------------------------------


@dataclass(frozen=True)
class ExternalRelease:
    """One call of a third party's release with the trial's seed: (published mapping, the claim's curve)."""

    release: Callable
    curve: PrivacyCurve
    d: int
    k: int

    def __call__(self, data, rng):
        seed = int(rng.integers(SEED_BOUND))
        try:
            out = self.release(np.array(data, copy=True), seed)
        except Exception as exc:  # a third party's code: say which call failed, in words
            raise ValueError(
                f"the release callable failed on the audit's dataset ({len(data)} rows, {self.d} "
                f"columns): {type(exc).__name__}: {exc}"
            ) from exc
        return checked_release(out, self.d, self.k), self.curve


def checked_release(out, d: int, k: int) -> dict:
    """The release as plain lists, its components as (d, k) columns; a clear error for anything else."""
    if not isinstance(out, Mapping) or "components" not in out:
        raise ValueError(
            "the release callable must return a mapping with at least 'components' (d rows, k "
            f"columns), e.g. {{'components': V, 'eigenvalues': w}} (got {type(out).__name__})."
        )
    components = np.asarray(out["components"], dtype=float)
    if components.ndim != 2 or components.shape[0] != d or components.shape[1] < k:
        raise ValueError(
            f"'components' must have shape ({d}, {k}) with one component per column (got "
            f"{components.shape}); transpose scikit-learn's components_ (k, d)."
        )
    published = {key: to_plain(np.asarray(value)) for key, value in out.items() if key != "components"}
    published["components"] = to_plain(components[:, :k])
    for key, size in (("eigenvalues", k), ("mean", d)):
        if key in published and np.asarray(published[key]).shape[0] < size:
            raise ValueError(f"'{key}' must hold at least {size} values (got {np.asarray(published[key]).shape}).")
    return published


# -- the statistics ------------------------------------------------------------------------------------------


def candidate_statistics(sample: Mapping, output_family: str | None, k: int, d: int) -> tuple:
    """The statistics that fit what a release publishes (names as in the module docstring)."""
    names = ["top_component_energy"]
    if "eigenvalues" in sample:
        names.append("gaussian_likelihood_ratio" if output_family == "gaussian" and k == d else "weighted_energy")
        names.append("top_eigenvalue")
    if "mean" in sample:
        names.append("mean_shift")
    return tuple(names)


def external_scores(published: Mapping, names: tuple, neighbors: str, origin: np.ndarray) -> np.ndarray:
    """The candidate statistics of one release, in the order of ``names``; larger values point to D'."""
    V = np.asarray(published["components"], dtype=float)
    replace = neighbors == "replace"
    out = []
    for name in names:
        if name == "top_component_energy":
            v = V[:, 0]
            out.append(v[1] ** 2 - v[0] ** 2 if replace else -(v[0] ** 2))
        elif name in ("weighted_energy", "gaussian_likelihood_ratio"):
            w = np.asarray(published["eigenvalues"], dtype=float)[: V.shape[1]]
            out.append(float(w @ (V[1] ** 2 - V[0] ** 2)) if replace else -float(w @ V[0] ** 2))
        elif name == "top_eigenvalue":
            out.append(-float(np.max(np.asarray(published["eigenvalues"], dtype=float))))
        else:  # mean_shift
            shift = np.asarray(published["mean"], dtype=float)[: origin.size] - origin
            out.append(shift[1] - shift[0] if replace else -shift[0])
    return np.asarray(out, dtype=float)


def external_design(
    D, D_prime, k: int, neighbors: str, sample: Mapping, output_family: str | None, origin: np.ndarray
) -> AuditDesign:
    """The design :func:`audit_external` hands to :func:`~.core.audit_release`."""
    names = candidate_statistics(sample, output_family, k, D.shape[1])
    relation = "replaced by R e2" if neighbors == "replace" else "removed"
    return AuditDesign(
        D,
        D_prime,
        k,
        _Scores(names, neighbors, tuple(origin)),
        "fitted to the release",
        statistics=names,
        note=f"the published release (canary origin + R e1 {relation}, every other row at the "
        "origin of the declared domain)",
    )


@dataclass(frozen=True)
class _Scores:
    """Picklable score of an external design (for Dask process workers)."""

    names: tuple
    neighbors: str
    origin: tuple

    def __call__(self, published):
        return external_scores(published, self.names, self.neighbors, np.asarray(self.origin, dtype=float))


__all__ = [
    "audit_external",
    "neighbouring_datasets",
    "claim_curve",
    "candidate_statistics",
    "external_scores",
    "ExternalRelease",
    "OUTPUT_FAMILIES",
]

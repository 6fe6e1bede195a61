"""The generic audit designs: worst-case neighbours in R^d and the statistics read from a published release.

Mechanism-specific designs live with their mechanisms (the registry's ``audit_design`` hook, e.g. Private Oja's
step and the tensor moments); the designs here serve every mechanism by the statistic it declares
(``audit_statistic``). Each statistic is larger when the release points to D'.
"""

from __future__ import annotations

import numpy as np

from ..data.prepare import prepare
from .design import AuditDesign

#: The statistics of :func:`default_design` (mechanism-specific designs add their own names).
STATISTICS = ("gram_entry", "power_iterates", "subspace_energy", "psd_support")
#: how the audit reads each of them, in plain words (the Audit page shows it; a mechanism's own designs declare
#: theirs in its registry entry, ``audit_descriptions``)
DESCRIPTIONS = {
    "gram_entry": "an entry difference of the noisy Gram matrix rebuilt from the published eigenvectors and "
    "eigenvalues (exactly the Gaussian the calibration is tight for)",
    "power_iterates": "the likelihood ratio of the published iterates of the noisy power method",
    "subspace_energy": "the released subspace's energy along the differing row (averaged over the published "
    "iterates)",
    "psd_support": "whether Y − XᵀX of D has a negative eigenvalue (possible only if D' produced Y, because Wishart "
    "noise is positive semi-definite)",
}

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
        raise ValueError(
            "this statistic needs the full published spectrum: run with k = d on a mechanism that "
            "releases eigenvalues."
        )
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


def leaves(value, path="") -> dict:
    """Flatten a published dict into {path: scalar} (lists are indexed)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(leaves(item, f"{path}.{key}" if path else str(key)))
        return out
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            out.update(leaves(item, f"{path}[{i}]"))
        return out
    return {path: value}


def deterministic_field(leaves_d: list[dict], leaves_dp: list[dict]) -> str | None:
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
    if statistic not in STATISTICS:
        raise ValueError(
            f"statistic={statistic!r} is not known for {spec.name}; choose 'auto' or one of " f"{list(STATISTICS)}."
        )
    k = k if k is not None else (d if statistic in ("gram_entry", "psd_support") else 1)
    if statistic == "power_iterates" and k != 1:
        raise ValueError("the power_iterates statistic follows one column: audit with k = 1.")
    D, D_prime = _neighbouring_data(d, n, neighbors, statistic)
    D, D_prime = prepare(D), prepare(D_prime)
    gram_d = D.gram
    batch = (lambda runs: _gram_entry_batch(runs, neighbors)) if statistic == "gram_entry" else None
    return AuditDesign(
        D,
        D_prime,
        k,
        lambda pub: _score(statistic, pub, neighbors, gram_d),
        statistic,
        note="the published release (worst-case neighbours e1 / e2, the rest of the data empty)",
        score_batch=batch,
    )


def _gram_entry_batch(runs: list, neighbors: str) -> np.ndarray:
    """The gram_entry statistic of many releases: the rebuilt matrices stacked (``matmul`` of a stack multiplies
    each matrix alone, as :func:`_rebuilt_gram` does one)."""
    V = np.array([np.asarray(pub["components"], dtype=float) for pub in runs])
    values = np.array([np.asarray(pub["eigenvalues"], dtype=float) for pub in runs])
    if V.ndim != 3 or V.shape[1] != V.shape[2] or values.shape != V.shape[:2]:
        raise ValueError(
            "this statistic needs the full published spectrum: run with k = d on a mechanism that "
            "releases eigenvalues."
        )
    C = (V * values[:, None, :]) @ np.swapaxes(V, 1, 2)
    return C[:, 1, 1] - C[:, 0, 0] if neighbors == "replace" else -C[:, 0, 0]

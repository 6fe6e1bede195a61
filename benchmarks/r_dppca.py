"""R's dppca package (yejinjo0220/dppca), dp_pc_dir(g_dppca = TRUE), ported to numpy and audited at its claim.

    python benchmarks/r_dppca.py                      # 10,000 trials per dataset; prints the table of docs/peers.md
    python benchmarks/r_dppca.py --trials 2000        # quicker, looser bounds

The function (R/pc_dir.R of the package): the rows centred (which leaves pairs' differences unchanged), the spherical
Kendall matrix K = 2 / (n (n - 1)) sum_{i<j} u_ij u_ij^T with u_ij = (x_j - x_i) / ||x_j - x_i||, plus symmetric noise
drawn as a vector zeta ~ N(0, sigma^2 I) of length d (d + 1) / 2 whose first d entries fill the diagonal and the rest,
divided by sqrt(2), the lower triangle (so N(0, sigma^2 I) in Frobenius coordinates), then the top-k eigenvectors.
sigma = c sqrt(2 ln(1.25 / delta)) / (n epsilon): the classic Gaussian formula for a Frobenius sensitivity of c / n.
The package's newest version (commit 5105b21, 2026-08-11) has c = 4; every version before it c = 2. A replaced row
moves K by up to 2 sqrt(2) / n (its n - 1 pairs, each by sqrt(2); docs/mechanisms.md#spatial_sign), so c = 2 is
sqrt(2) short of the sensitivity; c = 4 is sqrt(2) above it.

The only change in the port: R stops on a pair of equal rows ("undefined for duplicate observations"); the port gives
such a pair the sign 0 (any bounded choice keeps the sensitivity), because the audit's neighbours repeat one row.
The audit is :func:`dppca_core.audit.audit_external` with its worst-case neighbours (rows at the origin but the canary
e1 or e2) and the Gaussian reading (the noise is Gaussian), at (epsilon, delta) = (1, 1e-5), at the package's own
example (2, 1e-3) and at (4, 1e-5), the budget of its README's Gaussian-mixture example; n = 10, d = 2, k = 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dppca_core.audit import audit_external  # noqa: E402
from dppca_core.privacy import gaussian_epsilon  # noqa: E402

#: the noise multiplier c of each version: sigma = c sqrt(2 ln(1.25 / delta)) / (n epsilon)
VERSIONS = {"before 5105b21 (c = 2)": 2.0, "5105b21, 2026-08-11 (c = 4)": 4.0}
CLAIMS = ((1.0, 1e-5), (2.0, 1e-3), (4.0, 1e-5))
DOMAIN = dict(n=10, d=2, k=2)


def kendall_matrix(X: np.ndarray) -> np.ndarray:
    """R's ``tau_sph``: 2 / (n (n - 1)) times the sum over pairs i < j of u u^T, u the unit difference (0 for equal
    rows, where R stops)."""
    n, d = X.shape
    i, j = np.triu_indices(n, 1)
    diff = X[j] - X[i]
    norms = np.linalg.norm(diff, axis=1, keepdims=True)
    u = np.divide(diff, norms, out=np.zeros_like(diff), where=norms > math.sqrt(np.finfo(float).eps))
    return u.T @ u * (2.0 / (n * (n - 1)))


def vec2mat(zeta: np.ndarray, d: int) -> np.ndarray:
    """R's ``vec2mat``: the first d entries on the diagonal, the rest divided by sqrt(2) in the lower triangle (R fills
    it column by column), mirrored."""
    out = np.diag(zeta[:d])
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))  # column-major, as R's lower.tri assignment
    out[rows[order], cols[order]] = zeta[d:] / math.sqrt(2.0)
    return np.tril(out) + np.tril(out, -1).T


def r_gdppca(X, seed: int, *, epsilon: float, delta: float, k: int, multiplier: float) -> dict:
    """``dp_pc_dir(X, k, g_dppca = TRUE, eps, delta)`` with noise multiplier ``multiplier``: {"components": (d, k)}."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    X = X - X.mean(axis=0)
    sigma = multiplier * math.sqrt(2.0 * math.log(1.25 / delta)) / (n * epsilon)
    zeta = np.random.default_rng(seed).normal(0.0, sigma, d * (d + 1) // 2)
    _, vectors = np.linalg.eigh(kendall_matrix(X) + vec2mat(zeta, d))
    return {"components": vectors[:, ::-1][:, :k]}


def true_mu(multiplier: float, epsilon: float, delta: float) -> float:
    """The GDP parameter the port's noise actually gives: sensitivity 2 sqrt(2) / n over sigma (n cancels)."""
    return 2.0 * math.sqrt(2.0) * epsilon / (multiplier * math.sqrt(2.0 * math.log(1.25 / delta)))


def audit_version(multiplier: float, epsilon: float, delta: float, trials: int, seed: int = 0):
    def release(X, s):
        return r_gdppca(X, s, epsilon=epsilon, delta=delta, k=DOMAIN["k"], multiplier=multiplier)

    return audit_external(
        release,
        epsilon=epsilon,
        delta=delta,
        trials=trials,
        seed=seed,
        output_family="gaussian",
        label=f"R dppca g-DPPCA, c = {multiplier:g}",
        **DOMAIN,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(
        "| version | claim (ε, δ) | exact ε of its noise at δ | audit: lower bound on ε (95%) | verdict |\n"
        "|---|---|---|---|---|"
    )
    for version, multiplier in VERSIONS.items():
        for epsilon, delta in CLAIMS:
            exact = gaussian_epsilon(true_mu(multiplier, epsilon, delta), delta)
            result = audit_version(multiplier, epsilon, delta, args.trials)
            verdict = "REFUTED" if result.violated else "not refuted"
            print(
                f"| {version} | ({epsilon:g}, {delta:g}) | {exact:.3g} | {result.epsilon_lower:.3g} "
                f"({result.statistic}) | {verdict} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

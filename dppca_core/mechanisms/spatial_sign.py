"""Spatial-sign (Kendall) PCA without a clipping radius: the spherical form of Kim & Jung's g-DPPCA.

Each row enters only through a unit vector: the sign u = v / ||v|| of the difference v = x_i - x_j of a pair of rows
("pairs", the multivariate Kendall's tau of Kim & Jung, which needs no centre) or of the row itself around a known
centre, the origin of the rows as given ("origin", the spatial sign covariance). For an elliptical law (Gaussian,
multivariate t) the matrix E[u u^T] has the eigenvectors of the scatter matrix, in the same order, whatever the tails;
a row's weight is one unit whatever its norm, so heavy tails and gross outliers cannot swamp the others, and no radius
is needed: the rows are used as given, unclipped, when the mechanism is called on raw rows.

The statistic. "origin": T = sum_i s_i s_i^T with s_i = x_i / ||x_i|| (0 for a zero row). "pairs": the rows in a
public random order pi, each paired with the ``partners`` rows after it (cyclically): T = (1 / (2m)) sum_i sum_{o=1..m}
u_{i,o} u_{i,o}^T with u_{i,o} the sign of x_pi(i) - x_pi(i+o) (0 for equal rows), an incomplete U-statistic in which
every row sits in exactly 2m pair terms (the complete one when n is odd and m = (n - 1) / 2).

Sensitivity (Frobenius norm; derived in docs/mechanisms.md#spatial_sign and checked at the worst case by the tests).
For unit or zero vectors, ||u u^T - w w^T||_F^2 = ||u||^4 + ||w||^4 - 2 (u . w)^2 <= 2, with equality at orthogonal
unit vectors, and ||u u^T||_F <= 1. Replace one row: "origin" moves one term, sqrt(2); "pairs" moves the 2m terms of
that row, each by at most sqrt(2), divided by 2m: sqrt(2), reached in the limit of a far canary row e1 -> e2 among
rows close together. Add or remove one row ("origin" only; the pairs' order and number depend on n): one term, 1.
Kim & Jung's complete U-statistic (2 / (n (n - 1))) sum_{i<j} u_ij u_ij^T is 2 T / n: sensitivity 2 sqrt(2) / n.

Noise: Frobenius-isotropic symmetric Gaussian noise (G + G^T) / 2 with G i.i.d. N(0, sigma^2): diagonal entries of s.d.
sigma, off-diagonal sigma / sqrt(2), which is N(0, sigma^2 I) in the coordinates (diagonal, sqrt(2) x upper) that
carry the Frobenius norm. sigma = gaussian_sigma(Delta_F, epsilon, delta): exactly mu*-GDP, half the off-diagonal
variance of noise drawn i.i.d. on the upper triangle at the same guarantee.
"""

from __future__ import annotations

import numpy as np

from ..audit.design import AuditDesign
from ..data.prepare import PreparedData, Summarised, prepare
from ..linalg import top_eigenvectors
from ..privacy import PrivacyCurve, gaussian_sigma, sensitivity
from ..registry import AuditRecord, Output, Param, Provenance, mechanism
from .rates import Rate, privacy_regimes
from ..validation import check_matrix

PAPER_KJ = (
    "Kim & Jung, Robust and differentially private principal component analysis (Statistical Analysis and Data "
    "Mining 18(6), 2025), g-DPPCA with the spherical (spatial-sign) transformation"
)
CENTRES = ("pairs", "origin")
DEFAULT_PARTNERS = 16
#: rows whose signs are formed at a time (bounded memory at any n)
BLOCK_ROWS = 65536
#: the audit canary's norm: its pairs' signs are e1 or e2 to within 1e-16 among background rows of norm <= 1
AUDIT_CANARY = 1e8


class RawRows:
    """Rows as given, unclipped (the mechanism needs no radius): what ``prepare_input`` hands the mechanism when it is
    called on raw rows. ``data_norm`` is the radius the caller passed, unused; nothing is clipped."""

    def __init__(self, rows: np.ndarray, data_norm: float):
        self.rows = rows
        self.n, self.d = rows.shape
        self.data_norm = float(data_norm)
        self.n_clipped = 0
        self.has_rows = True


def raw_rows(X, data_norm: float):
    """The registry's ``prepare_input``: raw rows (an array or DataFrame) unclipped and unscaled; prepared data (rows
    the caller clipped, e.g. release_pca's centred rows) and sufficient statistics as :func:`prepare` gives them."""
    if isinstance(X, (PreparedData, Summarised)):
        return prepare(X, data_norm)
    return RawRows(np.array(check_matrix(X, min_rows=2), dtype=float), data_norm)


def unit_signs(V: np.ndarray) -> np.ndarray:
    """Each row divided by its norm: a unit vector, or 0 for a zero row. Each row is first divided by its largest
    absolute entry (a function of that row alone), so no norm overflows; a row that is not finite gives 0."""
    peak = np.max(np.abs(V), axis=1, keepdims=True)
    scaled = np.divide(V, peak, out=np.zeros_like(V), where=(peak > 0) & np.isfinite(peak))
    norms = np.linalg.norm(scaled, axis=1, keepdims=True)
    return np.divide(scaled, norms, out=np.zeros_like(V), where=norms > 0)


def partners_for(n: int, partners: int) -> int:
    """The pairs' partners per row: at most (n - 1) // 2 (the complete U-statistic for odd n), at least 1."""
    return max(1, min(int(partners), (n - 1) // 2))


def sign_statistic(rows: np.ndarray, centre: str, partners: int, rng: np.random.Generator) -> np.ndarray:
    """T of the module docstring (d x d), for ``centre`` "origin" or "pairs" (the public order drawn from ``rng``)."""
    n, d = rows.shape
    T = np.zeros((d, d))
    if centre == "origin":
        for start in range(0, n, BLOCK_ROWS):
            S = unit_signs(rows[start : start + BLOCK_ROWS])
            T += S.T @ S
        return T
    m = partners_for(n, partners)
    ordered = rows[rng.permutation(n)]
    for start in range(0, n, BLOCK_ROWS):
        block = np.arange(start, min(start + BLOCK_ROWS, n))
        for offset in range(1, m + 1):
            S = unit_signs(ordered[block] - ordered[(block + offset) % n])
            T += S.T @ S
    return T / (2.0 * m)


def noise_sd(centre: str, epsilon: float, delta: float, neighbors: str) -> float:
    """sigma of the Frobenius-isotropic noise: the analytic Gaussian mechanism for T's Frobenius sensitivity
    ("sign_pairs" or "sign_rows" of the sensitivity table)."""
    name = "sign_pairs" if centre == "pairs" else "sign_rows"
    return gaussian_sigma(sensitivity(name, neighbors), epsilon, delta)


def frobenius_noise(d: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """(G + G^T) / 2 with G d x d i.i.d. N(0, sigma^2): N(0, sigma^2) on the diagonal, N(0, sigma^2 / 2) off it."""
    G = rng.standard_normal((d, d)) * sigma
    return (G + G.T) / 2.0


def resolve_centre(centre: str | None, neighbors: str) -> str:
    """The centre a run uses: the given one, else "pairs" under replace-one and "origin" under add/remove (the pairs'
    statistic needs n public)."""
    if centre is None:
        return "pairs" if neighbors == "replace" else "origin"
    if centre == "pairs" and neighbors != "replace":
        raise ValueError(
            "the pairs form of the spatial sign needs n public (replace one row): its rows are paired by position. "
            "Use centre='origin' (rows centred beforehand) for add/remove, or neighbors='replace'."
        )
    return centre


def noisy_sign_matrix(rows, centre: str, partners: int, epsilon: float, delta: float, neighbors: str, rng):
    """(T + noise, sigma): the one Gaussian release of the proof (the public order is drawn first, then the noise)."""
    T = sign_statistic(np.asarray(rows, dtype=float), centre, partners, rng)
    sigma = noise_sd(centre, epsilon, delta, neighbors)
    return T + frobenius_noise(T.shape[0], sigma, rng), sigma


def spatial_sign_audit_design(d: int, n: int, neighbors: str, statistic: str, **_):
    """The noisy sign matrix attacked with the exact likelihood ratio (the registry's ``audit_design`` hook).

    Background: n - 1 rows t_j e1 with distinct t_j in [-1, 1], so every background sign is +-e1 (exactly, in
    floating point) whatever the public pairing. The canary AUDIT_CANARY e1 (D) or AUDIT_CANARY e2 (D'; add/remove:
    missing from D'): its 2m pair terms (or its one term) are e1 e1^T or e2 e2^T to within 1e-16, so T moves by
    e2 e2^T - e1 e1^T (Frobenius sqrt(2), the sensitivity) or -e1 e1^T (add/remove: 1), on the diagonal, where the noise
    has s.d. sigma: the score reaches mu* exactly. The form run is the default for the relation (pairs under
    replace-one, origin under add/remove); ``release`` runs :func:`noisy_sign_matrix`, the mechanism's own release."""
    if statistic not in ("auto", "sign_likelihood"):
        return None
    d = max(int(d), 2)
    rows = np.zeros((max(int(n), 4) - 1, d))
    rows[:, 0] = np.linspace(-1.0, 1.0, len(rows) + 1)[1:]  # distinct, none at 0
    canary = np.eye(d)[:2] * AUDIT_CANARY
    D = np.vstack([canary[0], rows])
    D_prime = np.vstack([canary[1], rows]) if neighbors == "replace" else rows.copy()  # add/remove: missing
    centre = resolve_centre(None, neighbors)
    means = [sign_statistic(X, centre, DEFAULT_PARTNERS, np.random.default_rng(0)) for X in (D, D_prime)]
    shift = np.diag(means[1] - means[0])

    def release(data, rng, epsilon, delta, neighbors):
        noisy, sigma = noisy_sign_matrix(data, centre, DEFAULT_PARTNERS, epsilon, delta, neighbors, rng)
        mu = sensitivity("sign_pairs" if centre == "pairs" else "sign_rows", neighbors) / sigma
        return {"matrix": noisy.tolist(), "sd": sigma}, PrivacyCurve.gdp(mu)

    def score(published: dict) -> float:
        diagonal = np.diag(np.asarray(published["matrix"])) - np.diag(means[0])
        return float(shift @ diagonal - 0.5 * shift @ shift) / published["sd"] ** 2

    return AuditDesign(
        D,
        D_prime,
        d,
        score,
        "sign_likelihood",
        release=release,
        note=f"the noisy sign matrix ({centre} form; canary at norm 1e8 along e1, on D' along e2"
        + (" or missing" if neighbors != "replace" else "")
        + f", on a background of {len(rows)} rows along e1): the exact likelihood ratio over its diagonal, which the "
        "canary moves by the whole sensitivity",
    )


PROVENANCE = Provenance(
    read="the method of Kim & Jung as R's dppca package documents and codes it (dp_pc_dir with g_dppca = TRUE, its "
    "vignette on PC directions; yejinjo0220/dppca); the paper itself was not read",
    calibration="ours: the sensitivity derived here (√2 for the pairs' sum over each row's 2m terms, 2√2/n for "
    "Kim & Jung's mean over all pairs) with the analytic Gaussian mechanism; the package calibrates the classic "
    "formula for 4/n (√2 more noise than needed), and before its commit 5105b21 for 2/n (√2 too little)",
    structure="authors_code",
    structure_note="as R's package computes it (whether its authors wrote the package was not checked), with two "
    "changes: an incomplete U-statistic (each row in 2m pairs of a public random order, the complete one for n odd "
    "and m = (n − 1)/2) and Frobenius-isotropic noise drawn as (G + Gᵀ)/2, the package's own noise law",
    proof="ours; add/remove for the signs around the origin only (the pairs are by position).",
    audits=(
        AuditRecord("replace", "sign_likelihood", 0.91, refuted_at=2.0),
        AuditRecord("add_remove", "sign_likelihood", 0.69),
    ),
)


#: Davis-Kahan on the noisy sum of the signs: the noise s.d. (the analytic Gaussian mechanism at sensitivity sqrt(2))
#: against an eigengap that grows like n (each row adds a unit outer product), so the error falls like 1/(n epsilon)
SPATIAL_SIGN_RATE = Rate(
    "Davis-Kahan on the noisy sum of spatial signs: sigma(eps, delta) sqrt(k(d-k)) / (n gap), gap the spatial-sign "
    "matrix's eigengap (bounded, whatever the rows' tails)",
    terms=lambda p: (
        gaussian_sigma(sensitivity("sign_rows", "replace"), p.epsilon, p.delta) * p.spread / p.n,
        p.statistical,
    ),
    regimes=privacy_regimes(
        "privacy-dominated against the rows' own spatial-sign subspace; the signs' sum grows like n",
        "noise sigma(eps, delta) of the analytic Gaussian mechanism",
        n={"epsilon": 0.5},
    ),
)


@mechanism(
    name="spatial_sign",
    provenance=PROVENANCE,
    title="Spatial-sign PCA (Kendall's tau, no clipping radius)",
    short_name="Spatial-sign PCA",
    paper=PAPER_KJ,
    model="central",
    guarantee="approximate",
    rate=SPATIAL_SIGN_RATE,
    relations=("replace", "add_remove"),
    needs_rows=True,
    prepare_input=raw_rows,
    audit_statistic="sign_likelihood",
    audit_design=spatial_sign_audit_design,
    audit_descriptions={
        "sign_likelihood": "the exact Gaussian likelihood ratio over the diagonal of the noisy sign matrix, which a "
        "far canary row turned from e1 to e2 moves by the matrix's whole sensitivity",
    },
    params=(
        Param(
            "centre",
            "choice",
            None,
            "'pairs': signs of the differences of pairs of rows (Kendall's tau, no centre needed; replace one row "
            "only). 'origin': signs of the rows around the origin (centre the rows first). Default: 'pairs' under "
            "replace-one, 'origin' under add/remove.",
            choices=CENTRES,
        ),
        Param(
            "partners",
            "int",
            DEFAULT_PARTNERS,
            "With centre 'pairs': how many rows after it (in a public random order) each row is paired with; every "
            "row then sits in 2 x partners pairs. More partners, less sampling noise; the privacy noise is the same.",
            low=1,
            high=1000,
        ),
    ),
    notes=(
        "Kim & Jung (2025), g-DPPCA with the spherical transformation (what R's dppca package ships as "
        "dp_pc_dir(g_dppca = TRUE)): every row enters as a unit vector, the sign of a pair's difference (Kendall's "
        "tau) or of the row around the origin, so no clipping radius is needed and heavy tails or gross outliers "
        "weigh one unit each. For elliptical laws the sign matrix has the scatter matrix's eigenvectors. The noisy "
        "sign matrix's top-k eigenvectors are released. Sensitivity in Frobenius norm: sqrt(2) under replace-one "
        "for the pairs' sum divided by each row's 2m pair terms (Kim & Jung's mean over all pairs: 2 sqrt(2)/n) "
        "and for the signs around the origin; 1 under add/remove (origin only). Frobenius-isotropic Gaussian noise "
        "(diagonal s.d. sigma, off-diagonal sigma/sqrt(2)) at the analytic calibration: exactly mu*-GDP. Called on "
        "raw rows it reads them unclipped; inside release_pca the rows arrive clipped at R and centred with the "
        "private mean."
    ),
)
def spatial_sign(data, k, epsilon, delta, neighbors, rng, centre, partners):
    centre = resolve_centre(centre, neighbors)
    noisy, sigma = noisy_sign_matrix(data.rows, centre, partners, epsilon, delta, neighbors, rng)
    _, vectors = top_eigenvectors(noisy, data.d)
    mu = sensitivity("sign_pairs" if centre == "pairs" else "sign_rows", neighbors) / sigma
    facts = {
        "centre": centre,
        "noise_on": "the sign matrix sum of u u^T (unit signs of pairs' differences or of rows), Frobenius-isotropic "
        "symmetric Gaussian noise: diagonal s.d. noise_scale, off-diagonal noise_scale / sqrt(2)",
    }
    if centre == "pairs":
        facts["partners"] = partners_for(data.n, partners)
    return Output(vectors[:, :k], noise_scale=float(sigma), privacy=PrivacyCurve.gdp(mu), facts=facts)

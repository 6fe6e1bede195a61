"""Exact sampling from the Bingham distribution on the sphere, and a Gibbs sampler on the Stiefel manifold.

Vector Bingham: f(x) ∝ exp(x^T C x) on S^{q-1}, sampled exactly by rejection from an angular central
Gaussian (ACG) envelope with the optimal parameter b (Kent, Ganeiber & Mardia 2013, arXiv:1310.8110;
docs/mechanisms.md, ppca_exponential). Everything is computed in log space, so concentrations of 1e6 and more work.

Matrix Bingham: p(V) ∝ etr(V^T B V) on the Stiefel manifold V_{d,k}, sampled column by column
(Hoff 2009, JCGS 18(2)). Each column is drawn exactly from its full conditional,
but the chain is approximate for any finite number of sweeps.

Cost. The rejection sampler needs no eigenvectors: for any b > 0 and mu with Omega = I + 2(mu I - C)/b
positive definite, proposals from N(0, Omega^{-1}) and the KGM bound give exact draws; the eigenvalues of C
only make (mu, b) optimal. So an update uses a Cholesky factor of Omega (q^3/3 flops) and O(q^2) per
proposal (about 1.2 sqrt(q) proposals at high concentration), and the Gibbs sampler compresses B to the
complement of the other columns with Householder reflectors (O(k d^2), no d x d products). The eigenvalue
solve (eigvalsh, a few q^3) is made for every column in the first 3 sweeps, then every 10 sweeps per column
or after a slow draw; in between a column reuses its (mu, b) while it accepts within 16 sqrt(q) proposals.
A sweep (k updates, q = d - k + 1) therefore costs about k (q^3/3 + 4 k d^2) flops plus one eigenvalue solve for
about one column in ten. Measured on one
core (k = 3 at d = 20, k = 5 otherwise, spiked B, 30 sweeps): 0.4, 2.5, 6.1 and 41 ms per sweep at d = 20, 100,
200 and 400, against 0.7, 5.0, 19.4 and 101 ms with one full eigh per update.

Note: IBM diffprivlib and OpenDP ship a KGM sampler whose acceptance test is inverted
(exp(-x'Λx) / (M (x'Ωx)^{q/2}) instead of exp(-x'Λx) (x'Ωx)^{q/2} / M). That test accepts almost never at
realistic concentrations and, when it does accept, favours points near the mode: a more concentrated law
than the exponential mechanism's. tests/privacy/test_bingham.py shows that our moment check rejects it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack, solve_triangular

from ..linalg import random_orthonormal

#: Cap on the number of floats in one batch of proposals (memory bound for large q).
_BATCH_FLOATS = 1 << 21
#: Up to this dimension proposals use an explicit inverse of the Cholesky factor instead of triangular solves.
_SMALL_Q = 64
#: Gibbs sweeps that compute every column's envelope from the eigenvalues (burn-in moves fast).
_FRESH_SWEEPS = 3
#: After that, a column's envelope parameters (mu, b) are reused for this many sweeps, then recomputed.
_REFRESH_EVERY = 10
#: Largest q ||C||_F an exact sample allows. x'Cx and the envelope's mu I - C carry rounding errors of about
#: q 2^-53 ||C||; the KGM bound needs Omega = I + 2(mu I - C)/b (b >= 1) positive definite and the log acceptance
#: ratio <= 0, so the log density must be exact to well within 1: q ||C|| <= 2^48 keeps the error below 1/32.
#: Beyond it the law exp(x'Cx) cannot be sampled exactly in double precision (the envelope's Cholesky factor or
#: the acceptance test fails).
MAX_CONCENTRATION = 2.0**48
#: A draw that needs more than this times sqrt(q) proposals (the optimal envelope needs about 1.2 sqrt(q))
#: renews its column's envelope at the next visit.
_SLOW_DRAW = 4.0
#: Proposals (times sqrt(q)) a reused envelope gets for one draw before the optimal one is solved afresh. A reused
#: (mu, b) stays exact while Omega is positive definite, but once the other columns have moved the conditional's
#: top eigenvalue can lie far below mu, and each proposal is then accepted with about exp(-(mu - c_max)): a Report
#: once failed so after a million proposals (q = 19). The optimal envelope needs more than 16 sqrt(q) proposals
#: with probability about exp(-0.85 * 16) < 2e-6; a fresh solve costs one eigenvalue solve (a few q^3 flops).
_REUSE_BUDGET = 16.0


@dataclass(frozen=True)
class BinghamSample:
    """Draw(s) of :func:`sample_vector_bingham` with the rejection sampler's statistics.

    Attributes
    ----------
    x : ndarray of shape (q,) or (size, q)
        Unit vector(s).
    attempts : int
        Proposals made up to and including the last accepted one.
    accepted : int
        Number of draws returned.
    """

    x: np.ndarray
    attempts: int
    accepted: int = 1

    @property
    def acceptance_rate(self) -> float:
        """Accepted draws per proposal: near 1 at low concentration; at high concentration it stays bounded away
        from 0 (measured: about 0.85/sqrt(q), e.g. 0.12 at q = 50, for concentrations 1e4..1e6)."""
        return self.accepted / self.attempts


@dataclass(frozen=True)
class AcgEnvelope:
    """Optimal ACG envelope of f ∝ exp(-x^T diag(lam) x) (eigenbasis of C; lam >= 0, min lam = 0).

    ``b`` solves sum_i 1/(b + 2 lam_i) = 1, ``omega`` = 1 + 2 lam / b and ``log_m`` is
    log M* = -(q - b)/2 + (q/2) ln(q/b) (Kent, Ganeiber & Mardia 2013, §3).
    """

    vectors: np.ndarray
    lam: np.ndarray
    b: float
    omega: np.ndarray
    log_m: float


def acg_envelope(C: np.ndarray) -> AcgEnvelope:
    """Eigen-decompose ``C`` and build the optimal ACG envelope for f(x) ∝ exp(x^T C x).

    Parameters
    ----------
    C : ndarray of shape (q, q)
        Symmetric matrix of the exponent.

    Returns
    -------
    AcgEnvelope
    """
    mu, vectors = np.linalg.eigh(C)
    lam = np.maximum(mu.max() - mu, 0.0)  # adding a multiple of I leaves f unchanged on the sphere
    q = lam.size
    b = _optimal_b(lam)
    omega = 1.0 + 2.0 * lam / b
    log_m = -(q - b) / 2.0 + (q / 2.0) * math.log(q / b)
    return AcgEnvelope(vectors, lam, b, omega, log_m)


def _optimal_b(lam: np.ndarray) -> float:
    """Root of h(b) = sum_i 1/(b + 2 lam_i) - 1 on [1, q] (one lam_i is 0 and all are >= 0, so h(1) >= 0).

    h is convex and decreasing, so Newton's method started at b = 1 increases monotonically to the root
    without overshooting it.
    """
    q = lam.size
    b = 1.0
    for _ in range(200):
        inv = 1.0 / (b + 2.0 * lam)
        h = float(inv.sum()) - 1.0
        if h <= 1e-14:
            break
        step = h / float(inv @ inv)
        b += step
        if step <= 1e-14 * b:
            break
    return min(b, float(q))


def log_acceptance_ratio(x: np.ndarray, env: AcgEnvelope) -> np.ndarray:
    """log of f*(x) / (M* g*(x)) = -x'Λx + (q/2) ln(x'Ωx) - log M* for unit rows x (eigenbasis).

    This is <= 0 for every unit x; a proposal is accepted when ln u is below it.
    """
    q = env.lam.size
    sq = x * x
    return -(sq @ env.lam) + (q / 2.0) * np.log(sq @ env.omega) - env.log_m


def sample_vector_bingham(
    C: np.ndarray, rng: np.random.Generator, size: int | None = None, *, max_attempts: int = 1_000_000
) -> BinghamSample:
    """Exact draw(s) from f(x) ∝ exp(x^T C x) on the unit sphere S^{q-1}.

    Rejection sampling from the optimal angular central Gaussian envelope (Kent, Ganeiber & Mardia
    2013): propose y ~ N(0, Ω^{-1}), x = y/||y||, accept when
    ln u < -x'Λx - log M* + (q/2) ln(x'Ωx). Proposals are drawn in vectorised batches.

    Parameters
    ----------
    C : ndarray of shape (q, q)
        Symmetric exponent matrix (any scale: all arithmetic is in log space).
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent draws; None returns a single vector of shape (q,).
    max_attempts : int
        Guard against an endless loop: at most ``max_attempts`` proposals per requested draw.

    Returns
    -------
    BinghamSample
        ``x`` of shape (q,) (size None) or (size, q), and the acceptance statistics.

    Raises
    ------
    ValueError
        If C is not a finite symmetric square matrix or size < 1.
    RuntimeError
        If the proposal budget is exhausted (not expected: the acceptance rate is bounded below).
    """
    C = _check_symmetric(C)
    n_draws = 1 if size is None else _check_size(size)
    q = C.shape[0]
    if q == 1:  # S^0 = {-1, +1}, both with the same density
        x = rng.choice([-1.0, 1.0], size=(n_draws, 1))
        return BinghamSample(x[0] if size is None else x, n_draws, n_draws)
    env = _cholesky_envelope(C)
    x, attempts = _rejection_loop(env, rng, n_draws, max_attempts * n_draws)
    return BinghamSample(x[0] if size is None else x, attempts, n_draws)


@dataclass(frozen=True)
class _CholeskyEnvelope:
    """The optimal ACG envelope of f(x) ∝ exp(-x'Ax), A = mu I - C, held as a Cholesky factor of Omega.

    Omega = I + 2A/b = L L^T. Proposals y = L^{-T} e (e standard normal) are N(0, Omega^{-1}), x = y/||y||
    (for small q computed as rows e L^{-1} with L^{-1} formed once).
    On the unit sphere x'Omega x = 1 + 2 x'Ax / b, so the acceptance ratio exp(-t) (1 + 2t/b)^{q/2} / M*
    depends on t = x'Ax only and is <= 1 for every t > -b/2 (it is concave in t with its maximum at
    t = (q - b)/2): the sampler is exact for this b and mu; the eigenvalues only make b optimal. No
    eigenvectors are needed, so an eigenvalue solve and a Cholesky factorisation replace a full eigh.
    """

    A: np.ndarray
    L: np.ndarray
    b: float
    log_m: float
    mu: float = 0.0
    L_inv: np.ndarray | None = None

    @property
    def q(self) -> int:
        return self.A.shape[0]


def _cholesky_envelope(C: np.ndarray) -> _CholeskyEnvelope:
    """The optimal envelope: mu = the largest eigenvalue of C and b from all of them (eigvalsh, no vectors)."""
    c = np.linalg.eigvalsh(C)
    mu = float(c[-1])
    b = _optimal_b(np.maximum(mu - c, 0.0))
    return _envelope_at(C, mu, b)


def _envelope_at(C: np.ndarray, mu: float, b: float) -> _CholeskyEnvelope | None:
    """The envelope with given mu and b, or None when Omega = I + 2(mu I - C)/b is not positive definite.

    Any mu and b > 0 with Omega positive definite give an exact sampler (see :class:`_CholeskyEnvelope`);
    mu near the largest eigenvalue of C and b near the optimum only make it efficient.
    """
    q = C.shape[0]
    A = mu * np.eye(q) - C
    omega = np.eye(q) + (2.0 / b) * A
    try:
        L = np.linalg.cholesky((omega + omega.T) / 2.0)
    except np.linalg.LinAlgError:
        return None
    log_m = -(q - b) / 2.0 + (q / 2.0) * math.log(q / b)
    # rows e L^{-1} have covariance L^{-T} L^{-1} = Omega^{-1}. For small q an explicit inverse and products
    # avoid the per-call overhead of a triangular solve; for large q the solve is cheaper than the inverse.
    return _CholeskyEnvelope(A, L, b, log_m, mu, np.linalg.inv(L) if q <= _SMALL_Q else None)


def _rejection_loop(
    env: _CholeskyEnvelope, rng: np.random.Generator, n_draws: int, budget: int, give_up: bool = False
) -> tuple[np.ndarray | None, int]:
    """Accepted unit vectors in proposal order and the proposals used; once ``budget`` proposals are spent, None
    (``give_up``) or an error. Stopping is exact: a draw accepted at any proposal has the target law, so a caller may
    go on with another exact envelope."""
    q = env.q
    out = np.empty((n_draws, q))
    got, attempts, rate = 0, 0, 0.5
    while got < n_draws:
        if attempts >= budget:
            if give_up:
                return None, attempts
            raise RuntimeError(
                f"Bingham rejection sampler made {attempts} proposals for {got} of {n_draws} draws (q = {q}); "
                "this should not happen with the optimal ACG envelope. Check that C is finite and not "
                "astronomically large, or raise max_attempts."
            )
        batch = int(
            min(max(8, math.ceil(1.25 * (n_draws - got) / rate)), max(8, _BATCH_FLOATS // q), budget - attempts)
        )
        e = rng.standard_normal((batch, q))
        if env.L_inv is not None:
            y = e @ env.L_inv
        else:
            y = solve_triangular(env.L, e.T, lower=True, trans="T", check_finite=False).T
        x = y / np.linalg.norm(y, axis=1, keepdims=True)
        t = np.einsum("ij,ij->i", x @ env.A, x)
        log_ratio = -t + (q / 2.0) * np.log1p(2.0 * t / env.b) - env.log_m
        log_u = np.log(rng.uniform(size=batch))
        accepted = np.flatnonzero(log_u < log_ratio)[: n_draws - got]
        out[got : got + accepted.size] = x[accepted]
        got += accepted.size
        attempts += int(accepted[-1]) + 1 if got == n_draws else batch
        rate = max(got / attempts, 1e-3) if got else rate / 4.0
    return out, attempts


def sample_matrix_bingham(
    B: np.ndarray,
    k: int,
    rng: np.random.Generator,
    sweeps: int = 200,
    init: np.ndarray | None = None,
    max_iterates: int = 0,
) -> tuple[np.ndarray, dict]:
    """Hoff's column-wise Gibbs sampler for p(V) ∝ etr(V^T B V), V in V_{d,k} (Hoff 2009, §2.1).

    Each sweep visits the columns in a random order and redraws column j exactly from its full
    conditional, a vector Bingham on the unit sphere of the orthogonal complement of the other columns:
    v_j = N_j z with z ~ Bingham(N_j^T B N_j).

    Parameters
    ----------
    B : ndarray of shape (d, d)
        Symmetric parameter matrix.
    k : int
        Number of columns, 1 <= k <= d.
    rng : numpy.random.Generator
        Source of randomness.
    sweeps : int
        Number of full sweeps (>= 1).
    init : ndarray of shape (d, k), optional
        Orthonormal starting frame; default a Haar-random (data-independent) one.
    max_iterates : int
        Keep copies of V after at most this many evenly spaced sweeps (0: none) in ``info["iterates"]``.

    Returns
    -------
    V : ndarray of shape (d, k)
        Orthonormal columns after the last sweep.
    info : dict
        ``trace``: tr(V^T B V) after each sweep; ``acceptance_rate``: accepted / proposed vector draws;
        ``proposals``: total proposals; ``sweeps``; with ``max_iterates`` also ``iterates`` (copies of V)
        and ``iterate_sweeps`` (the 1-based sweep after which each copy was taken).
    """
    B = _check_symmetric(B)
    d = B.shape[0]
    if not 1 <= int(k) <= d:
        raise ValueError(f"k = {k} must satisfy 1 <= k <= d = {d}; choose fewer components.")
    if int(sweeps) < 1:
        raise ValueError(f"sweeps = {sweeps} must be >= 1; use at least one Gibbs sweep.")
    V = random_orthonormal(d, k, rng) if init is None else _check_frame(init, d, k)
    trace, proposals, draws = [], 0, 0
    every = max(1, math.ceil(int(sweeps) / max_iterates)) if max_iterates > 0 else 0
    iterates, iterate_sweeps = [], []
    cached: dict = {}  # column -> (mu, b, sweep) of its last optimal envelope
    fresh = 0
    for sweep in range(1, int(sweeps) + 1):
        for j in rng.permutation(k):
            C, lift = complement_compression(B, np.delete(V, j, axis=1))
            z, attempts, solved = _column_draw(C, j, sweep, cached, rng)
            fresh += solved
            V[:, j] = lift(z)
            proposals += attempts
            draws += 1
        trace.append(float(np.sum(V * (B @ V))))
        if every and (sweep % every == 0 or sweep == int(sweeps)):
            iterates.append(V.copy())
            iterate_sweeps.append(sweep)
    info = {
        "trace": trace,
        "acceptance_rate": draws / proposals,
        "proposals": proposals,
        "sweeps": int(sweeps),
        "eigen_solves": fresh,
    }
    if every:
        info.update(iterates=iterates, iterate_sweeps=iterate_sweeps)
    return V, info


def _column_draw(C: np.ndarray, j: int, sweep: int, cached: dict, rng: np.random.Generator) -> tuple:
    """(z, proposals, 1 when an envelope was solved afresh else 0): one exact draw z ~ Bingham(C) on the unit sphere
    of the complement for column j of :func:`sample_matrix_bingham`. Column j's last optimal envelope (``cached``:
    column -> (mu, b, sweep)) is reused after the first sweeps until it is :data:`_REFRESH_EVERY` sweeps old or a
    draw takes too many proposals."""
    dim = C.shape[0]
    if dim == 1:  # the complement is a line: two points of equal density
        return rng.choice([-1.0, 1.0], size=1), 1, 0
    spent = 0
    if j in cached and sweep > _FRESH_SWEEPS and sweep - cached[j][2] < _REFRESH_EVERY:
        env = _envelope_at(C, cached[j][0], cached[j][1])  # reuse: one Cholesky, no eigen-solve
        if env is not None:
            x, spent = _rejection_loop(env, rng, 1, math.ceil(_REUSE_BUDGET * math.sqrt(dim)), give_up=True)
            if x is not None:
                if spent > _SLOW_DRAW * math.sqrt(dim):  # the reused envelope has drifted: renew it next time
                    cached.pop(j, None)
                return x[0], spent, 0
    env = _cholesky_envelope(C)  # first sweeps, an old or a refused envelope, or one that drifted too far
    cached[j] = (env.mu, env.b, sweep)
    x, attempts = _rejection_loop(env, rng, 1, 1_000_000)
    if attempts > _SLOW_DRAW * math.sqrt(dim):
        cached.pop(j, None)
    return x[0], spent + attempts, 1


def complement_compression(B: np.ndarray, W: np.ndarray):
    """(N^T B N, z -> N z) for an orthonormal basis N of the complement of the m orthonormal columns of W.

    N is the last d - m columns of the Q of a Householder QR of W; Q^T B Q is formed by applying the m
    reflectors to B from both sides (O(m d^2)), never forming Q or N (a complete QR and two d x d products
    would cost O(d^3)).
    """
    d, m = W.shape
    if m == 0:
        return B, lambda z: np.asarray(z, dtype=float)
    qr, tau, _, info = lapack.dgeqrf(W)
    lwork = max(1, 64 * d)
    left, _, info_l = lapack.dormqr("L", "T", qr, tau, B, lwork)
    both, _, info_r = lapack.dormqr("R", "N", qr, tau, left, lwork)
    if info or info_l or info_r:  # pragma: no cover - LAPACK argument errors only
        raise RuntimeError("Householder QR failed in the Gibbs sampler")
    C = both[m:, m:]
    C = (C + C.T) / 2.0

    def lift(z):
        full = np.zeros((d, 1))
        full[m:, 0] = z
        return lapack.dormqr("L", "N", qr, tau, full, lwork)[0][:, 0]

    return C, lift


def orthogonal_complement(others: np.ndarray, d: int) -> np.ndarray:
    """Orthonormal basis (d x (d - m)) of the orthogonal complement of the m orthonormal columns of ``others``."""
    m = others.shape[1] if others.ndim == 2 else 0
    if m == 0:
        return np.eye(d)
    Q, _ = np.linalg.qr(others, mode="complete")
    return Q[:, m:]


def _check_symmetric(C) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
        raise ValueError(f"C must be a non-empty square matrix, got shape {C.shape}; pass a q x q symmetric matrix.")
    if not np.all(np.isfinite(C)):
        raise ValueError("C contains NaN or inf; pass a finite symmetric matrix.")
    scale = max(float(np.max(np.abs(C))), 1.0)
    if np.max(np.abs(C - C.T)) > 1e-8 * scale:
        raise ValueError("C is not symmetric; pass (C + C.T) / 2.")
    C = (C + C.T) / 2.0
    concentration = C.shape[0] * float(np.linalg.norm(C))
    if not concentration <= MAX_CONCENTRATION:
        raise ValueError(
            f"the Bingham law exp(x'Cx) is too concentrated to sample exactly in double precision: q "
            f"||C|| = {concentration:.3g} (q = {C.shape[0]}) is above 2^48 = {MAX_CONCENTRATION:.2g}, "
            "where its log density has rounding errors near 1. Scale C down (for the exponential "
            "mechanism: a smaller epsilon)."
        )
    return C


def _check_size(size) -> int:
    if int(size) != size or int(size) < 1:
        raise ValueError(f"size = {size!r} must be a positive integer (or None for a single draw).")
    return int(size)


def _check_frame(init, d: int, k: int) -> np.ndarray:
    V = np.array(init, dtype=float)
    if V.shape != (d, k) or not np.allclose(V.T @ V, np.eye(k), atol=1e-8):
        raise ValueError(
            f"init must be a {d} x {k} matrix with orthonormal columns; orthonormalise it (e.g. QR) "
            "or leave it None for a random start."
        )
    return V

"""Synthetic data: a spiked covariance model and each paper's setting (presets), and site partitions.

Every generator takes an explicit seed or numpy Generator and maps rows to a public radius ``data_norm``
by a scale fixed from the *parameters* of the law (never from the drawn data), then clips the rare rows
that still exceed it. Dividing by the data's own max norm, as several papers do, is not private.

What a :class:`SyntheticData` holds
-----------------------------------
``X`` are the released rows (scaled, then clipped). ``covariance`` and ``eigenvalues`` are those of the
*scaled but unclipped* Gaussian law; clipping shrinks a few rows radially, which leaves the planted
subspace ``components`` the leading eigenspace but changes the eigenvalues slightly.
``params["rows_clipped"]`` says how many rows were clipped.

The public namespace is :mod:`dppca_core.data.datasets`, which re-exports everything here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from ..linalg import thin_qr
from .gram import clip_rows
from .sites import split_sites
from ..validation import as_generator, check_int_range, check_positive


@dataclass(frozen=True)
class SyntheticData:
    """Rows and the truth they were drawn from.

    Parameters
    ----------
    X : ndarray (n, d)
        Rows after the public scaling and clipping to ``data_norm``.
    components : ndarray (d, k)
        The planted subspace (orthonormal columns): the top-k eigenvectors of ``covariance``.
    covariance : ndarray (d, d)
        Population covariance of the scaled rows *before* clipping.
    support : ndarray of int
        Sorted indices of the non-zero rows of ``components`` (all rows when the subspace is dense).
    eigenvalues : ndarray (d,)
        Eigenvalues of ``covariance``, descending.
    name, description : str
    params : dict
        The generator's arguments plus ``scale`` (rows were divided by it) and ``rows_clipped``.
    labels : ndarray, optional
        A per-row label where the law has one (e.g. the sign of the signal in Liu et al. Example 4.1).

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> data = datasets.spiked_covariance(n=500, d=8, k=2, seed=0)
    >>> data.X.shape, data.components.shape, data.name
    ((500, 8), (8, 2), 'spiked covariance')
    """

    X: np.ndarray
    components: np.ndarray
    covariance: np.ndarray
    support: np.ndarray
    eigenvalues: np.ndarray
    name: str
    description: str
    params: dict = field(default_factory=dict)
    labels: np.ndarray | None = None


def _check_shape(n, d, k, data_norm) -> tuple[int, int, int, float]:
    n = check_int_range(n, "n", 2)
    d = check_int_range(d, "d", 1)
    k = check_int_range(k, "k", 1, d)
    data_norm = check_positive(data_norm, "data_norm", hint="It is the public bound on row norms, e.g. 1.0.")
    return n, d, k, data_norm


def _sparse_basis(d: int, k: int, s: int | None, rng) -> tuple[np.ndarray, np.ndarray]:
    """A d x k orthonormal basis; with s, a random orthonormal s x k block on s random rows (rest zero)."""
    if s is None:
        return thin_qr(rng.standard_normal((d, k))), np.arange(d)
    s = check_int_range(s, "sparsity s", 1, d)
    if s < k:
        raise ValueError(f"sparsity s = {s} is below k = {k}; an s-row-sparse k-dim subspace needs s >= k.")
    if s == d:
        return thin_qr(rng.standard_normal((d, k))), np.arange(d)
    support = np.sort(rng.choice(d, size=s, replace=False))
    U = np.zeros((d, k))
    U[support] = thin_qr(rng.standard_normal((s, k)))
    return U, support


def _finish(Z, U, covariance, scale, data_norm, clip, name, description, params, support, labels=None):
    """Scale rows by a public constant, clip to data_norm, and package the truth."""
    X = Z / scale
    clipped = 0
    if clip:
        X, clipped = clip_rows(X, data_norm)
    cov = covariance / scale**2
    eigenvalues = np.sort(np.linalg.eigvalsh(cov))[::-1]
    params = dict(params, scale=float(scale), rows_clipped=clipped)
    return SyntheticData(X, U, cov, np.asarray(support), eigenvalues, name, description, params, labels)


def _default_scale(covariance_trace: float, data_norm: float) -> float:
    # E||z||^2 = tr(Sigma): dividing by 2 sqrt(tr) puts typical rows at norm ~ data_norm / 2, so clipping is rare
    return 2.0 * np.sqrt(covariance_trace) / data_norm


def _spiked_rows(n, U, spikes, noise, rng):
    d, k = U.shape
    return rng.standard_normal((n, k)) * np.sqrt(spikes) @ U.T + np.sqrt(noise) * rng.standard_normal((n, d))


def spiked_covariance(
    n: int = 2000,
    d: int = 20,
    k: int = 3,
    spike: float = 10.0,
    eigengap: float | None = None,
    noise: float = 1.0,
    sparsity: int | None = None,
    seed=None,
    data_norm: float = 1.0,
    clip: bool = True,
) -> SyntheticData:
    """Gaussian rows with covariance U diag(spikes) U^T + noise I, scaled and clipped to ``data_norm``.

    Parameters
    ----------
    n, d, k : int
        Rows, columns and planted rank (1 <= k <= d).
    spike : float
        Largest planted variance ``spikes[0]`` (added on top of ``noise``).
    eigengap : float, optional
        Gap between consecutive planted spikes: ``spikes = spike - eigengap * arange(k)``; default
        ``spike / (2k)``. The gap between the k-th and (k+1)-th eigenvalue is ``spikes[-1]`` (the
        eigengap that governs subspace recovery).
    noise : float
        Isotropic noise variance (every eigenvalue beyond the k-th).
    sparsity : int, optional
        s with k <= s <= d: the planted subspace lives on s random rows (row-sparse); default dense.
    seed : None, int or numpy Generator
    data_norm : float
        Public radius R. Rows are divided by ``2 sqrt(tr(Sigma)) / R`` (a constant of the law), so a
        typical row has norm about R/2, then rows with norm > R are clipped (rare).
    clip : bool
        If False, skip the clipping (a few rows may then exceed R; ``dppca_core.run`` clips them anyway).

    Returns
    -------
    SyntheticData
        ``covariance`` is the covariance of the scaled, *unclipped* law.

    Notes
    -----
    The defaults (n=2000, d=20, k=3, spikes 10, 8.33, 6.67 over noise 1) give a clearly learnable problem:
    ``analyze_gauss`` at epsilon = 1 lands well below the random-subspace distance, and the error keeps
    falling as epsilon or n grows.

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> data = datasets.spiked_covariance(n=500, d=8, k=2, seed=0)
    >>> data.X.shape, data.support.tolist()
    ((500, 8), [0, 1, 2, 3, 4, 5, 6, 7])
    """
    n, d, k, data_norm = _check_shape(n, d, k, data_norm)
    spike = check_positive(spike, "spike", hint="It is the largest planted variance, e.g. 10.")
    noise = check_positive(noise, "noise", hint="It is the isotropic noise variance, e.g. 1.")
    gap = spike / (2 * k) if eigengap is None else check_positive(eigengap, "eigengap")
    spikes = spike - gap * np.arange(k)
    if spikes[-1] <= 0:
        raise ValueError(
            f"spike = {spike} with eigengap = {gap} gives non-positive spikes; lower the eigengap "
            f"below spike / (k - 1) = {spike / max(k - 1, 1):g} or raise the spike."
        )
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, sparsity, rng)
    covariance = (U * spikes) @ U.T + noise * np.eye(d)
    params = dict(n=n, d=d, k=k, spike=spike, eigengap=gap, noise=noise, sparsity=sparsity, data_norm=data_norm)
    description = f"{k} planted directions with spikes {np.round(spikes, 2).tolist()} over noise {noise:g}" + (
        f", supported on {sparsity} rows" if sparsity else ""
    )
    return _finish(
        _spiked_rows(n, U, spikes, noise, rng),
        U,
        covariance,
        _default_scale(np.trace(covariance), data_norm),
        data_norm,
        clip,
        "spiked covariance",
        description,
        params,
        support,
    )


#: The sections every paper law's docstring shares (its ``{law_sections}`` line): the seed and the radius among its
#: parameters, what it returns and raises, and an example that draws a small sample of the law (the sample's
#: arguments and what it prints are the law's own, given to :func:`_paper_law`).
LAW_SECTIONS = """seed : None, int or numpy.random.Generator
    The draw's randomness (an int for a reproducible draw).
data_norm : float
    The public radius R the rows are scaled to and clipped at.

Returns
-------
SyntheticData
    The rows and the truth they were drawn from.

Raises
------
ValueError
    For sizes out of range, in words.

Examples
--------
>>> from dppca_core.data import datasets
>>> data = datasets.{name}({arguments}, seed=0)
>>> data.X.shape, {shows}
(({n}, {d}), {gives})"""


def _paper_law(example: dict, shows: str, gives: str):
    """A paper law's docstring completed: its ``{law_sections}`` line replaced by :data:`LAW_SECTIONS`, at its indent,
    whose example draws the law at ``example`` (its ``n`` rows of ``d`` columns) and prints the rows' shape and
    ``shows``, which must print ``gives`` (run as a doctest by tests/test_docs.py)."""

    def complete(generator):
        arguments = ", ".join(f"{name}={value!r}" for name, value in example.items())
        sections = LAW_SECTIONS.format(
            name=generator.__name__, arguments=arguments, shows=shows, gives=gives, **example
        )
        lines = generator.__doc__.split("\n")
        at = next(i for i, line in enumerate(lines) if line.strip() == "{law_sections}")
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        shared = [indent + line if line else line for line in sections.split("\n")]
        generator.__doc__ = "\n".join(lines[:at] + shared + lines[at + 1 :])
        return generator

    return complete


# ------------------------------------------------------------------------------------- paper settings


def _wang_xu(n, d, k, s, lam, seed, data_norm, name, description):
    n, d, k, data_norm = _check_shape(n, d, k, data_norm)
    lam = check_positive(lam, "lam")
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, s, rng)
    base = 1.0 / (5 * d * (lam + 1))
    spikes = np.full(k, lam * base)
    covariance = (U * spikes) @ U.T + base * np.eye(d)
    # the paper's law already has ||x|| <= 1 w.h.p. (E||x||^2 = (k lam + d) base < 1); only rescale to R
    return _finish(
        _spiked_rows(n, U, spikes, base, rng),
        U,
        covariance,
        1.0 / data_norm,
        data_norm,
        True,
        name,
        description,
        dict(n=n, d=d, k=k, s=s, lam=lam, data_norm=data_norm),
        support,
    )


@_paper_law(example=dict(n=500, d=10, k=2), shows="data.components.shape", gives="(10, 2)")
def wang_xu_low_dim(
    n: int = 20000, d: int = 20, k: int = 3, lam: float = 1.0, seed=None, data_norm: float = 1.0
) -> SyntheticData:
    """Wang & Xu (IJCAI 2019), Section 6, Algorithm 1 setting.

    Sigma = lam/(5p(lam+1)) V V^T + 1/(5p(lam+1)) I_p with V a random p x k orthonormal matrix.
    Paper: n = 1e5, p = 40, k in {5, 10, 15, 20}, lam = 1, eps = 0.5, delta = 1e-4 (``PAPER_SETTINGS``).
    Defaults are smaller for speed. The eigengap 1/(10p) is far below the local-DP noise, so private
    errors sit at the random-subspace level (docs/papers.md, 'Why Wang & Xu's synthetic settings are noise-dominated'); raise ``lam`` or n to see learning.

    Parameters
    ----------
    n, d, k : int
        Rows, columns (the paper's p) and the planted rank.
    lam : float
        The signal strength.
    {law_sections}
    """
    return _wang_xu(
        n,
        d,
        k,
        None,
        lam,
        seed,
        data_norm,
        "Wang & Xu (low-dim)",
        "Wang & Xu Algorithm 1 law: tiny eigengap 1/(10p), noise-dominated under local DP.",
    )


@_paper_law(example=dict(n=500, d=20, k=2, s=4), shows="len(data.support)", gives="4")
def wang_xu_sparse(
    n: int = 2000, d: int = 100, k: int = 3, s: int = 10, lam: float = 1.0, seed=None, data_norm: float = 1.0
) -> SyntheticData:
    """Wang & Xu (IJCAI 2019), Section 6, Algorithm 2 setting: the same Sigma with an s-row-sparse V.

    V = random orthonormal s x k block on s random rows. Paper: k = 10, n = 2000, p = 400,
    s in {15, 20, 40, 80}, eps = 1 (``PAPER_SETTINGS``); defaults are smaller for speed.

    Parameters
    ----------
    n, d, k : int
        Rows, columns (the paper's p) and the planted rank.
    s : int
        Rows of the planted support.
    lam : float
        The signal strength.
    {law_sections}
    """
    return _wang_xu(
        n,
        d,
        k,
        s,
        lam,
        seed,
        data_norm,
        "Wang & Xu (sparse)",
        f"Wang & Xu Algorithm 2 law: {s}-row-sparse subspace, p >> n regime.",
    )


@_paper_law(example=dict(n=500, d=20, k=2, s=5), shows="len(data.support)", gives="5")
def ge_dps(n: int = 20000, d: int = 100, k: int = 3, s: int = 10, seed=None, data_norm: float = 1.0) -> SyntheticData:
    """Ge et al. (AISTATS 2018), Section 5: Sigma = U Lambda U^T, lambda_1..k = 100, the rest U[0, 10], Q* s-row-sparse.

    Q* = [L; 0] (orthonormalised s x k Gaussian, on s random rows); the other eigenvectors orthonormalise
    (I - Q*Q*^T) R with R Gaussian d x (d-k). Paper: d = 1000, n = 1e5, k = 5, s = 10 (Fig. 3, 4a) and
    d in [40, 160], k = 3 (Fig. 4b) — see ``PAPER_SETTINGS`` (the full size takes 800 MB). The paper does
    not bound row norms; here rows are scaled by 2 sqrt(tr Sigma) / R and clipped.

    Parameters
    ----------
    n, d, k : int
        Rows, columns and the planted rank.
    s : int
        Rows of the planted support.
    {law_sections}
    """
    n, d, k, data_norm = _check_shape(n, d, k, data_norm)
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, s, rng)
    rest = rng.uniform(0, 10, size=d - k)
    R = thin_qr((np.eye(d) - U @ U.T) @ rng.standard_normal((d, d - k))) if d > k else np.zeros((d, 0))
    covariance = 100.0 * U @ U.T + (R * rest) @ R.T
    Z = 10.0 * rng.standard_normal((n, k)) @ U.T + (rng.standard_normal((n, d - k)) * np.sqrt(rest)) @ R.T
    return _finish(
        Z,
        U,
        covariance,
        _default_scale(np.trace(covariance), data_norm),
        data_norm,
        True,
        "Ge et al. DPS-PCA",
        f"Ge et al. Section 5 law: {k} eigenvalues 100, the rest U[0,10], {s}-row-sparse.",
        dict(n=n, d=d, k=k, s=s, data_norm=data_norm),
        support,
    )


@_paper_law(example=dict(n=500, d=5), shows="data.components.shape", gives="(5, 1)")
def liu_spiked(n: int = 20000, d: int = 10, gap: float = 0.5, seed=None, data_norm: float = 1.0) -> SyntheticData:
    """Liu et al. (NeurIPS 2022) lower-bound law (Thm 5.3): Sigma = gap v v^T + I_d (lambda_2 = 1), k = 1.

    docs/papers.md ('Suggested benchmarks for Liu et al.') suggests d in {10, 100}, eps in {0.5, 0.9}, delta = 1/n^2, error against n.

    Parameters
    ----------
    n, d : int
        Rows and columns.
    gap : float
        The spike above the unit noise (lambda_1 - lambda_2).
    {law_sections}
    """
    n, d, _, data_norm = _check_shape(n, d, 1, data_norm)
    gap = check_positive(gap, "gap", hint="It is lambda_1 - lambda_2, e.g. 0.5.")
    rng = as_generator(seed)
    U = thin_qr(rng.standard_normal((d, 1)))
    spikes = np.array([gap])
    covariance = (U * spikes) @ U.T + np.eye(d)
    return _finish(
        _spiked_rows(n, U, spikes, 1.0, rng),
        U,
        covariance,
        _default_scale(np.trace(covariance), data_norm),
        data_norm,
        True,
        "Liu et al. spiked",
        f"Liu et al. lower-bound law: lambda_1 - lambda_2 = {gap:g}, lambda_2 = 1, top eigenvector.",
        dict(n=n, d=d, gap=gap, data_norm=data_norm),
        np.arange(d),
    )


@_paper_law(example=dict(n=500, d=5), shows="sorted(set(data.labels.tolist()))", gives="[-1, 1]")
def liu_example_41(n: int = 20000, d: int = 10, sigma: float = 0.1, seed=None, data_norm: float = 1.0) -> SyntheticData:
    """Liu et al. (NeurIPS 2022) Example 4.1: x = s + nu, s = +-v with probability 1/2 each, nu ~ N(0, sigma^2 I).

    Rows are divided by the public constant 2 max(1, sigma sqrt(d)) / R (so the signal has norm R/2 when
    the noise is small) and clipped. ``labels`` holds the sign of s. The same section suggests sigma^2 in
    {1, 0.1, 0.01}: DP-PCA's error should shrink with sigma, Private Oja's privacy term should not.

    Parameters
    ----------
    n, d : int
        Rows and columns.
    sigma : float
        The noise's standard deviation.
    {law_sections}
    """
    n, d, _, data_norm = _check_shape(n, d, 1, data_norm)
    sigma = check_positive(sigma, "sigma", hint="It is the noise standard deviation, e.g. 0.1.")
    rng = as_generator(seed)
    v = thin_qr(rng.standard_normal((d, 1)))
    signs = rng.choice([-1.0, 1.0], size=n)
    Z = signs[:, None] * v[:, 0] + sigma * rng.standard_normal((n, d))
    covariance = v @ v.T + sigma**2 * np.eye(d)
    scale = 2.0 * max(1.0, sigma * np.sqrt(d)) / data_norm
    return _finish(
        Z,
        v,
        covariance,
        scale,
        data_norm,
        True,
        "Liu et al. Example 4.1",
        f"signal +-v plus N(0, {sigma:g}^2 I) noise",
        dict(n=n, d=d, sigma=sigma, data_norm=data_norm),
        np.arange(d),
        labels=signs.astype(int),
    )


@_paper_law(example=dict(n=500, d=10, k=3), shows="data.components.shape", gives="(10, 3)")
def imtiaz_synthetic(
    n: int = 10000, d: int = 100, k: int = 20, rotate: bool = False, seed=None, data_norm: float = 1.0
) -> SyntheticData:
    """Imtiaz & Sarwate (papers 003/004) synthetic law: A = diag(linspace(10, 1, k), 0.5 U(0,1)^{d-k}).

    The authors' generator is diagonal (axis-aligned: the planted subspace is the first k coordinates);
    ``rotate=True`` applies a random rotation instead. the distributed paper (2018) uses S = 10 sites of N_s = 1000 rows (the
    default n) with d = 100, k = 20 for this generator; the ICASSP 2016 paper uses d = 100, n = 60000, k = 10. The authors
    divide by the empirical max norm (not private); here rows are scaled by 2 sqrt(tr A) / R and clipped.

    Parameters
    ----------
    n, d, k : int
        Rows, columns and the planted rank.
    rotate : bool
        Rotate the law at random (the authors' is axis-aligned).
    {law_sections}
    """
    n, d, k, data_norm = _check_shape(n, d, k, data_norm)
    rng = as_generator(seed)
    diag = np.concatenate([np.linspace(10, 1, k), 0.5 * rng.uniform(size=d - k)])
    Q = thin_qr(rng.standard_normal((d, d))) if rotate else np.eye(d)
    covariance = (Q * diag) @ Q.T
    U = Q[:, :k]
    support = np.arange(d) if rotate else np.arange(k)
    Z = (rng.standard_normal((n, d)) * np.sqrt(diag)) @ Q.T
    return _finish(
        Z,
        U,
        covariance,
        _default_scale(diag.sum(), data_norm),
        data_norm,
        True,
        "Imtiaz & Sarwate synthetic",
        "Imtiaz & Sarwate law: eigenvalues linspace(10, 1, k) then 0.5 U(0,1)"
        + (" in a random basis." if rotate else " on the coordinate axes."),
        dict(n=n, d=d, k=k, rotate=rotate, data_norm=data_norm),
        support,
    )


class Preset(NamedTuple):
    """A named synthetic setting: ``make(**defaults, seed=...)`` draws it.

    Parameters
    ----------
    make : callable
        The generator (e.g. :func:`ge_dps`), returning :class:`SyntheticData`.
    description : str
        The setting in words.
    defaults : dict
        The generator's arguments for this setting.
    paper : str
        The paper the setting comes from.

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> preset = datasets.PRESETS["ge_dps"]
    >>> preset.paper
    'Ge et al. (AISTATS 2018)'
    >>> preset.make(**{**preset.defaults, "n": 500}, seed=0).X.shape[0]
    500
    """

    make: Callable[..., SyntheticData]
    description: str
    defaults: dict
    paper: str


PRESETS: dict[str, Preset] = {
    "spiked": Preset(spiked_covariance, "Spiked covariance (default teaching example)", {}, "—"),
    "wang_xu_low_dim": Preset(
        wang_xu_low_dim, "Local DP, low dimension (noise-dominated)", dict(n=20000, d=20, k=3), "Wang & Xu (IJCAI 2019)"
    ),
    "wang_xu_sparse": Preset(
        wang_xu_sparse, "Local DP, sparse p >> n", dict(n=2000, d=100, k=3, s=10), "Wang & Xu (IJCAI 2019)"
    ),
    "ge_dps": Preset(ge_dps, "Distributed sparse PCA", dict(n=20000, d=100, k=3, s=10), "Ge et al. (AISTATS 2018)"),
    "liu_spiked": Preset(
        liu_spiked, "Spiked model, top eigenvector", dict(n=20000, d=10, gap=0.5), "Liu et al. (NeurIPS 2022)"
    ),
    "liu_example_41": Preset(
        liu_example_41,
        "Signal/noise separation (Example 4.1)",
        dict(n=20000, d=10, sigma=0.1),
        "Liu et al. (NeurIPS 2022)",
    ),
    "imtiaz_synthetic": Preset(
        imtiaz_synthetic, "Captured-energy benchmark", dict(n=5000, d=50, k=10), "Imtiaz & Sarwate (2016/2018)"
    ),
}

# The papers' own sizes (slower or larger than the presets' defaults; ge_dps at full size needs ~800 MB).
PAPER_SETTINGS: dict[str, dict] = {
    "wang_xu_low_dim": dict(n=100000, d=40, k=5, lam=1.0),
    "wang_xu_sparse": dict(n=2000, d=400, k=10, s=20, lam=1.0),
    "ge_dps": dict(n=100000, d=1000, k=5, s=10),
    "liu_spiked": dict(n=20000, d=100, gap=0.5),
    "liu_example_41": dict(n=20000, d=10, sigma=0.1),
    "imtiaz_synthetic": dict(n=10000, d=100, k=20),
}


def make_sites(n: int, sites) -> list[np.ndarray]:
    """Row indices of each site (data holder) for the distributed mechanisms.

    Parameters
    ----------
    n : int
        Number of rows.
    sites : int, list of int, or array of one label per row
        S equal contiguous sites; contiguous sites of the given sizes (must sum to n); or rows grouped by
        label in order of first appearance. Every site needs at least 2 rows.

    Returns
    -------
    list of ndarray
        Disjoint index arrays covering 0..n-1.

    Raises
    ------
    ValueError
        When the sizes do not sum to n, a site has fewer than 2 rows, or the labels are not one per row.

    Examples
    --------
    >>> from dppca_core.data import datasets
    >>> datasets.make_sites(6, [2, 4])
    [array([0, 1]), array([2, 3, 4, 5])]
    """
    n = check_int_range(n, "n", 2)
    if sites is None or isinstance(sites, (str, bytes, float)):
        raise ValueError(f"sites must be a number of sites, a list of site sizes or one label per row (got {sites!r}).")
    return split_sites(n, sites)

"""Synthetic data (a spiked covariance model and each paper's setting) and validated loading of real tables.

Every generator takes an explicit seed or numpy Generator and clips rows to a public radius
``data_norm`` (it never divides by the data's own max norm, which would not be private).
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .linalg import thin_qr
from .prepare import clip_rows
from .validation import as_generator, check_int_range, check_positive

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"


@dataclass(frozen=True)
class SyntheticData:
    """Rows and the truth they were drawn from.

    ``covariance`` and ``eigenvalues`` describe the population law *before* clipping (clipping is rare for
    the defaults; the diagnostics of the app use the planted ``components`` as the reference).
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


def _sparse_basis(d: int, k: int, s: int | None, rng) -> tuple[np.ndarray, np.ndarray]:
    if s is None or s >= d:
        return thin_qr(rng.standard_normal((d, k))), np.arange(d)
    if s < k:
        raise ValueError(f"sparsity s = {s} is below k = {k}; an s-row-sparse k-dim subspace needs s >= k.")
    support = np.sort(rng.choice(d, size=s, replace=False))
    U = np.zeros((d, k))
    U[support] = thin_qr(rng.standard_normal((s, k)))
    return U, support


def _from_covariance(n, U, spikes, noise, rng, data_norm, name, description, params, support, scale=None):
    d, k = U.shape
    covariance = (U * spikes) @ U.T + noise * np.eye(d)
    # a public scale from the parameters (not the data): typical rows get norm ~ data_norm / 2
    scale = scale if scale is not None else 2.0 * np.sqrt(np.trace(covariance)) / data_norm
    Z = rng.standard_normal((n, k)) * np.sqrt(spikes) @ U.T + np.sqrt(noise) * rng.standard_normal((n, d))
    X, _ = clip_rows(Z / scale, data_norm)
    return SyntheticData(X, U, covariance / scale**2, support, np.sort(np.linalg.eigvalsh(covariance))[::-1] / scale**2,
                         name, description, params)


def spiked_covariance(n: int = 2000, d: int = 20, k: int = 3, spike: float = 10.0, eigengap: float | None = None,
                      noise: float = 1.0, sparsity: int | None = None, seed=0, data_norm: float = 1.0) -> SyntheticData:
    """Gaussian rows with covariance U diag(spikes) U^T + noise I, clipped to ``data_norm``.

    Parameters
    ----------
    spike : float
        Largest spike (signal variance along the first planted direction), relative to ``noise``.
    eigengap : float, optional
        Gap between consecutive planted spikes; default spike / (2k) so the k spikes stay distinct.
    sparsity : int, optional
        s: the planted subspace is supported on s random rows (row-sparse), else dense.
    """
    n = check_int_range(n, "n", 2)
    d = check_int_range(d, "d", 1)
    k = check_int_range(k, "k", 1, d)
    spike = check_positive(spike, "spike")
    noise = check_positive(noise, "noise")
    gap = spike / (2 * k) if eigengap is None else check_positive(eigengap, "eigengap")
    spikes = spike - gap * np.arange(k)
    if spikes[-1] <= 0:
        raise ValueError(f"spike = {spike} with eigengap = {gap} gives non-positive spikes; lower the eigengap.")
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, sparsity, rng)
    params = dict(n=n, d=d, k=k, spike=spike, eigengap=gap, noise=noise, sparsity=sparsity, data_norm=data_norm)
    return _from_covariance(n, U, spikes, noise, rng, data_norm, "spiked covariance",
                            f"{k} planted directions with spikes {np.round(spikes, 2).tolist()} over noise {noise:g}"
                            + (f", supported on {sparsity} rows" if sparsity else ""), params, support)


def wang_xu_low_dim(n=100000, d=40, k=5, lam=1.0, seed=0, data_norm=1.0):
    """Wang & Xu (000) §6 Alg 1: Sigma = lam/(5p(lam+1)) V V^T + 1/(5p(lam+1)) I (noise-dominated, see §3.1)."""
    rng = as_generator(seed)
    U = thin_qr(rng.standard_normal((d, k)))
    base = 1.0 / (5 * d * (lam + 1))
    return _from_covariance(n, U, np.full(k, lam * base), base, rng, data_norm, "Wang & Xu (low-dim)",
                            "Paper 000, Algorithm 1 setting (n=1e5, p=40, lambda=1): its eigengap is far below the LDP "
                            "noise, so errors sit at the random-subspace level (ALGORITHMS.md §3.1).",
                            dict(n=n, d=d, k=k, lam=lam), np.arange(d), scale=1.0)


def wang_xu_sparse(n=2000, d=400, k=10, s=20, lam=1.0, seed=0, data_norm=1.0):
    """Wang & Xu (000) §6 Alg 2: same Sigma with an s-row-sparse V (p >> n setting)."""
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, s, rng)
    base = 1.0 / (5 * d * (lam + 1))
    return _from_covariance(n, U, np.full(k, lam * base), base, rng, data_norm, "Wang & Xu (sparse)",
                            "Paper 000, Algorithm 2 setting: k=10, n=2000, p=400, s in {15..80}.",
                            dict(n=n, d=d, k=k, s=s, lam=lam), support, scale=1.0)


def ge_dps(n=20000, d=200, k=5, s=10, seed=0, data_norm=1.0):
    """Ge et al. (001) §5: lambda_1..k = 100, the rest U[0, 10], s-sparse Q* (paper: d=1000, n=1e5)."""
    rng = as_generator(seed)
    U, support = _sparse_basis(d, k, s, rng)
    rest = rng.uniform(0, 10, size=d - k)
    R = thin_qr((np.eye(d) - U @ U.T) @ rng.standard_normal((d, d - k)))
    cov_rest = (R * rest) @ R.T
    covariance = 100.0 * U @ U.T + cov_rest
    scale = 2.0 * np.sqrt(np.trace(covariance)) / data_norm
    L = np.linalg.cholesky(covariance + 1e-9 * np.eye(d))
    X, _ = clip_rows(rng.standard_normal((n, d)) @ L.T / scale, data_norm)
    return SyntheticData(X, U, covariance / scale**2, support, np.sort(np.linalg.eigvalsh(covariance))[::-1] / scale**2,
                         "Ge et al. DPS-PCA", "Paper 001 §5 setting (rows clipped: the paper's data are not norm-bounded).",
                         dict(n=n, d=d, k=k, s=s))


def liu_spiked(n=20000, d=10, gap=0.5, seed=0, data_norm=1.0):
    """Liu et al. (002) §5.8: Sigma = (lambda1 - lambda2) v v^T + lambda2 I with lambda2 = 1, k = 1."""
    rng = as_generator(seed)
    U = thin_qr(rng.standard_normal((d, 1)))
    return _from_covariance(n, U, np.array([gap]), 1.0, rng, data_norm, "Liu et al. spiked",
                            "Paper 002 lower-bound construction (Thm 5.3), top eigenvector only.",
                            dict(n=n, d=d, gap=gap), np.arange(d))


def liu_example_41(n=20000, d=10, sigma=0.1, seed=0, data_norm=1.0):
    """Liu et al. (002) Example 4.1: x = s + nu, s = +-v (prob 1/2 each), nu ~ N(0, sigma^2 I), clipped."""
    rng = as_generator(seed)
    v = thin_qr(rng.standard_normal((d, 1)))
    signs = rng.choice([-1.0, 1.0], size=n)
    X = signs[:, None] * v[:, 0] * 0.5 + sigma * 0.5 * rng.standard_normal((n, d))
    X, _ = clip_rows(X, 1.0)
    covariance = 0.25 * (v @ v.T) + 0.25 * sigma**2 * np.eye(d)
    X = X * data_norm
    return SyntheticData(X, v, covariance * data_norm**2, np.arange(d), np.sort(np.linalg.eigvalsh(covariance))[::-1],
                         "Liu et al. Example 4.1", f"signal +-v/2 plus N(0, ({sigma}/2)^2 I) noise",
                         dict(n=n, d=d, sigma=sigma))


def imtiaz_synthetic(n=10000, d=100, k=20, seed=0, data_norm=1.0):
    """Imtiaz & Sarwate (003/004): covariance diag(linspace(10, 1, k), 0.5 U(0,1)^{d-k}) in a random basis."""
    rng = as_generator(seed)
    Q = thin_qr(rng.standard_normal((d, d)))
    diag = np.concatenate([np.linspace(10, 1, k), 0.5 * rng.uniform(size=d - k)])
    covariance = (Q * diag) @ Q.T
    scale = 2.0 * np.sqrt(diag.sum()) / data_norm
    X, _ = clip_rows((rng.standard_normal((n, d)) * np.sqrt(diag)) @ Q.T / scale, data_norm)
    return SyntheticData(X, Q[:, :k], covariance / scale**2, np.arange(d), np.sort(diag)[::-1] / scale**2,
                         "Imtiaz & Sarwate synthetic", "Papers 003/004 synthetic generator (clipped, not max-normalised).",
                         dict(n=n, d=d, k=k))


@dataclass(frozen=True)
class Preset:
    make: callable
    description: str
    paper: str
    defaults: dict


PRESETS = {
    "spiked": Preset(spiked_covariance, "Spiked covariance (default teaching example)", "—", {}),
    "wang_xu_low_dim": Preset(wang_xu_low_dim, "Local DP, low dimension (noise-dominated)", "000 Wang & Xu",
                              dict(n=20000, d=20, k=3)),
    "wang_xu_sparse": Preset(wang_xu_sparse, "Local DP, sparse p >> n", "000 Wang & Xu", dict(n=2000, d=100, k=3, s=10)),
    "ge_dps": Preset(ge_dps, "Distributed sparse PCA", "001 Ge et al.", dict(n=20000, d=100, k=3, s=10)),
    "liu_spiked": Preset(liu_spiked, "Spiked model, top eigenvector", "002 Liu et al.", {}),
    "liu_example_41": Preset(liu_example_41, "Signal/noise separation (Example 4.1)", "002 Liu et al.", {}),
    "imtiaz_synthetic": Preset(imtiaz_synthetic, "Captured-energy benchmark", "003/004 Imtiaz & Sarwate",
                               dict(n=5000, d=50, k=10)),
}


# ---------------------------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """A validated numeric table: ``X`` holds the feature columns as floats."""

    frame: pd.DataFrame
    X: np.ndarray
    columns: list
    labels: pd.Series | None
    dropped: dict
    constant_columns: list
    n_rows: int
    name: str


def _read_bytes(source) -> tuple[bytes, str]:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise ValueError(f"file {str(path)!r} does not exist; check the path.")
        return path.read_bytes(), path.name
    name = getattr(source, "name", "upload")
    if hasattr(source, "getvalue"):
        return bytes(source.getvalue()), str(name)
    if hasattr(source, "read"):
        return bytes(source.read()), str(name)
    raise ValueError("source must be a path or a file-like object (with read() or getvalue()).")


def _parse(raw: bytes, name: str) -> pd.DataFrame:
    if raw[:4] == b"PAR1" or name.lower().endswith((".parquet", ".pq")):
        try:
            return pd.read_parquet(io.BytesIO(raw))
        except Exception as exc:  # pyarrow raises many types for a broken file
            raise ValueError(f"{name}: not a readable Parquet file ({type(exc).__name__}); re-export it.") from None
    for encoding in ("utf-8-sig", "latin-1"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    if not text.strip():
        raise ValueError(f"{name} is empty; upload a CSV with a header row and at least 2 data rows.")
    try:
        return pd.read_csv(io.StringIO(text), sep=None, engine="python")
    except Exception as exc:
        raise ValueError(f"{name}: could not parse as CSV ({str(exc).splitlines()[0][:120]}); use comma, "
                         "semicolon or tab separators and one header row.") from None


def load_table(source, columns=None, label=None, max_bytes: int = 50_000_000, max_cells: int = 20_000_000) -> Table:
    """Read a CSV or Parquet file into validated numeric features.

    Parameters
    ----------
    source : path or file-like (bytes buffer, Streamlit UploadedFile)
    columns : list of str, optional
        Feature columns; default every numeric column except ``label``.
    label : str, optional
        A column kept aside as labels (e.g. for classification on the projection).
    max_bytes, max_cells : int
        Limits; larger inputs are refused with the limit stated.

    Constant columns are kept (they carry no variance but are harmless) and reported.
    """
    raw, name = _read_bytes(source)
    if len(raw) > max_bytes:
        raise ValueError(f"{name} is {len(raw) / 1e6:.1f} MB, over the limit of {max_bytes / 1e6:.1f} MB; "
                         "upload a sample of the rows.")
    if not raw.strip():
        raise ValueError(f"{name} is empty; upload a CSV with a header row and at least 2 data rows.")
    frame = _parse(raw, name)
    frame.columns = [str(c) for c in frame.columns]
    duplicated = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1}
                        | {c.rsplit(".", 1)[0] for c in frame.columns if c.rsplit(".", 1)[-1].isdigit()
                           and c.rsplit(".", 1)[0] in frame.columns})
    if duplicated:
        raise ValueError(f"{name}: duplicate column name(s) {duplicated}; give every column a unique header.")
    if frame.size > max_cells:
        raise ValueError(f"{name} has {frame.size:,} cells, over the limit of {max_cells:,} cells; upload fewer rows or columns.")
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no data rows; at least 2 rows are needed.")
    labels = None
    if label is not None:
        if label not in frame.columns:
            raise ValueError(f"label column {label!r} is not in {name}; available: {list(frame.columns)[:20]}.")
        labels = frame.pop(label)
    if columns is None:
        numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c])]
        dropped = {c: "not numeric" for c in frame.columns if c not in numeric}
        columns = numeric
    else:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"column(s) {missing} not found in {name}; available: {list(frame.columns)[:20]}.")
        bad = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c])]
        if bad:
            raise ValueError(f"column(s) {bad} are not numeric; choose numeric columns or encode them as numbers.")
        dropped = {c: "not selected" for c in frame.columns if c not in columns}
    if not columns:
        raise ValueError(f"{name} has no numeric columns; PCA needs numeric features.")
    features = frame[columns].astype(float)
    values = features.to_numpy()
    bad_cells = ~np.isfinite(values)
    if bad_cells.any():
        counts = bad_cells.sum(axis=0)
        worst = [f"{columns[j]!r} ({counts[j]})" for j in np.flatnonzero(counts)[:5]]
        raise ValueError(f"missing or infinite values in column(s) {', '.join(worst)}; drop or impute them first.")
    if len(values) < 2:
        raise ValueError(f"{name} has {len(values)} data row; at least 2 are needed.")
    constant = [c for c, j in zip(columns, range(values.shape[1])) if np.ptp(values[:, j]) == 0]
    return Table(features, values, list(columns), labels, dropped, constant, len(values), name)


SAMPLES = {
    "wine": {"file": "wine.csv", "label": "class", "title": "Wine recognition (13 chemical measurements, 3 cultivars)"},
    "breast_cancer": {"file": "breast_cancer.csv", "label": "diagnosis",
                      "title": "Breast cancer Wisconsin (30 features, malignant/benign)"},
    "iris": {"file": "iris.csv", "label": "species", "title": "Iris (4 measurements, 3 species)"},
}


def load_sample(name: str) -> Table:
    """Load a dataset shipped in ``sample_data/`` (see ``SAMPLES`` and sample_data/README.md)."""
    if name not in SAMPLES:
        raise ValueError(f"unknown sample {name!r}; choose one of {sorted(SAMPLES)}.")
    info = SAMPLES[name]
    return load_table(SAMPLE_DIR / info["file"], label=info["label"])

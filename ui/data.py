"""Datasets for the app: load from the scenario's data fields, hash the bytes, prepare once.

Loading goes through ``dppca_core.datasets`` (synthetic generators, paper presets, shipped samples)
when those functions exist; a small built-in spiked generator keeps the app working without them.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core import datasets as dsets
from dppca_core.prepare import center_data

UPLOAD_KEY = "upload"  # session-state key holding {"name", "bytes"} of an uploaded file (no widget owns it)


@dataclass
class Dataset:
    """Raw data plus whatever ground truth is known."""

    X: np.ndarray
    name: str
    note: str = ""
    columns: list = field(default_factory=list)
    labels: np.ndarray | None = None
    truth: np.ndarray | None = None      # d x r planted subspace (synthetic only)
    support: np.ndarray | None = None    # planted row support (sparse synthetic only)
    key: str = ""                        # sha256 of the array bytes

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


def array_key(X: np.ndarray, *extra) -> str:
    """sha256 of the array's bytes, shape and dtype (and any extra labels): the cache key of a dataset."""
    X = np.ascontiguousarray(X)
    h = hashlib.sha256()
    h.update(str((X.shape, X.dtype.str, extra)).encode())
    h.update(X.tobytes())
    return h.hexdigest()[:32]


def builtin_spiked(n: int, d: int, rank: int, spike: float, sparse: int, seed: int):
    """Fallback synthetic model: N(0, Sigma) with Sigma = spike * U U^T + I, scaled by a public constant.

    Rows are divided by 2 sqrt(trace Sigma) (known from the parameters, not the data), so
    most rows fall inside the unit ball and clipping at R = 1 is rare.
    """
    if not 1 <= rank <= d:
        raise ValueError(f"the planted rank must be between 1 and d = {d} (got {rank}); lower it or raise d.")
    if sparse and not rank <= sparse <= d:
        raise ValueError(f"row sparsity s = {sparse} must lie in [rank = {rank}, d = {d}], or 0 for dense.")
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(d, size=sparse, replace=False)) if sparse else np.arange(d)
    block, _ = np.linalg.qr(rng.normal(size=(len(rows), rank)))
    U = np.zeros((d, rank))
    U[rows] = block
    spikes = spike * np.linspace(1.0, 0.5, rank)
    Z = rng.normal(size=(n, rank)) * np.sqrt(spikes) @ U.T + rng.normal(size=(n, d))
    scale = 2.0 * np.sqrt(np.sum(spikes) + d)
    return Z / scale, U, (rows if sparse else None)


def _from_core(result) -> dict:
    """Normalise whatever a dppca_core.datasets function returns into Dataset fields."""
    if isinstance(result, tuple):
        out = {"X": result[0]}
        if len(result) > 1:
            out["truth"] = result[1]
        if len(result) > 2:
            out["support"] = result[2]
        return out
    if isinstance(result, np.ndarray):
        return {"X": result}
    fields = {}
    for name, attrs in {"X": ("X", "data"), "truth": ("truth", "components", "U", "basis"),
                        "support": ("support",), "labels": ("labels", "y", "target"),
                        "columns": ("columns", "feature_names"), "note": ("note", "source", "description")}.items():
        for attr in attrs:
            value = result.get(attr) if isinstance(result, dict) else getattr(result, attr, None)
            if value is not None:
                fields[name] = value
                break
    if "X" not in fields:
        raise ValueError("the dataset loader returned no data matrix.")
    if isinstance(fields["X"], pd.DataFrame):
        fields.setdefault("columns", [str(c) for c in fields["X"].columns])
        fields["X"] = fields["X"].to_numpy(dtype=float)
    return fields


def presets() -> dict:
    return dict(getattr(dsets, "PRESETS", {}) or {})


def samples() -> dict:
    return dict(getattr(dsets, "SAMPLES", {}) or {})


@st.cache_data(max_entries=16, show_spinner=False)
def _synthetic(n, d, rank, spike, sparse, seed) -> Dataset:
    fn = getattr(dsets, "spiked_covariance", None)
    if fn is not None:
        try:
            fields = _from_core(fn(n=n, d=d, k=rank, spike=spike, sparsity=sparse or None, seed=seed))
        except TypeError:
            fn = None
    if fn is None:
        X, U, support = builtin_spiked(n, d, rank, spike, sparse, seed)
        fields = {"X": X, "truth": U, "support": support}
    note = f"Synthetic spiked covariance: n={n}, d={d}, planted rank {rank}, spike {spike:g}" + (
        f", row-sparse on s={sparse} coordinates" if sparse else "") + f", seed {seed}."
    return _finish(fields, name="synthetic", note=note)


@st.cache_data(max_entries=16, show_spinner=False)
def _preset(name: str, seed: int) -> Dataset:
    table = presets()
    if name not in table:
        raise ValueError(f"unknown preset {name!r}; choose one of {sorted(table)}.")
    preset = table[name]
    fn = getattr(dsets, "make_preset", None) or getattr(dsets, "load_preset", None)
    if fn is not None:
        fields = _from_core(fn(name, seed=seed))
    elif callable(preset):
        fields = _from_core(preset(seed=seed))
    elif isinstance(preset, dict) and callable(getattr(dsets, "spiked_covariance", None)):
        kwargs = {k: v for k, v in preset.items() if k not in ("note", "source", "paper", "description", "title")}
        fields = _from_core(dsets.spiked_covariance(**kwargs, seed=seed))
    else:
        raise ValueError(f"preset {name!r} cannot be generated by this version of dppca_core.datasets.")
    note = str(getattr(preset, "get", lambda *_: "")("note", "") or fields.pop("note", "") or f"Paper preset {name}.")
    return _finish(fields, name=f"preset {name}", note=note)


@st.cache_data(max_entries=8, show_spinner=False)
def _sample(name: str) -> Dataset:
    loader = getattr(dsets, "load_sample", None)
    if loader is None:
        raise ValueError("shipped samples are not available in this version of dppca_core.datasets.")
    fields = _from_core(loader(name))
    info = samples().get(name)
    note = fields.pop("note", "") or (str(info) if info else f"Sample {name}.")
    return _finish(fields, name=name, note=note)


def read_table(name: str, raw: bytes) -> pd.DataFrame:
    """CSV or Parquet bytes to a DataFrame (``dppca_core.datasets.load_table`` when available)."""
    loader = getattr(dsets, "load_table", None)
    if loader is not None:
        try:
            table = loader(io.BytesIO(raw), name=name)
            return table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
        except TypeError:
            pass
    if name.lower().endswith((".parquet", ".pq")):
        return pd.read_parquet(io.BytesIO(raw))
    return pd.read_csv(io.BytesIO(raw))


@st.cache_data(max_entries=4, show_spinner=False)
def _upload(name: str, raw: bytes, columns: tuple, label: str) -> Dataset:
    table = read_table(name, raw)
    cols = list(columns) or [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c]) and c != label]
    missing = [c for c in cols if c not in table.columns]
    if missing:
        raise ValueError(f"column(s) {missing} are not in the file; pick columns from {list(table.columns)}.")
    if not cols:
        raise ValueError("no numeric columns to analyse; choose at least two numeric columns.")
    X = table[cols]
    bad = [str(c) for c in cols if not pd.api.types.is_numeric_dtype(X[c])]
    if bad:
        raise ValueError(f"column(s) {bad} are not numeric; deselect them or encode them as numbers.")
    X = X.to_numpy(dtype=float)
    keep = np.all(np.isfinite(X), axis=1)
    labels = table[label].to_numpy()[keep] if label else None
    note = f"Uploaded file {name}: {int(keep.sum())} rows" + (f" ({int((~keep).sum())} with missing values dropped)" if (~keep).any() else "") + "."
    return _finish({"X": X[keep], "labels": labels, "columns": [str(c) for c in cols]}, name=name, note=note)


def _finish(fields: dict, name: str, note: str) -> Dataset:
    X = np.asarray(fields.pop("X"), dtype=float)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(f"the data must be a table with at least 2 rows and 2 columns (got shape {X.shape}).")
    cols = list(fields.pop("columns", []) or [f"x{j}" for j in range(X.shape[1])])
    truth = fields.get("truth")
    support = fields.get("support")
    labels = fields.get("labels")
    return Dataset(
        X=X, name=name, note=fields.get("note", note) or note, columns=cols,
        labels=None if labels is None else np.asarray(labels),
        truth=None if truth is None else np.asarray(truth, dtype=float),
        support=None if support is None else np.asarray(support),
        key=array_key(X),
    )


def load_dataset(scn: dict) -> Dataset:
    """The raw dataset the scenario points at."""
    src = scn["src"]
    if src == "synthetic":
        return _synthetic(int(scn["n"]), int(scn["d"]), int(scn["rank"]), float(scn["spike"]),
                          int(scn["sparse"]), int(scn["dseed"]))
    if src.startswith("preset:"):
        return _preset(src.split(":", 1)[1], int(scn["dseed"]))
    if src.startswith("sample:"):
        return _sample(src.split(":", 1)[1])
    if src == "upload":
        up = st.session_state.get(UPLOAD_KEY)
        if not up:
            raise ValueError("no file is uploaded in this session; upload a CSV or Parquet file on the Data page, "
                             "or choose a synthetic or shipped dataset.")
        return _upload(up["name"], up["bytes"], tuple(up.get("columns", ())), up.get("label", ""))
    raise ValueError(f"unknown data source {src!r}; choose synthetic, a preset, a sample or an upload.")


@dataclass
class Prepared:
    """Centred (optionally), clipped data with its Gram matrix and the non-private reference."""

    data: dc.PreparedData
    key: str
    center_private: bool
    center_note: str
    reference: np.ndarray            # top eigenvectors of the Gram (d x d, descending)
    eigenvalues: np.ndarray          # eigenvalues of the Gram, descending


@st.cache_resource(max_entries=8, show_spinner=False)
def _prepare(key: str, center: str, R: float, _X: np.ndarray) -> Prepared:
    cen = center_data(_X, center)
    data = dc.prepare(cen.X, R)
    gram = data.gram  # computed once per (dataset, centring, R)
    vals, vecs = np.linalg.eigh(gram)
    order = np.argsort(vals)[::-1]
    return Prepared(data=data, key=f"{key}|{center}|{R!r}", center_private=cen.private, center_note=cen.note,
                    reference=vecs[:, order], eigenvalues=vals[order])


def prepare(ds: Dataset, scn: dict) -> Prepared:
    """Centre and clip to the public radius R; cached on the data's hash, the centring and R."""
    R = float(scn["R"])
    if not R > 0:
        raise ValueError(f"the clipping radius R must be positive (got {R:g}).")
    if scn["center"] not in ("none", "empirical"):
        raise ValueError("centring must be 'none' or 'empirical'.")
    return _prepare(ds.key, scn["center"], R, ds.X)

"""Datasets for the app: load from the scenario's data fields, hash the bytes, prepare once.

Loading goes through ``dppca_core.datasets`` (synthetic generator, paper presets, shipped samples, tables).
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
from dppca_core import experiments
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
    def label_kind(self) -> str | None:
        """"class" for a class label, "continuous" for a measurement (many distinct numeric values), or None."""
        return label_kind(self.labels)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


def label_kind(labels) -> str | None:
    """Classify a label column: "continuous" when numeric with more than 20 distinct values or non-integer values
    taking more than a fifth of the rows, else "class" (None without labels)."""
    if labels is None:
        return None
    series = pd.Series(np.asarray(labels))
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        distinct = series.nunique()
        non_integer = bool(np.any(np.asarray(series, dtype=float) % 1 != 0))
        if distinct > 20 or (non_integer and distinct > max(2, len(series) // 5)):
            return "continuous"
    return "class"


def array_key(X: np.ndarray, *extra) -> str:
    """sha256 of the array's bytes, shape and dtype (and any extra labels): the cache key of a dataset."""
    X = np.ascontiguousarray(X)
    h = hashlib.sha256()
    h.update(str((X.shape, X.dtype.str, extra)).encode())
    h.update(X.tobytes())
    return h.hexdigest()[:32]


def presets() -> dict:
    return dict(dsets.PRESETS)


def samples() -> dict:
    return dict(dsets.SAMPLES)


@st.cache_data(max_entries=16, show_spinner=False)
def _synthetic(n, d, rank, spike, sparse, seed) -> Dataset:
    syn = dsets.spiked_covariance(n=n, d=d, k=rank, spike=spike, sparsity=sparse or None, seed=seed)
    note = f"Synthetic spiked covariance: n={n}, d={d}, planted rank {rank}, spike {spike:g}" + (
        f", row-sparse on s={sparse} coordinates" if sparse else "") + f", seed {seed}."
    return _from_synthetic(syn, "synthetic", note)


def _from_synthetic(syn, name: str, note: str) -> Dataset:
    support = np.asarray(syn.support)
    dense = len(support) == syn.X.shape[1]
    return _finish({"X": syn.X, "truth": syn.components, "support": None if dense else support,
                    "labels": syn.labels}, name=name, note=note)


@st.cache_data(max_entries=16, show_spinner=False)
def _preset(name: str, seed: int) -> Dataset:
    table = presets()
    if name not in table:
        raise ValueError(f"unknown preset {name!r}; choose one of {sorted(table)}.")
    preset = table[name]
    syn = preset.make(**preset.defaults, seed=seed)
    params = ", ".join(f"{k}={v}" for k, v in syn.params.items()) if getattr(syn, "params", None) else ""
    note = f"{preset.description} ({preset.paper}): {syn.description} {params}".strip()
    return _from_synthetic(syn, f"preset {name}", note)


@st.cache_data(max_entries=8, show_spinner=False)
def _sample(name: str) -> Dataset:
    table = dsets.load_sample(name)
    info = samples().get(name, {})
    note = f"{info.get('title', name)}. Source and licence: sample_data/README.md."
    return _from_table(table, name, note)


def _from_table(table, name: str, note: str) -> Dataset:
    labels = None if table.labels is None else table.labels.to_numpy()
    return _finish({"X": table.X, "columns": list(table.columns), "labels": labels}, name=name, note=note)


def read_table(name: str, raw: bytes, columns=None, label=None):
    """CSV or Parquet bytes to a validated ``dppca_core.datasets.Table``."""
    buf = io.BytesIO(raw)
    buf.name = name
    return dsets.load_table(buf, columns=list(columns) if columns else None, label=label or None)


def table_columns(name: str, raw: bytes) -> tuple[list, list]:
    """(numeric columns, all columns) of an uploaded file."""
    table = read_table(name, raw)
    return list(table.columns), list(table.columns) + list(table.dropped)


@st.cache_data(max_entries=4, show_spinner=False)
def _upload(name: str, raw: bytes, columns: tuple, label: str) -> Dataset:
    table = read_table(name, raw, columns, label)
    note = f"Uploaded file {name}: {table.n_rows} rows, {len(table.columns)} columns" + (
        f" (constant: {table.constant_columns})" if table.constant_columns else "") + "."
    return _from_table(table, name, note)


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
    ref: experiments.Reference       # the non-private eigenvectors and eigenvalues of the Gram (descending)

    @property
    def reference(self) -> np.ndarray:
        return self.ref.vectors

    @property
    def eigenvalues(self) -> np.ndarray:
        return self.ref.eigenvalues


@st.cache_resource(max_entries=8, show_spinner=False)
def _prepare(key: str, center: str, R: float, _X: np.ndarray) -> Prepared:
    cen = center_data(_X, center)
    data = dc.prepare(cen.X, R)
    # the Gram matrix and its eigendecomposition: computed once per (dataset, centring, R), shared by sessions
    return Prepared(data=data, key=f"{key}|{center}|{R!r}", center_private=cen.private, center_note=cen.note,
                    ref=experiments.Reference.of(data))


def prepare(ds: Dataset, scn: dict) -> Prepared:
    """Centre and clip to the public radius R; cached on the data's hash, the centring and R."""
    R = float(scn["R"])
    if not R > 0:
        raise ValueError(f"the clipping radius R must be positive (got {R:g}).")
    if scn["center"] not in ("none", "empirical"):
        raise ValueError("centring must be 'none' or 'empirical'.")
    return _prepare(ds.key, scn["center"], R, ds.X)

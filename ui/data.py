"""Datasets for the app: load from the scenario's data fields, hash the bytes, prepare once.

Loading goes through ``dppca_core.data.datasets`` (synthetic generator, paper presets, shipped samples, tables).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core.data import datasets as dsets
from dppca_core.pipeline import experiments

from . import limits, worker
from .session import UPLOAD_KEY  # the upload and a server file's statistics
from .text import plain
from dppca_core.reading import number
from dppca_core.scenario import Settings


@dataclass
class Dataset:
    """Raw data plus whatever ground truth is known."""

    X: np.ndarray | None  # None for a file streamed into sufficient statistics (no rows kept)
    name: str
    note: str = ""
    columns: list = field(default_factory=list)
    labels: np.ndarray | None = None
    truth: np.ndarray | None = None  # d x r planted subspace (synthetic only)
    support: np.ndarray | None = None  # planted row support (sparse synthetic only)
    key: str = ""  # sha256 of the array bytes
    report: pd.DataFrame | None = None  # uploads: each column kept or dropped and why (non-private diagnostic)
    stats: object = None  # dppca_core.SufficientStats of a streamed server file
    schema: object = None  # dppca_core.data.tables.PublicSchema of a table (None for synthetic data)

    def __post_init__(self):
        # names enter the app here (file names, column names, the note quoting them): every page, figure and
        # download shows them without control or bidirectional formatting characters (ui.text.plain)
        self.name, self.note = plain(self.name), plain(self.note)
        self.columns = [plain(c) for c in self.columns]

    @property
    def label_kind(self) -> str | None:
        """ "class" for a class label, "continuous" for a measurement (many distinct numeric values), or None."""
        return label_kind(self.labels)

    @property
    def n(self) -> int:
        return self.X.shape[0] if self.X is not None else self.stats.n

    @property
    def has_rows(self) -> bool:
        return self.X is not None

    @property
    def d(self) -> int:
        return self.X.shape[1] if self.X is not None else self.stats.d


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


@st.cache_data(max_entries=16, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _synthetic(n, d, rank, spike, sparse, seed) -> Dataset:
    syn = dsets.spiked_covariance(n=n, d=d, k=rank, spike=spike, sparsity=sparse or None, seed=seed)
    note = (
        f"Synthetic spiked covariance: n={n}, d={d}, planted rank {rank}, spike {number(spike)}"
        + (f", row-sparse on s={sparse} coordinates" if sparse else "")
        + f", seed {seed}."
    )
    return _from_synthetic(syn, "synthetic", note)


def _from_synthetic(syn, name: str, note: str) -> Dataset:
    support = np.asarray(syn.support)
    dense = len(support) == syn.X.shape[1]
    return _finish(
        {"X": syn.X, "truth": syn.components, "support": None if dense else support, "labels": syn.labels},
        name=name,
        note=note,
    )


@st.cache_data(max_entries=16, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _preset(name: str, seed: int) -> Dataset:
    table = presets()
    if name not in table:
        raise ValueError(f"unknown preset {name!r}; choose one of {sorted(table)}.")
    preset = table[name]
    syn = preset.make(**preset.defaults, seed=seed)
    params = ", ".join(f"{k}={v}" for k, v in syn.params.items()) if getattr(syn, "params", None) else ""
    note = f"{preset.description} ({preset.paper}): {syn.description} {params}".strip()
    return _from_synthetic(syn, f"preset {name}", note)


@st.cache_data(max_entries=8, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _sample(name: str) -> Dataset:
    table = dsets.load_sample(name)
    info = samples().get(name, {})
    note = f"{info.get('title', name)}. Source and licence: sample_data/README.md."
    return _from_table(table, name, note)


def _from_table(table, name: str, note: str) -> Dataset:
    labels = None if table.labels is None else table.labels.to_numpy()
    ds = _finish({"X": table.X, "columns": list(table.columns), "labels": labels}, name=name, note=note)
    ds.X.flags.writeable = False  # an upload's dataset is one object shared by every session (no copy per rerun)
    ds.schema = table.schema
    return ds


#: upload limits of this app (the library reads any size): bytes, cells, columns (checked from the header first) and
#: a Parquet file's data once decompressed (from its metadata); set in ui/limits.py (environment variables)
MAX_UPLOAD_BYTES = limits.UPLOAD_BYTES
MAX_UPLOAD_CELLS = limits.UPLOAD_CELLS
MAX_UPLOAD_COLUMNS = limits.UPLOAD_COLUMNS
MAX_UPLOAD_DECODED_BYTES = limits.UPLOAD_DECODED_BYTES
LABEL_HINTS = ("target", "label", "class", "y", "outcome", "diagnosis", "species", "cultivar", "group", "site")


@st.cache_resource(max_entries=limits.UPLOAD_CACHE_ENTRIES, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _parsed(digest: str, name: str, _raw: bytes):
    """The uploaded file parsed once (content-addressed: ``digest`` is the sha256 of the bytes), in a worker process
    with the parse budgets of ui/limits.py (:func:`ui.worker.parse_upload`): a file that would take more memory
    or CPU time is refused in plain words, and the server keeps answering every other session meanwhile. A
    refusal is kept too (as its message), and so is a parse that failed in any other way, so neither is read again
    on every rerun. What the worker sends back is bounded (``limits.UPLOAD_MEMORY_BYTES`` once pickled)."""
    try:
        return worker.run(
            worker.parse_upload,
            name,
            _raw,
            MAX_UPLOAD_BYTES,
            MAX_UPLOAD_CELLS,
            MAX_UPLOAD_COLUMNS,
            MAX_UPLOAD_DECODED_BYTES,
            limits.UPLOAD_MEMORY_BYTES,
            memory_bytes=limits.PARSE_MEMORY_BYTES,
            cpu_seconds=limits.PARSE_CPU_SECONDS,
            what=plain(name),
            max_reply_bytes=limits.UPLOAD_MEMORY_BYTES,
        ).value
    except ValueError as exc:
        return _Refusal(str(exc))
    except Exception:  # noqa: BLE001 - remembered like a refusal; the log has the cause
        worker.log.exception("reading an upload failed")
        return _Refusal(
            f"{plain(name)} could not be read (the server failed while reading it); try again later, or save it "
            "again as CSV and upload that."
        )
    finally:
        worker.give_back_memory()  # the received copy of the result, and entries evicted since the last parse


@dataclass(frozen=True)
class _Refusal:
    """Why an uploaded file could not be read (cached like a parsed file)."""

    message: str


def parsed_upload(up: dict):
    """The :class:`dppca_core.data.tables.ParsedTable` of an uploaded file (parsed once per content); ValueError saying
    why a file cannot be read."""
    parsed = _parsed(hashlib.sha256(up["bytes"]).hexdigest(), up["name"], up["bytes"])
    if isinstance(parsed, _Refusal):
        raise ValueError(parsed.message)
    return parsed


def suggested_label(columns: list) -> str:
    """A column whose name looks like a target (target, label, class, y, ...), else ""."""
    lowered = {c.lower().strip(): c for c in columns}
    for hint in LABEL_HINTS:
        if hint in lowered:
            return lowered[hint]
    return ""


@dataclass(frozen=True)
class TableChoice:
    """The public schema the scenario declares for a table, resolved against one file's header.

    Before anything is declared it is the Data page's suggestion, read from the file's cells (its numeric columns,
    a label by name): ``declared`` is then False.
    """

    columns: tuple  # the analysed columns, in order
    label: str  # the label column ("" for none)
    on_bad: str  # what a bad cell becomes: "replace" (always under replace-one) or "drop_rows"
    fill: tuple  # ((column, public value), ...) of every analysed column, with on_bad="replace"
    declared: bool  # False: suggested from the cells, nothing declared yet
    unknown: tuple = ()  # declared names this file does not have


def table_choice(scn: dict, parsed) -> TableChoice:
    """The columns, label and bad-cell rule a table is read with: the scenario's declaration (``cols``, ``label``,
    ``badcells``, ``fill``) or, before there is one, the suggestion read from ``parsed`` (a ParsedTable).

    Rows are left out only when the scenario asks for it and neighbours add or remove a row (n private); under
    replace-one n is public, so a bad cell is always replaced.
    """
    from .scenario import declared_columns, fill_values

    s = Settings(scn)

    declared = declared_columns(scn)
    if declared is None:
        label = suggested_label(parsed.columns)
        columns = [c for c in parsed.numeric_columns if c != label]
    else:
        label, columns = s.label_column, declared
    header = set(parsed.columns)
    unknown = tuple(c for c in [*columns, label] if c and c not in header)
    on_bad = "drop_rows" if s.bad_cells == "drop_rows" and s.neighbors == "add_remove" else "replace"
    given = fill_values(scn)
    fill = tuple((c, float(given.get(c, dsets.DEFAULT_FILL))) for c in columns) if on_bad == "replace" else ()
    return TableChoice(tuple(columns), label, on_bad, fill, declared is not None, unknown)


def choice_problem(choice: TableChoice) -> str | None:
    """Why a table cannot be read with this choice, in plain words (None when it can)."""
    if choice.unknown:
        names = ", ".join(repr(c) for c in choice.unknown[:5])
        return (
            f"the columns declared for this table (in the link, or on the Data page) include {names}, which this "
            "file does not have: choose the columns again on the Data page."
        )
    if choice.label and choice.label in choice.columns:
        return f"the column {choice.label!r} is both the label and analysed: choose one on the Data page."
    if len(choice.columns) < 2:
        return (
            f"{len(choice.columns)} column(s) are chosen for analysis and PCA needs at least 2: choose them on the "
            "Data page (Columns to analyse)."
        )
    return None


@st.cache_resource(max_entries=limits.UPLOAD_CACHE_ENTRIES, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _upload(
    digest: str, name: str, columns: tuple, label: str, on_bad: str, fill: tuple, declared: bool, _up: dict
) -> Dataset:
    table = parsed_upload(_up).select(list(columns), label or None, on_bad, dict(fill) if on_bad == "replace" else None)
    rule = (
        "a missing or non-numeric cell becomes its column's public value"
        if on_bad == "replace"
        else "rows with a missing or non-numeric cell are left out (their number is private)"
    )
    note = f"Uploaded file {name}: {len(table.columns)} columns; {rule}."
    ds = _from_table(table, name, note)
    ds.report = table.report
    ds.schema = replace(table.schema, declared=declared)
    return ds


def upload_dataset(up: dict, scn: dict | None = None) -> Dataset:
    """The uploaded table read with the scenario's schema (:func:`table_choice`); ValueError in plain words when
    the choice does not fit the file. ``up`` keeps the choice it was last read with (the Report's script reads
    it)."""
    from .scenario import values

    choice = table_choice(values() if scn is None else scn, parsed_upload(up))
    problem = choice_problem(choice)
    if problem:
        raise ValueError(problem)
    up.update(columns=choice.columns, label=choice.label, on_bad=choice.on_bad, fill=dict(choice.fill))
    return _upload(
        hashlib.sha256(up["bytes"]).hexdigest(),
        up["name"],
        choice.columns,
        choice.label,
        choice.on_bad,
        choice.fill,
        choice.declared,
        up,
    )


def _finish(fields: dict, name: str, note: str) -> Dataset:
    X = np.asarray(fields.pop("X"), dtype=float)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(f"the data must be a table with at least 2 rows and 2 columns (got shape {X.shape}).")
    cols = list(fields.pop("columns", []) or [f"x{j}" for j in range(X.shape[1])])
    truth = fields.get("truth")
    support = fields.get("support")
    labels = fields.get("labels")
    return Dataset(
        X=X,
        name=name,
        note=fields.get("note", note) or note,
        columns=cols,
        labels=None if labels is None else np.asarray(labels),
        truth=None if truth is None else np.asarray(truth, dtype=float),
        support=None if support is None else np.asarray(support),
        key=array_key(X),
    )


def load_dataset(scn: dict) -> Dataset:
    """The raw dataset the scenario points at."""
    s = Settings(scn)
    src = s.source
    if src == "synthetic":
        shape = int(s.rows), int(s.features), int(s.planted_rank)
        return _synthetic(*shape, float(s.spike_strength), int(s.planted_sparsity), int(s.data_seed))
    if src.startswith("preset:"):
        return _preset(src.split(":", 1)[1], int(s.data_seed))
    if src.startswith("sample:"):
        return _sample(src.split(":", 1)[1])
    if src.startswith("server:"):
        from .streamed import streamed_dataset

        return streamed_dataset(src.split(":", 1)[1], float(s.radius))
    if src == "upload":
        up = st.session_state.get(UPLOAD_KEY)
        if not up:
            raise ValueError(
                "no file is uploaded in this session; upload a CSV or Parquet file on the Data page, "
                "or choose a synthetic or shipped dataset."
            )
        return upload_dataset(up, scn)
    raise ValueError(f"unknown data source {src!r}; choose synthetic, a preset, a sample or an upload.")


@dataclass
class Prepared:
    """Centred (optionally), clipped data with its Gram matrix and the non-private reference."""

    data: dc.PreparedData
    key: str
    center_private: bool
    center_note: str
    ref: experiments.Reference  # the non-private eigenvectors and eigenvalues of the Gram (descending)
    center: str = "none"  # "none", "private" (inside each release) or "empirical" (applied here)
    radius: experiments.RadiusRule | None = None  # R chosen privately inside each release by this rule, if set

    @classmethod
    def of(cls, inp: experiments.ExperimentInput, key: str, center: str, R, scaling, radius, **more) -> Prepared:
        """``inp`` (:func:`dppca_core.pipeline.experiments.prepare_input`'s answer for these settings) as the app's
        input, keyed by the dataset's hash and every setting that shaped it."""
        return cls(
            data=inp.data,
            key=f"{key}|{center}|{R!r}|{scaling!r}|{radius!r}",
            center_private=inp.private,
            center_note=inp.note,
            ref=inp.reference,
            center=center,
            radius=inp.radius,
            **more,
        )

    @property
    def reference(self) -> np.ndarray:
        return self.ref.vectors

    @property
    def eigenvalues(self) -> np.ndarray:
        return self.ref.eigenvalues


@st.cache_resource(max_entries=limits.PREPARED_CACHE_ENTRIES, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _prepare(key: str, center: str, R, scale: tuple | None, radius, _X: np.ndarray) -> Prepared:
    """The mechanisms' input and the non-private reference, once per (dataset, centring, R, scaling, radius rule),
    shared by sessions: :func:`dppca_core.pipeline.experiments.prepare_input`, the same path as the Report's script.

    "private" centring happens inside each release (its mean is part of the release), so the input stays the
    clipped rows; "empirical" centring (not private) is applied here. ``R="private"``: each release chooses R
    from its radius share (``radius``, a RadiusRule); the rows are kept clipped to the rule's upper bound.
    """
    return Prepared.of(experiments.prepare_input(_X, R, center, scale, radius), key, center, R, scale, radius)


def column_scale(ds: Dataset, scn: dict) -> tuple | None:
    """The public per-column bounds the scenario scales by (None when scaling is off); ValueError if they do not
    match the data's columns."""
    from .scenario import bounds

    if Settings(scn).scaling != "bounds":
        return None
    given = bounds(scn)
    if len(given) != ds.d:
        raise ValueError(
            f"scaling by public bounds needs one bound per column: {ds.d} for these data (got "
            f"{len(given)}). Enter them on the Data page (Preprocessing), or turn the scaling off."
        )
    return tuple(given)


#: what a page that runs no complete releases says when the scenario scales the columns privately
NO_PRIVATE_SCALING = (
    "The columns are scaled privately inside each release on Explore, Trade-offs and the Report "
    "(Data page). This view has no private scaling step: it analyses the columns unscaled, in "
    "their own units (exact scales would not be private)."
)


def prepare(ds: Dataset, scn: dict) -> Prepared:
    """Scale by public bounds (optional), centre and clip to the public radius R (or keep the rows for a radius
    chosen privately in each release); cached on the data's hash, the centring, R, the bounds and the radius
    rule. Columns scaled privately (``scale="private"``) are scaled inside each complete release
    (:func:`ui.compute.prepare`); here they stay unscaled, never divided by their exact (non-private) scales: pages
    that run no complete release say so with :data:`NO_PRIVATE_SCALING`."""
    from .scenario import radius_rule

    s = Settings(scn)

    radius = radius_rule(scn)
    R = "private" if radius is not None else float(s.radius)
    if radius is None and not R > 0:
        raise ValueError(f"the clipping radius R must be positive (got {number(R)}).")
    if s.centring not in experiments.CENTRING:
        raise ValueError("centring must be 'none', 'private' or 'empirical'.")
    scale = column_scale(ds, scn)
    if ds.stats is not None and scale is not None:
        raise ValueError(
            "a file streamed into sufficient statistics cannot be rescaled per column after reading; "
            "turn the scaling off (or upload a sample of the rows)."
        )
    if ds.stats is not None:
        if radius is not None:
            raise ValueError(
                "choosing R privately reads each row's norm, which a streamed file no longer has: give "
                "a public R on the Data page (or upload a sample of the rows)."
            )
        if s.centring != "none":
            raise ValueError(
                "a file streamed into sufficient statistics keeps no rows, so it can only be analysed "
                "uncentred; set the centring to none (or upload a sample of the rows)."
            )
        return _prepare_streamed(ds.key, R, ds.stats)
    return _prepare(ds.key, s.centring, R, scale, radius, ds.X)


@st.cache_resource(max_entries=8, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _prepare_streamed(key: str, R: float, _stats) -> Prepared:
    """A streamed file's statistics as the mechanisms' input, with the reference eigendecomposition, once per
    (statistics, R): ``key`` hashes the Gram matrix, so a new read is a new entry."""
    data = _stats.prepared(R)
    return Prepared(
        data=data,
        key=f"{key}|none|{R!r}",
        center_private=True,
        center_note="No centring: the uncentred second moment is analysed.",
        ref=experiments.Reference.from_gram(data.gram),
        center="none",
    )


#: the words of a publish control while the table's schema is only suggested (pages say where to declare it)
UNDECLARED_WORDS = (
    "The columns of this table were suggested by reading its cells, and nobody has declared them yet: which "
    "columns are analysed, and how many, would then depend on the data. On the **Data** page, check the columns, "
    "their order, the label and what a bad cell becomes, and press **Declare this schema**. Nothing is published "
    "until then."
)


def undeclared_schema(ds) -> str | None:
    """Why nothing may be published from ``ds`` yet (its schema was suggested from the cells, not declared), in
    words; None when it may (declared, or synthetic and shipped data, whose schema is public by construction)."""
    schema = getattr(ds, "schema", None)
    return UNDECLARED_WORDS if schema is not None and not schema.declared else None

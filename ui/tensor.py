"""The Tensor page's computation: the two sweeps (against ε and against the samples per site) and one example's
recovered components, each unit cached on its settings, with the default settings' units read from the shipped file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from dppca_core.tensor import experiments as ex
from dppca_core.tensor import metrics as tm

from . import limits, scenario

#: the default settings' sweeps, precomputed (python -m dppca_core.tensor.experiments --ship ...)
SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "reproduce" / "tensor_default.json"


@dataclass(frozen=True)
class Settings:
    """The Tensor page's settings, read from the scenario (:func:`settings`)."""

    model: str
    D: int
    K: int
    sites: int
    n_per_site: int
    epsilon: float
    delta: float
    split: float
    reps: int
    seed: int

    @property
    def kind(self) -> str:
        return self.model.lower()

    @property
    def common(self) -> tuple:
        return self.kind, self.D, self.K, self.sites

    @property
    def budget(self) -> tuple:
        return float(self.delta), float(self.split)


def settings(t: dict) -> Settings:
    """The page's settings from the scenario's values (ValueError when K > D)."""
    v = scenario.Settings(t)
    s = Settings(
        v.tensor_model,
        v.tensor_dimension,
        v.tensor_components,
        v.tensor_sites,
        v.tensor_rows,
        v.tensor_epsilon,
        v.tensor_delta,
        v.tensor_split,
        v.tensor_repetitions,
        v.tensor_seed,
    )
    if s.K > s.D:
        raise ValueError(f"K = {s.K} components need at least K dimensions: choose K ≤ D = {s.D}.")
    return s


@st.cache_data(max_entries=1024, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _repetition(kind, D, K, sites, n_per_site, epsilons, delta, split, rep, seed):
    model = ex.model_for(kind, D, K)
    return ex.repetition(model, sites, n_per_site, epsilons, delta, split, rep, seed)


@st.cache_resource(max_entries=1, ttl=limits.CACHE_TTL_SECONDS, show_spinner=False)
def _shipped() -> dict:
    """The default settings' units, read once per server: a fresh server's first visit computes nothing."""
    return ex.load_shipped(SHIPPED)


def _unit(*args) -> list[dict]:
    """One unit's rows: shipped when the default settings ask for it, else computed (and cached)."""
    return _shipped().get(ex.unit_key(*args)) or _repetition(*args)


def sweeps(s: Settings, progress: Callable[[float, str], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows against ε, rows against the samples per site): every repetition's unit, shipped or cached;
    ``progress(fraction, text)`` after each."""
    units = ex.sweep_units(s.n_per_site, s.epsilon, s.reps)
    rows = {"eps": [], "n": []}
    for i, (axis, n, epsilons, rep) in enumerate(units):
        found = _unit(*s.common, n, epsilons, *s.budget, rep, s.seed)
        rows[axis] += found
        if axis == "eps":  # the sample-size sweep's point at N_s is this unit at the chosen epsilon
            rows["n"] += ex.at_epsilon(found, s.epsilon)
        if progress is not None:
            progress((i + 1) / len(units), f"repetition {rep + 1} of {s.reps}, N_s = {n:,}")
    return pd.DataFrame(rows["eps"]), pd.DataFrame(rows["n"])


@st.cache_data(max_entries=64, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def summary(rows: pd.DataFrame, axis: str, shown: tuple) -> pd.DataFrame:
    """:func:`dppca_core.tensor.experiments.summarize` of a sweep's ``rows`` along ``axis``, the mechanisms ``shown``
    only; once per server for the same rows."""
    frame = ex.summarize(rows, axis)
    return frame[frame.mechanism.isin(shown)]


@st.cache_data(max_entries=64, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _example(kind, D, K, sites, n_per_site, epsilon, delta, split, seed):
    model = ex.model_for(kind, D, K)
    return ex.example(model, sites, n_per_site, epsilon, delta, split, seed)


def components(s: Settings) -> tuple[object, dict, dict]:
    """(the model, each mechanism's components aligned to the true ones, its weights in the same order) for one data
    set (repetition 0) at the chosen ε."""
    model = ex.model_for(s.kind, s.D, s.K)
    result = _example(*s.common, s.n_per_site, float(s.epsilon), *s.budget, s.seed)
    aligned, weights = {}, {}
    for mech, res in result.items():
        match = tm.matching(res["components"], model.components)
        aligned[mech] = tm.aligned(res["components"], model.components)
        w = np.full(model.K, np.nan)
        w[match] = res["weights"]
        weights[mech] = w
    return model, aligned, weights

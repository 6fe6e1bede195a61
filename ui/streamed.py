"""A file read on the server (ui/server_files.py is the gate), streamed into sufficient statistics: the statistics
this session read, as a :class:`ui.data.Dataset` without rows, checked against the scenario's R and declared schema."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
import streamlit as st

from dppca_core.data import datasets as dsets
from dppca_core.reading import number

from .data import Dataset
from .session import STREAM_KEY


def streamed_dataset(relative: str, R: float) -> Dataset:
    """The statistics this session read from a server file (Data page), as a Dataset without rows."""
    got = st.session_state.get(STREAM_KEY)
    if not got or got["relative"] != relative:
        raise ValueError(
            f"the server file {relative!r} has not been read in this session; open the Data page and "
            "press 'Read the file'."
        )
    if not np.isclose(got["stats"].data_norm, R):
        raise ValueError(
            f"the file was read with R = {number(got['stats'].data_norm)}, not {number(R)}: the clipping happens "
            "while reading, so read it again on the Data page."
        )
    stats = got["stats"]
    declared = _declared_elsewhere(stats)
    if declared:
        raise ValueError(
            f"the file was read with other columns or other values for bad cells than the ones now "
            f"declared ({declared}): read it again on the Data page."
        )
    schema = stats.schema
    if schema is not None and not schema.declared and _declares_columns():
        # the scenario declares exactly the columns and bad-cell values read (_declared_elsewhere agreed): the
        # statistics are those a read with them declared gives, bit for bit (tests/app/test_app_schema.py)
        schema = replace(schema, declared=True)
    h = hashlib.sha256(relative.encode())
    h.update(np.ascontiguousarray(stats.gram).tobytes())
    note = (
        f"Server file {relative}: {stats.n:,} rows, {stats.d} columns, streamed into sufficient statistics "
        f"(n and the clipped Gram matrix; no rows kept)."
    )
    return Dataset(
        X=None,
        name=relative,
        note=note,
        columns=list(stats.columns),
        key=h.hexdigest()[:32],
        stats=stats,
        schema=schema,
    )


def _declares_columns() -> bool:
    from .scenario import declared_columns, values

    return declared_columns(values()) is not None


def _declared_elsewhere(stats) -> str:
    """What the scenario now declares that the statistics were not read with ("" when they agree)."""
    from .scenario import declared_columns, fill_values, values

    scn = values()
    declared = declared_columns(scn)
    if declared is not None and tuple(declared) != tuple(stats.columns):
        return "the columns"
    replacement = stats.schema.replacement if stats.schema is not None else {}
    wanted = {c: float(fill_values(scn).get(c, dsets.DEFAULT_FILL)) for c in stats.columns}
    if stats.schema is not None and stats.schema.on_bad == "replace" and dict(replacement) != wanted:
        return "the values of bad cells"
    return ""

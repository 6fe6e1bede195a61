"""The structure of a release does not depend on one row of a *file* (issue 34): the scan of
``test_neighbour_structure`` run from messy files, through the two ways a file reaches a release (an upload read
with a declared public schema, and a server file streamed into sufficient statistics).

A neighbour of a file here changes one row's *cells*: a row replaced by one whose measurements are missing, text or
infinite; such a row added; a row with a missing cell removed. With the public schema (declared columns, label and
the public value a bad cell becomes), d, the columns and the schema must not move, and neither may the structure of
what is published.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc
from dppca_core.pipeline.budget import BudgetSplit

from .test_neighbour_structure import differences, released_choices

FEATURES = ["bill_mm", "depth_mm", "mass_g", "flipper_mm"]
FILL = {"bill_mm": 40.0, "depth_mm": 17.0, "mass_g": 4000.0, "flipper_mm": 200.0}
SEEDS = tuple(range(6))


def messy_frame(n=200, seed=0) -> pd.DataFrame:
    """Measurements in mm and g (units 1000x apart), an ID, a year, a text column and a label, with a few missing
    and non-numeric cells."""
    rng = np.random.default_rng(seed)
    size = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "id": np.arange(1000, 1000 + n),
            "year": rng.choice([2007, 2008, 2009], size=n),
            "bill_mm": 44 + 5 * size + rng.normal(size=n),
            "depth_mm": 17 - 1.5 * size + 0.5 * rng.normal(size=n),
            "mass_g": 4200 + 700 * size + 200 * rng.normal(size=n),
            "flipper_mm": 200 + 12 * size + 3 * rng.normal(size=n),
            "island": rng.choice(["Biscoe", "Dream", "Torgersen"], size=n),
            "species": rng.choice(["Adelie", "Gentoo", "Chinstrap"], size=n),
        }
    ).astype(object)
    frame.loc[3, "bill_mm"] = None
    frame.loc[7, "mass_g"] = "n/a"
    return frame


BAD_ROW = {
    "id": 9999,
    "year": 2009,
    "bill_mm": "",
    "depth_mm": "unknown",
    "mass_g": "inf",
    "flipper_mm": 1e9,
    "island": "Dream",
    "species": "Gentoo",
}


def neighbour_files(frame: pd.DataFrame, relation: str):
    """(what changed, the neighbouring frame) for each neighbour of ``frame`` under ``relation``."""
    if relation == "replace":
        other = frame.copy()
        other.loc[0] = pd.Series(BAD_ROW)
        yield "one row replaced by a row of bad cells", other
    else:
        yield "a row of bad cells added", pd.concat([frame, pd.DataFrame([BAD_ROW])], ignore_index=True)
        yield "a row with a missing cell removed", frame.drop(index=3).reset_index(drop=True)


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def read_upload(raw: bytes, on_bad: str):
    """The upload's path: the declared public schema applied to the parsed file."""
    fill = FILL if on_bad == "replace" else None
    table = dc.data.datasets.load_table(io.BytesIO(raw), columns=FEATURES, label="species", on_bad=on_bad, fill=fill)
    return table.X, table.labels, table.schema


def read_server_file(raw: bytes, path) -> tuple:
    path.write_bytes(raw)
    stats = dc.sufficient_stats(
        str(path), columns=FEATURES, data_norm=6000.0, label="species", on_bad="replace", fill=FILL
    )
    return stats, None, stats.schema


#: how a release is asked for: name -> (relation, labels) -> release_pca keyword arguments
OPTIONS = {
    "public R": lambda labels: dict(data_norm=6000.0),
    "k auto, eigenvalues": lambda labels: dict(
        k="auto", variance_target=0.8, data_norm=6000.0, budget=BudgetSplit.with_extras(eigenvalues=0.15)
    ),
    "private mean, scores by group": lambda labels: dict(
        data_norm=6000.0,
        center="private",
        score_groups=labels,
        score_group_labels=["Adelie", "Chinstrap", "Gentoo"],
        budget=BudgetSplit.with_extras(mean=0.1, scores=0.2),
    ),
}
STREAM_OPTIONS = ("public R", "k auto, eigenvalues")


def _published(data, labels, relation, option, seed):
    kwargs = OPTIONS[option](labels)
    k = kwargs.pop("k", 2)
    try:
        return dc.release_pca("analyze_gauss", data, k, 4.0, 1e-6, relation, seed=seed, **kwargs).published()
    except ValueError as exc:
        return {"refused": str(exc)}


def file_scan(read, relation, option) -> list:
    """Every difference in the schema or the published structure between a messy file and its neighbours."""
    frame = messy_frame()
    data, labels, schema = read(_csv(frame))
    found = []
    for what, other in neighbour_files(frame, relation):
        data2, labels2, schema2 = read(_csv(other))
        if schema2 != schema:
            found.append(f"{what}: the schema moved: {schema} vs {schema2}")
        for seed in SEEDS:
            a, b = _published(data, labels, relation, option, seed), _published(data2, labels2, relation, option, seed)
            if released_choices(a) == released_choices(b):
                found += [f"{what} (seed {seed}): {d}" for d in differences(a, b)]
                break
        else:
            found.append(f"{what}: every seed's released choices differed; nothing compared")
    return found


UPLOAD_CASES = [("replace", "replace", o) for o in OPTIONS] + [
    ("add_remove", b, o) for b in ("replace", "drop_rows") for o in OPTIONS
]


@pytest.mark.parametrize("relation,on_bad,option", UPLOAD_CASES)
def test_an_upload_with_bad_cells_publishes_the_same_structure_as_its_neighbours(relation, on_bad, option):
    assert file_scan(lambda raw: read_upload(raw, on_bad), relation, option) == []


@pytest.mark.parametrize("relation", ["replace", "add_remove"])
@pytest.mark.parametrize("option", STREAM_OPTIONS)
def test_a_server_file_with_bad_cells_publishes_the_same_structure_as_its_neighbours(tmp_path, relation, option):
    assert file_scan(lambda raw: read_server_file(raw, tmp_path / "table.csv"), relation, option) == []


def test_the_file_scan_can_fail():
    """Reading without a declared schema (columns suggested from the cells) lets one row's text cells drop a
    column: the scan reports the schema and the published shapes that moved."""

    def suggested(raw):
        table = dc.data.datasets.load_table(io.BytesIO(raw), label="species", on_bad="drop_column")
        return table.X, table.labels, table.schema

    found = file_scan(suggested, "replace", "public R")
    assert any("schema moved" in f for f in found) and any("components" in f for f in found)

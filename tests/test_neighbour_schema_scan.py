"""No column status that one cell can flip decides what is published (issue 54).

Whether a column is analysed is read from its cells when nobody declared the schema: a column counts when at least
half of its filled cells are numbers, an empty one does not. One row can flip that: a column empty in every row but
one, a column exactly at the half-numeric rule and one cell below it, a constant column with one other value. For
each flip, through both ways a file reaches a release (an upload parsed and selected; a server file streamed into
sufficient statistics), under both relations, the neighbours D and D' must publish the same thing in structure: with
the columns declared, the same d and the same columns; with them only suggested, nothing at all (the same refusal,
in the same words). The refusal is what issue 54 added: before it, a suggested schema was published as declared and
gave d = 4 against 5.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import dppca_core as dc

BASE = ["a", "b", "c", "d"]
N = 300


def _frame(rng) -> pd.DataFrame:
    X = rng.normal(size=(N, 4)) @ rng.normal(size=(4, 4))
    return pd.DataFrame(X, columns=BASE).astype(object)


def flips(rng):
    """(what one cell flips, D, D') under replace-one (D' has D's rows but one) and the rows added under add/remove
    (D' = D plus one row). Each D holds a fifth column ``e`` whose status one cell decides."""
    base = _frame(rng)
    empty = base.assign(e=[None] * N)
    one_number = empty.copy()
    one_number.loc[0, "e"] = 3.5
    half = base.assign(e=[float(i) if i % 2 == 0 else "refused" for i in range(N)])  # 150 numbers, 150 texts
    below = half.copy()
    below.loc[0, "e"] = "refused"  # 149 numbers
    constant = base.assign(e=[2.0] * N)
    varied = constant.copy()
    varied.loc[0, "e"] = 7.0
    return [
        ("an empty column and one number in it", empty, one_number),
        ("a column at the half-numeric rule and one cell below", half, below),
        ("a constant column and one other value", constant, varied),
    ]


def neighbours(relation, D, D2):
    """(D, D') under ``relation``: D2's first row replaces D's, or is added to D."""
    if relation == "replace":
        return D, D2
    return D, pd.concat([D, D2.iloc[[0]]], ignore_index=True)


def upload(frame, columns):
    raw = frame.to_csv(index=False).encode()
    return dc.data.datasets.load_table(io.BytesIO(raw), columns=columns, on_bad="replace")


def server(frame, columns, path):
    path.write_bytes(frame.to_csv(index=False).encode())
    return dc.sufficient_stats(str(path), columns=columns, data_norm=20.0, on_bad="replace")


def publish(source, relation):
    """The library's path from a file to a publishable release: its published dict, or the refusal in words."""
    try:
        release = dc.release_pca("analyze_gauss", source, 2, 1.0, 1e-6, relation, data_norm=20.0)
        return dc.publish(release)
    except ValueError as exc:
        return {"refused": str(exc)}


def outcome(published) -> tuple:
    """The structure that must not move: refused (and why), or d and the published keys."""
    if "refused" in published:
        return ("refused", published["refused"])
    return ("published", len(published["components"]), tuple(sorted(published)))


@pytest.mark.parametrize("relation", ["replace", "add_remove"])
@pytest.mark.parametrize("way", ["upload", "server file"])
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "suggested"])
def test_no_cell_flips_whether_or_what_is_published(tmp_path, relation, way, declared):
    rng = np.random.default_rng(54)
    found = []
    for what, D, D2 in flips(rng):
        columns = [*BASE, "e"] if declared else None
        results = []
        for i, frame in enumerate(neighbours(relation, D, D2)):
            source = upload(frame, columns) if way == "upload" else server(frame, columns, tmp_path / f"t{i}.csv")
            results.append(outcome(publish(source, relation)))
        if results[0] != results[1]:
            found.append(f"{what}: {results[0]} against {results[1]}")
        elif declared and results[0][:2] != ("published", 5):
            found.append(f"{what}: declared columns gave {results[0]}")
        elif not declared and results[0][0] != "refused":
            found.append(f"{what}: a suggested schema was published")
    assert not found, found

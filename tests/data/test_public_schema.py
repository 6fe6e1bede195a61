"""The schema is public, the cells are private (issue 34 item 2, issue 35 item 1): a declared table whose bad cells
are replaced by public values gives neighbours the same d, n and published structure; the streaming reader follows
the same rule; the column flags suggest what to leave out."""

import io

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.data import tables
from dppca_core.data.stats import NO_SITE, sufficient_stats

from tests.messy import HEADER, MEASUREMENTS, TYPICAL, messy_csv, neighbour_csv, to_csv
from tests.support.releases import assert_same_public_shape

R = 6000.0  # a public bound on a row's norm in these units (body mass up to 6 kg dominates)


def buffer(raw: bytes, name="penguins.csv"):
    b = io.BytesIO(raw)
    b.name = name
    return b


def published(X, neighbors="replace", mech="analyze_gauss"):
    release = dc.release_pca(mech, X, 2, 1.0, 1e-6, neighbors, R, seed=None)
    return dc.publish(release)


def test_replace_keeps_the_declared_d_and_n_where_the_old_default_changed_d():
    one, other = (tables.parse_table(buffer(raw)) for raw in (messy_csv(), neighbour_csv()))
    # the old default (leave out every column with a bad cell) left no measurement at all
    with pytest.raises(ValueError, match="every candidate column"):
        one.select(MEASUREMENTS, "species", on_bad="drop_column")
    a = one.select(MEASUREMENTS, "species", on_bad="replace", fill=TYPICAL)
    b = other.select(MEASUREMENTS, "species", on_bad="replace", fill=TYPICAL)
    assert a.X.shape == b.X.shape == (344, 4) and a.rows_dropped == b.rows_dropped == 0
    assert a.schema == b.schema and a.schema.as_dict() == b.schema.as_dict()
    assert a.schema.as_dict() == {
        "columns": MEASUREMENTS,
        "types": {c: "number" for c in MEASUREMENTS},
        "replacement": TYPICAL,
        "label": "species",
        "bad_cells": "replace",
        "declared": True,
    }
    # the count of replaced cells is the data owner's diagnostic: it differs, and only there
    assert a.replaced == {c: 2 for c in MEASUREMENTS} and b.replaced["body_mass_g"] == 3
    assert a.report.set_index("column").loc["body_mass_g", "replaced_by"] == 4200.0
    # each bad cell became its column's public value, row by row
    raw_rows = [line.split(",") for line in messy_csv().decode().splitlines()[1:]]
    for j, c in enumerate(MEASUREMENTS):
        bad = [i for i, r in enumerate(raw_rows) if r[3 + j] in ("NA", "")]
        assert len(bad) == 2 and np.all(a.X[bad, j] == TYPICAL[c])
    assert len(set(a.labels)) == 3


def test_drop_column_on_a_neighbour_changes_d_and_replace_does_not():
    """The issue's case: a clean 300 x 4 table and its neighbour with one empty cell."""
    rng = np.random.default_rng(1)
    rows = [[f"{v:.3f}" for v in r] for r in rng.normal(size=(300, 4)) * [1, 2, 3, 4]]
    clean = to_csv(rows, ["a", "b", "c", "d"])
    rows[7][2] = ""
    holed = to_csv(rows, ["a", "b", "c", "d"])
    dropped = [dc.data.datasets.load_table(buffer(raw), on_bad="drop_column").X.shape for raw in (clean, holed)]
    assert dropped == [(300, 4), (300, 3)]  # the defect: one cell changes d
    rowwise = [dc.data.datasets.load_table(buffer(raw), on_bad="drop_rows").X.shape for raw in (clean, holed)]
    assert rowwise == [(300, 4), (299, 4)]  # and one cell changes n
    cols = ["a", "b", "c", "d"]
    kept = [dc.data.datasets.load_table(buffer(raw), cols, on_bad="replace").X.shape for raw in (clean, holed)]
    assert kept == [(300, 4), (300, 4)]


@pytest.mark.parametrize("mech", ["analyze_gauss", "private_power"])
def test_neighbours_publish_the_same_d_n_and_shapes(mech):
    a, b = (
        dc.data.datasets.load_table(buffer(raw), MEASUREMENTS, "species", on_bad="replace", fill=TYPICAL)
        for raw in (messy_csv(), neighbour_csv())
    )
    pa, pb = published(a.X, mech=mech), published(b.X, mech=mech)
    assert pa["parameters"]["d"] == pb["parameters"]["d"] == 4
    assert pa["parameters"]["n"] == pb["parameters"]["n"] == 344
    assert_same_public_shape(pa, pb)
    assert np.array(pa["components"]).shape == (4, 2)


def test_add_remove_may_leave_rows_out_and_then_publishes_no_n():
    a, b = (
        dc.data.datasets.load_table(buffer(raw), MEASUREMENTS, "species", on_bad="drop_rows")
        for raw in (messy_csv(), neighbour_csv())
    )
    assert a.n_rows == 344 - 8 and b.n_rows == 344 - 9 and a.schema.as_dict()["bad_cells"] == "drop_rows"
    pa, pb = published(a.X, "add_remove"), published(b.X, "add_remove")
    assert "n" not in pa["parameters"] and "n" not in pb["parameters"]
    assert_same_public_shape(pa, pb)


def test_a_declared_column_is_read_as_numbers_whatever_it_holds_in_the_declared_order():
    parsed = tables.parse_table(buffer(messy_csv()))
    order = ["body_mass_g", "island", "bill_length_mm"]
    with pytest.raises(ValueError, match="not numeric"):  # the strict rules still refuse a text column
        parsed.select(order, on_bad="error")
    table = parsed.select(order, on_bad="replace", fill={"island": -1.0})
    assert table.columns == order and table.schema.columns == tuple(order)
    assert np.all(table.X[:, 1] == -1.0) and table.replaced["island"] == 344
    # a column whose cells are mostly text keeps its few numbers when declared
    raw = b"a,b\n1,x\n2,y\n3,5\n4,z\n"
    t = dc.data.datasets.load_table(buffer(raw), ["a", "b"], on_bad="replace")
    assert t.X[:, 1].tolist() == [0.0, 0.0, 5.0, 0.0] and t.replaced == {"a": 0, "b": 3}
    # undeclared: the numeric columns are a suggestion read from the cells, and the schema says so
    suggested = parsed.select(label="species", on_bad="replace")
    assert suggested.columns == ["id", *MEASUREMENTS, "year", "station"] and suggested.schema.declared is False


def test_infinite_cells_are_replaced_like_missing_ones():
    raw = b"a,b\n1,inf\n2,-inf\n3,4\n1e999,5\n"
    t = dc.data.datasets.load_table(buffer(raw), ["a", "b"], on_bad="replace", fill={"b": 2.5})
    assert t.X.tolist() == [[1, 2.5], [2, 2.5], [3, 4], [0, 5]] and t.replaced == {"a": 1, "b": 2}
    assert np.isfinite(t.X).all()


def test_fill_is_checked():
    raw = b"a,b\n1,\n2,3\n"
    with pytest.raises(ValueError, match="needs on_bad='replace'"):
        dc.data.datasets.load_table(buffer(raw), ["a", "b"], fill=1.0)
    with pytest.raises(ValueError, match="not among the features"):
        dc.data.datasets.load_table(buffer(raw), ["a"], on_bad="replace", fill={"b": 1.0})
    with pytest.raises(ValueError, match="finite number"):
        dc.data.datasets.load_table(buffer(raw), ["a", "b"], on_bad="replace", fill={"b": float("nan")})
    assert dc.data.datasets.load_table(buffer(raw), ["a", "b"], on_bad="replace", fill=9).X.tolist() == [[1, 9], [2, 3]]


def test_flags_name_identifier_time_constant_and_text_columns():
    parsed = tables.parse_table(buffer(messy_csv()))
    flags = parsed.flags()
    assert {c: f.kind for c, f in flags.items()} == {
        "id": "identifier",
        "species": "text",
        "island": "text",
        "sex": "text",
        "year": "time",
        "station": "constant",
    }
    assert "row number" in flags["id"].words and "label" in flags["species"].words
    assert parsed.column_report().set_index("column").loc["year", "note"] == flags["year"].words
    # by name, where the cells alone say nothing
    named = tables.parse_table(buffer(b"patientID,visit_date,weight,Sample Number\n7,3,70,12\n2,1,80,4\n5,2,75,9\n"))
    assert {c: f.kind for c, f in named.flags().items()} == {
        "patientID": "identifier",
        "visit_date": "time",
        "Sample Number": "identifier",
    }


# -- the streaming reader: the same rule -----------------------------------------------------------------------


def exact_gram(X, radius=R):
    norms = np.linalg.norm(X, axis=1)
    Y = X * np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None] / radius
    return Y.T @ Y


@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_statistics_replace_the_same_cells_and_keep_n(tmp_path, monkeypatch, workers):
    from dppca_core.data import engines

    monkeypatch.setattr(engines, "PARALLEL_BYTES", 0)  # with two workers, split even this small file between threads
    path, other = tmp_path / "p.csv", tmp_path / "q.csv"
    path.write_bytes(messy_csv())
    other.write_bytes(neighbour_csv())
    table = dc.data.datasets.load_table(path, MEASUREMENTS, on_bad="replace", fill=TYPICAL)
    stats = sufficient_stats(path, MEASUREMENTS, R, on_bad="replace", fill=TYPICAL, chunk_rows=50, workers=workers)
    assert stats.n == 344 and stats.d == 4 and stats.schema == table.schema
    assert np.allclose(stats.gram, exact_gram(table.X), rtol=1e-12, atol=1e-14)
    assert stats.diagnostics["cells_replaced"] == 8 and stats.diagnostics["rows_dropped"] == 0
    assert stats.schema.as_dict()["columns"] == MEASUREMENTS and stats.schema.declared
    neighbour = sufficient_stats(other, MEASUREMENTS, R, on_bad="replace", fill=TYPICAL, chunk_rows=50)
    assert neighbour.n == stats.n and neighbour.schema == stats.schema
    assert neighbour.diagnostics["cells_replaced"] == 9


def test_streaming_reads_a_declared_text_column_as_numbers_and_an_empty_site_as_a_public_site(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("a,b,s\n1,x,p\n3,4,\n5,6,q\n7,y,p\n9,1,q\n")
    stats = sufficient_stats(path, ["a", "b"], 10.0, sites="s", on_bad="replace", fill={"b": 2.0})
    assert stats.n == 5 and stats.site_labels == ("p", NO_SITE, "q") and stats.site_counts.tolist() == [2, 1, 2]
    X = np.array([[1, 2], [3, 4], [5, 6], [7, 2], [9, 1]], dtype=float)
    assert np.allclose(stats.gram, exact_gram(X, 10.0))
    with pytest.raises(ValueError, match="needs on_bad='replace'"):
        sufficient_stats(path, ["a"], 10.0, fill=1.0)


def test_streaming_with_dask_replaces_too(tmp_path):
    pytest.importorskip("dask")
    path = tmp_path / "p.csv"
    path.write_bytes(messy_csv())
    here = sufficient_stats(path, MEASUREMENTS, R, on_bad="replace", fill=TYPICAL)
    there = sufficient_stats(
        path, MEASUREMENTS, R, on_bad="replace", fill=TYPICAL, engine="dask", scheduler="synchronous", chunk_rows=64
    )
    assert there.n == here.n == 344 and np.allclose(there.gram, here.gram, rtol=1e-12, atol=1e-14)
    assert there.diagnostics["cells_replaced"] == 8


def test_header_is_what_the_messy_table_promises():
    assert messy_csv().decode().splitlines()[0].split(",") == HEADER


def test_a_shipped_sample_declares_its_header_and_synthetic_data_have_no_schema():
    from ui import data

    wine = dc.data.datasets.load_sample("wine")
    assert wine.schema.declared and wine.schema.label == "class" and wine.schema.d == 13
    assert wine.schema.as_dict()["bad_cells"] == "error" and wine.schema.as_dict()["replacement"] == {}
    assert data.load_dataset({**_scenario(), "src": "sample:wine"}).schema == wine.schema
    assert data.load_dataset(_scenario()).schema is None


def _scenario():
    from ui import scenario

    return dict(scenario.DEFAULTS)

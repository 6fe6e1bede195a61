"""The budget book (issues 54, 55, 60): spends kept per table in SQLite, composed exactly, under a cap that two
sessions drawing at once cannot both pass, across restarts, and stated with the same arithmetic as the publishable
file's "together"."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import publishable
from dppca_core.book import BudgetBook, OverCap, Spend, book_key, composed, fingerprint
from dppca_core.book.__main__ import main as command
from dppca_core.privacy import PrivacyCurve, gaussian_mu


def _spend(eps=1.0, delta=1e-6, kind="release", session="a"):
    return Spend(kind, "a release", PrivacyCurve.approx(eps, delta), delta, "analyze_gauss", session)


@pytest.fixture
def book(tmp_path):
    the_book = BudgetBook(tmp_path / "book.sqlite")
    the_book.table("t", "survey.csv", {"columns": ["a", "b"], "declared": True})
    return the_book


def test_a_restart_keeps_the_book_and_every_session_sees_the_others(book):
    book.reserve("t", [_spend(session="a")])
    book.reserve("t", [_spend(session="b"), _spend(0.5, session="b")])
    again = BudgetBook(book.path)  # a new process opens the same file
    assert [s.session for s in again.spends("t")] == ["a", "b", "b"]
    assert again.spent("t", session="a").count == 1 and again.spent("t", session="b").count == 2
    assert again.spent("t").epsilon == pytest.approx(2.5) and again.spent("t").delta == pytest.approx(3e-6)


def test_the_cap_holds_under_a_race(book):
    """Twelve sessions draw at once, each ε = 1 against a cap of ε = 5: exactly five are recorded, the others are
    refused in words, and no record is lost or doubled."""
    book.set_cap("t", 5.0, 1e-5)
    outcomes, barrier = [], threading.Barrier(12)

    def draw(i):
        barrier.wait()
        try:
            book.reserve("t", [Spend("release", f"draw {i}", PrivacyCurve.pure(1.0), 0.0, None, str(i))])
            outcomes.append("drawn")
        except OverCap as exc:
            assert "past its cap" in str(exc) and "nothing was drawn" in str(exc)
            outcomes.append("refused")

    threads = [threading.Thread(target=draw, args=(i,)) for i in range(12)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sorted(outcomes).count("drawn") == 5 and len(outcomes) == 12
    assert book.spent("t").count == 5 and book.spent("t").epsilon == pytest.approx(5.0)


def test_a_settled_spend_keeps_the_exact_curve_and_the_total_is_the_files_together(book):
    X = np.random.default_rng(0).normal(size=(400, 4)) * 0.3
    pubs = {}
    for mech in ("analyze_gauss", "private_power"):
        (spend_id,) = book.reserve("t", [_spend(1.0, 1e-6)])
        pubs[mech] = dc.publish(dc.release_pca(mech, X, 2, 1.0, 1e-6, data_norm=1.0))
        book.settle(spend_id, PrivacyCurve.from_dict(pubs[mech]["privacy"]), digest="abc")
    spends = book.spends("t")
    assert all(s.settled and s.digest == "abc" and s.curve.kind == "gdp" for s in spends)
    together = publishable.together(pubs)
    assert book.spent("t").epsilon == pytest.approx(together["epsilon"], rel=1e-12)
    assert book.spent("t").delta == pytest.approx(together["delta"])
    # exact composition: tighter than adding the two epsilons up
    assert book.spent("t").epsilon < 2.0 and spends[0].curve.mu == pytest.approx(gaussian_mu(1.0, 1e-6), rel=1e-6)


def test_the_book_holds_no_row_and_its_ids_need_its_key(tmp_path, monkeypatch):
    monkeypatch.delenv("DPPCA_LEDGER_KEY", raising=False)
    content = b"name,salary\nalice,123456789\n"
    key = book_key(tmp_path / "book.sqlite")
    assert len(key) == 32 and (tmp_path / "book.sqlite.key").stat().st_mode & 0o777 == 0o600
    assert book_key(tmp_path / "book.sqlite") == key  # made once
    table_id = fingerprint(content, key)
    assert table_id != fingerprint(content, b"another key" * 3)
    the_book = BudgetBook(tmp_path / "book.sqlite")
    the_book.table(table_id, "salaries.csv", {"columns": ["salary"]})
    the_book.reserve(table_id, [_spend()])
    raw = (tmp_path / "book.sqlite").read_bytes() + (tmp_path / "book.sqlite-wal").read_bytes()
    assert b"123456789" not in raw and b"alice" not in raw


def test_composed_refuses_nothing_and_counts_a_spend_without_a_guarantee():
    assert composed([]).count == 0 and composed([]).words() == "nothing yet"
    none = Spend("release", "retracted", PrivacyCurve.none(), 0.0)
    assert composed([_spend(), none]).words().endswith("(one stated no guarantee)")


def test_the_command_lists_checks_exports_and_caps(book, capsys):
    book.reserve("t", [_spend()])
    run = ["--book", str(book.path)]
    assert command(run + ["list"]) == 0
    listed = capsys.readouterr().out
    assert "survey.csv" in listed and "ε = 1" in listed and "no cap" in listed
    assert command(run + ["check"]) == 0 and "ok" in capsys.readouterr().out
    assert command(run + ["export"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["name"] == "survey.csv" and rows[0]["privacy"] == {"kind": "approx", "epsilon": 1.0, "delta": 1e-6}
    assert command(run + ["cap", "t", "0.5", "1e-6"]) == 0
    assert command(run + ["check"]) == 1 and "past its cap" in capsys.readouterr().err

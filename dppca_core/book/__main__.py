"""``python -m dppca_core.book``: list, check and export a budget book (see ``--help``)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sqlite3
import sys

from .store import BudgetBook


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dppca_core.book",
        description="What has been spent on each table of a DP-PCA Explorer budget book (a SQLite file).",
    )
    parser.add_argument(
        "--book", default=os.environ.get("DPPCA_LEDGER"), help="the book's file (default: $DPPCA_LEDGER)"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="each table, what has been spent on it (composed exactly) and its cap")
    sub.add_parser("check", help="the file's integrity, every spend readable, every table within its cap")
    export = sub.add_parser("export", help="every spend, as JSON or CSV, on standard output")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--table", help="one table's id")
    cap = sub.add_parser("cap", help="set (or lift, with no values) a table's cap")
    cap.add_argument("table")
    cap.add_argument("epsilon", type=float, nargs="?")
    cap.add_argument("delta", type=float, nargs="?")
    args = parser.parse_args(argv)
    if not args.book:
        parser.error("name the book: --book FILE, or set DPPCA_LEDGER.")
    if args.command != "cap" and not os.path.exists(args.book):
        parser.error(f"no book at {args.book}.")
    book = BudgetBook(args.book)
    return {"list": _list, "check": _check, "export": _export, "cap": _cap}[args.command](book, args)


def _list(book: BudgetBook, args) -> int:
    for t in book.tables():
        cap = t["cap"]
        limit = "no cap" if cap is None else f"cap ε = {cap['epsilon']:g}, δ = {cap['delta']:g}"
        print(f"{t['id'][:12]}  {t['name']}: {book.spent(t['id']).words()}; {limit}")
    return 0


def _check(book: BudgetBook, args) -> int:
    problems = []
    with sqlite3.connect(book.path) as db:
        verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
    if verdict != "ok":
        problems.append(f"the file: {verdict}")
    for t in book.tables():
        try:
            spent = book.spent(t["id"])
        except (ValueError, KeyError) as exc:
            problems.append(f"{t['name']}: a spend cannot be read ({exc})")
            continue
        cap = t["cap"]
        if cap and not (spent.epsilon <= cap["epsilon"] * (1 + 1e-12) and spent.delta <= cap["delta"]):
            problems.append(f"{t['name']}: spent {spent.words()}, past its cap ε = {cap['epsilon']:g}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(book.tables())} table(s) checked: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


def _export(book: BudgetBook, args) -> int:
    rows = book.export(args.table)
    if args.format == "json":
        print(json.dumps(rows, indent=1))
        return 0
    out = io.StringIO()
    fields = ["table", "name", "id", "kind", "what", "mechanism", "privacy", "delta", "session", "created", "version"]
    writer = csv.DictWriter(out, fields + ["digest", "settled"], extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "privacy": json.dumps(row["privacy"])})
    print(out.getvalue(), end="")
    return 0


def _cap(book: BudgetBook, args) -> int:
    book.set_cap(args.table, args.epsilon, args.delta if args.epsilon is not None else None)
    print("cap lifted" if args.epsilon is None else f"cap set: ε = {args.epsilon:g}, δ = {args.delta:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

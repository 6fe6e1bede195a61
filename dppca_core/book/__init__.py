"""The budget book: what has been spent on each table, across sessions and restarts, under a cap
(:mod:`dppca_core.book.store`), and its command line (``python -m dppca_core.book``)."""

from .store import KINDS, BudgetBook, OverCap, Spend, Spent, book_key, composed, fingerprint

__all__ = ["KINDS", "BudgetBook", "OverCap", "Spend", "Spent", "book_key", "composed", "fingerprint"]

"""Tests of dppca_core/data/ (the tests mirror the package layout)."""

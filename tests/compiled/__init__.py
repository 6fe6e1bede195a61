"""Tests of dppca_core/compiled/ (the tests mirror the package layout)."""

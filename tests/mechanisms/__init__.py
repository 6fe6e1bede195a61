"""Tests of dppca_core/mechanisms/ (the tests mirror the package layout)."""

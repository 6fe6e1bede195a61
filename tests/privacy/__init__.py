"""Tests of dppca_core/privacy/ (the tests mirror the package layout)."""

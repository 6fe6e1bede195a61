"""Tests of dppca_core/pipeline/ (the tests mirror the package layout)."""

"""Streamlit-side helpers of the dashboard: scenario state and URL, cached computation, widgets, errors.

This package may import streamlit; ``dppca_core`` never does.
"""

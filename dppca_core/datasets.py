"""Synthetic and real data (being written)."""

"""Compiled inner loops: numba kernels with pure-numpy fallbacks that give the same results (loops: Private Oja's
steps, squared row norms; kernels: fixed-order projections and exactly rounded sums). The lowest layer: imports
nothing from dppca_core.
"""

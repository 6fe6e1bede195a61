"""Data: files read with their public schema (tables), rows scaled, centred and clipped (prepare), the streamed
sufficient statistics of files larger than memory (stats), sites of a distributed table (sites), and the
synthetic data and paper data sets of the experiments (synthetic, datasets). Below the mechanisms, above privacy.
"""

"""The ``dppca-explorer`` command (:mod:`dppca_explorer.cli`): serves the DP-PCA Explorer dashboard from any folder."""

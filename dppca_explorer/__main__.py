"""``python -m dppca_explorer``: the ``dppca-explorer`` command (:mod:`dppca_explorer.cli`)."""

from dppca_explorer.cli import main

main()

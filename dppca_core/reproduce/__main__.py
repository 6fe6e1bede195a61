"""``python -m dppca_core.reproduce``: the command line of :mod:`.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

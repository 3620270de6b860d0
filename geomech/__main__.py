"""``python -m geomech``: the same command as the console script ``geomech``
(see :mod:`geomech.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

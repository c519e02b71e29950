"""`python -m pypto`: the same as the `pypto` command."""

import sys

from pypto_core.cli import main

if __name__ == "__main__":
    sys.exit(main())

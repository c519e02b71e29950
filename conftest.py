"""Test-session setup shared by `tests/` and `plugins/*/tests/`.

pytest-xdist workers inherit `COLUMNS=80` / `LINES=24` from the controller, while a plain run has neither: the
command-line tables (docs/README.md, the command line) fit `COLUMNS` when it is set, so the same test would see
another table under `pytest -n N`. A test that wants a width sets COLUMNS itself."""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

"""Exit codes: 0 ok, 1 program or config rejected, 2 usage error, 3 internal error (DESIGN.md, "Diagnostics")."""

from __future__ import annotations

import os
import traceback

from pypto_core.cli_commands._console import print_error, print_note
from pypto_core.errors import Error, InternalError

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

TRACEBACK_ENV = "PYPTO_TRACEBACK"
REPORT_HINT = ("this is a bug in pypto or in the plugin named above; please report it with the input "
               f"program and configuration (set {TRACEBACK_ENV}=1 for the traceback)")


class UsageError(Exception):
    """Bad command-line usage that argparse cannot see (e.g. `-p` without `no:`)."""


def report(exc: BaseException) -> int:
    """Print `exc` for a user and return the exit code it deserves."""
    from pypto_core.passes.manager import PassVerificationError

    if isinstance(exc, UsageError):
        print_error(str(exc), "usage error")
        return EXIT_USAGE
    if isinstance(exc, PassVerificationError) or isinstance(exc, InternalError):
        print_error(str(exc), "internal error")
        _maybe_traceback(exc)
        print_note(REPORT_HINT)
        return EXIT_INTERNAL
    if isinstance(exc, (ValueError, Error)):  # parser errors, config errors, rejected programs
        print_error(str(exc))
        return EXIT_REJECTED
    if isinstance(exc, OSError):
        print_error(f"{exc.filename or ''}: {exc.strerror or exc}" if exc.filename else str(exc))
        return EXIT_REJECTED
    print_error(f"{type(exc).__name__}: {exc}", "internal error")
    _maybe_traceback(exc)
    print_note(REPORT_HINT)
    return EXIT_INTERNAL


def _maybe_traceback(exc: BaseException) -> None:
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exception(type(exc), exc, exc.__traceback__)

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


NOTES_ATTR = "_pypto_cli_notes"  # extra lines to show after the report (e.g. where the reproducer went)


def add_note(exc: BaseException, note: str) -> None:
    """A line `report` prints after the message and hint of `exc`."""
    try:
        setattr(exc, NOTES_ATTR, [*getattr(exc, NOTES_ATTR, []), note])
    except (AttributeError, TypeError):
        pass


def is_internal(exc: BaseException) -> bool:
    """Whether `report` treats `exc` as pypto's (or a plugin's) bug: exit 3."""
    from pypto_core.passes.manager import PassVerificationError

    if isinstance(exc, (PassVerificationError, InternalError)):
        return True
    return not isinstance(exc, (UsageError, ValueError, Error, OSError))


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
        _print_notes(exc)
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
    _print_notes(exc)
    return EXIT_INTERNAL


def _print_notes(exc: BaseException) -> None:
    from pypto_core.cli_commands._console import stderr_console

    for note in getattr(exc, NOTES_ATTR, []):
        stderr_console().print(f"pypto: note: {note}", markup=False, highlight=False)


def _maybe_traceback(exc: BaseException) -> None:
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exception(type(exc), exc, exc.__traceback__)

"""Exit codes: 0 ok, 1 program or config rejected, 2 usage error, 3 internal error (docs/dsl.md, errors)."""

from __future__ import annotations

import os
import traceback

from pypto_core.cli_commands._console import print_error, print_note
from pypto_core.errors import Error, InternalError, UserError

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

TRACEBACK_ENV = "PYPTO_TRACEBACK"
_REPORT_TAIL = f"please report it with the input program and configuration (set {TRACEBACK_ENV}=1 for the traceback)"
REPORT_HINT = f"this is a bug in pypto or in one of its plugins; {_REPORT_TAIL}"


def report_hint(exc: BaseException) -> str:
    """Who to blame: the plugin that registered the failing pass, named, when it is known."""
    from pypto_core.passes.naming import pass_label, pass_origin
    from pypto_core.passes.runner import failed_step

    failed = failed_step(exc)
    owner = str(getattr(exc, "owner", "") or "")
    label = str(getattr(exc, "pass_label", "") or "")
    dist = ""
    if failed is not None:
        try:
            owner, dist = pass_origin(failed.pass_)
            label = pass_label(failed.pass_)
        except Exception:  # noqa: BLE001 - a message detail only
            pass
    if not owner:
        return REPORT_HINT
    if owner in ("<core>", "<unregistered>"):
        who = "in pypto" if owner == "<core>" else "in pypto or in the code that built the pipeline"
        where = f" (pass '{label}' is not from a plugin)" if label and owner == "<unregistered>" else ""
        return f"this is a bug {who}{where}; {_REPORT_TAIL}"
    source = f"plugin '{owner}'" + (f" ({dist})" if dist else "")
    of_pass = f", which provides pass '{label}'" if label else ""
    return f"this is a bug in pypto or in {source}{of_pass}; {_REPORT_TAIL}"


class UsageError(Exception):
    """Bad command-line usage that argparse cannot see (e.g. `-p` without `no:`)."""


NOTES_ATTR = "_pypto_cli_notes"  # extra lines to show after the report (e.g. where the reproducer went)


def add_note(exc: BaseException, note: str) -> None:
    """A line `report` prints after the message and hint of `exc`."""
    try:
        setattr(exc, NOTES_ATTR, [*getattr(exc, NOTES_ATTR, []), note])
    except (AttributeError, TypeError):
        pass


def _program_error(exc: BaseException) -> bool:
    """A located UserError that is also an InternalError: a program PyPTO rejects with InternalError (an
    Inline function returning from a branch, docs/passes/inline_functions.md) is the user's to fix."""
    return isinstance(exc, UserError)


def is_internal(exc: BaseException) -> bool:
    """Whether `report` treats `exc` as pypto's (or a plugin's) bug: exit 3."""
    from pypto_core.passes.instruments.pipeline_checks import PassVerificationError

    if _program_error(exc):
        return False
    if isinstance(exc, (PassVerificationError, InternalError)):
        return True
    return not isinstance(exc, (UsageError, ValueError, Error, OSError))


def report(exc: BaseException) -> int:
    """Print `exc` for a user and return the exit code it deserves."""
    from pypto_core.passes.instruments.pipeline_checks import PassVerificationError

    if isinstance(exc, UsageError):
        print_error(str(exc), "usage error")
        return EXIT_USAGE
    if isinstance(exc, PassVerificationError) or (isinstance(exc, InternalError) and not _program_error(exc)):
        print_error(str(exc), "internal error")
        _maybe_traceback(exc)
        print_note(report_hint(exc))
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
    print_note(report_hint(exc))
    _print_notes(exc)
    return EXIT_INTERNAL


def _print_notes(exc: BaseException) -> None:
    from pypto_core.cli_commands._console import stderr_console

    for note in getattr(exc, NOTES_ATTR, []):
        stderr_console().print(f"pypto: note: {note}", markup=False, highlight=False)


def _maybe_traceback(exc: BaseException) -> None:
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exception(type(exc), exc, exc.__traceback__)

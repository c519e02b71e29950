"""Terminal output for the CLI: rich tables on stdout, located messages on stderr."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

# rich loads when something is printed through it, not with the command line (docs/architecture.md,
# performance): `pypto compile` of a program that compiles prints plain text and never needs it.

# Off a terminal (pipes, tests) rich would assume 80 columns and wrap table cells mid-name; `COLUMNS`, when
# set, is the width asked for, on a terminal or not.
_PIPE_WIDTH = 200


def columns_from_env() -> int | None:
    """The width `COLUMNS` asks for (a positive integer), else None."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def stdout_width() -> int | None:
    """The width of stdout tables: `COLUMNS`, else the terminal's (None: rich asks it), else 200 in a pipe."""
    asked = columns_from_env()
    if asked is not None:
        return asked
    return None if sys.stdout.isatty() else _PIPE_WIDTH


def stdout_console() -> Console:
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, markup=False, width=stdout_width())


def stderr_console() -> Console:
    from rich.console import Console

    return Console(file=sys.stderr, highlight=False, markup=False, soft_wrap=True)


def print_error(message: str, prefix: str = "error") -> None:
    from rich.text import Text

    stderr_console().print(Text.assemble((f"pypto: {prefix}: ", "bold red"), message))


def print_note(message: str) -> None:
    from rich.text import Text

    stderr_console().print(Text(message, style="dim"))

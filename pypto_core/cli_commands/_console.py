"""Terminal output for the CLI: rich tables on stdout, located messages on stderr."""

from __future__ import annotations

import shutil
import sys

from rich.console import Console
from rich.text import Text

# Off a terminal (pipes, tests) rich would assume 80 columns and wrap table cells mid-name.
_MIN_PIPE_WIDTH = 200


def stdout_console() -> Console:
    is_tty = sys.stdout.isatty()
    width = None if is_tty else max(shutil.get_terminal_size((_MIN_PIPE_WIDTH, 24)).columns, _MIN_PIPE_WIDTH)
    return Console(file=sys.stdout, highlight=False, markup=False, width=width)


def stderr_console() -> Console:
    return Console(file=sys.stderr, highlight=False, markup=False, soft_wrap=True)


def print_error(message: str, prefix: str = "error") -> None:
    stderr_console().print(Text.assemble((f"pypto: {prefix}: ", "bold red"), message))


def print_note(message: str) -> None:
    stderr_console().print(Text(message, style="dim"))

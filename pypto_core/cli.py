"""The `pypto` command. Each subcommand lives in `pypto_core/cli_commands/<name>.py`.

Exit codes: 0 ok, 1 the program or configuration was rejected, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from pypto_core.cli_commands._common import add_plugin_blocking
from pypto_core.cli_commands._errors import report

# Each registers its subcommand; all ship with pypto.
COMMAND_MODULES = ("compile", "check", "list", "run", "docs", "trace", "reduce", "new_plugin")


def version_text() -> str:
    """`pypto 0.1.0`: the installed distribution's version (the source tree's when not installed)."""
    from importlib import metadata

    try:
        version = metadata.version("pypto")
    except metadata.PackageNotFoundError:
        version = "unknown (not installed)"
    return f"pypto {version}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pypto", description="A plugin-based compiler for pl tile programs.")
    parser.add_argument("--version", action="version", version=version_text(), help="print the version and exit")
    add_plugin_blocking(parser, dest="global_blocks")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"pypto_core.cli_commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        return int(args.handler(args))
    except Exception as exc:
        return report(exc)


if __name__ == "__main__":
    sys.exit(main())

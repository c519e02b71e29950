"""The `pypto` command. Each subcommand lives in `pypto_core/cli_commands/<name>.py`.

Exit codes: 0 ok, 1 the program or configuration was rejected, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from typing import Any

from pypto_core.cli_commands._common import add_plugin_blocking
from pypto_core.cli_commands._errors import EXIT_INTERNAL, report

COMMAND_MODULES = ("compile", "check", "list")
# Added by other work when present (`pypto run`, the reference machine).
OPTIONAL_COMMAND_MODULES = ("run", "docs", "trace", "reduce", "new_plugin")


def _register_optional(subparsers: Any, name: str) -> None:
    module_name = f"pypto_core.cli_commands.{name}"
    try:
        if importlib.util.find_spec(module_name) is None:
            return
        importlib.import_module(module_name).register(subparsers)
    except Exception as exc:  # a broken optional command must not take the others down
        parser = subparsers.add_parser(name, help=f"(unavailable: {exc})")
        parser.add_argument("rest", nargs=argparse.REMAINDER)

        def unavailable(args: argparse.Namespace, _exc: Exception = exc) -> int:
            from pypto_core.cli_commands._console import print_error

            print_error(f"the '{name}' command failed to load: {type(_exc).__name__}: {_exc}", "internal error")
            return EXIT_INTERNAL

        parser.set_defaults(handler=unavailable)


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
    for name in OPTIONAL_COMMAND_MODULES:
        _register_optional(subparsers, name)
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

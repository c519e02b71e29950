"""The `pypto` command. Each subcommand lives in `pypto_core/cli_commands/<name>.py`.

Exit codes: 0 ok, 1 the program or configuration was rejected, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

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


def plugins_text(blocked: list[str] | None = None) -> str:
    """The plugins with their distributions and versions (as `pytest --version --version` lists its plugins).

    Once the plugins are loaded in this process, what loaded and what was blocked or failed; otherwise the
    installed ones from their entry-point metadata, none imported: answering `--version` costs no plugin,
    registry or numpy import (docs/architecture.md, performance), and `pypto list plugins` loads them."""
    host_module = sys.modules.get("pypto_core.plugins.host")
    host = getattr(host_module, "_HOST", None)
    if host is not None:
        lines = [f"  {rec.name} ({rec.distribution})" for rec in host.loaded]
        lines += [f"  {b.name} ({b.distribution}): blocked" for b in host.blocked]
        lines += [f"  {f.name} ({f.distribution}): FAILED to load ({f.stage})" for f in host.failures]
        return "plugins:\n" + "\n".join(lines) if lines else "plugins: none"
    from pypto_core.plugins.installed import DISABLE_ENV, plugin_entry_points

    off = set(blocked or ()) | {p.strip() for p in os.environ.get(DISABLE_ENV, "").split(",") if p.strip()}
    lines = [f"  {ep.name} ({dist})" + (": blocked" if ep.name in off else "") for ep, dist in plugin_entry_points()]
    return "plugins:\n" + "\n".join(lines) if lines else "plugins: none"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and the loaded plugins with their distributions, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *_: object) -> None:
        blocked = [spec[3:].strip() for spec in getattr(namespace, "global_blocks", []) if spec.startswith("no:")]
        sys.stdout.write(f"{version_text()}\n{plugins_text(blocked)}\n")
        parser.exit()


class _WholeWordsHelp(argparse.HelpFormatter):
    """Help text wrapped between words only: a pass name or pipeline string is never split mid-word."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pypto", description="A plugin-based compiler for pl tile programs.",
                                     formatter_class=_WholeWordsHelp)
    parser.add_argument("--version", action=_VersionAction)
    add_plugin_blocking(parser, dest="global_blocks")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"pypto_core.cli_commands.{name}").register(subparsers)
    for command in subparsers.choices.values():
        command.formatter_class = _WholeWordsHelp
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        # `pypto list ops --json tile.add`: names after an option (argparse takes a positional list in one run)
        if extra and hasattr(args, "names") and not any(e.startswith("-") for e in extra):
            args.names = [*args.names, *extra]
        elif extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    # A pass's warning reads like the CLI's errors (`pypto: warning: ...`), not like a Python source line.
    formatwarning = warnings.formatwarning
    warnings.formatwarning = _cli_warning
    try:
        return int(args.handler(args))
    except Exception as exc:
        return report(exc)
    finally:
        warnings.formatwarning = formatwarning


def _cli_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 line: str | None = None) -> str:
    return f"pypto: warning: {message}\n"


if __name__ == "__main__":
    sys.exit(main())

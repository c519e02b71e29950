"""Options several subcommands share."""

from __future__ import annotations

import argparse

from pypto_core.cli_commands._errors import UsageError


def add_plugin_blocking(parser: argparse.ArgumentParser, dest: str = "plugin_blocks") -> None:
    parser.add_argument("-p", dest=dest, action="append", default=[], metavar="no:NAME",
                        help="block the plugin NAME (repeatable), as pytest's -p no:NAME")


def blocked_plugins(args: argparse.Namespace) -> list[str]:
    """Plugin names from every `-p no:NAME` given before or after the subcommand."""
    names: list[str] = []
    for spec in list(getattr(args, "global_blocks", [])) + list(getattr(args, "plugin_blocks", [])):
        if not spec.startswith("no:") or not spec[3:].strip():
            raise UsageError(f"-p {spec}: only '-p no:NAME' (block a plugin) is supported")
        names.append(spec[3:].strip())
    return names


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="configuration file (default: ./pypto.toml when present, else built-in defaults)")


def add_pipeline_options(parser: argparse.ArgumentParser) -> None:
    """--config, --pipeline, --backend, --verify: how `compile` and `run` choose the pipeline."""
    from pypto_core.passes.manager import VERIFY_MODES

    add_config_option(parser)
    parser.add_argument("--pipeline", metavar="S", help="passes to run, e.g. 'convert_to_ssa,outline_incore_scopes"
                                                        "{opt=1}' (overrides the config file)")
    parser.add_argument("--backend", metavar="B", help="backend name, e.g. Ascend910B or Ascend950")
    parser.add_argument("--verify", choices=VERIFY_MODES, help="verification level of the pipeline (default: basic)")


def read_program_source(path: str) -> str:
    """The text of a program file; an unreadable, too large or non-UTF-8 file is a user error naming it."""
    from pypto_core.textfile import MAX_PROGRAM_BYTES, read_text_bounded

    return read_text_bounded(path, MAX_PROGRAM_BYTES, "program")

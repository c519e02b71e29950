"""Options several subcommands share."""

from __future__ import annotations

import argparse
from typing import Any

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
    from pypto_core.passes.verification_level import VERIFY_LEVELS

    add_config_option(parser)
    parser.add_argument("--pipeline", metavar="S", help="passes to run, e.g. 'tile,lower_auto_vector_split"
                                                        "{synthesize_regions=true}' (a preset name stands for its "
                                                        "passes; overrides the config file)")
    parser.add_argument("--backend", metavar="B", help="backend name, e.g. Ascend910B or Ascend950")
    parser.add_argument("--verify", choices=VERIFY_LEVELS, help="verification level of the pipeline (default: basic)")


def add_print_options(parser: argparse.ArgumentParser) -> None:
    """The LLVM-style printing flags of `compile` (pypto_core/passes/instruments/print_ir.py)."""
    parser.add_argument("--print-before-all", action="store_true", help="print the program before every pass")
    parser.add_argument("--print-before", action="append", default=[], metavar="NAME",
                        help="print the program before pass NAME (repeatable)")
    parser.add_argument("--print-after-all", action="store_true", help="print the program after every pass")
    parser.add_argument("--print-after", action="append", default=[], metavar="NAME",
                        help="print the program after pass NAME (repeatable)")
    parser.add_argument("--print-after-change", action="store_true",
                        help="print the program after each pass that changed it (= --print-changed)")
    parser.add_argument("--print-changed", nargs="?", const="full", choices=("full", "diff"), metavar="full|diff",
                        help="after each pass that changed the program, print it whole (full, the default) or "
                             "as a unified diff against the pass's input (diff); with --print-after, only "
                             "after those passes")
    parser.add_argument("--filter-func", action="append", default=[], metavar="NAME",
                        help="print options show only function NAME (repeatable; shell patterns like 'main*')")


def print_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The CliOverrides fields of the printing flags."""
    return {"print_after_all": args.print_after_all, "print_after": list(args.print_after),
            "print_after_change": args.print_after_change, "print_before_all": args.print_before_all,
            "print_before": list(args.print_before), "print_changed": args.print_changed,
            "filter_func": list(args.filter_func)}


def read_program_source(path: str) -> str:
    """The text of a program file; an unreadable, too large or non-UTF-8 file is a user error naming it."""
    from pypto_core.textfile import MAX_PROGRAM_BYTES, read_text_bounded

    return read_text_bounded(path, MAX_PROGRAM_BYTES, "program")

"""`pypto compile FILE`: parse a program, run the configured pipeline, print (or write) the result."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pypto_core.cli_commands._common import (
    add_pipeline_options,
    add_plugin_blocking,
    blocked_plugins,
    read_program_source,
)
from pypto_core.cli_commands._errors import EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("compile", help="compile a pl program with the configured pipeline",
                                   description="Parse FILE (never executed), run the pipeline from pypto.toml "
                                               "or --pipeline, and print the program as pl text.")
    parser.add_argument("file", help="a .py file holding one @pl.program or @pl.function")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the result here instead of stdout")
    add_pipeline_options(parser)
    parser.add_argument("--dump-dir", metavar="D", help="write the program before and after every pass to D")
    parser.add_argument("--print-after-all", action="store_true", help="print the program after every pass")
    parser.add_argument("--print-after", action="append", default=[], metavar="NAME",
                        help="print the program after pass NAME (repeatable)")
    parser.add_argument("--print-after-change", action="store_true",
                        help="print the program after each pass that changed it")
    parser.add_argument("--timing", action="store_true", help="print a per-pass timing table")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_compile)


def run_compile(args: argparse.Namespace) -> int:
    from pypto_core.config import CliOverrides, build_pass_manager, load_config, resolve_config
    from pypto_core.ir.function import Function, Program
    from pypto_core.language.api import parse
    from pypto_core.language.printer import python_print

    overrides = CliOverrides(pipeline=args.pipeline, backend=args.backend, verify=args.verify,
                             dump_dir=args.dump_dir, print_after_all=args.print_after_all,
                             print_after=args.print_after, print_after_change=args.print_after_change,
                             timing=args.timing, disable_plugins=blocked_plugins(args))
    # The configuration first: blocking a plugin changes which ops the parser knows.
    resolved = resolve_config(load_config(args.config), overrides)
    source = read_program_source(args.file)
    program = parse(source, args.file)
    if isinstance(program, Function):  # passes transform programs; one function is a program of one
        program = Program([program], program.name, program.span)
    result = build_pass_manager(resolved, stream=sys.stderr).run(program)
    text = python_print(result) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK

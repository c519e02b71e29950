"""`pypto compile FILE`: parse a program, run the configured pipeline, print (or write) the result.

When a pass crashes, breaks the IR or (with `--verify check-run`) changes what the program computes, the
program that pass was given is written, with the rest of the pipeline, to a reproducer file
(pypto_core/reduce/reproducer.py); `pypto compile --replay FILE` reruns it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pypto_core.cli_commands._common import (
    add_pipeline_options,
    add_plugin_blocking,
    add_print_options,
    blocked_plugins,
    print_overrides,
    read_program_source,
)
from pypto_core.cli_commands._errors import EXIT_OK, UsageError, add_note, is_internal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("compile", help="compile a pl program with the configured pipeline",
                                   description="Parse FILE (never executed), run the pipeline from pypto.toml "
                                               "or --pipeline, and print the program as pl text.")
    parser.add_argument("file", nargs="?", help="a .py file holding one @pl.program or @pl.function")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the result here instead of stdout")
    add_pipeline_options(parser)
    parser.add_argument("--dump-dir", metavar="D", help="write the program before and after every pass to D")
    add_print_options(parser)
    parser.add_argument("--timing", action="store_true",
                        help="print a timing table: each pass, then verification, round trip, check-run and "
                             "printing as their own rows, the total and the wall time")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show each pass and each check-run execution on stderr as it starts (default: a "
                             "status line when stderr is a terminal)")
    parser.add_argument("--reproducer", metavar="PATH",
                        help="when a pass fails (crash, broken IR, check-run mismatch), write the reproducer "
                             "here (default: ./pypto-reproducer.py; a file that is not a reproducer is never "
                             "overwritten)")
    parser.add_argument("--no-reproducer", action="store_true", help="write no reproducer when a pass fails")
    parser.add_argument("--replay", metavar="FILE",
                        help="rerun a reproducer: its program through its pipeline, backend, verification "
                             "level and seed (pypto.toml is not read)")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_compile)


def run_compile(args: argparse.Namespace) -> int:
    from pypto_core.config import (
        CliOverrides,
        LoadedConfig,
        PyptoConfig,
        build_pass_manager,
        load_config,
        resolve_config,
    )
    from pypto_core.ir.function import Function, Program
    from pypto_core.language.api import parse
    from pypto_core.language.printer import python_print
    from pypto_core.reduce.reproducer import CHECK_RUN_SEED, ReproducerError, parse_reproducer

    printing = print_overrides(args)
    if args.replay:
        if args.file:
            raise UsageError("--replay FILE reruns a reproducer: give no other program file")
        for flag, value in (("--pipeline", args.pipeline), ("--config", args.config), ("--backend", args.backend),
                            ("--verify", args.verify)):
            if value is not None:
                raise UsageError(f"--replay reruns exactly what the reproducer records: {flag} cannot be "
                                 "combined with it (edit the reproducer's header instead)")
        filename = args.replay
        repro = parse_reproducer(read_program_source(filename), filename)
        if repro.seed != CHECK_RUN_SEED:
            raise ReproducerError(f"{filename}: seed {repro.seed}: this version of pypto makes check-run inputs "
                                  f"with seed {CHECK_RUN_SEED} only")
        loaded = LoadedConfig(PyptoConfig(), f"{filename} (reproducer)")
        overrides = CliOverrides(pipeline=repro.pipeline, backend=repro.backend, verify=repro.verify,
                                 dump_dir=args.dump_dir, timing=args.timing,
                                 disable_plugins=list(dict.fromkeys(repro.disabled_plugins + blocked_plugins(args))),
                                 **printing)
        source = repro.program_text
    else:
        if not args.file:
            raise UsageError("compile: give a program FILE (or --replay REPRODUCER)")
        filename = args.file
        overrides = CliOverrides(pipeline=args.pipeline, backend=args.backend, verify=args.verify,
                                 dump_dir=args.dump_dir, timing=args.timing, disable_plugins=blocked_plugins(args),
                                 **printing)
        loaded = load_config(args.config)
        source = ""
    # The configuration first: blocking a plugin changes which ops the parser knows.
    resolved = resolve_config(loaded, overrides)
    if not args.replay:
        source = read_program_source(filename)
    program = parse(source, filename)
    if isinstance(program, Function):  # passes transform programs; one function is a program of one
        program = Program([program], program.name, program.span)
    manager = build_pass_manager(resolved, stream=sys.stderr, progress=args.progress)
    try:
        result = manager.run(program)
    except Exception as exc:
        if is_internal(exc) and not args.no_reproducer and (not args.replay or args.reproducer):
            _save_reproducer(exc, args.reproducer, resolved.disabled_plugins, filename)
        raise
    text = python_print(result) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _save_reproducer(exc: BaseException, requested: str | None, disabled: list[str], source: str) -> None:
    """Write the reproducer of `exc` and say where; a failure to write it is a note, never a second error."""
    from pypto_core.reduce.reproducer import reproducer_for, write_reproducer

    try:
        repro = reproducer_for(exc, disabled_plugins=disabled, source=source)
        if repro is None:
            return
        path = write_reproducer(repro, requested)
    except Exception as write_exc:  # noqa: BLE001 - the pass's failure is what matters
        add_note(exc, f"could not write a reproducer: {type(write_exc).__name__}: {write_exc}")
        return
    add_note(exc, f"wrote a reproducer of this failure to {path}: the program pass '{repro.failing_pass}' was "
                  f"given and the rest of the pipeline; rerun it with `pypto compile --replay {path}`, shrink it "
                  f"with `pypto reduce {path}`")

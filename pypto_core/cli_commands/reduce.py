"""`pypto reduce FILE`: shrink a program while a failure persists (pypto_core/reduce/).

FILE is a pl program or a reproducer written by `pypto compile`; a reproducer brings its pipeline,
backend, verification level and failure, so `pypto reduce pypto-reproducer.py` needs no other option.
The input is parsed, never executed; the smallest failing program found is written (to -o OUT, else
stdout) -- as a reproducer again when FILE was one, so `pypto compile --replay OUT` reruns it.
"""

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
from pypto_core.cli_commands._errors import EXIT_OK, UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "reduce", help="shrink a program while a pass still fails the same way",
        description="Remove functions, statements, loop trips and scopes and simplify shapes of FILE (a pl "
                    "program or a reproducer) while running the pipeline on it still fails as asked; write "
                    "the smallest program found. FILE is parsed, never executed.")
    parser.add_argument("file", help="a .py file holding a @pl.program, or a reproducer from `pypto compile`")
    add_pipeline_options(parser)
    until = parser.add_mutually_exclusive_group()
    until.add_argument("--until", metavar="TEXT",
                       help="keep programs whose failure message (or its cause's) contains TEXT")
    until.add_argument("--until-mismatch", action="store_true",
                       help="keep programs for which check-run finds that a pass changed the result")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the reduced program here (default: stdout)")
    parser.add_argument("--max-tests", type=int, default=5000, metavar="N",
                        help="stop after N test runs of the pipeline (default: 5000)")
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_reduce)


def run_reduce(args: argparse.Namespace) -> int:
    from pypto_core.config import CliOverrides, LoadedConfig, PyptoConfig, load_config, resolve_config
    from pypto_core.ir.function import as_program
    from pypto_core.language.api import parse
    from pypto_core.reduce.reducer import FailureOracle, NotInteresting, reduce_program
    from pypto_core.reduce.reproducer import MAGIC, Reproducer, parse_reproducer

    if args.max_tests < 1:
        raise UsageError("--max-tests: give a positive number")
    source = read_program_source(args.file)
    repro: Reproducer | None = parse_reproducer(source, args.file) if source.startswith(MAGIC) else None
    if repro is not None:
        if args.config is not None:
            raise UsageError("reduce: a reproducer brings its own configuration; --config cannot be combined "
                             "with it")
        loaded = LoadedConfig(PyptoConfig(), f"{args.file} (reproducer)")
        overrides = CliOverrides(pipeline=args.pipeline or repro.pipeline, backend=args.backend or repro.backend,
                                 verify=args.verify or repro.verify,
                                 disable_plugins=list(dict.fromkeys(repro.disabled_plugins + blocked_plugins(args))))
        until = args.until
        mismatch = bool(args.until_mismatch)
        if not until and not mismatch:
            mismatch = repro.failure == "mismatch"
            until = None if mismatch else (repro.until or repro.message)
    else:
        loaded = load_config(args.config)
        overrides = CliOverrides(pipeline=args.pipeline, backend=args.backend, verify=args.verify,
                                 disable_plugins=blocked_plugins(args))
        until, mismatch = args.until, bool(args.until_mismatch)
        if not until and not mismatch:
            raise UsageError("reduce: say which failure to keep: --until TEXT or --until-mismatch")
    resolved = resolve_config(loaded, overrides)
    program = as_program(parse(source, args.file))
    oracle = FailureOracle(resolved.passes, backend=resolved.backend, verify=resolved.verify, until=until,
                           mismatch=mismatch)
    display = _ProgressDisplay()
    try:
        result = reduce_program(program, oracle, max_tests=args.max_tests, on_progress=display)
    except NotInteresting as exc:
        display.close()
        wanted = "a check-run mismatch" if mismatch else f"a failure containing {until!r}"
        raise NotInteresting(f"{args.file}: {exc}; wanted {wanted}") from None
    display.close()
    text = result.text.rstrip("\n") + "\n"
    if repro is not None:
        repro.program_text = text
        repro.failing_pass = repro.failing_pass or resolved.steps[0].name
        text = repro.text(args.output or "reduced.py")
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    budget = " (stopped by --max-tests)" if result.exhausted else ""
    from pypto_core.cli_commands._console import print_note

    print_note(f"reduce: {result.initial_lines} -> {result.lines} lines, {len(result.steps)} reductions in "
               f"{result.tests} tests{budget}" + (f"; wrote {args.output}" if args.output else ""))
    return EXIT_OK


class _ProgressDisplay:
    """One status line on a terminal (rewritten after each test); a line per reduction otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.drawn = False

    def __call__(self, p: Any) -> None:
        line = (f"reduce: {p.initial_statements} -> {p.statements} statements, {p.tests} tests, "
                f"{p.accepted} reductions [{p.strategy}]")
        if self.tty:
            sys.stderr.write("\r\x1b[K" + line[:200])
            self.drawn = True
        elif p.last_change:
            sys.stderr.write(f"{line}: {p.last_change}\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.drawn = False

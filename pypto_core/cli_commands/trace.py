"""`pypto trace FILE -o trace.html`: run the pipeline and write one self-contained HTML page showing the
program after every pass, its diff against the previous pass, the pass's time, the properties verified
after it and (with `--verify check-run`) its check-run verdict (pypto_core/trace/).

Progress goes to stderr, one line per pass. When a pass fails the page is still written (it shows the
passes up to the failure and the error), then the failure is reported as `pypto compile` reports it.
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

DEFAULT_OUTPUT = "trace.html"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trace", help="write an HTML page showing the program after every pass, with diffs",
        description="Parse FILE (never executed), run the pipeline from pypto.toml or --pipeline and write one "
                    "self-contained HTML page (no network): the program after every pass with a highlighted "
                    "diff against the previous one, each pass's time, the properties verified after it, its "
                    "check-run verdict (--verify check-run), navigation by pass and by function. Passes that "
                    "changed nothing are marked. Progress goes to stderr.")
    parser.add_argument("file", help="a .py file holding one @pl.program or @pl.function")
    parser.add_argument("-o", "--output", metavar="OUT", default=DEFAULT_OUTPUT,
                        help=f"the HTML file to write (default: {DEFAULT_OUTPUT}; '-' for stdout)")
    parser.add_argument("--title", metavar="TEXT", help="the page title (default: 'pypto trace: PROGRAM')")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    add_pipeline_options(parser)
    add_plugin_blocking(parser)
    parser.set_defaults(handler=run_trace)


def _progress_line(step: Any, total: int) -> str:
    width = len(str(total))
    change = "changed" if step.changed else "no change"
    ms = (step.seconds or 0.0) * 1e3
    return f"pypto trace: [{step.index:>{width}}/{total}] {step.label:<28} {ms:9.2f} ms  {change}\n"


def run_trace(args: argparse.Namespace) -> int:
    from pypto_core.config import CliOverrides, build_pass_manager, load_config, resolve_config
    from pypto_core.ir.function import as_program
    from pypto_core.language.api import parse
    from pypto_core.trace import collect_trace, render_html

    if not args.output:
        raise UsageError("trace: -o needs a file name (or '-' for stdout)")
    out = None if args.output == "-" else Path(args.output)
    if out is not None and out.is_dir():
        raise UsageError(f"trace: -o {out}: is a directory; give the HTML file to write")
    overrides = CliOverrides(pipeline=args.pipeline, backend=args.backend, verify=args.verify,
                             disable_plugins=blocked_plugins(args))
    resolved = resolve_config(load_config(args.config), overrides)
    program = as_program(parse(read_program_source(args.file), args.file))
    manager = build_pass_manager(resolved, stream=sys.stderr)

    def progress(step: Any, total: int) -> None:
        if not args.quiet:
            sys.stderr.write(_progress_line(step, total))
            sys.stderr.flush()

    trace = collect_trace(program, manager, source=args.file, backend=resolved.backend, progress=progress)
    page = render_html(trace, title=args.title)
    if out is None:
        sys.stdout.write(page)
    else:
        out.write_text(page, encoding="utf-8")
    if not args.quiet:
        changed = sum(1 for s in trace.steps if s.ran and s.changed)
        where = "stdout" if out is None else str(out)
        ran = sum(1 for s in trace.steps if s.ran)
        sys.stderr.write(f"pypto trace: wrote {where}: {ran} of {len(trace.steps)} passes ran, {changed} changed "
                         f"the program, {trace.total_seconds * 1e3:.0f} ms"
                         + (f"; failed at pass {trace.error_step}" if trace.error is not None else "") + "\n")
    if trace.exception is not None:
        raise trace.exception
    return EXIT_OK

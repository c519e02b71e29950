"""Performance hints (PerfHint diagnostics): a pass says a program compiles but runs slower than it could, and
why (docs/architecture.md, perf hints). Every pass emits them through `perf_hint`, one line each in PyPTO's
format:

    2026-01-01 12:00:00 I | [perf_hint PH-MR-001] MemoryReuse: <message> at <file>:<line>:<col>

The line goes to `<dir>/perf_hints.log` of each `ReportInstrument` in the active PassContext, else to stderr.
A hint never stops compilation.
"""

from __future__ import annotations

import datetime
import sys
from typing import Any


def format_perf_hint(code: str, pass_name: str, message: str, span: Any = None) -> str:
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    where = ""
    if span is not None and getattr(span, "begin_line", -1) >= 0:
        where = f" at {span.filename}:{span.begin_line}:{span.begin_column}"
    return f"{now} I | [perf_hint {code}] {pass_name}: {message}{where}"


def perf_hint(code: str, pass_name: str, message: str, span: Any = None) -> None:
    """Emit the hint `code` of pass `pass_name` (located at `span` when given)."""
    from pypto_core.passes.context import PassContext
    from pypto_core.passes.instruments.report import ReportInstrument

    line = format_perf_hint(code, pass_name, message, span)
    ctx = PassContext.current()
    reports = [i for i in (ctx.instruments if ctx is not None else ()) if isinstance(i, ReportInstrument)]
    for report in dict.fromkeys(reports):  # a pipeline's context repeats its caller's instruments
        report.write_perf_hint(line)
    if not reports:
        sys.stderr.write(line + "\n")

"""Progress of a pipeline run on stderr (`--progress`; docs/README.md, the command line): each pass as it starts,
and the long work inside the run that other instruments report (each check-run execution of the program).

On a terminal the progress is one transient status line that changes in place (a rich status display, gone
when the run ends); elsewhere -- `--progress` into a file or a pipe -- it is one line per step:

    pypto: [3/9] outline_incore_scopes
    pypto: [3/9] check-run: running the program after outline_incore_scopes

Only the outermost passes count as steps: a pass that runs passes itself shows as one.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label


class ProgressInstrument(PassInstrument):
    name = "ProgressInstrument"
    timing_label = None

    def __init__(self, total: int, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        # A live display on a terminal; lines otherwise (or when asked: tests, logs).
        self.live = bool(getattr(self.stream, "isatty", lambda: False)()) if live is None else live
        self.step = 0
        self.depth = 0
        self.current = ""
        self.started = time.perf_counter()
        self._status: Any = None

    def _show(self, text: str) -> None:
        line = f"[{self.step}/{self.total}] {text}"
        if not self.live:
            self.stream.write(f"pypto: {line}\n")
            self.stream.flush()
            return
        if self._status is None:
            from rich.console import Console

            self._status = Console(file=self.stream, stderr=True).status(line)
            self._status.start()
        else:
            self._status.update(line)

    def before_pass(self, p: Any, program: Any) -> None:
        self.depth += 1
        if self.depth == 1:
            self.step += 1
            self.current = pass_label(p)
            self._show(self.current)

    def after_pass(self, p: Any, program: Any) -> None:
        self.depth = max(0, self.depth - 1)

    def on_progress(self, message: str) -> None:
        self._show(message)

    def finish_run(self, program: Any) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        elif not self.live:
            self.stream.write(f"pypto: {self.step} of {self.total} passes done in "
                              f"{time.perf_counter() - self.started:.2f} s\n")
            self.stream.flush()

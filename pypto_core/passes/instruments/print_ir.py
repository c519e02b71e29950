"""Print the program after passes: after all, after the named ones, or only when a pass changed it."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.instruments.dump import pass_label


class PrintAfterInstrument(PassInstrument):
    name = "PrintAfterInstrument"

    def __init__(self, print_all: bool = False, pass_names: Iterable[str] = (), only_changed: bool = False,
                 stream: TextIO | None = None) -> None:
        self.print_all = print_all
        self.pass_names = set(pass_names)
        self.only_changed = only_changed
        self.stream = stream
        self._before_text: str | None = None

    def _selected(self, p: Any) -> bool:
        if self.print_all or (self.only_changed and not self.pass_names):
            return True
        return pass_label(p) in self.pass_names or p.get_name() in self.pass_names

    def before_pass(self, p: Any, program: Any) -> None:
        if self.only_changed and self._selected(p):
            from pypto_core.language.printer import python_print

            self._before_text = python_print(program)

    def after_pass(self, p: Any, program: Any) -> None:
        if not self._selected(p):
            return
        from pypto_core.language.printer import python_print

        text = python_print(program)
        if self.only_changed and text == self._before_text:
            return
        stream = self.stream or sys.stderr
        stream.write(f"# ---- IR after {pass_label(p)} ({p.get_name()}) ----\n{text}\n")
        stream.flush()

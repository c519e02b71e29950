"""Dump the program to a directory: `00_input.py` before the first pass, `NN_<pass>.py` after pass NN.

Each file is printed `pl` text, so it can be read, diffed, or compiled again from that point.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pypto_core.passes.instruments.base import PassInstrument

_DUMP_FILE = re.compile(r"^\d{2,}_[A-Za-z0-9_]+\.py$")


def pass_label(p: Any) -> str:
    """The name users write for a pass (factory name), falling back to its class-level name."""
    return getattr(p, "factory_name", "") or p.get_name()


class IRDumpInstrument(PassInstrument):
    name = "IRDumpInstrument"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.count = 0
        self.written: list[Path] = []

    def _write(self, stem: str, program: Any) -> None:
        from pypto_core.language.printer import python_print

        path = self.directory / f"{stem}.py"
        path.write_text(python_print(program) + "\n", encoding="utf-8")
        self.written.append(path)

    def before_pass(self, p: Any, program: Any) -> None:
        if self.count == 0:
            self.directory.mkdir(parents=True, exist_ok=True)
            for old in self.directory.iterdir():  # files of an earlier run would mislead
                if _DUMP_FILE.match(old.name):
                    old.unlink()
            self._write("00_input", program)

    def after_pass(self, p: Any, program: Any) -> None:
        self.count += 1
        self._write(f"{self.count:02d}_{pass_label(p)}", program)

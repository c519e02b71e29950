"""Dump the program to a directory: `00_input.py` before the first pass, `NN_<pass>.py` after pass NN.

Each file is printed `pl` text, so it can be read, diffed, or compiled again from that point.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pypto_core.errors import UserError
from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label

_DUMP_FILE = re.compile(r"^\d{2,}_[A-Za-z0-9_]+\.py$")


MANIFEST = ".pypto-dump"  # the files the last dump wrote here: the only ones a new dump may remove
HEADER = "# pypto.program"


class IRDumpInstrument(PassInstrument):
    name = "IRDumpInstrument"
    timing_label = "dumps"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.count = 0
        self.written: list[Path] = []
        self._check_directory()  # before any pass runs: a bad directory is the user's, not a pass's

    def _check_directory(self) -> None:
        d = self.directory
        if d.exists() and not d.is_dir():
            raise UserError(f"--dump-dir {d}: not a directory")
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"--dump-dir {d}: cannot create the directory: {exc.strerror or exc}") from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise UserError(f"--dump-dir {d}: the directory is not writable")

    def _write(self, stem: str, program: Any) -> None:
        from pypto_core.language.printer import python_print

        path = self.directory / f"{stem}.py"
        path.write_text(python_print(program) + "\n", encoding="utf-8")
        self.written.append(path)
        (self.directory / MANIFEST).write_text("".join(f"{w.name}\n" for w in self.written), encoding="utf-8")

    def _remove_previous_dump(self) -> None:
        """Files of an earlier dump would mislead; only files that dump listed, and that still hold printed
        programs, are removed (a user's `01_notes.py` in the directory is never touched)."""
        manifest = self.directory / MANIFEST
        if not manifest.is_file():
            return
        for name in manifest.read_text(encoding="utf-8").split():
            old = self.directory / name
            if _DUMP_FILE.match(name) and old.is_file() and _is_dump(old):
                old.unlink()

    def before_pass(self, p: Any, program: Any) -> None:
        if self.count == 0:
            self._remove_previous_dump()
            self._write("00_input", program)

    def after_pass(self, p: Any, program: Any) -> None:
        self.count += 1
        self._write(f"{self.count:02d}_{pass_label(p)}", program)


def _is_dump(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith(HEADER)
    except (OSError, UnicodeDecodeError):
        return False

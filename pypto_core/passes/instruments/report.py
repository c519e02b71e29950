"""`passes.ReportInstrument(output_dir)`: with it in the PassContext, the passes' performance hints are written
to `<output_dir>/perf_hints.log` instead of stderr (PyPTO's report instrument; pypto_core/passes/perf_hints.py).

The directory is created when missing; the log is appended to, never truncated, so a user's earlier log is kept.
A path that is not a writable directory is a ValueError when the instrument is made, before any pass runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from pypto_core.errors import UserError
from pypto_core.passes.instruments.base import PassInstrument

PERF_HINTS_LOG = "perf_hints.log"


class ReportInstrument(PassInstrument):
    name = "ReportInstrument"
    timing_label = "reports"

    def __init__(self, output_dir: str | os.PathLike[str]) -> None:
        self.directory = Path(output_dir)
        self._check_directory()

    def get_output_dir(self) -> str:
        return str(self.directory)

    @property
    def perf_hints_log(self) -> Path:
        return self.directory / PERF_HINTS_LOG

    def _check_directory(self) -> None:
        d = self.directory
        if d.exists() and not d.is_dir():
            raise UserError(f"ReportInstrument: '{d}' is not a directory: give the directory the reports (such as "
                            f"{PERF_HINTS_LOG}) are written to")
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"ReportInstrument: cannot create the report directory '{d}': "
                            f"{exc.strerror or exc}; give a directory you can write to") from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise UserError(f"ReportInstrument: the report directory '{d}' is not writable; give a directory you "
                            f"can write to")
        log = self.perf_hints_log
        if log.exists() and (not log.is_file() or not os.access(log, os.W_OK)):
            raise UserError(f"ReportInstrument: '{log}' exists and is not a writable file; remove it or give "
                            f"another directory")

    def write_perf_hint(self, line: str) -> None:
        """Append one hint line to the log."""
        with open(self.perf_hints_log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

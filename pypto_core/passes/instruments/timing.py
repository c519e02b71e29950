"""Per-pass timing: the transform's own duration (instrument overhead excluded), shown as a table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.table import Table

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label


@dataclass
class PassTime:
    label: str
    seconds: float


class TimingInstrument(PassInstrument):
    name = "TimingInstrument"

    def __init__(self) -> None:
        self.times: list[PassTime] = []

    def after_pass(self, p: Any, program: Any) -> None:
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        self.times.append(PassTime(pass_label(p), ctx.last_run_seconds if ctx is not None else 0.0))

    def table(self) -> Table:
        total = sum(t.seconds for t in self.times) or 1e-12
        table = Table(title="Pass timing")
        table.add_column("#", justify="right")
        table.add_column("pass")
        table.add_column("time (ms)", justify="right")
        table.add_column("share", justify="right")
        for i, t in enumerate(self.times, 1):
            table.add_row(str(i), t.label, f"{t.seconds * 1e3:.3f}", f"{100 * t.seconds / total:.1f}%")
        table.add_row("", "total", f"{sum(t.seconds for t in self.times) * 1e3:.3f}", "100.0%", style="bold")
        return table

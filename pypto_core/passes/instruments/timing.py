"""Per-pass timing: the transform's own duration (instrument overhead excluded), then the time the checks and
instruments took around the passes by kind (verification, round trip, check-run, printing), the total and the
run's wall time, shown as a table (`--timing`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label

if TYPE_CHECKING:
    from rich.table import Table  # loaded when the table is built (docs/architecture.md, performance)


@dataclass
class PassTime:
    label: str
    seconds: float


class TimingInstrument(PassInstrument):
    name = "TimingInstrument"
    timing_label = None

    def __init__(self) -> None:
        self.times: list[PassTime] = []

    def after_pass(self, p: Any, program: Any) -> None:
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        self.times.append(PassTime(pass_label(p), ctx.last_run_seconds if ctx is not None else 0.0))

    def table(self, instrument_seconds: dict[str, float] | None = None, wall_seconds: float | None = None) -> Table:
        """The passes' own times, then the time the checks and instruments took around them (verification,
        round trip, check-run, printing: each its own row, as LLVM's -time-passes shows the verifier), the
        total, and the run's wall time."""
        from rich.table import Table

        others = sorted((instrument_seconds or {}).items(), key=lambda kv: -kv[1])
        passes_total = sum(t.seconds for t in self.times)
        total = passes_total + sum(seconds for _, seconds in others)
        whole = max(wall_seconds or 0.0, total) or 1e-12
        table = Table(title="Pass timing")
        table.add_column("#", justify="right")
        table.add_column("pass / work")
        table.add_column("time (ms)", justify="right")
        table.add_column("share", justify="right")
        for i, t in enumerate(self.times, 1):
            table.add_row(str(i), t.label, f"{t.seconds * 1e3:.3f}", f"{100 * t.seconds / whole:.1f}%")
        table.add_row("", "passes", f"{passes_total * 1e3:.3f}", f"{100 * passes_total / whole:.1f}%", style="bold")
        for label, seconds in others:
            table.add_row("", label, f"{seconds * 1e3:.3f}", f"{100 * seconds / whole:.1f}%")
        table.add_row("", "total", f"{total * 1e3:.3f}", f"{100 * total / whole:.1f}%", style="bold")
        if wall_seconds is not None:
            table.add_row("", "wall time of the run", f"{wall_seconds * 1e3:.3f}", "100.0%", style="bold")
        return table

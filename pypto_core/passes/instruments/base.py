"""The instrument interface: `before_pass(pass, program)` and `after_pass(pass, program)` around each pass, and
`finish_run(program)` once after a PassManager run (docs/architecture.md, the pass manager)."""

from __future__ import annotations

from typing import Any


class PassInstrument:
    """Base of instruments; subclasses override the hooks they need."""

    name = "PassInstrument"
    # The row of `--timing` that the time spent in this instrument's hooks is added to ("verification",
    # "check-run", ...); None: the time is left out (the timing instrument itself).
    timing_label: str | None = "other instruments"

    def get_name(self) -> str:
        return self.name

    def before_pass(self, p: Any, program: Any) -> None:
        """Runs before the transform, with its input."""

    def after_pass(self, p: Any, program: Any) -> None:
        """Runs after the transform, with its result."""

    def on_progress(self, message: str) -> None:
        """Long work inside another instrument or pass says what it is doing (PassContext.report)."""

    def finish_run(self, program: Any) -> None:
        """Runs once when a PassManager run that assembled this instrument ends, with its result, or, when a
        pass failed, the last program reached (a summary, a warning about the whole run, closing a display)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

"""The instrument interface: `before_pass(pass, program)` and `after_pass(pass, program)` around each pass, and
`finish_run(program)` once after a PassManager run (docs/architecture.md, the pass manager)."""

from __future__ import annotations

from typing import Any


class PassInstrument:
    """Base of instruments; subclasses override the hooks they need."""

    name = "PassInstrument"

    def get_name(self) -> str:
        return self.name

    def before_pass(self, p: Any, program: Any) -> None:
        """Runs before the transform, with its input."""

    def after_pass(self, p: Any, program: Any) -> None:
        """Runs after the transform, with its result."""

    def finish_run(self, program: Any) -> None:
        """Runs once after the last pass of a PassManager run that assembled this instrument, with the
        result (a summary or a warning about the whole run belongs here)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

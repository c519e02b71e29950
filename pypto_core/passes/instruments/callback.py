"""CallbackInstrument: an instrument made of two optional callables `(pass, program)` (docs/architecture.md, the pass manager)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pypto_core.passes.instruments.base import PassInstrument

Callback = Callable[[Any, Any], None]


class CallbackInstrument(PassInstrument):
    def __init__(self, before_pass: Callback | None = None, after_pass: Callback | None = None,
                 name: str = "CallbackInstrument") -> None:
        self.name = name
        self._before = before_pass
        self._after = after_pass

    def before_pass(self, p: Any, program: Any) -> None:
        if self._before is not None:
            self._before(p, program)

    def after_pass(self, p: Any, program: Any) -> None:
        if self._after is not None:
            self._after(p, program)

"""PassContext and running a pass with the active context's instruments (API.md 5.2).

Minimal version: a thread-local stack of contexts, each with instruments exposing
`before_pass(pass, program)` / `after_pass(pass, program)`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pypto_core.ir.function import Program
    from pypto_core.passes.pass_base import Pass

_LOCAL = threading.local()


def _stack() -> list[PassContext]:
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


class PassContext:
    def __init__(self, instruments: Sequence[Any] = (), verification_level: Any = None, **options: Any) -> None:
        self.instruments = list(instruments)
        self.verification_level = verification_level
        self.options = options
        self.backend: Any = options.get("backend")

    def __enter__(self) -> PassContext:
        _stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _stack().pop()

    @staticmethod
    def current() -> PassContext | None:
        stack = _stack()
        return stack[-1] if stack else None

    def get_instruments(self) -> list[Any]:
        return list(self.instruments)

    def get_verification_level(self) -> Any:
        return self.verification_level


def run_pass(p: Pass, program: Program) -> Program:
    ctx = PassContext.current()
    instruments = ctx.instruments if ctx is not None else []
    for inst in instruments:
        inst.before_pass(p, program)
    result = p.run(program, ctx if ctx is not None else PassContext())
    for inst in instruments:
        inst.after_pass(p, result)
    return result

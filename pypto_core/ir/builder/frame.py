"""The base of the builder's contexts (docs/ir_builder.md, the model): entering pushes the context on
the builder's stack, leaving pops it and builds its node."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from pypto_core.ir.span import Span
from pypto_core.ir.stmt import Stmt

if TYPE_CHECKING:
    from pypto_core.ir.builder.ir_builder import IRBuilder


class BuilderFrame:
    """One context: a program, function, loop, if or scope being built.

    `with` is the only way to open and close one; `get_result()` gives the node after the block. A block
    left by an exception builds nothing (the builder's stack is restored, the exception propagates).
    """

    kind = "context"  # "program", "function", "for loop", "while loop", "if", "scope"
    holds_statements = True

    def __init__(self, builder: IRBuilder, span: Span) -> None:
        self._builder = builder
        self.span = span
        self._state = "new"  # new -> open -> done (or failed)
        self._result: Any = None

    # -- the with block -----------------------------------------------------------------------------------
    def __enter__(self) -> Any:
        if self._state != "new":
            raise RuntimeError(f"this {self.describe()} was already entered: each builder context is used once; "
                               f"call the IRBuilder method again for a new one")
        self._begin()
        self._builder._push(self)
        self._state = "open"
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        self._builder._pop(self)
        self._state = "failed"  # until the node is built: a check failing in _finish leaves it failed
        if exc_type is not None:
            return False
        self._result = self._finish()
        self._state = "done"
        return False

    # -- what subclasses define ---------------------------------------------------------------------------
    def _begin(self) -> None:
        """Checks made when the block opens (the stack does not hold this context yet)."""

    def _finish(self) -> Any:
        """Build the node when the block closes (the stack no longer holds this context)."""
        raise NotImplementedError

    def add_stmt(self, stmt: Stmt) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.kind} at {self.span.to_string()}"

    # -- shared ---------------------------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        return self._state == "open"

    def _require_open(self, method: str) -> None:
        if self._state != "open":
            when = "before its with block" if self._state == "new" else "after its with block closed"
            raise RuntimeError(f"{method}() of the {self.describe()} was called {when}; call it inside "
                               f"`with ...:` of that {self.kind}")

    def _require_done(self, method: str) -> None:
        if self._state != "done":
            raise RuntimeError(f"The {self.describe()} is not complete: call {method}() after its with block "
                               f"has closed")

    def get_result(self) -> Any:
        """The node this context built (after its with block)."""
        self._require_done("get_result")
        return self._result

"""Frames of compiled functions: every Var of a function gets a slot in a Python list.

Slot 0 holds the EvalContext of the frame, so that a compiled closure `f(frame)` reaches the
machine, the lane and the core group without extra arguments. Control flow leaves a body through
signals returned by statement closures (None means "go on").
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.expr import Var


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()


class Released:
    """What a slot holds once the popped tile it held was released by a tfree (fifo.release_popped): the FIFO
    slot is the producer's again, so reading the tile is an error. Passing the handle on (a yield, a copy
    `h = v`) is not a read: the marker travels with it."""

    __slots__ = ("op", "span")

    def __init__(self, op: str, span: Any) -> None:
        self.op = op
        self.span = span
BREAK: Any = object()
CONTINUE: Any = object()


class Return:
    """A `return` (or a function-level yield) leaving the function with its values."""

    __slots__ = ("values",)

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.values = values


class Slots:
    """Var -> slot index for one function (identity-keyed: a Var is an identity, not a name)."""

    def __init__(self) -> None:
        self._index: dict[int, int] = {}
        self.vars: list[Var | None] = [None]  # slot 0: the EvalContext

    def __call__(self, var: Var) -> int:
        slot = self._index.get(id(var))
        if slot is None:
            slot = self._index[id(var)] = len(self.vars)
            self.vars.append(var)
        return slot

    def reserve(self) -> int:
        """A slot no var owns (bookkeeping of the frame itself)."""
        self.vars.append(None)
        return len(self.vars) - 1

    def lookup(self, var: Var) -> int | None:
        """The slot of a var already bound in this function, or None."""
        return self._index.get(id(var))

    def __len__(self) -> int:
        return len(self.vars)

    def name(self, slot: int) -> str:
        var = self.vars[slot]
        return var.name_hint if var is not None else "<context>"

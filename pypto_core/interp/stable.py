"""Which tensor parameters stay unchanged while a function runs (so that a tile read from one may be a view).

A tile is a value: `tile.load` gives a snapshot of the tensor window. A numpy view of the window is
the same snapshot as long as nothing writes the tensor's memory while the view can still be read.
That holds, for one invocation of a function, for a parameter that is

* read-only here (static): each occurrence of its Var in the body is an operand of an op call whose
  effect on that operand is READ and whose result is not a tensor (a tensor result could be a view
  through which the op's user writes); no assignment, no function call, no return takes it. And the
  function returns no tile, so that no tile outlives the invocation (a caller may write afterwards);
* not written through an alias (at entry): its array shares no memory with another argument the
  function may write (`machine.run(inputs={"a": x, "out": x})`);
* not shared with concurrent code: the invocation is not a coroutine of a core group or of AIV
  lanes (another task could write an aliasing tensor between two of its ops).

Such a parameter is bound in the frame as a read-only view of the argument, so every window taken
of it is read-only too: an op that mutated an operand in place (which the evaluate contract forbids)
fails loudly instead of corrupting the tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.types import TensorType, TileType, TupleType, Type
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import op_registry


def _has_tile(t: Any) -> bool:
    if isinstance(t, TileType):
        return True
    if isinstance(t, TupleType):
        return any(_has_tile(x) for x in t.types)
    return False


def _tensor_result(t: Type | None) -> bool:
    if isinstance(t, TensorType):
        return True
    if isinstance(t, TupleType):
        return any(_tensor_result(x) for x in t.types)
    return False


class _Uses(IRVisitor):
    """Counts, per tracked Var, all its occurrences and those that are read-only op operands."""

    def __init__(self, tracked: Sequence[E.Var]) -> None:
        self.ids = {id(v) for v in tracked}
        self.total: dict[int, int] = {}
        self.reads: dict[int, int] = {}
        self.returns_tile = False
        self._carry_depth = 0  # > 0 inside a construct whose yields feed its carries

    def visit_var(self, var: E.Var) -> None:
        if id(var) in self.ids:
            self.total[id(var)] = self.total.get(id(var), 0) + 1
        self.visit_var_like(var)

    def visit_iter_arg(self, var: E.IterArg) -> None:
        if id(var) in self.ids:  # a parameter cannot be a carry; count it anyway
            self.total[id(var)] = self.total.get(id(var), 0) + 1
        super().visit_iter_arg(var)

    def visit_call(self, call: E.Call) -> None:
        if not isinstance(call.op, E.GlobalVar) and any(id(a) in self.ids for a in call.args):
            opdef = op_registry().find_opdef(call.op.name)
            if opdef is not None and not _tensor_result(call.type):
                for i, a in enumerate(call.args):
                    if id(a) in self.ids and opdef.arg_effect(i, call.kwargs) is Effect.READ:
                        self.reads[id(a)] = self.reads.get(id(a), 0) + 1
        self.visit_node(call)

    # -- tiles leaving the function ---------------------------------------------------------------
    def visit_return_stmt(self, stmt: S.ReturnStmt) -> None:
        self.returns_tile = self.returns_tile or any(_has_tile(v.type) for v in stmt.value)
        self.visit_node(stmt)

    def visit_yield_stmt(self, stmt: S.YieldStmt) -> None:
        if self._carry_depth == 0:  # a function-level yield is a return (stmts.py)
            self.returns_tile = self.returns_tile or any(_has_tile(v.type) for v in stmt.value)
        self.visit_node(stmt)

    def _carrying(self, stmt: S.Stmt, carries: bool) -> None:
        self._carry_depth += carries
        try:
            self.visit_node(stmt)
        finally:
            self._carry_depth -= carries

    def visit_for_stmt(self, stmt: S.ForStmt) -> None:
        self._carrying(stmt, bool(stmt.iter_args))

    def visit_while_stmt(self, stmt: S.WhileStmt) -> None:
        self._carrying(stmt, bool(stmt.iter_args))

    def visit_if_stmt(self, stmt: S.IfStmt) -> None:
        self._carrying(stmt, bool(stmt.return_vars))


def read_only_params(func: Function) -> tuple[int, ...]:
    """Indices of the tensor parameters the function only reads (see the module doc); () if it returns a tile."""
    tensors = [p for p in func.params if isinstance(p.type, TensorType)]
    if not tensors or any(_has_tile(t) for t in func.return_types):
        return ()
    uses = _Uses(tensors)
    uses.visit_stmt(func.body)
    if uses.returns_tile:
        return ()
    return tuple(i for i, p in enumerate(func.params)
                 if isinstance(p.type, TensorType) and uses.total.get(id(p), 0) == uses.reads.get(id(p), 0))


def stable_params(read_only: Sequence[int], args: Sequence[Any]) -> list[int]:
    """The read-only parameters whose arrays share no memory with another argument the function may write."""
    ro = set(read_only)
    written = [a for i, a in enumerate(args) if i not in ro and isinstance(a, np.ndarray)]
    return [i for i in read_only
            if isinstance(args[i], np.ndarray) and not any(np.may_share_memory(args[i], w) for w in written)]


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A view of `array` that cannot be written (nor can any view taken from it)."""
    view = array.view()
    view.flags.writeable = False
    return view

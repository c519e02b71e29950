"""Nested calls that run on another core than the statement holding them (docs/passes/expand_mixed_kernel.md, placement).

The split places whole statements, so `c = tile.add(tile.move(tile.matmul(l, r), target_memory=Vec), bias)`
must first become `c_move_matmul = tile.matmul(l, r)`, `c_move = tile.move(c_move_matmul, ...)` (a boundary:
the AIC pushes the named product, the AIV pops it) and `c = tile.add(c_move, bias)`. A nested call is bound to its own statement when it is a
boundary (MIXED) or its sides and the sides it would run on inline are disjoint (CUBE inside VECTOR work or
the other way round); SHARED work stays inline wherever it is. A boundary's operand runs on the producer's
side.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel.sides import AIC_ONLY, AIV_ONLY, BOTH, Sides, sides_of
from pypto_plugins.pass_split.vector_split.auto_path import crossing


def producer_sides(call: E.Call) -> Sides:
    """Where a boundary's operand is computed: the cube for C->V, the AIV lanes for V->C."""
    opdef = opdef_of(call)
    kind = (opdef.traits.split_boundary if opdef is not None else None) or crossing(call)
    return AIV_ONLY if kind == "v2c" else AIC_ONLY


def _is_op_call(e: E.Expr) -> bool:
    return isinstance(e, E.Call) and type(e.op) is E.Op


def _own_sides(call: E.Call) -> Sides | None:
    return sides_of(classify_call_affinity(call))


class Hoister:
    def __init__(self, fresh: FreshNames) -> None:
        self.fresh = fresh

    def stmt(self, s: S.AssignStmt | S.EvalStmt, sides: Sides | None) -> list[S.Stmt]:
        """The statement, preceded by the nested calls it cannot keep inline; `sides`: where it runs (None:
        a boundary)."""
        value = s.value if isinstance(s, S.AssignStmt) else s.expr
        if not _is_op_call(value):
            return [s]
        base = user_base(s.var) if isinstance(s, S.AssignStmt) else ""
        pre: list[S.Stmt] = []
        if sides is None:  # a boundary: the producer pushes a named tile
            new = self._bound_source(value, pre, base)  # type: ignore[arg-type]
        else:
            new = self._args(value, sides, pre, base)  # type: ignore[arg-type]
        if new is value:
            return [s]
        return pre + [s.with_fields(value=new) if isinstance(s, S.AssignStmt) else s.with_fields(expr=new)]

    def _bound_source(self, call: E.Call, pre: list[S.Stmt], base: str) -> E.Call:
        source = call.args[0] if call.args else None
        if not _is_op_call(source):
            return self._args(call, producer_sides(call), pre, base)
        value = self._args(source, producer_sides(call), pre, base)  # type: ignore[arg-type]
        short = source.op.name.rsplit(".", 1)[-1]  # type: ignore[union-attr]
        var = E.Var(self.fresh(f"{base}_{short}" if base else short), value.type, source.span)
        pre.append(S.AssignStmt(var, value, source.span))
        return call.with_fields(args=(var, *call.args[1:]))  # type: ignore[return-value]

    def _args(self, call: E.Call, inline: Sides, pre: list[S.Stmt], base: str) -> E.Call:
        args = [self._expr(a, inline, pre, base) for a in call.args]
        if all(a is b for a, b in zip(args, call.args)):
            return call
        return call.with_fields(args=tuple(args))  # type: ignore[return-value]

    def _expr(self, e: E.Expr, inline: Sides, pre: list[S.Stmt], base: str) -> E.Expr:
        if isinstance(e, E.MakeTuple):
            items = [self._expr(x, inline, pre, base) for x in e.elements]
            return e if all(a is b for a, b in zip(items, e.elements)) else e.with_fields(elements=tuple(items))
        if not _is_op_call(e):
            return e
        own = _own_sides(e)  # type: ignore[arg-type]
        if own is not None and own & inline:
            return self._args(e, inline if own == BOTH else own, pre, base)  # type: ignore[arg-type]
        if own is None:  # a nested boundary: bound, with its source named as well
            value = self._bound_source(e, pre, base)  # type: ignore[arg-type]
        else:
            value = self._args(e, own, pre, base)  # type: ignore[arg-type]
        short = e.op.name.rsplit(".", 1)[-1]  # type: ignore[union-attr]
        var = E.Var(self.fresh(f"{base}_{short}" if base else short), value.type, e.span)
        pre.append(S.AssignStmt(var, value, e.span))
        return var

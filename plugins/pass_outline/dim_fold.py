"""Fold `pl.tensor.dim(a, k)` onto the `pl.dynamic` symbol of a's declared axis k (seed 000, promotion).

Only in a function being promoted to Orchestration, only for a parameter whose declared extent at a
constant axis is a program-level dynamic symbol: the same fold the parser applies to Orchestration
bodies, so both paths give the same IR (and the printed program re-parses to itself). The binding of
the folded read disappears; constant extents, runtime axes and other symbols stay as written.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.scalar_ops import loop_var_dtype, rebuild
from pypto_core.ir.types import ScalarType, TensorType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_outline.walk import OrderedWalk


def _dynamic_axes(func: F.Function) -> dict[tuple[int, int], E.Var]:
    local: set[int] = {id(p) for p in func.params}
    OrderedWalk(lambda v: None, lambda v: local.add(id(v))).stmt(func.body)
    axes: dict[tuple[int, int], E.Var] = {}
    for p in func.params:
        if isinstance(p.type, TensorType):
            for k, d in enumerate(p.type.shape):
                if isinstance(d, E.Var) and id(d) not in local:
                    axes[(id(p), k)] = d
    return axes


class _FoldDims(IRMutator):
    def __init__(self, axes: dict[tuple[int, int], E.Var]) -> None:
        self.axes = axes

    def visit_call(self, call: E.Call) -> E.Expr:
        opdef = opdef_of(call)
        if opdef is not None and opdef.traits.extent_query and len(call.args) == 2:
            tensor, axis = call.args
            if isinstance(tensor, E.Var) and isinstance(axis, E.ConstInt):
                rank = len(getattr(tensor.type, "shape", ()))
                k = axis.value + rank if axis.value < 0 else axis.value
                hit = self.axes.get((id(tensor), k))
                if hit is not None:
                    return hit
        return self.visit_node(call)


class _Repromote(IRMutator):
    """Substitute the folded bindings and re-derive scalar dtypes (INT64 `dim` reads become INDEX symbols),
    so the result is what the parser builds for the same text."""

    def __init__(self, aliases: dict[E.Var, E.Expr]) -> None:
        self.aliases = {id(k): v for k, v in aliases.items()}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.aliases.get(id(var), var)

    def visit_binary_expr(self, e: E.BinaryExpr) -> E.Expr:
        left, right = self.visit_expr(e.left), self.visit_expr(e.right)
        if left is e.left and right is e.right:
            return e
        return rebuild(e, left, right)

    def visit_unary_expr(self, e: E.UnaryExpr) -> E.Expr:
        operand = self.visit_expr(e.operand)
        return e if operand is e.operand else rebuild(e, operand)

    def visit_for_stmt(self, s: S.ForStmt) -> S.Stmt:
        start, stop, step = (self.visit_expr(b) for b in (s.start, s.stop, s.step))
        if start is not s.start or stop is not s.stop or step is not s.step:
            # The parser types the loop variable from its bounds: follow it.
            dtype = loop_var_dtype(start, stop, step)
            if dtype is not s.loop_var.type.dtype:
                self.aliases[id(s.loop_var)] = E.Var(s.loop_var.name_hint, ScalarType(dtype), s.loop_var.span)
        return self.visit_node(s)


def fold_param_dims(func: F.Function) -> F.Function:
    axes = _dynamic_axes(func)
    if not axes:
        return func
    symbols = {id(v) for v in axes.values()}
    folded = _FoldDims(axes).visit_stmt(func.body)
    if folded is func.body:
        return func
    aliases: dict[E.Var, E.Expr] = {}

    def drop_bindings(stmt: S.Stmt) -> S.Stmt:
        kept: list[S.Stmt] = []
        for s in flatten_to_stmts(stmt):
            if isinstance(s, S.AssignStmt) and isinstance(s.value, E.Var) and id(s.value) in symbols:
                aliases[s.var] = s.value
                continue
            kept.append(s)
        return make_body(kept, stmt.span)

    kept = drop_bindings(folded)  # fills `aliases`
    body = _Repromote(aliases).visit_stmt(kept)
    return F.Function(func.name, list(zip(func.params, func.param_directions)), func.return_types, body, func.span,
                      func.func_type, func.level, func.role, func.attrs, func.requires_runtime_binding)

"""Fold `pl.tensor.dim(a, k)` onto the `pl.dynamic` symbol of a's declared axis k (docs/passes/outline_incore_scopes.md, function types).

Only in a function being promoted to Orchestration, only for a parameter whose declared extent at a
constant axis is a program-level dynamic symbol: the same fold the parser applies to Orchestration
bodies (everywhere in the body: loops, ifs and scopes included), so both paths give the same IR and the
printed program re-parses to itself. A folded read bound to a name leaves no binding behind (docs/passes/outline_incore_scopes.md,
function types): every use of the name -- in expressions and in types (a slice's valid shape) -- becomes
the symbol. Constant extents, runtime axes and other symbols stay as written.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.scalar_ops import loop_var_dtype, rebuild
from pypto_core.ir.types import ScalarType, TensorType
from pypto_core.ir.utils import Substituter, flatten_to_stmts, make_body
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_outline.walk import OrderedWalk

Axes = dict[tuple[int, int], E.Var]


def _dynamic_axes(func: F.Function) -> Axes:
    local: set[int] = {id(p) for p in func.params}
    OrderedWalk(lambda v: None, lambda v: local.add(id(v))).stmt(func.body)
    axes: Axes = {}
    for p in func.params:
        if isinstance(p.type, TensorType):
            for k, d in enumerate(p.type.shape):
                if isinstance(d, E.Var) and id(d) not in local:
                    axes[(id(p), k)] = d
    return axes


def _folded(e: E.Expr, axes: Axes) -> E.Var | None:
    """The symbol a `tensor.dim(param, k)` call folds onto, if it is one."""
    opdef = opdef_of(e) if isinstance(e, E.Call) else None
    if opdef is None or not opdef.traits.extent_query or len(e.args) != 2:  # type: ignore[union-attr]
        return None
    tensor, axis = e.args  # type: ignore[union-attr]
    if not isinstance(tensor, E.Var) or not isinstance(axis, E.ConstInt):
        return None
    rank = len(getattr(tensor.type, "shape", ()))
    k = axis.value + rank if axis.value < 0 else axis.value
    return axes.get((id(tensor), k))


def _drop_bindings(stmt: S.Stmt | None, axes: Axes, aliases: dict[E.Var, E.Expr]) -> S.Stmt | None:
    """`stmt` without the assignments of folded reads, at any depth; `aliases` maps each dropped name to
    its symbol."""
    if stmt is None:
        return None
    kept: list[S.Stmt] = []
    for s in flatten_to_stmts(stmt):
        symbol = _folded(s.value, axes) if isinstance(s, S.AssignStmt) else None
        if symbol is not None:
            aliases[s.var] = symbol  # type: ignore[union-attr]
            continue
        if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            s = s.with_fields(body=_drop_bindings(s.body, axes, aliases))
        elif isinstance(s, S.IfStmt):
            s = s.with_fields(then_body=_drop_bindings(s.then_body, axes, aliases),
                              else_body=_drop_bindings(s.else_body, axes, aliases))
        kept.append(s)
    return make_body(kept, stmt.span)


class _Refold(Substituter):
    """Fold the remaining reads, substitute the dropped names (types included) and re-derive scalar
    dtypes where the symbol's dtype is not the read's, so the result is what the parser builds."""

    def __init__(self, axes: Axes, aliases: dict[E.Var, E.Expr]) -> None:
        super().__init__(aliases)
        self.axes = axes

    def visit_call(self, call: E.Call) -> E.Expr:
        symbol = _folded(call, self.axes)
        return symbol if symbol is not None else self.visit_node(call)

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
                self.mapping[id(s.loop_var)] = E.Var(s.loop_var.name_hint, ScalarType(dtype), s.loop_var.span)
        return self.visit_node(s)


def fold_param_dims(func: F.Function) -> F.Function:
    axes = _dynamic_axes(func)
    if not axes:
        return func
    aliases: dict[E.Var, E.Expr] = {}
    kept = _drop_bindings(func.body, axes, aliases)
    body = _Refold(axes, aliases).visit_stmt(kept)
    if body is func.body:
        return func
    return F.Function(func.name, list(zip(func.params, func.param_directions)), func.return_types, body, func.span,
                      func.func_type, func.level, func.role, func.attrs, func.requires_runtime_binding)

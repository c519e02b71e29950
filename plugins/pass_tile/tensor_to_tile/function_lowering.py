"""Lowering the tensor ops of one InCore function to tile ops (ConvertTensorToTileOps, issue 8).

Every tensor-typed value the kernel computes becomes a tile; tensors that stay are the ones in global
memory (GM): parameters, and what a store into one of them returns. Each tensor op is replaced by its
registry tile form (pypto_core.ops.tile_form), which asks this object for the tiles of its operands:

* a parameter that the function never writes (direction In) is loaded whole once, at the top of the
  function, so the load sits outside every loop and `pl.split_aiv` region (seed 003, "区域外契约");
* any other GM tensor (a written parameter, a store's result, a carried output) is loaded right
  before the statement that reads it: a store may have changed the buffer since.

Loop carries and if merges take a tile when any of their inputs is one; a GM input of such a carry is
loaded. Loads carry no `target_memory`: InferTileMemorySpace picks the space from the consumers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ir.utils import flatten_to_stmts, free_vars_in_order, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.build import to_tuple
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_tile.names import FreshNames, base_name

PASS = "ConvertTensorToTileOps"


def _dims(tensor: TensorType) -> tuple[list[E.Expr], list[E.Expr]]:
    """(shape, valid extents) of a whole-tensor read."""
    view = tensor.tensor_view
    valid = list(view.valid_shape) if view is not None and view.valid_shape else list(tensor.shape)
    return list(tensor.shape), valid


def _zeros(rank: int) -> E.MakeTuple:
    return E.MakeTuple([E.ConstInt(0) for _ in range(rank)])


class _Exprs(IRMutator):
    """Rewrites the expressions of one statement: substituted variables, lowered tensor-op calls."""

    def __init__(self, owner: FunctionLowering) -> None:
        self.owner = owner

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.owner.subst.get(id(var), var)

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        return self.owner.subst.get(id(var), var)

    def visit_call(self, call: E.Call) -> E.Expr:
        args = [self.visit_expr(a) for a in call.args]
        changed = any(a is not b for a, b in zip(args, call.args))
        opdef = opdef_of(call)
        if opdef is not None and (opdef.is_tensor_op or (changed and opdef.tile_form is not None)):
            return self.owner.lower_tensor_op(call, args)
        if not changed:
            return call
        if opdef is None:  # a call of a function: its signature is the callee's business
            return call.with_fields(args=tuple(args))
        return self.owner.rebuild(call, args)


class FunctionLowering:
    """Lowers one InCore function; implements pypto_core.ops.tile_form.TileLowering for tile forms."""

    def __init__(self, func: F.Function, cache_policy: Mapping[int, int]) -> None:
        self.func = func
        self.read_only = {id(p) for p, d in zip(func.params, func.param_directions) if d is ParamDirection.In}
        self.cache_of = {id(func.params[i]): policy for i, policy in cache_policy.items()}
        self.subst: dict[int, E.Expr] = {}
        self.entry_loads: dict[int, E.Var] = {}
        self.entry_stmts: list[S.Stmt] = []
        self.pending: list[S.Stmt] = []
        self.span = func.span
        self.exprs = _Exprs(self)
        self.fresh = FreshNames(func)

    # -- the TileLowering interface --------------------------------------------------------------
    def is_gm(self, operand: E.Expr) -> bool:
        return isinstance(operand.type, TensorType)

    def tile(self, operand: E.Expr) -> E.Expr:
        t = operand.type
        if isinstance(t, TileType):
            return operand
        if not isinstance(t, TensorType):
            raise InternalError(f"{PASS}: asked for the tile of a {t} value")
        if isinstance(operand, E.Var) and id(operand) in self.read_only:
            return self._entry_load(operand, t)
        shape, valid = _dims(t)
        return self.bind(self.load(operand, _zeros(len(shape)), shape, valid), f"{base_name(operand)}_tile")

    def load(self, tensor: E.Expr, offsets: Any, shapes: Any, valid_shape: Any = None,
             clamp: bool = False) -> E.Expr:
        shape_t = to_tuple(shapes)
        valid_t = shape_t if valid_shape is None else to_tuple(valid_shape)
        kwargs: dict[str, Any] = {}
        if clamp:
            kwargs["clamp"] = True
        policy = self.cache_of.get(id(tensor))
        if policy is not None:
            kwargs["cache"] = policy
        return self.call("tile.load", [tensor, to_tuple(offsets), shape_t, valid_t], kwargs)

    def call(self, op: str, args: Sequence[E.Expr], kwargs: Mapping[str, Any] | None = None) -> E.Call:
        try:
            return create_op_call(op, list(args), dict(kwargs or {}), span=self.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: cannot build {op} in InCore function '{self.func.name}': {exc}",
                            self.span) from None

    def bind(self, value: E.Expr, name_hint: str) -> E.Var:
        var = E.Var(self.fresh(name_hint), value.type, self.span)
        self.pending.append(S.AssignStmt(var, value, self.span))
        return var

    # -- expressions -----------------------------------------------------------------------------
    def _entry_load(self, param: E.Var, t: TensorType) -> E.Var:
        var = self.entry_loads.get(id(param))
        if var is None:
            shape, valid = _dims(t)
            value = self.load(param, _zeros(len(shape)), shape, valid)
            var = E.Var(self.fresh(f"{base_name(param)}_tile"), value.type, param.span)
            self.entry_loads[id(param)] = var
            self.entry_stmts.append(S.AssignStmt(var, value, param.span))
        return var

    def lower_tensor_op(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        opdef = opdef_of(call)
        assert opdef is not None
        form = opdef.tile_form
        staged = call.with_fields(args=tuple(args))  # typed as the tensor op was: tile forms read it
        if form is None:
            kinds = ", ".join(str(a.type) for a in args) or "no operands"
            raise UserError(f"{PASS}: {call.op.name} has no tile form, so InCore function '{self.func.name}' "
                            f"cannot be lowered to tile ops (operands: {kinds}); compute it outside the "
                            f"pl.at scope, or register a tile form for it (OpDef.tile_form)", call.span)
        try:
            return form.apply(self, staged)  # type: ignore[arg-type]
        except UserError:
            raise
        except (TypeError, ValueError) as exc:
            kinds = ", ".join(str(a.type) for a in args)
            raise UserError(f"{PASS}: cannot lower {call.op.name}({kinds}) in InCore function "
                            f"'{self.func.name}': {exc}", call.span) from None

    def rebuild(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        """A tile / system op whose operands changed, typed again."""
        try:
            rebuilt = create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: {call.op.name} no longer type-checks once its tensor operands are tiles "
                            f"({exc}); write it on the tensor values before they are computed on chip",
                            call.span) from None
        return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt

    def expr(self, e: E.Expr, span: Any) -> E.Expr:
        self.span = span
        return self.exprs.visit_expr(e)

    # -- variables -------------------------------------------------------------------------------
    def define(self, var: E.Var, new_type: Type) -> E.Var:
        """The variable a definition binds: the old one when its type holds, else a retyped copy."""
        if not isinstance(new_type, TileType) or new_type is var.type:
            return var
        if isinstance(var.type, TileType) and structural_equal(var.type, new_type):
            return var
        new = E.Var(var.name_hint, new_type, var.span)
        self.subst[id(var)] = new
        return new

    def take_pending(self) -> list[S.Stmt]:
        out, self.pending = self.pending, []
        return out

    # -- statements ------------------------------------------------------------------------------
    def body(self, stmt: S.Stmt) -> S.Stmt:
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(stmt):
            out.extend(self.stmt(s))
        return make_body(out, stmt.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt):
            value = self.expr(s.value, s.span)
            var = self.define(s.var, value.type)
            if var is s.var and value is s.value:
                return [*self.take_pending(), s]
            return [*self.take_pending(), S.AssignStmt(var, value, s.span, s.leading_comments)]
        if isinstance(s, S.EvalStmt):
            value = self.expr(s.expr, s.span)
            return [*self.take_pending(), s if value is s.expr else S.EvalStmt(value, s.span, s.leading_comments)]
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            values = [self.expr(v, s.span) for v in s.value]
            if all(a is b for a, b in zip(values, s.value)):
                return [*self.take_pending(), s]
            return [*self.take_pending(), type(s)(values, s.span, s.leading_comments)]
        if isinstance(s, S.ForStmt):
            return self.for_stmt(s)
        if isinstance(s, S.WhileStmt):
            return self.while_stmt(s)
        if isinstance(s, S.IfStmt):
            return self.if_stmt(s)
        if isinstance(s, S.ScopeStmt):
            return [s.with_fields(body=self.body(s.body))]  # type: ignore[list-item]
        if isinstance(s, S.SeqStmts):
            return [self.body(s)]
        return [s]

    def _carries(self, iter_args: Sequence[E.IterArg], inits: list[E.Expr], as_tile: list[bool]) -> list[E.IterArg]:
        out: list[E.IterArg] = []
        for ia, init, tile in zip(iter_args, inits, as_tile):
            value = self.tile(init) if tile else init
            new = ia if value is ia.initValue and value.type is ia.type else \
                E.IterArg(ia.name_hint, value.type, value, ia.span)
            if new is not ia:
                self.subst[id(ia)] = new
            out.append(new)
        return out

    def _carried_body(self, iter_args: Sequence[E.IterArg], inits: list[E.Expr], body: S.Stmt,
                      header: Any) -> tuple[list[E.IterArg], S.Stmt, list[S.Stmt]]:
        """Lower a loop body, making a carry a tile when its init or its yielded value is one."""
        as_tile = [isinstance(i.type, TileType) for i in inits]
        while True:
            before = list(self.pending)
            new_iter_args = self._carries(iter_args, inits, as_tile)
            prefix = self.take_pending()
            if header is not None:
                header()
            lowered = self.body(body)
            stmts = flatten_to_stmts(lowered)
            yielded = stmts[-1].value if stmts and isinstance(stmts[-1], S.YieldStmt) else ()
            grow = [i for i, v in enumerate(yielded) if i < len(as_tile) and isinstance(v.type, TileType)
                    and not as_tile[i]]
            if not grow:
                break
            for i in grow:
                as_tile[i] = True
            self.pending = before
        return new_iter_args, self._yield_tiles(stmts, as_tile), prefix

    def _yield_tiles(self, stmts: list[S.Stmt], as_tile: list[bool]) -> S.Stmt:
        """A yield of a GM value into a tile carry loads it first (inside the body)."""
        if not stmts or not isinstance(stmts[-1], S.YieldStmt):
            return make_body(stmts)
        last = stmts[-1]
        self.span = last.span
        values = [self.tile(v) if i < len(as_tile) and as_tile[i] and isinstance(v.type, TensorType) else v
                  for i, v in enumerate(last.value)]
        if all(a is b for a, b in zip(values, last.value)):
            return make_body(stmts)
        return make_body([*stmts[:-1], *self.take_pending(), S.YieldStmt(values, last.span, last.leading_comments)])

    def _return_vars(self, old: Sequence[E.Var], body: S.Stmt) -> list[E.Var]:
        stmts = flatten_to_stmts(body)
        yielded = stmts[-1].value if stmts and isinstance(stmts[-1], S.YieldStmt) else ()
        return [self.define(rv, yielded[i].type) if i < len(yielded) else rv for i, rv in enumerate(old)]

    def for_stmt(self, s: S.ForStmt) -> list[S.Stmt]:
        start, stop, step = (self.expr(e, s.span) for e in (s.start, s.stop, s.step))
        inits = [self.expr(ia.initValue, s.span) for ia in s.iter_args]
        pre = self.take_pending()
        iter_args, body, prefix = self._carried_body(s.iter_args, inits, s.body, None)
        return_vars = self._return_vars(s.return_vars, body)
        loop = s.with_fields(start=start, stop=stop, step=step, iter_args=tuple(iter_args), body=body,
                             return_vars=tuple(return_vars))
        return [*pre, *prefix, loop]  # type: ignore[list-item]

    def while_stmt(self, s: S.WhileStmt) -> list[S.Stmt]:
        inits = [self.expr(ia.initValue, s.span) for ia in s.iter_args]
        pre = self.take_pending()
        conditions: list[E.Expr] = []

        def header() -> None:
            conditions.append(self.expr(s.condition, s.span))
            if self.pending:
                raise UserError(f"{PASS}: the condition of this while loop reads a tensor; compute the "
                                f"condition from scalars (pl.tensor.read a value first)", s.span)

        iter_args, body, prefix = self._carried_body(s.iter_args, inits, s.body, header)
        return_vars = self._return_vars(s.return_vars, body)
        loop = s.with_fields(condition=conditions[-1], iter_args=tuple(iter_args), body=body,
                             return_vars=tuple(return_vars))
        return [*pre, *prefix, loop]  # type: ignore[list-item]

    def if_stmt(self, s: S.IfStmt) -> list[S.Stmt]:
        condition = self.expr(s.condition, s.span)
        pre = self.take_pending()
        then_body = self.body(s.then_body)
        else_body = self.body(s.else_body) if s.else_body is not None else None
        branches = [flatten_to_stmts(b) for b in (then_body, else_body) if b is not None]
        as_tile = [False] * len(s.return_vars)
        for stmts in branches:
            if stmts and isinstance(stmts[-1], S.YieldStmt):
                for i, v in enumerate(stmts[-1].value[:len(as_tile)]):
                    as_tile[i] = as_tile[i] or isinstance(v.type, TileType)
        then_body = self._yield_tiles(flatten_to_stmts(then_body), as_tile)
        if else_body is not None:
            else_body = self._yield_tiles(flatten_to_stmts(else_body), as_tile)
        return_vars = self._return_vars(s.return_vars, then_body)
        new = s.with_fields(condition=condition, then_body=then_body, else_body=else_body,
                            return_vars=tuple(return_vars))
        return [*pre, new]  # type: ignore[list-item]

    # -- the function ----------------------------------------------------------------------------
    def run(self) -> S.Stmt:
        body = self.body(self.func.body)
        # A loop lowered twice (a carry that turned out to be a tile) may have asked for a load it
        # no longer uses.
        used = {id(v) for v in free_vars_in_order([body])}
        loads = [s for s in self.entry_stmts if id(s.var) in used]  # type: ignore[attr-defined]
        return make_body([*loads, *flatten_to_stmts(body)], self.func.body.span)

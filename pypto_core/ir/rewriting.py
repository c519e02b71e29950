"""A statement walk that retypes variables: the frame of passes that rewrite calls and retype tiles.

A subclass says how one call is rewritten (`rewrite_call`); the walk substitutes variables, binds
helper statements a rewrite asks for right before the statement, gives a definition a retyped copy of
its variable when its value's tile type changed, and carries types through loops (a carry takes its
init's type, a loop result its yielded value's) and if merges (`merged_type` of the branches' yields).
Hooks let a pass keep per-block state (`enter_block` / `exit_block`), rewrite loop inits
(`loop_init`) and look at a loop body once it is lowered (`after_loop_body`).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TileType, TupleType, Type
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator


class _Exprs(IRMutator):
    def __init__(self, owner: BodyRewriter) -> None:
        # A weak reference: the rewriter owns this walker, and a cycle between them would keep the
        # rewriter (and the function it rewrites) alive until the garbage collector runs.
        self._owner = weakref.ref(owner)

    @property
    def owner(self) -> BodyRewriter:
        owner = self._owner()
        assert owner is not None, "the expression walker outlived its BodyRewriter"
        return owner

    def visit_var(self, var: E.Var) -> E.Expr:
        return self._owner().subst.get(id(var), var)  # type: ignore[union-attr]

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        return self._owner().subst.get(id(var), var)  # type: ignore[union-attr]

    def visit_call(self, call: E.Call) -> E.Expr:
        args = [self.visit_expr(a) for a in call.args]
        return self.owner.rewrite_call(call, args, None)


def _holds_tiles(t: Type) -> bool:
    return isinstance(t, TileType) or (isinstance(t, TupleType) and any(_holds_tiles(e) for e in t.types))


def trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None


class BodyRewriter:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.subst: dict[int, E.Expr] = {}
        self.pending: list[S.Stmt] = []
        self.span: Any = func.span
        self.exprs = _Exprs(self)
        self.fresh = FreshNames(func)

    # -- what a subclass decides ---------------------------------------------------------------
    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        """The call with its (already rewritten) operands; `result` is the variable it is bound to."""
        if all(a is b for a, b in zip(args, call.args)):
            return call
        return call.with_fields(args=tuple(args))

    def enter_block(self) -> None:
        """A statement block begins (a function, loop or branch body, a region)."""

    def exit_block(self) -> None:
        """The block that began last ends."""

    def loop_init(self, ia: E.IterArg, span: Any) -> E.Expr:
        return self.expr(ia.initValue, span)

    def after_loop_body(self, s: S.ForStmt | S.WhileStmt, iter_args: list[E.IterArg], body: S.Stmt) -> S.Stmt:
        return body

    def merged_type(self, types: Sequence[Type]) -> Type:
        """The type of a merge of values of these types (a loop result, an if merge)."""
        return types[0]

    # -- helpers ---------------------------------------------------------------------------------
    def bind(self, value: E.Expr, name_hint: str) -> E.Var:
        """Bind a helper value to a new variable (a name the function does not use yet) before the statement."""
        var = E.Var(self.fresh(name_hint), value.type, self.span)
        self.pending.append(S.AssignStmt(var, value, self.span))
        return var

    def define(self, var: E.Var, new_type: Type) -> E.Var:
        """The variable a definition binds: the old one when its type holds, else a retyped copy.

        Only tiles (and tuples of them) are retyped: a scalar keeps the dtype its definition declared (an
        INT64 variable bound to an INDEX dim, say)."""
        if new_type is var.type or not _holds_tiles(new_type) or structural_equal(new_type, var.type):
            return var
        new = E.Var(var.name_hint, new_type, var.span)
        self.subst[id(var)] = new
        return new

    def expr(self, e: E.Expr, span: Any, result: E.Var | None = None) -> E.Expr:
        self.span = span
        if isinstance(e, E.Call):
            return self.rewrite_call(e, [self.exprs.visit_expr(a) for a in e.args], result)
        return self.exprs.visit_expr(e)

    def take_pending(self) -> list[S.Stmt]:
        out, self.pending = self.pending, []
        return out

    # -- statements ------------------------------------------------------------------------------
    def body(self, stmt: S.Stmt) -> S.Stmt:
        self.enter_block()
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(stmt):
            out.extend(self.stmt(s))
        self.exit_block()
        return make_body(out, stmt.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt):
            value = self.expr(s.value, s.span, s.var)
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
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            return self.loop(s)
        if isinstance(s, S.IfStmt):
            return self.if_stmt(s)
        if isinstance(s, S.ScopeStmt):
            return [s.with_fields(body=self.body(s.body))]  # type: ignore[list-item]
        if isinstance(s, S.SeqStmts):
            return [self.body(s)]
        return [s]

    def carries(self, iter_args: Sequence[E.IterArg], inits: Sequence[E.Expr]) -> list[E.IterArg]:
        out: list[E.IterArg] = []
        for ia, init in zip(iter_args, inits):
            new = ia if init is ia.initValue and init.type is ia.type else \
                E.IterArg(ia.name_hint, init.type, init, ia.span)
            if new is not ia:
                self.subst[id(ia)] = new
            out.append(new)
        return out

    def merged(self, return_vars: Sequence[E.Var], bodies: Sequence[S.Stmt | None]) -> list[E.Var]:
        yields = [y.value for y in (trailing_yield(b) for b in bodies) if y is not None]
        out: list[E.Var] = []
        for i, rv in enumerate(return_vars):
            types = [values[i].type for values in yields if i < len(values)]
            out.append(self.define(rv, self.merged_type(types)) if types else rv)
        return out

    def loop_header(self, s: S.ForStmt | S.WhileStmt) -> dict[str, E.Expr]:
        if isinstance(s, S.ForStmt):
            return {k: self.expr(getattr(s, k), s.span) for k in ("start", "stop", "step")}
        return {}

    def loop(self, s: S.ForStmt | S.WhileStmt) -> list[S.Stmt]:
        header = self.loop_header(s)
        iter_args = self.carries(s.iter_args, [self.loop_init(ia, s.span) for ia in s.iter_args])
        pre = self.take_pending()
        if isinstance(s, S.WhileStmt):
            header["condition"] = self.expr(s.condition, s.span)
            pre += self.take_pending()
        body = self.after_loop_body(s, iter_args, self.body(s.body))
        return_vars = self.merged(s.return_vars, [body])
        return [*pre, s.with_fields(iter_args=tuple(iter_args), body=body, return_vars=tuple(return_vars),
                                    **header)]  # type: ignore[list-item]

    def if_stmt(self, s: S.IfStmt) -> list[S.Stmt]:
        condition = self.expr(s.condition, s.span)
        pre = self.take_pending()
        then_body = self.body(s.then_body)
        else_body = self.body(s.else_body) if s.else_body is not None else None
        return self.if_result(s, condition, pre, then_body, else_body)

    def if_result(self, s: S.IfStmt, condition: E.Expr, pre: list[S.Stmt], then_body: S.Stmt,
                  else_body: S.Stmt | None) -> list[S.Stmt]:
        return_vars = self.merged(s.return_vars, [then_body, else_body])
        return [*pre, s.with_fields(condition=condition, then_body=then_body, else_body=else_body,
                                    return_vars=tuple(return_vars))]  # type: ignore[list-item]

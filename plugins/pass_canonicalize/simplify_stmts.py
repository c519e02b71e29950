"""Simplify's statement walk over one function (docs/passes/simplify.md, statements).

One analyzer per function, with scoped facts: what a loop body or a branch learns (a variable's
bounds, a branch condition) is forgotten when it ends. Scalar constants bound once at the function's
top level are substituted into every later use; ifs and loops decided by the bounds are folded.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, free_vars_in_order, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.literal_operands import is_literal, with_literal_operands
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_canonicalize.int_bounds import Bounds, BoundsOf, int_dtype, variable_default
from pypto_plugins.pass_canonicalize.simplify_exprs import ExprSimplifier, prove

Stmts = list[S.Stmt]
_CONSTANTS = (E.ConstInt, E.ConstFloat, E.ConstBool)
_OPAQUE_SCOPES = (S.SpmdScopeStmt,)  # a body that runs more than once per entry: not the top level


class _TypeSimplifier(IRMutator):
    """The expressions a type embeds (shape dims, strides, valid shapes), simplified."""

    def __init__(self, owner: FunctionSimplifier) -> None:
        self.owner = owner

    def _mutate_value(self, value: Any) -> Any:
        if isinstance(value, E.Expr):
            return self.owner.expr(value)
        return super()._mutate_value(value)


class FunctionSimplifier:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        defs = Counter(id(v) for v in [*func.params, *collect_def_vars(func.body)])
        self.assigned_once = {k for k, n in defs.items() if n == 1}
        self.subst: dict[int, E.Expr] = {}          # a variable's replacement: a constant, a lifted value, a retyped copy
        self.frames: list[dict[int, Bounds]] = [{}]  # known bounds, innermost last
        self.fact_frames: list[list[E.Expr]] = [[]]  # conditions known to hold, innermost last
        self.bounds = BoundsOf(self.known_bounds)
        self.simplifier = ExprSimplifier(lambda v: self.subst.get(id(v)), self.bounds)
        self.types = _TypeSimplifier(self)

    # -- scoped knowledge ---------------------------------------------------------------------------
    def known_bounds(self, var: E.Var) -> Bounds | None:
        for frame in reversed(self.frames):
            if id(var) in frame:
                return frame[id(var)]
        return None

    def learn_bounds(self, var: E.Var, bounds: Bounds | None) -> None:
        dtype = int_dtype(var)
        if bounds is None or dtype is None or id(var) not in self.assigned_once:
            return
        known = self.known_bounds(var)
        bounds = bounds.meet(known if known is not None else variable_default(dtype))
        if bounds.lo <= bounds.hi:
            self.frames[-1][id(var)] = bounds

    def facts(self) -> list[E.Expr]:
        return [f for frame in self.fact_frames for f in frame]

    def assume(self, cond: E.Expr) -> None:
        """Inside a branch: the condition holds; a comparison of a variable with a bounded side narrows it."""
        self.fact_frames[-1].append(cond)
        if isinstance(cond, E.And):
            self.assume(cond.left)
            self.assume(cond.right)
            return
        if not isinstance(cond, (E.Lt, E.Le, E.Eq)) or int_dtype(cond.left) is None:
            return
        a, b = self.bounds(cond.left), self.bounds(cond.right)
        if a is None or b is None:
            return
        strict = 1 if isinstance(cond, E.Lt) else 0
        if isinstance(cond.left, E.Var):
            self.learn_bounds(cond.left, Bounds(b.lo if isinstance(cond, E.Eq) else a.lo, b.hi - strict))
        if isinstance(cond.right, E.Var):
            self.learn_bounds(cond.right, Bounds(a.lo + strict, a.hi if isinstance(cond, E.Eq) else b.hi))

    def push(self) -> None:
        self.frames.append({})
        self.fact_frames.append([])

    def pop(self) -> None:
        self.frames.pop()
        self.fact_frames.pop()

    # -- expressions and types ----------------------------------------------------------------------
    def expr(self, e: E.Expr) -> E.Expr:
        if isinstance(e, E.Call):
            return self.call(e)
        if isinstance(e, (E.BinaryExpr, E.UnaryExpr, E.Var, E.MakeTuple)):
            if isinstance(e, E.MakeTuple):
                elements = [self.expr(x) for x in e.elements]
                return e if all(a is b for a, b in zip(elements, e.elements)) else E.MakeTuple(elements, e.span)
            return self.simplifier(e)
        if isinstance(e, E.TupleGetItemExpr):
            inner = self.expr(e.tuple)
            return e if inner is e.tuple else E.TupleGetItemExpr(inner, e.index, e.span)
        return e

    def call(self, call: E.Call) -> E.Expr:
        args = [self.expr(a) for a in call.args]
        kwargs = {k: self.value(v) for k, v in call.kwargs.items()}
        typ = self.type(call.type)
        if all(a is b for a, b in zip(args, call.args)) and typ is call.type and \
                all(kwargs[k] is v for k, v in call.kwargs.items()):
            new = call
        else:
            new = self.literal_operands(call, call.with_fields(args=tuple(args), kwargs=kwargs, type=typ))
        return self.view_of_the_whole(new)

    @staticmethod
    def literal_operands(call: E.Call, new: E.Call) -> E.Call:
        """A folded operand prints as a literal: it takes the form the op's DSL gives a literal there, so the
        program reads back the same; where a literal cannot stand (it would change the call's type), an operand
        that names no variable stays unfolded (docs/passes/simplify.md, "Folded operands")."""
        folded = [i for i, (a, b) in enumerate(zip(new.args, call.args))
                  if a is not b and is_literal(a) and not is_literal(b)]
        rebuilt = with_literal_operands(new, folded)
        if rebuilt is not None:
            return rebuilt
        kept = {i for i in folded if not free_vars_in_order([call.args[i]])}
        if not kept:
            return new
        return new.with_fields(args=tuple(call.args[i] if i in kept else a for i, a in enumerate(new.args)))

    @staticmethod
    def view_of_the_whole(call: E.Call) -> E.Expr:
        """A view of its one operand that changes nothing (the same type) is the operand (the op's
        `aliases_operand` trait: its result is a view of operand 0)."""
        opdef = opdef_of(call)
        if opdef is None or not opdef.traits.aliases_operand or len(call.args) != 1 or opdef.cross_core_role:
            return call
        from pypto_core.ir.structural import structural_equal

        operand = call.args[0]
        return operand if structural_equal(call.type, operand.type) else call

    def value(self, v: Any) -> Any:
        if isinstance(v, E.Expr):
            return self.expr(v)
        if isinstance(v, (list, tuple)):
            items = [self.value(x) for x in v]
            return v if all(a is b for a, b in zip(items, v)) else type(v)(items)
        return v

    def type(self, t: T.Type) -> T.Type:
        return self.types.visit_type(t) if t.has_vars else t

    def binder(self, var: E.Var) -> E.Var:
        """The variable a definition binds: a copy with the simplified type when its type changes."""
        found = self.subst.get(id(var))
        if isinstance(found, E.Var) and found.name_hint == var.name_hint and not isinstance(var, E.IterArg):
            return found
        typ = self.type(var.type)
        if typ is var.type:
            return var
        new = E.Var(var.name_hint, typ, var.span)
        self.subst[id(var)] = new
        return new

    # -- statements ---------------------------------------------------------------------------------
    def run(self) -> F.Function:
        body = make_body(self.block(self.func.body, top_level=True), self.func.body.span)
        return self.func.with_fields(body=body)

    def block(self, stmt: S.Stmt | None, top_level: bool) -> Stmts:
        out: Stmts = []
        for s in flatten_to_stmts(stmt):
            out.extend(self.stmt(s, top_level))
        return out

    def scoped_block(self, stmt: S.Stmt | None, assume: E.Expr | None = None,
                     loop_var: tuple[E.Var, Bounds] | None = None) -> Stmts:
        self.push()
        if assume is not None:
            self.assume(assume)
        if loop_var is not None:
            self.learn_bounds(*loop_var)
        try:
            return self.block(stmt, top_level=False)
        finally:
            self.pop()

    def stmt(self, s: S.Stmt, top_level: bool) -> Stmts:
        if isinstance(s, S.AssignStmt):
            return self.assign(s, top_level)
        if isinstance(s, S.EvalStmt):
            return [S.EvalStmt(self.expr(s.expr), s.span, s.leading_comments)]
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            return [type(s)([self.expr(v) for v in s.value], s.span, s.leading_comments)]
        if isinstance(s, S.ForStmt):
            return self.for_stmt(s)
        if isinstance(s, S.WhileStmt):
            return self.while_stmt(s)
        if isinstance(s, S.IfStmt):
            return self.if_stmt(s, top_level)
        if isinstance(s, S.ScopeStmt):
            return [self.scope(s, top_level)]
        if isinstance(s, S.SeqStmts):
            return self.block(s, top_level)
        return [s]

    def assign(self, s: S.AssignStmt, top_level: bool) -> Stmts:
        value = self.expr(s.value)
        var = self.binder(s.var)
        if isinstance(s.var.type, T.ScalarType) and id(s.var) in self.assigned_once:
            if top_level and isinstance(value, _CONSTANTS):
                self.subst[id(s.var)] = value  # every later use reads the constant (a BOOL one too)
            else:
                self.learn_bounds(s.var, self.bounds(value))
        return [S.AssignStmt(var, value, s.span, s.leading_comments)]

    def scope(self, s: S.ScopeStmt, top_level: bool) -> S.Stmt:
        changes: dict[str, Any] = {"attrs": {k: self.value(v) for k, v in s.attrs.items()}}
        if isinstance(s, S.SpmdScopeStmt):
            changes["core_num"] = self.expr(s.core_num)
        inner_top = top_level and not isinstance(s, _OPAQUE_SCOPES)
        changes["body"] = make_body(self.block(s.body, inner_top) if inner_top else self.scoped_block(s.body),
                                    s.span)
        return s.with_fields(**changes)

    def carries(self, iter_args: tuple[E.IterArg, ...]) -> list[E.IterArg]:
        out = []
        for ia in iter_args:
            init, typ = self.expr(ia.initValue), self.type(ia.type)
            new = ia if init is ia.initValue and typ is ia.type else E.IterArg(ia.name_hint, typ, init, ia.span)
            if new is not ia:
                self.subst[id(ia)] = new
            out.append(new)
        return out

    def for_stmt(self, s: S.ForStmt) -> Stmts:
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        iter_args = self.carries(s.iter_args)
        facts = self.facts()
        counts_up = prove(self.simplifier, self.expr(E.Le(E.ConstInt(1, step.type.dtype), step, DataType.BOOL)),
                          facts) if int_dtype(step) else None
        if not s.attrs and s.kind is ForKind.Sequential and counts_up:
            if prove(self.simplifier, self.expr(E.Le(stop, start, DataType.BOOL)), facts):
                return [S.AssignStmt(self.binder(rv), ia.initValue, s.span)
                        for rv, ia in zip(s.return_vars, iter_args)]
            one_trip = self.expr(E.And(E.Lt(start, stop, DataType.BOOL),
                                       E.Le(stop, E.Add(start, step, start.type.dtype), DataType.BOOL),
                                       DataType.BOOL))
            if prove(self.simplifier, one_trip, facts):
                return self.lift_one_trip(s, start, iter_args)
        loop_var = self.binder(s.loop_var)
        known = None
        if counts_up:
            lo, hi = self.bounds(start), self.bounds(stop)
            if lo is not None and hi is not None:
                known = (s.loop_var, Bounds(lo.lo, hi.hi - 1))
        body = make_body(self.scoped_block(s.body, loop_var=known), s.body.span)
        return_vars = [self.binder(rv) for rv in s.return_vars]
        return [s.with_fields(loop_var=loop_var, start=start, stop=stop, step=step, iter_args=tuple(iter_args),
                              body=body, return_vars=tuple(return_vars))]

    def lift_one_trip(self, s: S.ForStmt, start: E.Expr, iter_args: list[E.IterArg]) -> Stmts:
        """A loop that runs once is its body with loop var := start and carries := inits."""
        self.subst[id(s.loop_var)] = start
        for old, ia in zip(s.iter_args, iter_args):
            self.subst[id(old)] = ia.initValue
            self.subst[id(ia)] = ia.initValue
        stmts = self.scoped_block(s.body)
        return self.splice(stmts, s.return_vars, [ia.initValue for ia in iter_args], s)

    def splice(self, stmts: Stmts, return_vars: tuple[E.Var, ...], unchanged: list[E.Expr], s: S.Stmt) -> Stmts:
        """A kept body in place of its loop / if: its trailing yield's values replace the results at their uses."""
        values: list[E.Expr] = unchanged
        if stmts and isinstance(stmts[-1], S.YieldStmt):
            values = list(stmts.pop().value)
        if return_vars and len(values) != len(return_vars):
            raise InternalError(f"Simplify: a folded statement has {len(return_vars)} results but its kept body "
                                f"yields {len(values)} values ({s.span.to_string()})")
        for rv, v in zip(return_vars, values):
            self.subst[id(rv)] = v
        return stmts

    def while_stmt(self, s: S.WhileStmt) -> Stmts:
        iter_args = self.carries(s.iter_args)
        self.push()
        try:
            condition = self.expr(s.condition)
            body = make_body(self.block(s.body, top_level=False), s.body.span)
        finally:
            self.pop()
        return_vars = [self.binder(rv) for rv in s.return_vars]
        return [s.with_fields(condition=condition, iter_args=tuple(iter_args), body=body,
                              return_vars=tuple(return_vars))]

    def if_stmt(self, s: S.IfStmt, top_level: bool) -> Stmts:
        condition = self.expr(s.condition)
        verdict = prove(self.simplifier, condition, self.facts())
        if verdict is not None:
            kept = s.then_body if verdict else s.else_body
            if kept is None:
                return []
            return self.splice(self.block(kept, top_level), s.return_vars, [], s)
        negated = self.expr(E.Not(condition, DataType.BOOL, condition.span))
        then_body = make_body(self.scoped_block(s.then_body, assume=condition), s.then_body.span)
        else_body = None if s.else_body is None else \
            make_body(self.scoped_block(s.else_body, assume=negated), s.else_body.span)
        return [s.with_fields(condition=condition, then_body=then_body, else_body=else_body)]

"""FlattenCallExpr: three-address form for calls (docs/passes/flatten_call_expr.md).

A Call used as an operand -- an argument of another call, an operand of a scalar binary / unary node (`pl.cast`
included), the whole condition of an if / while, the whole start / stop / step of a for, a returned or yielded
value -- is computed first into a fresh `t__tmp_vN` (N counts per function, in visit order: statements in order,
operands left to right, inner calls first) and the temporary is used in its place. The temporaries are bound
right before the statement that needs them, in the same block: before the whole if / for / while for a
header, inside the body for a statement of a body.

Not extracted: the top-level call of an assignment or an evaluation statement, calls that are elements of a
tuple (an offset list `[pl.tensor.read(idx, [0])]`; an arithmetic node inside the list is still flattened),
call kwargs, attrs and types.

One rule differs from PyPTO: a call in a `pl.while_` condition that reads a loop-carried value cannot be
evaluated once before the loop (PyPTO hoists it anyway, leaving a use of the carry outside its loop); pypto
rejects it with a located error instead. A condition call on loop-invariant values is hoisted as in PyPTO.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.names import split_generated
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, free_vars_in_order, make_body
from pypto_core.passes.pass_base import Pass

TEMP_BASE = "t"
TEMP_ROLE = "tmp"


def _first_free_number(func: F.Function) -> int:
    """PyPTO numbers from 0 in every function; a function that already has `t__tmp_vN` (a printed and re-parsed
    output) continues after its largest N, so that no two temporaries share a name."""
    taken = -1
    for v in [*func.params, *collect_def_vars(func.body)]:
        base, role, version = split_generated(v.name_hint)
        if base == TEMP_BASE and role == TEMP_ROLE and version is not None:
            taken = max(taken, version)
    return taken + 1


class _Flattener:
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.next = _first_free_number(func)
        self.pending: list[S.Stmt] = []

    # -- expressions -------------------------------------------------------------------------------
    def temp(self, call: E.Call) -> E.Var:
        var = E.Var(f"{TEMP_BASE}__{TEMP_ROLE}_v{self.next}", call.type, call.span)
        self.next += 1
        self.pending.append(S.AssignStmt(var, call, call.span))
        return var

    def operand(self, e: E.Expr) -> E.Expr:
        """`e` in an operand position: flattened inside, then bound to a temporary when it is a call."""
        e = self.expr(e)
        return self.temp(e) if isinstance(e, E.Call) else e

    def expr(self, e: E.Expr) -> E.Expr:
        """`e` with the calls nested in it extracted; `e` itself stays (a top-level call stays a call)."""
        if isinstance(e, E.Call):
            args = [self.operand(a) for a in e.args]
            return e if all(a is b for a, b in zip(args, e.args)) else e.with_fields(args=tuple(args))
        if isinstance(e, E.BinaryExpr):
            left, right = self.operand(e.left), self.operand(e.right)
            return e if left is e.left and right is e.right else e.with_fields(left=left, right=right)
        if isinstance(e, E.UnaryExpr):
            operand = self.operand(e.operand)
            return e if operand is e.operand else e.with_fields(operand=operand)
        if isinstance(e, E.MakeTuple):
            elements = [self.expr(x) for x in e.elements]
            return e if all(a is b for a, b in zip(elements, e.elements)) else E.MakeTuple(elements, e.span)
        if isinstance(e, E.TupleGetItemExpr):
            inner = self.expr(e.tuple)
            return e if inner is e.tuple else E.TupleGetItemExpr(inner, e.index, e.span)
        return e

    def take(self) -> list[S.Stmt]:
        out, self.pending = self.pending, []
        return out

    # -- statements --------------------------------------------------------------------------------
    def body(self, stmt: S.Stmt) -> S.Stmt:
        old = flatten_to_stmts(stmt)
        new: list[S.Stmt] = []
        for s in old:
            new.extend(self.stmt(s))
        if len(new) == len(old) and all(a is b for a, b in zip(new, old)):
            return stmt
        body = make_body(new, stmt.span)
        if stmt.leading_comments and isinstance(body, S.SeqStmts) and isinstance(stmt, S.SeqStmts):
            body = body.with_comments(stmt.leading_comments)
        return body

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt):
            value = self.expr(s.value)
            return [*self.take(), s if value is s.value else s.with_fields(value=value)]
        if isinstance(s, S.EvalStmt):
            value = self.expr(s.expr)
            return [*self.take(), s if value is s.expr else s.with_fields(expr=value)]
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            values = [self.operand(v) for v in s.value]
            if all(a is b for a, b in zip(values, s.value)):
                return [*self.take(), s]
            return [*self.take(), s.with_fields(value=tuple(values))]
        if isinstance(s, S.IfStmt):
            condition = self.operand(s.condition)
            pre = self.take()
            then_body = self.body(s.then_body)
            else_body = self.body(s.else_body) if s.else_body is not None else None
            if condition is s.condition and then_body is s.then_body and else_body is s.else_body:
                return [*pre, s]
            return [*pre, s.with_fields(condition=condition, then_body=then_body, else_body=else_body)]
        if isinstance(s, S.ForStmt):
            start, stop, step = self.operand(s.start), self.operand(s.stop), self.operand(s.step)
            pre = self.take()
            body = self.body(s.body)
            if start is s.start and stop is s.stop and step is s.step and body is s.body:
                return [*pre, s]
            return [*pre, s.with_fields(start=start, stop=stop, step=step, body=body)]
        if isinstance(s, S.WhileStmt):
            condition = self.operand(s.condition)
            pre = self.take()
            self.check_hoistable(s, pre)
            body = self.body(s.body)
            if condition is s.condition and body is s.body:
                return [*pre, s]
            return [*pre, s.with_fields(condition=condition, body=body)]
        if isinstance(s, S.ScopeStmt):
            body = self.body(s.body)
            return [s if body is s.body else s.with_fields(body=body)]
        if isinstance(s, S.SeqStmts):
            return [self.body(s)]
        return [s]

    def check_hoistable(self, loop: S.WhileStmt, pre: list[S.Stmt]) -> None:
        """The calls of a while condition run once, before the loop: they may not read what the loop carries."""
        carried = {id(v) for v in (*loop.iter_args, *collect_def_vars(loop.body))}
        for stmt in pre:
            assert isinstance(stmt, S.AssignStmt)
            used = [v for v in free_vars_in_order([stmt.value]) if id(v) in carried]
            if used:
                call = stmt.value
                name = call.op.name if isinstance(call, E.Call) else type(call).__name__
                raise UserError(
                    f"FlattenCallExpr: the condition of this pl.while_ in function '{self.func.name}' calls {name} "
                    f"on the loop-carried value '{used[0].name_hint}'; a call in a while condition is evaluated "
                    f"once before the loop, where that value does not exist. Compute the value at the end of the "
                    f"loop body and carry it (init_values=) so that the condition only compares variables",
                    loop.span)


def flatten_function(func: F.Function) -> F.Function:
    body = _Flattener(func).body(func.body)
    return func if body is func.body else func.with_fields(body=body)


class FlattenCallExpr(Pass):
    """Nested calls become assignments to `t__tmp_vN` temporaries (three-address form)."""

    name = "FlattenCallExpr"
    factory_name = "flatten_call_expr"
    required = ("SSAForm", "NormalizedStmtStructure")
    produced = ("SSAForm", "NoNestedCalls", "NormalizedStmtStructure")
    description = ("Bind every call used as an operand (call argument, arithmetic operand, if/while condition, "
                   "loop bound, returned or yielded value) to a t__tmp_vN temporary before its statement "
                   "(docs/passes/flatten_call_expr.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [flatten_function(f) for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return F.Program(funcs, program.name, program.span)

"""CtrlFlowTransform: no `continue` / `break` left in the loops of kernels (docs/passes/ctrl_flow_transform.md).

Loops are rewritten innermost first, by the rules of early_exits.py. A loop with only `continue`s keeps
its kind; a loop with a `break` becomes a `while` on `<cond> and not <break flag>`, a `for` counting with
a variable of its own. Only InCore, AIC and AIV functions are rewritten.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import KERNEL_TYPES, ForKind
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.names import generated
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import (
    collect_def_vars,
    flatten_to_stmts,
    make_body,
    substitute_expr,
    substitute_stmt,
)
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_canonicalize.early_exits import ExitRules, owns_exit, split_trailing_yield

Stmts = list[S.Stmt]


class _KernelRewriter:
    """Rewrites the loops of one function; owns the function's name counter (`<base>__<role>_v<N>`)."""

    def __init__(self, func: F.Function) -> None:
        self.counter = 0
        self.taken = {p.name_hint for p in func.params} | {v.name_hint for v in collect_def_vars(func.body)}

    def new_name(self, base: str, role: str) -> str:
        while True:
            name = generated(base, role, self.counter)
            self.counter += 1
            if name not in self.taken:
                self.taken.add(name)
                return name

    # -- statements, innermost loops first ---------------------------------------------------------
    def body(self, stmt: S.Stmt | None) -> S.Stmt | None:
        if stmt is None:
            return None
        old = flatten_to_stmts(stmt)
        new = [out for s in old for out in self.stmt(s)]
        if len(new) == len(old) and all(a is b for a, b in zip(new, old)):
            return stmt
        return make_body(new, stmt.span)

    def stmt(self, s: S.Stmt) -> Stmts:
        if isinstance(s, S.ForStmt):
            loop = self.with_body(s)
            if s.kind is not ForKind.Sequential:
                self.refuse_exits_in(loop, f"a pl.{s.kind.name.lower()} loop")
                return [loop]
            return self.loop(loop)
        if isinstance(s, S.WhileStmt):
            return self.loop(self.with_body(s))
        if isinstance(s, S.IfStmt):
            then_body, else_body = self.body(s.then_body), self.body(s.else_body)
            if then_body is s.then_body and else_body is s.else_body:
                return [s]
            return [s.with_fields(then_body=then_body, else_body=else_body)]
        if isinstance(s, S.ScopeStmt):
            return [self.with_body(s)]
        return [s]

    def with_body(self, s: Any) -> Any:
        body = self.body(s.body)
        return s if body is s.body else s.with_fields(body=body)

    def refuse_exits_in(self, loop: S.ForStmt, what: str) -> None:
        for exit_cls, word in ((S.BreakStmt, "break"), (S.ContinueStmt, "continue")):
            if owns_exit(loop.body, exit_cls):
                raise UserError(f"CtrlFlowTransform: '{word}' in {what}, whose iterations do not run one after "
                                "the other; use pl.range for a loop that leaves early", loop.span)

    # -- one loop --------------------------------------------------------------------------------
    def loop(self, s: S.ForStmt | S.WhileStmt) -> Stmts:
        has_continue, has_break = owns_exit(s.body, S.ContinueStmt), owns_exit(s.body, S.BreakStmt)
        if not (has_continue or has_break):
            return [s]
        stmts, carried = split_trailing_yield(s.body)
        if carried is not None and len(carried) != len(s.iter_args):
            raise InternalError(f"CtrlFlowTransform: a loop yields {len(carried)} values for "
                                f"{len(s.iter_args)} iter_args ({s.span.to_string()})")
        if not has_break:
            rules = ExitRules(s.iter_args, self.new_name)
            stmts, carried = split_trailing_yield(make_body(rules.eliminate(stmts, carried), s.span))
            return [s.with_fields(body=self.with_yield(stmts, carried, s))]
        return self.break_loop(s, stmts, carried)

    def break_loop(self, s: S.ForStmt | S.WhileStmt, stmts: Stmts, carried: tuple[E.Expr, ...] | None) -> Stmts:
        """`brk = False` (and `i' = start`) before a `while <cond> and not brk` running the rewritten body."""
        span = s.span
        flag = E.Var(self.new_name("break", "tmp"), ScalarType(DataType.BOOL), span)
        pre: Stmts = []
        if isinstance(s, S.ForStmt):
            counter = E.Var(self.new_name(user_base(s.loop_var), "idx"), s.loop_var.type, span)
            to_counter = {s.loop_var: counter}
            stmts = [substitute_stmt(x, to_counter) for x in stmts]
            if carried is not None:
                carried = tuple(substitute_expr(v, to_counter) for v in carried)
            pre.append(S.AssignStmt(counter, s.start, span))
            compare = scalar_ops.gt if isinstance(s.step, E.ConstInt) and s.step.value < 0 else scalar_ops.lt
            condition = compare(counter, s.stop, span)
        else:
            condition = s.condition
        pre.append(S.AssignStmt(flag, E.ConstBool(False, span), span))
        rules = ExitRules(s.iter_args, self.new_name, flag)
        stmts, carried = split_trailing_yield(make_body(rules.eliminate(stmts, carried), span))
        if isinstance(s, S.ForStmt):
            stmts, carried = self.bind_yielded_expressions(stmts, carried, span)
            step = S.AssignStmt(counter, scalar_ops.add(counter, s.step, span), span)
            stmts.append(S.IfStmt(scalar_ops.not_(flag, span), step, None, (), span))
        loop = S.WhileStmt(scalar_ops.and_(condition, scalar_ops.not_(flag, span), span), s.iter_args,
                           self.with_yield(stmts, carried, s), s.return_vars, span, s.leading_comments)
        return [*pre, loop]

    def bind_yielded_expressions(self, stmts: Stmts, carried: tuple[E.Expr, ...] | None,
                                 span: Any) -> tuple[Stmts, tuple[E.Expr, ...] | None]:
        """A yielded expression reads the counter before it steps: bind it to `yield__tmp_v<N>` first."""
        if carried is None:
            return stmts, None
        values: list[E.Expr] = []
        for value in carried:
            if not isinstance(value, E.Var):
                tmp = E.Var(self.new_name("yield", "tmp"), value.type, span)
                stmts.append(S.AssignStmt(tmp, value, span))
                value = tmp
            values.append(value)
        return stmts, tuple(values)

    @staticmethod
    def with_yield(stmts: Stmts, carried: tuple[E.Expr, ...] | None, s: S.Stmt) -> S.Stmt:
        if carried is not None:
            stmts = [*stmts, S.YieldStmt(list(carried), stmts[-1].span if stmts else s.span)]
        return make_body(stmts, s.span)


class CtrlFlowTransform(Pass):
    """Rewrite continue / break in the loops of InCore, AIC and AIV functions into structured control flow."""

    name = "CtrlFlowTransform"
    factory_name = "ctrl_flow_transform"
    produced = ("StructuredCtrlFlow",)
    description = ("Rewrite continue into if/else and a loop with break into a while on a break flag, in "
                   "InCore / AIC / AIV functions.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        functions: list[F.Function] = []
        changed = False
        for func in program.functions.values():
            new = func
            if func.func_type in KERNEL_TYPES:
                body = _KernelRewriter(func).body(func.body)
                if body is not func.body:
                    new = func.with_fields(body=body)
            changed = changed or new is not func
            functions.append(new)
        return F.Program(functions, program.name, program.span) if changed else program


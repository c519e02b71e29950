"""Helpers shared by the core verifiers: variable uses, and a walk that keeps lexical scopes.

Scope rules (what SSAForm and UseAfterDef agree on): a function's params (and the dynamic dims in
their types) are visible everywhere, and enter scope without being definitions (`define` is not called
for them: an AssignStmt may rebind a parameter once, PyPTO's SSA rule, docs/passes/run_verifier.md); a
loop's loop_var and iter_args only inside its body, scoped but not definitions (`bind_scoped`); its
return_vars after it; an if's return_vars after it; defs inside a loop body or an if branch stay in that
body; scope statements (InCore, split_aiv, ...) are transparent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function, Program
from pypto_core.ir.node import FieldRole
from pypto_core.ir.span import Span
from pypto_core.ir.types import Type
from pypto_core.ir.visitor import IRVisitor


def uses_in(value: Any) -> list[E.Var]:
    """Vars read by an expression (or a tuple of them). Types are not walked: a dim in a type is not a read."""
    return vars_read(value)


class _TypeDims(IRVisitor):
    def __init__(self) -> None:
        self.found: list[E.Var] = []

    def visit_var_like(self, var: E.Var) -> None:
        self.found.append(var)


def vars_in_type(typ: Type) -> list[E.Var]:
    walker = _TypeDims()
    walker.visit_type(typ)
    return walker.found


def functions(program: Program | Function) -> Iterator[Function]:
    if isinstance(program, Function):
        yield program
    else:
        yield from program.functions.values()


class ScopedWalk:
    """Walks one function in execution order with a stack of scopes; subclasses react to defs and uses."""

    def __init__(self, func: Function) -> None:
        self.func = func
        self.scopes: list[dict[int, E.Var]] = [{}]

    # -- hooks ---------------------------------------------------------------------------------
    def on_define(self, var: E.Var, span: Span) -> None:
        """Called before `var` becomes visible."""

    def on_scoped(self, var: E.Var, span: Span) -> None:
        """Called before a loop variable or an iter_arg becomes visible: scoped, not a definition."""

    def on_use(self, var: E.Var, span: Span) -> None:
        """Called for every read of a variable."""

    def after_if(self, then_defs: dict[int, E.Var], else_defs: dict[int, E.Var] | None) -> None:
        """Called after an if, with the defs of each branch (None when there is no else)."""

    # -- scope queries -------------------------------------------------------------------------
    def visible(self, var: E.Var) -> bool:
        return any(id(var) in scope for scope in self.scopes)

    def define(self, var: E.Var, span: Span) -> None:
        """A definition: an AssignStmt's var, a loop's or an if's return var, a plugin statement's DEF field."""
        self.on_define(var, span)
        self.scopes[-1][id(var)] = var

    def bind_scoped(self, var: E.Var, span: Span) -> None:
        """A loop variable or an iter_arg: visible in the loop body, never counted as a definition."""
        self.on_scoped(var, span)
        self.scopes[-1][id(var)] = var

    def push(self) -> None:
        """Open the scope of a loop body or an if branch."""
        self.scopes.append({})

    def pop(self) -> dict[int, E.Var]:
        """Close the innermost scope; returns what it held."""
        return self.scopes.pop()

    def use_all(self, value: Any, span: Span) -> None:
        for var in uses_in(value):
            self.on_use(var, span)

    # -- the walk ------------------------------------------------------------------------------
    def run(self) -> None:
        for param in self.func.params:
            for dim in vars_in_type(param.type):
                self.scopes[0].setdefault(id(dim), dim)
        for param in self.func.params:
            self.enter_param(param)
        self.stmt(self.func.body)

    def enter_param(self, param: E.Var) -> None:
        """A parameter is in scope everywhere in the function; it is not a definition (no `on_define`)."""
        self.scopes[0][id(param)] = param

    def stmt(self, s: S.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, S.SeqStmts):
            for child in s.stmts:
                self.stmt(child)
        elif isinstance(s, S.AssignStmt):
            self.use_all(s.value, s.span)
            self.define(s.var, s.span)
        elif isinstance(s, (S.EvalStmt,)):
            self.use_all(s.expr, s.span)
        elif isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            self.use_all(s.value, s.span)
        elif isinstance(s, S.ScopeStmt):
            self.stmt(s.body)
        elif isinstance(s, S.ForStmt):
            self.use_all((s.start, s.stop, s.step), s.span)
            self.use_all(tuple(a.initValue for a in s.iter_args), s.span)
            self.push()
            self.bind_scoped(s.loop_var, s.span)
            for arg in s.iter_args:
                self.bind_scoped(arg, s.span)
            self.stmt(s.body)
            self.pop()
            for rv in s.return_vars:
                self.define(rv, s.span)
        elif isinstance(s, S.WhileStmt):
            self.use_all(tuple(a.initValue for a in s.iter_args), s.span)
            self.push()
            for arg in s.iter_args:
                self.bind_scoped(arg, s.span)
            self.use_all(s.condition, s.span)
            self.stmt(s.body)
            self.pop()
            for rv in s.return_vars:
                self.define(rv, s.span)
        elif isinstance(s, S.IfStmt):
            self.use_all(s.condition, s.span)
            self.push()
            self.stmt(s.then_body)
            then_defs = self.pop()
            else_defs = None
            if s.else_body is not None:
                self.push()
                self.stmt(s.else_body)
                else_defs = self.pop()
            for rv in s.return_vars:
                self.define(rv, s.span)
            self.after_if(then_defs, else_defs)
        else:
            self.generic(s)

    def generic(self, s: S.Stmt) -> None:
        """A statement kind this walk does not know (a plugin's): uses first, then defs, then bodies."""
        defs: list[E.Var] = []
        bodies: list[S.Stmt] = []
        for spec, value in s.field_items():
            items: Iterable[Any] = value if isinstance(value, tuple) else (value,)
            if spec.role is FieldRole.DEF:
                defs.extend(v for v in items if isinstance(v, E.Var))
            elif spec.role is FieldRole.USUAL:
                for item in items:
                    if isinstance(item, S.Stmt):
                        bodies.append(item)
                    elif isinstance(item, E.Expr):
                        self.use_all(item, s.span)
        for var in defs:
            self.define(var, s.span)
        for body in bodies:
            self.stmt(body)

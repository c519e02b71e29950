"""SSAForm: every Var is defined once, no def shadows a name of an enclosing scope, carried loops and
ifs end their bodies with a yield of matching arity, and uses stay inside their defining scope.

What counts as a definition is PyPTO's rule (docs/passes/run_verifier.md, the core properties' rules):
the Var of each AssignStmt and each return var of a For / While / If (and a plugin statement's DEF fields). A
function's parameters are in scope but are not definitions, so one AssignStmt may rebind a parameter
(`out_0 = pl.store(t, [0], out_0)`, the form both parsers give an Out parameter written in place); a
second one is the error. Loop variables and iter_args are scoped, never counted.
"""

from __future__ import annotations

import enum

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.span import Span
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import ScopedWalk, functions

RULE = "SSAForm"


class SSAErrorType(enum.IntEnum):
    """The diagnostics' error codes: PyPTO's `ssa::ErrorType` values."""

    MULTIPLE_ASSIGNMENT = 1
    NAME_SHADOWING = 2
    MISSING_YIELD = 3
    SCOPE_VIOLATION = 4


def _error(kind: SSAErrorType, message: str, span: Span) -> Diagnostic:
    diag = error(RULE, message, span)
    diag.error_code = int(kind)
    return diag


class _SSAWalk(ScopedWalk):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        super().__init__(func)
        self.out = out
        self.counts: dict[int, int] = {}  # definitions seen so far, per Var
        self.bound: set[int] = set()  # every Var a statement defined or scoped (scope-violation check)

    def on_define(self, var: E.Var, span: Span) -> None:
        count = self.counts.get(id(var), 0) + 1
        self.counts[id(var)] = count
        self.bound.add(id(var))
        if count > 1:  # one diagnostic per extra definition, with the running count (PyPTO's form)
            self.out.append(_error(SSAErrorType.MULTIPLE_ASSIGNMENT,
                                   f"Variable '{var.name_hint}' is assigned more than once ({count} times), "
                                   f"violating SSA form (in function '{self.func.name}')", span))
            return
        self._check_shadowing(var, span)

    def on_scoped(self, var: E.Var, span: Span) -> None:
        if id(var) not in self.bound:
            self.bound.add(id(var))
            self._check_shadowing(var, span)

    def _check_shadowing(self, var: E.Var, span: Span) -> None:
        for scope in self.scopes[:-1]:
            for other in scope.values():
                if other is not var and other.name_hint == var.name_hint:
                    self.out.append(_error(SSAErrorType.NAME_SHADOWING,
                                           f"variable '{var.name_hint}' shadows a variable of the same name "
                                           f"in an enclosing scope of function '{self.func.name}'", span))
                    return

    def on_use(self, var: E.Var, span: Span) -> None:
        # A use before any def is UseAfterDef's finding; here only defs that went out of scope count.
        if id(var) in self.bound and not self.visible(var):
            self.out.append(_error(SSAErrorType.SCOPE_VIOLATION,
                                   f"variable '{var.name_hint}' is used outside the scope that defines it "
                                   f"in function '{self.func.name}'", span))


def _trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None


class _YieldArity(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out

    def _check_body(self, what: str, body: S.Stmt | None, arity: int, span: Span) -> None:
        last = _trailing_yield(body)
        got = len(last.value) if last is not None else 0
        if arity and last is None:
            self.out.append(_error(SSAErrorType.MISSING_YIELD, f"{what} carries {arity} value(s) but its body does "
                                                                f"not end with a yield (function '{self.func.name}')",
                                   span))
        elif got != arity:
            self.out.append(_error(SSAErrorType.MISSING_YIELD, f"{what} carries {arity} value(s) but its body "
                                                                f"yields {got} (function '{self.func.name}')", span))

    def _check_loop(self, what: str, s: S.ForStmt | S.WhileStmt) -> None:
        if len(s.return_vars) != len(s.iter_args):
            self.out.append(_error(SSAErrorType.MISSING_YIELD, f"{what} has {len(s.iter_args)} iter_args but "
                                                                f"{len(s.return_vars)} return_vars (function "
                                                                f"'{self.func.name}')", s.span))
        self._check_body(what, s.body, len(s.iter_args), s.span)

    def visit_for_stmt(self, s: S.ForStmt) -> None:
        self._check_loop("for loop", s)
        super().visit_for_stmt(s)

    def visit_while_stmt(self, s: S.WhileStmt) -> None:
        self._check_loop("while loop", s)
        super().visit_while_stmt(s)

    def visit_if_stmt(self, s: S.IfStmt) -> None:
        arity = len(s.return_vars)
        if arity and s.else_body is None:
            self.out.append(_error(SSAErrorType.MISSING_YIELD, f"if with {arity} return_vars has no else branch "
                                                                f"(function '{self.func.name}')", s.span))
        self._check_body("if (then branch)", s.then_body, arity, s.span)
        if s.else_body is not None:
            self._check_body("if (else branch)", s.else_body, arity, s.span)
        super().visit_if_stmt(s)


def verify_ssa_form(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _SSAWalk(func, out).run()
        _YieldArity(func, out).visit_stmt(func.body)
    return out

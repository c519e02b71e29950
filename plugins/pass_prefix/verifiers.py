"""The properties the prefix passes establish, with PyPTO's verifiers: InlineFunctionsEliminated, UnrollResolved,
NoNestedCalls (docs/passes/inline_functions.md, unroll_loops.md, flatten_call_expr.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind, FunctionType
from pypto_core.ir.utils import function_calls
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, DiagnosticSeverity


def _functions(program: Any) -> list[F.Function]:
    if isinstance(program, F.Function):
        return [program]
    return list(program.functions.values())


def _error(rule: str, message: str, span: Any, code: int) -> Diagnostic:
    return Diagnostic(DiagnosticSeverity.Error, rule, message, span, error_code=code)


# -- InlineFunctionsEliminated ---------------------------------------------------------------------------------
INLINE_RULE = "InlineFunctionsEliminated"


def verify_inline_functions_eliminated(program: Any) -> list[Diagnostic]:
    """Code 0: an Inline function is left; 1: a call of one is left; 2: a call of a function the program does
    not have (a call nested in an expression, which InlineFunctions does not expand, once its callee is gone)."""
    out: list[Diagnostic] = []
    funcs = _functions(program)
    known = {f.name: f for f in funcs}
    for func in funcs:
        if func.func_type is FunctionType.Inline:
            out.append(_error(INLINE_RULE, f"FunctionType::Inline function '{func.name}' survived the "
                                           f"InlineFunctions pass (should have been spliced and removed)",
                              func.span, 0))
    if not isinstance(program, F.Program):
        return out
    for func in funcs:
        for call in function_calls(func.body):
            callee = known.get(call.op.name)
            if callee is None:
                out.append(_error(INLINE_RULE, f"Dangling Call to function '{call.op.name}' (no such function in "
                                               f"program — in '{func.name}'; InlineFunctions expands only a call "
                                               f"that is a whole statement (`x = self.f(...)`, `self.f(...)`, "
                                               f"`return self.f(...)`): bind a nested call's result to a "
                                               f"variable first)", call.span, 2))
            elif callee.func_type is FunctionType.Inline:
                out.append(_error(INLINE_RULE, f"Call to FunctionType::Inline function '{call.op.name}' survived "
                                               f"the InlineFunctions pass (in '{func.name}')", call.span, 1))
    return out


# -- UnrollResolved ------------------------------------------------------------------------------------------------
UNROLL_RULE = "UnrollResolved"


class _UnrollLoops(IRVisitor):
    def __init__(self, func: F.Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out

    def visit_for_stmt(self, loop: S.ForStmt) -> None:
        if loop.kind is ForKind.Unroll:
            self.out.append(_error(UNROLL_RULE, f"ForKind::Unroll survived past UnrollLoops in function "
                                                f"'{self.func.name}'. The pl.unroll loop over "
                                                f"'{loop.loop_var.name_hint}' should have been expanded by "
                                                f"unroll_loops", loop.span, 0))
        self.visit_node(loop)


def verify_unroll_resolved(program: Any) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in _functions(program):
        _UnrollLoops(func, out).visit_stmt(func.body)
    return out


# -- NoNestedCalls -------------------------------------------------------------------------------------------------
NESTED_RULE = "NoNestedCall"  # PyPTO's rule name (the property is NoNestedCalls)


class _NestedCalls(IRVisitor):
    def __init__(self, out: list[Diagnostic]) -> None:
        self.out = out

    def report(self, code: int, message: str, span: Any) -> None:
        self.out.append(_error(NESTED_RULE, message, span, code))

    def visit_call(self, call: E.Call) -> None:
        if any(isinstance(a, E.Call) for a in call.args):
            self.report(201, "Call expression has nested call in arguments", call.span)
        self.visit_node(call)

    def visit_binary_expr(self, e: E.BinaryExpr) -> None:
        for side in ("left", "right"):
            if isinstance(getattr(e, side), E.Call):
                self.report(204, f"Binary expression {side} operand cannot be a call expression", e.span)
        self.visit_node(e)

    def visit_unary_expr(self, e: E.UnaryExpr) -> None:
        if isinstance(e.operand, E.Call):
            self.report(205, "Unary expression operand cannot be a call expression", e.span)
        self.visit_node(e)

    def visit_if_stmt(self, s: S.IfStmt) -> None:
        if isinstance(s.condition, E.Call):
            self.report(202, "If condition cannot be a call expression", s.span)
        self.visit_node(s)

    def visit_for_stmt(self, s: S.ForStmt) -> None:
        for which in ("start", "stop", "step"):
            if isinstance(getattr(s, which), E.Call):
                self.report(203, f"For loop {which} expression cannot be a call expression", s.span)
        self.visit_node(s)

    def visit_while_stmt(self, s: S.WhileStmt) -> None:
        if isinstance(s.condition, E.Call):
            self.report(206, "While loop condition cannot be a call expression", s.span)
        self.visit_node(s)


def verify_no_nested_calls(program: Any) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in _functions(program):
        _NestedCalls(out).visit_stmt(func.body)
    return out


PROPERTIES = {
    "InlineFunctionsEliminated": (verify_inline_functions_eliminated,
                                  "no FunctionType.Inline function and no call of one (or of a missing function)"),
    "UnrollResolved": (verify_unroll_resolved, "no pl.unroll (ForKind.Unroll) loop is left"),
    "NoNestedCalls": (verify_no_nested_calls,
                      "no call is an argument of a call, an arithmetic operand, an if / while condition or a "
                      "for bound"),
}

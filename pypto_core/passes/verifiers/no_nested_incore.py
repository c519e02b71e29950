"""NoNestedInCore: no InCore scope inside another one (docs/architecture.md, properties and verifiers)."""

from __future__ import annotations

from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "NoNestedInCore"


class _Nesting(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out
        self.depth = 0

    def visit_in_core_scope_stmt(self, s: S.InCoreScopeStmt) -> None:
        if self.depth:
            self.out.append(error(RULE, f"Nested InCore scope in function '{self.func.name}': an InCore scope "
                                        "may not contain another InCore scope", s.span))
        self.depth += 1
        super().visit_in_core_scope_stmt(s)
        self.depth -= 1


def verify_no_nested_incore(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _Nesting(func, out).visit_stmt(func.body)
    return out

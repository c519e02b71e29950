"""SplitIncoreOrch: InCore scopes have been outlined; none is left in an Opaque, Orchestration or Graph function."""

from __future__ import annotations

from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SCOPE_HOST_TYPES
from pypto_core.ir.function import Function
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "SplitIncoreOrch"


class _Leftovers(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out

    def visit_in_core_scope_stmt(self, s: S.InCoreScopeStmt) -> None:
        self.out.append(error(RULE, f"InCore ScopeStmt left in {self.func.func_type.name} function "
                                    f"'{self.func.name}': it should have been outlined into an InCore function",
                              s.span))
        super().visit_in_core_scope_stmt(s)


def verify_split_incore_orch(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        if func.func_type in SCOPE_HOST_TYPES:
            _Leftovers(func, out).visit_stmt(func.body)
    return out

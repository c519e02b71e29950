"""NoRedundantBlocks and NormalizedStmtStructure: the body convention of docs/architecture.md, the core.

NoRedundantBlocks forbids single-child SeqStmts. NormalizedStmtStructure also forbids a SeqStmts
directly inside another one, so a pass that nests blocks (and declares it invalidates
NormalizedStmtStructure, as ConvertToSSA does) still keeps the structural NoRedundantBlocks.
"""

from __future__ import annotations

from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions


class _Blocks(IRVisitor):
    def __init__(self, func: Function, rule: str, forbid_nested: bool, out: list[Diagnostic]) -> None:
        self.func = func
        self.rule = rule
        self.forbid_nested = forbid_nested
        self.out = out

    def visit_seq_stmts(self, s: S.SeqStmts) -> None:
        if len(s.stmts) == 1:
            self.out.append(error(self.rule, f"a block with a single statement in function '{self.func.name}' "
                                             "(a one-statement body is the statement itself)", s.span))
        if self.forbid_nested:
            for child in s.stmts:
                if isinstance(child, S.SeqStmts):
                    self.out.append(error(self.rule, f"a block nested directly in a block in function "
                                                     f"'{self.func.name}' (flatten it)", child.span))
        super().visit_seq_stmts(s)


def _verify(program: object, rule: str, forbid_nested: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _Blocks(func, rule, forbid_nested, out).visit_stmt(func.body)
    return out


def verify_no_redundant_blocks(program: object) -> list[Diagnostic]:
    return _verify(program, "NoRedundantBlocks", forbid_nested=False)


def verify_normalized_stmt_structure(program: object) -> list[Diagnostic]:
    return _verify(program, "NormalizedStmtStructure", forbid_nested=True)

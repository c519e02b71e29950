"""NormalizeStmtStructure: no nested SeqStmts and no single-child SeqStmts in bodies (docs/architecture.md, the core)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass


class _Normalizer(IRMutator):
    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in flatten_to_stmts(seq)]
        if len(stmts) == len(seq.stmts) and all(a is b for a, b in zip(stmts, seq.stmts)) and len(stmts) != 1:
            return seq
        return make_body(stmts, seq.span)


def normalize_body(stmt: S.Stmt) -> S.Stmt:
    return _Normalizer().visit_stmt(stmt)


class NormalizeStmtStructure(Pass):
    """Flatten nested statement sequences and unwrap single-statement ones."""

    name = "NormalizeStmtStructure"
    factory_name = "normalize_stmt_structure"
    produced = ("NormalizedStmtStructure", "NoRedundantBlocks")
    description = "Flatten nested SeqStmts and unwrap single-child SeqStmts."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return _Normalizer().visit_program(program)

"""HasMemRefs: every AssignStmt whose variable is a tile carries a MemRef, except buffer-less tiles -- a
cross-core pop's result, its views and copies, whose data lives in the pipe ring (docs/passes/init_mem_ref.md)."""

from __future__ import annotations

from pypto_core.analysis.walk import statements
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import BufferlessTiles


def verify_has_memrefs(program: F.Program | F.Function) -> list[Diagnostic]:
    funcs = [program] if isinstance(program, F.Function) else list(program.functions.values())
    found: list[Diagnostic] = []
    for func in funcs:
        bufferless = BufferlessTiles()
        for stmt in statements(func.body):
            if not isinstance(stmt, S.AssignStmt) or not isinstance(stmt.var.type, TileType):
                continue
            if stmt.var.type.memref is not None:
                continue
            if bufferless.is_bufferless_value(stmt.value):
                bufferless.add(stmt.var)
                continue
            found.append(error("HasMemRefs", f"TileType variable '{stmt.var.name_hint}' has no MemRef initialized",
                               stmt.span))
    return found

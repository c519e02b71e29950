"""InitMemRef (docs/passes/init_mem_ref.md): every tensor and tile variable gets a MemRef -- the allocation it
lives in, a byte offset and a size -- and every on-chip allocation a `tile.alloc` at the top of its function.

Per function (Orchestration and Group included): the body is normalized, declared allocations are collected
(init_mem_ref_steps/declarations.py), parameters then body definitions get their MemRefs in program order
(init_mem_ref_steps/rewrite.py: buffer-less pipe tiles, views, in-place results and copies share a source's,
everything else a fresh `mem_<space>_<n>`), and the allocations are prepended (init_mem_ref_steps/allocations.py).
No addresses yet: every fresh MemRef starts at offset 0 (AllocateMemoryAddr places them).
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.memory_planner import MemoryPlanner, active_memory_planner
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_memory.init_mem_ref_steps.allocations import allocation_stmts, prepend
from pypto_plugins.pass_memory.init_mem_ref_steps.declarations import collect_declarations
from pypto_plugins.pass_memory.init_mem_ref_steps.hand_placed import reject_relied_on_sharing
from pypto_plugins.pass_memory.init_mem_ref_steps.naming import MemRefMinter
from pypto_plugins.pass_memory.init_mem_ref_steps.rewrite import FunctionMemRefs


class _Normalize(IRMutator):
    """NormalizeStmtStructure's rule, applied first (init_mem_ref.md 3.1): no nested or one-statement SeqStmts."""

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in flatten_to_stmts(seq)]
        if len(stmts) == len(seq.stmts) and all(a is b for a, b in zip(stmts, seq.stmts)) and len(stmts) != 1:
            return seq
        return make_body(stmts, seq.span)


def init_function(func: F.Function, backend: Any, planner: MemoryPlanner) -> F.Function:
    body = _Normalize().visit_stmt(func.body)
    func = func if body is func.body else func.with_fields(body=body)  # type: ignore[assignment]
    reject_relied_on_sharing(func, "InitMemRef")
    decls = collect_declarations(func, backend, planner)
    walk = FunctionMemRefs(func, MemRefMinter(backend, func.name), decls)
    params = walk.params()
    body = walk.stmt(func.body)
    body = prepend(body, allocation_stmts(params, body, decls, func.span))
    return func.with_fields(params=tuple(params), body=body)  # type: ignore[return-value]


class InitMemRef(Pass):
    """Give every tensor / tile variable a MemRef and declare every on-chip allocation with tile.alloc."""

    name = "InitMemRef"
    factory_name = "init_mem_ref"
    required = ("SSAForm", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D", "TileMemoryInferred")
    produced = ("NormalizedStmtStructure", "HasMemRefs")
    invalidated = ("SSAForm",)
    description = ("Give every tensor and tile variable a MemRef (allocation, byte offset, size): views, in-place "
                   "results and copies share their source's, others a fresh mem_<space>_<n>; declare each on-chip "
                   "allocation with tile.alloc at the top of its function.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = getattr(ctx, "backend", None)
        planner = active_memory_planner(ctx)
        return program.with_functions([init_function(f, backend, planner) for f in program.functions.values()])

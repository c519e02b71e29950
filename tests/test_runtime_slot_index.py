"""A declared allocation's runtime slot index (`buf[i % 2]`) reads the loop variable: renaming reaches it, the
type stays equal to one without a MemRef, and the planned program executes by address (docs/memory_planning.md,
Declared allocations)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import substitute
from pypto_core.ir.visitor import IRVisitor
from pypto_core.testing import checked_pipeline

SOURCE = '''\
import pypto.language as pl

buf = pl.MemRef(slots=2)


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.range(4):
            t: pl.Tile[[32, 64], pl.FP32, buf[i % 2], pl.Mem.Vec] = pl.load(a, [i * 32, 0], [32, 64])
            u: pl.Tile[[32, 64], pl.FP32, buf[(i + 1) % 2], pl.Mem.Vec] = pl.exp(t)
            out = pl.store(pl.add(u, t), [i * 32, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        out = self.k(a, out)
        return out
'''


def _loop_and_tile(program: ir.Program, tile_name: str) -> tuple[S.ForStmt, E.Var]:
    found: dict[str, object] = {}

    class Find(IRVisitor):
        def visit_for_stmt(self, s: S.ForStmt) -> None:
            found.setdefault("loop", s)
            super().visit_node(s)

        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            if s.var.name_hint.startswith(tile_name + "_") or s.var.name_hint == tile_name:
                found.setdefault("tile", s.var)
            super().visit_node(s)

    Find().visit_function(program.get_function("k"))
    return found["loop"], found["tile"]  # type: ignore[return-value]


def _vars_in(node: object) -> list[E.Var]:
    seen: list[E.Var] = []

    class Uses(IRVisitor):
        def visit_var(self, v: E.Var) -> None:
            seen.append(v)

    Uses().visit(node)
    return seen


def test_convert_to_ssa_renames_the_slot_index():
    after = passes.convert_to_ssa()(pl.parse(SOURCE))
    loop, tile = _loop_and_tile(after, "t")
    slot = tile.type.memref.slot_index_
    assert _vars_in(slot) == [loop.loop_var], ir.python_print(slot)
    assert "buf\", slots=2)[i__idx_v0 % 2]" in ir.python_print(after)


def test_the_slot_index_is_walked_but_not_compared():
    program = pl.parse(SOURCE)
    loop, tile = _loop_and_tile(program, "t")
    assert tile.type.has_vars  # so walkers enter the type
    fresh = E.Var("j", loop.loop_var.type)
    moved = substitute(tile.type, {loop.loop_var: fresh})
    assert _vars_in(moved.memref.slot_index_) == [fresh]
    # types that differ only in their MemRef are equal, and hash alike
    plain = tile.type.with_fields(memref=None)
    assert moved == tile.type == plain
    assert ir.structural_hash(moved) == ir.structural_hash(tile.type) == ir.structural_hash(plain)


def test_a_memref_base_is_an_identity_not_a_use():
    base = E.Var("mem_vec_0", ir.PtrType())
    i = E.Var("i", ir.ScalarType(pl.INDEX))
    m = ir.MemRef(base, 0, 64, slots=2, slot=i)
    assert _vars_in(m) == [i]
    assert ir.MemRef(base, 0, 64) != ir.MemRef(E.Var("mem_vec_1", ir.PtrType()), 0, 64)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_default_pipeline_runs_a_runtime_slot_by_address(backend):
    compiled = checked_pipeline(backend).run(pl.parse(SOURCE, "runtime_slot.py"))
    text = ir.python_print(compiled)
    # InitMemRef's runtime offset is slot x slot size; AllocateMemoryAddr adds the base address
    assert "% 2 * 8192, 8192, slots=2)[i__idx_v0 % 2]" in text
    assert "(i__idx_v0 + 1) % 2 * 8192, 8192, slots=2)[(i__idx_v0 + 1) % 2]" in text

"""MemRefs, pl.Ptr and tile.alloc as PyPTO prints them after memory planning (docs/memory_planning.md)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.analysis.memory import capacity_error, check_capacity, tile_bytes
from pypto_core.backend.registry import get_backend

HEADER = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"

# init_mem_ref.md E1 (views), as PyPTO prints it.
E1 = HEADER + '''\
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], out: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 2112, 3968), pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [8, 16])
        r2: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(t, [64, 32])
        e: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.exp(s)
        o: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(e, [0, 0], out)
        return o
'''

# allocate_memory_addr.md E6 (declared allocations after placement).
E6 = HEADER + '''\
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        ring: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(ping, pl.const(8192, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ring, pl.const(24576, pl.INT64), 8192, slots=2)[0], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ring, pl.const(32768, pl.INT64), 8192, slots=2)[1], pl.Mem.Vec] = pl.tile.load(a, [32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t4: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(t1, t2)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t0, [0, 0], o)
        return r
'''

# init_mem_ref.md E6 input: module-level declarations named by their variable.
DECLARED = '''\
import pypto.language as pl

ping = pl.MemRef()
ring = pl.MemRef(slots=2)


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, ping, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[32, 64], pl.FP32, ring[0], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        for i in pl.range(2):
            t5: pl.Tile[[32, 64], pl.FP32, ring[i % 2], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[64, 64], pl.FP32, ping, pl.Mem.Vec] = pl.tile.exp(t0)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t3, [0, 0], o)
        return r
'''


def body_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if ": pl." in line and "def " not in line]


def stmts(program: ir.Program) -> list:
    return list(program.get_function("k").body.stmts)


@pytest.mark.parametrize("text", [E1, E6], ids=["views", "declared_placed"])
def test_printed_programs_parse_and_print_back_the_same(text):
    program = pl.parse(text)
    printed = ir.python_print(program)
    assert body_lines(printed) == body_lines(text)
    assert ir.structural_equal(pl.parse(printed), program)


def test_parameter_memrefs_print_quoted_and_body_ones_by_name():
    printed = ir.python_print(pl.parse(E1))
    assert 'a: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)]' in printed
    assert "pl.MemRef(mem_vec_2, 2112, 3968)" in printed


def test_one_ptr_per_allocation_name():
    program = pl.parse(E1)
    f = program.get_function("k")
    body = stmts(program)
    mem_vec_2, t, s = body[0].var, body[2].var, body[3].var
    assert isinstance(mem_vec_2.type, ir.PtrType) and mem_vec_2.type == pl.Ptr()
    assert t.type.memref.base_ is mem_vec_2 and s.type.memref.base_ is mem_vec_2
    assert ir.MemRef.same_allocation(t.type.memref, s.type.memref)
    assert ir.MemRef.may_alias(t.type.memref, s.type.memref)
    assert s.type.memref.byte_offset_.value == 2112 and s.type.memref.size_ == 3968
    # the parameter's "mem_ddr_1" and the body's are one allocation
    assert f.params[1].type.memref.base_ is body[-2].var.type.memref.base_


def test_declarations_in_source_print_as_named_declarations():
    program = pl.parse(DECLARED)
    printed = ir.python_print(program)
    assert 'pl.Tile[[64, 64], pl.FP32, pl.MemRef("ping"), pl.Mem.Vec]' in printed
    assert 'pl.MemRef("ring", slots=2)[0]' in printed and 'pl.MemRef("ring", slots=2)[i % 2]' in printed
    again = pl.parse(printed)
    assert ir.python_print(again) == printed
    t0 = stmts(again)[0].var.type.memref
    assert t0.is_pinned_ and t0.name_hint == "ping" and t0.slot_count_ == 1


def test_alloc_statement_ir():
    alloc = stmts(pl.parse(E6))[0].value
    assert alloc.op.name == "tile.alloc" and alloc.kwargs == {"pinned": True}
    assert [a.value for a in alloc.args] == [pl.Mem.Vec.value, 16384] and isinstance(alloc.type, ir.PtrType)
    with pytest.raises(TypeError, match="takes 2 positional"):
        ir.create_op_call("tile.alloc", [ir.ConstInt(1, pl.INDEX)] * 4, {})


def test_structural_equality_ignores_memrefs():
    with_memrefs = pl.parse(E1)
    moved = pl.parse(E1.replace("2112, 3968", "4096, 64").replace('"mem_ddr_0"', '"elsewhere"'))
    assert ir.structural_equal(with_memrefs, moved)
    assert ir.structural_hash(with_memrefs) == ir.structural_hash(moved)
    stripped = E1
    for m in ['pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), ', "pl.MemRef(mem_vec_2, 2112, 3968), ",
              'pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), ']:
        stripped = stripped.replace(m, "")
    without = pl.parse(stripped)
    assert ir.structural_equal(with_memrefs, without)
    # ... but the alloc statements are compared
    assert not ir.structural_equal(with_memrefs, pl.parse(E1.replace("tile.alloc(pl.Mem.Vec, 2048)",
                                                                     "tile.alloc(pl.Mem.Vec, 4096)")))


def test_a_bare_memref_compares_its_fields():
    base = ir.Var("mem_vec_0", ir.PtrType())
    assert ir.MemRef(base, 0, 64) == ir.MemRef(base, 0, 64)
    assert ir.MemRef(base, 0, 64) != ir.MemRef(base, 32, 64)
    assert ir.MemRef(base, 0, 64) != ir.MemRef(base, 0, 128)


def test_memref_constructors():
    m = ir.MemRef("buf", 16, 64)
    assert m.name_hint == "buf" and m.byte_offset_.value == 16 and m.byte_offset_.type.dtype is pl.INT64
    assert ir.MemRef("buf", 0, 64).base_ is not m.base_  # a fresh Ptr per call
    legacy = ir.MemRef(pl.Mem.Vec, ir.ConstInt(0, pl.INT64), 512, 7)
    assert legacy.name_hint == "mem_vec_7"
    assert ir.MemRef(128, 256, 3).name_hint == "mem_3"
    decl = ir.MemRef("ring", slots=2)
    assert decl.is_pinned_ and decl.size_ == 0 and decl.slot_count_ == 2
    assert decl[1].base_ is decl.base_ and decl[1].slot_index_.value == 1
    with pytest.raises(ValueError, match="Slot index 2 is out of range for a declaration with 2 slot"):
        decl[2]
    with pytest.raises(ValueError, match="Only a declared allocation can be subscripted"):
        m[0]
    with pytest.raises(TypeError, match="base must be a Var of type pl.Ptr"):
        ir.MemRef(ir.Var("x", ir.ScalarType(pl.INDEX)), 0, 4)


def test_tile_bytes_per_page():
    vec = lambda shape, dt: ir.TileType(shape, dt, memory_space=pl.Mem.Vec)  # noqa: E731
    assert tile_bytes(vec([64, 64], pl.FP32)) == 16384
    assert tile_bytes(vec([1, 3], pl.FP32)) == 12
    assert tile_bytes(vec([16, 32], pl.INT8)) == 512
    assert tile_bytes(vec([16, 31], pl.INT4)) == 248
    acc = ir.TileType([16, 16], pl.INT32, memory_space=pl.Mem.Acc)
    assert tile_bytes(acc, get_backend("Ascend910B")) == 2048
    assert tile_bytes(acc, get_backend("Ascend950")) == 1024
    assert tile_bytes(ir.TileType([16, 16], pl.FP32, memory_space=pl.Mem.Acc), get_backend("Ascend910B")) == 1024
    assert tile_bytes(ir.TileType([ir.Var("n", ir.ScalarType(pl.INDEX)), 16], pl.FP32,
                                  memory_space=pl.Mem.Vec)) is None


@pytest.mark.parametrize(("backend", "limit"), [("Ascend910B", 188416), ("Ascend950", 245760)])
def test_capacity_error_names_space_function_bytes_limit_and_backend(backend, limit):
    b = get_backend(backend)
    check_capacity(pl.Mem.Vec, limit, "k", b)  # exactly full is fine
    with pytest.raises(ValueError) as info:
        check_capacity(pl.Mem.Vec, limit + 4096, "k", b, ir.Span("kern.py", 3, 5))
    text = str(info.value)
    assert f"Vec buffer usage ({limit + 4096} bytes) exceeds platform limit ({limit} bytes)" in text
    assert "'k'" in text and backend in text and "smaller tiles" in text and "fewer tiles live" in text
    assert "kern.py:3" in text
    check_capacity(pl.Mem.DDR, 1 << 40, "k", b)  # DDR: no capacity, never checked
    assert "reserved by system.reserve_buffer" in str(capacity_error(pl.Mem.Mat, 10, 5, "k", b, reserved=4))

"""InitMemRef (docs/passes/init_mem_ref.md): Before -> Expected for init_mem_ref.md E1 - E6 (the printed text where
the reference gives it, and offsets / sizes / bases read directly, since equality ignores MemRefs), one small
program per rule, the errors, and every program run by address on the reference machine before and after."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .memref_helpers import allocs, body_lines, layout, memref, parse, printed, run_pass

KERNEL = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {params}) -> {ret}:
{body}
'''


def kernel(body: str, params: str = "a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]",
           ret: str = "pl.Tensor[[32, 64], pl.FP32]", kind: str = "InCore") -> str:
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return KERNEL.format(params=params, ret=ret, body=lines).replace("InCore", kind)


def init(src: str | ir.Program, backend: str = "Ascend910B", ssa: bool = False, **kw: object) -> ir.Program:
    program = parse(src, ssa) if isinstance(src, str) else src
    return run_pass("init_mem_ref", program, backend, **kw)


# -- E1: views ------------------------------------------------------------------------------------------------
E1_BEFORE = kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [8, 16])
r2: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [64, 32])
e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
return o''', "a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]", "pl.Tensor[[16, 32], pl.FP32]")

E1_EXPECTED = '''\
def k(a: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], out: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[16, 32], pl.FP32]:
    mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
    mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
    t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
    s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 2112, 3968), pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [8, 16])
    r2: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.reshape(t, [64, 32])
    e: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.exp(s)
    o: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(e, [0, 0], out)
    return o
'''


def expected_program(text: str) -> ir.Program:
    body = "\n".join("    " + line for line in text.splitlines())
    return pl.parse("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
                    + body.replace("    def k(", "    def k(self, ", 1))


def test_e1_views_share_their_source_allocation():
    after = init(E1_BEFORE)
    assert body_lines(printed(after)) == body_lines(E1_EXPECTED)
    assert printed(after).count('def k(a: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0"') == 1
    ir.assert_structural_equal(after, expected_program(E1_EXPECTED))
    assert layout(after) == {"a": ("mem_ddr_0", 0, 8192), "out": ("mem_ddr_1", 0, 2048),
                             "t": ("mem_vec_2", 0, 8192), "s": ("mem_vec_2", 2112, 3968),
                             "r2": ("mem_vec_2", 0, 8192), "e": ("mem_vec_3", 0, 2048), "o": ("mem_ddr_1", 0, 2048)}
    assert memref(after, "r2") is memref(after, "t")  # a pure alias is the same MemRef object
    assert memref(after, "o") is memref(after, "out")  # tile.store lands in its output tensor
    assert ir.MemRef.same_allocation(memref(after, "s"), memref(after, "t"))
    assert memref(after, "s").byte_offset_.type.dtype is pl.INDEX
    assert memref(after, "t").byte_offset_.type.dtype is pl.INT64


# -- E2: Acc row padding per backend ---------------------------------------------------------------------------
E2 = kernel('''
am: pl.Tile[[16, 32], pl.INT8, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
bm: pl.Tile[[32, 16], pl.INT8, pl.Mem.Mat] = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
al: pl.Tile[[16, 32], pl.INT8, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
br: pl.Tile[[32, 16], pl.INT8, pl.Mem.Right] = pl.move(bm, target_memory=pl.Mem.Right)
c: pl.Tile[[16, 16], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(al, br)
c2: pl.Tile[[16, 16], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c, al, br)
o: pl.Tensor[[16, 16], pl.INT32] = pl.store(c2, [0, 0], out)
return o''', "a: pl.Tensor[[16, 32], pl.INT8], b: pl.Tensor[[32, 16], pl.INT8], out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]",
             "pl.Tensor[[16, 16], pl.INT32]", kind="AIC")


@pytest.mark.parametrize(("backend", "acc"), [("Ascend910B", 2048), ("Ascend950", 1024)])
def test_e2_cube_allocations_and_the_acc_row_padding_of_each_backend(backend, acc):
    after = init(E2, backend)
    assert allocs(after) == [("mem_mat_3", "Mat", 512, False), ("mem_mat_4", "Mat", 512, False),
                             ("mem_left_5", "Left", 512, False), ("mem_right_6", "Right", 512, False),
                             ("mem_acc_7", "Acc", acc, False)]
    lines = body_lines(printed(after))
    assert (f"c: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), {acc}), pl.Mem.Acc] = "
            "pl.tile.matmul(al, br)") in lines
    assert (f"c2: pl.Tile[[16, 16], pl.INT32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), {acc}), pl.Mem.Acc] = "
            "pl.tile.matmul_acc(c, al, br)") in lines
    assert memref(after, "c2") is memref(after, "c")  # matmul_acc accumulates into its acc operand
    assert memref(after, "out").size_ == 1024  # the DDR tensor is not padded


# -- E3: if, transpose, dynamic tensor -------------------------------------------------------------------------
E3_BEFORE = '''
N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a__ssa_v0: pl.Tensor[[N, 32], pl.FP32], flag__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        if flag__ssa_v0 == 0:
            u__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
            res__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(u__ssa_v0)
        else:
            v__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.neg(t__ssa_v0)
            res__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(v__ssa_v0)
        tr__ssa_v0: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(res__rv_v0, 0, 1)
        o__ssa_v0: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(tr__ssa_v0, [0, 0], out__ssa_v0)
        return o__ssa_v0
'''

E3_EXPECTED = '''\
    def k(a__ssa_v0: pl.Tensor[[N, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 0)], flag__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[32, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[32, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        t__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        if flag__ssa_v0 == 0:
            u__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
            res__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(u__ssa_v0)
        else:
            v__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.neg(t__ssa_v0)
            res__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.yield_(v__ssa_v0)
        tr__ssa_v0: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.transpose(res__rv_v0, 0, 1)
        o__ssa_v0: pl.Tensor[[32, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(tr__ssa_v0, [0, 0], out__ssa_v0)
        return o__ssa_v0
'''


def test_e3_if_results_take_the_then_branch_memref_and_a_transpose_gets_a_buffer_of_its_own():
    after = init(E3_BEFORE)
    assert body_lines(printed(after)) == body_lines(E3_EXPECTED)
    assert memref(after, "res__rv_v0") is memref(after, "u__ssa_v0")
    assert memref(after, "a__ssa_v0").size_ == 0  # a dynamic tensor has no static size


def test_the_else_yield_gives_the_if_result_its_memref_when_the_then_yield_has_none():
    after = init(kernel('''
if n == 0:
    pp: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
    r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(pp)
else:
    v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
    r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(v)
o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(r, [0, 0], out)
return o''', "x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
        "pl.Tensor[[32, 32], pl.FP32]", kind="AIV"), check=False)
    assert memref(after, "pp") is None
    assert memref(after, "r") is memref(after, "v")
    assert memref(after, "n") is None  # scalars never get one


# -- E4: loop carry --------------------------------------------------------------------------------------------
E4 = kernel('''
acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
for i, (acc,) in pl.range(4, init_values=(acc0,)):
    x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
    acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
return o''', "a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]", "pl.Tensor[[16, 64], pl.FP32]")


def test_e4_a_loop_carry_init_iter_arg_and_result_share_one_memref_the_yielded_value_keeps_its_own():
    after = init(E4)
    assert memref(after, "acc") is memref(after, "acc0") and memref(after, "acc_out") is memref(after, "acc0")
    got = layout(after)
    assert got["acc0"][0] == "mem_vec_2" and got["x"][0] == "mem_vec_3" and got["nxt"][0] == "mem_vec_4"
    # the result var took number 5 before the carry's MemRef replaced it: no mem_vec_5 allocation
    assert [a[0] for a in allocs(after)] == ["mem_vec_2", "mem_vec_3", "mem_vec_4"]


# -- E5: buffer-less pipe tiles --------------------------------------------------------------------------------
E5 = kernel('''
ld: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
pp: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
pv: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(pp, [32, 32])
al: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pv
sm: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sub(ld, al)
pl.system.tfree_to_aic(pp)
o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(sm, [0, 0], out)
return o''', "x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]", "pl.Tensor[[32, 32], pl.FP32]",
         kind="AIV")

E5_EXPECTED = '''\
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        ld: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        pp: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        pv: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(pp, [32, 32])
        al: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pv
        sm: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.sub(ld, al)
        pl.system.tfree_to_aic(pp)
'''


def test_e5_a_popped_tile_its_views_and_copies_have_no_buffer():
    after = init(E5, check=False)  # an AIV function alone cannot pop; the pipeline tests below run pops
    lines = body_lines(printed(after))
    for line in body_lines(E5_EXPECTED):
        assert line in lines
    assert memref(after, "pp") is None and memref(after, "pv") is None and memref(after, "al") is None
    assert not PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.HasMemRefs]), after)


# -- E6: declared allocations ----------------------------------------------------------------------------------
DECLARED = '''import pypto.language as pl

ping = pl.MemRef()
ring = pl.MemRef(slots=2)

''' + kernel('''
t0: pl.Tile[[64, 64], pl.FP32, ping, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
t1: pl.Tile[[32, 64], pl.FP32, ring[0], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
t2: pl.Tile[[32, 64], pl.FP32, ring[1], pl.Mem.Vec] = pl.tile.load(a, [32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
t3: pl.Tile[[64, 64], pl.FP32, ping, pl.Mem.Vec] = pl.tile.exp(t0)
t4: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t1, t2)
r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t3, [0, 0], o)
r2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t4, [0, 0], r)
return r2''', "a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]", "pl.Tensor[[64, 64], pl.FP32]")

E6_EXPECTED = '''\
        ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        ring: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ring, pl.const(0, pl.INT64), 8192, slots=2)[0], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(ring, pl.const(8192, pl.INT64), 8192, slots=2)[1], pl.Mem.Vec] = pl.tile.load(a, [32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[64, 64], pl.FP32, pl.MemRef(ping, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(t0)
        t4: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(t1, t2)
'''


def test_e6_declared_allocations_and_their_slots():
    before = pl.parse(DECLARED)
    assert 'pl.MemRef("ring", slots=2)[0]' in printed(before)
    after = init(before)
    lines = body_lines(printed(after))
    assert lines[:8] == body_lines(E6_EXPECTED)
    assert allocs(after)[:2] == [("ping", "Vec", 16384, True), ("ring", "Vec", 16384, True)]
    t1, t2 = memref(after, "t1"), memref(after, "t2")
    assert (t1.byte_offset_.value, t2.byte_offset_.value, t2.size_) == (0, 8192, 8192)
    assert t2.slot_count_ == 2 and t2.slot_index_.value == 1 and not t2.is_pinned_
    assert memref(after, "t3").base_ is memref(after, "t0").base_


def test_a_runtime_slot_index_is_an_index_product():
    src = '''import pypto.language as pl

ring = pl.MemRef(slots=2)

''' + kernel('''
for i, (acc,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[16, 64], pl.FP32, ring[i % 2], pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
    o: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u, [i * 16, 0], acc)
    acc_out: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(o)
return acc_out''', "a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                "pl.Tensor[[64, 64], pl.FP32]")
    after = init(pl.parse(src))
    m = memref(after, "t")
    assert isinstance(m.byte_offset_, ir.Mul) and m.byte_offset_.type.dtype is pl.INDEX
    assert "pl.MemRef(ring, i % 2 * 4096, 4096, slots=2)[i % 2]" in printed(after)
    assert allocs(after)[0] == ("ring", "Vec", 8192, True)
    # the tensor carry: init, iter_arg, result and the stored tensor share the output parameter's MemRef
    assert memref(after, "acc") is memref(after, "out") and memref(after, "acc_out") is memref(after, "out")


# -- rules, one small program each ------------------------------------------------------------------------------
def test_parameters_are_numbered_first_scalars_get_nothing_and_a_tile_parameter_gets_an_allocation():
    after = init(kernel('''
u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, s)
o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(u, [0, 0], out)
return o''', "t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
        "pl.Tensor[[16, 16], pl.FP32]"), check=False)
    assert layout(after) == {"t": ("mem_vec_0", 0, 1024), "out": ("mem_ddr_1", 0, 1024), "u": ("mem_vec_2", 0, 1024),
                             "o": ("mem_ddr_1", 0, 1024)}
    assert [a[0] for a in allocs(after)] == ["mem_vec_0", "mem_vec_2"]
    assert 'pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_vec_0", pl.const(0, pl.INT64), 1024), pl.Mem.Vec]' in printed(after)


def test_a_tile_copy_shares_its_source_a_tensor_copy_gets_a_fresh_ddr_memref():
    after = init(kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
t2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = t
a2: pl.Tensor[[32, 64], pl.FP32] = a
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t2, [0, 0], out)
return o'''))
    assert memref(after, "t2") is memref(after, "t")
    assert layout(after)["a2"] == ("mem_ddr_3", 0, 8192)  # t took mem_vec_2


def test_in_place_ops_write_into_the_operand_the_registry_names():
    after = init(kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
f: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(t, s, [16, 0])
g: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad_inplace(f)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(g, [0, 0], out)
return o'''))
    assert memref(after, "f") is memref(after, "t") and memref(after, "g") is memref(after, "t")
    assert memref(after, "o") is memref(after, "out")


def test_a_slice_at_a_runtime_offset_keeps_the_parent_size_and_an_index_offset():
    after = init(kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
s: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [n, 0])
e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(e, [0, 0], out)
return o''', "a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]"),
        check=False)
    m = memref(after, "s")
    assert m.base_ is memref(after, "t").base_ and m.size_ == 8192 and not isinstance(m.byte_offset_, ir.ConstInt)
    assert m.byte_offset_.type.dtype is pl.INDEX


def test_a_static_slice_at_offset_zero_keeps_the_parent_offset_with_its_own_size():
    after = init(kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
w: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s, [8, 64], [8, 0])
e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(e, [0, 0], out)
return o'''))
    got = layout(after)
    assert got["s"] == ("mem_vec_2", 0, 4096) and memref(after, "s").byte_offset_ is memref(after, "t").byte_offset_
    assert got["w"] == ("mem_vec_2", 2048, 2048)  # a slice of a slice: offsets add up


def test_an_orchestration_function_gets_ddr_memrefs_and_no_allocations():
    after = init('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(a, [16, 64], [16, 0])
        c: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        return s
''', check=False)
    got = layout(after, "main")
    assert got["a"] == ("mem_ddr_0", 0, 8192) and got["s"] == ("mem_ddr_0", 4096, 4096)
    assert got["c"] == ("mem_ddr_1", 0, 4096)
    assert allocs(after, "main") == []


def test_running_it_twice_mints_again_and_prepends_a_second_allocation_set():
    once = init(E1_BEFORE)
    twice = init(once)
    text = printed(twice)
    assert "mem_vec_2_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)" in text
    assert "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)" in text


# -- errors ----------------------------------------------------------------------------------------------------
def declared(body: str, decl: str = "buf = pl.MemRef()") -> ir.Program:
    return pl.parse(f"import pypto.language as pl\n\n{decl}\n\n" + kernel(body))


LOAD = "pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)"
STORE = "o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t0, [0, 0], out)\nreturn o"


def test_a_view_bound_to_a_declaration_is_refused_with_its_location():
    program = declared(f'''
t0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = {LOAD}
t1: pl.Tile[[16, 32], pl.FP32, buf, pl.Mem.Vec] = pl.tile.slice(t0, [16, 32], [0, 0])
{STORE}''')
    with pytest.raises(ValueError, match=r"Tile 't1' is produced by 'tile.slice', which lands in its source tile's "
                                         r"allocation, so it cannot be given one of its own\. Bind the source tile "
                                         r"instead\.\n  --> <string>:\d+:\d+"):
        init(program, check=False)


def test_tiles_of_two_spaces_bound_to_one_declaration_are_refused():
    program = declared(f'''
t0: pl.Tile[[32, 64], pl.FP32, buf, pl.Mem.Vec] = {LOAD}
t1: pl.Tile[[32, 64], pl.FP32, buf, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
{STORE}''')
    with pytest.raises(ValueError, match=r"Tiles bound to the declared allocation 'buf' must all live in the same "
                                         r"memory space, but 't1' is Mat while the allocation is already Vec"):
        init(program, check=False)


@pytest.mark.unverified
def test_references_disagreeing_on_the_slot_count_are_refused():
    program = pl.parse(HEADER_ONLY + kernel(f'''
t0: pl.Tile[[32, 64], pl.FP32, pl.MemRef("buf", slots=2)[0], pl.Mem.Vec] = {LOAD}
t1: pl.Tile[[32, 64], pl.FP32, pl.MemRef("buf", slots=3)[1], pl.Mem.Vec] = {LOAD}
{STORE}'''))
    with pytest.raises(ValueError, match=r"References to the declared allocation 'buf' disagree on how many slots it "
                                         r"has \(2 vs 3\)"):
        passes.init_mem_ref()(program)


HEADER_ONLY = "import pypto.language as pl\n\n"


@pytest.mark.unverified
def test_a_dynamic_tile_bound_to_a_declaration_is_refused():
    program = pl.parse("import pypto.language as pl\n\nbuf = pl.MemRef()\n\n" + kernel('''
t1: pl.Tile[[n, 64], pl.FP32, buf, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [n, 64], [n, 64], target_memory=pl.Mem.Vec)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t1, [0, 0], out)
return o''', "a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]"))
    with pytest.raises(ValueError, match=r"Tile 't1' is bound to the declared allocation 'buf' but has a dynamic "
                                         r"shape;"):
        passes.init_mem_ref()(program)


def test_a_single_slot_declaration_is_refused_under_ptoas():
    program = declared(f'''
t0: pl.Tile[[32, 64], pl.FP32, buf, pl.Mem.Vec] = {LOAD}
{STORE}''')
    with pytest.raises(ValueError, match=r'A single-slot declared allocation \(pl.MemRef\("buf"\)\) is not supported '
                                         r"under memory_planner=PTOAS"):
        init(program, planner=passes.MemoryPlanner.PTOAS, check=False)
    assert allocs(init(program, planner=passes.MemoryPlanner.PYPTO))[0] == ("buf", "Vec", 8192, True)


@pytest.mark.unverified
def test_a_dynamic_tile_is_an_internal_error():
    program = pl.parse(HEADER_ONLY + kernel('''
t0: pl.Tile[[n, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [n, 64], [n, 64], target_memory=pl.Mem.Vec)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t0, [0, 0], out)
return o''', "a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]"))
    with pytest.raises(pypto.InternalError, match=r"InitMemRef requires static shape for variable 't0', but shape "
                                                  r"element 0 is dynamic"):
        passes.init_mem_ref()(program)


@pytest.mark.unverified
def test_has_mem_refs_names_a_tile_without_one():
    after = init(E1_BEFORE)
    stripped = pl.parse(printed(after).replace("pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), ", ""))
    found = PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.HasMemRefs]), stripped)
    assert [d.message for d in found] == ["TileType variable 'e' has no MemRef initialized"]
    assert found[0].rule_name == "HasMemRefs"


def test_pass_identity():
    p = passes.init_mem_ref()
    assert p.get_name() == "InitMemRef"
    assert {str(x) for x in p.get_required_properties()} == {"SSAForm", "SplitIncoreOrch", "IncoreTileOps",
                                                              "TileOps2D", "TileMemoryInferred"}
    assert {str(x) for x in p.get_produced_properties()} == {"NormalizedStmtStructure", "HasMemRefs"}
    assert {str(x) for x in p.get_invalidated_properties()} == {"SSAForm"}


def test_a_tile_parameter_without_a_space_lives_in_ddr_and_says_so():
    """An orchestration function's Tile parameter that names no space gets a DDR MemRef and the space DDR, so its
    printed type (`pl.MemRef(..), pl.Mem.DDR`) reads back (fuzz finding: the MemRef printed without a space did
    not parse)."""
    src = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], x: pl.Tile[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.k(a, out)
        return r
'''
    after = init(src)
    assert 'x: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024), pl.Mem.DDR]' \
        in printed(after)
    ir.assert_structural_equal(after, pl.parse(ir.python_print(after)))

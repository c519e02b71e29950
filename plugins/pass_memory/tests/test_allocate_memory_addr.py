"""AllocateMemoryAddr (docs/passes/allocate_memory_addr.md): addresses per space in name order, 32-byte aligned,
above the reserve buffers; the overflow error; the AllocatedMemoryAddr verifier; execution by address."""

from __future__ import annotations

import re
import types

import pytest

import pypto
from pypto import ir, passes
from pypto_core.errors import InternalError
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_memory.tests import programs as P
from pypto_plugins.pass_memory.tests.helpers import (
    BACKENDS,
    address,
    assert_same_outputs,
    base,
    body_lines,
    memref,
    program,
    run_pass,
)

allocate = passes.allocate_memory_addr


def placed(text: str, backend: str = "Ascend910B") -> tuple[ir.Program, ir.Program]:
    before = program(text)
    return before, run_pass(allocate, before, backend)


def reserve(name: str, size: int, base_: int = -1) -> str:
    return f"\n        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='{name}', size={size}, base={base_})"


def ring(name: str, size: int, base_: int = -1) -> str:
    """A reserve buffer the cube's pipe setup takes as its vector-to-cube ring (a pipe-setup op reads it)."""
    return (f"\n        ring: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='{name}', size={size}, "
            f"base={base_})\n        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), ring, dir_mask=2, "
            f"slot_size={size // 2}, slot_num=2)")


# -- the pass's identity ------------------------------------------------------------------------------------

def test_name_factory_and_properties():
    p = allocate()
    assert p.get_name() == "AllocateMemoryAddr"
    assert set(map(str, p.get_required_properties())) == {"SplitIncoreOrch", "HasMemRefs", "IncoreTileOps",
                                                          "TileOps2D"}
    assert set(map(str, p.get_produced_properties())) == {"AllocatedMemoryAddr"}
    assert not list(p.get_invalidated_properties())


# -- order and placement (3.4) ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_e1_bases_in_name_order_each_member_keeps_its_base(backend):
    before, after = placed(P.NAME_ORDER, backend)
    # mem_vec_5 (4096 B) first, then mem_vec_6 (16384 B) at 4096; s took mem_vec_6's whole MemRef
    assert [address(after, v) for v in ("s", "s2", "big", "big2")] == [4096, 0, 4096, 4096]
    assert base(after, "s") == base(after, "big") == "mem_vec_6"
    assert ir.structural_equal(after, before)  # equality ignores MemRefs: the statements are unchanged
    assert_same_outputs(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_e2_string_order_and_32_byte_alignment(backend):
    before, after = placed(P.STRING_ORDER, backend)
    # order mem_vec_10, 11, 12, 8, 9: 12-byte tiles still take 32 bytes
    assert {v: address(after, v) for v in "xyzsw"} == {"z": 0, "s": 32, "w": 96, "x": 128, "y": 192}
    offset = memref(after, "x").byte_offset_
    assert offset.type.dtype is pypto.DataType.INT64  # what the planner writes: pl.const(128, pl.INT64)
    assert "pl.MemRef(mem_vec_8, pl.const(128, pl.INT64), 64)" in "\n".join(body_lines(after))
    assert_same_outputs(before, after, backend)


def test_views_keep_their_offset_inside_their_base():
    before, after = placed(P.VIEWS)
    assert (address(after, "t"), address(after, "s"), address(after, "e")) == (0, 2112, 8192)
    assert memref(after, "s").size_ == 3968
    for backend in BACKENDS:
        assert_same_outputs(before, after, backend)


def test_each_space_starts_at_zero():
    before, after = placed(P.cube_kernel("k", func_type="InCore"))
    assert [address(after, v) for v in ("am", "bm", "al", "br", "c")] == [0, 512, 0, 0, 0]
    for backend in BACKENDS:
        assert_same_outputs(before, after, backend)


def test_each_function_starts_at_zero():
    before = program(P.vec_kernel(16, 64, name="k"), P.vec_kernel(32, 64, name="k2"))
    after = run_pass(allocate, before)
    assert address(after, "t", "k") == address(after, "t", "k2") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_e6_declared_allocations_take_their_whole_size(backend):
    before, after = placed(P.declared(), backend)
    # mem_vec_2 < ping < ring; ring reserves both of its slots (16384 bytes from its alloc)
    assert {v: address(after, v) for v in ("t4", "t0", "t3", "t1", "t2")} == \
        {"t4": 0, "t0": 8192, "t3": 8192, "t1": 24576, "t2": 32768}
    assert memref(after, "t2").slot_count_ == 2 and memref(after, "t2").slot_index_.value == 1
    assert_same_outputs(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_runtime_slot_index_becomes_base_address_plus_offset(backend):
    before, after = placed(P.declared(slot_index_loop=True), backend)
    offset = memref(after, "t5").byte_offset_
    assert isinstance(offset, ir.Add) and offset.left.value == address(after, "t1") == 32768
    assert offset.left.type.dtype is pypto.DataType.INDEX
    assert "pl.MemRef(ring, 32768 + i % 2 * 8192, 8192, slots=2)[i % 2]" in "\n".join(body_lines(after))
    assert_same_outputs(before, after, backend)


def test_a_runtime_offset_on_a_compiler_base_takes_the_base_address():
    text = P.declared(slot_index_loop=True).replace('pl.MemRef(ring, (i % 2) * 8192, 8192, slots=2)[i % 2]',
                                                     'pl.MemRef(mem_vec_4, (i % 2) * 0, 8192)')
    text = text.replace("pl.tile.alloc(pl.Mem.Vec, 8192)\n", "pl.tile.alloc(pl.Mem.Vec, 8192)\n        "
                        "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)\n", 1)
    before, after = placed(text)
    assert memref(after, "t5").byte_offset_.value == 16384  # mem_vec_2, mem_vec_3, then mem_vec_4
    assert_same_outputs(before, after, "Ascend910B")


def test_tensor_memrefs_and_alloc_statements_are_untouched():
    text = P.VIEWS.replace("a: pl.Tensor[[32, 64], pl.FP32]",
                           'a: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)]')
    before, after = placed(text)
    assert address(after, "a") == 0
    assert body_lines(after)[:2] == body_lines(before)[:2]


def test_a_zero_sized_memref_is_an_internal_error():
    text = P.VIEWS.replace('mem_vec_3, pl.const(0, pl.INT64), 2048', 'mem_vec_3, pl.const(0, pl.INT64), 0')
    with pytest.raises(InternalError, match="zero-sized MemRef on 'e'"):
        placed(text)


# -- function types (3.1) -----------------------------------------------------------------------------------

@pytest.mark.parametrize("func_type", ["InCore", "AIV"])
def test_vector_kernels_are_placed(func_type):
    before = program(P.NAME_ORDER.replace("FunctionType.InCore", f"FunctionType.{func_type}"))
    after = run_pass(allocate, before)
    assert address(after, "s") == 4096


@pytest.mark.unverified
@pytest.mark.parametrize("func_type", ["Opaque", "Orchestration"])
def test_other_functions_are_returned_unchanged(func_type):
    before = program(P.NAME_ORDER.replace("FunctionType.InCore", f"FunctionType.{func_type}"))
    after = allocate()(before)
    assert after is before


@pytest.mark.unverified
def test_e3_an_opaque_function_is_not_checked_by_the_pass_but_by_the_verifier():
    before = program(P.vec_kernel(64, 752, "Opaque"))
    assert allocate()(before) is before  # nothing placed, no capacity check
    pipeline = passes.PassPipeline()
    pipeline.add_pass(allocate())
    with pytest.raises(pypto.Error) as info:
        pipeline.run(before)
    text = str(info.value)
    assert "Verification failed after 'AllocateMemoryAddr' for properties {AllocatedMemoryAddr}" in text
    assert "Function 'k': Vec buffer usage (192512 bytes) exceeds platform limit (188416 bytes)" in text
    assert "Error Code: 1" in text


# -- reserve buffers (3.2) ----------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_e5_an_auto_reserve_buffer_gets_base_0_and_mat_tiles_start_above_it(backend):
    before, after = placed(P.cube_kernel(reserve=reserve("mykern_v2c_slot_buffer", 4000)), backend)
    lines = body_lines(after, "mykern_aic")
    assert "_: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='mykern_v2c_slot_buffer', size=4000, base=0)" \
        in lines
    assert [address(after, v, "mykern_aic") for v in ("am", "bm", "al", "c")] == [4000, 4512, 0, 0]
    assert not ir.structural_equal(after, before)  # the resolved base is compared
    assert_same_outputs(before, after, backend, "mykern_aic")


def test_vector_functions_reserve_in_vec():
    before = program(P.vec_kernel(16, 64, "AIV", "k", reserve("ring", 32768)))
    after = run_pass(allocate, before)
    assert address(after, "t") == 32768


def test_windows_follow_each_other_and_an_explicit_base_stays():
    text = P.vec_kernel(16, 64, reserve=reserve("w1", 100) + reserve("w2", 40, 512) + reserve("w3", 8))
    after = run_pass(allocate, program(text))
    lines = "\n".join(body_lines(after))
    # w1 at 0 (ends at 128), w2 kept at 512 (ends at 576), w3 at the cursor 576 (ends at 608)
    assert re.search(r"name='w1', size=100, base=0\)", lines) and "name='w2', size=40, base=512)" in lines
    assert "name='w3', size=8, base=576)" in lines
    assert address(after, "t") == 608


def test_overlapping_reserve_buffers_are_an_internal_error():
    text = P.vec_kernel(16, 64, reserve=reserve("w1", 100, 0) + reserve("w2", 40, 64))
    with pytest.raises(InternalError, match="overlapping reserve_buffer ranges in function 'k'"):
        placed(text)


# -- capacity (3.5, 4) --------------------------------------------------------------------------------------

def test_e3_overflow_names_space_bytes_limit_function_backend_and_fix():
    with pytest.raises(ValueError) as info:
        placed(P.vec_kernel(64, 752))
    text = str(info.value)
    assert text.startswith("Vec buffer usage (192512 bytes) exceeds platform limit (188416 bytes): function 'k' "
                           "needs 192512 bytes of Vec but backend Ascend910B provides 188416")
    assert "Use smaller tiles" in text and "keep fewer tiles live at once in Vec" in text
    assert "reserve_buffer" not in text
    assert "<string>:9" in text  # the first tile that does not fit


def test_e3_the_same_kernel_fits_ascend950():
    before, after = placed(P.vec_kernel(64, 752), "Ascend950")
    assert address(after, "t") == 0
    assert_same_outputs(before, after, "Ascend950")


ODD_SIZES = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 47100], pl.FP32], b: pl.Tensor[[1, 3], pl.FP32], o1: pl.Out[pl.Tensor[[1, 47100], pl.FP32]], o2: pl.Out[pl.Tensor[[1, 3], pl.FP32]]) -> tuple[pl.Tensor[[1, 47100], pl.FP32], pl.Tensor[[1, 3], pl.FP32]]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 188400)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 12)
        t: {P.tile("[1, 47100]", "mem_vec_2, pl.const(0, pl.INT64), 188400")} = pl.tile.load(a, [0, 0], [1, 47100], [1, 47100], target_memory=pl.Mem.Vec)
        w: {P.tile("[1, 3]", "mem_vec_3, pl.const(0, pl.INT64), 12")} = pl.tile.load(b, [0, 0], [1, 3], [1, 3], target_memory=pl.Mem.Vec)
        r1: pl.Tensor[[1, 47100], pl.FP32] = pl.tile.store(t, [0, 0], o1)
        r2: pl.Tensor[[1, 3], pl.FP32] = pl.tile.store(w, [0, 0], o2)
        return r1, r2
'''


def test_the_used_bytes_include_alignment_gaps():
    # 188400 + 12 bytes would fit unaligned, but w starts at align32(188400) = 188416, so Vec ends at 188448
    with pytest.raises(ValueError, match=r"Vec buffer usage \(188448 bytes\) exceeds platform limit \(188416") as info:
        placed(ODD_SIZES)
    assert "<string>:11" in str(info.value) and "w: pl.Tile" in str(info.value)  # the tile that does not fit
    before, after = placed(ODD_SIZES, "Ascend950")
    assert address(after, "w") == 188416
    assert_same_outputs(before, after, "Ascend950")


def test_e5_a_cross_core_ring_overflow_says_how_to_shrink_the_ring():
    with pytest.raises(ValueError) as info:
        placed(P.cube_kernel(reserve=ring("mykern_v2c_slot_buffer", 523800)))
    text = str(info.value)
    assert text.startswith("Mat buffer usage (524832 bytes) exceeds platform limit (524288 bytes)")
    assert ("The first 523808 bytes of that space are reserved by system.reserve_buffer, so tiles are allocated "
            "above them — this is the cross-core pipe ring. Lower its depth with "
            "optimizations=[pl.cross_core_slot(slot_num=N)]") in text


def test_e5_another_window_only_says_it_is_reserved():
    with pytest.raises(ValueError) as info:
        placed(P.cube_kernel(reserve=reserve("scratch", 523800)))
    text = str(info.value)
    assert "reserved by system.reserve_buffer, so tiles are allocated above them" in text
    assert "cross-core pipe ring" not in text


def test_the_ring_note_needs_a_pipe_setup_reading_the_window_not_a_ring_name():
    with pytest.raises(ValueError) as info:
        placed(P.cube_kernel(reserve=reserve("mykern_v2c_slot_buffer", 523800)))
    assert "cross-core pipe ring" not in str(info.value)
    with pytest.raises(ValueError) as info:
        placed(P.cube_kernel(reserve=ring("any_name", 523800)))
    assert "cross-core pipe ring" in str(info.value)


TINY_BACKEND = '''
from pypto.plugin import Backend, CAPABILITIES, CoreGroup, MemorySpace, hookimpl


@hookimpl
def pypto_register_backends(registry):
    registry.register_backend(Backend("TinyChip", {k: False for k in CAPABILITIES},
                                      {MemorySpace.Vec: 6144, MemorySpace.Mat: 1024}, CoreGroup(),
                                      description="a chip with little on-chip memory"))
'''


@pytest.fixture
def tiny_backend():
    module = types.ModuleType("tiny_backend_plugin")
    exec(compile(TINY_BACKEND, "<tiny_backend_plugin>", "exec"), module.__dict__)
    register_in_process_plugin("tiny_backend", module)
    try:
        yield "TinyChip"
    finally:
        reload_plugins(disabled=[], extra=[])


def test_a_third_party_backend_s_capacities_are_used_as_declared(tiny_backend):
    before, after = placed(P.vec_kernel(16, 64), tiny_backend)  # 4096 bytes fit 6144
    assert address(after, "t") == 0
    with pytest.raises(ValueError, match=r"Vec buffer usage \(8192 bytes\) exceeds platform limit \(6144 bytes\): "
                                         r"function 'k' needs 8192 bytes of Vec but backend TinyChip provides 6144"):
        placed(P.vec_kernel(32, 64), tiny_backend)


# -- the AllocatedMemoryAddr verifier ----------------------------------------------------------------------

def verify(prog: ir.Program) -> list:
    return passes.PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.AllocatedMemoryAddr]),
                                                  prog)


def test_the_verifier_accepts_a_placed_program():
    _, after = placed(P.declared())
    assert verify(after) == []


def test_the_verifier_reports_a_negative_address():
    text = P.VIEWS.replace("mem_vec_3, pl.const(0, pl.INT64), 2048", "mem_vec_3, -1, 2048")
    diags = verify(program(text))
    assert [d.message for d in diags] == ["Function 'k': tile 'e' (allocation 'mem_vec_3') has a negative address (-1)"]


def test_the_verifier_high_water_mark_is_unaligned_and_names_the_reserved_window():
    text = P.cube_kernel(reserve=ring("mykern_v2c_slot_buffer", 523800, 0)).replace(
        "mem_mat_4, pl.const(0, pl.INT64), 512", "mem_mat_4, pl.const(523808, pl.INT64), 512")
    diags = verify(program(text))
    assert len(diags) == 1 and diags[0].error_code == 1
    assert diags[0].message.startswith("Function 'mykern_aic': Mat buffer usage (524320 bytes) exceeds platform "
                                       "limit (524288 bytes). The first 523808 bytes of that space are reserved")
    assert "cross-core pipe ring" in diags[0].message

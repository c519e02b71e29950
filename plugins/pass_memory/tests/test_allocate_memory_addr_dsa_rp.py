"""AllocateMemoryAddr under the DSA_RP planner (docs/passes/allocate_memory_addr.md, DSA_RP): one buffer per
allocation, hard separations, cross-pipe reuse penalties, the capacity-bounded greedy solver, the relaxation of
pipeline stages (PH-DSA-001), the located error, unused allocations deleted and pipeline tags removed;
`pypto.testing.recognize_dsa_reuse_penalties`; every placed program run by address before and after."""

from __future__ import annotations

import types

import pytest

import pypto.language as pl
import pypto.testing
from pypto import ir, passes
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_memory.tests import programs as P
from pypto_plugins.pass_memory.tests.helpers import (
    BACKENDS,
    address,
    assert_same_outputs,
    body_lines,
    program,
    run_pass,
)

DSA_RP = passes.MemoryPlanner.DSA_RP


def dsa_placed(text: str, backend: str = "Ascend910B") -> tuple[ir.Program, ir.Program]:
    before = program(text)
    return before, run_pass(passes.allocate_memory_addr, before, backend, memory_planner=DSA_RP)


def spans(prog: ir.Program, *names: str) -> dict[str, tuple[int, int]]:
    """name -> [address, address + size) of each tile."""
    from pypto_plugins.pass_memory.tests.helpers import memref

    out = {}
    for n in names:
        m = memref(prog, n)
        out[n] = (m.byte_offset_.value, m.byte_offset_.value + m.size_)
    return out


def overlapping(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def alloc_names(prog: ir.Program) -> list[str]:
    return [s.var.name_hint for s in prog.get_function("k").body.stmts
            if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.PtrType)]


# -- E7: the worked example, from the DSL through InitMemRef + MaterializeSemanticAliases -------------------------

E7_SOURCE = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.recip(s)
        r1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s2, [0, 0], o1)
        big: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        big2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(big, big)
        r2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(big2, [0, 0], o2)
        return r1, r2
'''

E7_EXPECTED = [
    "s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(32768, pl.INT64), 4096), pl.Mem.Vec] = "
    "pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
    "s2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(36864, pl.INT64), 4096), pl.Mem.Vec] = "
    "pl.tile.recip(s)",
    "big: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = "
    "pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
    "big2: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_7, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = "
    "pl.tile.add(big, big)",
]


def planned_under_dsa_rp(src: str, backend: str = "Ascend910B") -> tuple[ir.Program, ir.Program]:
    from pypto_core.passes.instruments.assemble import pass_test_instruments

    with passes.PassContext(pass_test_instruments(), backend=backend, memory_planner=DSA_RP):
        before = passes.materialize_semantic_aliases()(passes.init_mem_ref()(pl.parse(src)))
        return before, passes.allocate_memory_addr()(before)


@pytest.mark.parametrize("backend", BACKENDS)
def test_e7_all_four_allocations_kept_and_no_two_buffers_overlap(backend):
    before, after = planned_under_dsa_rp(E7_SOURCE, backend)
    lines = body_lines(after)
    for line in E7_EXPECTED:
        assert line in lines
    assert alloc_names(after) == ["mem_vec_4", "mem_vec_5", "mem_vec_6", "mem_vec_7"]
    assert ir.structural_equal(after, before)  # only MemRefs changed
    assert_same_outputs(before, after, backend)


def test_under_pypto_the_same_program_is_placed_sequentially():
    from pypto_core.passes.instruments.assemble import pass_test_instruments

    with passes.PassContext(pass_test_instruments(), backend="Ascend910B"):
        after = passes.allocate_memory_addr()(passes.init_mem_ref()(pl.parse(E7_SOURCE)))
    assert [address(after, v) for v in ("s", "s2", "big", "big2")] == [0, 4096, 8192, 24576]


# -- the recognizer's soft edges (FORMS §8) --------------------------------------------------------------------

LOAD_ADD_STORE_LOAD = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        big: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        big2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(big, big)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(big2, [0, 0], o)
        big3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        r2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(big3, [0, 0], o2)
        return r2
'''


def edge(i: int, j: int, a: str, b: str, cost: int = 1) -> dict:
    return {"first_interval": i, "second_interval": j, "first_name": a, "second_name": b, "cost": cost}


def test_the_recognizer_gives_the_checked_soft_edges_of_load_add_store_load():
    before, after = planned_under_dsa_rp(LOAD_ADD_STORE_LOAD)
    assert pypto.testing.recognize_dsa_reuse_penalties(before.get_function("k")) == [
        edge(0, 1, "big", "big2"), edge(1, 2, "big2", "big3"), edge(0, 2, "big", "big3")]
    assert [address(after, v) for v in ("big", "big2", "big3")] == [0, 16384, 32768]
    assert_same_outputs(before, after, "Ascend910B")


def test_same_pipe_reuse_is_free_so_no_edge_and_the_bytes_are_shared():
    before, after = dsa_placed(P.CHAIN)  # t = load (MTE2), u = add (V), v = muls(u) (V)
    assert pypto.testing.recognize_dsa_reuse_penalties(before.get_function("k")) == [
        edge(0, 1, "t", "u"), edge(0, 2, "t", "v")]
    assert [address(after, v) for v in ("t", "u", "v")] == [0, 16384, 16384]
    assert_same_outputs(before, after, "Ascend910B")


def test_pairs_that_may_not_share_get_no_edge():
    # s2 = recip(s) may not write over s; s and big2 are not live together, so they do get one
    before = program(P.LARGEST_FIRST)
    pairs = {(e["first_name"], e["second_name"]) for e in
             pypto.testing.recognize_dsa_reuse_penalties(before.get_function("k"))}
    assert ("s", "s2") not in pairs and ("s", "big2") in pairs


def test_the_recognizer_takes_a_function():
    with pytest.raises(TypeError, match="takes one Function"):
        pypto.testing.recognize_dsa_reuse_penalties(program(P.CHAIN))


# -- capacity pressure: small third-party backends ---------------------------------------------------------------

SMALL = '''
from pypto.plugin import Backend, CAPABILITIES, CoreGroup, MemorySpace, hookimpl


@hookimpl
def pypto_register_backends(registry):
    for name, vec in (("DsaVec40000", 40000), ("DsaVec20000", 20000), ("DsaVec6000", 6000),
                      ("DsaVec300", 300), ("DsaVec8192", 8192)):
        registry.register_backend(Backend(name, {k: False for k in CAPABILITIES}, {MemorySpace.Vec: vec},
                                          CoreGroup(), description=f"{vec} bytes of Vec"))
    registry.register_backend(Backend("DsaHazard8192", {k: False for k in CAPABILITIES}, {MemorySpace.Vec: 8192},
                                      CoreGroup(), facts={"split_load_tpop_hazard": True},
                                      description="8192 bytes of Vec and the split-AIV load + pop hazard"))
'''


@pytest.fixture(scope="module")
def small_backends():
    module = types.ModuleType("dsa_small_backends")
    exec(compile(SMALL, "<dsa_small_backends>", "exec"), module.__dict__)
    register_in_process_plugin("dsa_small_backends", module)
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


def test_under_pressure_the_cheapest_reuse_is_taken(small_backends):
    before, after = dsa_placed(P.LARGEST_FIRST, "DsaVec40000")
    # big 0, big2 16384, s 32768 fit; s2 (36864 + 4096 > 40000) reuses big's dead bytes at cost 1
    assert [address(after, v) for v in ("big", "big2", "s", "s2")] == [0, 16384, 32768, 0]
    assert_same_outputs(before, after, "DsaVec40000")


RECIP = f'''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:{P.allocs(4096, "mem_vec_2", "mem_vec_3")}
        s: {P.vec("[16, 64]", "mem_vec_2", 4096)} = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s2: {P.vec("[16, 64]", "mem_vec_3", 4096)} = pl.tile.recip(s)
        r1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s2, [0, 0], o1)
        return r1
'''


def test_a_no_alias_operand_is_never_overlapped_even_under_pressure(small_backends):
    # 6000 bytes: s2 = recip(s) may not take s's bytes, and above them it does not fit
    with pytest.raises(ValueError) as info:
        dsa_placed(RECIP, "DsaVec6000")
    text = str(info.value)
    assert text.startswith("DSA-RP could not find a placement for 'k' within the on-chip memory capacities: "
                           "canonical greedy found no capacity-fitting placement: 's2' (4096 bytes of Vec) fits "
                           "nowhere in the 6000 bytes backend DsaVec6000 provides beside the tiles live with it")
    assert "Use smaller tiles" in text and "-->" in text  # the fix and the location
    before, after = dsa_placed(RECIP, "DsaVec20000")
    assert [address(after, v) for v in ("s", "s2")] == [0, 4096]
    assert_same_outputs(before, after, "DsaVec20000")


def test_with_room_for_neither_tile_the_first_is_named(small_backends):
    with pytest.raises(ValueError, match=r"no capacity-fitting placement: 't' \(16384 bytes of Vec\)"):
        dsa_placed(P.CHAIN, "DsaVec6000")


def test_co_live_tiles_never_share_bytes():
    before, after = dsa_placed(P.declared())
    ranges = spans(after, "t0", "t1", "t2", "t3", "t4")
    assert not overlapping(ranges["t0"], ranges["t1"]) and not overlapping(ranges["t1"], ranges["t2"])
    assert not overlapping(ranges["t4"], ranges["t1"]) and not overlapping(ranges["t4"], ranges["t0"])
    assert_same_outputs(before, after, "Ascend910B")


def test_a_declared_allocation_shares_its_bytes_with_nobody_and_keeps_its_whole_size():
    before, after = dsa_placed(P.declared())
    ping, ring = spans(after, "t0")["t0"], spans(after, "t1")["t1"]
    assert ping[1] - ping[0] == 16384 and address(after, "t2") == ring[0] + 8192  # slot 1 inside ring
    t4 = spans(after, "t4")["t4"]
    assert not overlapping(t4, ping) and not overlapping(t4, (ring[0], ring[0] + 16384))
    assert_same_outputs(before, after, "Ascend910B")


def test_a_runtime_slot_index_keeps_its_offset_inside_the_declared_allocation():
    before, after = dsa_placed(P.declared(slot_index_loop=True))
    t5 = [line for line in body_lines(after) if line.startswith("t5:")][0]
    assert f"pl.MemRef(ring, {address(after, 't1')} + i % 2 * 8192, 8192, slots=2)[i % 2]" in t5
    assert_same_outputs(before, after, "Ascend910B")


def test_tiles_start_above_the_reserve_buffers():
    reserve = "\n        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='scratch', size=4000, base=-1)"
    before, after = dsa_placed(P.cube_kernel(name="k", reserve=reserve))
    assert min(address(after, v) for v in ("am", "bm")) == 4000  # Mat above the window
    assert address(after, "al") == 0 and address(after, "c") == 0  # other spaces start at 0
    assert "base=0" in "\n".join(body_lines(after))
    assert_same_outputs(before, after, "Ascend910B")


# a popped cube tile read again after the pop consumer, so the consumer may only reuse the loaded tile's bytes
HAZARD = P.SPLIT_HAZARD.replace(P.allocs(4096, "buf_c"), P.allocs(4096, "buf_c", "buf_d")).replace(
    """        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(sm, [0, 0], out)""",
    f"""        s2: {P.tile("[32, 32]", "buf_d, 0, 4096")} = pl.tile.add(sm, pp)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(s2, [0, 0], out)""")


def test_the_split_aiv_hazard_is_a_hard_separation(small_backends):
    assert "buf_d: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)" in HAZARD
    with pytest.raises(ValueError, match="no capacity-fitting placement: 'sm'"):
        dsa_placed(HAZARD, "DsaHazard8192")
    _, after = dsa_placed(HAZARD, "DsaVec8192")  # without the hazard sm takes the loaded tile's bytes
    assert [address(after, v) for v in ("ld", "pp", "sm")] == [0, 4096, 0]


# -- pipeline stages: hard, relaxed when they do not fit (PH-DSA-001), tags removed ------------------------------

def test_requested_stages_keep_their_own_bytes_and_the_tags_go():
    before, after = dsa_placed(P.pipelined())
    ranges = spans(after, "t", "u", "t_1", "u_1")
    for a in ("t", "u"):
        for b in ("t_1", "u_1"):
            assert not overlapping(ranges[a], ranges[b])
    assert not any("pipeline_membership" in line for line in body_lines(after))
    assert_same_outputs(before, after, "Ascend910B")


def test_stages_that_do_not_fit_are_relaxed_with_a_perf_hint(small_backends, capfd):
    before, after = dsa_placed(P.pipelined(), "DsaVec300")
    ranges = spans(after, "t", "u", "t_1", "u_1")
    assert all(hi <= 300 for _, hi in ranges.values())
    assert overlapping(ranges["t"], ranges["t_1"])
    err = capfd.readouterr().err
    assert "[perf_hint PH-DSA-001] AllocateMemoryAddr: DSA-RP: the stages of pipeline group 0 in Vec do not fit " \
           "300 B side by side" in err
    assert_same_outputs(before, after, "DsaVec300")


def test_the_relaxation_hint_goes_to_the_report_log(small_backends, tmp_path):
    with passes.PassContext([passes.ReportInstrument(tmp_path)], backend="DsaVec300", memory_planner=DSA_RP):
        passes.allocate_memory_addr()(program(P.pipelined()))
    assert "PH-DSA-001" in (tmp_path / "perf_hints.log").read_text()


# -- afterwards: unused allocations go ---------------------------------------------------------------------------

LOOP_SOURCE = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(4, init_values=(acc0,)):
            x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
            acc_out = pl.yield_(nxt)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
        return o
'''


def test_allocations_nothing_uses_any_more_are_deleted():
    before, after = planned_under_dsa_rp(LOOP_SOURCE)
    assert len(alloc_names(before)) == 3  # nxt's own allocation is unused after MaterializeSemanticAliases
    assert len(alloc_names(after)) == 2
    assert_same_outputs(before, after, "Ascend910B")


def test_a_zero_sized_memref_is_an_internal_error():
    from pypto_core.errors import InternalError

    text = P.VIEWS.replace("mem_vec_3, pl.const(0, pl.INT64), 2048", "mem_vec_3, pl.const(0, pl.INT64), 0")
    with pytest.raises(InternalError, match="zero-sized MemRef on 'e'"):
        dsa_placed(text)


def test_views_keep_their_offset_inside_their_buffer():
    before, after = dsa_placed(P.VIEWS)
    assert address(after, "s") - address(after, "t") == 2112  # the slice's offset inside t's allocation
    assert_same_outputs(before, after, "Ascend910B")


def test_other_functions_are_returned_unchanged():
    before = program(P.vec_kernel(16, 64, "Opaque"))
    after = run_pass(passes.allocate_memory_addr, before, memory_planner=DSA_RP)
    assert address(after, "t") == 0 and after.get_function("k") is before.get_function("k")


def test_a_pass_manager_run_inside_the_context_reports_to_the_log(small_backends, tmp_path):
    from pypto_core.passes.manager import PassManager

    with passes.PassContext([passes.ReportInstrument(tmp_path)], memory_planner=DSA_RP):
        manager = PassManager([passes.allocate_memory_addr()], backend="DsaVec300", verify="basic")
        manager.run(program(P.pipelined()))
    assert (tmp_path / "perf_hints.log").read_text().count("PH-DSA-001") >= 1

"""MemoryReuse (docs/passes/memory_reuse.md): lifetimes, in-place compatibility, the split-AIV hazard, pipeline
stages, the capacity fit and its warnings, the yield fix-up, the declared-slot error; every result executed by
address on both backends with the outputs of its input."""

from __future__ import annotations

import threading
import types
import warnings

import pytest

from pypto import ir, passes
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_memory.reuse.packing import MemoryReuseWarning
from pypto_plugins.pass_memory.tests import programs as P
from pypto_plugins.pass_memory.tests.helpers import (
    BACKENDS,
    assert_same_outputs,
    base,
    body_lines,
    program,
    run_pass,
)

reuse = passes.memory_reuse


def reused(text: str, backend: str = "Ascend910B", check: bool = True, **given) -> ir.Program:
    before = program(text)
    after = run_pass(reuse, before, backend)
    if check:
        for b in BACKENDS:
            assert_same_outputs(before, after, b, **given)
    return after


def allocs(prog: ir.Program) -> list[str]:
    return [line.split(":")[0] for line in body_lines(prog) if "pl.tile.alloc(" in line]


def bases(prog: ir.Program, *names: str) -> list[str]:
    return [base(prog, n) for n in names]


def test_name_factory_and_properties():
    p = reuse()
    assert p.get_name() == "MemoryReuse"
    assert set(map(str, p.get_required_properties())) == {"NormalizedStmtStructure", "SplitIncoreOrch",
                                                          "HasMemRefs", "IncoreTileOps", "TileOps2D"}
    assert set(map(str, p.get_produced_properties())) == {"NormalizedStmtStructure"}


# -- lifetimes and packing ------------------------------------------------------------------------------------

def test_e1_a_chain_shares_one_buffer_and_unused_allocs_go():
    after = reused(P.CHAIN)
    assert bases(after, "t", "u", "v") == ["mem_vec_2"] * 3
    assert allocs(after) == ["mem_vec_2"]
    assert ir.structural_equal(after, program(P.CHAIN.replace(
        "\n        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)\n        mem_vec_4: pl.Ptr = pl.tile.alloc("
        "pl.Mem.Vec, 16384)", "")))


def test_e2_largest_first_and_an_op_that_may_not_write_over_its_operand():
    after = reused(P.LARGEST_FIRST)
    # s (small, early) joins the large buffer; s2 = recip(s) may not sit on s's buffer
    assert bases(after, "s", "s2", "big", "big2") == ["mem_vec_6", "mem_vec_5", "mem_vec_6", "mem_vec_6"]
    assert allocs(after) == ["mem_vec_5", "mem_vec_6"]
    s = after.get_function("k").body.stmts[2].var
    big = after.get_function("k").body.stmts[5].var
    assert s.type.memref is big.type.memref  # s takes the representative's MemRef object (16384 bytes)


def test_e3_a_widening_cast_may_not_write_over_its_operand_a_narrowing_one_may():
    after = reused(P.CASTS)
    assert bases(after, "t", "h", "f") == ["mem_vec_2", "mem_vec_3", "mem_vec_2"]
    assert allocs(after) == ["mem_vec_2", "mem_vec_3"]


def test_an_in_place_safe_op_takes_its_operand_s_buffer_while_recip_does_not():
    chain = P.CHAIN.replace("pl.tile.add(t, t)", "pl.tile.recip(t)")
    after = reused(chain)
    assert bases(after, "t", "u", "v") == ["mem_vec_2", "mem_vec_3", "mem_vec_2"]


def test_overlapping_tiles_never_share():
    # x and y are both read by z: they are live together, z may take x's buffer (x is read last by z)
    text = P.CHAIN.replace("u: ", "y: ").replace("pl.tile.add(t, t)", "pl.tile.load(a, [0, 0], [64, 64], [64, 64], "
                                                                      "target_memory=pl.Mem.Vec)")
    text = text.replace("pl.tile.muls(u, 2.0)", "pl.tile.add(t, y)")
    after = reused(text)
    assert bases(after, "t", "y", "v") == ["mem_vec_2", "mem_vec_3", "mem_vec_2"]


def test_no_shape_or_dtype_compatibility_is_needed():
    # a BF16 [16, 64] tile takes the dead FP32 tile's buffer: only lifetimes and aliasing matter
    text = P.CASTS.replace("f: pl.Tile[[16, 64], pl.FP32", "f: pl.Tile[[16, 64], pl.BF16").replace(
        "pl.tile.cast(h, target_type=pl.FP32, mode='round')", "pl.tile.muls(h, 2.0)").replace(
        "pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096)", "pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 2048)")
    text = text.replace("out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
                        "out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]").replace(
        "o: pl.Tensor[[16, 64], pl.FP32]", "o: pl.Tensor[[16, 64], pl.BF16]")
    after = reused(text)
    assert bases(after, "t", "h", "f") == ["mem_vec_2"] * 3


def test_spaces_never_mix():
    after = reused(P.cube_kernel("k", func_type="InCore"))
    assert bases(after, "am", "bm", "al", "br", "c") == ["mem_mat_3", "mem_mat_4", "mem_left_5", "mem_right_6",
                                                        "mem_acc_7"]


def test_declared_allocations_keep_their_own_buffer():
    after = reused(P.declared())
    assert bases(after, "t0", "t1", "t2", "t3", "t4") == ["ping", "ring", "ring", "ping", "mem_vec_2"]
    assert allocs(after) == ["ping", "ring", "mem_vec_2"]


# -- loops and ifs ------------------------------------------------------------------------------------------

def test_e4_a_loop_carry_gets_a_move_into_its_buffer():
    after = reused(P.LOOP_CARRY)
    lines = body_lines(after)
    assert bases(after, "acc0", "w", "nxt", "dbl", "acc_out") == \
        ["mem_vec_3", "mem_vec_4", "mem_vec_5", "mem_vec_6", "mem_vec_3"]
    move = ("nxt_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = "
            "pl.tile.move(nxt, target_memory=pl.Mem.Vec)")
    assert lines[lines.index(move) + 1].endswith("pl.yield_(nxt_mv)")


def test_a_loop_whose_yield_is_on_the_carried_buffer_needs_no_move():
    text = P.LOOP_CARRY.replace('nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5',
                                'nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3')
    text = text.replace("dbl: ", "dbl0: ").replace("pl.tile.muls(acc, 2.0)", "pl.tile.muls(w, 2.0)").replace(
        "pl.tile.store(dbl,", "pl.tile.store(dbl0,")
    after = reused(text)
    assert not any("tile.move" in line for line in body_lines(after))


def test_e4_a_loop_invariant_input_keeps_its_buffer_through_the_loop():
    after = reused(P.LOOP_INVARIANT)
    assert bases(after, "w", "x", "y") == ["mem_vec_2", "mem_vec_3", "mem_vec_3"]


@pytest.mark.parametrize("flag", [0, 1])
def test_e5_the_else_branch_moves_into_the_then_branch_buffer(flag):
    import numpy as np

    after = reused(P.IF_BRANCHES, flag=np.int64(flag))
    lines = body_lines(after)
    assert bases(after, "t", "u", "v", "res", "tr") == ["mem_vec_2", "mem_vec_3", "mem_vec_2", "mem_vec_3",
                                                         "mem_vec_2"]
    assert ("v_mv: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = "
            "pl.tile.move(v, target_memory=pl.Mem.Vec)") in lines
    assert allocs(after) == ["mem_vec_2", "mem_vec_3"]


@pytest.mark.parametrize("flag", [0, 1])
def test_a_phi_s_alternative_branch_tiles_share_although_both_live_to_the_result_s_use(flag):
    import numpy as np

    # t is read after the if, so v cannot take t's buffer; u and v (one phi family) share one
    text = P.IF_BRANCHES.replace("pl.tile.transpose(res, 0, 1)", "pl.tile.add(res, t)").replace(
        "tr: pl.Tile[[32, 16]", "tr: pl.Tile[[16, 32]").replace(
        "pl.Tensor[[32, 16], pl.FP32]", "pl.Tensor[[16, 32], pl.FP32]")
    after = reused(text, flag=np.int64(flag))
    assert bases(after, "t", "u", "v", "res") == ["mem_vec_2", "mem_vec_3", "mem_vec_3", "mem_vec_3"]
    assert not any("tile.move" in line for line in body_lines(after))


# -- the split-AIV hazard -----------------------------------------------------------------------------------

def test_e6_on_ascend910b_the_pop_consumer_avoids_the_load_buffer():
    after = reused(P.SPLIT_HAZARD, check=False)  # a popped tile needs the cube: structure only
    assert "sm: pl.Tile[[32, 32], pl.FP32, pl.MemRef(buf_b, 0, 4096), pl.Mem.Vec] = pl.tile.sub(ld, pp)" in \
        body_lines(after)
    assert allocs(after) == ["buf_a", "buf_b"]


def test_e6_on_ascend950_the_pop_consumer_takes_the_load_buffer():
    after = run_pass(reuse, program(P.SPLIT_HAZARD), "Ascend950")
    assert base(after, "sm") == "buf_a"


def test_e6_without_a_pass_context_the_guard_is_off():
    found: list[str] = []

    def run() -> None:  # a thread of its own has no active PassContext
        found.append(base(reuse()(program(P.SPLIT_HAZARD)), "sm"))

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert found == ["buf_a"]


def test_the_hazard_needs_a_split_function():
    text = P.SPLIT_HAZARD.replace(', attrs={"split": pl.SplitMode.LEFT_RIGHT}', "")
    assert base(run_pass(reuse, program(text)), "sm") == "buf_a"


# -- pipeline stages and the capacity fit --------------------------------------------------------------------

def test_e7_pipeline_stages_keep_their_own_buffers_and_the_tags_go():
    after = reused(P.pipelined())
    assert bases(after, "t", "u", "t_1", "u_1") == ["mem_vec_2", "mem_vec_2", "mem_vec_4", "mem_vec_4"]
    assert not any("pipeline_membership" in line for line in body_lines(after))
    assert allocs(after) == ["mem_vec_2", "mem_vec_4"]


def test_without_the_tags_the_stages_share_one_buffer():
    after = reused(P.pipelined().replace(', attrs={"pipeline_membership": "0:0"}', "").replace(
        ', attrs={"pipeline_membership": "0:1"}', ""))
    assert len(set(bases(after, "t", "u", "t_1", "u_1"))) == 1


TINY = '''
from pypto.plugin import Backend, CAPABILITIES, CoreGroup, MemorySpace, hookimpl


@hookimpl
def pypto_register_backends(registry):
    registry.register_backend(Backend("TinyVec", {k: False for k in CAPABILITIES}, {MemorySpace.Vec: 300},
                                      CoreGroup(), description="room for one 256-byte stage buffer"))
'''


@pytest.fixture
def tiny_vec():
    module = types.ModuleType("tiny_vec_plugin")
    exec(compile(TINY, "<tiny_vec_plugin>", "exec"), module.__dict__)
    register_in_process_plugin("tiny_vec", module)
    try:
        yield "TinyVec"
    finally:
        reload_plugins(disabled=[], extra=[])


def test_a_stage_depth_that_does_not_fit_is_lowered_with_a_perf_hint(tiny_vec, capfd):
    after = run_pass(reuse, program(P.pipelined()), tiny_vec)
    assert len(set(bases(after, "t", "u", "t_1", "u_1"))) == 1
    assert ("I | [perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 2 for pipeline group 0 in "
            "Vec, but only 1 of 2 buffers fit") in capfd.readouterr().err


def test_with_a_report_instrument_the_perf_hint_goes_to_perf_hints_log(tiny_vec, tmp_path, capfd):
    (tmp_path / "perf_hints.log").write_text("an earlier line\n")
    with passes.PassContext([passes.ReportInstrument(tmp_path)], backend=tiny_vec):
        reuse()(program(P.pipelined()))
    lines = (tmp_path / "perf_hints.log").read_text().splitlines()
    assert lines[0] == "an earlier line"  # appended, never truncated
    assert len(lines) == 2 and "[perf_hint PH-MR-001] MemoryReuse: software pipelining requested depth 2" in lines[1]
    assert "PH-MR-001" not in capfd.readouterr().err


CO_LIVE = '''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 512], pl.FP32], b: pl.Tensor[[64, 512], pl.FP32], out: pl.Out[pl.Tensor[[64, 512], pl.FP32]]) -> pl.Tensor[[64, 512], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 131072)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 131072)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 131072)
        x: pl.Tile[[64, 512], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 131072), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 512], [64, 512], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 512], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 131072), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 512], [64, 512], target_memory=pl.Mem.Vec)
        z: pl.Tile[[64, 512], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 131072), pl.Mem.Vec] = pl.tile.add(x, y)
        o: pl.Tensor[[64, 512], pl.FP32] = pl.tile.store(z, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_co_live_tiles_too_big_for_vec_warn_but_do_not_fail(backend):
    with pytest.warns(MemoryReuseWarning) as record:
        after = run_pass(reuse, program(CO_LIVE), backend)
    assert str(record[0].message) == (
        "MemoryReuse: capacity-gated reuse could not fit memory space Vec at any double-buffering depth; fell back "
        "to the legacy packing (which also overflows — reduce tile size or stage count).")
    assert bases(after, "x", "y", "z") == ["mem_vec_2", "mem_vec_3", "mem_vec_2"]
    with pytest.raises(ValueError, match="Vec buffer usage \\(262144 bytes\\) exceeds platform limit"):
        run_pass(passes.allocate_memory_addr, after, backend)


def test_no_warning_when_the_kernel_fits_or_one_tile_alone_is_too_big():
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemoryReuseWarning)
        run_pass(reuse, program(P.CHAIN))
        run_pass(reuse, program(P.vec_kernel(64, 752)))  # one buffer of 192512 bytes alone exceeds 188416


# -- the declared-slot error ------------------------------------------------------------------------------------

def test_two_live_tiles_bound_to_one_slot_are_an_error():
    text = P.declared().replace("pl.MemRef(ring, pl.const(8192, pl.INT64), 8192, slots=2)[1]",
                                "pl.MemRef(ring, pl.const(0, pl.INT64), 8192, slots=2)[0]")
    with pytest.raises(ValueError) as info:
        run_pass(reuse, program(text))
    text = str(info.value)
    assert text.startswith("Tiles 't1' and 't2' are both bound to the same slot of the declared allocation 'ring' "
                           "but are live at the same time (t1: [5, 8], t2: [6, 8]). Sharing one slot would "
                           "overwrite data")
    assert "t2: pl.Tile" in text  # located at the second tile


def test_a_tile_computed_in_place_on_its_slot_is_no_error():
    after = reused(P.declared())  # t3 = exp(t0), both on ping
    assert base(after, "t3") == "ping"


# -- the pass never changes what the program computes ---------------------------------------------------------

def test_only_orchestration_and_tile_less_functions_are_skipped():
    text = P.CHAIN.replace("FunctionType.InCore", "FunctionType.Orchestration")
    before = program(text)
    with passes.PassContext([]):
        assert reuse()(before) is before
    opaque = program(P.CHAIN.replace("FunctionType.InCore", "FunctionType.Opaque"))
    with passes.PassContext([]):
        assert allocs(reuse()(opaque)) == ["mem_vec_2"]

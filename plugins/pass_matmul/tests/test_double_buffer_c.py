"""AutoTileMatmulL0's dbC plan of a user's own pipelined matmul loop (docs/passes/auto_tile_matmul_l0.md, user
pipelines): a loop computing one L0C tile per iteration and draining it through its carry gets
`pipeline_overlap_stores=False, pipeline_double_buffer_c=True` when the planner double-buffers L0C, the trip
count allows it and L0C holds the second buffer. Attrs only: the outputs are the same."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_plugins.pass_matmul.tests.helpers import kernel, parse, run_pass, same_results_reordered

PTOAS = {"memory_planner": passes.MemoryPlanner.PTOAS}


def user_pipeline(n_total: int = 512, n: int = 128, *, stage: int = 2, drain: str = "store", m: int = 64,
                  attrs: str = "") -> ir.Program:
    """`al` (Left, outside) times a Right extract of `bm` per iteration; the product stored into (or assembled
    into) the loop's carry."""
    params = (f"a: pl.Tensor[[{m}, 64], pl.BF16], b: pl.Tensor[[64, {n_total}], pl.BF16], "
              f"out: pl.Out[pl.Tensor[[{m}, {n_total}], pl.FP32]]")
    body = f"""        am: pl.Tile[[{m}, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, {n_total}], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, {n_total}], target_memory=pl.Mem.Mat)
        al: pl.Tile[[{m}, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
"""
    if drain == "store":
        init, carry_type = "out", f"pl.Tensor[[{m}, {n_total}], pl.FP32]"
    else:
        body += (f"        big: pl.Tile[[{m}, {n_total}], pl.FP32, pl.Mem.Mat] = pl.tile.create([{m}, {n_total}], "
                 "dtype=pl.FP32, target_memory=pl.Mem.Mat)\n")
        init, carry_type = "big", f"pl.Tile[[{m}, {n_total}], pl.FP32, pl.Mem.Mat]"
    body += f"""        for j, (o,) in pl.pipeline(0, {n_total}, {n}, init_values=({init},), stage={stage}{attrs}):
            br: pl.Tile[[64, {n}], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, j, [64, {n}], target_memory=pl.Mem.Right)
            c: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
"""
    if drain == "store":
        body += f"            o2: {carry_type} = pl.tile.store(c, [0, j], o)\n"
    else:
        body += f"            o2: {carry_type} = pl.tile.assemble(o, c, [0, j])\n"
    body += f"            r: {carry_type} = pl.yield_(o2)\n"
    if drain != "store":
        body += f"        out2: pl.Tensor[[{m}, {n_total}], pl.FP32] = pl.tile.store(r, [0, 0], out)"
        result = "out2"
    else:
        result = "r"
    return parse(kernel(body, params, f"pl.Tensor[[{m}, {n_total}], pl.FP32]", result=result))


def _loop_attrs(program: ir.Program) -> dict:
    from pypto_core.analysis.walk import statements
    from pypto_core.ir import stmt as S

    loops = [s for s in statements(program.get_function("k").body) if isinstance(s, S.ForStmt)]
    assert len(loops) == 1
    return dict(loops[0].attrs)


@pytest.mark.parametrize("context", [PTOAS, {"memory_planner": passes.MemoryPlanner.DSA_RP},
                                     {"enable_pypto_l0c_double_buffer": True}], ids=["ptoas", "dsa_rp", "opt_in"])
def test_a_store_drained_pipeline_double_buffers_l0c(context):
    before = user_pipeline()
    after = run_pass(before, "Ascend910B", **context)
    attrs = _loop_attrs(after)
    assert attrs["pipeline_overlap_stores"] is False and attrs["pipeline_double_buffer_c"] is True
    assert attrs["pipeline_stages"] == 2
    assert 'attrs={"pipeline_overlap_stores": False, "pipeline_double_buffer_c": True}' in \
        ir.python_print(after.get_function("k"))
    same_results_reordered(before, after, "Ascend910B")


def test_the_pypto_planner_without_its_opt_in_keeps_one_buffer():
    before = user_pipeline()
    assert run_pass(before, "Ascend910B") is before


@pytest.mark.parametrize("n_total, n, stage", [(256, 128, 2), (384, 128, 2), (512, 128, 3)],
                         ids=["2_trips", "odd_trips", "trips_not_a_multiple_of_the_stages"])
def test_too_few_or_uneven_trips_keep_one_buffer(n_total, n, stage):
    before = user_pipeline(n_total, n, stage=stage)
    assert run_pass(before, "Ascend910B", **PTOAS) is before


def test_an_assemble_drain_needs_eight_trips_and_a_quarter_of_l0c():
    before = user_pipeline(1024, 128, drain="assemble")  # 8 trips of a [64, 128] FP32 tile: 32 KiB = L0C / 4
    after = run_pass(before, "Ascend910B", **PTOAS)
    assert _loop_attrs(after)["pipeline_double_buffer_c"] is True
    same_results_reordered(before, after, "Ascend910B")
    four_trips = user_pipeline(512, 128, drain="assemble")
    assert run_pass(four_trips, "Ascend910B", **PTOAS) is four_trips
    small = user_pipeline(1024, 128, drain="assemble", m=32)  # 16 KiB < L0C / 4
    assert run_pass(small, "Ascend910B", **PTOAS) is small


def test_a_loop_that_already_chose_is_left_alone():
    before = user_pipeline(attrs=', attrs={"pipeline_double_buffer_c": False}')
    assert run_pass(before, "Ascend910B", **PTOAS) is before


def test_two_buffers_that_do_not_fit_l0c_keep_one():
    before = user_pipeline(1024, 256, m=128)  # a [128, 256] FP32 tile is 128 KiB: two exceed Ascend910B's L0C
    assert run_pass(before, "Ascend910B", **PTOAS) is before
    after = run_pass(before, "Ascend950", **PTOAS)  # 256 KiB of L0C hold two
    assert _loop_attrs(after)["pipeline_double_buffer_c"] is True

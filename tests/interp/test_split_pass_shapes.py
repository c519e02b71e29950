"""The shapes the split passes produce (PyPTO's printed outputs of LowerAutoVectorSplit and ExpandMixedKernel),
executed as written: the
program before and after each transformation computes the same on the machine, so the passes can
be checked by execution the day they land."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import DeadlockError, MachineError, compare_outputs, make_inputs, run_program

LAVS_BEFORE = """
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
"""

LAVS_AFTER = """
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128])] = pl.tile.aiv_shard(qk, split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0 + subblock_idx * 64, 0], out_0)
        return out_store
"""


def _same(before: str, after: str, entry: str, seed: int = 0) -> dict:
    b, a = pl.parse(before), pl.parse(after)
    inputs = make_inputs(b.get_function(entry), seed=seed)
    expected = run_program(b, inputs, entry)
    checks = compare_outputs(expected, run_program(a, inputs, entry))
    assert all(c.comparison.ok for c in checks), [c.comparison.describe() for c in checks]
    return {"inputs": inputs, "outputs": expected}


def test_lower_auto_vector_split_halves_of_a_ragged_boundary_compute_the_same():
    run = _same(LAVS_BEFORE, LAVS_AFTER, "split_auto")
    out, qk = run["outputs"]["out_0"], run["inputs"]["qk"]
    np.testing.assert_array_equal(out[:127], 2 * qk[:127])  # lane 0: rows 0..63, lane 1: rows 64..126
    assert np.isnan(out[127]).all()


def test_a_lane_offset_off_by_one_row_is_caught():
    # Lane 1's rows now start at 63, where lane 0 writes its last row with other values: the lanes are
    # judged, so the race is reported before any output is compared.
    wrong = LAVS_AFTER.replace("[0 + subblock_idx * 64, 0]", "[0 + subblock_idx * 63, 0]")
    a = pl.parse(wrong)
    inputs = make_inputs(a.get_function("split_auto"), seed=0)
    with pytest.raises(MachineError, match=r"GM race on tensor 'out_0': .* write different values to the same "
                                           r"elements \(element \[63, 0\]"):
        run_program(a, inputs)


EMK_BEFORE = """
import pypto.language as pl

@pl.program
class test_aiv_shard:
    @pl.function(type=pl.FunctionType.InCore)
    def split_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        half = pl.tile.aiv_shard(qk, split=1)
        y = pl.tile.add(half, half)
        out_store = pl.tile.store(y, [sb * 64, 0], out_0)
        return out_store
"""

# ExpandMixedKernel's output for the kernel above, as PyPTO prints it, with the lane offset on the store.
EMK_AFTER = """
import pypto.language as pl

@pl.program
class test_aiv_shard:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def split_aiv_aic(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        split_aiv_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='split_aiv_c2v_slot_buffer', peer_func='split_aiv_aiv')
        pl.system.aic_initialize_pipe(split_aiv_c2v_slot_buffer_import, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        pl.tile.tpush_to_aiv(qk, split=1)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def split_aiv_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        split_aiv_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='split_aiv_c2v_slot_buffer', size=131072, base=-1)
        pl.system.aiv_initialize_pipe(split_aiv_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        half: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(half, half)
        pl.system.tfree_to_aic(half)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [sb * 64, 0], out_0)
        return out_store
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def split_aiv(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        self.split_aiv_aic(qk, out_0)
        self.split_aiv_aiv(qk, out_0)
        return out_0
"""


def test_expand_mixed_kernel_group_computes_what_the_split_incore_did():
    run = _same(EMK_BEFORE, EMK_AFTER, "split_aiv", seed=4)
    np.testing.assert_array_equal(run["outputs"]["out_0"], 2 * run["inputs"]["qk"])


V2C_GATHER_BEFORE = """
import pypto.language as pl

@pl.program
class Gather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [aiv_id * 8, 0], [8, 32])
            e = pl.exp(t)
            full = pl.aic_gather(e)
        xl = pl.move(full, target_memory=pl.Mem.Left)
        br = pl.move(pl.load(b, [0, 0], [32, 8], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        out = pl.store(pl.matmul(xl, br), [0, 0], out)
        return out
"""


def test_aic_gather_in_a_split_region_is_a_lane_barrier():
    program = pl.parse(V2C_GATHER_BEFORE)
    inputs = make_inputs(program.get_function("k"), seed=9)
    out = run_program(program, inputs)["out"]
    want = np.exp(inputs["a"].astype(np.float64)) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_an_error_on_one_lane_stops_the_group_cleanly():
    broken = EMK_AFTER.replace("[sb * 64, 0], out_0)", "[sb * 128, 0], out_0)")
    program = pl.parse(broken)
    inputs = make_inputs(program.get_function("split_aiv"), seed=0)
    with pytest.raises(MachineError, match="tile.store writes past the end of dimension 0: offset 128 "
                                           "\\+ extent 64") as err:
        run_program(program, inputs)
    assert not isinstance(err.value, DeadlockError)  # the real error, not the blocked peers

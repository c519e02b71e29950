"""AIV -> AIC through a FIFO on two lanes: each lane pushes its part, the AIC pops the assembled tile
(lane 1 at e1 for codes 1 / 2, e1 + 1 for codes 3 / 4; docs/passes/lower_auto_vector_split.md, split codes) and
multiplies it on the cube. Also the no-split dual dispatch (docs/passes/split_vector_kernel.md): lane 1 replays
with an empty tile that moves nothing."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import make_inputs, run_program

PROGRAM = """
import pypto.language as pl

@pl.program
class V2C:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[{R}, {C}], pl.FP32], b: pl.Tensor[[{C}, 8], pl.FP32], out: pl.Out[pl.Tensor[[{R}, 8], pl.FP32]]) -> pl.Tensor[[{R}, 8], pl.FP32]:
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="v2c", size=131072, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=65536, slot_num=2)
        bm = pl.load(b, [0, 0], [{C}, 8], target_memory=pl.Mem.Mat)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        x: {POP} = pl.tile.tpop_from_aiv(split={code})
        xl = pl.move(x, target_memory=pl.Mem.Left)
        acc = pl.matmul(xl, br)
        pl.system.tfree_to_aiv(x)
        r = pl.store(acc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[{R}, {C}], pl.FP32], b: pl.Tensor[[{C}, 8], pl.FP32], out: pl.Out[pl.Tensor[[{R}, 8], pl.FP32]]):
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="v2c", peer_func="k_aic")
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=65536, slot_num=2)
        t: {PART} = pl.load(a, {OFFSET}, {BOX}, valid_shape={VALID})
        e = pl.exp(t)
        pl.tile.tpush_to_aic(e, split={code})

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[{R}, {C}], pl.FP32], b: pl.Tensor[[{C}, 8], pl.FP32], out: pl.Out[pl.Tensor[[{R}, 8], pl.FP32]]) -> pl.Tensor[[{R}, 8], pl.FP32]:
        r = self.k_aic(a, b, out)
        self.k_aiv(a, b, out)
        return r
"""

M = "pl.Mem.Mat"
CASES = {
    # code 0: both lanes write at the origin; lane 1 loads the same rows, so the result is a's rows.
    "code0": dict(code=0, R=16, C=16, POP=f"pl.Tile[[16, 16], pl.FP32, {M}]", PART="pl.Tile[[16, 16], pl.FP32]",
                  OFFSET="[0, 0]", BOX="[16, 16]", VALID="[16, 16]", rows=16),
    "code1": dict(code=1, R=16, C=16, POP=f"pl.Tile[[16, 16], pl.FP32, {M}]", PART="pl.Tile[[8, 16], pl.FP32]",
                  OFFSET="[sb * 8, 0]", BOX="[8, 16]", VALID="[8, 16]", rows=16),
    "code2": dict(code=2, R=16, C=16, POP=f"pl.Tile[[16, 16], pl.FP32, {M}]", PART="pl.Tile[[16, 8], pl.FP32]",
                  OFFSET="[0, sb * 8]", BOX="[16, 8]", VALID="[16, 8]", rows=16),
    # code 3, ragged: lanes hold 7 and 6 of 13 rows (boxes of 8); lane 1 lands at row e1 + 1 = 7.
    "code3_ragged": dict(code=3, R=16, C=16, POP=f"pl.Tile[[16, 16], pl.FP32, {M}, pl.TileView(valid_shape=[13, 16])]",
                         PART="pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[7 - sb, 16])]",
                         OFFSET="[sb * 7, 0]", BOX="[8, 16]", VALID="[7 - sb, 16]", rows=13),
    # code 4: 17 columns, lanes hold 9 and 8 (boxes of 9); lane 1 lands at column e1 + 1 = 9.
    "code4": dict(code=4, R=16, C=17, POP=f"pl.Tile[[16, 17], pl.FP32, {M}]",
                  PART="pl.Tile[[16, 9], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 9 - sb])]",
                  OFFSET="[0, sb * 9]", BOX="[16, 9]", VALID="[16, 9 - sb]", rows=16),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_v2c_split_code_assembles_both_lanes(case):
    spec = CASES[case]
    program = pl.parse(PROGRAM.format(**spec))
    inputs = make_inputs(program.get_function("k"), seed=11)
    out = run_program(program, inputs, entry="k")["out"]
    rows = spec["rows"]
    want = np.exp(inputs["a"][:rows].astype(np.float64)) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(out[:rows], want, rtol=1e-5, atol=1e-5)  # FP32 tolerance (tolerance.py)
    assert np.isnan(out[rows:]).all()  # rows no lane delivered are never stored


DUAL = """
import pypto.language as pl

@pl.program
class Dual:
    @pl.function(type=pl.FunctionType.AIC)
    def main_aic(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        slot_buf = pl.system.import_peer_buffer(name="v2c_slot_buffer", peer_func="main_aiv")
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), slot_buf, dir_mask=2, slot_size=1024)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        br = pl.move(bm, target_memory=pl.Mem.Right)
        s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        sl = pl.move(s, target_memory=pl.Mem.Left)
        acc = pl.matmul(sl, br)
        pl.system.tfree_to_aiv(s)
        r = pl.store(acc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.AIV)
    def main_aiv(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        {ATTRS}
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        slot_buf = pl.system.reserve_buffer(name="v2c_slot_buffer", size=4096, base=4096)
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), slot_buf, dir_mask=2, slot_size=1024)
        {BODY}

    @pl.function(type=pl.FunctionType.Group)
    def main(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r = self.main_aic(a, b, out)
        self.main_aiv(a, b, out)
        return r
"""

LANE0 = """a_tile = pl.load(a, [0, 0], [16, 16])
        b_tile = pl.load(b, [0, 0], [16, 16])
        summed = pl.add(a_tile, b_tile)
        pl.tile.tpush_to_aic(summed, split=0)"""

# The lane-1 replay of docs/passes/split_vector_kernel.md: lane 0 computes, lane 1 replays the push with empty (valid [0, 0]) tiles
# (renamed: the non-SSA parser keeps one type per name).
REPLAY = """if subblock_idx == 0:
            a_tile = pl.load(a, [0, 0], [16, 16])
            b_tile = pl.load(b, [0, 0], [16, 16])
            summed = pl.add(a_tile, b_tile)
            pl.tile.tpush_to_aic(summed, split=0)
        else:
            a_rep: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            b_rep: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            s_rep: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.add(a_rep, b_rep)
            pl.tile.tpush_to_aic(s_rep, split=0)"""


def _dual(attrs: str, body: str):
    return pl.parse(DUAL.format(ATTRS=attrs, BODY=body))


def test_dual_aiv_dispatch_replay_on_lane_1_moves_nothing():
    single = _dual("pass", LANE0)  # one lane: the program as ExpandMixedKernel leaves it on Ascend950
    dual = _dual('pl.func_attr({"dual_aiv_dispatch": True})', REPLAY)
    inputs = make_inputs(single.get_function("main"), seed=2)
    want = (inputs["a"] + inputs["b"]).astype(np.float64) @ inputs["b"].astype(np.float64)
    for program in (single, dual):
        np.testing.assert_allclose(run_program(program, inputs, entry="main")["out"], want, rtol=1e-5, atol=1e-5)


def test_dual_aiv_dispatch_without_the_replay_guard_pushes_twice():
    # Both lanes push real data at the origin with split=0: the second overwrites the first. With the
    # same data that is harmless; what matters is that the AIC's single pop takes one slot per lane.
    dual_unguarded = _dual('pl.func_attr({"dual_aiv_dispatch": True})', LANE0)
    inputs = make_inputs(dual_unguarded.get_function("main"), seed=2)
    want = (inputs["a"] + inputs["b"]).astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(run_program(dual_unguarded, inputs, entry="main")["out"], want, rtol=1e-5, atol=1e-5)

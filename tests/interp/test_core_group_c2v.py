"""AIC -> AIV through a FIFO on two lanes, for every pto-isa split code (docs/passes/lower_auto_vector_split.md,
split codes): lane 1's rows / columns start at e1 (codes 1 / 2) or e1 + 1 (codes 3 / 4),
a lane with extent 0 moves nothing. Expected outputs are written out by hand from that table."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import make_inputs, run_program
from pypto_core.interp.dtypes import is_poison

PROGRAM = """
import pypto.language as pl

@pl.program
class C2V:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[{R}, {C}], pl.FP32], out: pl.Out[pl.Tensor[[{OR}, {OC}], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="c2v", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        t = pl.load(a, [0, 0], [{R}, {C}], valid_shape=[{VR}, {C}], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(t, split={code})

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[{R}, {C}], pl.FP32], out: pl.Out[pl.Tensor[[{OR}, {OC}], pl.FP32]]) -> pl.Tensor[[{OR}, {OC}], pl.FP32]:
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="c2v", size=131072, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)
        part: {POP} = pl.tile.tpop_from_aic(split={code})
        {GUARD}r = pl.store(part, {OFFSET}, out)
        pl.system.tfree_to_aic(part)
        return r

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[{R}, {C}], pl.FP32], out: pl.Out[pl.Tensor[[{OR}, {OC}], pl.FP32]]) -> pl.Tensor[[{OR}, {OC}], pl.FP32]:
        self.k_aic(a, out)
        r = self.k_aiv(a, out)
        return r
"""

V = "pl.Mem.Vec"
# Lane 1 of the empty-lane case skips its store; `r` is then `out` untouched (the store's result aliases it).
GUARD_EMPTY_LANE = ("r = out\n        if pl.min(pl.max(8, sb * 8) - sb * 8, 8) > 0:\n            ")
CASES = {
    # code 0: no split, each lane pops the whole tile and stores it in its own half of out.
    "code0": dict(code=0, R=16, C=128, VR=16, OR=32, OC=128, POP=f"pl.Tile[[16, 128], pl.FP32, {V}]",
                  OFFSET="[sb * 16, 0]"),
    # code 1: rows, e0 == e1 == 8; lane 1 starts at row e1 = 8.
    "code1": dict(code=1, R=16, C=128, VR=16, OR=16, OC=128, POP=f"pl.Tile[[8, 128], pl.FP32, {V}]",
                  OFFSET="[sb * 8, 0]"),
    # code 2: columns, e0 == e1 == 64; lane 1 starts at column 64.
    "code2": dict(code=2, R=16, C=128, VR=16, OR=16, OC=128, POP=f"pl.Tile[[16, 64], pl.FP32, {V}]",
                  OFFSET="[0, sb * 64]"),
    # code 3, ragged: 13 valid rows of a 16-row box split evenly 7 / 6
    # (lane_stride 7); lane 1 starts at e1 + 1 = 7.
    "code3_ragged": dict(code=3, R=16, C=128, VR=13, OR=16, OC=128,
                         POP=f"pl.Tile[[8, 128], pl.FP32, {V}, pl.TileView(valid_shape=[pl.min(pl.max(13, sb * 7) "
                             "- sb * 7, 7), 128])]",
                         OFFSET="[sb * 7, 0]"),
    # code 4: 17 columns give lane boxes of 9 and extents 9 / 8; lane 1 starts at e1 + 1 = 9.
    "code4": dict(code=4, R=16, C=17, VR=16, OR=16, OC=17,
                  POP=f"pl.Tile[[16, 9], pl.FP32, {V}, pl.TileView(valid_shape=[16, 9 - sb])]",
                  OFFSET="[0, sb * 9]"),
    # code 1, box partition of 8 valid rows: lane 0 holds all 8, lane 1 has extent 0 and moves nothing;
    # its store is guarded (an empty TSTORE is an error).
    "code1_empty_lane": dict(code=1, R=16, C=128, VR=8, OR=16, OC=128,
                             POP=f"pl.Tile[[8, 128], pl.FP32, {V}, pl.TileView(valid_shape=[pl.min(pl.max(8, sb * 8) "
                                 "- sb * 8, 8), 128])]",
                             OFFSET="[sb * 8, 0]", GUARD=GUARD_EMPTY_LANE),
}
CASES = {name: {"GUARD": "", **spec} for name, spec in CASES.items()}  # every other store runs unguarded


def expected(case: str, a: np.ndarray) -> np.ndarray:
    if case == "code0":
        return np.concatenate([a, a])
    if case in ("code1", "code2", "code4"):
        return a  # the two lanes' parts tile the whole source
    out = np.full_like(a, np.nan)
    rows = 13 if case == "code3_ragged" else 8
    out[:rows] = a[:rows]
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_c2v_split_code_places_each_lanes_data(case):
    program = pl.parse(PROGRAM.format(**CASES[case]))
    inputs = make_inputs(program.get_function("k"), seed=3)
    outputs = run_program(program, inputs, entry="k")
    want = expected(case, inputs["a"])
    got = outputs["out"]
    np.testing.assert_array_equal(is_poison(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
    assert outputs["return"] is not None


def test_c2v_ragged_lane_reads_from_e1_plus_one_not_from_the_box_half():
    # With code 3 lane 1 (6 rows) must read rows 7..12. A machine placing it at the box half (row 8)
    # would shift every row by one: check a specific row.
    program = pl.parse(PROGRAM.format(**CASES["code3_ragged"]))
    inputs = make_inputs(program.get_function("k"), seed=5)
    out = run_program(program, inputs, entry="k")["out"]
    np.testing.assert_array_equal(out[7], inputs["a"][7])
    np.testing.assert_array_equal(out[12], inputs["a"][12])

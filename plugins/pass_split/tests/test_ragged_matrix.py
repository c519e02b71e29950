"""The ragged matrix (docs/passes/lower_auto_vector_split.md, lane extents): a cube -> vector
boundary of box 16 and 17, every valid extent from 1 to the box, both modes, with and without a vector ->
cube boundary after it. Every case is either the documented rejection or compiles and computes the same
outputs before and after on the reference machine's two AIV lanes; extents a transfer cannot place are
ExpandMixedKernel's rejection."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_plugins.pass_split.split_axis.lanes import lane_extents, placeable

from .emk_helpers import emk
from .helpers import function, lavs

ROWS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[BOX, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[VALID, 64])], w: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right], out: pl.Out[pl.Tensor[[BOX, 64], pl.FP32]]) -> pl.Tensor[[BOX, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        e = pl.tile.exp(p)
        TAIL
        return o
'''
COLS = ROWS.replace("[BOX, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[VALID, 64])",
                    "[64, BOX], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[64, VALID])").replace(
    "pl.Tensor[[BOX, 64], pl.FP32]", "pl.Tensor[[64, BOX], pl.FP32]")
STORE = "o = pl.store(e, [0, 0], out)"
# A vector -> cube boundary after the vector stage: the box partition is the only one (gather).
BACK_TO_CUBE = ("l = pl.move(e, target_memory=pl.Mem.Left)\n        c = pl.tile.matmul(l, w)\n"
                "        o = pl.store(c, [0, 0], out)")

CASES = [(box, valid) for box in (16, 17) for valid in range(1, box + 1)]


def _program(template: str, box: int, valid: int, mode: str, tail: str) -> str:
    return template.replace("BOX", str(box)).replace("VALID", str(valid)).replace("MODE", mode).replace("TAIL", tail)


@pytest.mark.parametrize(("box", "valid"), CASES)
def test_up_down_rows_ragged_vector_stage_always_compiles(box, valid):
    after = lavs(_program(ROWS, box, valid, "UP_DOWN", STORE))
    shard = ir.flatten_to_stmts(function(after, "k").body)[1].value
    stride = shard.kwargs.get("lane_stride", (box + 1) // 2)
    assert placeable(*lane_extents(valid, stride))


@pytest.mark.parametrize(("box", "valid"), CASES)
def test_up_down_rows_ragged_then_back_to_the_cube_expands_exactly_when_the_box_partition_places(box, valid):
    # The gather declines the rebalance: LowerAutoVectorSplit lowers the box partition without complaint, and
    # ExpandMixedKernel reports the extents a transfer cannot place.
    src = _program(ROWS, box, valid, "UP_DOWN", BACK_TO_CUBE)
    e0, e1 = lane_extents(valid, (box + 1) // 2)
    lowered = lavs(src)
    shard = ir.flatten_to_stmts(function(lowered, "k").body)[1].value
    assert "lane_stride" not in shard.kwargs
    if placeable(e0, e1):
        emk(lowered)
    else:
        with pytest.raises(ValueError, match=rf"ExpandMixedKernel: .*leaves the two AIV lanes {e0} and {e1} cells"):
            emk(lowered, run=False)


@pytest.mark.parametrize(("box", "valid"), CASES)
def test_left_right_with_ragged_rows_compiles(box, valid):
    lavs(_program(ROWS, box, valid, "LEFT_RIGHT", STORE))


@pytest.mark.parametrize(("box", "valid"), CASES)
def test_left_right_with_ragged_columns_on_the_split_axis_is_rejected_unless_full(box, valid):
    src = _program(COLS, box, valid, "LEFT_RIGHT", STORE)
    if valid == box:
        lavs(src)
    else:
        with pytest.raises(ValueError, match=r"narrowed on the LEFT_RIGHT split axis"):
            lavs(src, run=False)

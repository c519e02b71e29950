"""A tile.store of an empty window is an error: the hardware store asserts a positive valid
row count (TSTORE), so an empty lane's store must be guarded with `if extent > 0` (LowerAutoVectorSplit
guards empty-lane stores that way), not executed as a no-op."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import MachineError, make_inputs, run_program

# A split_aiv kernel over 8 valid rows of 16 (box partition): lane 0 holds all 8, lane 1 none.
ROWS = "pl.min(pl.max(8, sb * 8) - sb * 8, 8)"
COLS = "pl.min(pl.max(8, sb * 8) - sb * 8, 8)"
KERNEL = """
import pypto.language as pl

@pl.program
class Empty:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({{"split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[{BOX}, pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape={VALID})] = pl.load(a, {OFFSET}, {BOX}, valid_shape={VALID})
        {GUARD}out = pl.store(t, {OFFSET}, out)
        return out
"""
BY_ROWS = dict(BOX="[8, 16]", VALID=f"[{ROWS}, 16]", OFFSET="[sb * 8, 0]")
BY_COLS = dict(BOX="[16, 8]", VALID=f"[16, {COLS}]", OFFSET="[0, sb * 8]")


def _guard(extent: str) -> str:
    return f"if {extent} > 0:\n            "


def _run(text: str) -> tuple[dict, dict]:
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("k"), seed=21)
    return inputs, run_program(program, inputs, "k")


def test_an_empty_lanes_unguarded_store_of_zero_rows_is_an_error():
    with pytest.raises(MachineError) as err:
        _run(KERNEL.format(GUARD="", **BY_ROWS))
    text = str(err.value)
    assert ("tile.store at <string>:11:15 (k[lane 1]) stores an empty window: the stored tile's valid shape is "
            "[0, 16], a valid row count of 0; the hardware store asserts a positive valid row count (TSTORE); "
            "guard the store with `if extent > 0`") in text


def test_an_empty_lanes_unguarded_store_of_zero_columns_is_an_error():
    with pytest.raises(MachineError, match=r"\(k\[lane 1\]\) stores an empty window: the stored tile's valid shape "
                                           r"is \[16, 0\], a valid column count of 0; the hardware store asserts"):
        _run(KERNEL.format(GUARD="", **BY_COLS))


@pytest.mark.parametrize("split", [BY_ROWS, BY_COLS], ids=["rows", "columns"])
def test_a_guarded_empty_lane_store_runs(split: dict):
    extent = ROWS if split is BY_ROWS else COLS
    inputs, out = _run(KERNEL.format(GUARD=_guard(extent), **split))
    window = (slice(0, 8), slice(None)) if split is BY_ROWS else (slice(None), slice(0, 8))
    np.testing.assert_array_equal(out["out"][window], inputs["a"][window])  # lane 0's part; lane 1 stored none


# An explicit `shapes` operand of zero extent stores nothing either: the same error.
SHAPES = """
import pypto.language as pl

@pl.program
class Shapes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out, [{ROWS}, 16])
        return out
"""


def test_a_store_with_zero_rows_in_its_shapes_operand_is_an_error():
    with pytest.raises(MachineError, match=r"tile.store at <string>:9:15 \(k\) stores an empty window: its `shapes` "
                                           r"operand is \[0, 16\], a valid row count of 0"):
        _run(SHAPES.format(ROWS=0))
    inputs, out = _run(SHAPES.format(ROWS=4))
    np.testing.assert_array_equal(out["out"][:4], inputs["a"][:4])

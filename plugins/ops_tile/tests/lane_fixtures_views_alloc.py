"""Lane-invariant coverage fixtures of the views_alloc ops (merged by test_lane_invariant_arg_coverage.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pypto.language as pl
from pypto import ir

from .helpers import Blind


def _tile(shape: list[int], dtype: Any = pl.FP32) -> ir.Var:
    return ir.Var("t", ir.TileType(shape, dtype, memory_space=pl.Mem.Vec))


def _dims(*values: int) -> ir.MakeTuple:
    return ir.MakeTuple([ir.ConstInt(v, pl.INDEX) for v in values])


def _i(v: int, dtype: Any = pl.INDEX) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


FIXTURES: dict[str, Callable[[], Any]] = {
    "tile.alloc": lambda: ([_i(int(pl.Mem.Vec.value)), _i(16384)], {}),
    "tile.tri": lambda: ([_i(0, pl.INT32), _dims(16, 128)], {"dtype": pl.INT32, "upper": False}),
    "tile.concat": lambda: ([_tile([16, 128]), _tile([16, 64])], {}),
    "tile.fillpad": lambda: ([_tile([16, 128])], {"pad_value": pl.PadValue.zero}),
    "tile.fillpad_inplace": lambda: ([_tile([16, 128])], {"pad_value": pl.PadValue.zero}),
    # A source just narrower than the shape on both axes: a doubled source no longer fits.
    "tile.fillpad_expand": lambda: ([_tile([12, 120]), _dims(16, 128)], {"pad_value": pl.PadValue.max}),
}
EXPECTED_BLIND: dict[tuple[str, int], Blind] = {}

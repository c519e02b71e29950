"""Lane-invariant coverage fixtures of the broadcast_reduce ops (merged by test_lane_invariant_arg_coverage.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pypto.language as pl
from pypto import ir

from .helpers import Blind

# The text test_lane_invariant_arg_coverage.py gives a reduction's own operand, so that its
# reduction_axes check applies to these ops too.
_REDUCES_SPLIT_AXIS = "doubling the reduced axis: the split passes reject a reduction on the split axis " \
                      "(reduction_axes trait)"


def _tile(shape: list[int], dtype: Any = pl.FP32) -> ir.Var:
    return ir.Var("t", ir.TileType(shape, dtype, memory_space=pl.Mem.Vec))


def _v() -> ir.Var:  # the standard [16, 128] Vec tile
    return _tile([16, 128])


def _pair(vec: list[int]) -> Callable[[], Any]:
    return lambda: ([_v(), _tile(vec)], {})


FIXTURES: dict[str, Callable[[], Any]] = {
    **{f"tile.row_expand{s}": _pair([16, 1]) for s in ("", "_max", "_min", "_expdif")},
    **{f"tile.col_expand{s}": _pair([1, 128]) for s in ("", "_max", "_min", "_expdif")},
    # With its optional tmp, so that the Scratch declaration is measured.
    "tile.row_expand_add": lambda: ([_v(), _tile([16, 1]), _v()], {}),
    "tile.row_prod": lambda: ([_v(), _v()], {}),
    "tile.row_argmin": lambda: ([_v(), _v()], {}),
    "tile.col_prod": lambda: ([_v()], {}),
    "tile.col_argmax": lambda: ([_v(), _v()], {}),
    "tile.col_argmin": lambda: ([_v(), _v()], {}),
}

EXPECTED_BLIND: dict[tuple[str, int], Blind] = {
    # Declared Scratch: hardware scratch the deducer never sizes (row_argmin's tmp must equal the operand's
    # shape, so the deducer decides it and it is not blind).
    ("tile.row_expand_add", 2): Blind((0, 1)),
    ("tile.row_prod", 1): Blind((0, 1)),
    ("tile.col_argmax", 1): Blind((0, 1)),
    ("tile.col_argmin", 1): Blind((0, 1)),
    # A column reduction does not see its operand's reduced axis.
    **{(f"tile.{n}", 0): Blind((0,), _REDUCES_SPLIT_AXIS) for n in ("col_prod", "col_argmax", "col_argmin")},
}

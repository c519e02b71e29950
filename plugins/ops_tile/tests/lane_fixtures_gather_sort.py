"""Lane-invariant coverage fixtures of the gather_sort ops (merged by test_lane_invariant_arg_coverage.py).

Every new tile operand is seen by its deducer (shapes are related: idx / src / dst / tmp), so none is
blind. mgather's table and mscatter's destination are GM tensors, not lane operands. tile.gatherb's
fixture is restated here: its offset operand is UINT32 with a static column count that is a multiple of 8.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pypto.language as pl
from pypto import ir

from .helpers import Blind, tensor, tile

FP32, INT32, UINT32 = pl.FP32, pl.INT32, pl.UINT32


def _v(dtype: Any = FP32) -> ir.Var:
    return tile([16, 128], dtype)


FIXTURES: dict[str, Callable[[], Any]] = {
    "tile.mgather": lambda: ([tensor([64, 128]), tile([1, 16], INT32)], {}),
    "tile.mscatter": lambda: ([_v(), _v(INT32), tensor([64, 128])], {}),
    "tile.gather_mask": lambda: ([_v()], {"mask_pattern": 1}),
    "tile.scatter_mask": lambda: ([tile([16, 256]), _v()], {"mask_pattern": 2}),
    "tile.sort32": lambda: ([_v(), _v(UINT32)], {}),
    "tile.mrgsort_format1": lambda: ([_v(), ir.ConstInt(64, pl.INDEX)], {}),
    "tile.mrgsort_format2": lambda: ([tile([1, 64]), tile([1, 64]), tile([1, 128])], {"exhausted": False}),
    "tile.gatherb": lambda: ([_v(), tile([16, 8], UINT32)], {}),
}
EXPECTED_BLIND: dict[tuple[str, int], Blind] = {}

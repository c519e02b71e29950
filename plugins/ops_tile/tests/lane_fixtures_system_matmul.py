"""Lane-invariant coverage fixtures of the system_matmul ops (merged by test_lane_invariant_arg_coverage.py).

No blind operand: every MX operand's shape is tied to another's (K, the scale blocks, N of the bias),
and tget_scale_addr checks dst_scale against src's scale shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pypto.language as pl

from .helpers import Blind, tile

FP8, E8M0, FP32 = pl.FP8E4M3FN, pl.FP8E8M0, pl.FP32
M, K, N = 16, 64, 32


def _mx() -> list[Any]:
    return [tile([M, K], FP8, pl.Mem.Left), tile([M, K // 32], E8M0, pl.Mem.LeftScale),
            tile([K, N], FP8, pl.Mem.Right), tile([K // 32, N], E8M0, pl.Mem.RightScale)]


FIXTURES: dict[str, Callable[[], Any]] = {
    "tile.get_block_num": lambda: ([], {}),
    "tile.matmul_mx": lambda: (_mx(), {}),
    "tile.matmul_mx_acc": lambda: ([tile([M, N], FP32, pl.Mem.Acc), *_mx()], {}),
    "tile.matmul_mx_bias": lambda: ([*_mx(), tile([1, N], FP32, pl.Mem.Bias)], {}),
    "tile.tget_scale_addr": lambda: ([tile([M, K // 32], E8M0, pl.Mem.LeftScale), tile([M, K], FP8, pl.Mem.Left)],
                                     {}),
}
EXPECTED_BLIND: dict[tuple[str, int], Blind] = {}

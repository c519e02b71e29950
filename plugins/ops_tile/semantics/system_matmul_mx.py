"""numpy semantics of the MX matmuls: (lhs * scale_a) @ (rhs * scale_b) with one FP8E8M0 scale per 32 of K.

scale_a[m, k] = lhs_scale[m, k // 32] and scale_b[k, n] = rhs_scale[k // 32, n]. FP8E4M3FN values times a
power of two are exact in FP32; the products are summed in FP32 (the cube's MX accumulator), over the valid
K only (poison past it never reaches the product). tget_scale_addr moves no data: its result is dst_scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_plugins.ops_tile.ops.system_matmul_mx import MX_BLOCK
from pypto_plugins.ops_tile.semantics.common import Evaluate, valid_of


def _scaled(data: np.ndarray, scale: np.ndarray, k_axis: int, k: int) -> np.ndarray:
    """data[:k along K] * its block scales, in FP32."""
    expanded = np.repeat(scale.astype(np.float32), MX_BLOCK, axis=k_axis)
    index = [slice(None), slice(None)]
    index[k_axis] = slice(0, k)
    return data[tuple(index)].astype(np.float32) * expanded[tuple(index)]


def mx_product(ctx: Any, call: Any, args: list, first: int) -> np.ndarray:
    """The FP32 MX product of operands first .. first + 3 (lhs, lhs_scale, rhs, rhs_scale)."""
    lhs, lhs_scale, rhs, rhs_scale = args[first:first + 4]
    k = min(valid_of(ctx, call, first)[1], valid_of(ctx, call, first + 2)[0])
    return np.matmul(_scaled(lhs, lhs_scale, 1, k), _scaled(rhs, rhs_scale, 0, k))


def matmul_mx(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return mx_product(ctx, call, args, 0)


def matmul_mx_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = mx_product(ctx, call, args, 1)
    p += args[0]  # p is fresh: accumulate in place
    return p


def matmul_mx_bias(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = mx_product(ctx, call, args, 0)
    p += args[4][:1].astype(np.float32)  # the bias row, broadcast down the rows
    return p


def tget_scale_addr(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return args[0]  # an address binding: the scale tile's values stay as they are


def evaluators() -> dict[str, Evaluate]:
    return {"tile.matmul_mx": matmul_mx, "tile.matmul_mx_acc": matmul_mx_acc, "tile.matmul_mx_bias": matmul_mx_bias,
            "tile.tget_scale_addr": tget_scale_addr}

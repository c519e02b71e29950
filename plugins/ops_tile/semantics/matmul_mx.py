"""The numpy semantics of the matmul_mx family's ops (../families/matmul_mx.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import valid_of
from pypto_plugins.ops_tile.families.matmul_mx import MX_BLOCK

semantics = Semantics()


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


@semantics("tile.matmul_mx")
def matmul_mx(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return mx_product(ctx, call, args, 0)


@semantics("tile.matmul_mx_acc")
def matmul_mx_acc(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = mx_product(ctx, call, args, 1)
    p += args[0]  # p is fresh: accumulate in place
    return p


@semantics("tile.matmul_mx_bias")
def matmul_mx_bias(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    p = mx_product(ctx, call, args, 0)
    p += args[4][:1].astype(np.float32)  # the bias row, broadcast down the rows
    return p


@semantics("tile.tget_scale_addr")
def tget_scale_addr(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return args[0]  # an address binding: the scale tile's values stay as they are
